"""The documents a generating run keeps are frozen for the cyclic collector while the run
needs them, and given back when it ends (the build hook and library callers live on); objects
a host process froze itself are never unfrozen by statedoc."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from sample_documents import DIAGRAM, document

from generator.run import lint as lint_step
from generator.run import pipeline
from generator.run.workspace import Workspace, options_from


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (tmp_path / "specs").mkdir()
    for number in range(1, 4):
        text = document(body="\n# Door\n" + DIAGRAM).replace("DOR-001", f"DOR-00{number}")
        (tmp_path / f"specs/d{number}.md").write_text(
            text.replace("title: Door", f"title: D{number}")
        )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(lint_step, "_FREEZE_EVERY", 2)
    gc.unfreeze()
    yield tmp_path
    gc.unfreeze()


def test_lint_freezes_what_it_keeps_and_generate_gives_it_back(repo: Path) -> None:
    workspace = Workspace.open(options_from())
    run = pipeline.lint(workspace, spare=True)
    assert gc.get_freeze_count() > 0
    assert all(gc.is_tracked(r.document) for r in run.results if r.document is not None)
    outcome = pipeline.generate(workspace, run)
    assert outcome.ok and gc.get_freeze_count() == 0


def test_build_and_check_end_with_nothing_frozen(repo: Path) -> None:
    assert pipeline.build(Workspace.open(options_from())).outputs.ok
    assert gc.get_freeze_count() == 0
    assert pipeline.check(Workspace.open(options_from())).outputs.ok
    assert gc.get_freeze_count() == 0


def test_a_host_freeze_is_left_alone(repo: Path) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    workspace = Workspace.open(options_from())
    run = pipeline.lint(workspace, spare=True)
    assert 0 < gc.get_freeze_count() <= frozen  # nothing of the run frozen
    pipeline.generate(workspace, run)
    assert 0 < gc.get_freeze_count() <= frozen  # the host's objects still frozen


def test_lint_without_spare_freezes_nothing(repo: Path) -> None:
    pipeline.lint(Workspace.open(options_from()))
    assert gc.get_freeze_count() == 0
