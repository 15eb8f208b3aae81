"""One version, everywhere: the package, ``statedoc --version``, the changelog and every ref
the README and the pre-commit manifest tell a user to pin."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

from generator import __version__
from generator.cli import main

ROOT = Path(__file__).resolve().parents[2]
SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")


def test_the_version_is_semver() -> None:
    assert SEMVER.fullmatch(__version__), __version__


def test_the_installed_metadata_reads_the_single_source() -> None:
    assert importlib.metadata.version("statedoc") == __version__


def test_version_flag_prints_name_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"statedoc {__version__}\n"
    proc = subprocess.run(
        [sys.executable, "-m", "generator", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout == f"statedoc {__version__}\n"


def pinned_refs(text: str) -> list[str]:
    """Every version a user is told to pin: pre-commit ``rev:`` and the action's ``@ref``."""
    revs = re.findall(r"^\s*#?\s*rev:\s*(\S+)", text, re.M)
    uses = re.findall(r"statedoc/statedoc@([\w.+-]+)", text)
    return revs + uses


def test_readme_pins_the_current_version() -> None:
    refs = pinned_refs((ROOT / "README.md").read_text())
    assert len(refs) >= 3  # pre-commit rev and the two action steps
    assert set(refs) == {f"v{__version__}"}


def test_pre_commit_manifest_pins_the_current_version() -> None:
    refs = pinned_refs((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert refs and set(refs) == {f"v{__version__}"}


def test_action_pins_the_current_version() -> None:
    refs = pinned_refs((ROOT / "action.yml").read_text())
    assert refs and set(refs) == {f"v{__version__}"}


def test_pinned_refs_finds_a_stale_ref() -> None:
    text = "    rev: v0.0.9\n      - uses: statedoc/statedoc@v0.0.9\n"
    assert pinned_refs(text) == ["v0.0.9", "v0.0.9"]


def changelog_versions(text: str) -> list[str]:
    return re.findall(r"^## \[(\d+\.\d+\.\d+)\]", text, re.M)


def test_changelog_has_a_section_for_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    versions = changelog_versions(text)
    assert versions, "CHANGELOG.md has no `## [X.Y.Z]` section"
    assert versions[0] == __version__, "the newest CHANGELOG section is not the package version"
    assert "Semantic Versioning" in text and "vX.Y.Z" in text  # the policy and the tag scheme


def test_sdist_ships_the_changelog() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "CHANGELOG.md" in config["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
