"""``generate --tests DIR --target conformance`` writes a conformance skeleton per spec once;
from then on the file is the user's: never compared, replaced or deleted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.cli import main

ROOT = Path(__file__).resolve().parents[2]
SKELETON = "tests/test_platform_queries_workspace_export_delivery_conformance.py"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "specs" / "platform", tmp_path / "specs" / "platform")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.statedoc]\nspecs = "specs"\nout = "gen"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _generate(*extra: str) -> int:
    return main(["generate", "-q", "--tests", "tests", "--target", "python", *extra])


def test_the_skeleton_is_written_once_and_then_belongs_to_the_user(project: Path) -> None:
    assert _generate("--target", "conformance") == 0
    skeleton = project / SKELETON
    text = skeleton.read_text(encoding="utf-8")
    assert "conformance_tests(" in text and "gen.platform.queries" in text
    compile(text, str(skeleton), "exec")
    skeleton.write_text(text.replace("raise NotImplementedError", "raise LookupError"))
    mine = skeleton.read_bytes()
    assert _generate("--target", "conformance") == 0  # kept, byte for byte
    assert _generate("--target", "conformance", "--check") == 0  # and never stale
    assert skeleton.read_bytes() == mine
    shutil.rmtree(project / "specs" / "platform" / "queries")
    assert _generate("--target", "conformance") == 0  # its spec is gone: still not deleted
    assert skeleton.read_bytes() == mine


def test_the_conformance_target_needs_a_tests_folder(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", "--target", "conformance"]) == 2
    assert "--tests DIR" in capsys.readouterr().err
