"""Generated code passes ``ruff check`` and ``mypy --strict``, and its types are usable.

Run on a tree generated in tmp from the seeds plus the hostile specs, and on the committed
``generated/``. ruff runs twice: with this project's configuration (which selects E, N, PL,
RUF, ... and line-length 100) and with ruff's own defaults (``--isolated``: what a user's
project without configuration sees; its RUF100 flags any suppression that is not needed).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from generator.cli import main
from targets.test_generate_support import ROOT, hostile_project


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = hostile_project(tmp_path_factory.mktemp("quality"))
    mp = pytest.MonkeyPatch()
    mp.chdir(root)
    try:
        assert main(["generate", "-q"]) == 0
    finally:
        mp.undo()
    return root


def ruff(cwd: Path, *args: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "json", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    found: list[dict[str, object]] = json.loads(done.stdout)
    return found


def mypy(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--python-version",
            "3.11",
            "--no-error-summary",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def brief(findings: list[dict[str, object]]) -> list[str]:
    return [f"{f['filename']}:{f['location']}: {f['code']} {f['message']}" for f in findings]


def header_line_too_long(finding: dict[str, object]) -> bool:
    """E501 on line 1: the header must hold the spec's whole path (the contract), so it can be
    longer than the line length. pyproject.toml should ignore E501 for ``generated/**``."""
    location = finding["location"]
    return finding["code"] == "E501" and isinstance(location, dict) and location["row"] == 1


def test_hostile_tree_has_what_the_checks_need(project: Path) -> None:
    out = project / "generated"
    names = {p.name for p in out.rglob("*.py")}
    assert {"x.py", "class_.py", "état_du_système.py", "hostile_title_x.py"} <= names
    source = (out / "testing/names/x.py").read_text(encoding="utf-8")
    assert "State = StrEnum(" in source  # the functional form (non-ASCII, long names)
    assert "class State(StrEnum):" in (out / "testing/cycle/cycle.py").read_text(encoding="utf-8")


def test_ruff_with_the_project_config(project: Path) -> None:
    findings = ruff(project, "--config", str(ROOT / "pyproject.toml"), "generated")
    assert brief([f for f in findings if not header_line_too_long(f)]) == []
    long_paths = {"provisioning_attempt.py"}  # specs/platform/tenant-lifecycle/... is long
    assert {Path(str(f["filename"])).name for f in findings} <= long_paths


def test_ruff_with_default_rules(project: Path) -> None:
    assert brief(ruff(project, "--isolated", "generated")) == []


def ruff_format_check(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--no-cache", "--check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("config", ["project", "isolated"])
def test_ruff_format_leaves_generated_files_alone(project: Path, config: str) -> None:
    args = ["--config", str(ROOT / "pyproject.toml")] if config == "project" else ["--isolated"]
    done = ruff_format_check(project, *args, "generated")
    assert done.returncode == 0, done.stdout + done.stderr
    done = ruff_format_check(ROOT, *args, "generated")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict(project: Path) -> None:
    done = mypy(project, "generated")
    assert done.returncode == 0, done.stdout + done.stderr


CLIENT = """\
from collections.abc import Mapping
from typing import Any

from generated.platform.queries import workspace_export_delivery as wed


def guard(context: Mapping[str, Any]) -> bool:
    return bool(context.get("locked"))


def listen(transition: wed.Transition, context: Mapping[str, Any]) -> None:
    print(transition.trigger, transition.side_effects, dict(context))


def use() -> wed.State:
    taken: wed.Transition = wed.check(wed.State.PENDING, "delivering")
    machine: wed.Machine = wed.WorkspaceExportDelivery(
        "failed", guards={("failed", wed.State.DELIVERING): guard}, listeners=[listen]
    )
    allowed: bool = machine.can("delivering") and wed.can_transition("failed", "expired")
    nexts: frozenset[wed.State] = wed.targets(machine.state) | wed.sources("expired")
    why: str = wed.INVALID[(wed.State.DELIVERED, wed.State.DELIVERING)]
    try:
        machine.transition(wed.State.DELIVERING, locked=allowed)
    except wed.ForbiddenTransition as error:
        why = error.why
    except wed.TransitionError as error:
        print(error.from_state, error.to_state, nexts, why)
    first: wed.State = next(iter(wed.INITIAL | wed.TERMINAL))
    return taken.to_state if machine.is_terminal else first
"""


def test_the_api_types_check_in_user_code(project: Path) -> None:
    (project / "client_ok.py").write_text(CLIENT, encoding="utf-8")
    done = mypy(project, "client_ok.py")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("wed.check(1, 2)", "arg-type"),
        ("x: int = wed.check('pending', 'delivering').to_state", "assignment"),
        ("wed.Machine().transition('delivering').nope", "attr-defined"),
        ("wed.Machine(guards={('pending', 'delivering'): lambda c, d: True})", "dict-item"),
        ("wed.TRANSITIONS[(wed.State.PENDING, wed.State.DELIVERING)] = None", "index"),
        ("y: str = wed.SPEC_REVISION", "assignment"),
    ],
)
def test_the_api_types_catch_mistakes(project: Path, line: str, error: str) -> None:
    client = project / f"client_bad_{abs(hash(line))}.py"
    client.write_text(
        "from generated.platform.queries import workspace_export_delivery as wed\n\n"
        + textwrap.dedent(line)
        + "\n",
        encoding="utf-8",
    )
    done = mypy(project, client.name)
    assert done.returncode == 1 and f"[{error}]" in done.stdout, done.stdout


def test_committed_tree_with_the_project_config() -> None:
    findings = ruff(ROOT, "generated")
    assert brief([f for f in findings if not header_line_too_long(f)]) == []
    assert brief(ruff(ROOT, "--isolated", "generated")) == []


def test_committed_tree_mypy_strict() -> None:
    done = mypy(ROOT, "generated")
    assert done.returncode == 0, done.stdout + done.stderr
