"""Start-up: a run of one command builds only its own parser (the modules a lint imports are
listed, with what they must not import, in test_cli_lint.py)."""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

from generator.cli import build_parser
from generator.cli.commands import COMMANDS, register, target_commands
from generator.cli.parser import _common

ROOT = Path(__file__).resolve().parents[2]
#: Every sub-command -> the module that registers it: the CLI's own, then the targets'.
TABLE = {name: f"generator.cli.commands.{module}" for name, module in COMMANDS.items()}
TABLE |= target_commands()


def _registered(module: str) -> list[str]:
    parser = argparse.ArgumentParser(prog="statedoc")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    register(sub, _common(), module)
    return list(sub.choices)


@pytest.mark.parametrize("module", sorted(set(TABLE.values())))
def test_the_command_table_names_what_each_module_registers(module: str) -> None:
    assert _registered(module) == [name for name, owner in TABLE.items() if owner == module]


def test_the_sql_target_adds_the_db_command() -> None:
    assert target_commands() == {"db": "generator.targets.sql.command"}


def test_the_full_parser_offers_every_command_of_the_table_in_its_order() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(TABLE)


def _outcome(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result: object = sorted(
                (k, v) for k, v in vars(parser.parse_args(argv)).items() if k != "run"
            )
        except SystemExit as exc:
            result = ("exit", exc.code)
    return result, out.getvalue(), err.getvalue()


ARGVS = [
    [name, *extra]
    for name in TABLE
    for extra in (["--help"], ["--no-such-option"], [])
    if not (name == "db" and extra == ["--help"])
] + [
    ["db", "--help"],
    ["db", "check", "--help"],
    ["lint", "-j", "x"],
    ["lint", "--format", "nope"],
    ["lint", "--no-c", "a.md"],
    ["explain", "SD101", "extra"],
    ["generate", "--check", "--diff"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_a_parser_built_for_one_command_reads_it_as_the_full_parser_does(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Help, usage errors, parsed values: the same, byte for byte, either way."""
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    lazy = build_parser(argv[0])
    sub = next(a for a in lazy._actions if isinstance(a, argparse._SubParsersAction))
    assert argv[0] in sub.choices and len(sub.choices) <= 3
    assert _outcome(lazy, argv) == _outcome(build_parser(), argv)


def test_a_run_parses_its_pyproject_once_and_again_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tomllib

    from generator.run.config import load_config_for

    parsed: list[str] = []
    real = tomllib.loads

    def counting(text: str, **kwargs: object) -> dict[str, object]:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(tomllib, "loads", counting)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.statedoc]\nspecs = "specs"\nout = "one"\n', encoding="utf-8")
    (tmp_path / "specs").mkdir()
    assert load_config_for(["specs"], cwd=tmp_path).out == tmp_path / "one"
    assert len(parsed) == 1  # found, then read: one parse
    pyproject.write_text('[tool.statedoc]\nspecs = "specs"\nout = "two"\n', encoding="utf-8")
    assert load_config_for(["specs"], cwd=tmp_path).out == tmp_path / "two"
    assert len(parsed) == 2


def test_the_default_targets_of_the_config_are_the_registry_s() -> None:
    from generator import targets
    from generator.load import config

    assert config.DEFAULT_TARGETS == targets.DEFAULT_TARGETS
    assert config.Config(root=ROOT, specs=(), out=ROOT).targets == targets.DEFAULT_TARGETS
