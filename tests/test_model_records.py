"""The records a lint makes (NamedTuples and their subclasses) keep the contract the rest of
statedoc relies on: immutable fields, equality and hashing by those fields only (never by
what a cached property has computed), pickling for the worker processes, and ``_replace``
giving a new record whose cached properties are computed again."""

from __future__ import annotations

import copy
import pickle

import pytest
from sample_documents import document, lint_text

from generator.core.findings import Finding, Related, Severity
from generator.load.mermaid.model import Diagram, DiagramState, Edge
from generator.load.source import SourceText
from generator.model.document import Document
from generator.model.spec import TRANSITION_TEXT_FIELDS, State, Transition


def _document() -> Document:
    found = lint_text(document()).document
    assert found is not None
    return found


def test_fields_are_immutable_and_records_pickle_and_copy_as_equal() -> None:
    doc = _document()
    spec = doc.spec
    assert spec.state_names and doc.body.mermaid is not None  # fill the cached properties
    finding = Finding("x.md", 1, 2, 1, 5, "SD001", "n", Severity.ERROR, "m", (Related(3, 4, "r"),))
    diagram = Diagram(
        "stateDiagram-v2", (DiagramState("a", "a", 1, 1),), (Edge("a", "b", "go", 2, 1),)
    )
    source = SourceText("a\nb")
    assert source.position(2) == (2, 1)  # builds its line tables
    records: list[object] = [spec, spec.states[0], spec.transitions[0], finding, diagram, source]
    for record in records:
        assert pickle.loads(pickle.dumps(record)) == record
        assert copy.deepcopy(record) == record
        for name in record._fields:  # type: ignore[attr-defined]
            with pytest.raises(AttributeError):
                setattr(record, name, "elsewhere")
    for hashable in (spec.states[0], spec.transitions[0], finding, diagram, source):
        assert hash(copy.deepcopy(hashable)) == hash(hashable)
    with pytest.raises(AttributeError):
        spec.id = "STATE-X-1"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(doc)).spec == spec


def test_equality_is_by_fields_not_by_cached_state() -> None:
    asked, fresh = _document().spec, _document().spec
    assert asked.transition_pairs  # only one of the two has computed it
    assert asked == fresh
    source = SourceText("a\nb\nc")
    source.line_text(3)
    assert source == SourceText("a\nb\nc") != SourceText("a\nb\nc", had_bom=True)
    assert hash(source) == hash(SourceText("a\nb\nc"))
    assert State("open", None, ("states", 0)) != State("shut", None, ("states", 0))
    assert {State("open", None, ("states", 0)), State("open", None, ("states", 0))} == {
        State("open", None, ("states", 0))
    }


def test_replace_computes_cached_properties_again() -> None:
    diagram = Diagram("stateDiagram-v2", (), (Edge("a", "b", "go", 2, 1),))
    assert diagram.labels == {("a", "b"): "go"}
    moved = diagram._replace(edges=(Edge("a", "c", "went", 2, 1),))
    assert isinstance(moved, Diagram) and moved.labels == {("a", "c"): "went"}
    doc = _document()
    assert doc.body.mermaid is not None
    text = doc.source.text
    cut = doc._replace(source=SourceText(text[: text.index("```mermaid")]))
    assert isinstance(cut, Document) and cut.body.mermaid is None
    spec = doc.spec
    assert spec.terminal_states == ()  # the door opens and closes forever
    ended = spec._replace(transitions=spec.transitions[:1])
    assert ended.terminal_states != () and spec.terminal_states == ()


def test_the_renderer_reads_the_transition_s_text_fields_in_declaration_order() -> None:
    """What the generated modules carry per transition: a new field of ``Transition`` is a
    change of every generated file, so it shows here first."""
    texts = ("trigger", "guard", "side_effects", "who", "provenance", "source")
    assert texts == TRANSITION_TEXT_FIELDS
    assert [name for name in Transition._fields if name in texts] == list(texts)
