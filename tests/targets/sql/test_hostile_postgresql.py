"""No spec or config text becomes SQL: hostile texts -> ``.postgresql.sql`` -> the real psql.

Each example renders a hostile :class:`Draft` (:mod:`.hostile`: state names, whys,
title, source path, the binding's schema/table/column and the configured schema), creates the
bound table on a fresh database as a role that is not superuser, applies the file as that role
with plain ``psql -X -f FILE`` (no ``ON_ERROR_STOP``: the worst case), and compares catalog
snapshots taken before and after: exactly the spec's objects are new (the schema if it was not
there, the domain with its array type and constraint, the two functions, the two triggers),
nothing else changed (ACLs, roles, settings, rows), psql printed no ERROR or WARNING and left
no file behind, and every text reads back exactly: names, comments, function bodies and
settings, trigger ``WHEN`` clauses, the domain's states, and the verdict and DETAIL of every
pair. psql starts in a random client encoding and ``standard_conforming_strings``, with a
variable ``foo`` set (``:foo`` in spec text must stay text). The catalog comparison lives in
:mod:`.catalog`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st
from profiles import IN_CI, fuzz_examples, scaled
from psycopg import sql as pgsql
from psycopg.conninfo import make_conninfo

from generator.lint.document import lint_bytes
from generator.run.config import load_config
from generator.targets import source_path
from generator.targets.sql.names import SqlError, message_text
from generator.targets.sql.postgresql import render_postgresql
from generator.targets.sql.settings import sql_settings
from generator.targets.sql.target import header, plan_for
from generator.testing.pgserver import find_bindir

from ..test_generate_support import spec_text
from .catalog import check_applied, snapshot, table_of
from .hostile import FOREIGN_SCHEMAS, PAYLOADS, SPEC_ID, Draft, at_limit, drafts
from .verdicts import OK

#: psql variables the file must never interpolate (``:foo`` outside quotes would be).
PSQL_VARIABLES = {"foo": "PWNED_VARIABLE"}
VERBOSE = {"VERBOSITY": "verbose"}  # errors show their SQLSTATE
#: Client encodings psql may start in: the file must set its own before any spec text.
ENCODINGS = ("UTF8", "LATIN1", "SJIS", "BIG5", "GBK", "EUC_JP")
#: Columns every PostgreSQL table has already (they cannot be the bound column).
SYSTEM_COLUMNS = {"tableoid", "xmin", "cmin", "xmax", "cmax", "ctid"}


@dataclass(frozen=True)
class Env:
    """How the applying psql session starts."""

    client_encoding: str = "UTF8"
    standard_conforming_strings: bool = True


ENVS = st.builds(Env, st.sampled_from(ENCODINGS), st.booleans())


@dataclass(frozen=True)
class Cluster:
    admin_dsn: str
    role: str
    psql: Path

    def dsn(self, database: str, *, admin: bool = False) -> str:
        user = "postgres" if admin else self.role
        return make_conninfo(self.admin_dsn, dbname=database, user=user)


@pytest.fixture(scope="module")
def cluster(pg_dsn: str) -> Iterator[Cluster]:
    """The session's server, a login role that is not superuser, and the psql binary."""
    bindir = find_bindir()
    psql = None if bindir is None else bindir / "psql"
    if psql is None or not psql.is_file():
        if IN_CI:
            pytest.fail(f"no psql next to the PostgreSQL binaries ({bindir})")
        pytest.skip(f"no psql next to the PostgreSQL binaries ({bindir})")
    role = f"statedoc_applier_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute(pgsql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER").format(pgsql.Identifier(role)))
    try:
        yield Cluster(pg_dsn, role, psql)
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute(pgsql.SQL("DROP ROLE IF EXISTS {}").format(pgsql.Identifier(role)))


@contextmanager
def fresh_database(cluster: Cluster) -> Iterator[str]:
    """A new database the role may create schemas in (and tables in ``public``)."""
    database = f"hostile_{uuid.uuid4().hex[:12]}"
    name, role = pgsql.Identifier(database), pgsql.Identifier(cluster.role)
    with psycopg.connect(cluster.admin_dsn, autocommit=True) as admin:
        admin.execute(pgsql.SQL("CREATE DATABASE {}").format(name))
        admin.execute(pgsql.SQL("GRANT CREATE ON DATABASE {} TO {}").format(name, role))
    try:
        with psycopg.connect(cluster.dsn(database, admin=True), autocommit=True) as admin:
            admin.execute(pgsql.SQL("GRANT CREATE ON SCHEMA public TO {}").format(role))
        yield database
    finally:
        with psycopg.connect(cluster.admin_dsn, autocommit=True) as admin:
            admin.execute(pgsql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))


def create_table(writer: Any, draft: Draft) -> None:
    """The bound table, owned by the role, holding one row per probe value."""
    if draft.table_schema not in (None, "public"):
        writer.execute(pgsql.SQL("CREATE SCHEMA {}").format(pgsql.Identifier(draft.table_schema)))
    column = pgsql.Identifier(draft.column)
    writer.execute(pgsql.SQL("CREATE TABLE {} ({} text)").format(table_of(draft), column))
    for value in draft.probes():
        writer.execute(insert_query(draft, value))


def insert_query(draft: Draft, value: str | None) -> pgsql.Composed:
    """Values are literals, not ``%s``: an identifier may hold ``%``, which psycopg would
    read as a placeholder."""
    column = pgsql.Identifier(draft.column)
    return pgsql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
        table_of(draft), column, pgsql.Literal(value)
    )


@dataclass(frozen=True)
class Applied:
    stderr: str
    left_behind: list[str]  # files in psql's working directory besides the applied file

    @property
    def problems(self) -> list[str]:
        words = ("ERROR:", "WARNING:", "FATAL:", "PANIC:")
        return [line for line in self.stderr.splitlines() if any(w in line for w in words)]


def apply(cluster: Cluster, database: str, text: str, env: Env) -> Applied:
    """``psql -X -f FILE`` as the role, in an empty working directory, from a clean env."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "apply.sql"
        path.write_bytes(text.encode("utf-8"))
        environ = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        environ["PGCLIENTENCODING"] = env.client_encoding
        if not env.standard_conforming_strings:
            environ["PGOPTIONS"] = "-c standard_conforming_strings=off"
        variables = [f"--variable={k}={v}" for k, v in {**PSQL_VARIABLES, **VERBOSE}.items()]
        done = subprocess.run(
            [str(cluster.psql), "-X", *variables, "-f", path.name, cluster.dsn(database)],
            cwd=folder,
            env=environ,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
        left = sorted(p.name for p in Path(folder).iterdir() if p != path)
    assert done.returncode == 0, done
    return Applied(done.stderr.decode("utf-8", "replace"), left)


def database_refusal(draft: Draft) -> str | None:
    """The SQLSTATE applying fails with when the configured schema cannot hold the objects:
    owned by a role the applier is not a member of (the file's own check, SDT01) or reserved
    (``pg_``: PostgreSQL's 42939); None when applying must succeed."""
    if draft.schema in FOREIGN_SCHEMAS:
        return "SDT01"
    return "42939" if draft.schema.startswith("pg_") else None


def check_file(cluster: Cluster, draft: Draft, text: str, env: Env = Env()) -> None:
    """Apply ``text``, the file of ``draft``'s plan, on a fresh database; check everything."""
    plan = draft.plan()
    with (
        fresh_database(cluster) as database,
        psycopg.connect(cluster.dsn(database, admin=True), autocommit=True) as admin,
        psycopg.connect(cluster.dsn(database), autocommit=True) as writer,
    ):
        create_table(writer, draft)
        before = snapshot(admin, draft)
        applied = apply(cluster, database, text, env)
        assert applied.left_behind == [], applied
        after = snapshot(admin, draft)
        refused = database_refusal(draft)
        if refused is not None:
            assert f"ERROR:  {refused}:" in applied.stderr, applied
            assert after == before, "a refused file changed the database"
            return
        assert applied.problems == [], applied
        check_applied(admin, cluster.role, draft, plan, before, after)
        check_verdicts(writer, draft)
        again = apply(cluster, database, text, env)  # idempotent; the guard reads back
        assert again.problems == [] and again.left_behind == [], again
        check_applied(admin, cluster.role, draft, plan, before, snapshot(admin, draft))


def attempt(connection: Any, query: pgsql.Composed) -> psycopg.Error | int:
    """The error ``query`` raises, else how many rows it touched (always rolled back)."""
    try:
        with connection.transaction(force_rollback=True), connection.cursor() as cursor:
            cursor.execute(query)
            return int(cursor.rowcount)
    except psycopg.Error as exc:
        return exc


def verdict(outcome: psycopg.Error | int) -> str | None:
    return outcome.sqlstate if isinstance(outcome, psycopg.Error) else OK


def check_refusal(
    draft: Draft,
    outcome: psycopg.Error | int,
    pair: tuple[str | None, str | None],
    place: str | None = None,
) -> None:
    """A statedoc refusal names the spec (and a trigger's the column it guards, ``place``);
    a forbidden pair's DETAIL is its why, exactly."""
    if not isinstance(outcome, psycopg.Error):
        return
    message = outcome.diag.message_primary or ""
    assert f"spec {SPEC_ID} revision {draft.revision}" in message, outcome.diag
    assert place is None or place in message, (place, message)
    if outcome.sqlstate == "SDF01":
        assert pair[0] is not None and pair[1] is not None
        assert outcome.diag.message_detail == message_text(draft.forbidden[(pair[0], pair[1])])


def check_verdicts(writer: Any, draft: Draft) -> None:
    """The domain, the check function and both triggers decide what the spec says."""
    plan = draft.plan()
    probes = draft.probes()
    domain = pgsql.Identifier(plan.schema, plan.names.domain)
    for value in (v for v in probes if v is not None):  # a domain lets NULL through
        cast = pgsql.SQL("SELECT {}::{}").format(pgsql.Literal(value), domain)
        assert verdict(attempt(writer, cast)) == (OK if value in draft.states else "23514")
    check = pgsql.Identifier(plan.schema, plan.names.check)
    for old in probes:
        for new in probes:
            call = pgsql.SQL("SELECT {}({}, {})").format(check, *map(pgsql.Literal, (old, new)))
            outcome = attempt(writer, call)
            assert verdict(outcome) == draft.check_verdict(old, new), (old, new, outcome)
            check_refusal(draft, outcome, (old, new))
    (place,) = writer.execute(  # the column, as the server quotes it
        "SELECT format('%%I.%%I.%%I', %s::text, %s::text, %s::text)",
        (draft.table_schema or "public", draft.table, draft.column),
    ).fetchone()
    for new in probes:
        outcome = attempt(writer, insert_query(draft, new))
        assert verdict(outcome) == draft.insert_verdict(new), (new, outcome)
        check_refusal(draft, outcome, (None, new), place)
    column = pgsql.Identifier(draft.column)
    for old in probes:
        for new in probes:
            update = pgsql.SQL("UPDATE {} SET {} = {} WHERE {} IS NOT DISTINCT FROM {}").format(
                table_of(draft), column, pgsql.Literal(new), column, pgsql.Literal(old)
            )
            outcome = attempt(writer, update)
            want = draft.update_verdict(old, new)
            assert verdict(outcome) == want, (old, new, outcome)
            assert want is not OK or outcome == 1, (old, new, outcome)
            check_refusal(draft, outcome, (old, new), place)


# -- the properties -------------------------------------------------------------------------

PWNED = '"; CREATE TABLE pwned (); --'
CANONICAL = Draft(  # the bug of issue 23: a `$statedoc$` column closes the function body
    states=(PWNED, "closed"),
    declared=((PWNED, "closed"), ("closed", PWNED)),
    forbidden={("closed", "closed"): "never $statedoc$; CREATE TABLE pwned (); --\0"},
    initial=(PWNED,),
    title="Door",
    schema="statedoc",
    table="doors",
    column="$statedoc$",
)


def generated(draft: Draft) -> str | None:
    """The file, or None when generation refused (and had to: :meth:`Draft.refusal`)."""
    refusal = draft.refusal()
    try:
        plan = draft.plan()
        text = render_postgresql(plan, header(plan))
    except SqlError as exc:
        assert refusal is not None or database_refusal(draft) is not None, exc
        assert str(exc)
        return None
    assert refusal is None, f"generated although {refusal}"
    return text


def feasible(draft: Draft) -> bool:
    """Whether the test can create the bound table as the role (it needs its own schema,
    or ``public``), and the table is not one of the objects the spec itself creates."""
    schema = draft.table_schema or "public"
    names = draft.plan().names
    return (
        draft.column not in SYSTEM_COLUMNS
        and schema != "information_schema"
        and not schema.startswith("pg_")
        and (draft.table_schema is not None or not draft.table.startswith("pg_"))
        and not (schema == draft.schema and draft.table == names.domain)
    )


@pytest.mark.slow
@settings(
    max_examples=fuzz_examples(scaled(100, minimum=20)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(draft=drafts(), env=ENVS)
@example(draft=CANONICAL, env=Env())
@example(
    draft=CANONICAL.replace(column="x$statedoc$", source="$statedoc$\n\\! touch pwned"), env=Env()
)
@example(draft=CANONICAL.replace(schema="$statedoc$", column="state"), env=Env("SJIS", False))
@example(
    draft=CANONICAL.replace(
        schema="$statedoc_1$",
        table_schema="$statedoc$",
        table='$statedoc$""; CREATE TABLE pwned (); \\! touch pwned #',
        column="$statedoc_1$ :foo :'foo' :\"foo\" \\gexec",
        in_storage=False,
    ),
    env=Env("BIG5"),
)
@example(
    draft=CANONICAL.replace(
        states=("a\r\nb", "\u202e😀\u200b"),
        declared=(("a\r\nb", "\u202e😀\u200b"),),
        forbidden={("\u202e😀\u200b", "a\r\nb"): "line\r\nbreak\0\t$statedoc$"},
        initial=("a\r\nb",),
        title="é" * 40,
        schema=at_limit("s😀", "😀"),
        table_schema=at_limit("t\r\n", "é"),
        table=at_limit(PAYLOADS[3], "x"),
        column=at_limit("c$statedoc$", "\u200b"),
    ),
    env=Env("GBK", False),
)
def test_hostile_text_never_becomes_sql_on_postgresql(
    cluster: Cluster, draft: Draft, env: Env
) -> None:
    text = generated(draft)
    if text is None:
        event("refused by generation")
        return
    assume(feasible(draft))
    event("refused by the database" if database_refusal(draft) else "applied")
    check_file(cluster, draft, text, env)


# -- end to end, through the CLI --------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "schema"),
    [("x$statedoc$", "statedoc"), ("state", "s$statedoc$")],
    ids=["storage-column", "config-schema"],
)
def test_cli_output_runs_nothing_but_the_spec(
    cluster: Cluster, tmp_path: Path, column: str, schema: str
) -> None:
    """Names lint accepts (``$`` is an identifier character), a state name with ``"`` and
    ``;``: ``generate --target sql`` then ``psql -f`` creates the spec's objects only."""
    draft = CANONICAL.replace(column=column, schema=schema, source="specs/door.md")
    project = tmp_path / "project"
    spec = project / draft.source
    spec.parent.mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        f'[tool.statedoc]\nspecs = "specs"\nout = "generated"\n'
        f'[tool.statedoc.sql]\nschema = "{schema}"\n',
        encoding="utf-8",
    )
    invalid = [{"from": a, "to": b, "why": why} for (a, b), why in draft.forbidden.items()]
    spec.write_text(
        spec_text(
            draft.states,
            [{"from": a, "to": b, "trigger": "go"} for a, b in draft.declared],
            invalid,
            title=draft.title,
            spec_id=SPEC_ID,
            initial=list(draft.initial),
            extra={"storage": {"table": draft.table, "column": column}},
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--target", "sql"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done
    (path,) = (project / "generated").rglob("*.postgresql.sql")
    text = path.read_text(encoding="utf-8")
    result = lint_bytes(spec.read_bytes(), str(spec))
    assert result.document is not None, result.findings
    config = load_config(project)
    plan = plan_for(result.document, sql_settings(config), source_path(result.document, config))
    assert text == render_postgresql(plan, header(plan))  # the plan the CLI rendered
    draft = draft.replace(source=plan.source, sha=plan.sha256)
    assert text == render_postgresql(draft.plan(), header(draft.plan()))  # and the draft's
    check_file(cluster, draft, text)


def test_downgrade_guard_holds_whatever_the_session_reads_literals_as(cluster: Cluster) -> None:
    """The file's own literals mean the same with ``standard_conforming_strings=off`` (set by
    the applier's ``PGOPTIONS``): revision 1 over revision 2 is still refused with SDR01."""
    newer = CANONICAL.replace(revision=2, column="state")
    older = newer.replace(revision=1)
    texts = [generated(draft) for draft in (newer, older)]
    assert texts[0] is not None and texts[1] is not None
    with (
        fresh_database(cluster) as database,
        psycopg.connect(cluster.dsn(database, admin=True), autocommit=True) as admin,
        psycopg.connect(cluster.dsn(database), autocommit=True) as writer,
    ):
        create_table(writer, newer)
        assert apply(cluster, database, texts[0], Env()).problems == []
        before = snapshot(admin, newer)
        refused = apply(cluster, database, texts[1], Env(standard_conforming_strings=False))
        assert "ERROR:  SDR01:" in refused.stderr, refused
        assert snapshot(admin, newer) == before
