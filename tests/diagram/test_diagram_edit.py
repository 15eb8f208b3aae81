"""``diagram --write`` edits in the author's style, never crashes and never adds a finding."""

from __future__ import annotations

import difflib
import itertools
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import fuzz_examples
from sample_documents import HEADER, codes, document, lint_text

from generator.cli import main
from generator.diagram.sync import REPAIRED, Edit, plan
from generator.diagram.writer import escape_name, plain_id
from generator.load.mermaid import parse_state_diagram

FENCE = "```"


def front(states: list[str], transitions: list[tuple[str, str]], initial: str | None = None) -> str:
    """Front matter (after the header keys) with every name JSON-quoted (valid YAML)."""
    lines = [f"initial: {json.dumps(initial)}"] if initial is not None else []
    lines.append("states:")
    lines.extend(f"  - name: {json.dumps(name)}" for name in states)
    lines.append("transitions:" if transitions else "transitions: []")
    lines.extend(
        f"  - {{from: {json.dumps(a)}, to: {json.dumps(b)}, trigger: t{index}}}"
        for index, (a, b) in enumerate(transitions)
    )
    return "\n".join(lines) + "\n"


SUBSCRIPTION = ["trialing", "active", "past due", "canceled"]
EDGES = [("trialing", "active"), ("active", "past due"), ("past due", "active")]
HAND = f"""
# Door

Words.

## The Lifecycle

{FENCE}mermaid
stateDiagram-v2
    state "past due" as late
    [*] --> trialing
    trialing --> active: paid
    active --> late : card declined
    late --> active: paid again
{FENCE}

## Notes
"""


def _plan(text: str) -> Edit:
    result = lint_text(text)
    assert result.document is not None, result.findings
    return plan(result.document)


def _diff(old: str, new: bytes) -> list[str]:
    lines = difflib.unified_diff(old.splitlines(), new.decode("utf-8").splitlines(), lineterm="")
    return [line for line in list(lines)[2:] if line[:1] in "+-"]


def test_a_new_transition_is_one_new_line_in_the_authors_style() -> None:
    text = document(front(SUBSCRIPTION, [*EDGES, ("active", "canceled")], "trialing"), HAND)
    edit = _plan(text)
    assert edit.refused is None and edit.new is not None
    assert _diff(text, edit.new) == ["+    active --> canceled"]


def test_a_removed_transition_is_one_removed_line() -> None:
    text = document(front(SUBSCRIPTION[:3], EDGES[:2], "trialing"), HAND)
    edit = _plan(text)
    assert edit.new is not None
    assert _diff(text, edit.new) == ["-    late --> active: paid again"]


def test_a_name_that_is_not_an_id_gets_an_alias_and_nothing_else_moves() -> None:
    states = [*SUBSCRIPTION, "on hold"]
    text = document(front(states, [*EDGES, ("active", "on hold")], "trialing"), HAND)
    edit = _plan(text)
    assert edit.new is not None
    assert _diff(text, edit.new) == ['+    state "on hold" as s0', "+    active --> s0"]


def test_renaming_a_state_of_a_labelled_diagram_does_not_crash() -> None:
    """Issue 18: ``failed`` renamed ``errored`` under ``running --> failed : crash``."""
    old = ["queued", "running", "failed"]
    body = (
        f"\n# Door\n\n## The Lifecycle\n\n{FENCE}mermaid\nstateDiagram-v2\n"
        "  [*] --> queued : submit\n  queued --> running : start\n"
        f"  running --> failed : crash\n  failed --> [*] : give up\n{FENCE}\n"
    )
    renamed = [name.replace("failed", "errored") for name in old]
    pairs = [("queued", "running"), ("running", "errored")]
    text = document(front(renamed, pairs, "queued"), body)
    edit = _plan(text)
    assert edit.refused is None and edit.new is not None
    again = lint_text(edit.new.decode())
    assert not {"SD303", "SD304", "SD305"} & set(codes(again))
    assert again.document is not None and plan(again.document) == Edit()
    kept = edit.new.decode()
    assert "queued --> running : start" in kept and "[*] --> queued : submit" in kept


def test_a_redraw_uses_bare_ids_and_keeps_labels() -> None:
    """Two statements on one line cannot be edited in place: the block is redrawn."""
    body = HAND.replace(
        "    active --> late : card declined\n", "    active --> late ; trialing --> late\n"
    )
    text = document(front(SUBSCRIPTION, EDGES, "trialing"), body)
    edit = _plan(text)
    assert edit.new is not None
    drawn = edit.new.decode()
    assert "  trialing --> active : paid\n" in drawn
    assert '  state "past due" as s2\n' in drawn
    assert "s0" not in drawn and 'state "trialing"' not in drawn


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_inserting_a_diagram_into_a_body_without_headings_adds_no_sd206(newline: str) -> None:
    text = document(front(["open", "closed"], [("open", "closed")], "open"), "\nJust words.\n")
    text = text.replace("\n", newline)
    before = codes(lint_text(text))
    assert "SD301" in before and "SD206" not in before
    edit = _plan(text)
    assert edit.new is not None
    after = codes(lint_text(edit.new.decode()))
    assert "SD206" not in after and "SD301" not in after
    assert edit.new.decode().startswith(text)  # appended: nothing the user wrote moved


def test_a_diagram_past_mermaids_size_limit_is_refused_not_written() -> None:
    """Issue 11: 3,000 states made ``build`` write a diagram its own SD302 then rejected."""
    states = [f"state_number_{index}" for index in range(3000)]
    pairs = list(itertools.pairwise(states))
    text = document(front(states, pairs, states[0]), "\n# Door\n")
    edit = _plan(text)
    assert edit.new is None
    assert edit.refused is not None and "maxTextSize" in edit.refused


def test_plain_ids_are_what_the_reader_reads_as_one_state() -> None:
    for name in ("open", "past_due", "A1", "stateful", "note", "end", "a-b", "x y", "_a", "é"):
        if plain_id(name):
            diagram = parse_state_diagram(f"stateDiagram-v2\n  {name} --> {name}\n")
            assert diagram.ok and diagram.state_names == (name,)
    assert plain_id("past_due") and plain_id("open")
    assert not any(plain_id(name) for name in ("note", "end", "a-b", "x y", "_a", "a__b"))


# --------------------------------------------------------------------------------------------
# Properties: any spec, any drifted diagram, any surrounding text.

NAMES = ["open", "closed", "past_due", "past due", "a:b", "note", "[*]", "x;y", "s1", "Ω"]


@st.composite
def drifted_documents(draw: st.DrawFn) -> str:
    states = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
    pairs = st.tuples(st.sampled_from(states), st.sampled_from(states))
    transitions = draw(st.lists(pairs, max_size=6, unique=True))
    old_states = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
    old_pairs = st.tuples(st.sampled_from(old_states), st.sampled_from(old_states))
    old_edges = draw(st.lists(old_pairs, max_size=6, unique=True))
    ids = {name: (name if plain_id(name) else f"s{i}") for i, name in enumerate(old_states)}
    lines = [
        f'  state "{escape_name(name)}" as {ids[name]}' for name in old_states if ids[name] != name
    ]
    labels = st.sampled_from(["", " : go", ": paid"])
    lines += [f"  {ids[a]} --> {ids[b]}{draw(labels)}" for a, b in old_edges]
    if draw(st.booleans()):
        lines.insert(0, f"  [*] --> {ids[old_states[0]]}")
    diagram = f"{FENCE}mermaid\nstateDiagram-v2\n" + "\n".join(lines) + f"\n{FENCE}\n"
    title = draw(st.sampled_from(["# Door\n", "# Other\n", "", "## Door\n", "Door\n====\n"]))
    section = draw(st.sampled_from(["## The Lifecycle\n\n", ""]))
    block = draw(st.sampled_from([diagram, ""]))
    tail = draw(st.sampled_from(["", "\nMore words.\n", "\n## Notes\n"]))
    body = f"\n{title}\n{section}{block}{tail}"
    text = document(front(states, transitions), body)
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text


@settings(
    max_examples=fuzz_examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(drifted_documents())
def test_a_rewrite_repairs_drift_adds_nothing_and_is_idempotent(text: str) -> None:
    result = lint_text(text)
    if result.document is None:
        return
    edit = plan(result.document)
    assert edit.refused is None or "could not redraw" not in edit.refused, edit.refused
    if edit.new is None:
        return
    after = lint_text(edit.new.decode("utf-8-sig"))
    assert not set(REPAIRED) & set(codes(after)), after.findings
    grown = Counter(codes(after)) - Counter(codes(result))
    assert not grown, after.findings
    assert after.document is not None and plan(after.document) == Edit()


@settings(max_examples=fuzz_examples(150), deadline=None)
@given(drifted_documents())
def test_a_readable_drifted_diagram_is_always_rewritten(text: str) -> None:
    """Refusals are for what statedoc cannot do safely, not for ordinary drift."""
    result = lint_text(text)
    if result.document is None or {"SD302", "SD306"} & set(codes(result)):
        return
    if "[*]" in result.document.spec.state_names:
        return  # a state named like the start marker cannot be told from it by the reader
    assert plan(result.document).refused is None


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.statedoc]\n")
    (tmp_path / "specs").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_write_then_check_is_clean_and_a_second_write_changes_nothing(
    repo: Path, newline: str
) -> None:
    spec = repo / "specs/sub.md"
    renamed = [name.replace("past due", "overdue") for name in SUBSCRIPTION[:3]]
    pairs = [(a.replace("past due", "overdue"), b.replace("past due", "overdue")) for a, b in EDGES]
    text = document(front(renamed, pairs, "trialing"), HAND).replace("\n", newline)
    spec.write_bytes(text.encode())
    assert main(["diagram", "--write"]) == 0
    written = spec.read_bytes()
    assert written != text.encode()
    assert main(["diagram", "--check"]) == 0
    assert main(["diagram", "--write"]) == 0
    assert spec.read_bytes() == written
    assert HEADER.splitlines()[0] in written.decode()


def test_the_id_root_is_reported_and_never_written_bare() -> None:
    """Mermaid's own root id: Mermaid drops such a state or fails to draw (node oracle)."""
    diagram = parse_state_diagram("stateDiagram-v2\n  root --> a\n")
    assert not diagram.ok and "'root'" in diagram.problems[0].message
    assert not plain_id("root")
