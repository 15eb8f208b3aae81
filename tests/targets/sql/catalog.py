"""What a PostgreSQL database holds, to compare before and after a generated file is applied.

:func:`catalog_snapshot` lists every object a file could create or change outside the system
schemas, with its comment (enough to see that a refused or repeated file changed nothing).
For the hostile drafts of :mod:`.hostile`, :func:`snapshot` records every object with a user
OID, by catalog, and the rows of the catalogs a stray statement could change, and
:func:`check_applied` compares two snapshots with what :func:`pg_objects` says the file makes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import sql as pgsql

from generator.targets.sql.names import message_text
from generator.targets.sql.pg_functions import PgDomain, PgTrigger, pg_objects
from generator.targets.sql.plan import SqlPlan

from .hostile import Draft
from .postgres import Connection

#: Every object a file could create or change outside the system schemas, with its comment.
SNAPSHOT = """
SELECT 'schema', n.nspname, obj_description(n.oid, 'pg_namespace')
  FROM pg_namespace n WHERE n.nspname !~ '^(pg_|information_schema$)'
UNION ALL
SELECT 'function', p.oid::regprocedure::text || ' ' || md5(p.prosrc) ||
       coalesce(array_to_string(p.proconfig, ','), ''), obj_description(p.oid, 'pg_proc')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname !~ '^(pg_|information_schema$)'
UNION ALL
SELECT 'type', t.oid::regtype::text, obj_description(t.oid, 'pg_type')
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
 WHERE n.nspname !~ '^(pg_|information_schema$)'
UNION ALL
SELECT 'constraint', c.conname || ' ' || pg_get_constraintdef(c.oid), NULL
  FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
 WHERE n.nspname !~ '^(pg_|information_schema$)'
UNION ALL
SELECT 'trigger', t.tgrelid::regclass::text || ' ' || t.tgname || ' ' || t.tgenabled::text,
       obj_description(t.oid, 'pg_trigger')
  FROM pg_trigger t WHERE NOT t.tgisinternal
UNION ALL
SELECT 'relation', c.oid::regclass::text, obj_description(c.oid, 'pg_class')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname !~ '^(pg_|information_schema$)'
"""


def catalog_snapshot(connection: Connection) -> set[tuple[str, str, str | None]]:
    return {(kind, name, note) for kind, name, note in connection.execute(SNAPSHOT).fetchall()}


# -- hostile drafts: every object with a user OID, and the catalog rows around them ---------


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
    assert trigger.when is not None, "every generated trigger has a WHEN clause"
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
