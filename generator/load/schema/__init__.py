"""The front matter's JSON Schema, a fast exact pre-check, and violations with paths.

jsonschema is slow to import and to run, and most documents in a repo are valid, so
``fast_valid`` (the same schema compiled by :mod:`generator.load.schema.fast`, which refuses
any keyword it does not implement) decides first; the full validator runs only when it says
no, which keeps findings identical while the clean path never imports it. A test holds the two
to agreement over the fixtures and random documents.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

from generator.load.schema.fast import Check, compile_schema
from generator.load.strict_yaml import Path

SCHEMA_FILE = "front-matter.schema.json"


@cache
def schema_text() -> str:
    # A plain file next to this module: importlib.resources would import zipfile on every lint.
    return (FilePath(__file__).parent / SCHEMA_FILE).read_text(encoding="utf-8")


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text())
    return loaded


class Violation(NamedTuple):
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


# --- the fast pass (fast.py) ---------------------------------------------------------------


@cache
def _fast_check() -> Check:
    """Built on first use; refuses a schema keyword it does not implement."""
    return compile_schema(schema())


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
        "retired": defs["retired"]["properties"],
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
    for section in ("states", "transitions", "invalid", "retired"):
        items = value.get(section)
        if isinstance(items, list):
            for index, item in enumerate(items):
                if isinstance(item, dict):
                    scan(item, (section, index), section)
    storage = value.get("storage")
    if isinstance(storage, dict):
        scan(storage, ("storage",), "storage")
    return found
