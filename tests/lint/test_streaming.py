"""``statedoc lint`` streams: each file's findings leave as the file is done, and nothing per
file stays behind (memory stays flat however many documents), with the report unchanged."""

from __future__ import annotations

import gc
import io
from pathlib import Path

import pytest
from sample_documents import DOOR, HEADER, document

from generator import __version__
from generator.cli import main
from generator.core.findings import Finding
from generator.lint.document import FileResult
from generator.lint.files import PARALLEL_MIN, lint_files, settings_for, stream_files
from generator.load.config import Config
from generator.load.discover import discover
from generator.report import Run, render
from generator.rules import all_rules
from generator.rules.examples import document as example_document

BROKEN = DOOR.replace("to: closed,", "to: shut,") + "  - {from: open, to: open, trigger: x}\n"


def _mixed(root: Path, copies: int = 1) -> Config:
    """Every rule's failing example, clean documents, duplicate ids (SD204, also suppressed
    inline), and names whose sort order differs by character (``a-b`` before ``a/b``)."""
    specs = root / "specs"
    (specs / "a").mkdir(parents=True)
    (specs / "a-b").mkdir()
    for copy in range(copies):
        for rule in all_rules():
            if rule.scope in ("load", "document") and not rule.bad.startswith("RAW:("):
                (specs / "a" / f"{rule.code}-{copy}.md").write_text(example_document(rule.bad))
        for index in range(6):
            header = HEADER.replace("DOR-001\ntitle", f"DOR-{copy}{index:02d}\ntitle")
            front = BROKEN if index % 2 else DOOR
            (specs / "a-b" / f"d{copy}-{index}.md").write_text(document(front, header=header))
        (specs / f"dup{copy}.md").write_text(document())  # the sample's own id, many times
    quiet = document().replace("id: STATE-DOR-001", "id: STATE-DOR-001  # statedoc: ignore[SD204]")
    (specs / "zz-ignored.md").write_text(quiet)
    return Config(root=root, specs=(specs,), out=root / "out")


def _whole_report(config: Config, fmt: str) -> str:
    """The report as rendered from all findings at once (the non-streaming formatter)."""
    files = discover([], config, cwd=config.root)
    run = lint_files(files, settings_for(config))
    return render(fmt, Run(run.findings, [f.display for f in files], __version__))


@pytest.mark.parametrize(
    ("fmt", "jobs"), [("text", "1"), ("github", "1"), ("text", "2"), ("json", "2")]
)
def test_streamed_output_is_the_whole_report(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fmt: str,
    jobs: str,
) -> None:
    config = _mixed(tmp_path, copies=2)
    files = discover([], config, cwd=config.root)
    assert len(files) >= PARALLEL_MIN  # -j2 really uses worker processes
    expected = _whole_report(config, fmt)
    assert (
        "SD204" in expected and "SD302" in expected and "(warning)" in _whole_report(config, "text")
    )
    monkeypatch.chdir(tmp_path)
    code = main(["lint", "--no-cache", "-j", jobs, "--format", fmt, "specs"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == expected
    if fmt == "text":
        errors = expected.count("\n") - expected.count(" (warning)\n")
        assert f"Found {errors} errors and " in err
        assert f"({len(files)} files checked)" in err


def test_stream_files_yields_what_lint_files_reports(tmp_path: Path) -> None:
    config = _mixed(tmp_path)
    files = discover([], config, cwd=config.root)
    settings = settings_for(config)
    streamed = list(stream_files(files, settings))
    assert len(streamed) == len(files)
    assert [f for group in streamed for f in group] == lint_files(files, settings).findings
    # the same files in another order: the duplicate-id rule still names the smallest path
    shuffled = list(reversed(files))
    assert lint_files(shuffled, settings).findings == lint_files(files, settings).findings


class _Watcher(io.StringIO):
    """stdout that counts, at every write, the per-file objects still alive."""

    def __init__(self) -> None:
        super().__init__()
        self.alive: list[tuple[int, int]] = []

    def write(self, text: str) -> int:
        gc.collect()
        objects = gc.get_objects()
        results = sum(1 for o in objects if isinstance(o, FileResult))
        findings = sum(1 for o in objects if isinstance(o, Finding))
        self.alive.append((results, findings))
        return super().write(text)


def _same_id_corpus(root: Path, count: int) -> Path:
    """``count`` documents sharing one id: one SD204 finding in each but the first."""
    specs = root / "specs"
    specs.mkdir()
    for index in range(count):
        (specs / f"d{index:03d}.md").write_text(document())
    return specs


@pytest.mark.parametrize("count", [20, 60])
def test_lint_keeps_nothing_per_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    specs = _same_id_corpus(tmp_path, count)
    monkeypatch.chdir(tmp_path)
    out = _Watcher()
    monkeypatch.setattr("sys.stdout", out)
    assert main(["lint", "--no-cache", "-j1", "-q", str(specs)]) == 1
    assert out.getvalue().count(" SD204 ") == count - 1
    most_results = max(results for results, _ in out.alive)
    most_findings = max(findings for _, findings in out.alive)
    assert most_results <= 2  # the file at hand: not one per linted file
    assert most_findings <= 4


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_one_document_reports_keep_findings_not_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    count = 30
    specs = _same_id_corpus(tmp_path, count)
    monkeypatch.chdir(tmp_path)
    out = _Watcher()
    monkeypatch.setattr("sys.stdout", out)
    assert main(["lint", "--no-cache", "-j1", "--format", fmt, str(specs)]) == 1
    results, findings = out.alive[0]  # the report is written in one piece
    assert results == 0
    assert findings >= count - 1
