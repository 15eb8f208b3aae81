"""Output roots never overlap: cleanup in one root must not touch another root's files."""

from __future__ import annotations

from pathlib import Path

import pytest
from targets.test_generate_support import run_cli, tree


def test_an_out_nested_in_the_configured_out_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reported data loss: ``--out generated/platform`` read the outer tree's
    ``platform/queries/__init__.py`` as a stale ``<area>/__init__.py`` of its own and
    deleted it."""
    assert run_cli(capsys, "generate")[0] == 0
    before = tree(repo / "generated")
    assert "platform/queries/__init__.py" in before
    code, out, err = run_cli(capsys, "generate", "--out", "generated/platform")
    assert (code, out) == (2, "")
    assert "--out generated/platform overlaps the configured output folder generated" in err
    assert tree(repo / "generated") == before  # nothing deleted, nothing added
    code, _, err = run_cli(capsys, "generate", "--check", "--out", "generated/platform")
    assert code == 2 and "overlaps the configured output folder" in err


def test_an_out_holding_the_configured_out_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "pyproject.toml").write_text('[tool.statedoc]\nout = "build/generated"\n')
    assert run_cli(capsys, "generate")[0] == 0
    before = tree(repo / "build")
    code, _, err = run_cli(capsys, "generate", "--out", "build")
    assert code == 2
    assert "--out build overlaps the configured output folder build/generated" in err
    assert tree(repo / "build") == before


@pytest.mark.parametrize("command", [["generate"], ["build"], ["check"]])
@pytest.mark.parametrize("out", ["specs/generated", "specs"])
def test_an_out_overlapping_the_specs_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str], command: list[str], out: str
) -> None:
    (repo / "pyproject.toml").write_text(f'[tool.statedoc]\nout = "{out}"\n')
    before = tree(repo / "specs")
    code, _, err = run_cli(capsys, *command)
    assert code == 2
    assert f"the output folder {out} overlaps the specs folder specs" in err
    assert tree(repo / "specs") == before  # build wrote no diagram before refusing


def test_exit_zero_never_hides_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, "generate")[0] == 0
    code, _, _ = run_cli(capsys, "generate", "--exit-zero", "--out", "generated/platform")
    assert code == 2


def test_test_modules_deep_inside_the_output_folder_are_refused(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``generated/platform/tests/test_x.py`` sits where a generated module would: a later
    ``generate`` would delete it as stale. Refused up front; one level deep stays allowed."""
    code, _, err = run_cli(capsys, "generate", "--tests", "generated/platform/tests")
    assert code == 2 and "2 folders deep in the output folder generated" in err
    assert not (repo / "generated").exists()
    assert run_cli(capsys, "generate", "--tests", "generated/tests")[0] == 0
    modules = sorted(p.name for p in (repo / "generated/tests").iterdir())
    assert len(modules) == 2
    assert run_cli(capsys, "generate")[0] == 0
    assert sorted(p.name for p in (repo / "generated/tests").iterdir()) == modules
