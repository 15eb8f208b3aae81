"""``statedoc diff --against GIT_REF`` on real temporary git repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import Repo, Run, base, diff_json, edited, gate, git, kinds, render

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
        "  breaking    code,data  transition-removed    transition 'locked' -> 'closed' removed",
        "  compatible  -          terminal-state-added  'locked' is now terminal (no transition "
        "leaves it)",
        "",
        "STATE-EX-GAT-001 specs/gate.md (added), revision 1",
        "  compatible  -          spec-added            spec STATE-EX-GAT-001 (Gate) added",
    ]
    assert (
        "1 breaking and 2 compatible changes in 2 specs (2 specs compared against HEAD). "
        "By category: 1 code, 1 data." in err
    )


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


def test_specs_named_with_unusual_characters(repo: Repo, run: Run) -> None:
    repo.move("specs/door.md", 'specs/tür ü "q".md')
    repo.commit("rename")
    repo.write('specs/tür ü "q".md', edited(lambda d: d["transitions"].pop(3)))
    code, data = diff_json(run)
    assert code == 1
    assert data["specs"][0]["old_path"] == 'specs/tür ü "q".md'


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
