"""SD12x: the database binding of a spec (front matter ``storage``) and the SQL target.

SD120 and SD130 are document checks. SD121 and SD122 look at the documents a ``sql``
generation run covers (:func:`generator.targets.sql.findings.target_findings`, which also
reports SD130 for a configured binding); SD123 to SD129, SD131 and SD132 are what
``statedoc db check`` reports about a live database (:mod:`generator.targets.sql.verify`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from generator.core.findings import Severity
from generator.model.document import Document
from generator.model.names import SQL_NAME, SQL_NAME_BYTES
from generator.rules import Hit, Rule, register, rule
from generator.rules.examples import BODY, DOOR, HEADER

_STORAGE = "storage:\n  table: doors\n  column: state\n"
_BOUND = f"---\n{HEADER}{DOOR}{_STORAGE}---\n{BODY}"
_PLAIN = re.compile(SQL_NAME)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a bound table, column or schema, or None when it can."""
    if _PLAIN.fullmatch(name) is None:
        return (
            f"{name!r} is not a lower-case SQL identifier ([a-z_][a-z0-9_$]*); generated SQL "
            "quotes names, so write the name as the database stores it"
        )
    if len(name.encode("utf-8")) > SQL_NAME_BYTES:
        return f"{name!r} is longer than PostgreSQL's {SQL_NAME_BYTES}-byte identifier limit"
    return None


@rule(
    "SD120",
    "sql-identifier",
    "`storage`'s table, column or schema is not a valid SQL identifier",
    why="The SQL target quotes every identifier, so `Orders` would name a table other than "
    "the `orders` an unquoted `CREATE TABLE Orders` made; PostgreSQL silently cuts names "
    "longer than 63 bytes.",
    bad=f"{DOOR}storage:\n  table: Door Rows\n  column: state\n",
    good=f"{DOOR}{_STORAGE}",
)
def sql_identifier(doc: Document) -> Iterator[Hit]:
    storage = doc.spec.storage
    if storage is None:
        return
    for key in ("schema", "table", "column"):
        value = getattr(storage, key)
        problem = None if value is None else name_problem(value)
        if problem is not None:
            yield Hit(f"storage.{key}: {problem}", ("storage", key))


def key_problem(key: tuple[str, ...], column: str) -> str | None:
    """Why ``key`` cannot identify the rows of a history, or None when it can (whether each
    name is an identifier is :func:`name_problem`'s, a lint and configuration check)."""
    if not key:
        return "the key is empty: name the column(s) that identify a row, or leave `key` out for id"
    repeated = sorted({name for name in key if key.count(name) > 1})
    if repeated:
        return f"the key names {', '.join(map(repr, repeated))} more than once"
    if column in key:
        return (
            f"the key includes the state column {column!r}: a row's key must not change when "
            "its state does"
        )
    return None


@rule(
    "SD130",
    "sql-history-key",
    "the history of a bound column has no usable key: `key` is empty, repeats a column, names "
    "the state column or is not an SQL identifier",
    why="Each history row records the key of the row that changed (default: the column id); "
    "without a usable key, the history could not say which row moved. The generated file also "
    "refuses to apply when a key column does not exist.",
    bad=f"{DOOR}storage:\n  table: doors\n  column: state\n  history: true\n  key: []\n",
    good=f"{DOOR}storage:\n  table: doors\n  column: state\n  history: true\n  key: door_id\n",
)
def sql_history_key(doc: Document) -> Iterator[Hit]:
    storage = doc.spec.storage
    if storage is None or storage.key is None:
        return
    problem = key_problem(storage.key, storage.column) or next(
        filter(None, map(name_problem, storage.key)), None
    )
    if problem is not None:
        yield Hit(f"storage.key: {problem}", ("storage", "key"))


def _target_rule(code: str, name: str, summary: str, why: str, bad: str, **kw: object) -> None:
    severity = kw.get("severity", Severity.ERROR)
    assert isinstance(severity, Severity)
    register(Rule(code, name, severity, summary, why, bad, _BOUND, scope=str(kw["scope"])))


_target_rule(
    "SD121",
    "sql-name-collision",
    "two specs generate the same SQL object name (after the 63-byte limit) or bind the same column",
    "Generated objects share one schema: a second spec with the same object name would "
    "replace the first's check, and two triggers on one column enforce two lifecycles at once.",
    f"{_BOUND}\n(and another document titled Door, or bound to doors.state)\n",
    scope="generate",
)
_target_rule(
    "SD122",
    "sql-no-binding",
    "the SQL target cannot write SQLite triggers: the spec has no table and column binding",
    "SQLite has no trigger functions to attach by hand; its triggers must name the table. "
    "Add `storage` to the front matter or a `[tool.statedoc.sql.bindings]` entry.",
    f"---\n{HEADER}{DOOR}---\n{BODY}\n(generated with the sql target)\n",
    severity=Severity.WARNING,
    scope="generate",
)
_target_rule(
    "SD123",
    "db-object-missing",
    "`db check`: a generated object of this spec is not installed in the database",
    "The spec is enforced only where its SQL was applied; a missing trigger lets any writer "
    "store a pair the spec forbids.",
    f"{_BOUND}\n(the database lacks the trigger statedoc_door on doors)\n",
    scope="database",
)
_target_rule(
    "SD124",
    "db-object-stale",
    "`db check`: a generated object in the database carries another SHA-256 than the spec",
    "The database enforces an older revision of the spec than the repository holds (or objects "
    "whose comment names another document, or none): apply the generated SQL as a migration. "
    "A newer revision is SD128.",
    f"{_BOUND}\n(the database's check function comes from the spec's previous revision)\n",
    scope="database",
)
_target_rule(
    "SD125",
    "db-trigger-not-firing",
    "`db check`: a generated trigger is disabled, fires only for replication, or does not fire "
    "as generated (BEFORE ROW, the event and column, the function, the WHEN condition)",
    "A trigger that exists but does not fire enforces nothing: `ALTER TABLE ... DISABLE TRIGGER`, "
    "`ENABLE REPLICA TRIGGER` or a trigger recreated AFTER, on another column or with another "
    "WHEN lets writes through while the trigger and its comment are still there.",
    f"{_BOUND}\n(ALTER TABLE doors DISABLE TRIGGER statedoc_door_update)\n",
    scope="database",
)
_target_rule(
    "SD126",
    "db-definition-differs",
    "`db check`: a generated function or domain in the database is not defined as the "
    "repository generates it, whatever its comment says",
    "`CREATE OR REPLACE FUNCTION` keeps the old COMMENT: a check function whose body just "
    "returns, or that lost its `SET search_path`, still looks installed. Bodies, settings, "
    "volatility and the domain's constraint are compared with the generated ones.",
    f"{_BOUND}\n(the check function was replaced by BEGIN RETURN; END)\n",
    scope="database",
)
_target_rule(
    "SD127",
    "db-object-unknown",
    "`db check`: an object in statedoc's schema, or carrying a statedoc comment, that no spec "
    "of the repository generates",
    "Objects of a deleted or renamed spec, or of a spec the repository never had, keep "
    "enforcing (or pretending to enforce) a lifecycle nobody reviews; like a left-over "
    "generated file (SD403), they are reported. Checked only without PATHs.",
    f"{_BOUND}\n(the database also holds statedoc.window_check() of a spec deleted since)\n",
    scope="database",
)
_target_rule(
    "SD128",
    "db-revision-newer",
    "`db check`: the database holds a newer revision of a spec than the repository",
    "The database was migrated from a branch or release the repository does not have yet; "
    "applying this repository's file would go back a revision (the file refuses unless "
    "`statedoc.allow_downgrade` is on).",
    f"{_BOUND}\n(the database's objects say revision 3, the spec says revision 2)\n",
    scope="database",
)
_target_rule(
    "SD129",
    "db-unverified",
    "`db check`: part of an installed object could not be compared with the generated one",
    "Trigger conditions and domain constraints are compared by having the server parse the "
    "generated text into temporary objects in a rolled-back transaction. A role that may not "
    "create temporary objects, or a read-only standby, cannot: the check says so instead of "
    "passing in silence. Grant TEMPORARY on the database, or run the check on the primary.",
    f"{_BOUND}\n(REVOKE TEMPORARY ON DATABASE app FROM checker)\n",
    severity=Severity.WARNING,
    scope="database",
)
_target_rule(
    "SD131",
    "db-history-writable",
    "`db check`: a history table can be changed by a role other than its owner, or its "
    "append-only trigger is missing or does not fire",
    "History is evidence only while nobody but its owner can rewrite it: no role but the owner "
    "may hold INSERT, UPDATE, DELETE, TRUNCATE or TRIGGER on the table (or a column of it), no "
    "role but the owner may execute the SECURITY DEFINER function that writes it (it could be "
    "attached to another table to write made-up rows), and the trigger refusing UPDATE, DELETE "
    "and TRUNCATE must fire.",
    f"{_BOUND}\n(GRANT UPDATE ON doors_state_history TO app)\n",
    scope="database",
)
_target_rule(
    "SD132",
    "db-history-differs",
    "`db check`: a history table is not shaped as generated, or a key column it records is "
    "missing from the bound table",
    "Readers of the history (`db audit`, a migration recording moved rows) rely on its columns "
    "and types; a key column dropped from the bound table makes every write of a state fail "
    "in the history trigger.",
    f"{_BOUND}\n(ALTER TABLE doors_state_history DROP COLUMN transaction_id)\n",
    scope="database",
)
