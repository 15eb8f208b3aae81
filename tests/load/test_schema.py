"""The fast structural pass and the full JSON Schema validator must agree exactly."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from sample_documents import DOOR, HEADER, document, lint_text

from generator.load import schema

VALID: dict[str, Any] = yaml.safe_load(HEADER + DOOR)


def _mutations() -> list[tuple[str, Any]]:
    """Documents broken in one way each, covering every construct of the schema."""
    cases: list[tuple[str, Any]] = []

    def edit(name: str, fn: Any) -> None:
        value = copy.deepcopy(VALID)
        fn(value)
        cases.append((name, value))

    edit("valid", lambda v: None)
    edit("missing id", lambda v: v.pop("id"))
    edit("bad id", lambda v: v.update(id="STATE-pfm"))
    edit("id trailing newline", lambda v: v.update(id="STATE-PFM-1\n"))
    edit("revision 0", lambda v: v.update(revision=0))
    edit("revision float", lambda v: v.update(revision=2.0))
    edit("revision 1.5", lambda v: v.update(revision=1.5))
    edit("revision bool", lambda v: v.update(revision=True))
    edit("revision str", lambda v: v.update(revision="1"))
    edit("status upper", lambda v: v.update(status="Draft"))
    edit("slug", lambda v: v.update(module="Tenant_Lifecycle"))
    edit("empty title", lambda v: v.update(title=""))
    edit("states empty", lambda v: v.update(states=[]))
    edit("state not mapping", lambda v: v["states"].append("open"))
    edit("state name int", lambda v: v["states"][0].update(name=1))
    edit("state name marker", lambda v: v["states"][0].update(name="[*]"))
    edit("state name near marker", lambda v: v["states"][0].update(name="[*] "))
    edit("transition to marker", lambda v: v["transitions"][0].update(to="[*]"))
    edit("state meaning list", lambda v: v["states"][0].update(meaning=["x"]))
    edit("transition without trigger", lambda v: v["transitions"][0].pop("trigger"))
    edit("side effects str", lambda v: v["transitions"][0].update(side_effects="x"))
    edit("side effect int", lambda v: v["transitions"][0].update(side_effects=[1]))
    edit("provenance", lambda v: v["transitions"][0].update(provenance="guessed"))
    edit("provenance ok", lambda v: v["transitions"][0].update(provenance="planned"))
    edit("source", lambda v: v["transitions"][0].update(source="no-colon"))
    edit("source ok", lambda v: v["transitions"][0].update(source="repo:path"))
    edit("initial list", lambda v: v.update(initial=["open", "closed"]))
    edit("initial empty list", lambda v: v.update(initial=[]))
    edit("initial int", lambda v: v.update(initial=3))
    edit("initial empty str", lambda v: v.update(initial=""))
    edit("sha short", lambda v: v.update(source_sha={"repo": "abc"}))
    edit("sha int", lambda v: v.update(source_sha={"repo": 12}))
    edit("sha bad repo", lambda v: v.update(source_sha={"a b": "0" * 40}))
    edit("sha ok", lambda v: v.update(source_sha={"repo": "0" * 40}))
    edit("invalid missing why", lambda v: v.update(invalid=[{"from": "a", "to": "b"}]))
    edit("invariants", lambda v: v.update(invariants=["INV-X"]))
    edit("evidence", lambda v: v.update(evidence=[None]))
    edit("extra key", lambda v: v.update(team_owner="payments"))
    edit("transitions missing", lambda v: v.pop("transitions"))
    edit("transitions mapping", lambda v: v.update(transitions={}))
    edit("event ok", lambda v: v["transitions"][0].update(event="rcv_syn"))
    edit("event upper", lambda v: v["transitions"][0].update(event="RcvSyn"))
    edit("event dash", lambda v: v["transitions"][0].update(event="rcv-syn"))
    edit("event digit first", lambda v: v["transitions"][0].update(event="2fa"))
    edit("event double underscore", lambda v: v["transitions"][0].update(event="a__b"))
    edit("event trailing newline", lambda v: v["transitions"][0].update(event="close\n"))
    edit("event int", lambda v: v["transitions"][0].update(event=1))
    edit("from list", lambda v: v["transitions"][0].update({"from": ["open", "closed"]}))
    edit("from empty list", lambda v: v["transitions"][0].update({"from": []}))
    edit("from list marker", lambda v: v["transitions"][0].update({"from": ["open", "[*]"]}))
    edit("from list int", lambda v: v["transitions"][0].update({"from": ["open", 1]}))
    edit("from list nested", lambda v: v["transitions"][0].update({"from": [["open"]]}))
    edit("source url", lambda v: v["transitions"][0].update(source="https://example.com/a#b"))
    return cases


@pytest.mark.parametrize(("name", "value"), _mutations(), ids=[n for n, _ in _mutations()])
def test_fast_pass_agrees_with_jsonschema(name: str, value: Any) -> None:
    assert schema.fast_valid(value) == (schema.violations(value) == [])


JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = [
    "id",
    "title",
    "object",
    "product_area",
    "module",
    "revision",
    "status",
    "states",
    "transitions",
    "invalid",
    "initial",
    "source_sha",
    "invariants",
    "evidence",
    "origin",
]


@given(st.sampled_from(KEYS), JSONISH, st.sampled_from(KEYS))
def test_fast_pass_agrees_on_random_values(key: str, value: Any, drop: str) -> None:
    doc = copy.deepcopy(VALID)
    doc[key] = value
    doc.pop(drop, None)
    assert schema.fast_valid(doc) == (schema.violations(doc) == [])


@given(
    st.integers(0, 1),
    JSONISH,
    st.sampled_from(
        [
            "name",
            "meaning",
            "from",
            "to",
            "trigger",
            "guard",
            "side_effects",
            "provenance",
            "event",
            "source",
        ]
    ),
)
def test_fast_pass_agrees_inside_items(index: int, value: Any, key: str) -> None:
    doc = copy.deepcopy(VALID)
    section = "states" if key in ("name", "meaning") else "transitions"
    doc[section][index][key] = value
    assert schema.fast_valid(doc) == (schema.violations(doc) == [])


@pytest.mark.parametrize(("name", "value"), _mutations(), ids=[n for n, _ in _mutations()])
def test_findings_are_identical_with_and_without_the_fast_pass(
    name: str, value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "---\n" + yaml.safe_dump(value, sort_keys=False, allow_unicode=True) + "---\n# Door\n"
    fast = lint_text(text).findings
    monkeypatch.setattr(schema, "fast_valid", lambda v: False)
    full = lint_text(text).findings
    assert fast == full


def test_the_seed_like_document_never_needs_jsonschema() -> None:
    assert schema.fast_valid(VALID)
    assert lint_text(document()).findings == []
