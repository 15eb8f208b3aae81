"""Retired states (front matter ``retired``): the schema, the model, and SD117-SD119 at the
entry they concern. Positions are written out by hand: each names the token a reader would
point at (``retired:`` is line 16, its first entry line 17)."""

from __future__ import annotations

import pytest
from sample_documents import DIAGRAM, DOOR, at, codes, document, lint_text

from generator.model.spec import Retired

BODY = "\n# Door\n" + DIAGRAM


def _retired(*entries: str) -> str:
    return DOOR + "retired:\n" + "".join(f"  - {e}\n" for e in entries)


def _lint(*entries: str) -> list[str]:
    return codes(lint_text(document(_retired(*entries), BODY)))


def test_a_clean_retirement_lints_clean_and_reaches_the_model() -> None:
    result = lint_text(
        document(_retired("{state: ajar, to: closed, why: merged}", "{state: gone, why: x}"), BODY)
    )
    assert result.findings == []
    assert result.document is not None
    assert result.document.spec.retired == (
        Retired("ajar", "closed", "merged", ("retired", 0)),
        Retired("gone", None, "x", ("retired", 1)),
    )


@pytest.mark.parametrize(
    ("entries", "code", "where", "words"),
    [
        (["{state: open, to: closed, why: merged}"], "SD117", [(17, 13)], "also declared"),
        (["{state: ajar, to: shut, why: merged}"], "SD118", [(17, 23)], "no such state"),
        (["{state: ajar, to: Closed, why: merged}"], "SD118", [(17, 23)], "did you mean 'closed'"),
        (
            ["{state: ajar, to: shut, why: x}", "{state: shut, to: closed, why: x}"],
            "SD118",
            [(17, 23)],
            "'shut' is itself retired ('ajar' -> 'shut' -> 'closed'): a retirement moves rows "
            "once, so write `to: closed`",
        ),
        (
            ["{state: a, to: b, why: x}", "{state: b, to: a, why: x}"],
            "SD118",
            [(17, 20), (18, 20)],
            "retirements form a cycle",
        ),
        (["{state: a, to: a, why: x}"], "SD118", [(17, 20)], "cycle ('a' -> 'a')"),
        (
            ["{state: a, to: b, why: x}", "{state: b, why: x}"],
            "SD118",
            [(17, 20)],
            "and 'b' has no destination",
        ),
        (
            ["{state: ajar, to: closed, why: x}", "{state: ajar, why: y}"],
            "SD119",
            [(18, 13)],
            "retired twice",
        ),
        (["{state: ajar, to: closed}"], "SD010", [(17, 5)], "missing required key 'why'"),
        (["{state: ajar, why: '  '}"], "SD010", [(17, 24)], "not blank"),
        (["{to: closed, why: x}"], "SD010", [(17, 5)], "missing required key 'state'"),
        (["{state: '[*]', why: x}"], "SD010", [(17, 13)], "reserved"),
    ],
)
def test_a_broken_retirement_is_reported_at_its_entry(
    entries: list[str], code: str, where: list[tuple[int, int]], words: str
) -> None:
    result = lint_text(document(_retired(*entries), BODY))
    assert at(result, code) == where, result.findings
    assert any(words in f.message for f in result.findings if f.code == code), result.findings


def test_related_locations_point_at_the_first_entry_and_the_declaration() -> None:
    declared = lint_text(document(_retired("{state: open, why: x}"), BODY))
    (finding,) = [f for f in declared.findings if f.code == "SD117"]
    assert [(r.line, r.column) for r in finding.related] == [(11, 11)]
    twice = lint_text(document(_retired("{state: a, why: x}", "{state: a, why: y}"), BODY))
    (finding,) = [f for f in twice.findings if f.code == "SD119"]
    assert [(r.line, r.column) for r in finding.related] == [(17, 13)]


def test_a_typo_in_an_entry_is_suggested() -> None:
    result = lint_text(document(_retired("{state: ajar, too: closed, why: x}"), BODY))
    assert [(f.code, f.line, f.column) for f in result.findings] == [("SD011", 17, 19)]
    assert "did you mean 'to'" in result.findings[0].message


def test_a_destination_of_the_wrong_type_never_names_a_state() -> None:
    """With SD010 ignored the model still builds; a ``to`` that is no string is dropped, so
    the rows of that state count as having no destination (the SQL refuses to strand them)."""
    result = lint_text(document(_retired("{state: ajar, to: [closed], why: x}"), BODY))
    assert codes(result) == ["SD010"]
    assert result.document is not None
    assert result.document.spec.retired == (Retired("ajar", None, "x", ("retired", 0)),)


def test_retired_names_are_not_states_of_the_diagram() -> None:
    """A retired state is no state: the diagram need not draw it, and must not."""
    assert _lint("{state: ajar, to: closed, why: merged}") == []
    drawn = BODY.replace("  closed --> open\n", "  closed --> open\n  ajar --> closed\n")
    result = lint_text(document(_retired("{state: ajar, why: x}"), drawn))
    assert codes(result) == ["SD304"] and "'ajar'" in result.findings[0].message
