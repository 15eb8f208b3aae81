"""Every write goes through one plan: the diagram step's in-place edits of specs and
``generate``'s files are planned, diffed and applied by the same layer, with the same rule
that nothing is replaced unless it still holds the bytes the plan (and its diff) showed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from sample_documents import DIAGRAM, document

from generator.cli import main
from generator.output.apply import apply_plan
from generator.output.plan import Output, plan_outputs
from generator.render.environment import header_line
from generator.run import pipeline
from generator.run.workspace import Workspace, options_from

NO_DIAGRAM = "\n# Door\n\n## The Lifecycle\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two specs with distinct ids and titles: ``a_door`` has no diagram (SD301, a warning),
    ``b_door`` a diagram that lacks an edge (SD303, an error)."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.statedoc]\nspecs = "specs"\nout = "generated"\n'
    )
    (tmp_path / "specs").mkdir()
    bodies = {
        "a_door": NO_DIAGRAM,
        "b_door": "\n# Door\n" + DIAGRAM.replace("  open --> closed\n", ""),
    }
    for number, (name, body) in enumerate(bodies.items(), start=1):
        text = document(body=body).replace("DOR-001", f"DOR-00{number}")
        (tmp_path / f"specs/{name}.md").write_text(text.replace("title: Door", f"title: {name}"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path


def _workspace() -> Workspace:
    return Workspace.open(options_from())


def test_a_spec_edited_after_lint_is_not_overwritten_and_is_reported(repo: Path) -> None:
    workspace = _workspace()
    run = pipeline.lint(workspace)
    spec = repo / "specs/a_door.md"
    edited = spec.read_bytes() + b"\nA line the author added while statedoc ran.\n"
    spec.write_bytes(edited)
    outcome = pipeline.sync_diagrams(workspace, run, write=True)
    assert spec.read_bytes() == edited
    assert outcome.written == 1 and "```mermaid" in (repo / "specs/b_door.md").read_text()
    (problem,) = outcome.problems
    finding = problem.finding()
    assert (finding.path, finding.line, finding.code) == ("specs/a_door.md", 1, "SD408")
    assert "the file changed while statedoc ran" in finding.message


def test_a_spec_edited_between_planning_and_applying_is_kept_byte_for_byte(repo: Path) -> None:
    """The plan is checked again at apply time, not only against what lint read."""
    workspace = _workspace()
    outcome = pipeline.sync_diagrams(workspace, pipeline.lint(workspace), write=False)
    assert outcome.changed == ["specs/a_door.md", "specs/b_door.md"]
    spec = repo / "specs/b_door.md"
    edited = spec.read_bytes().replace(b"# Door", b"# Door, renamed by hand")
    spec.write_bytes(edited)
    assert apply_plan(outcome.plan) == (1, 0)
    assert spec.read_bytes() == edited
    assert "```mermaid" in (repo / "specs/a_door.md").read_text()
    (problem,) = outcome.plan.problems
    assert str(problem) == (
        "specs/b_door.md:1:1: diagram not rewritten: the file changed while statedoc ran; "
        "run it again"
    )
    assert problem.finding().code == "SD408"


def test_a_generated_file_edited_between_planning_and_applying_is_kept(tmp_path: Path) -> None:
    """Before, ``apply_plan`` replaced whatever a generated file held by then: an edit made
    after the ``--check`` diff was computed was lost without a word."""
    out = tmp_path / "generated"
    out.mkdir()
    header = header_line("#", "specs/door.md") + "\n"
    module = out / "door.py"
    module.write_text(header + "OLD = 1\n")
    plan = plan_outputs(
        [Output("door.py", (header + "NEW = 2\n").encode(), "specs/door.md")],
        out,
        prune=False,
        root=tmp_path,
    )
    assert [change.action for change in plan.changes] == ["update"]
    edited = (header + "OLD = 1\nEDITED = 3\n").encode()
    module.write_bytes(edited)
    assert apply_plan(plan) == (0, 0)
    assert module.read_bytes() == edited
    (problem,) = plan.problems
    assert problem.code == "SD408" and "changed while generating" in problem.message


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(root).parts)
    }


@pytest.mark.parametrize(
    ("check", "write", "code"),
    [
        (["diagram", "--check"], ["diagram", "--write"], 0),
        (["generate", "--check"], ["generate"], 1),  # b_door is skipped for SD303 by both
        (["check"], ["build"], 0),
    ],
)
def test_a_check_diff_is_the_patch_the_write_makes(
    repo: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    check: list[str],
    write: list[str],
    code: int,
) -> None:
    """Every ``--check`` diff, applied with ``git apply``, gives byte for byte what the
    writing command writes: diagrams in specs and generated files share one diff format, and
    ``check`` diffs generated files against the documents as ``build`` redraws them (before,
    it compared them with the unredrawn documents: a drifted document was skipped and a
    missing diagram left the spec's SHA-256 behind)."""
    twin = tmp_path_factory.mktemp("twin") / "repo"
    shutil.copytree(repo, twin)
    capsys.readouterr()
    assert main([*check, "-q", "--format", "json"]) == 1
    out, patch = capsys.readouterr()
    assert json.loads(out) and patch.startswith("--- ")
    assert main([*write, "-q"]) == code
    applied = subprocess.run(
        ["git", "apply", "--unidiff-zero", "-"],
        cwd=twin,
        input=patch,
        text=True,
        capture_output=True,
        check=False,
    )
    assert applied.returncode == 0, applied.stderr
    assert _snapshot(twin) == _snapshot(repo)
