"""What a live PostgreSQL database holds of the generated objects (``statedoc db check``).

Every object the target generates carries ``COMMENT ON ... IS 'statedoc spec=ID revision=N
sha256=HEX source=PATH'``; this module lists those comments and compares them with the
objects the current specs would generate. psycopg is imported by the caller (optional extra).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from generator.targets.sql.names import qualified
from generator.targets.sql.plan import SqlPlan

_COMMENT = re.compile(r"statedoc spec=(\S+) revision=(\d+) sha256=([0-9a-f]{64}) source=(.*)", re.S)

#: Every commented object: kind, its name as PostgreSQL prints it, the comment.
LIST_QUERY = """
SELECT 'domain', format('%I.%I', n.nspname, t.typname), d.description
  FROM pg_description d JOIN pg_type t ON d.classoid = 'pg_type'::regclass AND d.objoid = t.oid
  JOIN pg_namespace n ON n.oid = t.typnamespace
UNION ALL
SELECT 'function', p.oid::regprocedure::text, d.description
  FROM pg_description d JOIN pg_proc p ON d.classoid = 'pg_proc'::regclass AND d.objoid = p.oid
UNION ALL
SELECT 'trigger', format('%I on %s', g.tgname, g.tgrelid::regclass), d.description
  FROM pg_description d
  JOIN pg_trigger g ON d.classoid = 'pg_trigger'::regclass AND d.objoid = g.oid
"""


@dataclass(frozen=True)
class Installed:
    kind: str
    name: str
    spec_id: str
    revision: int
    sha256: str


@dataclass(frozen=True)
class Expected:
    kind: str
    label: str  # how messages name it
    query: str  # one row: (exists, comment)
    params: tuple[str, ...]


def installed_objects(connection: Any) -> list[Installed]:
    """Every object in the database whose comment statedoc wrote, sorted."""
    out = []
    for kind, name, description in connection.execute(LIST_QUERY).fetchall():
        match = _COMMENT.fullmatch(description or "")
        if match is not None:
            out.append(Installed(kind, name, match[1], int(match[2]), match[3]))
    return sorted(out, key=lambda o: (o.spec_id, o.kind, o.name))


def expected_objects(plan: SqlPlan) -> list[Expected]:
    names = plan.names
    domain = qualified(plan.schema, names.domain)
    check = qualified(plan.schema, names.check)
    trigger_function = qualified(plan.schema, names.trigger_function)
    objects = [
        Expected(
            "domain",
            domain,
            "SELECT to_regtype(%s) IS NOT NULL, obj_description(to_regtype(%s), 'pg_type')",
            (domain, domain),
        ),
        Expected(
            "function",
            f"{check}(text, text)",
            "SELECT to_regprocedure(%s) IS NOT NULL, "
            "obj_description(to_regprocedure(%s), 'pg_proc')",
            (f"{check}(text, text)",) * 2,
        ),
        Expected(
            "function",
            f"{trigger_function}()",
            "SELECT to_regprocedure(%s) IS NOT NULL, "
            "obj_description(to_regprocedure(%s), 'pg_proc')",
            (f"{trigger_function}()",) * 2,
        ),
    ]
    if plan.binding is not None:
        table = qualified(plan.binding.schema, plan.binding.table)
        objects += [
            Expected(
                "trigger",
                f"{trigger} on {table}",
                "SELECT true, obj_description(oid, 'pg_trigger') FROM pg_trigger "
                "WHERE tgrelid = to_regclass(%s) AND tgname = %s",
                (table, trigger),
            )
            for trigger in (names.insert_trigger, names.update_trigger)
        ]
    return objects


def compare(connection: Any, plan: SqlPlan) -> list[tuple[str, Expected, str | None]]:
    """``(problem, object, installed sha)`` for each expected object that is missing
    (``"missing"``) or carries another SHA-256 (``"stale"``)."""
    problems: list[tuple[str, Expected, str | None]] = []
    for item in expected_objects(plan):
        row = connection.execute(item.query, item.params).fetchone()
        if row is None or not row[0]:
            problems.append(("missing", item, None))
            continue
        match = _COMMENT.fullmatch(row[1] or "")
        sha = match[3] if match else None
        if sha != plan.sha256:
            problems.append(("stale", item, sha))
    return problems
