"""``diagram --write`` tries every document: each failure or refusal is a finding that says
why, the others are still written, and a read-only spec is respected unless ``--force``."""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from sample_documents import document

from generator.cli import main
from generator.diagram.sync import Edit
from generator.model.document import Document

ROOT = Path(__file__).resolve().parents[2]
NO_DIAGRAM = "\n# Door\n\n## The Lifecycle\n"
NAMES = ("a_big", "b_door", "c_door")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three specs without a diagram (each needs a rewrite); ``a_big`` is 64 KiB."""
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (tmp_path / "specs").mkdir()
    for number, name in enumerate(NAMES):
        text = document(body=NO_DIAGRAM).replace("DOR-001", f"DOR-00{number + 1}")
        if name == "a_big":
            text += "\n" + "Notes that make this document large.\n" * 1800
        (tmp_path / f"specs/{name}.md").write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _has_diagram(path: Path) -> bool:
    return "```mermaid" in path.read_text()


def _limit_file_size() -> None:  # pragma: no cover - runs in the child process
    resource.setrlimit(resource.RLIMIT_FSIZE, (32 * 1024, 32 * 1024))


def test_one_unwritable_spec_does_not_stop_the_others(repo: Path) -> None:
    """A real write failure (the file size limit stops the 64 KiB spec's temp file) on the
    first spec: it is a finding and the later specs are still rewritten."""
    proc = subprocess.run(
        [sys.executable, "-m", "generator", "diagram", "--write", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_limit_file_size,
    )
    assert proc.returncode == 1, proc.stderr
    (finding,) = json.loads(proc.stdout)
    assert (finding["path"], finding["code"]) == ("specs/a_big.md", "SD408")
    assert "cannot write: File too large" in finding["message"]
    assert not _has_diagram(repo / "specs/a_big.md")
    assert _has_diagram(repo / "specs/b_door.md") and _has_diagram(repo / "specs/c_door.md")
    assert "rewrote 2 of 3 documents (1 refused or failed: see the findings)." in proc.stderr
    assert not [p for p in (repo / "specs").iterdir() if p.name.endswith(".tmp")]


def test_a_read_only_spec_is_respected_unless_forced(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = repo / "specs/b_door.md"
    before = spec.read_bytes()
    spec.chmod(0o444)
    code, out, err = _run(capsys, "diagram", "--write")
    assert code == 1
    assert "specs/b_door.md:" in out and "SD408 diagram not rewritten: the file is read-only" in out
    assert spec.read_bytes() == before
    assert _has_diagram(repo / "specs/a_big.md") and _has_diagram(repo / "specs/c_door.md")
    assert "rewrote 2 of 3 documents" in err
    code, _, err = _run(capsys, "diagram", "--write", "--force")
    assert code == 0 and "rewrote 1 of 3 documents." in err
    assert _has_diagram(spec)
    assert stat.S_IMODE(spec.stat().st_mode) == 0o444  # still read-only afterwards


def test_build_respects_a_read_only_spec_and_still_generates(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in NAMES[1:]:  # one module per spec: distinct titles
        path = repo / f"specs/{name}.md"
        path.write_text(path.read_text().replace("title: Door", f"title: {name}"))
    spec = repo / "specs/c_door.md"
    spec.chmod(0o444)
    before = spec.read_bytes()
    code, out, _ = _run(capsys, "build", "--ignore", "SD206")
    assert code == 1
    assert "SD408" in out and spec.read_bytes() == before
    assert (repo / "generated/example/doors/b_door.py").exists()


def test_lint_errors_that_block_a_rewrite_are_named(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "rewrote 0 of 1" with exit 1 and no reason was all a user saw."""
    spec = repo / "specs/c_door.md"
    spec.write_text(spec.read_text().replace("to: closed,", "to: shut,"))
    code, out, err = _run(capsys, "diagram", "--write", "-q", "specs/c_door.md")
    assert code == 1
    assert "specs/c_door.md:" in out and "SD102" in out
    code, out, err = _run(capsys, "diagram", "--write", "specs/c_door.md")
    assert "rewrote 0 of 1 document (1 blocked by lint errors: see the findings)." in err


def test_diagram_check_never_says_all_clean_before_a_diff(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "diagram", "--check")
    assert code == 1
    assert "All clean" not in err
    assert "Found 3 errors" in err and "3 of 3 documents drifted" in err
    assert out.count(" SD407 the Mermaid diagram is missing") == 3
    assert out.count("--- a/specs/") == 3


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_drift_spans_the_block_and_stays_inside_its_lines(
    repo: Path, capsys: pytest.CaptureFixture[str], newline: str
) -> None:
    assert main(["diagram", "-q", "--write", "specs/b_door.md"]) == 0
    spec = repo / "specs/b_door.md"
    lines = spec.read_text().splitlines()
    edge = next(n for n, line in enumerate(lines) if "-->" in line and "[*]" not in line)
    del lines[edge]
    spec.write_bytes(newline.join(lines).encode() + newline.encode())
    code, out, _ = _run(capsys, "diagram", "--check", "--format", "json", "specs/b_door.md")
    assert code == 1
    (drift,) = json.loads(out)
    opening = lines.index("```mermaid") + 1
    closing = lines.index("```", opening) + 1
    assert (drift["code"], drift["line"], drift["column"]) == ("SD407", opening, 1)
    assert (drift["end_line"], drift["end_column"]) == (closing, 4)  # after "```", not "\r"


def test_a_planner_crash_on_one_document_is_sd000_and_the_others_are_written(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Like a crashing rule in lint: reported for that document (exit 2), never a traceback
    that stops the rest."""
    import generator.diagram.sync

    real = generator.diagram.sync.plan

    def plan(document: Document) -> Edit:
        if document.path.endswith("b_door.md"):
            raise ValueError("label for ('a', 'b'), which is not an edge of the diagram")
        return real(document)

    monkeypatch.setattr(generator.diagram.sync, "plan", plan)
    code, out, _ = _run(capsys, "diagram", "--write", "--format", "json")
    assert code == 2
    (finding,) = json.loads(out)
    assert (finding["path"], finding["code"]) == ("specs/b_door.md", "SD000")
    assert "ValueError: label for ('a', 'b')" in finding["message"]
    assert _has_diagram(repo / "specs/a_big.md") and _has_diagram(repo / "specs/c_door.md")
    assert not _has_diagram(repo / "specs/b_door.md")
