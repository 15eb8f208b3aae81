"""Issue 25 section 1: how history is turned on, and the key it records.

Front matter ``storage`` takes ``history`` (a boolean) and ``key`` (a column or a list); the
schema refuses other types, SD130 an empty or repeated key, a key that includes the state
column or is no SQL identifier. ``[tool.statedoc.sql]`` takes ``history`` for every binding
and ``history``/``key`` per binding; a bad value is a configuration error, a configured key
that cannot identify a row is SD130 at generation. The default key is ``id``; the spec's
own ``storage.history`` wins over the configuration's.
"""

from __future__ import annotations

from typing import Any

import pytest

from generator.core.errors import ConfigError
from generator.lint.document import lint_bytes
from generator.targets.sql.findings import target_findings
from generator.targets.sql.history import DEFAULT_KEY
from generator.targets.sql.names import SqlError
from generator.targets.sql.plan import binding_for
from generator.targets.sql.settings import SqlBinding, SqlSettings, parse

from ..test_generate_support import spec_text


def bound(storage: dict[str, Any] | None = None, **extra: Any) -> Any:
    """Lint the door spec with ``storage`` = table doors, column state and ``extra``."""
    front = {"storage": {"table": "doors", "column": "state", **extra}} if storage is None else {}
    text = spec_text(
        ["closed", "open"], [{"from": "closed", "to": "open", "trigger": "t"}], extra=front
    )
    return lint_bytes(text.encode(), "specs/door.md")


def codes(result: Any) -> list[str]:
    """Every code but SD301 (the test document has no diagram)."""
    return [f.code for f in result.findings if f.code != "SD301"]


def test_a_spec_turns_history_on_with_the_default_key() -> None:
    result = bound(history=True)
    assert result.document is not None and codes(result) == []
    binding = binding_for(result.document.spec, SqlSettings())
    assert binding == SqlBinding("doors", "state", None, True, DEFAULT_KEY)


@pytest.mark.parametrize("key", ["door_id", ["tenant", "door_id"]])
def test_a_spec_names_its_key(key: str | list[str]) -> None:
    result = bound(history=True, key=key)
    assert result.document is not None and codes(result) == []
    binding = binding_for(result.document.spec, SqlSettings())
    assert binding is not None
    assert binding.key == ((key,) if isinstance(key, str) else tuple(key))


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ([], "empty"),
        (["id", "id"], "more than once"),
        (["id", "state"], "state column"),
        ("Door Id", "lower-case SQL identifier"),
    ],
)
def test_an_unusable_key_is_sd130_at_the_key(key: str | list[str], says: str) -> None:
    result = bound(history=True, key=key)
    found = [f for f in result.findings if f.code == "SD130"]
    assert len(found) == 1 and says in found[0].message
    assert result.document is not None
    line = result.document.source.text.splitlines()[found[0].line - 1]
    assert line.lstrip().startswith("key:")


@pytest.mark.parametrize("value", ["yes", 1, "true"])
def test_history_must_be_a_boolean(value: object) -> None:
    assert codes(bound(history=value)) == ["SD010"]


def test_the_configuration_turns_history_on_for_every_binding_unless_one_says_not() -> None:
    settings = parse(
        {
            "history": True,
            "bindings": {
                "STATE-A-1": {"table": "a", "column": "s"},
                "STATE-B-1": {"table": "b", "column": "s", "history": False},
                "STATE-C-1": {"table": "c", "column": "s", "key": ["tenant", "c_id"]},
            },
        },
        "[tool.statedoc.sql]",
    )
    assert settings.bindings["STATE-A-1"] == SqlBinding("a", "s", None, True, DEFAULT_KEY)
    assert not settings.bindings["STATE-B-1"].history
    assert settings.bindings["STATE-C-1"].key == ("tenant", "c_id")
    spec = bound().document.spec
    assert binding_for(spec, settings).history  # type: ignore[union-attr]
    spec = bound(history=False).document.spec
    assert not binding_for(spec, settings).history  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "table",
    [
        {"history": "yes"},
        {"bindings": {"STATE-A-1": {"table": "a", "column": "s", "history": 1}}},
        {"bindings": {"STATE-A-1": {"table": "a", "column": "s", "key": 3}}},
        {"bindings": {"STATE-A-1": {"table": "a", "column": "s", "key": ["Bad Name"]}}},
        {"bindings": {"STATE-A-1": {"table": "a", "column": "s", "keys": ["id"]}}},
    ],
)
def test_bad_configuration_values_are_configuration_errors(table: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        parse(table, "[tool.statedoc.sql]")


def test_a_configured_key_that_identifies_nothing_is_sd130_and_refused() -> None:
    result = bound({})
    document = result.document
    assert document is not None
    settings = SqlSettings(
        bindings={document.spec.id: SqlBinding("doors", "state", None, True, ("state",))}
    )
    found = [f for f in target_findings([document], settings) if f.code == "SD130"]
    assert len(found) == 1 and "state column" in found[0].message
    from generator.targets.sql.plan import build_plan

    with pytest.raises(SqlError, match="state column"):
        build_plan(document.spec, settings, source="specs/door.md", sha256="0" * 64)
