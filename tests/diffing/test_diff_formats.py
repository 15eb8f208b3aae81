"""The diff's report formats: text, JSON, Markdown, ``--output`` and ``--quiet``."""

from __future__ import annotations

from generator.diffing.report import md_code, md_text

from .support import Repo, Run, base, diff_json, edited, kinds, set_at

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
    assert "| class | category | change | details |" in lines
    row = next(line for line in lines if "`state-added`" in line)
    assert row.count(" | ") == 3  # the pipe in the state name is escaped
    assert "@&#8203;team" in row  # no @mention in a PR comment
    assert r"\`x\`" in row


def test_markdown_escaping_helpers() -> None:
    assert md_text("a|b *c* <d> $e$ @f") == r"a\|b \*c\* \<d> \$e\$ @&#8203;f"
    assert md_text("two\nlines") == "two<br>lines"
    assert md_code("plain") == "`plain`"
    assert md_code("has `tick`") == "`` has `tick` ``"
    assert md_code("a|b") == r"`a\|b`"


def test_json_report_shape(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(set_at(("transitions", 0, "trigger"), "shove")))
    code, data = diff_json(run)
    assert code == 0
    assert set(data) == {
        "against",
        "breaking",
        "counts",
        "categories",
        "compared",
        "specs",
        "changes",
    }
    assert data["categories"] == {"wording": 1, "code": 0, "data": 0}
    assert data["against"] == "HEAD" and data["breaking"] is False
    assert data["changes"] == [
        {
            "spec_id": "STATE-EX-DOR-001",
            "path": "specs/door.md",
            "old_path": "specs/door.md",
            "kind": "transition-trigger-changed",
            "class": "wording",
            "categories": ["wording"],
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


def test_quiet_prints_no_summary(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(set_at(("title",), "Front door")))
    code, out, err = run("diff", "--against", "HEAD", "-q")
    assert code == 0
    assert "title-changed" in out and "title changed from 'Door' to 'Front door'" in out
    assert err == ""
