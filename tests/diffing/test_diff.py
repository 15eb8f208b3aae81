"""``statedoc diff`` and SD207 (``lint --against``) on real temporary git repositories."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.cli import main
from generator.diffing.changes import KINDS, ChangeClass
from generator.diffing.report import md_code, md_text

Doc = dict[str, Any]
Edit = Callable[[Doc], object]

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


# --- git helpers ---------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def hermetic_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user or system git config; a fixed identity; no STATEDOC_FORMAT from the caller."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{name}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "test@example.com")
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)


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


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """A git repo with one committed spec, specs/door.md; the working directory is its top."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    r = Repo(root)
    r.write("specs/door.md", base())
    r.commit("first")
    monkeypatch.chdir(root)
    return r


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def call(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return call


def diff_json(run: Run, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run("diff", "--against", "HEAD", "--format", "json", *args)
    return code, json.loads(out)


# --- classification: two files -------------------------------------------------------------


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


def _rename_open(d: Doc) -> None:
    d["states"][1]["name"] = "ajar"
    d["transitions"][0]["to"] = "ajar"
    d["transitions"][1]["from"] = "ajar"
    d["invalid"][0]["to"] = "ajar"


BREAKING: dict[str, tuple[Edit, list[str]]] = {
    "state removed": (
        lambda d: (
            d["states"].pop(2),
            d["transitions"].pop(3),
            d["transitions"].pop(2),
            d.pop("invalid"),
        ),
        ["state-removed", "transition-removed", "transition-removed", "invalid-removed"],
    ),
    "state renamed": (
        _rename_open,
        [
            "state-removed",
            "transition-removed",
            "transition-removed",
            "invalid-added",
            "state-added",
            "transition-added",
            "transition-added",
            "invalid-removed",
        ],
    ),
    "transition removed": (
        lambda d: d["transitions"].pop(3),
        ["transition-removed", "terminal-state-added"],
    ),
    "initial state added": (
        lambda d: d.update(initial=["closed", "open"]),
        ["initial-state-added"],
    ),
    "initial state removed": (
        lambda d: d.update(initial="open"),
        ["initial-state-removed", "initial-state-added"],
    ),
    "invalid pair listed": (
        lambda d: d["invalid"].append({"from": "open", "to": "locked", "why": "Close it first."}),
        ["invalid-added"],
    ),
    "id changed": (lambda d: d.update(id="STATE-EX-DOR-002"), ["id-changed"]),
}


@pytest.mark.parametrize("name", list(BREAKING))
def test_breaking_changes_exit_1(tmp_path: Path, run: Run, name: str) -> None:
    edit, expected = BREAKING[name]
    code, found, _ = two(tmp_path, run, base(), edited(edit))
    assert found == expected
    assert KINDS[found[0]] is ChangeClass.BREAKING
    assert code == 1


def test_allow_breaking_exits_0(tmp_path: Path, run: Run) -> None:
    code, found, _ = two(
        tmp_path, run, base(), edited(lambda d: d["transitions"].pop(3)), "--allow-breaking"
    )
    assert "transition-removed" in found
    assert code == 0


def test_initial_states_compare_inferred_and_declared(tmp_path: Path, run: Run) -> None:
    # Without ``initial`` the initial states are those nothing enters: declaring the same set
    # is no change; a new state nothing enters becomes an initial state (breaking).
    plain = base()
    del plain["initial"]
    del plain["transitions"][3]  # locked -> closed
    del plain["transitions"][1]  # open -> closed: nothing enters "closed" now
    declared = copy.deepcopy(plain)
    declared["initial"] = "closed"
    code, found, _ = two(tmp_path, run, plain, declared)
    assert (code, found) == (0, [])
    grown = copy.deepcopy(plain)
    grown["states"].append({"name": "new"})
    grown["transitions"].append({"from": "new", "to": "closed", "trigger": "install"})
    code, found, _ = two(tmp_path, run, plain, grown)
    assert found == [
        "initial-state-removed",
        "initial-state-added",
        "state-added",
        "transition-added",
    ]
    assert code == 1


COMPATIBLE: dict[str, tuple[Edit, list[str]]] = {
    "state and transition added": (
        lambda d: (
            d["states"].append({"name": "broken"}),
            d["transitions"].append({"from": "locked", "to": "broken", "trigger": "kick"}),
        ),
        ["state-added", "transition-added"],
    ),
    "transition added": (
        lambda d: d["transitions"].append({"from": "open", "to": "locked", "trigger": "slam"}),
        ["transition-added"],
    ),
    "invalid pair removed": (lambda d: d.pop("invalid"), ["invalid-removed"]),
}


@pytest.mark.parametrize("name", list(COMPATIBLE))
def test_compatible_changes_exit_0(tmp_path: Path, run: Run, name: str) -> None:
    edit, expected = COMPATIBLE[name]
    code, found, _ = two(tmp_path, run, base(), edited(edit))
    assert found == expected
    assert all(KINDS[k] is ChangeClass.COMPATIBLE for k in found)
    assert code == 0


def test_terminal_state_leaving_is_reported(tmp_path: Path, run: Run) -> None:
    old = edited(lambda d: d["transitions"].pop(3))  # "locked" is terminal here
    code, found, _ = two(tmp_path, run, old, base())
    assert (code, found) == (0, ["transition-added", "terminal-state-removed"])


def _set(path: tuple[str | int, ...], value: Any) -> Callable[[Doc], None]:
    def edit(d: Doc) -> None:
        target: Any = d
        for part in path[:-1]:
            target = target[part]
        if value is None:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return edit


WORDING: dict[str, tuple[Edit, str]] = {
    "meaning": (_set(("states", 0, "meaning"), "Closed, not latched."), "state-meaning-changed"),
    "meaning dropped": (_set(("states", 1, "meaning"), None), "state-meaning-changed"),
    "trigger": (_set(("transitions", 0, "trigger"), "shove"), "transition-trigger-changed"),
    "guard": (_set(("transitions", 0, "guard"), "unlatched"), "transition-guard-changed"),
    "side effects": (
        _set(("transitions", 0, "side_effects"), ["a draught", "a creak"]),
        "transition-side-effects-changed",
    ),
    "who": (_set(("transitions", 0, "who"), "the cat"), "transition-who-changed"),
    "provenance": (
        _set(("transitions", 0, "provenance"), "inferred"),
        "transition-provenance-changed",
    ),
    "source": (_set(("transitions", 0, "source"), "house:hinge.py"), "transition-source-changed"),
    "why": (_set(("invalid", 0, "why"), "Use the key."), "invalid-why-changed"),
    "title": (_set(("title",), "Front door"), "title-changed"),
    "status": (_set(("status",), "active"), "status-changed"),
    "object": (_set(("object",), "DOM-EX-DOR-002"), "object-changed"),
    "concurrency": (_set(("concurrency",), "Two writers."), "concurrency-changed"),
    "design intent": (_set(("design_intent",), "confirmed"), "design-intent-changed"),
    "evidence": (_set(("evidence",), ["seen twice"]), "evidence-changed"),
    "source sha": (_set(("source_sha", "house"), "b" * 40), "source-sha-changed"),
    "invariants": (_set(("invariants",), ["INV-DOM-EX-DOR-001-1"]), "invariants-changed"),
    "revision": (_set(("revision",), 2), "revision-changed"),
    "extension key": (_set(("owner",), "team-doors"), "extension-changed"),
}


@pytest.mark.parametrize("name", list(WORDING))
def test_wording_only_edits_are_wording(tmp_path: Path, run: Run, name: str) -> None:
    edit, kind = WORDING[name]
    code, found, _ = two(tmp_path, run, base(), edited(edit))
    assert found == [kind]
    assert KINDS[kind] is ChangeClass.WORDING
    assert code == 0


def test_identical_documents_have_no_changes(tmp_path: Path, run: Run) -> None:
    (tmp_path / "a.md").write_text(render(base()))
    code, out, err = run("diff", str(tmp_path / "a.md"), str(tmp_path / "a.md"))
    assert (code, out) == (0, "")
    assert "No changes (1 spec compared)." in err


def test_every_kind_has_a_class_and_is_kebab_case() -> None:
    assert all(k == k.lower() and " " not in k and "_" not in k for k in KINDS)
    assert {KINDS[k] for k in KINDS} == set(ChangeClass)


# --- against a git ref ---------------------------------------------------------------------


def test_no_change_against_head(repo: Repo, run: Run) -> None:
    code, out, err = run("diff", "--against", "HEAD")
    assert (code, out) == (0, "")
    assert "No changes (1 spec compared against HEAD)." in err


def test_text_report_is_grouped_by_spec(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(lambda d: d["transitions"].pop(3)))
    repo.write("specs/gate.md", gate())
    code, out, err = run("diff", "--against", "HEAD")
    assert code == 1
    assert out.splitlines() == [
        "STATE-EX-DOR-001 specs/door.md, revision 1",
        "  breaking    transition-removed    transition 'locked' -> 'closed' removed",
        "  compatible  terminal-state-added  'locked' is now terminal (no transition leaves it)",
        "",
        "STATE-EX-GAT-001 specs/gate.md (added), revision 1",
        "  compatible  spec-added            spec STATE-EX-GAT-001 (Gate) added",
    ]
    assert "1 breaking and 2 compatible changes in 2 specs (2 specs compared against HEAD)." in err


def test_moved_file_is_the_same_spec(repo: Repo, run: Run) -> None:
    repo.move("specs/door.md", "specs/house/front-door.md")
    code, data = diff_json(run)
    assert code == 0
    assert [c["kind"] for c in data["changes"]] == ["spec-moved"]
    [spec] = data["specs"]
    assert (spec["path"], spec["old_path"], spec["status"]) == (
        "specs/house/front-door.md",
        "specs/door.md",
        "modified",
    )


def test_moved_and_changed_file_reports_its_changes(repo: Repo, run: Run) -> None:
    repo.move("specs/door.md", "specs/front-door.md")
    repo.write("specs/front-door.md", edited(lambda d: d["transitions"].pop(3)))
    code, data = diff_json(run)
    assert code == 1
    assert [c["kind"] for c in data["changes"]] == [
        "transition-removed",
        "terminal-state-added",
        "spec-moved",
    ]
    assert {c["spec_id"] for c in data["changes"]} == {"STATE-EX-DOR-001"}


def test_added_and_deleted_specs(repo: Repo, run: Run) -> None:
    repo.remove("specs/door.md")
    repo.write("specs/gate.md", gate())
    code, data = diff_json(run)
    assert code == 1
    assert [
        (c["kind"], c["class"], c["spec_id"], c["path"], c["old_path"]) for c in data["changes"]
    ] == [
        ("spec-deleted", "breaking", "STATE-EX-DOR-001", None, "specs/door.md"),
        ("spec-added", "compatible", "STATE-EX-GAT-001", "specs/gate.md", None),
    ]
    assert data["counts"] == {"breaking": 1, "compatible": 1, "wording": 0}


def test_only_added_spec_is_compatible(repo: Repo, run: Run) -> None:
    repo.write("specs/gate.md", gate())
    code, data = diff_json(run)
    assert (code, [c["kind"] for c in data["changes"]]) == (0, ["spec-added"])


def test_id_changed_at_the_same_path_is_breaking(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", base(id="STATE-EX-DOR-002"))
    code, data = diff_json(run)
    assert code == 1
    assert [c["kind"] for c in data["changes"]] == ["id-changed"]
    [spec] = data["specs"]
    assert (spec["id"], spec["old_id"]) == ("STATE-EX-DOR-002", "STATE-EX-DOR-001")


def test_swapped_files_are_matched_by_id(repo: Repo, run: Run) -> None:
    repo.write("specs/gate.md", gate())
    repo.commit("gate")
    door_text = (repo.root / "specs/door.md").read_text()
    repo.write("specs/door.md", (repo.root / "specs/gate.md").read_text())
    repo.write("specs/gate.md", door_text)
    code, data = diff_json(run)
    assert code == 0
    assert sorted(c["kind"] for c in data["changes"]) == ["spec-moved", "spec-moved"]


def test_paths_limit_the_report_and_follow_moves(repo: Repo, run: Run) -> None:
    repo.write("specs/gate.md", gate())
    repo.commit("gate")
    repo.move("specs/door.md", "specs/inner/door.md")
    repo.write("specs/gate.md", gate(title="Gates"))
    code, data = diff_json(run, "specs/inner")
    assert code == 0
    assert [(c["kind"], c["spec_id"]) for c in data["changes"]] == [
        ("spec-moved", "STATE-EX-DOR-001")
    ]
    # A deleted file can be named too: it existed at the ref.
    repo.remove("specs/gate.md")
    code, data = diff_json(run, "specs/gate.md")
    assert (code, [c["kind"] for c in data["changes"]]) == (1, ["spec-deleted"])


def test_runs_from_a_subfolder(repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write(
        "specs/door.md",
        edited(
            lambda d: d["transitions"].append({"from": "open", "to": "locked", "trigger": "slam"})
        ),
    )
    monkeypatch.chdir(repo.root / "specs")
    code, data = diff_json(run)
    assert code == 0
    [spec] = data["specs"]
    assert (spec["path"], spec["old_path"]) == ("door.md", "door.md")
    assert [c["kind"] for c in data["changes"]] == ["transition-added"]


def test_old_version_that_does_not_parse_does_not_block(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", "---\nid: [unclosed\n---\n")
    repo.commit("broken")
    repo.write("specs/door.md", base())
    code, out, err = run("diff", "--against", "HEAD")
    assert code == 0
    assert "note: the old version at HEAD does not get past the schema stage" in out
    assert "SD003" in out
    assert "1 document could not be compared" in err


def test_new_version_that_does_not_parse_exits_2(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", base(revision="one"))
    code, out, err = run("diff", "--against", "HEAD")
    assert code == 2
    assert "error: the new version does not get past the schema stage" in out
    assert "SD010" in out
    assert "spec-deleted" not in out  # not mistaken for a deleted spec
    assert "statedoc: error: cannot compare specs/door.md" in err


def test_missing_ref_exits_2_with_a_clear_message(repo: Repo, run: Run) -> None:
    code, out, err = run("diff", "--against", "no-such-branch")
    assert (code, out) == (2, "")
    assert "--against no-such-branch: no such commit in the git repository at" in err
    code, _, err = run("lint", "--against", "HEAD~5")
    assert code == 2
    assert "--against HEAD~5: no such commit" in err


def test_not_a_git_repository_exits_2(
    tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    (plain / "specs").mkdir(parents=True)
    (plain / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (plain / "specs/door.md").write_text(render(base()))
    monkeypatch.chdir(plain)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    code, _, err = run("diff", "--against", "main")
    assert code == 2
    assert "--against needs a git repository" in err


def test_usage_errors_exit_2(repo: Repo, run: Run) -> None:
    code, _, err = run("diff")
    assert code == 2
    assert "diff needs two files" in err
    code, _, err = run("diff", "specs/door.md", "specs/nope.md")
    assert (code, "specs/nope.md: no such file" in err) == (2, True)
    code, _, err = run("diff", "--against", "HEAD", "specs/nope.md")
    assert (code, "no such file or folder, here or at HEAD" in err) == (2, True)
    code, _, err = run("diff", "--against=--upload-pack=x")
    assert (code, "not a git ref" in err) == (2, True)


def test_shallow_clone_with_the_ref_present(
    repo: Repo, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo.root, "branch", "base")
    repo.write("specs/door.md", edited(lambda d: d["transitions"].pop(3)))
    repo.commit("drop a transition")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone))
    monkeypatch.chdir(clone)
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    # HEAD~1 is not in a depth-1 clone: a clear error that says to fetch it.
    code, _, err = run("diff", "--against", "HEAD~1")
    assert code == 2
    assert "shallow clone" in err and "git fetch" in err
    # The base branch as CI gets it: fetched with depth 1 into the shallow clone.
    git(clone, "fetch", "-q", "--depth", "1", "origin", "base:refs/remotes/origin/base")
    code, out, _ = run("diff", "--against", "origin/base", "--format", "json")
    assert code == 1
    assert kinds(out) == ["transition-removed", "terminal-state-added"]
    code, out, _ = run("lint", "--against", "origin/base", "--select", "SD207")
    assert code == 1
    assert "SD207" in out


# --- output formats ------------------------------------------------------------------------


def test_markdown_report_for_a_pull_request(repo: Repo, run: Run) -> None:
    doc = base()
    doc["states"].append({"name": "a|b @team `x`"})
    doc["transitions"].append({"from": "locked", "to": "a|b @team `x`", "trigger": "jam"})
    repo.write("specs/door.md", doc)
    code, out, _ = run("diff", "--against", "HEAD", "--format", "markdown")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "<!-- statedoc-diff -->"
    assert lines[1] == "### statedoc diff against `HEAD`"
    assert "#### `STATE-EX-DOR-001` Door" in lines
    assert "| class | change | details |" in lines
    row = next(line for line in lines if "`state-added`" in line)
    assert row.count(" | ") == 2  # the pipe in the state name is escaped
    assert "@&#8203;team" in row  # no @mention in a PR comment
    assert r"\`x\`" in row


def test_markdown_escaping_helpers() -> None:
    assert md_text("a|b *c* <d> $e$ @f") == r"a\|b \*c\* \<d> \$e\$ @&#8203;f"
    assert md_text("two\nlines") == "two<br>lines"
    assert md_code("plain") == "`plain`"
    assert md_code("has `tick`") == "`` has `tick` ``"
    assert md_code("a|b") == r"`a\|b`"


def test_json_report_shape(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(_set(("transitions", 0, "trigger"), "shove")))
    code, data = diff_json(run)
    assert code == 0
    assert set(data) == {"against", "breaking", "counts", "compared", "specs", "changes"}
    assert data["against"] == "HEAD" and data["breaking"] is False
    assert data["changes"] == [
        {
            "spec_id": "STATE-EX-DOR-001",
            "path": "specs/door.md",
            "old_path": "specs/door.md",
            "kind": "transition-trigger-changed",
            "class": "wording",
            "subject": "'closed' -> 'open'",
            "message": "transition 'closed' -> 'open': trigger changed",
        }
    ]


def test_output_file(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(lambda d: d.pop("invalid")))
    code, out, err = run("diff", "--against", "HEAD", "--format", "json", "--output", "d.json")
    assert (code, out) == (0, "")
    assert kinds((repo.root / "d.json").read_text()) == ["invalid-removed"]
    assert "1 compatible change in 1 spec" in err


# --- SD207: lint --against -----------------------------------------------------------------


def lint_against(run: Run, ref: str = "HEAD~1") -> tuple[int, list[str]]:
    code, out, _ = run("lint", "--against", ref, "--ignore", "SD301")
    return code, out.splitlines()


def test_sd207_fires_when_semantics_change_without_a_revision_bump(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(lambda d: d["transitions"].pop(3)))
    repo.commit("drop a transition")
    code, lines = lint_against(run)
    assert code == 1
    line, column = REVISION_AT
    assert lines == [
        f"specs/door.md:{line}:{column}: SD207 the lifecycle changed since HEAD~1 but revision "
        "is still 1: transition 'locked' -> 'closed' removed; 'locked' is now terminal (no "
        "transition leaves it); set revision to 2 or more"
    ]


def test_sd207_fires_for_compatible_changes_and_moved_files(repo: Repo, run: Run) -> None:
    repo.move("specs/door.md", "specs/house/door.md")
    repo.write(
        "specs/house/door.md",
        edited(
            lambda d: d["transitions"].append({"from": "open", "to": "locked", "trigger": "slam"})
        ),
    )
    repo.commit("move and add")
    code, lines = lint_against(run)
    assert code == 1
    assert len(lines) == 1
    assert lines[0].startswith(
        "specs/house/door.md:7:11: SD207 the lifecycle changed since "
        "HEAD~1 (then at specs/door.md) but revision is still 1: "
        "transition 'open' -> 'locked' added"
    )


def test_sd207_fires_when_the_revision_goes_down(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", base(revision=3))
    repo.commit("r3")
    repo.write("specs/door.md", edited(lambda d: (d.update(revision=2), d.pop("invalid"))))
    code, lines = lint_against(run, "HEAD")
    assert code == 1
    assert "revision went down from 3 to 2" in lines[0]


def test_sd207_quiet_when_the_revision_increases(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(lambda d: (d["transitions"].pop(3), d.update(revision=2))))
    repo.commit("drop a transition, bump")
    assert lint_against(run) == (0, [])


def test_sd207_quiet_for_wording_only_changes(repo: Repo, run: Run) -> None:
    repo.write(
        "specs/door.md",
        edited(
            lambda d: (
                _set(("transitions", 0, "trigger"), "shove")(d),
                _set(("title",), "Front door")(d),
            )
        ),
    )
    repo.commit("wording")
    assert lint_against(run) == (0, [])


def test_sd207_quiet_for_new_specs_and_changed_ids(repo: Repo, run: Run) -> None:
    repo.write("specs/gate.md", gate())
    repo.write(
        "specs/door.md",
        edited(lambda d: (d.update(id="STATE-EX-DOR-002"), d["transitions"].pop(3))),
    )
    repo.commit("new")
    assert lint_against(run) == (0, [])


def test_sd207_can_be_ignored_inline_and_by_selection(repo: Repo, run: Run) -> None:
    text = render(edited(lambda d: d["transitions"].pop(3)))
    ignored = text.replace("revision: 1\n", "revision: 1  # statedoc: ignore[SD207]\n")
    repo.write("specs/door.md", ignored)
    repo.commit("drop, ignored")
    assert lint_against(run) == (0, [])
    repo.write("specs/door.md", text)
    code, out, _ = run("lint", "--against", "HEAD~1", "--ignore", "SD207,SD301")
    assert (code, out) == (0, "")


def test_sd207_is_not_silenced_by_directive_text_inside_a_string(repo: Repo, run: Run) -> None:
    # Regression: SD207 used a text match on the reported line, so a quoted title on the
    # revision's line that merely reads like the directive silenced it; only a real comment
    # counts, as for every other rule.
    doc = edited(lambda d: d["transitions"].pop(3))
    doc["title"] = "Door # statedoc: ignore[SD207]"
    # JSON is YAML: the whole front matter, revision and title, on one line
    text = f"---\n{json.dumps(doc, ensure_ascii=False)}\n---\n\n# {doc['title']}\n"
    repo.write("specs/door.md", text)
    repo.commit("drop, in a one-line front matter")
    code, lines = lint_against(run)
    assert code == 1
    assert [line.split(": ", 1)[1].split(" ", 1)[0] for line in lines] == ["SD207"]


def test_sd207_against_the_working_tree_of_the_same_commit(repo: Repo, run: Run) -> None:
    # Uncommitted edits count: lint reads the working tree, the ref gives the old version.
    repo.write("specs/door.md", edited(lambda d: d.pop("invalid")))
    code, lines = lint_against(run, "HEAD")
    assert code == 1
    assert "'locked' -> 'open' is no longer listed invalid" in lines[0]


def test_specs_named_with_unusual_characters(repo: Repo, run: Run) -> None:
    repo.move("specs/door.md", 'specs/tür ü "q".md')
    repo.commit("rename")
    repo.write('specs/tür ü "q".md', edited(lambda d: d["transitions"].pop(3)))
    code, data = diff_json(run)
    assert code == 1
    assert data["specs"][0]["old_path"] == 'specs/tür ü "q".md'


# --- real documents, unreadable sides, quiet -----------------------------------------------

SEED = Path(__file__).parents[2] / "specs/platform/queries/workspace-export-delivery.md"


def test_a_real_spec_wording_and_breaking_edits(tmp_path: Path, run: Run) -> None:
    text = SEED.read_text(encoding="utf-8")
    (tmp_path / "old.md").write_text(text, encoding="utf-8")
    new = tmp_path / "new.md"
    new.write_text(
        text.replace(
            "trigger: The failure helper is called.",
            'trigger: "The failure helper is called: it says so."',
        )
    )
    code, out, _ = run("diff", str(tmp_path / "old.md"), str(new), "--format", "json")
    assert (code, kinds(out)) == (0, ["transition-trigger-changed"])
    start = text.index("  - from: failed\n    to: superseded")
    end = text.index("invalid:\n")
    new.write_text(text[:start] + text[end:])
    code, out, _ = run("diff", str(tmp_path / "old.md"), str(new))
    assert code == 1
    assert out.splitlines() == [
        f"STATE-PFM-QRY-011 {new.as_posix()} (against {(tmp_path / 'old.md').as_posix()}), "
        "revision 1",
        "  breaking    transition-removed   transition 'failed' -> 'superseded' removed",
        "  breaking    initial-state-added  'superseded' is now an initial state",
    ]


def test_two_files_with_an_unreadable_side(tmp_path: Path, run: Run) -> None:
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text(render(base()))
    bad.write_text("no front matter\n")
    code, out, _ = run("diff", str(bad), str(good))
    assert code == 0
    assert "note: the old version does not get past the schema stage" in out
    assert "SD001" in out
    code, out, err = run("diff", str(good), str(bad))
    assert code == 2
    assert "error: the new version does not get past the schema stage" in out
    assert "cannot compare" in err


def test_quiet_prints_no_summary(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(_set(("title",), "Front door")))
    code, out, err = run("diff", "--against", "HEAD", "-q")
    assert code == 0
    assert "title-changed" in out and "title changed from 'Door' to 'Front door'" in out
    assert err == ""


def test_a_folder_readme_is_no_spec_on_either_side(repo: Repo, run: Run) -> None:
    """A README.md without front matter in the specs folder is skipped when a folder is
    walked: the old side (read from git) must skip it too, or it is 'deleted' or broken."""
    repo.write("specs/README.md", "# Our lifecycles\n\nOne document per entity.\n")
    repo.commit("readme")
    code, out, err = run("diff", "--against", "HEAD")
    assert (code, out) == (0, ""), err
    assert "No changes (1 spec compared against HEAD)." in err
    (repo.root / "specs/README.md").unlink()
    code, out, err = run("diff", "--against", "HEAD")
    assert (code, out) == (0, ""), err
    assert "No changes (1 spec compared against HEAD)." in err
