"""``statedoc lint``, ``rules``, ``explain`` and ``schema`` as users run them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sample_documents import DOOR, document

from generator.cli import main

ROOT = Path(__file__).parents[2]
BROKEN = document(
    DOOR.replace("to: closed,", "to: shut,") + "  - {from: open, to: open, trigger: x}\n"
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    specs = tmp_path / "specs" / "example"
    specs.mkdir(parents=True)
    (specs / "door.md").write_text(document())
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path


def lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["lint", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_repo_exits_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lint(capsys)
    assert (code, out) == (0, "")
    assert "1 file checked" in err


def test_errors_exit_1_and_are_sorted(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "specs/example/b.md").write_text(BROKEN)
    (repo / "specs/example/a.md").write_text(BROKEN.replace("DOR-001", "DOR-002"))
    code, out, _ = lint(capsys, "--ignore", "SD204,SD3")
    assert code == 1
    lines = out.splitlines()
    assert lines == [
        "specs/example/a.md:14:22: SD102 transition to 'shut': no such state",
        "specs/example/a.md:16:5: SD111 transition from 'open' to itself (warning)",
        "specs/example/b.md:14:22: SD102 transition to 'shut': no such state",
        "specs/example/b.md:16:5: SD111 transition from 'open' to itself (warning)",
    ]


def test_warnings_alone_exit_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "specs/example/door.md").write_text(
        document(DOOR + "  - {from: open, to: open, trigger: x}\n")
    )
    code, out, _ = lint(capsys, "--ignore", "SD3")
    assert code == 0 and "SD111" in out


def test_select_and_ignore_take_prefixes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "specs/example/door.md").write_text(BROKEN)
    assert "SD111" not in lint(capsys, "--ignore", "SD11")[1]
    code, out, _ = lint(capsys, "--select", "SD111")
    assert code == 0 and [line.split()[1] for line in out.splitlines()] == ["SD111"]
    assert lint(capsys, "--select", "SD1", "--ignore", "SD102,SD3")[0] == 0


def test_unknown_codes_are_usage_errors(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = lint(capsys, "--select", "XX1")
    assert code == 2 and "XX1" in err


def test_config_ignores(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "specs/example/door.md").write_text(BROKEN)
    (repo / "pyproject.toml").write_text(
        '[tool.statedoc]\nignore = ["SD111"]\n[tool.statedoc.per-file-ignores]\n'
        '"specs/example/*.md" = ["SD102"]\n'
    )
    code, out, _ = lint(capsys, "--ignore", "SD3")
    assert (code, out) == (0, "")


def test_unknown_config_key_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "pyproject.toml").write_text('[tool.statedoc]\nspec = "specs"\n')
    code, _, err = lint(capsys)
    assert code == 2 and "unknown key(s) spec" in err


def test_missing_path_and_empty_folder(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint(capsys, "nope.md")[0] == 2
    (repo / "empty").mkdir()
    code, _, err = lint(capsys, "empty")
    assert code == 2 and "no spec documents" in err


def test_inline_ignore_on_the_reported_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = BROKEN.replace("trigger: x}\n", "trigger: x}  # statedoc: ignore[SD111]\n").replace(
        "to: shut, trigger: close}", "to: shut, trigger: close}  # statedoc: ignore[SD102]"
    )
    (repo / "specs/example/door.md").write_text(text)
    code, out, _ = lint(capsys, "--ignore", "SD3")
    assert (code, out) == (0, "")


def test_internal_error_exits_2(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.rules import REGISTRY, all_rules

    all_rules()

    def boom(doc: object) -> list[object]:
        raise ValueError("boom")

    monkeypatch.setitem(REGISTRY, "SD111", REGISTRY["SD111"]._replace(check=boom))
    code, out, _ = lint(capsys)
    assert code == 2 and "SD000" in out


def test_output_file_and_env_format(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "specs/example/door.md").write_text(BROKEN)
    monkeypatch.setenv("STATEDOC_FORMAT", "json")
    code, out, _ = lint(capsys, "--output", "report.json")
    assert code == 1 and out == ""
    data = json.loads((repo / "report.json").read_text())
    assert {d["code"] for d in data} >= {"SD102", "SD111"}


def test_unreadable_and_binary_files(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "specs/example/bin.md").write_bytes(b"\x89PNG\x00\x01 binary \xff\xfe")
    (repo / "specs/example/dir.md").mkdir()  # a folder named like a spec is not a spec
    code, out, _ = lint(capsys)
    assert code == 1
    assert out == "specs/example/bin.md:1:1: SD006 invalid UTF-8 byte(s) 89: invalid start byte\n"


def test_rules_explain_schema(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    listing = capsys.readouterr().out
    assert "SD104  invalid-contradicts-transition" in listing
    assert main(["explain", "sd104"]) == 0
    text = capsys.readouterr().out
    assert "Fails:" in text and "Passes:" in text and "why:" in text.lower()
    assert main(["explain", "SD999"]) == 2
    capsys.readouterr()
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].endswith("2020-12/schema")


def test_lint_of_one_document_stays_lean(tmp_path: Path) -> None:
    """A cold lint imports neither hypothesis nor jinja2 (nor jsonschema for a valid spec)."""
    spec = ROOT / "specs/platform/queries/workspace-export-delivery.md"
    probe = (
        "import sys\n"
        "from generator.cli import main\n"
        f"code = main(['lint', '-q', {str(spec)!r}])\n"
        "heavy = sorted(m for m in ('hypothesis', 'jinja2', 'jsonschema') if m in sys.modules)\n"
        "print(code, heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert out.strip() == "0 []"


def test_a_cold_lint_without_cache_imports_only_what_it_needs(tmp_path: Path) -> None:
    """Start-up: nothing that only writing, rendering or worker processes need.

    Measured as in an installed wheel: without ``site`` (``-S``), with this process's module
    path as plain entries. An editable install's import hook (hatchling's ``dev-mode-exact``
    maps ``generator`` with ``editables``, run from a ``.pth`` at every start) imports
    ``importlib.resources``, ``tempfile`` and ``shutil`` before statedoc runs at all."""
    spec = ROOT / "specs/platform/queries/workspace-export-delivery.md"
    libraries = [entry for entry in sys.path if entry and Path(entry).is_dir()]
    probe = (
        f"import sys; sys.path.extend({libraries!r})\n"
        "from generator.cli import main\n"
        f"code = main(['lint', '-q', '--no-cache', {str(spec)!r}])\n"
        "unneeded = ('multiprocessing', 'tempfile', 'html.entities',\n"
        "            'importlib.resources', 'jinja2', 'hypothesis', 'jsonschema',\n"
        # dataclasses pulls in inspect, ast, dis, tokenize
        "            'dataclasses', 'inspect', 'ast', 'dis', 'tokenize', 'copy',\n"
        "            'zipfile', 'random', 'hashlib',\n"
        "            'subprocess', 'threading', 'concurrent.futures', 'difflib', 'textwrap',\n"
        "            'generator.cache.store', 'generator.lint.fix', 'generator.output',\n"
        "            'generator.diagram.sync', 'generator.diagram.edit', 'generator.diffing',\n"
        "            'generator.render.environment', 'generator.targets.python',\n"
        "            'generator.targets.sql.command', 'generator.testing',\n"
        "            'generator.report.json', 'generator.report.sarif', 'generator.report.junit',\n"
        "            'generator.report.github')\n"
        "unneeded += tuple('generator.cli.commands.' + m for m in\n"
        "                  ('generate', 'diagram', 'build', 'info', 'diff', 'new'))\n"
        "print(code, sorted(m for m in unneeded if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert out.strip() == "0 []"


def test_python_m_generator_is_the_same_program() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "generator", "rules"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0 and "SD001" in proc.stdout


def test_statistics_count_per_code(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "specs/example/b.md").write_text(BROKEN)
    (repo / "specs/example/a.md").write_text(BROKEN.replace("DOR-001", "DOR-002"))
    code, out, _ = lint(capsys, "--format", "json")
    findings = json.loads(out)
    tally: dict[str, int] = {}
    names = {}
    for f in findings:
        tally[f["code"]] = tally.get(f["code"], 0) + 1
        names[f["code"]] = f["name"]
    assert max(tally.values()) > min(tally.values())  # the order below is by count
    expected = sorted(tally.items(), key=lambda item: (-item[1], item[0]))
    width = len(str(expected[0][1])) + 2
    code_text, text, _ = lint(capsys, "--statistics")
    assert code_text == code == 1
    assert text.splitlines() == [f"{n:>{width}}  {c}  {names[c]}" for c, n in expected]
    code_json, data, _ = lint(capsys, "--statistics", "--format", "json")
    assert code_json == 1
    assert json.loads(data) == [{"code": c, "name": names[c], "count": n} for c, n in expected]
    code, _, err = lint(capsys, "--statistics", "--format", "sarif")
    assert code == 2 and "--statistics" in err
