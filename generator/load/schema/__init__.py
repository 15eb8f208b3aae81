"""The front matter's JSON Schema, a fast exact pre-check, and violations with paths.

jsonschema costs ~250 ms to import and ~2 ms a document. Most documents in a repo are valid, so
``fast_valid`` (a hand-written check of the same schema) decides first; the full validator runs
only when it says no, which keeps findings identical while the clean path never imports it. A
test holds the two to agreement over the fixtures and random documents.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Any, cast

from generator.records import dataclass

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

from generator.load.strict_yaml import Path

SCHEMA_FILE = "front-matter.schema.json"


@cache
def schema_text() -> str:
    # A plain file next to this module (importlib.resources would import zipfile: +8 ms).
    return (FilePath(__file__).parent / SCHEMA_FILE).read_text(encoding="utf-8")


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text())
    return loaded


@dataclass(frozen=True, slots=True)
class Violation:
    """One schema violation at the node ``path`` (``key`` set when the key itself is wrong)."""

    path: Path
    message: str
    on_key: bool = False


@cache
def _validator() -> Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema())  # reused: validate() re-checks the metaschema


def _where(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "front matter"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_name(value: object) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
    names.update({list: "list", dict: "mapping"})
    return names.get(type(value), type(value).__name__)


def violations(value: object) -> list[Violation]:
    """Every violation of the schema, each at the deepest node it concerns."""
    out: list[Violation] = []
    for error in _validator().iter_errors(value):  # type: ignore[arg-type]
        path: Path = tuple(error.absolute_path)
        where = _where(path)
        kind = error.validator
        schema_part = error.schema if isinstance(error.schema, dict) else {}
        if kind == "required":
            missing = error.message.split("'")[1] if "'" in error.message else error.message
            message = f"{where}: missing required key {missing!r}"
        elif kind == "type":
            raw: Any = error.validator_value
            wanted = " or ".join(raw) if isinstance(raw, list) else str(raw)
            message = f"{where} must be {_article(wanted)}, not {_type_name(error.instance)}"
            if wanted == "string" and isinstance(error.instance, int | float | bool):
                message += f" ({_short(error.instance)}): quote the value"
        elif kind == "pattern":
            hint = schema_part.get("description") or f"pattern {error.validator_value}"
            message = f"{where}: {_short(error.instance)} is not valid: expected {hint}"
        elif kind == "propertyNames":
            message = f"{where}: key {_short(error.instance)} is not a valid name"
            path = (*path, str(error.instance))
            out.append(Violation(path, message, on_key=True))
            continue
        elif kind == "not":
            hint = schema_part.get("description", "not allowed")
            message = f"{where}: {_short(error.instance)} is reserved ({hint})"
        elif kind == "oneOf":
            message = f"{where} must be a state name or a non-empty list of state names"
        elif kind == "enum":
            choices: Any = error.validator_value
            options = ", ".join(str(v) for v in choices)
            message = f"{where}: {_short(error.instance)} is not one of {options}"
        else:
            message = f"{where}: {error.message}"
        out.append(Violation(path, message))
    out.sort(key=lambda v: tuple(str(p) for p in v.path))
    return out


def _article(word: str) -> str:
    word = {"object": "mapping", "array": "list"}.get(word, word)
    return ("an " if word[:1] in "aeiou" else "a ") + word


# --- the fast pass -------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (
        isinstance(value, float) and math.isfinite(value) and value.is_integer()
    )


_Check = Callable[[object], bool]


def _compile(node: dict[str, Any], refs: dict[str, _Check]) -> _Check:
    """Exactly the subset of JSON Schema that ``front-matter.schema.json`` uses, turned once
    into closures (walking the schema's dicts for every document was an eighth of a lint)."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        if name in refs:  # compiled already: call it directly, not through the table
            return refs[name]
        return lambda value: refs[name](value)  # noqa: PLW0108 - refs is filled in later
    if "oneOf" in node:
        options = tuple(_compile(option, refs) for option in node["oneOf"])

        def one_of(value: object) -> bool:
            matched = 0
            for check in options:
                if check(value):
                    matched += 1
            return matched == 1

        return one_of
    rest = _compile_rest(node, refs)
    if "not" in node:
        if node["not"].keys() == {"const"}:  # a state name: one call, not three
            const = node["not"]["const"]
            return lambda value: not (value == const and type(value) is type(const)) and rest(value)
        negated = _compile(node["not"], refs)
        return lambda value: not negated(value) and rest(value)
    return rest


def _compile_rest(node: dict[str, Any], refs: dict[str, _Check]) -> _Check:
    if "const" in node:
        const = node["const"]
        return lambda value: bool(value == const and type(value) is type(const))
    if "enum" in node:
        enum = tuple(node["enum"])
        if all(type(option) is str for option in enum):  # a set lookup, not a scan
            words = frozenset(enum)
            return lambda value: type(value) is str and value in words
        return lambda value: any(value == o and type(value) is type(o) for o in enum)
    kind = node.get("type")
    if kind == "string":
        return _compile_string(node.get("minLength", 0), node.get("pattern"))
    if kind == "integer":
        minimum = node.get("minimum", -math.inf)
        # Compare as Python numbers: float() would overflow on a 4000-digit integer.
        return lambda value: _is_int(value) and cast(float, value) >= minimum
    if kind == "array":
        min_items = node.get("minItems", 0)
        items = None if node.get("items") is None else _compile(node["items"], refs)

        def array(value: object) -> bool:
            if not isinstance(value, list) or len(value) < min_items:
                return False
            if items is not None:
                for item in value:
                    if not items(item):
                        return False
            return True

        return array
    if kind == "object":
        return _compile_object(node, refs)
    raise AssertionError(f"schema construct not covered by the fast pass: {node}")


def _compile_string(min_length: int, pattern: str | None) -> _Check:
    if min_length == 0 and pattern is None:  # most text fields
        return lambda value: isinstance(value, str)
    search = None if pattern is None else re.compile(pattern).search  # unanchored, as in JSON

    def string(value: object) -> bool:
        if not isinstance(value, str) or len(value) < min_length:
            return False
        return search is None or search(value) is not None

    return string


def _compile_object(node: dict[str, Any], refs: dict[str, _Check]) -> _Check:
    required = tuple(node.get("required", ()))
    props = {key: _compile(sub, refs) for key, sub in node.get("properties", {}).items()}
    names = node.get("propertyNames")
    name_check = None if names is None else _compile({"type": "string", **names}, refs)
    extra = node.get("additionalProperties")
    extra_check = _compile(extra, refs) if isinstance(extra, dict) else None

    def obj(value: object) -> bool:
        if not isinstance(value, dict):
            return False
        for key in required:
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


@cache
def _fast_check() -> _Check:
    root = schema()
    refs: dict[str, _Check] = {}
    for name, node in root["$defs"].items():  # a ref to an earlier definition is direct
        refs[name] = _compile(node, refs)
    return _compile(root, refs)


def fast_valid(value: object) -> bool:
    """True exactly when the full validator would report nothing."""
    return _fast_check()(value)


# --- typo'd keys (SD011) -------------------------------------------------------------------


@cache
def _known_keys() -> dict[str, tuple[tuple[str, ...], frozenset[str]]]:
    """Each section's keys, in the schema's order (suggestions) and as a set (lookups)."""
    root = schema()
    defs = root["$defs"]
    sections = {
        "": root["properties"],
        "states": defs["state"]["properties"],
        "transitions": defs["transition"]["properties"],
        "invalid": defs["invalid"]["properties"],
        "storage": root["properties"]["storage"]["properties"],
    }
    return {name: (tuple(keys), frozenset(keys)) for name, keys in sections.items()}


def typos(value: object) -> list[tuple[Path, str, str]]:
    """Extra keys that look like typos of known ones: (path of the key, key, suggestion)."""
    if not isinstance(value, dict):
        return []
    known = _known_keys()
    found: list[tuple[Path, str, str]] = []

    def scan(mapping: dict[str, object], path: Path, section: str) -> None:
        options, option_set = known[section]
        if mapping.keys() <= option_set:  # the usual case: every key is known (one C call)
            return
        for key in mapping:
            if key in options:
                continue
            import difflib  # only documents with unknown keys pay for it

            close = difflib.get_close_matches(key.lower(), options, n=1, cutoff=0.75)
            if close:
                found.append(((*path, key), key, close[0]))

    scan(value, (), "")
    for section in ("states", "transitions", "invalid"):
        items = value.get(section)
        if isinstance(items, list):
            for index, item in enumerate(items):
                if isinstance(item, dict):
                    scan(item, (section, index), section)
    storage = value.get("storage")
    if isinstance(storage, dict):
        scan(storage, ("storage",), "storage")
    return found
