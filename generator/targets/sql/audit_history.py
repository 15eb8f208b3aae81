"""The history half of ``db audit``: declared transitions counted, disallowed changes found.

Three reads of ``<table>_<column>_history`` within the window, none of them bounded by the
number of rows it returns: the totals by kind; one count per declared pair (a hash join of the
spec's pairs with the history); and the most frequent :data:`~.audit_model.SHOWN` changes the spec
does not allow, with their total. A change is allowed when it is a declared pair, or an
INSERT (``from_state`` NULL) in a state an INSERT may use (:attr:`.plan.SqlPlan.insert_states`).
Rows of kind ``migration`` are counted, never judged: a revision's migration writes them, as
the table's owner, for rows of a retired state it moved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from psycopg import sql

from generator.targets.sql import history as h
from generator.targets.sql.audit_model import EXAMPLES, SHOWN, Disallowed, HistoryFacts

if TYPE_CHECKING:
    from generator.targets.sql.audit_model import Window
    from generator.targets.sql.plan import SqlPlan

_C = 'COLLATE pg_catalog."C"'
#: The declared pairs as rows (parameters ``f`` and ``t``, the sources and the targets).
_DECLARED = (
    "ROWS FROM (pg_catalog.unnest(%(f)s::pg_catalog.text[]),"
    " pg_catalog.unnest(%(t)s::pg_catalog.text[]))"
)
_JUDGED = (
    f"h.{h.KIND} IS DISTINCT FROM {h.KIND_MIGRATION!r}"
    f" AND h.{h.CHANGED_AT} OPERATOR(pg_catalog.>=) %(since)s::pg_catalog.timestamptz"
)
_ALLOWED = (
    f"CASE WHEN h.{h.FROM_STATE} IS NULL"
    f" THEN coalesce((h.{h.TO_STATE} {_C}) OPERATOR(pg_catalog.=)"
    " ANY (%(insert)s::pg_catalog.text[]), false)"
    f" ELSE EXISTS (SELECT 1 FROM {_DECLARED} AS d(f, t)"
    f" WHERE d.f OPERATOR(pg_catalog.=) (h.{h.FROM_STATE} {_C})"
    f" AND d.t OPERATOR(pg_catalog.=) (h.{h.TO_STATE} {_C})) END"
)


def declared_pairs(plan: SqlPlan) -> list[tuple[str, str]]:
    """Every declared pair, in the order the spec first declares it (self-loops included)."""
    return list(dict.fromkeys(t.pair for t in plan.spec.transitions))


def read_history(
    connection: Any, plan: SqlPlan, table: tuple[str, str], window: Window
) -> HistoryFacts:
    history = sql.Identifier(*table)
    pairs = declared_pairs(plan)
    params: dict[str, object] = {
        "since": "-infinity" if window.start is None else window.start,
        "f": [a for a, _ in pairs],
        "t": [b for _, b in pairs],
        "insert": list(plan.insert_states),
        "shown": SHOWN,
        "examples": EXAMPLES,
    }
    totals = connection.execute(
        sql.SQL(
            f"SELECT pg_catalog.count(*) FILTER (WHERE h.{h.KIND} = {h.KIND_MIGRATION!r}),"
            f" pg_catalog.count(*) FILTER (WHERE h.{h.FROM_STATE} IS NULL"
            f" AND h.{h.KIND} IS DISTINCT FROM {h.KIND_MIGRATION!r}),"
            f" pg_catalog.count(*) FILTER (WHERE h.{h.FROM_STATE} IS NOT NULL"
            f" AND h.{h.KIND} IS DISTINCT FROM {h.KIND_MIGRATION!r})"
            f" FROM {{}} h WHERE h.{h.CHANGED_AT} OPERATOR(pg_catalog.>=)"
            " %(since)s::pg_catalog.timestamptz"
        ).format(history),
        params,
    ).fetchone()
    assert totals is not None
    counted = connection.execute(
        sql.SQL(
            f"SELECT d.n, pg_catalog.count(h.{h.ID}), pg_catalog.max(h.{h.CHANGED_AT})"
            f" FROM {_DECLARED} WITH ORDINALITY AS d(f, t, n)"
            f" LEFT JOIN {{}} h ON d.f OPERATOR(pg_catalog.=) (h.{h.FROM_STATE} {_C})"
            f" AND d.t OPERATOR(pg_catalog.=) (h.{h.TO_STATE} {_C}) AND {_JUDGED}"
            " GROUP BY d.n ORDER BY d.n"
        ).format(history),
        params,
    ).fetchall()
    declared = {pairs[int(n) - 1]: (int(count), last) for n, count, last in counted}
    example = (
        f"ARRAY(SELECT x.{h.ROW_KEY} FROM {{history}} x"
        f" WHERE x.{h.KIND} IS DISTINCT FROM {h.KIND_MIGRATION!r}"
        f" AND x.{h.CHANGED_AT} OPERATOR(pg_catalog.>=) %(since)s::pg_catalog.timestamptz"
        f" AND CASE WHEN g.f IS NULL THEN x.{h.FROM_STATE} IS NULL"
        f" ELSE (x.{h.FROM_STATE} {_C}) OPERATOR(pg_catalog.=) g.f END"
        f" AND (x.{h.TO_STATE} {_C}) OPERATOR(pg_catalog.=) g.t"
        f" ORDER BY x.{h.ID} LIMIT %(examples)s)"
    )
    rows = connection.execute(
        sql.SQL(
            f"SELECT g.f, g.t, g.n, g.last, g.lo, g.hi, g.pairs, g.total, {example} FROM ("
            f" SELECT (h.{h.FROM_STATE} {_C}) AS f, (h.{h.TO_STATE} {_C}) AS t,"
            f" pg_catalog.count(*) AS n, pg_catalog.max(h.{h.CHANGED_AT}) AS last,"
            f" pg_catalog.min(h.{h.REVISION}) AS lo, pg_catalog.max(h.{h.REVISION}) AS hi,"
            " pg_catalog.count(*) OVER () AS pairs,"
            " pg_catalog.sum(pg_catalog.count(*)) OVER () AS total"
            f" FROM {{history}} h WHERE {_JUDGED} AND NOT ({_ALLOWED})"
            " GROUP BY 1, 2 ORDER BY n DESC, f NULLS FIRST, t LIMIT %(shown)s) g"
            " ORDER BY g.n DESC, g.f NULLS FIRST, g.t"
        ).format(history=history),
        params,
    ).fetchall()
    disallowed = tuple(
        Disallowed(r[0], str(r[1]), int(r[2]), r[3], (int(r[4]), int(r[5])), tuple(r[8] or ()))
        for r in rows
    )
    return HistoryFacts(
        table=table,
        migrations=int(totals[0]),
        inserts=int(totals[1]),
        updates=int(totals[2]),
        declared=declared,
        disallowed=disallowed,
        disallowed_pairs=int(rows[0][6]) if rows else 0,
        disallowed_rows=int(rows[0][7]) if rows else 0,
    )
