"""SD208 (``lint --against GIT_REF``): a state declared at the ref that the working tree neither
declares nor retires, in a real git repository in tmp_path, through the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from diffing.support import Doc, Repo, base, git

from generator.cli import main

# The rendered door (tests/diffing/support.py): "states:" is line 13, column 1.
STATES_AT = (13, 1)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """A git repository with specs/door.md committed, hermetic (no user git config)."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{name}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "test@example.com")
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "STATEDOC_FORMAT"):
        monkeypatch.delenv(var, raising=False)
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    found = Repo(root)
    found.write("specs/door.md", base())
    found.commit("first")
    monkeypatch.chdir(root)
    return found


def _lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["lint", "--against", "HEAD", "--ignore", "SD301", *args])
    return code, capsys.readouterr().out.splitlines()


def _without_locked(**changes: Any) -> Doc:
    """Revision 2 of the door without ``locked`` (its transitions and invalid pair gone)."""
    doc = base(revision=2, **changes)
    doc["states"] = [s for s in doc["states"] if s["name"] != "locked"]
    doc["transitions"] = [t for t in doc["transitions"] if "locked" not in (t["from"], t["to"])]
    del doc["invalid"]
    return doc


def test_a_removed_state_without_a_retirement_is_reported_at_states(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("specs/door.md", _without_locked())
    code, lines = _lint(capsys)
    line, column = STATES_AT
    assert code == 1
    assert lines == [
        f"specs/door.md:{line}:{column}: SD208 state 'locked' of HEAD is gone without a "
        "retirement entry, so rows holding it would be stranded: add to `retired` "
        "{state: 'locked', why: ...} (no `to`: no row may hold it)"
    ]


@pytest.mark.parametrize(
    "retired",
    [
        [{"state": "locked", "to": "closed", "why": "keys are gone"}],
        [{"state": "locked", "why": "never used"}],
    ],
    ids=["with-destination", "without"],
)
def test_a_retirement_entry_satisfies_it(
    repo: Repo, capsys: pytest.CaptureFixture[str], retired: list[dict[str, str]]
) -> None:
    repo.write("specs/door.md", _without_locked(retired=retired))
    assert _lint(capsys) == (0, [])


def test_a_rename_suggests_the_new_name(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    doc = base(revision=2)
    for state in doc["states"]:
        if state["name"] == "locked":
            state["name"] = "bolted"
    for item in (*doc["transitions"], *doc["invalid"]):
        for key in ("from", "to"):
            if item[key] == "locked":
                item[key] = "bolted"
    repo.write("specs/door.md", doc)
    code, lines = _lint(capsys)
    assert code == 1 and len(lines) == 1
    assert "SD208 state 'locked' of HEAD" in lines[0]
    assert "{state: 'locked', to: 'bolted', why: ...}" in lines[0]
    doc["retired"] = [{"state": "locked", "to": "bolted", "why": "renamed"}]
    repo.write("specs/door.md", doc)
    assert _lint(capsys) == (0, [])


def test_moved_files_are_followed_and_the_code_can_be_ignored(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.move("specs/door.md", "specs/house/door.md")
    repo.write("specs/house/door.md", _without_locked())
    code, lines = _lint(capsys)
    assert code == 1 and len(lines) == 1
    assert lines[0].startswith("specs/house/door.md:13:1: SD208 ")
    assert _lint(capsys, "--ignore", "SD208,SD301") == (0, [])


def test_adding_states_or_keeping_them_is_quiet(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = base(revision=2)
    doc["states"].append({"name": "ajar"})
    doc["transitions"].append({"from": "open", "to": "ajar", "trigger": "let go"})
    doc["transitions"].append({"from": "ajar", "to": "closed", "trigger": "push"})
    repo.write("specs/door.md", doc)
    assert _lint(capsys) == (0, [])
