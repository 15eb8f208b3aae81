"""SD207 (``lint --against GIT_REF``): a lifecycle change needs a higher revision."""

from __future__ import annotations

import json

from .support import REVISION_AT, Repo, Run, base, edited, gate, render, set_at

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
                set_at(("transitions", 0, "trigger"), "shove")(d),
                set_at(("title",), "Front door")(d),
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
