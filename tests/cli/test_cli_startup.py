"""Start-up: a run of one command builds only its own parser, and the lint path does no regex
compilation or record-class work at import (the modules it needs are listed, with what they
must not import, in test_cli_lint.py)."""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli import build_parser
from generator.cli.commands import COMMANDS, register
from generator.cli.main import plain_lint
from generator.cli.parser import _columns, _common, _Parser

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs/platform/queries/workspace-export-delivery.md"


def _registered(module: str) -> list[str]:
    parser = _Parser(prog="statedoc")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    register(sub, _common(), module)
    return list(sub.choices)


@pytest.mark.parametrize("module", sorted(set(COMMANDS.values())))
def test_the_command_table_names_what_each_module_registers(module: str) -> None:
    assert _registered(module) == [name for name, owner in COMMANDS.items() if owner == module]


def test_the_full_parser_offers_every_command_of_the_table_in_its_order() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)


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
    for name in COMMANDS
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


@pytest.mark.parametrize(
    "env",
    [{}, {"COLUMNS": "57"}, {"COLUMNS": "57", "LINES": "10"}, {"COLUMNS": "x"}, {"LINES": "5"}],
)
def test_help_width_is_what_shutil_would_say(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _columns() == shutil.get_terminal_size().columns


def test_the_lint_path_compiles_no_regex_and_no_record_at_import() -> None:
    """Importing every module a one-document lint imports compiles no regular expression and
    no record ``__init__`` but ``Rule``'s (each rule module registers its rules when imported):
    ``generator.patterns.lazy`` and records compile on first use. The lint still works after."""
    probe = (
        "import re, sys\n"
        "compiled = []\n"
        "original = re.compile\n"
        "def spy(pattern, flags=0):\n"
        "    caller = sys._getframe(1)\n"
        "    if caller.f_code.co_name == '<module>' and "
        "caller.f_globals.get('__name__', '').startswith('generator'):\n"
        "        compiled.append((caller.f_globals['__name__'], pattern))\n"
        "    return original(pattern, flags)\n"
        "re.compile = spy\n"
        "from generator import _records\n"
        "made = []\n"
        "real_make = _records._make_init\n"
        "def make(cls, *args):\n"
        "    made.append(cls.__qualname__)\n"
        "    return real_make(cls, *args)\n"
        "_records._make_init = make\n"
        "modules = [line.strip() for line in sys.stdin if line.strip()]\n"
        "import importlib\n"
        "for name in modules:\n"
        "    importlib.import_module(name)\n"
        "print(len(modules), compiled, made)\n"
        "from generator.cli import main\n"
        f"print(main(['lint', '-q', '--no-cache', {str(SPEC)!r}]), bool(made))\n"
    )
    lint_modules = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom generator.cli import main\n"
            f"main(['lint', '-q', '--no-cache', {str(SPEC)!r}])\n"
            "print('\\n'.join(m for m in sys.modules if m.startswith('generator')))\n",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert "generator.lint.files" in lint_modules and "generator.rules.diagram" in lint_modules
    out = subprocess.run(
        [sys.executable, "-c", probe],
        input=lint_modules,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout.splitlines()
    count = len([m for m in lint_modules.splitlines() if m.strip()])
    assert out == [f"{count} [] ['Rule']", "0 True"]


def test_a_run_parses_its_pyproject_once_and_again_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tomllib

    from generator.config import load_config_for

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
    from generator import config, targets

    assert config.DEFAULT_TARGETS == targets.DEFAULT_TARGETS
    assert config.Config(root=ROOT, specs=(), out=ROOT).targets == targets.DEFAULT_TARGETS


#: Switches, paths and what must go to argparse: values, stdin, ``--``, abbreviations.
_TOKENS = ["-q", "--quiet", "--no-cache", "--exit-zero", "--fix", "--diff", "--statistics"]
_TOKENS += ["a.md", "docs/", "", "-", "--", "--no-c", "-j", "2", "--format"]


@pytest.mark.parametrize("env_format", [None, "JSON", "nope"])
def test_a_plain_lint_is_read_as_argparse_reads_it(
    env_format: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every argv of up to three of the tokens: the argparse-free reading, where it answers,
    is argparse's namespace, attribute for attribute (a new lint option breaks the first)."""
    if env_format is None:
        monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    else:
        monkeypatch.setenv("STATEDOC_FORMAT", env_format)
    parser = build_parser("lint")
    answered = 0
    for size in range(4):
        for rest in itertools.product(_TOKENS, repeat=size):
            argv = ["lint", *rest]
            fast = plain_lint(argv)
            if fast is not None:
                answered += 1
                assert vars(fast) == vars(parser.parse_args(argv)), argv
    assert answered > 1000
    assert plain_lint(["lint", "-q", "--no-cache", "one.md"]) is not None
    for other in (["lint", "a.md", "-q", "b.md"], ["lint", "-"], ["generate"], []):
        assert plain_lint(other) is None


def test_a_plain_lint_imports_no_argparse() -> None:
    probe = (
        "import sys\n"
        "from generator.cli import main\n"
        f"code = main(['lint', '-q', '--no-cache', {str(SPEC)!r}])\n"
        "print(code, [m for m in ('argparse', 'gettext', 'locale') if m in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert out.strip() == "0 []"
