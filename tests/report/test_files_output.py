"""``--output`` never overwrites what a user wrote: only new or empty files and earlier
statedoc reports of the same format are replaced, never a document being checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_documents import DOOR, document

from generator.cli import main
from generator.report import FORMATS

BROKEN = DOOR.replace("to: closed,", "to: shut,")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/door.md").write_text(document())
    (tmp_path / "specs/bad.md").write_text(document(BROKEN).replace("DOR-001", "DOR-002"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path


@pytest.mark.parametrize("args", [[], ["specs/door.md"], ["specs"]])
def test_a_spec_is_never_the_report(
    repo: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    before = (repo / "specs/door.md").read_bytes()
    assert main(["lint", *args, "--output", "specs/door.md"]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert (repo / "specs/door.md").read_bytes() == before


def test_a_document_reached_through_a_symlink_is_refused(repo: Path) -> None:
    (repo / "report.txt").symlink_to("specs/door.md")
    before = (repo / "specs/door.md").read_bytes()
    assert main(["lint", "-q", "--output", "report.txt"]) == 2
    assert (repo / "specs/door.md").read_bytes() == before


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["pyproject.toml", "notes.txt", "other.md"])
def test_a_file_that_is_not_a_report_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str], fmt: str, name: str
) -> None:
    target = repo / name
    if not target.exists():
        target.write_text("# my notes\nkeep me\n")
    before = target.read_bytes()
    assert main(["lint", "-q", "--format", fmt, "--output", name]) == 2
    assert f"not a statedoc {fmt} report" in capsys.readouterr().err
    assert target.read_bytes() == before


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_earlier_report_of_the_format_is_replaced(repo: Path, fmt: str) -> None:
    report = repo / "report.out"
    assert main(["lint", "-q", "--format", fmt, "--output", "report.out"]) == 1
    first = report.read_bytes()
    assert b"SD102" in first
    (repo / "specs/bad.md").unlink()
    assert main(["lint", "-q", "--format", fmt, "--output", "report.out"]) == 0
    assert report.read_bytes() != first  # replaced by the clean run's report
    assert main(["lint", "-q", "--format", fmt, "--output", "report.out"]) == 0


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_report_of_another_format_is_refused(repo: Path, fmt: str) -> None:
    other = "junit" if fmt != "junit" else "json"
    assert main(["lint", "-q", "--format", other, "--output", "report.out"]) == 1
    before = (repo / "report.out").read_bytes()
    assert main(["lint", "-q", "--format", fmt, "--output", "report.out"]) == 2
    assert (repo / "report.out").read_bytes() == before


def test_an_empty_file_is_replaced(repo: Path) -> None:
    (repo / "report.json").write_text("")
    assert main(["lint", "-q", "--format", "json", "--output", "report.json"]) == 1
    assert b"SD102" in (repo / "report.json").read_bytes()


@pytest.mark.parametrize("target", ["specs/door.md", "specs/bad.md", "specs/other.md"])
def test_diff_output_never_overwrites_a_document(
    repo: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    (repo / "specs/other.md").write_text(document().replace("DOR-001", "DOR-003"))
    before = {p: p.read_bytes() for p in (repo / "specs").iterdir()}
    code = main(["diff", "specs/door.md", "specs/bad.md", "--output", target])
    assert code == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in (repo / "specs").iterdir()} == before


def test_diff_output_replaces_its_earlier_report(repo: Path) -> None:
    main(["diff", "specs/door.md", "specs/bad.md", "--output", "diff.txt"])
    first = (repo / "diff.txt").read_bytes()
    assert first
    main(["diff", "specs/door.md", "specs/bad.md", "--output", "diff.txt"])
    assert (repo / "diff.txt").read_bytes() == first
