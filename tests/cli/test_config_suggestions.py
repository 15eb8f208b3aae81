"""An unknown configuration key is a usage error (exit 2) that lists the known keys and, as
for an undeclared state name, says which one was probably meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.cli import main


@pytest.fixture
def repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    Path("pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n', encoding="utf-8")
    assert main(["new", "specs/platform/queries/ok.md"]) == 0
    capsys.readouterr()
    return tmp_path


def error(capsys: pytest.CaptureFixture[str], config: str) -> str:
    """The one error line ``statedoc lint`` prints for ``config`` (it must exit 2)."""
    Path("pyproject.toml").write_text(config, encoding="utf-8")
    capsys.readouterr()
    assert main(["lint"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("config", "typo", "meant"),
    [
        ('[tool.statedoc]\nspec = "specs"\n', "spec", "specs"),
        ("[tool.statedoc]\nper_file_ignores = {}\n", "per_file_ignores", "per-file-ignores"),
        ("[tool.statedoc]\nmax_file_size = 10\n", "max_file_size", "max-file-size"),
        ('[tool.statedoc]\nIgnore = ["SD111"]\n', "Ignore", "ignore"),
        ('[tool.statedoc.sql]\nschem = "app"\n', "schem", "schema"),
        (
            "[tool.statedoc.sql]\ninsert-must-be-initial = false\n",
            "insert-must-be-initial",
            "insert_must_be_initial",
        ),
        (
            '[tool.statedoc.sql.bindings]\n"STATE-X" = {table = "t", colum = "c"}\n',
            "colum",
            "column",
        ),
    ],
)
def test_a_typo_gets_a_did_you_mean(
    repo: Path, capsys: pytest.CaptureFixture[str], config: str, typo: str, meant: str
) -> None:
    err = error(capsys, config)
    assert f"unknown key(s) {typo} (did you mean {meant!r}?)" in err
    assert "; known: " in err and meant in err.split("; known: ", 1)[1]


def test_each_unknown_key_gets_its_own_suggestion_or_none(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = error(capsys, '[tool.statedoc]\nzzz = 1\nexlude = []\nspecs = "specs"\n')
    assert "unknown key(s) exlude (did you mean 'exclude'?), zzz; known: " in err


def test_a_binding_without_its_column_still_says_what_it_needs(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = error(capsys, '[tool.statedoc.sql.bindings]\n"STATE-X" = {table = "t"}\n')
    assert "bindings.STATE-X must be {table = ..., column = ..., schema = ...?}" in err
