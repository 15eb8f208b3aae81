"""Texts from a spec or a file name stay data in every diff format.

Text: one line per change, control and bidi characters escaped (a title holding ESC used to
reach the terminal raw in ``spec-added``). JSON: the exact text back. Markdown: no markup,
HTML, mention or bidi control, and the table keeps its four columns.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from generator.diffing.matching import Version, compare_sets, compare_versions
from generator.diffing.report import DiffReport, render_json, render_markdown, render_text
from generator.model.spec import build

from .support import Repo, Run, base, diff_json, gate

UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")
HOSTILE = "x\x1b[2J\u202ey\nz | <b>*@team* `q` $m$ \\ \"'"

texts = st.text(min_size=1, max_size=24).filter(lambda t: t.strip() and t != "[*]")


def _front(title: str, state: str) -> dict[str, Any]:
    doc = base(title=title)
    doc["states"].append({"name": state, "meaning": state})
    doc["transitions"].append({"from": "locked", "to": state, "trigger": state, "guard": state})
    doc["invalid"].append({"from": state, "to": "open", "why": state})
    return doc


def _reports(title: str, state: str) -> list[DiffReport]:
    old = Version("specs/door.md", build(base()))
    new = Version(f"specs/{state}.md", build(_front(title, state)), key="specs/door.md")
    added = Version(f"specs/{title}.md", build(gate(title=title)))
    return [
        DiffReport([compare_versions(old, new)]),
        DiffReport(compare_sets([old], [new, added]), against=f"ref{state}"),
    ]


@given(title=texts, state=texts)
def test_text_is_one_printable_line_per_change(title: str, state: str) -> None:
    for report in _reports(title, state):
        lines = render_text(report).splitlines()
        assert not [line for line in lines if UNPRINTABLE.search(line)]
        changes = [line for line in lines if line.startswith("  ") and "note:" not in line]
        assert len(changes) == len(report.changes)


@given(title=texts, state=texts)
def test_json_gives_the_texts_back_exactly(title: str, state: str) -> None:
    for report in _reports(title, state):
        text = render_json(report)
        text.encode("utf-8")  # lone surrogates are escaped, never written raw
        data = json.loads(text)
        assert state in {c["subject"] for c in data["changes"]}
        if report.against is not None:
            assert title in {s["title"] for s in data["specs"]}
            assert data["against"] == report.against


@given(title=texts, state=texts)
def test_markdown_has_no_markup_from_a_spec(title: str, state: str) -> None:
    for report in _reports(title, state):
        out = render_markdown(report)
        assert not UNPRINTABLE.search(out.replace("\n", ""))
        rows = [line for line in out.splitlines() if line.startswith("| ")]
        assert rows and all(re.sub(r"\\.", "", row).count("|") == 5 for row in rows)
        for line in out.splitlines():
            # Code spans are literal in GFM (no HTML, no mention): look outside them.
            bare = CODE_SPAN.sub("", re.sub(r"\\.", "", line)).replace("<br>", "")
            assert "<" not in bare or line == "<!-- statedoc-diff -->"
            assert "@" not in bare.replace("@&#8203;", "")


def test_a_hostile_title_and_file_name_against_a_ref(repo: Repo, run: Run) -> None:
    name = "specs/gate\x1b[31m\u202e.md"
    repo.write(name, gate(title=HOSTILE))
    code, out, _ = run("diff", "--against", "HEAD")
    assert code == 0
    assert not UNPRINTABLE.search(out.replace("\n", "")), out
    assert "gate\\x1b[31m\\u202e.md (added)" in out
    assert "(x\\x1b[2J\\u202ey\\nz | <b>*@team* `q` $m$" in out
    assert len(out.splitlines()) == 2
    code, data = diff_json(run)
    [spec] = data["specs"]
    assert (spec["title"], Path(spec["path"]).name) == (HOSTILE, Path(name).name)
    code, out, _ = run("diff", "--against", "HEAD", "--format", "markdown")
    assert "\x1b" not in out and "\u202e" not in out
    assert "<b>" not in re.sub(r"\\.", "", out) and "@team" not in out
