"""``statedoc db check`` for a bound column's history (:mod:`.history_pg`): read what the
database holds, and judge it.

:func:`read_histories` runs in the check's read-only transaction, after
:func:`.installed.read_catalog` (so names print schema-qualified). :func:`judge_history` is
pure: a missing history table is SD123; its comment is judged as every other object's
(SD124, SD128); a table that is not shaped as generated, or a key column the bound table
lacks, is SD132; a role other than the owner that may write the table (or a column of it),
or execute its recorder, and an append-only trigger that is missing, disabled or does not
fire as generated, is SD131. The recorder and refuser functions and the two recording
triggers are judged like the spec's other functions and triggers (:mod:`.verify`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from generator.targets.sql import history as h
from generator.targets.sql.history_pg import WRITE_PRIVILEGES, PgHistory
from generator.targets.sql.installed import Catalog, Comment, parse_comment
from generator.targets.sql.names import ident
from generator.targets.sql.plan import SqlPlan
from generator.targets.sql.verdicts import (
    Problem,
    Report,
    Verdict,
    comment_verdict,
    missing,
    provenance,
)

MISSING, WRITABLE, DIFFERS = "SD123", "SD131", "SD132"


@dataclass(frozen=True)
class HistoryColumn:
    type: str  # format_type
    not_null: bool
    identity: str  # pg_attribute.attidentity: '' none, 'a' ALWAYS, 'd' BY DEFAULT


@dataclass(frozen=True)
class InstalledHistory:
    name: str  # as generated, quoted and qualified
    oid: int
    relkind: str
    owner: str
    comment: Comment | None
    columns: dict[str, HistoryColumn]
    writers: tuple[str, ...]  # "role may INSERT" (or "... on column c") for non-owners


_TABLE = """
SELECT c.oid, c.relkind, pg_catalog.pg_get_userbyid(c.relowner), d.description
  FROM pg_catalog.pg_class c
  LEFT JOIN pg_catalog.pg_description d
    ON d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objoid = c.oid
   AND d.objsubid = 0
 WHERE c.oid = pg_catalog.to_regclass(%(name)s)
"""
_COLUMNS = """
SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity
  FROM pg_catalog.pg_attribute a
 WHERE a.attrelid = %(oid)s AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attnum
"""
_GRANTEE = "CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.pg_get_userbyid(a.grantee) END"
_WRITERS = f"""
SELECT {_GRANTEE}, a.privilege_type, NULL::pg_catalog.text
  FROM pg_catalog.pg_class c
 CROSS JOIN LATERAL pg_catalog.aclexplode(
         coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))) a
 WHERE c.oid = %(oid)s AND a.grantee <> c.relowner AND a.privilege_type = ANY (%(privileges)s)
UNION
SELECT {_GRANTEE}, a.privilege_type, t.attname::pg_catalog.text
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_attribute t ON t.attrelid = c.oid AND t.attacl IS NOT NULL
 CROSS JOIN LATERAL pg_catalog.aclexplode(t.attacl) a
 WHERE c.oid = %(oid)s AND a.grantee <> c.relowner AND a.privilege_type = ANY (%(privileges)s)
 ORDER BY 1, 2, 3
"""
_EXECUTORS = f"""
SELECT {_GRANTEE}
  FROM pg_catalog.pg_proc p
 CROSS JOIN LATERAL pg_catalog.aclexplode(
         coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
 WHERE p.oid = %(oid)s AND a.grantee <> p.proowner AND a.privilege_type = 'EXECUTE'
 ORDER BY 1
"""


def read_histories(connection: Any, names: Iterable[str]) -> dict[str, InstalledHistory]:
    """The installed history tables among ``names`` (qualified, quoted), by name."""
    out: dict[str, InstalledHistory] = {}
    for name in dict.fromkeys(names):
        row = connection.execute(_TABLE, {"name": name}).fetchone()
        if row is None:
            continue
        oid = int(row[0])
        columns = {
            column: HistoryColumn(type_, bool(not_null), str(identity))
            for column, type_, not_null, identity in connection.execute(_COLUMNS, {"oid": oid})
        }
        writers = tuple(
            f"{role} may {privilege}" + (f" column {column}" if column else "")
            for role, privilege, column in connection.execute(
                _WRITERS, {"oid": oid, "privileges": list(WRITE_PRIVILEGES)}
            )
        )
        out[name] = InstalledHistory(
            name, oid, str(row[1]), row[2], parse_comment(row[3]), columns, writers
        )
    return out


def read_executors(connection: Any, oids: Iterable[int]) -> dict[int, tuple[str, ...]]:
    """Roles other than the owner that may execute each function (PUBLIC included)."""
    return {
        oid: tuple(r[0] for r in connection.execute(_EXECUTORS, {"oid": oid}))
        for oid in dict.fromkeys(oids)
    }


def column_diffs(history: InstalledHistory) -> list[str]:
    """How the installed table's columns differ from :data:`.history.PG_COLUMNS`."""
    out: list[str] = []
    if history.relkind != "r":
        out.append(f"is a relation of kind {history.relkind!r}, not a table")
    for name, (type_, not_null) in h.PG_COLUMNS.items():
        column = history.columns.get(name)
        if column is None:
            out.append(f"has no column {name}")
            continue
        if column.type != type_:
            out.append(f"has {name} {column.type}, not {type_}")
        if column.not_null != not_null:
            out.append(f"has {name} {'NOT NULL' if column.not_null else 'nullable'}")
        identity = "a" if name == h.ID else ""
        if column.identity != identity:
            out.append(
                f"has {name} {'not ' if identity else ''}GENERATED ALWAYS AS IDENTITY"
                if column.identity in ("", "a")
                else f"has {name} GENERATED BY DEFAULT, so a writer could choose its id"
            )
    extra = [c for c in history.columns if c not in h.PG_COLUMNS]
    if extra:
        out.append(f"has columns statedoc does not generate: {', '.join(extra)}")
    return out


def judge_history(
    report: Report,
    plan: SqlPlan,
    history: PgHistory,
    catalog: Catalog,
    installed: InstalledHistory | None,
    executors: dict[int, tuple[str, ...]],
) -> set[int]:
    """Judge the history table, its privileges and its append-only trigger (the functions
    and recording triggers are judged with the spec's own); the oids found."""
    spec_id = plan.spec.id
    table = history.table
    label = f"history table {table.schema}.{table.name}"
    recorder = catalog.function(history.recorder.schema, history.recorder.name, ())
    found: set[int] = set()
    if recorder is not None and executors.get(recorder.oid):
        report.problems.append(
            _problem(
                spec_id,
                f"{spec_id}: {', '.join(executors[recorder.oid])} may execute "
                f"{recorder.signature}, which writes the history with its owner's rights (it "
                f"could be attached to another table): REVOKE EXECUTE ON FUNCTION "
                f"{recorder.signature} FROM PUBLIC (and each role), or apply the generated "
                ".postgresql.sql",
            )
        )
    if installed is None:
        missing(report, plan, label)
        return found
    found.add(installed.oid)
    obj = Verdict(report, spec_id, "table", table.qualified, provenance(installed.comment), label)
    if comment_verdict(obj, plan, installed.comment):
        diffs = column_diffs(installed)
        if diffs:
            obj.add(DIFFERS, f"{spec_id}: the {label} {'; '.join(diffs)}")
    bound = catalog.tables.get(history.triggers[0].table_name)
    if bound is not None and bound.oid is not None:
        lost = [k for k in table.keys if k not in bound.columns]
        if lost:
            obj.add(
                DIFFERS,
                f"{spec_id}: the bound table {bound.label} has no key column(s) "
                f"{', '.join(lost)}, which its history records: every write of a state fails",
            )
    if installed.writers:
        obj.add(
            WRITABLE,
            f"{spec_id}: the {label} is not append-only: {'; '.join(installed.writers)}: "
            f"REVOKE {', '.join(WRITE_PRIVILEGES)} ON {table.qualified} FROM each (or apply the "
            "generated .postgresql.sql, which does)",
        )
    found |= _append_only(obj, history, catalog, installed)
    obj.close()
    return found


def _append_only(
    obj: Verdict, history: PgHistory, catalog: Catalog, installed: InstalledHistory
) -> set[int]:
    spec_id = obj.spec_id
    expected = history.append_only
    trigger = catalog.trigger(installed.oid, expected.name)
    if trigger is None:
        obj.add(
            WRITABLE,
            f"{spec_id}: the {obj.label} has no trigger {expected.name}, so its owner's UPDATE, "
            "DELETE and TRUNCATE go through: apply the generated .postgresql.sql",
        )
        return set()
    out: list[str] = []
    if trigger.enabled not in ("O", "A"):
        out.append(f"is disabled (tgenabled {trigger.enabled!r})")
    if trigger.row or trigger.timing != "BEFORE":
        out.append("does not fire BEFORE, once per statement")
    if set(trigger.events) != set(expected.events):
        out.append(f"fires on {' OR '.join(trigger.events)}, not {' OR '.join(expected.events)}")
    refuser = catalog.function(expected.function.schema, expected.function.name, ())
    if refuser is None or trigger.function_oid != refuser.oid:
        out.append(f"executes {trigger.function}, not {expected.function.signature}")
    if trigger.when is not None or trigger.args:
        out.append("has a WHEN condition or arguments, which statedoc never generates")
    if out:
        obj.add(
            WRITABLE,
            f"{spec_id}: the trigger {ident(expected.name)} on {obj.label} {'; '.join(out)}: "
            "apply the generated .postgresql.sql",
        )
    return {trigger.oid}


def _problem(spec_id: str, message: str) -> Problem:
    return Problem(WRITABLE, spec_id, message)
