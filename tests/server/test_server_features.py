"""Code actions, rename, navigation, hover, completion and symbols over a real LSP session, on
the repository's specs and on generated documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from generator.lint.document import lint_bytes
from generator.model.spec import Spec
from generator.testing.strategies import spec_documents

from .lsp_client import (
    ROOT,
    Client,
    apply_edit,
    lint_stdin,
    utf16_offset,
    utf16_position,
)
from .test_server_diagnostics import SPECS, code_action_params

PROVISIONING = ROOT / "specs" / "platform" / "tenant-lifecycle" / "provisioning-attempt.md"
TCP = ROOT / "specs" / "network" / "tcp" / "connection.md"


def doc_id(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


def at(text: str, needle: str, nth: int = 0, shift: int = 0) -> types.Position:
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    return utf16_position(text, index + shift)


def test_quick_fix_redraws_the_diagram_as_lint_fix_does(repo_server: Client) -> None:
    text = PROVISIONING.read_text(encoding="utf-8")
    drifted = text.replace("  running --> succeeded: workspace opened\n", "")
    uri = repo_server.open(PROVISIONING.with_name("drifted.md"), drifted)
    diagnostics = repo_server.diagnostics(uri, 1)
    drift = [d for d in diagnostics if d.code == "SD303"]
    assert drift
    actions = repo_server.call(
        "text_document_code_action_async", code_action_params(uri, drift[0].range, drift)
    )
    fix = next(
        a for a in actions if a.kind == types.CodeActionKind.QuickFix and "diagram" in a.title
    )
    fixed = apply_edit(drifted, fix.edit, uri)
    expected = fixed_by_cli(drifted, PROVISIONING.with_name("drifted.md"))
    assert fixed == expected
    assert not [f for f in lint_stdin(fixed, PROVISIONING, ROOT) if f["code"] == "SD303"]
    fix_all = repo_server.call(
        "text_document_code_action_async",
        types.CodeActionParams(
            doc_id(uri),
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            types.CodeActionContext(diagnostics=[], only=["source.fixAll.statedoc"]),
        ),
    )
    assert [apply_edit(drifted, a.edit, uri) for a in fix_all] == [expected]
    repo_server.close_document(uri)


def fixed_by_cli(text: str, filename: Path) -> str:
    import subprocess
    import sys

    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "lint",
            "--fix",
            "--stdin-filename",
            str(filename),
            "-",
        ],
        cwd=ROOT,
        input=text.encode(),
        capture_output=True,
        check=False,
    )
    return out.stdout.decode()


def test_ignore_action_writes_the_inline_comment_statedoc_honours(repo_server: Client) -> None:
    text = PROVISIONING.read_text(encoding="utf-8")
    looped = text.replace(
        "invalid:\n", "- from: failed\n  to: failed\n  trigger: Retried in place.\ninvalid:\n", 1
    )
    uri = repo_server.open(PROVISIONING.with_name("looped.md"), looped)
    diagnostics = repo_server.diagnostics(uri, 1)
    finding = next(d for d in diagnostics if d.code == "SD111")
    actions = repo_server.call(
        "text_document_code_action_async", code_action_params(uri, finding.range, [finding])
    )
    ignore = next(a for a in actions if a.title.startswith("Ignore SD111"))
    silenced = apply_edit(looped, ignore.edit, uri)
    line = silenced.splitlines()[finding.range.start.line]
    assert line.endswith("# statedoc: ignore[SD111]")
    before = {f["code"] for f in lint_stdin(looped, PROVISIONING, ROOT)}
    after = {f["code"] for f in lint_stdin(silenced, PROVISIONING, ROOT)}
    assert "SD111" in before and after == before - {"SD111"}
    repo_server.close_document(uri)


def test_rename_keeps_the_diagram_style_and_refuses_collisions(repo_server: Client) -> None:
    text = PROVISIONING.read_text(encoding="utf-8")
    uri = repo_server.open(PROVISIONING.with_name("rename.md"), text)
    repo_server.diagnostics(uri, 1)
    where = at(text, "to: running", shift=4)
    prepared = repo_server.call(
        "text_document_prepare_rename_async", types.PrepareRenameParams(doc_id(uri), where)
    )
    assert prepared.placeholder == "running"
    edit = repo_server.call(
        "text_document_rename_async", types.RenameParams(doc_id(uri), where, "executing")
    )
    renamed = apply_edit(text, edit, uri)
    before, after = split_diagram(text), split_diagram(renamed)
    assert after[1] == before[1].replace("running", "executing")  # bare ids stay bare ids
    assert after[2] == before[2]  # prose is not a reference
    old_spec, new_spec = spec_of(text), spec_of(renamed)
    assert new_spec.state_names == tuple(
        "executing" if n == "running" else n for n in old_spec.state_names
    )
    assert [t.pair for t in new_spec.transitions] == [
        tuple("executing" if n == "running" else n for n in t.pair) for t in old_spec.transitions
    ]
    assert edit.document_changes[0].text_document.version == 1
    spaced = repo_server.call(
        "text_document_rename_async", types.RenameParams(doc_id(uri), where, "in flight")
    )
    result = apply_edit(text, spaced, uri)
    assert 'state "in flight" as s0' in result  # not a Mermaid id: an alias, as statedoc writes
    codes = sorted(f["code"] for f in lint_stdin(result, PROVISIONING, ROOT))
    assert codes == sorted(f["code"] for f in lint_stdin(text, PROVISIONING, ROOT))
    for new, code in (("failed", "SD101"), ("Pending", "SD110"), ("pеnding", "SD113")):
        with pytest.raises(JsonRpcException) as refused:
            repo_server.call(
                "text_document_rename_async", types.RenameParams(doc_id(uri), where, new)
            )
        assert code in str(refused.value) and refused.value.code == -32803
    repo_server.close_document(uri)


def split_diagram(text: str) -> tuple[str, str, str]:
    start = text.index("```mermaid")
    end = text.index("```", start + 3) + 3
    return text[:start], text[start:end], text[end:]


def spec_of(text: str) -> Spec:
    document = lint_bytes(text.encode("utf-8"), "x").document
    assert document is not None
    return document.spec


def test_navigation_and_hover_on_a_spec_with_events(repo_server: Client) -> None:
    text = TCP.read_text(encoding="utf-8")
    uri = repo_server.open(TCP.with_name("nav.md"), text)
    repo_server.diagnostics(uri, 1)
    first_to = at(text, "to: ", shift=4)
    offset = utf16_offset(text, first_to)
    name = text[offset : text.index("\n", offset)].strip().strip("'\"").split(",")[0].strip("}")
    locations = repo_server.call(
        "text_document_definition_async", types.DefinitionParams(doc_id(uri), first_to)
    )
    (declaration,) = locations
    declared = text[
        utf16_offset(text, declaration.range.start) : utf16_offset(text, declaration.range.end)
    ]
    assert declared.strip("'\"") == name
    references = repo_server.call(
        "text_document_references_async",
        types.ReferenceParams(types.ReferenceContext(True), doc_id(uri), first_to),
    )
    spans = [
        text[utf16_offset(text, r.range.start) : utf16_offset(text, r.range.end)]
        for r in references
    ]
    assert all(s.strip("'\"") == name for s in spans) and len(spans) > 2
    hover = repo_server.call("text_document_hover_async", types.HoverParams(doc_id(uri), first_to))
    assert f"`{name}`" in hover.contents.value and "**In:**" in hover.contents.value
    event = at(text, "event: ", shift=8)
    hover = repo_server.call("text_document_hover_async", types.HoverParams(doc_id(uri), event))
    assert hover.contents.value.startswith("**event**")
    repo_server.close_document(uri)


def test_completion_of_states_events_keys_and_enums(repo_server: Client) -> None:
    text = TCP.read_text(encoding="utf-8")
    uri = repo_server.open(TCP.with_name("complete.md"), text)
    repo_server.diagnostics(uri, 1)
    lint = lint_bytes(text.encode(), "x").document
    assert lint is not None
    spec = lint.spec

    def labels(position: types.Position) -> list[str]:
        found = repo_server.call(
            "text_document_completion_async", types.CompletionParams(doc_id(uri), position)
        )
        return [item.label for item in found.items]

    assert labels(at(text, "to: ", shift=4)) == list(spec.state_names)
    assert labels(at(text, "event: ", shift=7)) == list(spec.events)
    top = utf16_position(text, text.index("\nstates:") + 1)
    assert {"states", "transitions", "invalid", "revision"} <= set(labels(top))
    version = repo_server.edit(uri, text.index("  to: "), text.index("  to: "), "  provenance: \n")
    repo_server.diagnostics(uri, version)
    edited = repo_server.texts[uri]
    assert labels(at(edited, "provenance: ", shift=12)) == [
        "observed",
        "documented",
        "inferred",
        "planned",
    ]
    repo_server.close_document(uri)


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_symbols_and_references_on_every_state(repo_server: Client, path: Path) -> None:
    check_document(
        repo_server, path.with_name(f"sym-{path.name}"), path.read_text(encoding="utf-8")
    )


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(spec_documents())
def test_navigation_on_generated_documents(repo_server: Client, text: str) -> None:
    check_document(repo_server, ROOT / "specs" / "generated-example.md", text)


def check_document(server: Client, path: Path, text: str) -> None:
    """Every declared state: the outline lists it, and definition from each of its references
    leads back to its declaration."""
    uri = server.open(path, text)
    server.diagnostics(uri, 1)
    document = lint_bytes(text.encode("utf-8"), "x").document
    assert document is not None
    spec = document.spec
    symbols = server.call(
        "text_document_document_symbol_async", types.DocumentSymbolParams(doc_id(uri))
    )
    states = next(s for s in symbols if s.name == "states")
    assert [s.name or "" for s in states.children] == [s.name or "(empty)" for s in spec.states]
    for state, symbol in zip(spec.states, states.children, strict=True):
        if spec.state_names.count(state.name) > 1:
            continue
        refs = server.call(
            "text_document_references_async",
            types.ReferenceParams(
                types.ReferenceContext(True), doc_id(uri), symbol.selection_range.start
            ),
        )
        assert symbol.selection_range in [r.range for r in refs]
        for ref in refs:
            back = server.call(
                "text_document_definition_async",
                types.DefinitionParams(doc_id(uri), ref.range.start),
            )
            assert [b.range for b in back] == [symbol.selection_range]
    server.close_document(uri)
