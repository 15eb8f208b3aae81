"""``statedoc diagram --write/--check``: redraw only what drifted, touch nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_documents import DOOR, document, lint_text

from generator.cli import main
from generator.diagram.sync import plan
from generator.load.mermaid.parse import parse_state_diagram

FENCE = "```"
HAND_DRAWN = f"""
# Door

Intro text  with  odd   spacing.\t

## The Lifecycle

{FENCE}mermaid
stateDiagram-v2
  direction LR
  [*] --> closed : installed
  closed --> open : push
  open --> closed : pull
{FENCE}

## Notes

Trailing text, no final newline."""

GROWN = DOOR + "  - {from: open, to: locked, trigger: lock}\n"
GROWN = GROWN.replace("  - name: closed\n", "  - name: closed\n  - name: locked\n")


def _edit(text: str, *, bom: bool = False) -> bytes | None:
    data = ("\ufeff" if bom else "") + text
    result = lint_text(data)
    assert result.document is not None, result.findings
    edit = plan(result.document)
    assert edit.refused is None
    return edit.new


def _outside_block(data: bytes) -> tuple[bytes, bytes]:
    start = data.index(b"```mermaid")
    end = data.index(b"```", start + 3)
    return data[:start], data[end:]


def test_a_diagram_in_sync_is_left_alone() -> None:
    assert _edit(document(DOOR, HAND_DRAWN)) is None


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("bom", [False, True])
def test_a_drifted_block_is_redrawn_and_nothing_else_changes(newline: str, bom: bool) -> None:
    text = document(GROWN, HAND_DRAWN).replace("\n", newline)
    new = _edit(text, bom=bom)
    assert new is not None
    old = (("\ufeff" if bom else "") + text).encode()
    assert _outside_block(new) == _outside_block(old)
    assert new.startswith(b"\xef\xbb\xbf") == bom
    assert not new.endswith(b"\n")  # the document had no final newline
    if newline == "\r\n":
        assert b"\n" not in new.replace(b"\r\n", b"")
    # Hand-written labels of edges that still exist survive; the new edge is drawn.
    redrawn = new.decode("utf-8-sig")
    block = redrawn[
        redrawn.index("stateDiagram-v2") : redrawn.index("```", redrawn.index("stateDiagram"))
    ]
    diagram = parse_state_diagram(block.replace("\r\n", "\n"))
    assert diagram.ok
    assert diagram.labels[("closed", "open")] == "push"
    assert diagram.labels[("[*]", "closed")] == "installed"
    assert ("open", "locked") in diagram.transitions
    # Idempotent: the redrawn document is in sync.
    assert _edit(redrawn.replace("\ufeff", ""), bom=False) is None


def test_a_missing_diagram_is_inserted_under_the_lifecycle_heading() -> None:
    text = document(DOOR, "\n# Door\n\n## The Lifecycle\n\nWords.\n")
    new = _edit(text)
    assert new is not None
    out = new.decode()
    assert out.startswith(text[: text.index("## The Lifecycle")])
    assert "## The Lifecycle\n\n```mermaid\nstateDiagram-v2\n" in out
    assert out.endswith("```\n\nWords.\n")
    assert _edit(out) is None


def test_the_lifecycle_heading_is_created_after_the_first_heading() -> None:
    text = document(DOOR, "\n# Door\nSome words.\n")
    new = _edit(text)
    assert new is not None
    out = new.decode()
    assert "# Door\n\n## The Lifecycle\n\n```mermaid\n" in out
    assert out.endswith("```\n\nSome words.\n")
    assert _edit(out) is None


def test_a_diagram_statedoc_cannot_read_is_never_overwritten() -> None:
    composite = "stateDiagram-v2\n  state Busy {\n    a --> b\n  }\n"
    body = f"\n# Door\n\n{FENCE}mermaid\n{composite}{FENCE}\n"
    result = lint_text(document(DOOR, body))
    assert result.document is not None
    edit = plan(result.document)
    assert edit.new is None and edit.refused is not None


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.statedoc]\n")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/door.md").write_text(document(GROWN, HAND_DRAWN), newline="")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_check_then_write_then_check(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = repo / "specs/door.md"
    before = spec.read_bytes()
    assert main(["diagram", "--check"]) == 1
    out, err = capsys.readouterr()
    finding, diff = out.split("\n", 1)
    assert finding.startswith("specs/door.md:") and " SD407 " in finding
    assert diff.startswith("--- a/specs/door.md\n+++ b/specs/door.md\n")
    assert "All clean" not in err and "1 of 1 document drifted" in err
    assert spec.read_bytes() == before
    assert main(["diagram", "--write"]) == 0
    after = spec.stat().st_mtime_ns
    assert spec.read_bytes() != before
    assert main(["diagram", "--check"]) == 0
    assert main(["diagram", "--write"]) == 0
    assert spec.stat().st_mtime_ns == after  # nothing to do: not even rewritten


def test_documents_with_other_errors_are_not_touched(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = repo / "specs/door.md"
    spec.write_text(document(GROWN.replace("to: closed,", "to: shut,"), HAND_DRAWN))
    before = spec.read_bytes()
    assert main(["diagram", "--write"]) == 1
    assert "SD102" in capsys.readouterr().out
    assert spec.read_bytes() == before
