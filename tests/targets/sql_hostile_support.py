"""Hostile spec and config text for the SQL target, shared by the PostgreSQL and SQLite tests.

A :class:`Draft` is one spec with its ``[tool.statedoc.sql]`` settings, built straight into the
model (so lint's SD120 cannot stop a name the renderer would otherwise see): state names,
``why`` texts, the title, the source path and every identifier are drawn from
:func:`hostile_texts`, which glues together every way out of a literal, an identifier, a
dollar quote, a comment or a psql line (backslash commands, ``:variables``), line breaks,
invisible and astral characters. The draft also knows, independently of the renderer, what
generation must refuse (:meth:`Draft.refusal`) and what verdict the spec gives for a value or
a pair (:meth:`Draft.check_verdict`, :meth:`Draft.insert_verdict`, :meth:`Draft.update_verdict`).

For PostgreSQL, :func:`snapshot` records what a database holds (every object with a user OID,
by catalog, and the rows of the catalogs a stray statement could change) and
:func:`check_applied` compares two snapshots with what :func:`pg_objects` says the file makes.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from psycopg import sql as pgsql

from generator.model.spec import Spec, build
from generator.targets.sql.names import MAX_NAME_BYTES, message_text
from generator.targets.sql.plan import SqlPlan, build_plan
from generator.targets.sql.settings import SqlBinding, SqlSettings

if TYPE_CHECKING:
    from generator.targets.sql.pg_functions import PgDomain, PgTrigger

SPEC_ID = "STATE-TST-HOS-001"
FORBIDDEN, UNDECLARED, UNKNOWN, NOT_INITIAL, OK = "SDF01", "SDU01", "SDS01", "SDI01", None

#: Statements an attacker would like a generated file to run; each leaves a trace the tests
#: look for (a table ``pwned``, a file ``pwned`` in psql's working directory).
PAYLOADS: tuple[str, ...] = (
    "'; CREATE TABLE pwned (); --",
    '"; CREATE TABLE pwned (); --',
    "$statedoc$; CREATE TABLE pwned (); --",
    '$statedoc$""; CREATE TABLE pwned (); \\! touch pwned #',
    "\n\\! touch pwned\n",
    "\n\\o pwned\n",
    "\\gexec",
    "*/ CREATE TABLE pwned (); /*",
    "E'\\''; CREATE TABLE pwned (); --",
    "$statedoc_1$ $$ ; CREATE TABLE pwned (); --",
)

# fmt: off
#: Pieces that end or start a quote, comment, dollar quote or psql command, or that a naive
#: writer would mangle (line breaks, invisible, right-to-left, combining and astral).
FRAGMENTS: tuple[str, ...] = (
    "'", '"', "`", "''", '""', "$", "$$", "$tag$", "$statedoc$", "$statedoc_1$", "$statedoc_2$",
    "$statedoc", "statedoc$", "--", "/*", "*/", ";", "\\", "\\\\", "\\!", "\\gexec", "\\g",
    "\\o", "\\i", "\\;", ":foo", ":'foo'", ':"foo"', ":{?foo}", "%", "%s", "%I", "%L", "E'",
    "U&'", "\\x27", "\\u0027", "\r", "\n", "\r\n", "\t", "\x0b", "\x0c", "\x1b", "\x7f",
    "\x85", "é", "e\u0301", "ß", "İ", "😀", "\U0010fffd", "\U000e0041", "\u202e", "\u200f",
    "\u200b", "\u200d", "\ufeff", "\u2028", "\u2029", "\ufffd", "NULL", " ", "END", "COMMIT",
    "pg_catalog.", *PAYLOADS,
)
# fmt: on

#: Values of the configured schema that the database itself refuses to use for the file:
#: owned by another role (the file refuses with SDT01) or with the reserved ``pg_`` prefix.
FOREIGN_SCHEMAS = ("public", "pg_catalog", "information_schema", "pg_toast")


def hostile_texts(
    *, nul: bool = False, min_parts: int = 0, max_parts: int = 6
) -> st.SearchStrategy[str]:
    """Text glued from :data:`FRAGMENTS` and random Unicode (NUL only when ``nul``); never
    empty when ``min_parts`` > 0."""
    alphabet = st.characters(exclude_categories=["Cs"], exclude_characters=[] if nul else ["\0"])
    parts = st.sampled_from(FRAGMENTS) | st.text(alphabet, min_size=1, max_size=6)
    if nul:
        parts = parts | st.just("\0")
    return st.lists(parts, min_size=min_parts, max_size=max_parts).map("".join)


def truncate(text: str, size: int = MAX_NAME_BYTES) -> str:
    """The longest prefix of whole characters within ``size`` UTF-8 bytes."""
    return text.encode("utf-8")[:size].decode("utf-8", "ignore")


def at_limit(text: str, filler: str = "x", size: int = MAX_NAME_BYTES) -> str:
    """``text`` cut or filled (with ``filler``, then ``x``) to exactly ``size`` bytes."""
    out = truncate(text, size)
    while len((out + filler).encode("utf-8")) <= size:
        out += filler
    return out + "x" * (size - len(out.encode("utf-8")))


def identifiers() -> st.SearchStrategy[str]:
    """Names PostgreSQL can hold (1 to 63 bytes, no NUL), a fifth of them exactly 63 bytes."""
    plain = hostile_texts(min_parts=1, max_parts=4).map(truncate)
    limit = st.builds(at_limit, hostile_texts(max_parts=3), st.sampled_from("xé😀\u200b"))
    return st.one_of(plain, plain, plain, plain, limit)


def bad_identifiers() -> st.SearchStrategy[str]:
    """Names no identifier may be: empty, with NUL, or over 63 bytes."""
    return st.one_of(
        st.just(""),
        st.builds(
            lambda a, b: a + "\0" + b, hostile_texts(max_parts=2), hostile_texts(max_parts=2)
        ),
        st.builds(at_limit, hostile_texts(max_parts=3), st.sampled_from("xé😀"), st.just(64)),
        st.builds(lambda t: at_limit(t, "x") + "😀", hostile_texts(max_parts=3)),
    )


@dataclass(frozen=True)
class Draft:
    """One hostile spec, its binding and settings, and what the spec says about values."""

    states: tuple[str, ...]
    declared: tuple[tuple[str, str], ...]
    forbidden: dict[tuple[str, str], str]
    initial: tuple[str, ...]
    title: str
    schema: str
    table: str
    column: str
    table_schema: str | None = None
    in_storage: bool = True
    source: str = "specs/hostile/spec.md"
    revision: int = 1
    must_be_initial: bool = True
    sha: str | None = None  # the document's SHA-256 (default: one derived from the draft)

    def replace(self, **changes: Any) -> Draft:
        return replace(self, **changes)

    def front_matter(self) -> dict[str, Any]:
        front: dict[str, Any] = {
            "id": SPEC_ID,
            "title": self.title,
            "object": "DOM-TST-HOS-001",
            "product_area": "testing",
            "module": "hostile",
            "revision": self.revision,
            "status": "draft",
            "initial": list(self.initial),
            "states": [{"name": name} for name in self.states],
            "transitions": [
                {"from": a, "to": b, "trigger": f"go {i}"} for i, (a, b) in enumerate(self.declared)
            ],
            "invalid": [{"from": a, "to": b, "why": why} for (a, b), why in self.forbidden.items()],
        }
        if self.in_storage:
            storage = {"table": self.table, "column": self.column}
            front["storage"] = (
                storage if self.table_schema is None else {**storage, "schema": self.table_schema}
            )
        return front

    @property
    def spec(self) -> Spec:
        return build(self.front_matter())

    @property
    def settings(self) -> SqlSettings:
        binding = SqlBinding(self.table, self.column, self.table_schema)
        bindings = {} if self.in_storage else {SPEC_ID: binding}
        return SqlSettings(self.schema, bindings, self.must_be_initial)

    @property
    def sha256(self) -> str:
        return self.sha or hashlib.sha256(repr(self).encode("utf-8")).hexdigest()

    def plan(self) -> SqlPlan:
        """The plan generation builds (raises ``SqlError`` when it must refuse)."""
        return build_plan(self.spec, self.settings, source=self.source, sha256=self.sha256)

    def refusal(self, *, sqlite: bool = False) -> str | None:
        """Why generation must refuse this draft with ``SqlError``, or None. The SQLite file
        names only the table and column (SQLite has no schemas to create or qualify)."""
        if any("\0" in name for name in self.states):
            return "a state name holds NUL, which database text cannot hold"
        written = (self.table, self.column)
        for name in written if sqlite else (self.schema, self.table_schema, *written):
            if name is not None and (
                not name or "\0" in name or len(name.encode("utf-8")) > MAX_NAME_BYTES
            ):
                return f"{name!r} cannot be an identifier (empty, NUL or over 63 bytes)"
        return None

    # -- what the spec says, computed from the draft alone ---------------------------------

    def check_verdict(self, old: str | None, new: str | None) -> str | None:
        """The SQLSTATE of ``check(old, new)`` (None: the pair is declared)."""
        if old not in self.states or new not in self.states:
            return UNKNOWN
        if (old, new) in self.declared:
            return OK
        return FORBIDDEN if (old, new) in self.forbidden else UNDECLARED

    def update_verdict(self, old: str | None, new: str | None) -> str | None:
        """An UPDATE that changes nothing passes; anything else is :meth:`check_verdict`."""
        return OK if old == new else self.check_verdict(old, new)

    def insert_verdict(self, new: str | None) -> str | None:
        if new not in self.states:
            return UNKNOWN
        if self.must_be_initial and new not in self.initial:
            return NOT_INITIAL
        return OK

    def probes(self) -> list[str | None]:
        """Every state, then values that are not states: NULL and near misses of a state."""
        first = self.states[0]
        near = [
            None,
            first + " ",
            first.upper(),
            unicodedata.normalize("NFD", first),
            first + "\u200b",
            "not a state",
        ]
        extra = [v for v in dict.fromkeys(near) if v not in self.states]
        return [*self.states, *extra[:4]]


#: The texts :func:`drafts` may spoil: a state name, or one of the identifiers.
SPOILABLE = ("column", "schema", "state", "table_schema", "table")


@st.composite
def drafts(draw: st.DrawFn, *, spoil: tuple[str, ...] = SPOILABLE) -> Draft:
    """A hostile draft; about one in ten has one of the ``spoil`` texts replaced by one that
    generation must refuse (a NUL in a state name, a bad identifier)."""
    texts = hostile_texts(min_parts=1, max_parts=4)
    names = texts.map(lambda t: truncate(t, 200))
    states = tuple(draw(st.lists(names, min_size=1, max_size=4, unique=True)))
    pairs = [(a, b) for a in states for b in states]
    declared = tuple(draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))))
    rest = [p for p in pairs if p not in declared]
    invalid = draw(st.lists(st.sampled_from(rest), unique=True)) if rest else []
    forbidden = {pair: draw(hostile_texts(nul=True)) for pair in invalid}
    initial = tuple(draw(st.lists(st.sampled_from(states), min_size=1, unique=True)))
    title = draw(hostile_texts() | st.text(min_size=40, max_size=90))
    special = st.sampled_from(("statedoc", *FOREIGN_SCHEMAS, "pg_hostile"))
    schema = draw(st.one_of(identifiers(), identifiers(), identifiers(), special))
    table = draw(identifiers())
    table_schema = draw(st.none() | identifiers() | st.sampled_from((schema, "public")))
    draft = Draft(
        states=states,
        declared=declared,
        forbidden=forbidden,
        initial=initial,
        title=title,
        schema=schema,
        table=table,
        column=draw(identifiers()),
        table_schema=table_schema,
        in_storage=draw(st.booleans()),
        source=draw(hostile_texts(nul=True)),
        revision=draw(st.integers(1, 5)),
        must_be_initial=draw(st.booleans()),
    )
    if spoil and draw(st.integers(0, 15)) in (4, 9):  # not a bound: Hypothesis favours those
        return _spoiled(draw, draft, draw(st.sampled_from(spoil)))
    return draft


def _spoiled(draw: st.DrawFn, draft: Draft, where: str) -> Draft:
    """``draft`` with the text ``where`` names replaced by one generation must refuse."""
    if where == "state":  # rename the first state, in every pair too
        old, new = draft.states[0], draft.states[0] + "\0" + draw(hostile_texts(max_parts=2))

        def name(state: str) -> str:
            return new if state == old else state

        return draft.replace(
            states=tuple(map(name, draft.states)),
            declared=tuple((name(a), name(b)) for a, b in draft.declared),
            forbidden={(name(a), name(b)): why for (a, b), why in draft.forbidden.items()},
            initial=tuple(map(name, draft.initial)),
        )
    return draft.replace(**{where: draw(bad_identifiers())})


# -- PostgreSQL: what a database holds, before and after a file is applied -----------------

USER_OID = 16384  # FirstNormalObjectId: every object initdb did not make
_NOT_TEMP = "nspname !~ '^pg_(toast_)?temp_[0-9]+$'"  # a session's temporary schemas

_USER = f"WHERE oid >= {USER_OID}"

#: What must not change besides the new objects: category -> (key columns, query after
#: SELECT). The first key column is an OID, so the rows of new objects can be told apart.
DETAILS: dict[str, tuple[int, str]] = {
    "schemas": (1, f"oid, nspname, nspowner::regrole::text, nspacl::text FROM pg_namespace"
                   f" WHERE {_NOT_TEMP}"),
    "relations": (1, "oid, relname, relnamespace, relkind, relowner::regrole::text, relacl::text,"
                     " relrowsecurity, relforcerowsecurity, relhasrules, relpersistence,"
                     f" reloptions FROM pg_class {_USER}"),
    "columns": (2, "attrelid, attnum, attname, atttypid, attnotnull, atthasdef, attisdropped,"
                   " attcollation, attgenerated, attidentity, attacl::text FROM pg_attribute"
                   f" WHERE attrelid >= {USER_OID}"),
    "functions": (1, "p.oid, proname, pronamespace, proowner::regrole::text, lanname, prokind,"
                     " prosecdef, proleakproof, proisstrict, provolatile, proparallel,"
                     " prorettype::regtype::text, proargtypes::regtype[]::text[], proargnames,"
                     " proconfig, prosrc, proacl::text FROM pg_proc p JOIN pg_language l"
                     f" ON l.oid = p.prolang WHERE p.oid >= {USER_OID}"),
    "types": (1, "oid, typname, typnamespace, typowner::regrole::text, typtype,"
                 " typbasetype::regtype::text, typnotnull, typdefault, typacl::text"
                 f" FROM pg_type {_USER}"),
    "constraints": (1, "oid, conname, contype, contypid, convalidated,"
                       f" pg_get_constraintdef(oid) FROM pg_constraint {_USER}"),
    "triggers": (1, "oid, tgname, tgrelid, tgfoid, tgtype, tgenabled, tgisinternal, tgnargs,"
                    f" tgattr::text, pg_get_triggerdef(oid) FROM pg_trigger {_USER}"),
    "comments": (3, "objoid, classoid::regclass::text, objsubid, description"
                    f" FROM pg_description WHERE objoid >= {USER_OID}"),
    "shared comments": (2, "objoid, classoid, description FROM pg_shdescription"),
    "roles": (1, "oid, rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin,"
                 " rolreplication, rolbypassrls, rolconnlimit, rolpassword IS NULL,"
                 " rolvaliduntil FROM pg_authid"),
    "memberships": (3, "roleid, member, grantor, admin_option FROM pg_auth_members"),
    "default privileges": (1, "oid, defaclrole, defaclnamespace, defaclobjtype,"
                              " defaclacl::text FROM pg_default_acl"),
    "settings": (2, "setdatabase, setrole, setconfig FROM pg_db_role_setting"),
    "databases": (1, "oid, datname, datdba, datacl::text, datconnlimit, datallowconn"
                     " FROM pg_database"),
}  # fmt: skip

Rows = dict[tuple[Any, ...], tuple[Any, ...]]


@dataclass(frozen=True)
class Snapshot:
    objects: frozenset[tuple[str, int]]  # (catalog, OID) of every object with a user OID
    rows: dict[str, Rows]  # by category of :data:`DETAILS`
    table_rows: list[str | None]  # the bound column's values

    def schema_oid(self, name: str) -> int | None:
        return next((k[0] for k, r in self.rows["schemas"].items() if r[1] == name), None)


def table_of(draft: Draft) -> pgsql.Composed:
    """The bound table, schema-qualified (``public`` when the binding names no schema)."""
    schema = pgsql.Identifier(draft.table_schema or "public")
    return pgsql.SQL("{}.{}").format(schema, pgsql.Identifier(draft.table))


def snapshot(admin: Any, draft: Draft) -> Snapshot:
    """Every user object by catalog and OID, the :data:`DETAILS` rows, the table's values."""
    catalogs = admin.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid"
        " WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'r'"
        " AND a.attname = 'oid' ORDER BY 1"
    ).fetchall()
    union = pgsql.SQL(" UNION ALL ").join(
        pgsql.SQL("SELECT {}, oid::int8 FROM pg_catalog.{} WHERE oid >= {}{}").format(
            pgsql.Literal(name),
            pgsql.Identifier(name),
            pgsql.Literal(USER_OID),
            pgsql.SQL(f" AND {_NOT_TEMP}" if name == "pg_namespace" else ""),
        )
        for (name,) in catalogs
    )
    objects = frozenset((str(name), int(oid)) for name, oid in admin.execute(union))
    rows = {
        category: {tuple(r[:width]): tuple(r) for r in admin.execute("SELECT " + query)}
        for category, (width, query) in DETAILS.items()
    }
    select = pgsql.SQL("SELECT {} FROM {}").format(pgsql.Identifier(draft.column), table_of(draft))
    values = [value for (value,) in admin.execute(select)]
    return Snapshot(objects, rows, sorted(values, key=lambda v: (v is None, v or "")))


def _one(admin: Any, what: str, query: str, *params: object) -> int:
    rows = admin.execute(query, params).fetchall()
    assert len(rows) == 1, f"the database holds {len(rows)} {what}"
    return int(rows[0][0])


def found_objects(admin: Any, draft: Draft, plan: SqlPlan) -> dict[str, tuple[str, int]]:
    """Each object the spec creates, looked up by its exact name (plus the bound table)."""
    names = plan.names
    schema = _one(admin, f"schemas {plan.schema!r}", _SCHEMA, plan.schema)
    domain = _one(admin, f"domains {names.domain!r}", _DOMAIN, schema, names.domain)
    table_schema = draft.table_schema or "public"
    table = _one(admin, f"tables {draft.table!r}", _TABLE, table_schema, draft.table)
    found = {
        "schema": ("pg_namespace", schema),
        "domain": ("pg_type", domain),
        "domain array": ("pg_type", _one(admin, "array types", _ARRAY, domain)),
        "constraint": ("pg_constraint", _one(admin, "state_names", _CONSTRAINT, domain)),
        "table": ("pg_class", table),
    }
    for key, name in (("check", names.check), ("trigger function", names.trigger_function)):
        found[key] = ("pg_proc", _one(admin, f"functions {name!r}", _FUNCTION, schema, name))
    for key, name in (("insert", names.insert_trigger), ("update", names.update_trigger)):
        found[key] = ("pg_trigger", _one(admin, f"triggers {name!r}", _TRIGGER, table, name))
    return found


_SCHEMA = "SELECT oid FROM pg_namespace WHERE nspname = %s"
_DOMAIN = "SELECT oid FROM pg_type WHERE typnamespace = %s AND typname = %s AND typtype = 'd'"
_TABLE = (
    "SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
    " WHERE n.nspname = %s AND c.relname = %s"
)
_ARRAY = "SELECT typarray FROM pg_type WHERE oid = %s"
_CONSTRAINT = "SELECT oid FROM pg_constraint WHERE contypid = %s AND conname = 'state_names'"
_FUNCTION = "SELECT oid FROM pg_proc WHERE pronamespace = %s AND proname = %s"
_TRIGGER = "SELECT oid FROM pg_trigger WHERE tgrelid = %s AND tgname = %s AND NOT tgisinternal"


def check_applied(
    admin: Any, role: str, draft: Draft, plan: SqlPlan, before: Snapshot, after: Snapshot
) -> None:
    """Exactly the spec's objects are new, each as :func:`pg_objects` describes it and with
    the plan's comment, and nothing else in the database changed."""
    found = found_objects(admin, draft, plan)
    table = found.pop("table")[1]
    if before.schema_oid(plan.schema) is not None:
        del found["schema"]
    created = after.objects - before.objects
    assert created == set(found.values()), (sorted(created), found)
    assert before.objects <= after.objects, "objects were dropped"
    new = {oid for _, oid in found.values()}
    for category, rows in before.rows.items():
        kept = {k: r for k, r in after.rows[category].items() if k[0] not in new}
        assert kept == rows, f"{category} changed"
    assert after.table_rows == before.table_rows
    comment = message_text(plan.comment)
    comments = {k[0]: r[3] for k, r in after.rows["comments"].items() if k[0] in new}
    assert set(comments.values()) == {comment}, comments
    for key in ("domain", "check", "trigger function", "insert", "update"):
        assert found[key][1] in comments, f"the {key} has no statedoc comment"
    schema = found.get("schema", ("", before.schema_oid(plan.schema)))[1]
    if "schema" in found:
        assert after.rows["schemas"][(schema,)][2:] == (role, None)
    from generator.targets.sql.pg_functions import pg_objects

    objects = pg_objects(plan)
    domain = after.rows["types"][(found["domain"][1],)]
    assert domain[1:] == (plan.names.domain, schema, role, "d", "text", False, None, None)
    constraint = after.rows["constraints"][(found["constraint"][1],)]
    assert constraint[1:5] == (objects.domain.constraint, "c", found["domain"][1], True)
    assert constraint[5] == reparsed_constraint(admin, objects.domain)
    for function, key in zip(objects.functions, ("check", "trigger function"), strict=True):
        row = after.rows["functions"][(found[key][1],)]
        assert function.schema == plan.schema
        assert row[1:] == (
            function.name, schema, role, function.language, "f", False, False, False,
            function.volatility, function.parallel, function.returns, list(function.arg_types),
            list(function.arg_names) or None, list(function.config), function.body, None,
        )  # fmt: skip
    (attnum,) = (
        k[1] for k, r in after.rows["columns"].items() if k[0] == table and r[2] == draft.column
    )
    assert len(objects.triggers) == 2
    executes = found["trigger function"][1]
    for trigger, key in zip(objects.triggers, ("insert", "update"), strict=True):
        row = after.rows["triggers"][(found[key][1],)]
        kind = 1 | 2 | (4 if trigger.event == "INSERT" else 16)  # ROW | BEFORE | the event
        columns = "" if trigger.event == "INSERT" else str(attnum)
        assert row[1:9] == (trigger.name, table, executes, kind, "O", False, 0, columns)
        assert row[9] == reparsed_trigger(admin, trigger, draft)


def reparsed_trigger(admin: Any, trigger: PgTrigger, draft: Draft) -> str:
    """``pg_get_triggerdef`` of ``trigger`` created from its record by psycopg (rolled back):
    what psql installed must be what the record says, not a text psql or the server read
    differently."""
    name = pgsql.Identifier(trigger.name)
    event = (
        pgsql.SQL("INSERT")
        if trigger.event == "INSERT"
        else pgsql.SQL("UPDATE OF {}").format(pgsql.Identifier(trigger.column))
    )
    function = pgsql.Identifier(trigger.function.schema, trigger.function.name)
    with admin.transaction(force_rollback=True):
        admin.execute(pgsql.SQL("DROP TRIGGER {} ON {}").format(name, table_of(draft)))
        admin.execute(
            pgsql.SQL(
                "CREATE TRIGGER {} BEFORE {} ON {} FOR EACH ROW WHEN ({}) EXECUTE FUNCTION {}()"
            ).format(name, event, table_of(draft), pgsql.SQL(trigger.when), function)
        )
        (text,) = admin.execute(
            "SELECT pg_get_triggerdef(oid) FROM pg_trigger"
            " WHERE tgrelid = %s::regclass AND tgname = %s",
            (table_of(draft).as_string(admin), trigger.name),
        ).fetchone()
    return str(text)


def reparsed_constraint(admin: Any, domain: PgDomain) -> str:
    """``pg_get_constraintdef`` of the domain's check made from its record (rolled back)."""
    with admin.transaction(force_rollback=True):
        name = pgsql.Identifier(domain.schema, domain.name)
        admin.execute(
            pgsql.SQL("ALTER DOMAIN {} ADD CONSTRAINT statedoc_probe CHECK ({})").format(
                name, pgsql.SQL(domain.check)
            )
        )
        (text,) = admin.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE contypid = %s::regtype AND conname = 'statedoc_probe'",
            (name.as_string(admin),),
        ).fetchone()
    return str(text)
