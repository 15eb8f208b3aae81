"""The schema's fast pass implements every keyword the schema uses, and refuses, when it is
built, a schema with anything it does not implement (documents would otherwise skip it)."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from sample_documents import DOOR, HEADER

from generator.load import schema
from generator.load.schema import fast

#: Keywords whose value is a mapping of names to subschemas, one subschema, a list of them.
_MAPS = {"properties", "$defs", "patternProperties", "dependentSchemas"}
_ONE = {"items", "not", "additionalProperties", "propertyNames", "contains", "if", "then", "else"}
_LISTS = {"oneOf", "anyOf", "allOf", "prefixItems"}


def _keywords(node: object) -> set[str]:
    """Every keyword used anywhere in a schema, walked as JSON Schema nests subschemas (an
    unknown keyword is counted, whatever its value holds)."""
    if not isinstance(node, dict):
        return set()
    found: set[str] = set()
    for key, value in node.items():
        found.add(key)
        if key in _MAPS and isinstance(value, dict):
            for sub in value.values():
                found |= _keywords(sub)
        elif key in _ONE:
            found |= _keywords(value)
        elif key in _LISTS and isinstance(value, list):
            for sub in value:
                found |= _keywords(sub)
    return found


def test_the_schema_uses_only_keywords_the_fast_pass_implements() -> None:
    used = _keywords(schema.schema())
    # The walk reaches into definitions, alternatives and negations (else this proves nothing).
    assert {"$ref", "oneOf", "not", "const", "enum", "minItems", "minimum", "minLength"} <= used
    assert {"pattern", "propertyNames", "additionalProperties", "required"} <= used
    assert used - fast.KEYWORDS == set()


def _defs(s: dict[str, Any]) -> dict[str, Any]:
    defs: dict[str, Any] = s["$defs"]
    return defs


def _props(s: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = s["properties"]
    return props


Edit = Callable[[dict[str, Any]], None]

UNIMPLEMENTED: list[tuple[str, Edit, str]] = [
    ("additionalProperties false", lambda s: s.update(additionalProperties=False), "False"),
    (
        "closed storage",
        lambda s: _props(s)["storage"].update(additionalProperties=False),
        "additionalProperties",
    ),
    ("maxLength", lambda s: _defs(s)["line"].update(maxLength=200), "'maxLength'"),
    ("format", lambda s: _props(s)["id"].update(format="email"), "'format'"),
    ("maxItems", lambda s: _props(s)["states"].update(maxItems=500), "'maxItems'"),
    ("uniqueItems", lambda s: _props(s)["invariants"].update(uniqueItems=True), "'uniqueItems'"),
    ("exclusiveMinimum", lambda s: _props(s)["revision"].update(exclusiveMinimum=0), "exclusive"),
    ("misspelled keyword", lambda s: _defs(s)["line"].update(minlength=1), "'minlength'"),
    (
        "dependentRequired",
        lambda s: _defs(s)["transition"].update(dependentRequired={"guard": ["who"]}),
        "'dependentRequired'",
    ),
    (
        "a sibling of $ref",
        lambda s: _props(s).update(title={"$ref": "#/$defs/line", "maxLength": 3}),
        "'maxLength' beside '$ref'",
    ),
    (
        "not beside $ref",
        lambda s: _props(s).update(title={"$ref": "#/$defs/line", "not": {"const": "x"}}),
        "'not' beside '$ref'",
    ),
    (
        "a sibling of oneOf",
        lambda s: _props(s)["initial"].update(type="string"),
        "'type' beside 'oneOf'",
    ),
    (
        "a sibling of const",
        lambda s: _defs(s)["transition"]["properties"].update(who={"const": "x", "type": "string"}),
        "'type' beside 'const'",
    ),
    ("a type list", lambda s: _props(s)["revision"].update(type=["integer", "null"]), "'type'"),
    ("a number type", lambda s: _props(s)["revision"].update(type="number"), "'number'"),
    ("anyOf", lambda s: _props(s).update(origin={"anyOf": [{"type": "string"}]}), "'anyOf'"),
    ("a boolean subschema", lambda s: _props(s).update(origin=True), "not a mapping"),
    (
        "items as a list",
        lambda s: _props(s)["evidence"].update(items=[{"type": "string"}]),
        "not a mapping",
    ),
    (
        "a number const",
        lambda s: _defs(s)["transition"]["properties"].update(who={"const": 1}),
        "'const' with a value that is not a string",
    ),
    (
        "a number in an enum",
        lambda s: _defs(s)["transition"]["properties"]["provenance"]["enum"].append(1),
        "'enum' with a value that is not a string",
    ),
    ("nested $defs", lambda s: _defs(s)["state"].update({"$defs": {}}), "'$defs'"),
    (
        "a $ref outside $defs",
        lambda s: _props(s).update(title={"$ref": "#/definitions/line"}),
        "'#/definitions/line'",
    ),
    (
        "a $ref to nothing",
        lambda s: _props(s).update(title={"$ref": "#/$defs/missing"}),
        "'#/$defs/missing'",
    ),
    ("a float minLength", lambda s: _defs(s)["line"].update(minLength=1.5), "'minLength'"),
]


@pytest.mark.parametrize(
    ("edit", "named"), [(e, n) for _, e, n in UNIMPLEMENTED], ids=[i for i, _, _ in UNIMPLEMENTED]
)
def test_building_over_what_it_does_not_implement_raises(edit: Edit, named: str) -> None:
    edited = copy.deepcopy(schema.schema())
    edit(edited)
    with pytest.raises(fast.UnsupportedSchemaError, match=re.escape(named)):
        fast.compile_schema(edited)


def test_the_refusal_is_what_the_lint_path_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """``fast_valid`` compiles the schema it is given and refuses it, instead of answering."""
    edited = copy.deepcopy(schema.schema())
    _defs(edited)["line"]["maxLength"] = 200
    schema._fast_check.cache_clear()
    monkeypatch.setattr(schema, "schema", lambda: edited)
    try:
        with pytest.raises(fast.UnsupportedSchemaError, match="'maxLength'"):
            schema.fast_valid(yaml.safe_load(HEADER + DOOR))
    finally:
        monkeypatch.undo()
        schema._fast_check.cache_clear()
    assert schema.fast_valid(yaml.safe_load(HEADER + DOOR))


def test_annotations_anywhere_change_nothing() -> None:
    edited = copy.deepcopy(schema.schema())
    _defs(edited)["line"]["$comment"] = "one line of text"
    _defs(edited)["name"]["not"]["description"] = "Mermaid's marker"
    _props(edited)["revision"].update(title="revision", examples=[1], default=1)
    check = fast.compile_schema(edited)
    valid = yaml.safe_load(HEADER + DOOR)
    assert check(valid) and schema.fast_valid(valid)
    for broken in ({**valid, "title": ""}, {**valid, "states": [{"name": "[*]"}]}):
        assert not check(broken) and not schema.fast_valid(broken)
