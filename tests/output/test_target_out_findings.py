"""Configured folders that cannot be used are findings at their key in pyproject.toml
(SD410-SD414), in every command that generates; an unsafe one (SD410-SD413) stops the run
before anything is written."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from targets.test_generate_support import make_project, run_cli, tree

from generator.run.locate import key_span

HEAD = '[tool.statedoc]\nspecs = "specs"\nout = "generated"\ntargets = ["python", "typescript"]\n'


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path


def _findings(
    capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[dict[str, object]]]:
    code, out, _ = run_cli(capsys, *args, "--format", "json")
    return code, [f for f in json.loads(out) if str(f["code"]).startswith("SD41")]


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


CASES = {
    "nested": ('[tool.statedoc.typescript]\nout = "generated/ts"\n', "SD411",
               'out = "generated/ts"'),
    "nested-outer": ('[tool.statedoc.typescript]\nout = "."\n', "SD412", 'out = "."'),
    "in-specs": ('[tool.statedoc.typescript]\nout = "specs/ts"\n', "SD412", 'out = "specs/ts"'),
    "holds-specs": ('[tool.statedoc.python]\nout = "lifecycle"\n[tool.statedoc.typescript]\n'
                    'out = "lifecycle/x"\n', "SD411", 'out = "lifecycle/x"'),
    "not-a-string": ('[tool.statedoc.typescript]\nout = ["web"]\n', "SD410", 'out = ["web"]'),
    "empty": ("[tool.statedoc.typescript]\ntests = ''\n", "SD410", "tests = ''"),
    "too-deep": ('[tool.statedoc.python]\ntests = "generated/platform/tests"\n', "SD413",
                 'tests = "generated/platform/tests"'),
    "core-too-deep": ('tests = "generated/a/b"\n', "SD413", 'tests = "generated/a/b"'),
}  # fmt: skip


@pytest.mark.parametrize("command", ["build", "check", "generate"])
@pytest.mark.parametrize("case", list(CASES))
def test_an_unsafe_folder_is_a_located_finding_and_nothing_is_written(
    repo: Path, capsys: pytest.CaptureFixture[str], case: str, command: str
) -> None:
    extra, code, needle = CASES[case]
    text = HEAD + extra
    if extra.startswith("tests"):  # a key of [tool.statedoc] itself
        text = HEAD.replace("[tool.statedoc]\n", "[tool.statedoc]\n" + extra)
    (repo / "pyproject.toml").write_text(text)
    before = tree(repo)
    exit_code, found = _findings(capsys, command)
    assert exit_code == 1
    assert [f["code"] for f in found] == [code], found
    assert found[0]["path"] == "pyproject.toml"
    assert found[0]["line"] == _line_of(text, needle)
    after = tree(repo)
    # Nothing generated; only statedoc's own caches may have appeared.
    assert {p: d for p, d in after.items() if not p.startswith(".")} == {
        p: d for p, d in before.items() if not p.startswith(".")
    }


def test_a_tests_folder_for_a_target_without_tests_is_reported(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = HEAD + '[tool.statedoc.mermaid]\ntests = "diagram_tests"\n'
    (repo / "pyproject.toml").write_text(text)
    code, found = _findings(capsys, "build")
    assert code == 1
    assert [(f["code"], f["line"]) for f in found] == [("SD414", _line_of(text, "diagram_tests"))]
    assert (repo / "generated").is_dir()  # reported, not blocking: the rest is generated
    assert not (repo / "diagram_tests").exists()


def test_a_target_without_settings_refuses_other_keys(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "pyproject.toml").write_text(HEAD + '[tool.statedoc.typescript]\nouts = "web"\n')
    code, _, err = run_cli(capsys, "lint")
    assert code == 2
    assert "unknown key(s) outs (did you mean 'out'?); known: out, tests" in err


def test_the_sql_target_reads_its_table_without_the_folder_keys(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "pyproject.toml").write_text(
        HEAD.replace('"typescript"]', '"sql"]') + '[tool.statedoc.sql]\nout = "db"\nschema = "lc"\n'
    )
    assert run_cli(capsys, "build")[0] == 0
    written = tree(repo / "db")
    assert written and all(b'"lc".' in data for data in written.values())
    (repo / "pyproject.toml").write_text(HEAD + '[tool.statedoc.sql]\nout = "db"\nschem = "x"\n')
    code, _, err = run_cli(capsys, "check")
    assert code == 2 and "unknown key(s) schem" in err


# --- where a key is written ---------------------------------------------------------------

_BARE = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)


@given(
    table=_BARE,
    key=_BARE,
    style=st.sampled_from(["table", "dotted", "inline", "quoted", "nested"]),
    before=st.lists(st.tuples(_BARE, _BARE), max_size=3),
)
def test_key_span_finds_the_line_tomllib_reads_the_value_from(
    tmp_path_factory: pytest.TempPathFactory,
    table: str,
    key: str,
    style: str,
    before: list[tuple[str, str]],
) -> None:
    """Whatever the TOML style, the line found is the one whose removal loses the value."""
    noise = "".join(f'{a} = "{b}"\n' for a, b in before if a not in (table, key))
    if style == "table":
        text = f'[tool.statedoc]\n{noise}\n[tool.statedoc.{table}]\n{noise}{key} = "v"\n'
    elif style == "quoted":
        text = f'[tool.statedoc]\n{noise}[ tool . statedoc . "{table}" ]\n\'{key}\' = "v"\n'
    elif style == "dotted":
        text = f'[tool.statedoc]\n{noise}{table}.{key} = "v"\n'
    elif style == "inline":
        text = f'[tool.statedoc]\n{noise}{table} = {{ other = 1, {key} = "v" }}\n'
    else:
        text = f'[tool]\n{noise}statedoc.{table} = {{ {key} = "v" }}\n'
    try:
        value = tomllib.loads(text)["tool"]["statedoc"].get(table)
    except tomllib.TOMLDecodeError:
        value = None  # noise that clashes with the table: not a document
    assume(isinstance(value, dict) and value.get(key) == "v")
    path = tmp_path_factory.mktemp("toml") / "pyproject.toml"
    path.write_text(text)
    line, column, end_line, _ = key_span(path, ("tool", "statedoc", table), key)
    lines = text.splitlines()
    assert end_line == line
    without = "\n".join(lines[: line - 1] + lines[line:]) + "\n"
    try:
        lost = tomllib.loads(without)["tool"]["statedoc"].get(table, {}).get(key) != "v"
    except (tomllib.TOMLDecodeError, KeyError, AttributeError):
        lost = True
    assert lost, (text, line)
    assert key in lines[line - 1][column - 1 :]
