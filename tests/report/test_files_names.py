"""Hostile file names in every report format: a name that is not UTF-8 (kept by Python as
surrogateescape) or holds a line break is rendered safely, never a UnicodeEncodeError."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote_to_bytes
from xml.etree import ElementTree as ET

import pytest
from sample_documents import DOOR, document

from generator.report import FORMATS

BROKEN = DOOR.replace("to: closed,", "to: shut,")
BAD = b"specs/bad\xffname.md"
NEWLINE = b"specs/new\nline.md"
FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("names")
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (root / "specs").mkdir()
    for index, name in enumerate((BAD, NEWLINE)):
        text = document(BROKEN).replace("DOR-001", f"DOR-00{index + 1}")
        with open(os.path.join(os.fsencode(root), name), "w", encoding="utf-8") as handle:
            handle.write(text)
    return root


def _report(root: Path, fmt: str, *, output: bool) -> str:
    """The report as bytes decoded strictly: it must be valid UTF-8 on stdout and on disk."""
    target = root / f"report.{fmt}"
    target.unlink(missing_ok=True)
    extra = ["--output", str(target)] if output else []
    proc = subprocess.run(
        [sys.executable, "-m", "generator", "lint", "--no-cache", "--format", fmt, *extra],
        cwd=root,
        capture_output=True,
        check=False,
        timeout=300,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert proc.returncode == 1, proc.stderr.decode("utf-8", "replace")
    data = target.read_bytes() if output else proc.stdout
    return data.decode("utf-8")


@pytest.mark.parametrize("output", [False, True], ids=["stdout", "output"])
def test_text_escapes_bytes_and_line_breaks(repo: Path, output: bool) -> None:
    lines = _report(repo, "text", output=output).splitlines()
    assert lines and all(line.startswith("specs/") for line in lines)
    assert any(line.startswith("specs/bad\\xffname.md:") for line in lines)
    assert any(line.startswith("specs/new\\nline.md:") for line in lines)


@pytest.mark.parametrize("output", [False, True], ids=["stdout", "output"])
def test_json_round_trips_the_names(repo: Path, output: bool) -> None:
    findings = json.loads(_report(repo, "json", output=output))
    assert {os.fsencode(f["path"]) for f in findings} == {BAD, NEWLINE}


@pytest.mark.parametrize("output", [False, True], ids=["stdout", "output"])
def test_github_escapes_the_file_property(repo: Path, output: bool) -> None:
    lines = _report(repo, "github", output=output).splitlines()
    assert lines and all(line.startswith("::error file=specs/") for line in lines)
    files = {line.split(",", 1)[0] for line in lines}
    assert files == {"::error file=specs/bad\\xffname.md", "::error file=specs/new\\nline.md"}


@pytest.mark.parametrize("output", [False, True], ids=["stdout", "output"])
def test_sarif_percent_encodes_the_uri(repo: Path, output: bool) -> None:
    from jsonschema import validators

    log = json.loads(_report(repo, "sarif", output=output))
    schema = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    assert list(validators.validator_for(schema)(schema).iter_errors(log)) == []
    run = log["runs"][0]
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    }
    assert uris == {"specs/bad%FFname.md", "specs/new%0Aline.md"}
    assert {unquote_to_bytes(uri) for uri in uris} == {BAD, NEWLINE}
    assert {a["location"]["uri"] for a in run["artifacts"]} == uris


@pytest.mark.parametrize("output", [False, True], ids=["stdout", "output"])
def test_junit_names_the_byte(repo: Path, output: bool) -> None:
    suites = ET.fromstring(_report(repo, "junit", output=output))
    names = {case.get("name") for case in suites.iter("testcase")}
    assert names == {"specs/bad\\xffname.md", "specs/new\nline.md"}


def test_every_format_is_covered() -> None:
    assert set(FORMATS) == {"text", "json", "github", "sarif", "junit"}
