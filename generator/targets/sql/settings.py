"""``[tool.statedoc.sql]``: the schema generated objects live in, bindings by spec id for
documents without ``storage``, whether an INSERT must start in an initial state, and whether
bound columns keep a transition history (``history``, each binding's ``history`` and ``key``).

Read by :func:`parse` when the configuration loads (a bad value is a usage error of every
command) and again when the target is built; every name is checked here, so the rest of the
target can trust them. Light on purpose (NamedTuples, no :mod:`dataclasses`): the lint path
imports it for a project with the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from generator.core.errors import ConfigError
from generator.load.config import known_keys
from generator.model.names import SQL_NAME, SQL_NAME_BYTES
from generator.targets.sql.history import DEFAULT_KEY

if TYPE_CHECKING:
    from generator.load.config import Config

#: ``[tool.statedoc.sql]`` and each of its ``bindings``.
SQL_KEYS = {"schema", "bindings", "insert_must_be_initial", "history"}
BINDING_KEYS = {"table", "column", "schema", "history", "key"}


class SqlBinding(NamedTuple):
    """``[tool.statedoc.sql.bindings]`` (or front matter ``storage``): the column holding the
    state of one spec's rows; with ``history``, the column(s) that identify a row in it."""

    table: str
    column: str
    schema: str | None = None
    history: bool = False
    key: tuple[str, ...] = DEFAULT_KEY


class SqlSettings(NamedTuple):
    """``[tool.statedoc.sql]``, checked (the defaults: no table)."""

    schema: str = "statedoc"
    bindings: Mapping[str, SqlBinding] = MappingProxyType({})
    insert_must_be_initial: bool = True
    history: bool = False  # for every binding that does not say


def _sql_name(value: object, where: str) -> str:
    import re

    if (
        not isinstance(value, str)
        or re.fullmatch(SQL_NAME, value) is None
        or len(value.encode("utf-8")) > SQL_NAME_BYTES
    ):
        raise ConfigError(
            f"{where} must be a lower-case SQL identifier ([a-z_][a-z0-9_$]*, at most "
            f"{SQL_NAME_BYTES} bytes), not {value!r}"
        )
    return value


def _key(value: object, where: str) -> tuple[str, ...]:
    """A key: one column name or a list of them. An empty list or a repeated name is kept
    for the SD130 finding (the binding then has no usable key)."""
    if isinstance(value, str):
        return (_sql_name(value, where),)
    if not isinstance(value, list):
        raise ConfigError(f"{where} must be a column name or a list of column names")
    return tuple(_sql_name(item, f"{where}[{n}]") for n, item in enumerate(value))


def _flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where} must be true or false")
    return value


def parse(table: Mapping[str, Any], where: str) -> SqlSettings:
    """``[tool.statedoc.sql]`` (``where`` names it in errors) as :class:`SqlSettings`."""
    known_keys(table, SQL_KEYS, where)
    initial = _flag(table.get("insert_must_be_initial", True), f"{where}: insert_must_be_initial")
    history = _flag(table.get("history", False), f"{where}: history")
    raw = table.get("bindings", {})
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: bindings must be a table of spec id = {{table, column}}")
    bindings: dict[str, SqlBinding] = {}
    for spec_id, item in raw.items():
        at = f"{where} bindings.{spec_id}"
        if not isinstance(item, dict):
            raise ConfigError(f"{at} must be {{table = ..., column = ..., schema = ...?}}")
        known_keys(item, BINDING_KEYS, at)
        if not {"table", "column"} <= set(item):
            raise ConfigError(f"{at} must be {{table = ..., column = ..., schema = ...?}}")
        schema = item.get("schema")
        bindings[spec_id] = SqlBinding(
            _sql_name(item["table"], f"{at}.table"),
            _sql_name(item["column"], f"{at}.column"),
            None if schema is None else _sql_name(schema, f"{at}.schema"),
            _flag(item.get("history", history), f"{at}.history"),
            _key(item["key"], f"{at}.key") if "key" in item else DEFAULT_KEY,
        )
    return SqlSettings(
        _sql_name(table.get("schema", "statedoc"), f"{where} schema"), bindings, initial, history
    )


def sql_settings(config: Config) -> SqlSettings:
    """The project's ``[tool.statedoc.sql]`` (for the commands that use the SQL target's
    settings without generating: ``db check``)."""
    from generator.targets import table_of

    return parse(*table_of(config, "sql"))
