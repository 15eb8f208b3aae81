"""Diagnostics over a real LSP session are ``statedoc lint``'s findings for the unsaved text:
on open, edit and save, project rules (SD204, SD207) included, in UTF-16 ranges."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sample_documents import document

from .conftest import make_project
from .lsp_client import (
    ROOT,
    Client,
    apply_edit,
    client,
    expected_diagnostics,
    lint_stdin,
    seen,
)

SPECS = sorted((ROOT / "specs").rglob("*.md"))


def lint_project(cwd: Path, *args: str) -> list[dict[str, object]]:
    import json

    out = subprocess.run(
        [sys.executable, "-m", "generator", "lint", "--format", "json", "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    found: list[dict[str, object]] = json.loads(out.stdout)
    return found


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_open_edit_save_report_what_lint_reports(repo_server: Client, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    uri = repo_server.open(path, text)
    got = repo_server.diagnostics(uri, 1)
    assert seen(got) == expected_diagnostics(text, lint_stdin(text, path, ROOT))
    assert all(d.source == "statedoc" for d in got)
    # a typo in the first transition's target: SD102 and the diagram drift, as lint says
    at = text.index("\n  to: ") if "\n  to: " in text else text.index("to: ") - 1
    start = at + len("\n  to: ")
    version = repo_server.edit(uri, start, start + 1, "Q")
    edited = repo_server.texts[uri]
    expected = expected_diagnostics(edited, lint_stdin(edited, path, ROOT))
    assert seen(repo_server.diagnostics(uri, version)) == expected
    assert any(code == "SD102" for code, *_ in expected)
    repo_server.save(uri)  # the file on disk is unchanged: the buffer is what is linted
    version = repo_server.edit(uri, start, start + 1, text[start])
    assert seen(repo_server.diagnostics(uri, version)) == seen(got)
    repo_server.close_document(uri)


def test_duplicate_ids_across_the_workspace(tmp_path: Path) -> None:
    """SD204 as a whole-project lint reports it, with unsaved buffers in place of files."""
    project = make_project(
        tmp_path / "p", {"a.md": document(), "b.md": document(), "c.md": document()}
    )
    whole = lint_project(project)
    with client(cwd=project) as session:
        b = project / "specs" / "b.md"
        uri = session.open(b)
        got = seen(session.diagnostics(uri, 1))
        expected = [f for f in whole if f["path"] == "specs/b.md"]
        assert got == expected_diagnostics(b.read_text(), expected)
        assert [d[0] for d in got] == ["SD204"]
        # a.md renamed its id in the editor: b.md is now the first of the pair (b, c)
        a = project / "specs" / "a.md"
        a_uri = session.open(a)
        session.diagnostics(a_uri, 1)
        text = session.texts[a_uri]
        at = text.index("DOR-001")
        session.edit(a_uri, at, at + 7, "DOR-009")
        a.write_text(session.texts[a_uri], encoding="utf-8")  # what the CLI would see
        expected = [f for f in lint_project(project) if f["path"] == "specs/b.md"]
        assert expected == []

        def settled() -> bool:
            return seen(session.latest.get(uri, [])) == []

        with session.condition:
            assert session.condition.wait_for(settled, 300)


def test_revision_not_bumped_against_a_ref(tmp_path: Path) -> None:
    """SD207 when the settings name a ref; its quick fix is lint --fix's revision bump."""
    project = make_project(tmp_path / "p", {"door.md": document()})
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "one"], cwd=project, check=True)
    path = project / "specs" / "door.md"
    with client(cwd=project, options={"statedoc": {"against": "HEAD"}}) as session:
        uri = session.open(path)
        assert seen(session.diagnostics(uri, 1)) == []
        text = session.texts[uri]
        at = text.index("  - {from: closed")
        version = session.edit(uri, at, at, "  - {from: open, to: open, trigger: wedge}\n")
        changed = session.texts[uri]
        path.write_text(changed, encoding="utf-8")
        expected = [f for f in lint_project(project, "--against", "HEAD") if f["code"] == "SD207"]
        got = session.diagnostics(uri, version)
        assert [d for d in seen(got) if d[0] == "SD207"] == expected_diagnostics(changed, expected)
        assert expected
        sd207 = next(d for d in got if d.code == "SD207")
        actions = session.call(
            "text_document_code_action_async",
            code_action_params(uri, sd207.range, [sd207]),
        )
        bump = next(a for a in actions if "revision" in a.title)
        fixed = apply_edit(changed, bump.edit, uri)
        assert "revision: 2" in fixed and fixed.replace("revision: 2", "revision: 1") == changed


def code_action_params(uri: str, range_: object, diagnostics: list[object]) -> object:
    from lsprotocol import types

    assert isinstance(range_, types.Range)
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=range_,
        context=types.CodeActionContext(diagnostics=list(diagnostics)),  # type: ignore[arg-type]
    )


def test_a_config_error_is_one_diagnostic_not_a_crash(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"door.md": document()}, table="select = 12\n")
    with client(cwd=project) as session:
        uri = session.open(project / "specs" / "door.md")
        (diagnostic,) = session.diagnostics(uri, 1)
        assert "select must be a string or a list of strings" in diagnostic.message
        # the server still serves: a fixed config is read on the next lint
        (project / "pyproject.toml").write_text(
            '[project]\nname = "x"\n\n[tool.statedoc]\nspecs = "specs"\n', encoding="utf-8"
        )
        version = session.edit(uri, 0, 0, "")
        assert seen(session.diagnostics(uri, version)) == []


def test_excluded_files_get_no_diagnostics(tmp_path: Path) -> None:
    broken = document().replace("to: closed", "to: nowhere")
    project = make_project(
        tmp_path / "p",
        {"old/door.md": broken, "door.md": broken},
        table='exclude = ["specs/old"]\n',
    )
    with client(cwd=project) as session:
        for name in ("old/door.md", "door.md"):
            path = project / "specs" / name
            uri = session.open(path)
            expected = expected_diagnostics(broken, lint_stdin(broken, path, project))
            assert seen(session.diagnostics(uri, 1)) == expected
            assert bool(expected) == (name == "door.md")


def test_settings_select_and_ignore_as_the_command_line_flags(tmp_path: Path) -> None:
    from lsprotocol import types

    broken = document().replace("to: closed", "to: nowhere")
    project = make_project(tmp_path / "p", {"door.md": broken})
    path = project / "specs" / "door.md"
    with client(cwd=project) as session:
        uri = session.open(path)
        assert {d.code for d in session.diagnostics(uri, 1)} >= {"SD102"}
        settings = {"statedoc": {"ignore": ["SD102"]}}
        session.loop.call_soon_threadsafe(
            session.client.workspace_did_change_configuration,
            types.DidChangeConfigurationParams(settings=settings),
        )
        expected = [
            f for f in lint_stdin(broken, path, project) if f["code"] != "SD102"
        ]  # what `lint --ignore SD102 -` reports

        def ignored() -> bool:
            return seen(session.latest.get(uri, [])) == expected_diagnostics(broken, expected)

        assert session.wait_until(ignored)
