"""UTF-16 positions on text with astral characters, and random edits: after every edit the
server's diagnostics are ``lint -``'s for the same text (Hypothesis)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from sample_documents import document

from .conftest import make_project
from .lsp_client import Client, expected_diagnostics, lint_stdin, seen, utf16_position

ASTRAL = "🎉𝔘🙂"
#: A door whose texts hold astral characters before the findings on their lines.
SMILING = document(
    front=(
        "initial: closed\n"
        "states:\n"
        f"  - {{name: open, meaning: '{ASTRAL} wide'}}\n"
        "  - name: closed\n"
        "transitions:\n"
        f"  - {{from: open, to: closed, trigger: '{ASTRAL}', guard: '𝔘'}}\n"
        f"  - {{trigger: '{ASTRAL}{ASTRAL}', from: closed, to: 𝔘pen}}\n"
    )
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("fuzz") / "p", {})


@pytest.fixture(scope="module")
def server(project: Path) -> Iterator[Client]:
    session = Client(cwd=project)
    yield session
    session.shutdown()


def test_ranges_count_utf16_units_after_astral_characters(server: Client, project: Path) -> None:
    path = project / "specs" / "smiling.md"
    uri = server.open(path, SMILING)
    got = server.diagnostics(uri, 1)
    expected = expected_diagnostics(SMILING, lint_stdin(SMILING, path, project))
    assert seen(got) == expected
    unknown = next(d for d in got if d.code == "SD102")
    line = SMILING.splitlines()[unknown.range.start.line]
    column = line.index("𝔘pen")
    assert unknown.range.start.character == len(line[:column].encode("utf-16-le")) // 2
    assert unknown.range.start.character > column  # each astral character is two units
    # an edit placed in UTF-16 units right after the astral characters lands where it should
    at = SMILING.index("𝔘pen")
    version = server.edit(uri, at, at + 1, "o")
    assert server.texts[uri].count("to: open}") == 1
    assert [d for d in server.diagnostics(uri, version) if d.code == "SD102"] == []


def test_utf8_position_encoding_when_the_client_prefers_it(project: Path) -> None:
    capabilities = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=["utf-8", "utf-16"])
    )
    session = Client(cwd=project, capabilities=capabilities)
    try:
        path = project / "specs" / "smiling8.md"
        uri = session.open(path, SMILING)
        unknown = next(d for d in session.diagnostics(uri, 1) if d.code == "SD102")
        line = SMILING.splitlines()[unknown.range.start.line]
        assert unknown.range.start.character == len(line[: line.index("𝔘pen")].encode())
    finally:
        session.shutdown()


PIECES = [*"abcxyz :-{}[]#'\"\n\t\r", "\r\n", "🎉", "𝔘", "é", "\u2028", "- ", "to: ", "```"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=6).map("".join)


@st.composite
def edits(draw: st.DrawFn, size: int) -> tuple[int, int, str]:
    start = draw(st.integers(0, size))
    end = draw(st.integers(start, min(size, start + 20)))
    return start, end, draw(TEXT)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_edits_keep_diagnostics_equal_to_lint(
    server: Client, project: Path, data: st.DataObject
) -> None:
    path = project / "specs" / "fuzzed.md"
    text = data.draw(st.sampled_from([SMILING, document()]))
    uri = server.open(path, text)
    server.diagnostics(uri, 1)
    for _ in range(data.draw(st.integers(1, 6))):
        start, end, new = data.draw(edits(len(server.texts[uri])))
        version = server.edit(uri, start, end, new)
        current = server.texts[uri]
        expected = expected_diagnostics(current, lint_stdin(current, path, project))
        assert seen(server.diagnostics(uri, version)) == expected
    server.close_document(uri)


def test_whole_document_changes(server: Client, project: Path) -> None:
    path = project / "specs" / "whole.md"
    uri = server.open(path, document())
    server.diagnostics(uri, 1)
    for text in ("", "---\n", "---\nid: [\n", SMILING.replace("\n", "\r\n"), document()):
        version = server.replace_all(uri, text)
        expected = expected_diagnostics(text, lint_stdin(text, path, project))
        assert seen(server.diagnostics(uri, version)) == expected
    assert utf16_position("a🎉b", 2) == types.Position(0, 3)
    server.close_document(uri)
