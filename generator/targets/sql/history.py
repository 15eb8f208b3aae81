"""The transition history table of a bound column: its name, its columns, the row key.

Fixed here so that everything that writes or reads history spells it the same way: the
generated triggers (:mod:`.pg_history`, :mod:`.sqlite`), a migration that records moved rows
with kind ``migration``, and ``statedoc db audit``.

The table is ``<table>_<column>_history`` (cut to 63 bytes by :func:`.names.fit_name`) in the
bound table's schema; a binding without a schema means :data:`DEFAULT_SCHEMA`, and the
generated file refuses to apply when the table it binds is not there. Its columns, in order:

- ``id`` ``bigint`` identity primary key: generated, increasing in the order rows were
  written (not the order their transactions committed);
- ``row_key`` ``jsonb NOT NULL``: ``{"<key column>": to_jsonb(value), ...}``;
- ``from_state`` ``text``: the old state, NULL for an INSERT;
- ``to_state`` ``text NOT NULL``: the new state;
- ``changed_at`` ``timestamptz NOT NULL``: ``clock_timestamp()``;
- ``changed_by`` ``text NOT NULL``: the role the writing session acts as;
- ``application_name`` ``text``: ``current_setting('application_name', true)``;
- ``transaction_id`` ``xid8``: ``pg_current_xact_id()`` of the writer;
- ``revision`` ``integer NOT NULL``: the spec revision whose triggers recorded the row;
- ``kind`` ``text NOT NULL``: ``insert``, ``update`` or ``migration``.

SQLite has the same columns with SQLite's types: ``row_key`` is JSON text (``json_object``),
``changed_at`` ISO 8601 UTC text with milliseconds, and ``changed_by``, ``application_name``
and ``transaction_id`` are NULL (SQLite has no roles, sessions or transaction ids).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from generator.targets.sql.names import fit_name, ident, pg_literal, sqlite_literal


class SqlBinding(Protocol):
    """What the history needs of a binding (:class:`.settings.SqlBinding`, which imports
    this module)."""

    @property
    def table(self) -> str: ...
    @property
    def column(self) -> str: ...
    @property
    def schema(self) -> str | None: ...


#: Where the history of a binding without a schema lives (and so where its table must be).
DEFAULT_SCHEMA = "public"
#: The key column(s) when history is on and none are configured.
DEFAULT_KEY = ("id",)

ID = "id"
ROW_KEY = "row_key"
FROM_STATE = "from_state"
TO_STATE = "to_state"
CHANGED_AT = "changed_at"
CHANGED_BY = "changed_by"
APPLICATION_NAME = "application_name"
TRANSACTION_ID = "transaction_id"
REVISION = "revision"
KIND = "kind"
#: Every column, in table order.
COLUMNS = (
    ID,
    ROW_KEY,
    FROM_STATE,
    TO_STATE,
    CHANGED_AT,
    CHANGED_BY,
    APPLICATION_NAME,
    TRANSACTION_ID,
    REVISION,
    KIND,
)
#: The columns a writer of history supplies (``id`` is generated), in table order.
WRITTEN = COLUMNS[1:]

KIND_INSERT = "insert"
KIND_UPDATE = "update"
KIND_MIGRATION = "migration"
KINDS = (KIND_INSERT, KIND_UPDATE, KIND_MIGRATION)

#: Each column's PostgreSQL type as ``format_type()`` prints it, and whether it is NOT NULL.
PG_COLUMNS: dict[str, tuple[str, bool]] = {
    ID: ("bigint", True),
    ROW_KEY: ("jsonb", True),
    FROM_STATE: ("text", False),
    TO_STATE: ("text", True),
    CHANGED_AT: ("timestamp with time zone", True),
    CHANGED_BY: ("text", True),
    APPLICATION_NAME: ("text", False),
    TRANSACTION_ID: ("xid8", False),
    REVISION: ("integer", True),
    KIND: ("text", True),
}
#: The same for SQLite (declared types).
SQLITE_COLUMNS: dict[str, tuple[str, bool]] = {
    ID: ("INTEGER", True),
    ROW_KEY: ("TEXT", True),
    FROM_STATE: ("TEXT", False),
    TO_STATE: ("TEXT", True),
    CHANGED_AT: ("TEXT", True),
    CHANGED_BY: ("TEXT", False),
    APPLICATION_NAME: ("TEXT", False),
    TRANSACTION_ID: ("INTEGER", False),
    REVISION: ("INTEGER", True),
    KIND: ("TEXT", True),
}


def history_name(binding: SqlBinding) -> str:
    """``<table>_<column>_history``, within 63 bytes."""
    return fit_name(f"{binding.table}_{binding.column}", "_history")


def history_table(binding: SqlBinding) -> tuple[str, str]:
    """(schema, table) of the binding's history: the bound table's schema, else
    :data:`DEFAULT_SCHEMA`."""
    return (binding.schema or DEFAULT_SCHEMA, history_name(binding))


def history_qualified(binding: SqlBinding) -> str:
    """The history table as PostgreSQL SQL text: ``"schema"."table"``."""
    schema, table = history_table(binding)
    return f"{ident(schema)}.{ident(table)}"


def pg_row_key(keys: Sequence[str], record: str) -> str:
    """The ``row_key`` of ``record`` (``NEW``, ``OLD`` or a table alias) in PostgreSQL:
    ``jsonb_build_object('id', NEW."id", ...)``, each value as ``to_jsonb`` has it."""
    items = ", ".join(f"{pg_literal(key)}, {record}.{ident(key)}" for key in keys)
    return f"pg_catalog.jsonb_build_object({items})"


def sqlite_row_key(keys: Sequence[str], record: str) -> str:
    """The ``row_key`` of ``record`` in SQLite: ``json_object('id', NEW."id", ...)``."""
    items = ", ".join(f"{sqlite_literal(key)}, {record}.{ident(key)}" for key in keys)
    return f"json_object({items})"
