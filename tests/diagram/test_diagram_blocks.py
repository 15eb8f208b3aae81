"""Which Mermaid block is checked, and fences that never close (issue 11 item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_documents import DIAGRAM, DOOR, at, codes, document, lint_text

from generator.cli import main

FENCE = "```"
DRIFTED = DIAGRAM.replace("  closed --> open\n", "")
UNCLOSED = DIAGRAM[: DIAGRAM.rindex(FENCE)]  # the block without its closing fence


def test_an_unclosed_mermaid_fence_is_a_finding_at_its_opening_line() -> None:
    body = "\n# Door\n" + UNCLOSED
    text = document(DOOR, body)
    opening = text.splitlines().index(f"{FENCE}mermaid") + 1
    result = lint_text(text)
    assert at(result, "SD306") == [(opening, 1)]
    finding = next(f for f in result.findings if f.code == "SD306")
    assert finding.end_line == opening and finding.end_column == len(f"{FENCE}mermaid") + 1


def test_an_unclosed_fence_of_any_language_is_reported() -> None:
    text = document(DOOR, "\n# Door\n" + DIAGRAM + "\n~~~~python\nprint()\n")
    assert at(lint_text(text), "SD306") == [(len(text.splitlines()) - 1, 1)]


def test_a_closed_fence_is_not_reported() -> None:
    assert "SD306" not in codes(lint_text(document(DOOR)))


def test_the_lifecycle_diagram_is_checked_and_another_one_is_reported() -> None:
    # A drifted diagram before the section, the right one in it: the section's one counts.
    body = f"\n# Door\n\n## Overview\n{DRIFTED.replace('## The Lifecycle', '')}" + DIAGRAM
    text = document(DOOR, body)
    result = lint_text(text)
    assert "SD303" not in codes(result)
    lines = text.splitlines()
    first = lines.index(f"{FENCE}mermaid") + 1
    assert at(result, "SD307") == [(first, 1)]
    message = next(f.message for f in result.findings if f.code == "SD307")
    checked = lines.index(f"{FENCE}mermaid", first) + 1
    assert f"line {checked}" in message


def test_every_extra_state_diagram_is_reported_but_other_diagram_types_are_not() -> None:
    flow = f"\n{FENCE}mermaid\nflowchart LR\n  a --> b\n{FENCE}\n"
    body = "\n# Door\n" + DIAGRAM + DRIFTED.replace("## The Lifecycle", "") * 2 + flow
    result = lint_text(document(DOOR, body))
    assert len(at(result, "SD307")) == 2
    assert "SD303" not in codes(result)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.statedoc]\n")
    (tmp_path / "specs").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_lint_fails_on_an_unclosed_fence_so_write_and_lint_agree(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: lint passed (exit 0) and only ``diagram --write`` refused."""
    spec = repo / "specs/door.md"
    spec.write_text(document(DOOR, "\n# Door\n" + UNCLOSED))
    before = spec.read_bytes()
    assert main(["lint"]) == 1
    assert "SD306" in capsys.readouterr().out
    assert main(["diagram", "--write"]) == 1
    assert spec.read_bytes() == before
