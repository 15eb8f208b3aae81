"""``generate --tests`` writes through the output plan: header ownership, only-if-changed,
``--check`` as a diff, and summaries that count what happened."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sample_documents import document

from generator.cli import main

SPEC = "specs/example/door.md"
TEST_MODULE = "spec_tests/test_example_doors_door.py"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\nout = "gen"\n')
    for name in ("door", "gate", "hatch"):
        folder = tmp_path / "specs/example"
        folder.mkdir(parents=True, exist_ok=True)
        text = document(body=f"\n# {name.title()}\n\n## The Lifecycle\n")
        text = text.replace("title: Door", f"title: {name.title()}").replace(
            "DOR-001", f"{name[:3].upper()}-001"
        )
        (folder / f"{name}.md").write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    assert main(["build", "-q"]) == 0
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_hand_written_test_module_survives_byte_for_byte(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported data loss: a hand-written ``tests/test_<module>.py`` without statedoc's
    header was replaced by ``generate --tests``."""
    mine = repo / TEST_MODULE
    mine.parent.mkdir()
    data = b"# my own tests\r\ndef test_door() -> None:\n    assert True\n"
    mine.write_bytes(data)
    os.utime(mine, ns=(1_000_000_000, 1_000_000_000))
    code, out, err = _run(capsys, "generate", "--tests", "spec_tests")
    assert code == 1
    assert mine.read_bytes() == data and mine.stat().st_mtime_ns == 1_000_000_000
    assert f"{TEST_MODULE}:1:1: SD404 refused to overwrite a file statedoc did not write" in out
    assert "1 refused or failed (see the findings)" in err
    others = sorted(p.name for p in mine.parent.iterdir())
    assert others == [  # the other documents' test modules are still written
        "test_example_doors_door.py",
        "test_example_doors_gate.py",
        "test_example_doors_hatch.py",
    ]
    assert main(["generate", "-q", "--check", "--tests", "spec_tests"]) == 1
    assert mine.read_bytes() == data


def test_summaries_count_the_test_modules_written(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "generate", "--tests", "spec_tests")
    assert code == 0
    assert "3 test module(s) -> spec_tests/ (3 written, 0 unchanged)" in err
    code, _, err = _run(capsys, "generate", "--tests", "spec_tests")
    assert code == 0
    assert "(0 written, 3 unchanged)" in err
    code, out, err = _run(capsys, "generate", "--check", "--tests", "spec_tests")
    assert (code, out) == (0, "")
    assert "spec_tests/ is up to date" in err


def test_check_shows_a_stale_test_module_as_a_finding_and_a_diff(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", "-q", "--tests", "spec_tests"]) == 0
    module = repo / TEST_MODULE
    module.write_text(module.read_text().replace("TestDoor", "TestDoorOld"))
    past = 1_000_000_000
    os.utime(module, ns=(past, past))
    code, out, err = _run(capsys, "generate", "--check", "--tests", "spec_tests")
    assert code == 1
    assert "is up to date" not in err.split("spec_tests/", 1)[-1]
    assert f"SD401 {TEST_MODULE} is stale" in out
    assert f"--- a/{TEST_MODULE}\n+++ b/{TEST_MODULE}\n" in out
    assert "-TestDoorOld = statedoc_tests(\n+TestDoor = statedoc_tests(\n" in out
    assert "1 test module(s) in spec_tests/ would change (0 created, 1 updated" in err
    assert module.stat().st_mtime_ns == past  # --check wrote nothing
    code, _, err = _run(capsys, "generate", "--tests", "spec_tests")
    assert code == 0 and "(1 written, 2 unchanged)" in err
    assert "TestDoorOld" not in module.read_text()
