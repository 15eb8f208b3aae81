"""A folder's README (``README.md`` in any case) without front matter is not a state
document: walking the specs folder leaves it out, naming it on the command line lints it
(SD001), and a README that does start with ``---`` is a spec like any other."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from generator.cli import main

README = "# Specs\n\nOne document per lifecycle; `statedoc new` makes one.\n"


@pytest.fixture
def repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """A project with one lint-clean spec and READMEs without front matter in three cases."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    Path("pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n', encoding="utf-8")
    assert main(["new", "specs/platform/queries/ok.md"]) == 0
    for readme in (
        "specs/README.md",
        "specs/platform/readme.md",
        "specs/platform/queries/ReadMe.md",
    ):
        Path(readme).write_text(README, encoding="utf-8")
    capsys.readouterr()
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    """Exit code, the ``path CODE`` of each finding, and stderr."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    found = [
        f"{line.split(':', 1)[0]} {line.split()[1]}" for line in out.splitlines() if ": SD" in line
    ]
    return code, found, err


@pytest.mark.parametrize("args", [[], ["specs"], ["specs/platform"]])
def test_walking_a_folder_leaves_its_readmes_out(
    repo: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, found, err = run(capsys, "lint", *args)
    assert (code, found) == (0, []) and "1 file checked" in err, err


def test_build_check_and_generate_leave_the_readmes_out(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (["build"], ["check"], ["generate"], ["generate", "--check"]):
        code, found, err = run(capsys, *args)
        assert (code, found) == (0, []), (args, err)
    assert Path("generated/platform/queries/ok.py").is_file()


def test_a_readme_named_on_the_command_line_is_linted(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, found, _ = run(capsys, "lint", "specs/README.md", "specs/platform/queries/ok.md")
    assert (code, found) == (1, ["specs/README.md SD001"])


def test_a_readme_with_front_matter_is_a_spec(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walked, it is linted: here it is a copy of the spec, so one id is in two files (SD204,
    reported at the second of them)."""
    shutil.copyfile("specs/platform/queries/ok.md", "specs/platform/queries/ReadMe.md")
    for args in (["lint"], ["lint", "specs/platform/queries"]):
        code, found, err = run(capsys, *args)
        assert (code, found) == (1, ["specs/platform/queries/ok.md SD204"]), args
        assert "2 files checked" in err


def test_a_readme_with_a_bom_before_its_front_matter_is_a_spec(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = Path("specs/platform/queries/ok.md")
    Path("specs/README.md").write_bytes(b"\xef\xbb\xbf" + spec.read_bytes())
    spec.unlink()
    code, found, err = run(capsys, "lint")
    assert (code, found) == (0, []) and "1 file checked" in err


def test_a_readme_that_cannot_be_read_is_still_reported(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not skipped unseen: a FIFO named README.md (opened without blocking) is SD008."""
    os.unlink("specs/README.md")
    os.mkfifo("specs/README.md")
    code, found, _ = run(capsys, "lint")
    assert (code, found) == (1, ["specs/README.md SD008"])


def test_a_specs_folder_with_only_a_readme_has_no_documents(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.unlink("specs/platform/queries/ok.md")
    code, found, err = run(capsys, "lint")
    assert (code, found) == (2, []) and "no spec documents" in err
