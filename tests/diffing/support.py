"""Shared helpers of the diff tests: a spec to edit, real temporary git repositories."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

Doc = dict[str, Any]
Edit = Callable[[Doc], object]
Run = Callable[..., tuple[int, str, str]]

BASE: Doc = {
    "id": "STATE-EX-DOR-001",
    "title": "Door",
    "object": "DOM-EX-DOR-001",
    "product_area": "example",
    "module": "doors",
    "revision": 1,
    "status": "draft",
    "concurrency": "One writer at a time.",
    "evidence": ["observed in the hallway"],
    "initial": "closed",
    "states": [
        {"name": "closed", "meaning": "Shut."},
        {"name": "open", "meaning": "Anyone may pass."},
        {"name": "locked", "meaning": "Only a key opens it."},
    ],
    "transitions": [
        {
            "from": "closed",
            "to": "open",
            "trigger": "push",
            "guard": "not locked",
            "side_effects": ["a draught"],
            "who": "anyone",
            "provenance": "observed",
            "source": "house:door.py",
        },
        {"from": "open", "to": "closed", "trigger": "pull"},
        {"from": "closed", "to": "locked", "trigger": "turn the key"},
        {"from": "locked", "to": "closed", "trigger": "turn it back"},
    ],
    "invalid": [{"from": "locked", "to": "open", "why": "Unlock it first."}],
    "source_sha": {"house": "a" * 40},
}
# The rendered document: "---" is line 1, so ``revision: 1`` is line 7, value at column 11.
REVISION_AT = (7, 11)


def base(**changes: Any) -> Doc:
    doc = copy.deepcopy(BASE)
    doc.update(changes)
    return doc


def gate(**changes: Any) -> Doc:
    """A second spec."""
    return base(
        **{"id": "STATE-EX-GAT-001", "object": "DOM-EX-GAT-001", "title": "Gate", **changes}
    )


def render(doc: Doc, title: str | None = None) -> str:
    front = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{front}---\n\n# {title or doc['title']}\n"


def kinds(out: str) -> list[str]:
    return [c["kind"] for c in json.loads(out)["changes"]]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env=os.environ.copy(),
    )
    return done.stdout


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, path: str, doc: Doc | str) -> None:
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(doc if isinstance(doc, str) else render(doc), encoding="utf-8")

    def remove(self, path: str) -> None:
        (self.root / path).unlink()

    def move(self, old: str, new: str) -> None:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        (self.root / old).rename(self.root / new)

    def commit(self, message: str = "change") -> None:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "--allow-empty", "-m", message)


def diff_json(run: Run, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run("diff", "--against", "HEAD", "--format", "json", *args)
    return code, json.loads(out)


def two(tmp_path: Path, run: Run, old: Doc, new: Doc, *extra: str) -> tuple[int, list[str], str]:
    (tmp_path / "old.md").write_text(render(old), encoding="utf-8")
    (tmp_path / "new.md").write_text(render(new), encoding="utf-8")
    code, out, err = run(
        "diff", str(tmp_path / "old.md"), str(tmp_path / "new.md"), "--format", "json", *extra
    )
    return code, kinds(out), err


def edited(edit: Edit) -> Doc:
    doc = base()
    edit(doc)
    return doc


def set_at(path: tuple[str | int, ...], value: Any) -> Callable[[Doc], None]:
    def edit(d: Doc) -> None:
        target: Any = d
        for part in path[:-1]:
            target = target[part]
        if value is None:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return edit
