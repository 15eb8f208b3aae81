"""``lint --fix`` / ``--diff`` / ``lint -`` with ``--stdin-filename``, on real files and repos."""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from sample_documents import DIAGRAM, DOOR, document

from generator.cli import main
from generator.cli.commands import lint as lint_command
from generator.cli.commands.lint import fix as lintfix
from generator.cli.commands.lint.fix import relint
from generator.cli.running import lint_specs
from generator.core.files import unified_diff
from generator.lint.files import LintRun
from generator.load.discover import SpecFile
from generator.output import apply as output_apply
from generator.output.apply import apply_plan
from generator.output.plan import Plan

NAME = "specs/example/door.md"
#: The diagram has lost the edge closed -> open: SD303, which --fix redraws.
DRIFTED = document(DOOR, body="\n# Door\n" + DIAGRAM.replace("  closed --> open\n", ""))
#: ... and a transition to an unknown state (SD102), which no fix can repair.
BLOCKED = DRIFTED.replace("to: closed, trigger: close}", "to: shut, trigger: close}")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / "specs/example").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (root / NAME).write_text(DRIFTED)
    monkeypatch.chdir(root)
    for var in ("STATEDOC_FORMAT", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)
    return root


def lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["lint", *args])
    out, err = capsys.readouterr()
    return code, out, err


def diagram_write(root: Path, capsys: pytest.CaptureFixture[str]) -> bytes:
    """What ``diagram --write`` makes of the document, on a copy (the expected fix)."""
    copy = root.parent / "copy"
    shutil.copytree(root, copy)
    cwd = Path.cwd()
    os.chdir(copy)
    try:
        main(["diagram", "--write"])
    finally:
        os.chdir(cwd)
    capsys.readouterr()
    return (copy / NAME).read_bytes()


def test_fix_redraws_a_drifted_diagram(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint(capsys)[0] == 1
    expected = diagram_write(repo, capsys)
    code, out, err = lint(capsys, "--fix")
    assert (code, out) == (0, "")
    assert "Fixed 1 finding in 1 file." in err
    assert (repo / NAME).read_bytes() == expected != DRIFTED.encode()
    assert lint(capsys)[:2] == (0, "")
    assert list(repo.rglob("*.tmp")) == []


def test_diff_previews_without_writing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = diagram_write(repo, capsys)
    code, out, err = lint(capsys, "--diff")
    assert code == 1  # something would change, as ruff --diff
    assert out == unified_diff(DRIFTED.encode(), expected, NAME)
    assert (repo / NAME).read_text() == DRIFTED
    assert "Would fix 1 finding in 1 file." in err
    lint(capsys, "--fix")
    assert lint(capsys, "--diff")[:2] == (0, "")


def test_fix_leaves_a_read_only_file_alone(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / NAME).chmod(0o444)
    code, out, err = lint(capsys, "--fix")
    assert code == 1 and "SD303" in out
    assert f"not fixed: {NAME}: the file is read-only" in err
    assert (repo / NAME).read_text() == DRIFTED
    assert lint(capsys, "--diff")[0] == 0  # nothing it would do


def test_fix_refuses_when_errors_block_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / NAME).write_text(BLOCKED)
    code, out, err = lint(capsys, "--fix")
    assert code == 1 and "SD102" in out and "SD303" in out
    assert f"not fixed: {NAME}: SD102 at 14:22 " in err and "by hand" in err
    assert (repo / NAME).read_text() == BLOCKED


def test_fix_only_what_is_reported(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = lint(capsys, "--fix", "--ignore", "SD303")
    assert code == 0
    assert (repo / NAME).read_text() == DRIFTED


#: What the author saves while ``lint --fix`` runs: another edge dropped (the findings change)
#: or a paragraph added (the findings stay the same: only the bytes tell).
DROPPED = DRIFTED.replace("  open --> closed\n", "")
ADDED = DRIFTED + "\nA paragraph the author saved while statedoc ran.\n"


@pytest.mark.parametrize(
    ("when", "edited"),
    [("after lint", DROPPED), ("after the fix's lint", ADDED), ("before the write", ADDED)],
)
def test_a_spec_edited_while_fix_runs_is_kept_byte_for_byte_and_reported(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    when: str,
    edited: str,
) -> None:
    """The author saves the spec while ``lint --fix`` runs. Before, the fix re-read the file
    and redrew the diagram over text lint never saw, without a word; now the fix is computed
    from a document lint read, written only while the file still holds those bytes, and a
    file whose findings changed since the first lint is refused."""

    def save() -> None:
        (repo / NAME).write_text(edited)

    def lint_then_save(args: argparse.Namespace, **kwargs: bool) -> tuple[LintRun, list[SpecFile]]:
        found = lint_specs(args, **kwargs)
        save()
        return found

    def relint_then_save(args: argparse.Namespace, specs: list[SpecFile]) -> LintRun:
        found = relint(args, specs)
        save()
        return found

    def save_then_apply(plan: Plan, *, force: bool = False) -> tuple[int, int]:
        save()
        return apply_plan(plan, force=force)

    if when == "after lint":
        monkeypatch.setattr(lint_command, "lint_specs", lint_then_save)
    elif when == "after the fix's lint":
        monkeypatch.setattr(lintfix, "relint", relint_then_save)
    else:
        monkeypatch.setattr(output_apply, "apply_plan", save_then_apply)
    code, out, err = lint(capsys, "--fix")
    assert (repo / NAME).read_text() == edited
    assert code == 1
    reason = "the file changed while statedoc ran; run it again"
    assert f"statedoc: not fixed: {NAME}: {reason}" in err
    assert f"{NAME}:1:1: SD408 diagram not rewritten: {reason}" in out.splitlines()
    assert "Fixed 0 findings in 0 files." in err


def test_text_saved_before_the_fix_reads_the_spec_is_fixed_with_it(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """An edit between the first lint and the fix's own lint that leaves the file's findings
    as they were is not lost either: the fix is made to the file as saved, as the diff
    would show it."""

    def lint_then_save(args: argparse.Namespace, **kwargs: bool) -> tuple[LintRun, list[SpecFile]]:
        found = lint_specs(args, **kwargs)
        (repo / NAME).write_text(ADDED)
        return found

    other = tmp_path / "other"
    shutil.copytree(repo, other)
    (other / NAME).write_text(ADDED)
    monkeypatch.chdir(other)
    assert lint(capsys, "--fix")[0] == 0
    monkeypatch.chdir(repo)
    monkeypatch.setattr(lint_command, "lint_specs", lint_then_save)
    assert lint(capsys, "--fix")[0] == 0
    assert (repo / NAME).read_bytes() == (other / NAME).read_bytes() != ADDED.encode()


def test_diff_and_fix_refuse_a_read_only_file_alike(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refused write is a finding in every report format, at the fixed finding."""
    (repo / NAME).chmod(0o444)
    code, out, err = lint(capsys, "--diff")
    assert (code, out) == (0, "")
    assert f"statedoc: not fixed: {NAME}: the file is read-only" in err
    code, out, _ = lint(capsys, "--fix", "--format", "json")
    (refused,) = [f for f in json.loads(out) if f["code"] == "SD408"]
    (drift,) = [f for f in json.loads(out) if f["code"] == "SD303"]
    assert code == 1 and (refused["line"], refused["column"]) == (drift["line"], drift["column"])
    assert refused["message"] == "diagram not rewritten: the file is read-only"
    assert (repo / NAME).read_text() == DRIFTED


#: Spec texts whose fix a patch must carry exactly: line ends git reads as a line's content
#: (a lone CR, a form feed, Unicode line separators) next to the changed lines, a last line
#: without a break, a BOM, a missing diagram.
STYLES = {
    "lf": DRIFTED,
    "crlf": DRIFTED.replace("\n", "\r\n"),
    "cr": DRIFTED.replace("\n", "\r"),
    "form-feed": DRIFTED + "\nA page\x0cbreak.\n",
    "unicode-breaks": DRIFTED + "\nNEL\x85 LS\u2028 PS\u2029 VT\x0b FS\x1c end.\n",
    "no-final-break": DRIFTED.rstrip("\n"),
    "bom": "\ufeff" + DRIFTED,
    "missing": document(DOOR, body="\n# Door\n\n## The Lifecycle\n").rstrip("\n"),
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_the_diff_applied_by_git_is_what_fix_writes(
    repo: Path, capsys: pytest.CaptureFixture[str], style: str
) -> None:
    """Before, the diff split lines wherever Python's ``splitlines`` does (CR, form feed,
    U+2028, ...) while git splits at LF only: ``git apply`` rejected such a patch."""
    (repo / NAME).write_bytes(STYLES[style].encode())
    twin = repo.parent / "twin"
    shutil.copytree(repo, twin)
    code, patch, _ = lint(capsys, "--diff")
    assert code == 1
    assert lint(capsys, "--fix")[0] == 0
    assert (repo / NAME).read_bytes() != STYLES[style].encode()
    applied = subprocess.run(
        ["git", "apply", "-"], cwd=twin, input=patch.encode(), capture_output=True, check=False
    )
    assert applied.returncode == 0, applied.stderr.decode()
    assert (twin / NAME).read_bytes() == (repo / NAME).read_bytes()


# --- SD207 ------------------------------------------------------------------------------------


def git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env=env,
    )


def test_fix_bumps_revision_byte_for_byte(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """CRLF line ends, a comment after the value, a BOM: only the digits change."""
    before = document(DOOR).replace("revision: 1\n", "revision: 1   # bump on change\n")
    (repo / NAME).write_bytes(b"\xef\xbb\xbf" + before.replace("\n", "\r\n").encode())
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    changed = before.replace(
        "  - name: closed\n", "  - name: closed\n  - name: gone\n    terminal: true\n"
    ).replace(
        "  - {from: closed", "  - {from: closed, to: gone, trigger: remove}\n  - {from: closed"
    )
    changed = changed.replace("  closed --> open\n", "  closed --> open\n  closed --> gone\n")
    changed = changed.replace("```\n", "  gone --> [*]\n```\n", 1)
    data = b"\xef\xbb\xbf" + changed.replace("\n", "\r\n").encode()
    (repo / NAME).write_bytes(data)
    code, out, _ = lint(capsys, "--against", "HEAD")
    assert code == 1 and [line.split()[1] for line in out.splitlines()] == ["SD207"], out
    code, out, err = lint(capsys, "--against", "HEAD", "--fix")
    assert (code, out) == (0, ""), err
    after = (repo / NAME).read_bytes()
    assert after == data.replace(b"revision: 1   #", b"revision: 2   #")
    assert after.count(b"revision: 2") == 1


# --- stdin -------------------------------------------------------------------------------------


def stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_stdin_is_named_by_stdin_filename(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin(monkeypatch, BLOCKED.encode())
    code, out, _ = lint(capsys, "-", "--stdin-filename", NAME)
    assert code == 1
    assert {line.split(":")[0] for line in out.splitlines()} == {NAME}
    assert {"SD102", "SD303"} <= {line.split()[1] for line in out.splitlines()}
    # per-file-ignores match the name given, and the config is found from its folder
    (repo / "pyproject.toml").write_text(
        '[tool.statedoc]\nspecs = "specs"\n[tool.statedoc.per-file-ignores]\n'
        '"specs/example/*.md" = ["SD102", "SD303"]\n'
    )
    elsewhere = repo.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    stdin(monkeypatch, BLOCKED.encode())
    code, out, _ = lint(capsys, "-", "--stdin-filename", str(repo / NAME))
    assert (code, out) == (0, "")
    assert not (elsewhere / ".statedoc_cache").exists()


def test_stdin_fix_prints_the_fixed_document(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = diagram_write(repo, capsys)
    stdin(monkeypatch, DRIFTED.encode())
    code, out, err = lint(capsys, "-", "--stdin-filename", NAME, "--fix")
    assert code == 0 and out.encode() == expected and "SD303" not in err
    assert (repo / NAME).read_text() == DRIFTED  # the file on disk is not the buffer
    stdin(monkeypatch, DRIFTED.encode())
    code, out, _ = lint(capsys, "-", "--stdin-filename", NAME, "--diff")
    assert code == 1 and out == unified_diff(DRIFTED.encode(), expected, NAME)
    stdin(monkeypatch, BLOCKED.encode())
    code, out, err = lint(capsys, "-", "--fix")
    assert code == 1 and out == BLOCKED  # unchanged, and what blocks it is said
    assert "not fixed: -: SD102" in err and "-:14:22: SD102" in err


def test_stdin_with_against_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin(monkeypatch, DRIFTED.encode())
    code, _, err = lint(capsys, "-", "--against", "HEAD")
    assert code == 2 and "stdin" in err


def test_stdin_is_linted_alone(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin(monkeypatch, DRIFTED.encode())
    code, _, err = lint(capsys, "-", NAME)
    assert code == 2 and "alone" in err
