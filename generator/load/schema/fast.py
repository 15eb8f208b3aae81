"""The fast pass: the front matter's JSON Schema compiled once into plain Python checks.

Most documents are valid, so a check of the same schema without jsonschema decides first and
the full validator runs only when it says no (the findings are always the full validator's).
That is sound only while the check implements every keyword the schema uses, so
:func:`compile_schema` refuses, naming it, whatever it does not implement (an unknown keyword
such as ``maxLength``, ``additionalProperties: false``, a ``$ref`` with siblings, a non-string
``const``): a schema edit the fast pass would skip fails when the check is built, never by
letting documents skip validation. ``tests/load/test_schema_fast.py`` pins the schema's
keywords to :data:`KEYWORDS`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, cast

Check = Callable[[object], bool]

#: Keywords that never decide whether a value is valid.
ANNOTATIONS = frozenset({"description", "title", "$comment", "examples", "default"})
#: Keywords only the root schema may carry (``$defs`` holds what ``$ref`` names).
ROOT = frozenset({"$schema", "$id", "$defs"})
#: The validation keywords each form of node implements (``not`` goes with all but the first two).
_REF = frozenset({"$ref"})
_ONE_OF = frozenset({"oneOf"})
_CONST = frozenset({"const", "not"})
_ENUM = frozenset({"enum", "not"})
_TYPES: dict[str, frozenset[str]] = {
    "string": frozenset({"type", "minLength", "pattern", "not"}),
    "integer": frozenset({"type", "minimum", "not"}),
    "boolean": frozenset({"type", "not"}),
    "array": frozenset({"type", "items", "minItems", "not"}),
    "object": frozenset(
        {"type", "required", "properties", "propertyNames", "additionalProperties", "not"}
    ),
}
#: Every keyword the fast pass implements somewhere.
KEYWORDS: frozenset[str] = ANNOTATIONS.union(ROOT, _REF, _ONE_OF, _CONST, _ENUM, *_TYPES.values())


class UnsupportedSchemaError(ValueError):
    """The schema uses something the fast pass does not implement."""


def _refuse(at: str, what: str) -> UnsupportedSchemaError:
    return UnsupportedSchemaError(
        f"the schema's fast pass does not implement {what} (at {at or '/'}): implement it in "
        "generator/load/schema/fast.py, with agreement tests, or leave it out of the schema"
    )


def compile_schema(root: dict[str, Any]) -> Check:
    """The check of ``root``: true exactly when the full validator would report nothing.
    Raises :class:`UnsupportedSchemaError` for anything it would not check as jsonschema does."""
    defs = root.get("$defs", {})
    if not isinstance(defs, dict):
        raise _refuse("/$defs", "a $defs that is not a mapping")
    refs: dict[str, Check] = {}
    names = frozenset(defs)
    for name, node in defs.items():  # a ref to an earlier definition is direct
        refs[name] = _compile(node, refs, names, f"/$defs/{name}")
    return _compile({k: v for k, v in root.items() if k not in ROOT}, refs, names, "")


def _check_form(node: dict[str, Any], at: str) -> None:
    """Refuse any keyword of ``node`` that its form (what decides how it is compiled) does
    not implement."""
    if "$ref" in node:
        allowed, form = _REF, "'$ref'"
    elif "oneOf" in node:
        allowed, form = _ONE_OF, "'oneOf'"
    elif "const" in node:
        allowed, form = _CONST, "'const'"
    elif "enum" in node:
        allowed, form = _ENUM, "'enum'"
    elif isinstance(node.get("type"), str) and node["type"] in _TYPES:
        allowed, form = _TYPES[node["type"]], f"'type': {node['type']!r}"
    elif "type" in node:
        raise _refuse(at, f"'type': {node['type']!r}")
    elif node.keys() - ANNOTATIONS:
        raise _refuse(at, ", ".join(repr(k) for k in sorted(node.keys() - ANNOTATIONS)))
    else:
        raise _refuse(at, "a schema without $ref, oneOf, const, enum or type")
    unknown = sorted(node.keys() - allowed - ANNOTATIONS)
    if unknown:
        raise _refuse(at, f"{', '.join(repr(k) for k in unknown)} beside {form}")


def _compile(node: object, refs: dict[str, Check], names: frozenset[str], at: str) -> Check:
    """``node`` turned once into closures (walking the schema's dicts for every document
    would cost a large share of a lint)."""
    if not isinstance(node, dict):
        raise _refuse(at, f"a schema that is not a mapping ({node!r})")
    _check_form(node, at)
    if "$ref" in node:
        ref = node["$ref"]
        name = ref.rsplit("/", 1)[1] if isinstance(ref, str) else ""
        if ref != f"#/$defs/{name}" or name not in names:
            raise _refuse(at, f"'$ref': {ref!r} (only '#/$defs/<name>')")
        if name in refs:  # compiled already: call it directly, not through the table
            return refs[name]
        return lambda value: refs[name](value)  # noqa: PLW0108 - refs is filled in later
    if "oneOf" in node:
        if not isinstance(node["oneOf"], list):
            raise _refuse(at, "a oneOf that is not a list")
        options = tuple(
            _compile(option, refs, names, f"{at}/oneOf/{index}")
            for index, option in enumerate(node["oneOf"])
        )

        def one_of(value: object) -> bool:
            matched = 0
            for check in options:
                if check(value):
                    matched += 1
            return matched == 1

        return one_of
    rest = _compile_rest(node, refs, names, at)
    if "not" in node:
        negated_node = node["not"]
        if isinstance(negated_node, dict) and negated_node.keys() == {"const"}:
            const = _string(negated_node["const"], f"{at}/not", "const")
            return lambda value: not (type(value) is str and value == const) and rest(value)
        negated = _compile(negated_node, refs, names, f"{at}/not")
        return lambda value: not negated(value) and rest(value)
    return rest


def _string(value: object, at: str, keyword: str) -> str:
    """A ``const``/``enum`` value: only strings, whose JSON equality is Python's (numbers
    are equal across int and float in JSON Schema, containers by their items)."""
    if type(value) is not str:
        raise _refuse(at, f"{keyword!r} with a value that is not a string ({value!r})")
    return value


def _count(node: dict[str, Any], keyword: str, at: str) -> int:
    value = node.get(keyword, 0)
    if type(value) is not int or value < 0:
        raise _refuse(at, f"{keyword!r}: {value!r} (only a non-negative integer)")
    return value


def _compile_rest(
    node: dict[str, Any], refs: dict[str, Check], names: frozenset[str], at: str
) -> Check:
    if "const" in node:
        const = _string(node["const"], at, "const")
        return lambda value: type(value) is str and value == const
    if "enum" in node:
        if not isinstance(node["enum"], list):
            raise _refuse(at, "an enum that is not a list")
        words = frozenset(_string(option, at, "enum") for option in node["enum"])
        return lambda value: type(value) is str and value in words
    kind = node["type"]
    if kind == "string":
        pattern = node.get("pattern")
        if pattern is not None and not isinstance(pattern, str):
            raise _refuse(at, f"'pattern': {pattern!r}")
        return _compile_string(_count(node, "minLength", at), pattern)
    if kind == "boolean":
        return lambda value: isinstance(value, bool)
    if kind == "integer":
        minimum = node.get("minimum", -math.inf)
        if type(minimum) not in (int, float):
            raise _refuse(at, f"'minimum': {minimum!r}")
        # Compare as Python numbers: float() would overflow on a 4000-digit integer.
        return lambda value: _is_int(value) and cast(float, value) >= minimum
    if kind == "array":
        min_items = _count(node, "minItems", at)
        items = None if "items" not in node else _compile(node["items"], refs, names, f"{at}/items")

        def array(value: object) -> bool:
            if not isinstance(value, list) or len(value) < min_items:
                return False
            if items is not None:
                for item in value:
                    if not items(item):
                        return False
            return True

        return array
    return _compile_object(node, refs, names, at)


def _is_int(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (
        isinstance(value, float) and math.isfinite(value) and value.is_integer()
    )


def _compile_string(min_length: int, pattern: str | None) -> Check:
    if min_length == 0 and pattern is None:  # most text fields
        return lambda value: isinstance(value, str)
    search = None if pattern is None else re.compile(pattern).search  # unanchored, as in JSON

    def string(value: object) -> bool:
        if not isinstance(value, str) or len(value) < min_length:
            return False
        return search is None or search(value) is not None

    return string


def _compile_object(
    node: dict[str, Any], refs: dict[str, Check], names: frozenset[str], at: str
) -> Check:
    required = node.get("required", [])
    if not isinstance(required, list) or not all(isinstance(key, str) for key in required):
        raise _refuse(at, f"'required': {required!r}")
    required_keys = tuple(required)
    properties = node.get("properties", {})
    if not isinstance(properties, dict):
        raise _refuse(at, "a properties that is not a mapping")
    props = {
        key: _compile(sub, refs, names, f"{at}/properties/{key}") for key, sub in properties.items()
    }
    key_schema = node.get("propertyNames")
    name_check = None
    if key_schema is not None:
        if not isinstance(key_schema, dict) or "type" in key_schema:
            raise _refuse(f"{at}/propertyNames", f"propertyNames {key_schema!r}")
        name_check = _compile({"type": "string", **key_schema}, refs, names, f"{at}/propertyNames")
    extra_check = None
    if "additionalProperties" in node:
        extra = node["additionalProperties"]
        if not isinstance(extra, dict):  # false (or true): not implemented, so refused
            raise _refuse(at, f"'additionalProperties': {extra!r}")
        extra_check = _compile(extra, refs, names, f"{at}/additionalProperties")

    def obj(value: object) -> bool:
        if not isinstance(value, dict):
            return False
        for key in required_keys:
            if key not in value:
                return False
        for key, item in value.items():
            if name_check is not None and not name_check(key):
                return False
            check = props.get(key)
            if check is not None:
                if not check(item):
                    return False
            elif extra_check is not None and not extra_check(item):
                return False
        return True

    return obj
