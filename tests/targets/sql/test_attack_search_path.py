"""Issue 23: no writer can step around the generated PostgreSQL triggers through search_path.

A role that is neither superuser nor table owner, with only SELECT, INSERT and UPDATE on the
bound table and a schema of its own, shadows every operator, function, type and collation
name the generated SQL uses (found by scanning the generated text, so a name added later is
shadowed too: an always-true ``=`` on text among them), puts its schema first on
``search_path`` and tries every refused write. Each must fail with the documented SQLSTATE and
leave the row as it was. It also tries to switch the guard off; PostgreSQL refuses that.

Run against both servers (the session's and the contrib one) and both ways of attaching the
checks: the bound file's own triggers, and the unbound file's generic trigger function
attached with the one-line ``CREATE TRIGGER`` the README shows.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import psycopg
import pytest
from psycopg import sql as pgsql

from generator.targets.sql.plan import Names
from generator.targets.sql.settings import SqlBinding

from .catalog import catalog_snapshot
from .lifecycle import Lifecycle
from .postgres import (
    MISSING,
    Connection,
    apply_file,
    attempt,
    dsn_with,
    login_role,
    scratch_database,
    seed,
    sqlstate,
    stored,
)
from .search_path import PLPGSQL_WORDS, UsedNames, used_names
from .verdicts import (
    FORBIDDEN,
    NOT_INITIAL,
    OK,
    UNDECLARED,
    UNKNOWN,
    expected_insert,
    expected_update,
)

TABLE, COLUMN, EVIL = "data_export_deliveries", "status", "evil"
EVIL_PATH = f"{EVIL}, pg_catalog, public"
DENIED = "42501"  # insufficient_privilege


def test_used_names_reads_code_and_skips_literals_and_comments() -> None:
    sample = (
        "-- upper(x) in a comment\nSELECT a OPERATOR(pg_catalog.=) b, x::text COLLATE "
        "pg_catalog.\"C\", format('%s lower(y) ||', quote_literal(y), 2) || E'it''s \\' ~' "
        '$tag$ BEGIN PERFORM "statedoc"."own_check"(1); y := z ->> 0; END $tag$ '
        "WHERE n NOT IN (1) AND length() IS NULL AND p.upper(1)"
    )
    used = used_names([sample])
    assert used.operators == {"=", "||", "->>", "<>"}
    assert used.calls == {"format": {3}, "quote_literal": {1}, "length": {0}}
    assert used.casts == {"text"} and used.collations == {"C"}
    assert "lower" not in used.words and "it" not in used.words and "tag" not in used.words


# --- the attacker's shadows ------------------------------------------------------------------

#: Argument or result types a PL/pgSQL clone cannot have (polymorphic ones it can).
UNCLONEABLE = (
    "SELECT t.oid FROM pg_type t WHERE t.typtype = 'p' AND t.typname NOT LIKE 'any%%' "
    "AND t.typname <> 'void' UNION SELECT '\"any\"'::regtype"
)


@dataclass
class Shadows:
    """What the attacker created, per used name: (text that ``to_reg*`` resolves through
    ``search_path``, the oid of the attacker's object)."""

    operators: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    functions: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    types: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    collations: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


def _lie(returns: str, truth: bool, initial: str) -> str:
    """The most permissive wrong answer: a predicate is always ``truth``; a text is always
    an initial state (every row then looks new and unchanged); anything else is NULL."""
    if returns == "boolean":
        return "true" if truth else "false"
    if returns in ("text", "character varying"):
        return pgsql.Literal(initial).as_string(None)
    return "NULL"


def _create(session: Connection, statement: str) -> bool:
    """One shadow; a catalog overload PL/pgSQL cannot clone is left out (every used name
    must still get at least one: see the tests)."""
    return attempt(session, statement) is None


def _evil_oid(session: Connection, query: str, params: tuple[object, ...]) -> int:
    found = session.execute(query, params).fetchone()
    assert found is not None, (query, params)
    return int(found[0])


def _qualified_types(session: Connection, oids: list[int]) -> str:
    """Argument types as ``to_reg*`` reads them in the attacker's session, where ``text``
    itself is shadowed: by schema (0, no left operand, is ``NONE``)."""
    names = [
        session.execute(
            "SELECT 'pg_catalog.' || quote_ident(typname) FROM pg_type WHERE oid = %s", (oid,)
        ).fetchone()
        if oid
        else ("NONE",)
        for oid in oids
    ]
    return ",".join(str(n[0]) if n else "?" for n in names)


def _function(session: Connection, name: str, args: str, returns: str, lie: str) -> int | None:
    body = "BEGIN RETURN; END" if returns == "void" else f"BEGIN RETURN {lie}; END"
    quoted = pgsql.Identifier(EVIL, name).as_string(session)
    statement = (
        f"CREATE FUNCTION {quoted}({args}) RETURNS {returns} LANGUAGE plpgsql "
        f"AS $evil$ {body} $evil$"
    )
    if not _create(session, statement):
        return None
    return _evil_oid(
        session,
        "SELECT max(oid) FROM pg_proc WHERE pronamespace = %s::regnamespace AND proname = %s",
        (EVIL, name),
    )


def _shadow_operators(session: Connection, used: UsedNames, initial: str, out: Shadows) -> None:
    for number, name in enumerate(sorted(used.operators)):
        rows = session.execute(
            "SELECT format_type(o.oprleft, NULL), format_type(o.oprright, NULL), "
            "format_type(o.oprresult, NULL) FROM pg_operator o "
            "WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprname = %s "
            f"AND o.oprright NOT IN ({UNCLONEABLE}) AND o.oprleft NOT IN ({UNCLONEABLE}) "
            f"AND o.oprresult NOT IN ({UNCLONEABLE})",
            (name,),
        ).fetchall()
        signatures = {(str(a), str(b), str(c)) for a, b, c in rows}
        if name in ("=", "<>"):
            signatures.add(("text", "text", "boolean"))
        for index, (left, right, returns) in enumerate(sorted(signatures)):
            helper = f"op_{number}_{index}"
            args = ", ".join(a for a in (left, right) if a != "-")
            if _function(session, helper, args, returns, _lie(returns, name != "<>", initial)):
                sides = [f"{s} = {a}" for s, a in (("LEFTARG", left), ("RIGHTARG", right))]
                sides = [s for s in sides if not s.endswith("= -")]
                statement = (
                    f"CREATE OPERATOR {EVIL}.{name} "
                    f"({', '.join(sides)}, FUNCTION = {EVIL}.{helper})"
                )
                if _create(session, statement):
                    oid, left_id, right_id = session.execute(
                        "SELECT oid, oprleft, oprright FROM pg_operator "
                        "WHERE oprcode = %s::regproc",
                        (f"{EVIL}.{helper}",),
                    ).fetchone() or (0, 0, 0)
                    types = _qualified_types(session, [left_id, right_id])
                    out.operators.setdefault(name, []).append((f"{name}({types})", oid))


def _shadow_functions(session: Connection, used: UsedNames, initial: str, out: Shadows) -> None:
    keywords = {str(r[0]) for r in session.execute("SELECT word FROM pg_get_keywords()")}
    catalog = {
        str(r[0])
        for r in session.execute(
            "SELECT DISTINCT proname FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace"
        )
    }
    for name, arities in sorted(used.calls.items()):
        if name not in catalog and (name in keywords or name in PLPGSQL_WORDS):
            continue  # syntax (IN (...), IF (...)), not a function the server looks up
        rows = session.execute(
            "SELECT pg_get_function_identity_arguments(p.oid), format_type(p.prorettype, NULL) "
            "FROM pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace "
            "AND p.proname = %s AND p.prokind = 'f' AND NOT p.proretset AND p.provariadic = 0 "
            f"AND p.prorettype NOT IN ({UNCLONEABLE}) "
            f"AND NOT EXISTS (SELECT 1 FROM unnest(p.proargtypes) a WHERE a IN ({UNCLONEABLE}))",
            (name,),
        ).fetchall()
        clones = {(str(a), str(r)) for a, r in rows}
        clones |= {(", ".join(["text"] * n), "text") for n in arities}
        for args, returns in sorted(clones):
            oid = _function(session, name, args, returns, _lie(returns, True, initial))
            if oid is not None:
                (types,) = session.execute(
                    "SELECT proargtypes::oid[] FROM pg_proc WHERE oid = %s", (oid,)
                ).fetchone() or ([],)
                types = _qualified_types(session, types)
                quoted = pgsql.Identifier(name).as_string(session)
                out.functions.setdefault(name, []).append((f"{quoted}({types})", oid))


def type_names(session: Connection, used: UsedNames) -> set[str]:
    """Casts, and words that name a catalog type (a reserved word such as ANY does not)."""
    catalog = {
        str(r[0])
        for r in session.execute(
            "SELECT typname FROM pg_catalog.pg_type "
            "WHERE typnamespace = 'pg_catalog'::pg_catalog.regnamespace "
            "EXCEPT SELECT word FROM pg_catalog.pg_get_keywords() WHERE catcode = 'R'"
        )
    }
    return used.casts | (used.words & catalog)


def _shadow_types(session: Connection, used: UsedNames, initial: str, out: Shadows) -> None:
    for name in sorted(type_names(session, used)):
        quoted = pgsql.Identifier(EVIL, name).as_string(session)
        real = pgsql.Identifier("pg_catalog", name).as_string(session)
        label = pgsql.Literal(initial).as_string(None)
        if _create(session, f"CREATE DOMAIN {quoted} AS {real}") or _create(
            session, f"CREATE TYPE {quoted} AS ENUM ({label})"
        ):
            oid = _evil_oid(session, "SELECT %s::regtype::oid", (quoted,))
            out.types[name] = [(pgsql.Identifier(name).as_string(session), oid)]
    for name in sorted(used.collations):
        quoted = pgsql.Identifier(EVIL, name).as_string(session)
        icu = "provider = icu, locale = 'und-u-ks-level2', deterministic = false"
        if _create(session, f"CREATE COLLATION {quoted} ({icu})") or _create(
            session, f"CREATE COLLATION {quoted} (locale = 'POSIX')"
        ):
            oid = _evil_oid(session, "SELECT %s::regcollation::oid", (quoted,))
            out.collations[name] = [(pgsql.Identifier(name).as_string(session), oid)]


def shadow_everything(session: Connection, used: UsedNames, initial: str) -> Shadows:
    """As the attacker, with ``search_path = pg_catalog`` so that real types are named:
    every catalog overload of every used name, cloned into the attacker's schema, lying."""
    session.execute("SET search_path = pg_catalog")
    shadows = Shadows()
    _shadow_operators(session, used, initial, shadows)
    _shadow_functions(session, used, initial, shadows)
    _shadow_types(session, used, initial, shadows)
    return shadows


# --- the arena: a database with an owner, an attacker and the guarded table ------------------


@dataclass
class Arena:
    life: Lifecycle
    dsn: str  # superuser, the scratch database
    admin: Connection
    attacker: str
    table: pgsql.Composable
    triggers: tuple[str, ...]
    used: UsedNames
    shadows: Shadows
    rows: Iterator[int] = field(default_factory=itertools.count)

    @contextlib.contextmanager
    def session(self, search_path: str | None) -> Iterator[Connection]:
        """The attacker, connected; ``search_path`` set first when given."""
        with psycopg.connect(dsn_with(self.dsn, user=self.attacker), autocommit=True) as conn:
            if search_path is not None:
                conn.execute(pgsql.SQL("SET search_path = {}").format(pgsql.SQL(search_path)))
            yield conn


def _one_line_trigger(life: Lifecycle) -> tuple[str, str]:
    """The README's way to attach the unbound file's generic trigger function."""
    names = Names.for_spec(life.document.spec)
    name = f"{names.insert_trigger}_by_hand"
    function = pgsql.Identifier("statedoc", names.trigger_function).as_string(None)
    return name, (
        f'CREATE TRIGGER "{name}" BEFORE INSERT OR UPDATE ON "{TABLE}" '
        f"FOR EACH ROW EXECUTE FUNCTION {function}('{COLUMN}')"
    )


@pytest.fixture(
    scope="module",
    params=[
        ("pg_dsn", "bound"),
        ("pg_dsn", "attached"),
        ("pg_contrib_dsn", "bound"),
        ("pg_contrib_dsn", "attached"),
    ],
    ids=lambda p: f"{p[0].removesuffix('_dsn')}-{p[1]}",
)
def arena(request: pytest.FixtureRequest, lifecycle: Lifecycle) -> Iterator[Arena]:
    server, mode = request.param
    bound = lifecycle.render(binding=SqlBinding(TABLE, COLUMN))
    unbound = lifecycle.render(binding=None)
    with (
        scratch_database(request.getfixturevalue(server)) as dsn,
        psycopg.connect(dsn, autocommit=True) as admin,
        login_role(admin, "owner") as owner,
        login_role(admin, "attacker") as attacker,
    ):
        database = pgsql.Identifier(admin.info.dbname)
        admin.execute(pgsql.SQL("ALTER DATABASE {} OWNER TO {}").format(database, _id(owner)))
        admin.execute(
            pgsql.SQL("CREATE SCHEMA {} AUTHORIZATION {}").format(_id(EVIL), _id(attacker))
        )
        table = pgsql.Identifier("public", TABLE)
        with psycopg.connect(dsn_with(dsn, user=owner), autocommit=True) as as_owner:
            as_owner.execute(
                pgsql.SQL("CREATE TABLE {} (id int PRIMARY KEY, status text, note text)").format(
                    table
                )
            )
            if mode == "bound":
                assert apply_file(as_owner, bound) is None
                names = Names.for_spec(lifecycle.document.spec)
                triggers: tuple[str, ...] = (names.insert_trigger, names.update_trigger)
            else:
                assert apply_file(as_owner, unbound) is None
                name, attach = _one_line_trigger(lifecycle)
                as_owner.execute(attach)
                triggers = (name,)
            as_owner.execute(
                pgsql.SQL("GRANT SELECT, INSERT, UPDATE ON {} TO {}").format(table, _id(attacker))
            )
        used = used_names([bound, unbound])
        with psycopg.connect(dsn_with(dsn, user=attacker), autocommit=True) as session:
            shadows = shadow_everything(session, used, lifecycle.initial[0])
        yield Arena(lifecycle, dsn, admin, attacker, table, triggers, used, shadows)


def _id(name: str) -> pgsql.Identifier:
    return pgsql.Identifier(name)


# --- the tests ---------------------------------------------------------------------------------


def test_every_used_name_is_shadowed_and_wins_in_the_attackers_session(arena: Arena) -> None:
    used, shadows = arena.used, arena.shadows
    assert "=" in used.operators and used.calls and "text" in used.casts | used.words
    assert set(shadows.operators) == used.operators
    assert set(shadows.types) == type_names(arena.admin, used) and "text" in shadows.types
    assert set(shadows.collations) == used.collations
    looked_up = {n for n in used.calls if n not in shadows.functions}
    keywords = {r[0] for r in arena.admin.execute("SELECT word FROM pg_get_keywords()")}
    assert looked_up <= keywords | PLPGSQL_WORDS, looked_up  # every real call is shadowed
    resolve = [  # qualified: the attacker shadows to_regtype itself (the file calls it)
        ("pg_catalog.to_regoperator(%s)::pg_catalog.oid", shadows.operators),
        ("pg_catalog.to_regprocedure(%s)::pg_catalog.oid", shadows.functions),
        ("pg_catalog.to_regtype(%s)::pg_catalog.oid", shadows.types),
        ("%s::pg_catalog.regcollation::pg_catalog.oid", shadows.collations),
    ]
    with arena.session(EVIL_PATH) as session:
        lie = session.execute("SELECT 'x'::pg_catalog.text = 'y'::pg_catalog.text").fetchone()
        assert lie == (True,)
        for query, by_name in resolve:
            for name, entries in by_name.items():
                for text, oid in entries:
                    found = session.execute(f"SELECT {query}", (text,)).fetchone()
                    assert found == (oid,), (name, text)


Pick = Callable[[Lifecycle], tuple[str | None, str | None]]
#: name -> (update or insert, how to pick (old, new) from the spec, SQLSTATE documented)
ATTACKS: dict[str, tuple[str, Pick, str | None]] = {
    "forbidden pair": ("update", lambda life: life.forbidden, FORBIDDEN),
    "undeclared pair": ("update", lambda life: life.undeclared, UNDECLARED),
    "not a state": ("update", lambda life: (life.initial[0], life.not_a_state()), UNKNOWN),
    "NULL": ("update", lambda life: (life.initial[0], None), UNKNOWN),
    "insert not initial": ("insert", lambda life: (None, life.not_initial), NOT_INITIAL),
    "insert not a state": ("insert", lambda life: (None, life.not_a_state()), UNKNOWN),
    "insert NULL": ("insert", lambda life: (None, None), UNKNOWN),
    "declared pair (passes)": ("update", lambda life: life.declared[0], OK),
    "insert initial (passes)": ("insert", lambda life: (None, life.initial[0]), OK),
}


@pytest.mark.parametrize("search_path", [EVIL_PATH, None], ids=["evil-first", "default-path"])
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_attacker_is_refused_with_the_documented_sqlstate(
    arena: Arena, attack: str, search_path: str | None
) -> None:
    kind, pick, want = ATTACKS[attack]
    old, new = pick(arena.life)
    module, row = arena.life.module, next(arena.rows)
    if kind == "update":
        assert expected_update(module, old, new) == want  # the oracle agrees with the brief
        assert old is not None
        seed(arena.admin, arena.table, row, old)
        query = pgsql.SQL(  # the attacker's own = on integers is shadowed too
            "UPDATE {} SET status = %s WHERE id OPERATOR(pg_catalog.=) %s"
        ).format(arena.table)
        params: tuple[object, ...] = (new, row)
    else:
        assert expected_insert(module, new) == want
        query = pgsql.SQL("INSERT INTO {} (id, status) VALUES (%s, %s)").format(arena.table)
        params = (row, new)
    with arena.session(search_path) as session:
        if search_path is not None:  # the shadows are live in this session
            (lie,) = session.execute("SELECT 'a'::pg_catalog.text = 'b'").fetchone() or (None,)
            assert lie is True
        error = attempt(session, query, params)
    assert sqlstate(error) == want, error
    after = stored(arena.admin, arena.table, row)
    if want is OK:
        assert after == new
    else:
        assert after == (old if kind == "update" else MISSING)


def _tampering(arena: Arena) -> dict[str, str]:
    names = Names.for_spec(arena.life.document.spec)
    check = pgsql.Identifier("statedoc", names.check).as_string(None)
    function = pgsql.Identifier("statedoc", names.trigger_function).as_string(None)
    domain = pgsql.Identifier("statedoc", names.domain).as_string(None)
    table = arena.table.as_string(None)
    trigger = pgsql.Identifier(arena.triggers[-1]).as_string(None)
    nothing = "AS $x$ BEGIN RETURN NEW; END $x$"
    # Every type named by schema: the attacker's own shadows must not be why it fails.
    return {
        "SET session_replication_role": "SET session_replication_role = replica",
        "SET LOCAL session_replication_role": "SET LOCAL session_replication_role = replica",
        "set_config": "SELECT set_config('session_replication_role', 'replica', false)",
        "DISABLE TRIGGER": f"ALTER TABLE {table} DISABLE TRIGGER {trigger}",
        "DISABLE TRIGGER ALL": f"ALTER TABLE {table} DISABLE TRIGGER ALL",
        "DISABLE TRIGGER USER": f"ALTER TABLE {table} DISABLE TRIGGER USER",
        "DROP TRIGGER": f"DROP TRIGGER {trigger} ON {table}",
        "CREATE OR REPLACE trigger function": (
            f"CREATE OR REPLACE FUNCTION {function}() RETURNS pg_catalog.trigger "
            f"LANGUAGE plpgsql {nothing}"
        ),
        "CREATE OR REPLACE check function": (
            f"CREATE OR REPLACE FUNCTION {check}(from_state pg_catalog.text, "
            "to_state pg_catalog.text) RETURNS pg_catalog.void LANGUAGE plpgsql "
            "AS $x$ BEGIN END $x$"
        ),
        "ALTER FUNCTION SET search_path": (
            f"ALTER FUNCTION {function}() SET search_path = {EVIL}, pg_catalog"
        ),
        "ALTER DOMAIN DROP CONSTRAINT": f"ALTER DOMAIN {domain} DROP CONSTRAINT state_names",
        "CREATE TRIGGER after the check": (
            f"CREATE TRIGGER zzz BEFORE UPDATE ON {table} FOR EACH ROW "
            f"EXECUTE FUNCTION {EVIL}.sneak()"
        ),
        "ALTER COLUMN TYPE": (
            f"ALTER TABLE {table} ALTER COLUMN status TYPE pg_catalog.varchar(200)"
        ),
    }


def test_attacker_cannot_switch_the_guard_off(arena: Arena) -> None:
    with arena.session(EVIL_PATH) as session:
        session.execute(  # a BEFORE trigger sorted after statedoc's could rewrite NEW
            f"CREATE FUNCTION {EVIL}.sneak() RETURNS pg_catalog.trigger LANGUAGE plpgsql "
            "AS $x$ BEGIN RETURN NEW; END $x$"
        )
        before = catalog_snapshot(arena.admin)
        refused = {
            label: sqlstate(attempt(session, statement))
            for label, statement in _tampering(arena).items()
        }
        (role,) = session.execute("SHOW session_replication_role").fetchone() or ("",)
    assert refused == dict.fromkeys(refused, DENIED)
    assert role == "origin"
    assert catalog_snapshot(arena.admin) == before  # triggers still there and enabled
    old, new = arena.life.forbidden
    row = next(arena.rows)
    seed(arena.admin, arena.table, row, old)
    update = pgsql.SQL("UPDATE {} SET status = %s WHERE id = %s").format(arena.table)
    assert sqlstate(attempt(arena.admin, update, (new, row))) == FORBIDDEN
    assert stored(arena.admin, arena.table, row) == old
