"""Every rule fires at the right place on a document that breaks it, and stays quiet otherwise.

Positions are written out by hand: each names the token a reader would point at.
"""

from __future__ import annotations

import pytest
from sample_documents import DIAGRAM, DOOR, HEADER, at, codes, document, lint_text

from generator.lint.document import lint_bytes
from generator.rules import all_rules
from generator.rules.examples import document as example_document

INVALID = DOOR + "invalid:\n  - {from: open, to: open, why: an open door cannot open}\n"
SOURCED = (
    DOOR.replace("trigger: close}", "trigger: close, source: 'door-service:src/door.py'}")
    + "source_sha:\n  door-service: ad3f6a6582843008ed0f5a17b131878d15829af1\n"
)
THREE = (
    "initial: open\nstates:\n  - name: open\n  - name: closed\n  - name: locked\n"
    "transitions:\n  - {from: open, to: closed, trigger: close}\n"
)
NO_DIAGRAM = "\n# Door\n"


def _body(diagram: str) -> str:
    return "\n# Door\n" + diagram


# (code, broken front matter, body, expected (line, col) list, a clean variant)
CASES: list[tuple[str, str, str, list[tuple[int, int]], str]] = [
    (
        "SD101",
        DOOR.replace("  - name: closed\n", "  - name: closed\n  - name: open\n"),
        NO_DIAGRAM,
        [(13, 11)],
        DOOR,
    ),
    ("SD102", DOOR.replace("to: closed,", "to: shut,"), NO_DIAGRAM, [(14, 22)], DOOR),
    ("SD102", DOOR.replace("{from: closed,", "{from: shut,"), NO_DIAGRAM, [(15, 12)], DOOR),
    ("SD103", INVALID.replace("to: open, why", "to: ajar, why"), NO_DIAGRAM, [(17, 22)], INVALID),
    (
        "SD104",
        DOOR + "invalid:\n  - {from: open, to: closed, why: stays open}\n",
        NO_DIAGRAM,
        [(17, 5)],
        INVALID,
    ),
    ("SD105", DOOR + "  - {from: open, to: closed, trigger: slam}\n", NO_DIAGRAM, [(16, 5)], DOOR),
    ("SD106", INVALID + "  - {from: open, to: open, why: again}\n", NO_DIAGRAM, [(18, 5)], INVALID),
    (
        "SD107",
        THREE + "  - {from: locked, to: closed, trigger: unlock}\n",
        NO_DIAGRAM,
        [(13, 11)],
        THREE + "  - {from: closed, to: locked, trigger: lock}\n",
    ),
    ("SD108", DOOR.replace("initial: closed\n", ""), NO_DIAGRAM, [(9, 1)], DOOR),
    (
        "SD109",
        DOOR.replace("  - name: closed\n", "  - name: closed\n  - name: ajar\n"),
        NO_DIAGRAM,
        [(13, 11)],
        DOOR,
    ),
    (
        "SD110",
        DOOR.replace("  - name: closed\n", "  - name: closed\n  - name: Open\n"),
        NO_DIAGRAM,
        [(13, 11)],
        DOOR,
    ),
    (
        "SD110",
        DOOR.replace("  - name: closed\n", "  - name: closed\n  - name: 'o-p-e-n'\n").replace(
            "name: open\n", "name: o p e n\n"
        ),
        NO_DIAGRAM,
        [(13, 11)],
        DOOR,
    ),
    ("SD111", DOOR + "  - {from: open, to: open, trigger: wedge}\n", NO_DIAGRAM, [(16, 5)], DOOR),
    ("SD112", DOOR.replace("initial: closed", "initial: ajar"), NO_DIAGRAM, [(9, 10)], DOOR),
    (
        "SD112",
        DOOR.replace("initial: closed", "initial: [closed, ajar]"),
        NO_DIAGRAM,
        [(9, 19)],
        DOOR,
    ),
    ("SD201", SOURCED.replace("door-service:src", "door-svc:src"), NO_DIAGRAM, [(14, 54)], SOURCED),
    (
        "SD202",
        SOURCED + "evidence:\n  - 'door-service at 1234567: src/door.py'\n",
        NO_DIAGRAM,
        [(19, 5)],
        SOURCED + "evidence:\n  - 'door-service at ad3f6a6: src/door.py'\n",
    ),
    (
        "SD203",
        DOOR + "invariants:\n  - INV-DOM-EX-DOR-001-01\n  - INV-DOM-EX-WIN-001-02\n",
        NO_DIAGRAM,
        [(18, 5)],
        DOOR + "invariants:\n  - INV-DOM-EX-DOR-001-01\n",
    ),
    ("SD206", DOOR, "\n# Window\n", [(18, 3)], DOOR),
    ("SD301", DOOR, "\n# Door\n\nNo diagram here.\n", [(17, 1)], DOOR),
    ("SD302", DOOR, _body(DIAGRAM.replace("open --> closed", "open -> closed")), [(25, 8)], DOOR),
    (
        "SD302",
        DOOR,
        _body(DIAGRAM.replace("  [*] --> closed\n", "  state Busy {\n  }\n")),
        [(24, 3)],
        DOOR,
    ),
    ("SD303", DOOR, _body(DIAGRAM.replace("  closed --> open\n", "")), [(22, 1)], DOOR),
    (
        "SD303",
        DOOR,
        _body(DIAGRAM.replace("  closed --> open\n", "  closed --> open\n  open --> open\n")),
        [(27, 3)],
        DOOR,
    ),
    (
        "SD304",
        DOOR,
        _body(DIAGRAM.replace("closed --> open\n", "closed --> open\n  ajar --> open\n")),
        [(27, 3)],
        DOOR,
    ),
    (
        "SD305",
        DOOR,
        _body(DIAGRAM.replace("[*] --> closed", "[*] --> open")),
        [(22, 1), (24, 3)],
        DOOR,
    ),
]


@pytest.mark.parametrize(
    ("code", "front", "body", "where", "clean"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_rule_fires_at_the_right_place(
    code: str, front: str, body: str, where: list[tuple[int, int]], clean: str
) -> None:
    result = lint_text(document(front, body))
    assert at(result, code) == where, result.findings
    fixed = lint_text(document(clean, _body(DIAGRAM) if clean == DOOR else NO_DIAGRAM))
    assert code not in codes(fixed)
    assert [f for f in fixed.findings if f.severity.value == "error"] == []


def test_id_object_mismatch() -> None:
    header = HEADER.replace("DOM-EX-DOR-001", "DOM-EX-WIN-001")
    result = lint_text(document(DOOR, header=header))
    assert at(result, "SD205") == [(4, 9)]
    assert result.findings[0].severity.value == "warning"


def test_duplicate_spec_id_across_files(tmp_path: object) -> None:
    from generator.lint.document import project_findings

    results = [
        lint_text(document(), "b.md"),
        lint_text(document(), "a.md"),
        lint_text(document(header=HEADER.replace("001\ntitle", "002\ntitle")), "c.md"),
    ]
    (finding,) = project_findings(results)
    assert (finding.path, finding.code, finding.line, finding.column) == ("b.md", "SD204", 2, 5)
    assert "a.md:2:5" in finding.message


def test_seeds_lint_without_errors() -> None:
    from pathlib import Path

    seeds = sorted(Path(__file__).parents[2].glob("specs/**/*.md"))
    assert len(seeds) >= 2
    for seed in seeds:
        result = lint_bytes(seed.read_bytes(), str(seed))
        assert result.findings == [], result.findings


DESCRIBED_ONLY = {"SD000", "SD006", "SD007", "SD008"}  # examples are prose; see test_load.py


@pytest.mark.parametrize(
    "rule",
    [r for r in all_rules() if r.scope in ("load", "document") and r.code not in DESCRIBED_ONLY],
    ids=lambda r: r.code,
)
def test_explain_examples_are_true(rule: object) -> None:
    """``statedoc explain`` shows a failing and a fixed example; both must be honest."""
    from generator.rules import Rule

    assert isinstance(rule, Rule)
    bad = lint_bytes(example_document(rule.bad).encode(), "bad.md")
    good = lint_bytes(example_document(rule.good).encode(), "good.md")
    assert rule.code in codes(bad), bad.findings
    assert rule.code not in codes(good), good.findings
    assert not [f for f in good.findings if f.severity.value == "error"], good.findings


def test_only_input_level_rules_have_prose_examples() -> None:
    prose = {r.code for r in all_rules() if r.bad.startswith("RAW:(") and r.scope != "output"}
    assert prose == DESCRIBED_ONLY


def test_every_rule_has_a_name_summary_and_examples() -> None:
    rules = all_rules()
    assert len({r.name for r in rules}) == len(rules)
    catalogue = [f"SD{n:03d}" for n in (1, 2, 3, 4, 5, 6, 10, 11)] + [
        f"SD{n}"
        for n in (
            101,
            102,
            103,
            104,
            105,
            106,
            107,
            108,
            109,
            110,
            111,
            112,
            201,
            202,
            203,
            204,
            205,
            206,
            207,
            301,
            302,
            303,
            304,
            305,
        )
    ]
    assert set(catalogue) <= {r.code for r in rules}
    for r in rules:
        assert r.summary and r.why and r.bad and r.good, r.code


def test_a_crashing_rule_becomes_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.rules import REGISTRY

    original = REGISTRY["SD109"]

    def boom(doc: object) -> list[object]:
        raise RuntimeError("kaput")

    monkeypatch.setitem(REGISTRY, "SD109", original._replace(check=boom))
    result = lint_text(document(DOOR.replace("to: closed,", "to: shut,")))
    assert "SD000" in codes(result)
    assert "SD102" in codes(result)  # the other rules still ran
    assert "kaput" in next(f.message for f in result.findings if f.code == "SD000")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_diagram_findings_span_the_statement_whatever_the_line_breaks(newline: str) -> None:
    body = "\n# Door\n" + DIAGRAM.replace(
        "closed --> open\n", "closed --> open\n  ajar --> open : push\n"
    )
    result = lint_text(document(DOOR, body).replace("\n", newline))
    spans = [(f.code, f.line, f.column, f.end_line, f.end_column) for f in result.findings]
    assert spans == [("SD304", 27, 3, 27, 23)]  # `ajar --> open : push`, columns 3-22


@pytest.mark.parametrize(
    ("invariant", "flagged"),
    [
        ("INV-DOM-EX-DOR-001-01", False),
        ("INV-DOM-EX-DOR-001-7", False),
        ("INV-DOM-EX-DOR-001-", True),  # no number
        ("INV-DOM-EX-DOR-001-01a", True),  # trailing text
        ("INV-DOM-EX-DOR-001-\u0661", True),  # a non-ASCII digit is not [0-9]
        ("XINV-DOM-EX-DOR-001-01", True),
        ("INV-DOM-EX-DOR-0010-01", True),  # another object that shares the prefix
    ],
)
def test_sd203_matches_exactly_inv_object_and_ascii_digits(invariant: str, flagged: bool) -> None:
    # SD203 checks with startswith + isdigit (no regex compiled per document): it must accept
    # exactly what ``INV-<object>-[0-9]+`` accepts.
    result = lint_text(document(DOOR + f"invariants:\n  - {invariant!r}\n", NO_DIAGRAM))
    assert "SD001" not in codes(result)
    assert ("SD203" in codes(result)) is flagged
