"""The SQL target's own findings (SD121, SD122: raised while generating, not by lint) are
silenced exactly as lint's are: ``[tool.statedoc] ignore``/``select``, ``per-file-ignores``,
``--ignore``/``--select`` and an inline ``# statedoc: ignore[...]``. Only the SD4xx output
codes are exempt from selection."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.cli import main

A = "specs/platform/queries/a.md"
B = "specs/platform/queries/b.md"
COMMANDS = (["build"], ["check"], ["generate"], ["generate", "--check"])


def configure(extra: str = "") -> None:
    Path("pyproject.toml").write_text(
        '[tool.statedoc]\nspecs = "specs"\ntargets = ["python", "sql"]\n' + extra,
        encoding="utf-8",
    )


@pytest.fixture
def repo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """Two lint-clean specs without a table binding: each gets SD122 from the SQL target."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    configure()
    assert main(["new", A]) == 0 and main(["new", B]) == 0
    capsys.readouterr()
    return tmp_path


def reported(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, tuple[int, list[str]]]:
    """For each command: its exit code and the ``path CODE`` of each SD12x finding."""
    found = {}
    for command in COMMANDS:
        capsys.readouterr()
        code = main([*command, *args])
        out, _ = capsys.readouterr()
        codes = [
            f"{line.split(':', 1)[0]} {line.split()[1]}"
            for line in out.splitlines()
            if " SD12" in line
        ]
        found[" ".join(command)] = (code, codes)
    return found


def every(code: int, codes: list[str]) -> dict[str, tuple[int, list[str]]]:
    return {" ".join(command): (code, codes) for command in COMMANDS}


def test_sd122_is_reported_by_default(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert reported(capsys) == every(0, [f"{A} SD122", f"{B} SD122"])


@pytest.mark.parametrize("setting", ['ignore = ["SD122"]', 'ignore = ["SD12"]', 'select = ["SD2"]'])
def test_the_configured_selection_silences_it(
    repo: Path, capsys: pytest.CaptureFixture[str], setting: str
) -> None:
    configure(setting + "\n")
    assert reported(capsys) == every(0, [])


@pytest.mark.parametrize(
    "args", [["--ignore", "SD122"], ["--ignore", "SD1"], ["--select", "SD3,SD4"]]
)
def test_the_command_line_selection_silences_it(
    repo: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    assert reported(capsys, *args) == every(0, [])


def test_select_on_the_command_line_brings_back_what_the_config_ignores(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure('ignore = ["SD122"]\n')
    assert reported(capsys, "--select", "SD122") == every(0, [f"{A} SD122", f"{B} SD122"])


def test_per_file_ignores_silence_it_for_their_files_only(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure('[tool.statedoc.per-file-ignores]\n"specs/*/queries/a.md" = ["SD122"]\n')
    assert reported(capsys) == every(0, [f"{B} SD122"])


def test_an_inline_ignore_on_the_reported_line_silences_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = Path(A)
    lines = spec.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if line.startswith("id:"))  # where SD122 points
    lines[at] = lines[at].rstrip("\n") + "  # statedoc: ignore[SD122]\n"
    spec.write_text("".join(lines), encoding="utf-8")
    assert reported(capsys) == every(0, [f"{B} SD122"])


def test_an_ignored_sd121_error_no_longer_fails_the_run(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both specs bound to one column: SD121 (an error) for the second, until ignored."""
    bindings = (
        "[tool.statedoc.sql.bindings]\n"
        '"STATE-PLT-QRS-001" = {table = "jobs", column = "status"}\n'
        '"STATE-PLT-QRS-002" = {table = "jobs", column = "status"}\n'
    )
    configure(bindings)
    found = reported(capsys)
    assert {command: codes for command, (_, codes) in found.items()} == {
        command: [f"{B} SD121"] for command in found
    }
    assert {code for code, _ in found.values()} == {1}
    configure('ignore = ["SD121"]\n' + bindings)
    assert reported(capsys) == every(0, [])
