"""Edge cases of the command line that users hit in CI and pre-commit (found in review)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sample_documents import DOOR, document

from generator.cli import main

ROOT = Path(__file__).resolve().parents[2]
NO_DIAGRAM = "\n# Door\n\n## The Lifecycle\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/door.md").write_text(document(body=NO_DIAGRAM))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    assert main(["build", "-q"]) == 0
    return tmp_path


def test_test_modules_inside_the_output_folder_are_not_stale(repo: Path) -> None:
    assert main(["generate", "-q", "--tests", "generated/tests"]) == 0
    assert main(["generate", "-q"]) == 0
    assert list((repo / "generated/tests").glob("test_*.py"))
    assert main(["generate", "-q", "--check", "--tests", "generated/tests"]) == 0


def test_an_output_folder_that_holds_the_project_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(p.relative_to(repo) for p in repo.rglob("*"))
    assert main(["generate", "-q", "--out", "."]) == 2  # a usage error: overlapping roots
    assert "contains the project root" in capsys.readouterr().err
    assert sorted(p.relative_to(repo) for p in repo.rglob("*")) == before


def test_output_through_a_symlink_writes_the_target(repo: Path) -> None:
    (repo / "real.json").write_text(
        '[{"path": "old.md", "line": 1, "column": 1, "code": "SD001", "message": "m"}]'
    )  # an old report
    (repo / "link.json").symlink_to("real.json")
    assert main(["lint", "--format", "json", "--output", "link.json"]) == 0
    assert (repo / "link.json").is_symlink()
    assert json.loads((repo / "real.json").read_text()) == []


def test_output_to_a_pipe_streams(repo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "generator", "lint", "--format", "json", "--output", "/dev/stdout"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_output_to_a_folder_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "--output", "specs"]) == 2
    assert "is a folder" in capsys.readouterr().err


@pytest.mark.parametrize(("value", "code"), [("xml", 2), ("JSON", 0), ("sarif", 0)])
def test_statedoc_format_from_the_environment(
    repo: Path, monkeypatch: pytest.MonkeyPatch, value: str, code: int
) -> None:
    monkeypatch.setenv("STATEDOC_FORMAT", value)
    assert main(["lint", "-q"]) == code


def test_diagram_write_goes_through_a_symlinked_spec(repo: Path) -> None:
    target = repo / "elsewhere/door.md"
    target.parent.mkdir()
    target.write_text(document(DOOR, NO_DIAGRAM))
    (repo / "specs/door.md").unlink()
    (repo / "specs/door.md").symlink_to(target)
    assert main(["diagram", "-q", "--write"]) == 0
    assert (repo / "specs/door.md").is_symlink()
    assert "```mermaid" in target.read_text()


def test_an_unclosed_diagram_block_is_never_rewritten(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = repo / "specs/door.md"
    text = document(
        DOOR, NO_DIAGRAM + "\n~~~~mermaid\nstateDiagram-v2\n  a --> b\n\n## Notes\nKeep me.\n"
    )
    spec.write_text(text)
    assert main(["diagram", "--write"]) == 1
    out = capsys.readouterr().out  # a lint finding (SD306) blocks the rewrite
    assert "SD306" in out and "never closed" in out
    assert spec.read_text() == text


def test_diagram_check_keeps_a_json_report_parseable(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = repo / "specs/door.md"
    spec.write_text(spec.read_text().replace("  closed --> open\n", ""))
    (repo / "specs/bad.md").write_text(
        document(DOOR.replace("to: closed,", "to: shut,")).replace("DOR-001", "DOR-002")
    )
    capsys.readouterr()
    assert main(["diagram", "--check", "--format", "json"]) == 1
    out, err = capsys.readouterr()
    found = json.loads(out)
    assert {(f["path"], f["code"]) for f in found} == {
        ("specs/bad.md", "SD102"),
        ("specs/door.md", "SD407"),  # the drift is a finding too, not only a diff
    }
    assert "+++ b/specs/door.md" in err


def test_diagram_check_writes_its_output_file_even_when_clean(repo: Path) -> None:
    assert main(["diagram", "-q", "--check", "--format", "junit", "--output", "r.xml"]) == 0
    assert (repo / "r.xml").read_text().startswith("<?xml")


def test_an_excluded_file_named_on_the_command_line_is_skipped(repo: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.statedoc]\nexclude = ["specs/drafts"]\n')
    (repo / "specs/drafts").mkdir()
    (repo / "specs/drafts/wip.md").write_text("not a spec yet")
    assert main(["lint", "specs/drafts/wip.md"]) == 0  # pre-commit passes touched files
    assert main(["lint", "specs/drafts/wip.md", "specs/door.md"]) == 0


def test_command_line_select_overrides_a_configured_ignore(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = repo / "specs/door.md"
    spec.write_text(
        spec.read_text().replace(
            "  - {from: closed", "  - {from: open, to: open, trigger: x}\n  - {from: closed"
        )
    )
    (repo / "pyproject.toml").write_text('[tool.statedoc]\nignore = ["SD111", "SD3"]\n')
    capsys.readouterr()
    assert main(["lint"]) == 0
    assert "SD111" not in capsys.readouterr().out
    assert main(["lint", "--select", "SD111"]) == 0
    assert "SD111" in capsys.readouterr().out


def test_cache_key_covers_the_parsing_libraries() -> None:
    from generator.cache.store import _dependencies

    deps = _dependencies()
    assert "pyyaml-" in deps.lower() and "jsonschema-" in deps and "libyaml=" in deps


def test_ignoring_the_schema_rule_does_not_hide_graph_errors(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = DOOR.replace("trigger: close}", "trigger: close, provenance: guessed}")
    (repo / "specs/door.md").write_text(document(broken.replace("to: closed,", "to: shut,")))
    capsys.readouterr()
    assert main(["lint", "--ignore", "SD010,SD3"]) == 1
    out = capsys.readouterr().out
    assert "SD102" in out and "SD010" not in out
    assert main(["lint", "--select", "SD010"]) == 1
    assert "provenance" in capsys.readouterr().out


def test_a_schema_error_in_a_structural_field_still_stops_the_checks(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "specs/door.md").write_text(document(DOOR.replace("name: open", "name: [open]")))
    capsys.readouterr()
    assert main(["lint", "--ignore", "SD010"]) == 0  # nothing else can be checked safely
    assert main(["lint"]) == 1
