"""Messages that say how to fix: did-you-mean, quoting and tab hints, foreign encodings,
look-alike state names and bidi controls."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sample_documents import DIAGRAM, DOOR, document, lint_text

from generator.core.findings import Finding
from generator.core.lookalike import skeleton
from generator.lint.document import lint_bytes
from generator.rules.references import _SOURCED

BLOCK = "  - from: open\n    to: closed\n    trigger: {}\n"


def _only(text: str | bytes, code: str) -> Finding:
    data = text.encode() if isinstance(text, str) else text
    found = [f for f in lint_bytes(data, "doc.md").findings if f.code == code]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("written", "meant"), [("clsoed", "closed"), ("Closed", "closed"), ("\u0441losed", "closed")]
)
def test_unknown_transition_state_suggests_the_declared_one(written: str, meant: str) -> None:
    finding = _only(document(DOOR.replace("to: closed,", f"to: {written},")), "SD102")
    assert f"did you mean {meant!r}?" in finding.message


def test_a_look_alike_name_is_named_as_such() -> None:
    finding = _only(document(DOOR.replace("to: closed,", "to: \u0441losed,")), "SD102")
    assert "look alike" in finding.message and "CYRILLIC SMALL LETTER ES" in finding.message


def test_no_suggestion_when_nothing_is_close() -> None:
    finding = _only(document(DOOR.replace("to: closed,", "to: shut,")), "SD102")
    assert finding.message == "transition to 'shut': no such state"


def test_unknown_invalid_state_suggests() -> None:
    front = DOOR + "invalid:\n  - {from: open, to: opne, why: no}\n"
    assert "did you mean 'open'?" in _only(document(front), "SD103").message


def test_unknown_initial_state_suggests() -> None:
    finding = _only(document(DOOR.replace("initial: closed", "initial: clsed")), "SD112")
    assert finding.message == "initial state 'clsed' is not declared; did you mean 'closed'?"


def test_unknown_repo_suggests_the_declared_repo() -> None:
    front = _SOURCED.replace("door-service:src", "door-servce:src")
    assert "did you mean 'door-service'?" in _only(document(front), "SD201").message


def test_a_clean_lint_does_not_import_difflib() -> None:
    code = (
        "import sys; sys.path.insert(0, 'tests'); "
        "from sample_documents import document, lint_text; "
        "assert not lint_text(document()).findings; assert 'difflib' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_yaml_error_on_an_unquoted_colon_says_quote_it() -> None:
    front = DOOR.replace("  - {from: open, to: closed, trigger: close}\n", BLOCK.format("pay: now"))
    finding = _only(document(front), "SD003")
    assert "must be quoted" in finding.message and (finding.line, finding.column) == (16, 17)


def test_yaml_error_after_a_hash_in_a_flow_value_says_quote_it() -> None:
    finding = _only(document(DOOR.replace("trigger: close}", "trigger: close # now}")), "SD003")
    assert "' #' starts a comment" in finding.message


def test_a_tab_is_named_a_tab() -> None:
    finding = _only(document(DOOR.replace("  - name: closed", "\t- name: closed")), "SD003")
    assert "tab character" in finding.message and "indent with spaces" in finding.message


@pytest.mark.parametrize(
    ("encoding", "name"),
    [
        ("utf-16", "UTF-16 LE"),
        ("utf-16-be", "UTF-16 BE"),
        ("utf-16-le", "UTF-16 LE"),
        ("utf-32", "UTF-32 LE"),
        ("utf-32-be", "UTF-32 BE"),
    ],
)
def test_utf16_and_utf32_are_named(encoding: str, name: str) -> None:
    data = document().encode(encoding)
    if encoding == "utf-32-be":
        data = b"\x00\x00\xfe\xff" + data
    finding = _only(data, "SD006")
    assert finding.message == f"the file is {name} encoded; save it as UTF-8"


def test_utf8_with_nul_bytes_is_not_called_utf16() -> None:
    data = (document() + "\x00a\x00b\x00c\x00d\x00e\x00f" * 20).encode()
    assert "SD006" not in [f.code for f in lint_bytes(data, "doc.md").findings]


def test_control_character_position_counts_code_points() -> None:
    text = document(DOOR.replace("trigger: close}", "trigger: Caf\u00e9 cr\u00e8me\x07}"))
    finding = _only(text, "SD003")
    line = text.splitlines()[finding.line - 1]
    assert line[finding.column - 1 : finding.end_column - 1] == "\x07"


def test_astral_characters_before_a_control_character() -> None:
    text = document(DOOR.replace("trigger: close}", "trigger: \U0001f600\U0001f600\x01}"))
    finding = _only(text, "SD003")
    assert text.splitlines()[finding.line - 1][finding.column - 1] == "\x01"


# ---- look-alikes and bidi controls


def test_skeletons_of_common_confusables() -> None:
    assert skeleton("\u043epen") == skeleton("open")  # Cyrillic o
    assert skeleton("\u03bfpen") == skeleton("open")  # Greek omicron
    assert skeleton("\u0406tem") == skeleton("Item") == skeleton("ltem")
    assert skeleton("closed") != skeleton("cl0sed".replace("0", "a"))


def test_confusable_state_names_warn_with_both_places() -> None:
    front = DOOR.replace("  - name: closed\n", "  - name: closed\n  - name: \u043epen\n")
    finding = _only(document(front), "SD113")
    assert finding.severity.value == "warning"
    assert (finding.line, finding.column, finding.end_column) == (13, 11, 15)
    assert "CYRILLIC SMALL LETTER O" in finding.message
    assert [(r.line, r.column) for r in finding.related] == [(11, 11)]


def test_mixed_script_name_warns_even_alone() -> None:
    front = DOOR.replace("open", "\u043epen")
    finding = _only(document(front, body="\n# Door\n"), "SD114")
    assert "Cyrillic and Latin" in finding.message
    assert "SD113" not in [f.code for f in lint_text(document(front)).findings]


def test_single_script_names_are_fine() -> None:
    front = DOOR.replace("open", "\u043e\u0442\u043a\u0440\u044b\u0442").replace(
        "closed", "\u03ba\u03bb\u03b5\u03b9\u03c3\u03c4\u03cc"
    )
    found = [f.code for f in lint_text(document(front, body="\n# Door\n")).findings]
    assert "SD113" not in found and "SD114" not in found


@pytest.mark.parametrize(
    "char", ["\u202a", "\u202e", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c"]
)
def test_bidi_control_in_front_matter(char: str) -> None:
    text = document(DOOR.replace("trigger: close}", f'trigger: "close{char}"}}'))
    finding = _only(text, "SD013")
    assert text.splitlines()[finding.line - 1][finding.column - 1] == char
    assert f"U+{ord(char):04X}" in finding.message


def test_bidi_control_in_the_diagram_but_not_in_prose() -> None:
    body = "\n# Door \u202e prose may hold one\n" + DIAGRAM.replace(
        "open --> closed", "open --> closed : a\u202eb"
    )
    finding = _only(document(body=body), "SD013")
    assert "diagram" in finding.message and "#8238;" in finding.message
    assert lint_text(document(body="\n# Door\n\n## Notes \u202e\n" + DIAGRAM)).findings == []
