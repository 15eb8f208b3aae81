"""Ask the server what it makes of the generated text, without changing the database.

PostgreSQL keeps a trigger's ``WHEN`` and a domain's ``CHECK`` parsed, so the generated text
cannot be compared with the catalog as is. :func:`probe_generated` has the server parse it
into throwaway objects: in one transaction that is always rolled back, a TEMP table with the
bound column's type and collation gets the expected trigger, and a TEMP domain the expected
constraint; their ``pg_get_triggerdef()`` / ``pg_get_constraintdef()`` are what the installed
objects must print. Deparsed text survives ``pg_dump`` and restore (which re-creates these
objects from that very text), unlike the node trees in ``pg_trigger.tgqual``, whose column
numbers and source offsets change. A role that may not create temporary objects, or a
read-only standby, yields a reason instead (reported as "could not verify").

:func:`domain_accepts` is read-only: it casts values to the installed domain.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from generator.targets.sql.installed import CATALOG_PATH, Column, Trigger, when_of
from generator.targets.sql.names import ident, qualified
from generator.targets.sql.pg_functions import PgDomain, PgTrigger

#: Built in, always executable: a probe trigger needs some trigger function, and its WHEN
#: does not depend on which.
_ANY_TRIGGER_FUNCTION = "pg_catalog.suppress_redundant_updates_trigger()"


@dataclass(frozen=True)
class Unverified:
    """Why the server could not be asked (no privilege, read-only, ...)."""

    reason: str


@dataclass(frozen=True)
class TriggerProbe:
    """One installed trigger to probe: the expected one and the bound column's type."""

    expected: PgTrigger
    installed: Trigger
    column: Column


@dataclass(frozen=True)
class Probed:
    """Expected deparsed texts by the installed object's oid (or why there is none)."""

    whens: dict[int, str | Unverified]
    constraints: dict[int, str | Unverified]


def _reason(exc: Exception) -> str:
    sqlstate = getattr(exc, "sqlstate", None)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{text} (SQLSTATE {sqlstate})" if sqlstate else text


def _fatal(exc: Exception) -> bool:
    """Errors that end the check (timeout, lost connection) rather than one probe."""
    import psycopg

    return isinstance(exc, psycopg.errors.QueryCanceled | psycopg.OperationalError)


def probe_generated(
    connection: Any, triggers: Sequence[TriggerProbe], domains: Sequence[tuple[int, PgDomain]]
) -> Probed:
    """Deparse each expected ``WHEN`` and domain constraint (see the module docstring).
    ``domains`` pairs an installed domain's oid with the expected one."""
    import psycopg

    whens: dict[int, str | Unverified] = {}
    constraints: dict[int, str | Unverified] = {}
    if not triggers and not domains:
        return Probed(whens, constraints)
    try:
        with connection.transaction(force_rollback=True):
            connection.execute("SET TRANSACTION READ WRITE")
            connection.execute(f"SET LOCAL search_path = {CATALOG_PATH}")
            for number, probe in enumerate(triggers):
                whens[probe.installed.oid] = _one(connection, number, _when_probe, probe)
            for number, (oid, domain) in enumerate(domains):
                constraints[oid] = _one(connection, number, _domain_probe, domain)
    except psycopg.Error as exc:
        if _fatal(exc):
            raise
        failed = Unverified(_reason(exc))
        whens = {probe.installed.oid: whens.get(probe.installed.oid, failed) for probe in triggers}
        constraints = {oid: constraints.get(oid, failed) for oid, _ in domains}
    return Probed(whens, constraints)


def _one(connection: Any, number: int, probe: Any, item: Any) -> str | Unverified:
    """One probe in a savepoint, so one failure (a type the role may not use) spares the
    others."""
    import psycopg

    try:
        with connection.transaction():
            result: str | Unverified = probe(connection, number, item)
            return result
    except psycopg.Error as exc:
        if _fatal(exc):
            raise
        return Unverified(_reason(exc))


def _when_probe(connection: Any, number: int, probe: TriggerProbe) -> str | Unverified:
    expected, column = probe.expected, probe.column
    table = f"pg_temp.{ident(f'statedoc_probe_table_{number}')}"
    collate = f" COLLATE {column.collation}" if column.collation else ""
    connection.execute(
        f"CREATE TEMP TABLE {table} ({ident(expected.column)} {column.type}{collate})"
    )
    event = "INSERT" if expected.event == "INSERT" else f"UPDATE OF {ident(expected.column)}"
    name = ident(expected.name)
    connection.execute(
        f"CREATE TRIGGER {name} BEFORE {event} ON {table} FOR EACH ROW "
        f"WHEN ({expected.when}) EXECUTE FUNCTION {_ANY_TRIGGER_FUNCTION}"
    )
    row = connection.execute(
        "SELECT pg_catalog.pg_get_triggerdef(oid) FROM pg_catalog.pg_trigger "
        "WHERE tgrelid = %(table)s::pg_catalog.regclass AND tgname = %(name)s",
        {"table": table, "name": expected.name},
    ).fetchone()
    when = when_of(row[0]) if row else None
    return when if when is not None else Unverified("the probe trigger has no WHEN condition")


def _domain_probe(connection: Any, number: int, domain: PgDomain) -> str | Unverified:
    name = f"pg_temp.{ident(f'statedoc_probe_domain_{number}')}"
    connection.execute(
        f"CREATE DOMAIN {name} AS pg_catalog.text "
        f"CONSTRAINT {ident(domain.constraint)} CHECK ({domain.check})"
    )
    row = connection.execute(
        "SELECT pg_catalog.pg_get_constraintdef(c.oid) FROM pg_catalog.pg_constraint c "
        "WHERE c.contypid = %(domain)s::pg_catalog.regtype AND c.conname = %(name)s",
        {"domain": name, "name": domain.constraint},
    ).fetchone()
    return str(row[0]) if row else Unverified("the probe domain has no constraint")


def near_misses(states: Iterable[str]) -> list[str]:
    """Values a domain of ``states`` must reject: each state in another case or with a blank
    around it (what a case-insensitive or trimming check would let through), the empty
    string and a name that is no state."""
    names = list(states)
    known = set(names)
    out: dict[str, None] = {}
    for name in names:
        for other in (name.upper(), name.lower(), name.title(), f"{name} ", f" {name}"):
            if other not in known:
                out[other] = None
    for other in ("", "statedoc: not a state"):
        if other not in known:
            out[other] = None
    return list(out)


def domain_accepts(
    connection: Any, schema: str, name: str, values: Iterable[str]
) -> dict[str, bool] | Unverified:
    """Whether casting each value to the installed domain succeeds (read-only, one savepoint
    a value). A value rejected by anything but a check constraint stops the probe."""
    import psycopg

    target = qualified(schema, name)
    out: dict[str, bool] = {}
    for value in values:
        try:
            with connection.transaction():
                connection.execute(f"SELECT %(v)s::pg_catalog.text::{target}", {"v": value})
            out[value] = True
        except psycopg.errors.CheckViolation:
            out[value] = False
        except psycopg.Error as exc:
            if _fatal(exc):
                raise
            return Unverified(_reason(exc))
    return out
