"""Real PostgreSQL servers for the tests that need one, ONE of each kind per test session:
tests/conftest.py imports these fixtures so every folder shares them.

- ``pg_dsn`` / ``pg``: the binaries the test extra installs (the ``pgserver`` wheel).
- ``pg_contrib_dsn`` / ``pg_contrib``: binaries with the ``citext`` extension and ICU
  collations (Debian's ``postgresql`` + ``postgresql-contrib``), for the column-type tests;
  started only when a test asks for it.

See :mod:`generator.testing.pgserver`. Under ``CI=true`` a server that cannot start fails the
tests; locally they are skipped with the reason, and only then.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Generator, Iterator
from typing import Any

import pytest

from generator.testing.pgserver import LocalPostgres, ServerUnavailableError


def _server(contrib: bool) -> Iterator[str]:
    kind = "PostgreSQL with citext and ICU" if contrib else "PostgreSQL"
    try:
        server = LocalPostgres(contrib=contrib).start()
    except ServerUnavailableError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"{kind} is required under CI: {exc}", pytrace=False)
        pytest.skip(f"no {kind} server: {exc}")
    try:
        yield server.dsn
    finally:
        server.stop()


def _fresh_database(server_dsn: str) -> Generator[Any, None, None]:
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    dsn = server_dsn.replace("dbname=postgres", f"dbname={name}")
    try:
        with psycopg.connect(dsn, autocommit=True) as connection:
            yield connection
    finally:
        with psycopg.connect(server_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    """Superuser DSN of the session's server (the test extra's PostgreSQL 16)."""
    yield from _server(contrib=False)


@pytest.fixture
def pg(pg_dsn: str) -> Iterator[Any]:
    """A connection to a fresh database (dropped afterwards), autocommit."""
    yield from _fresh_database(pg_dsn)


@pytest.fixture(scope="session")
def pg_contrib_dsn() -> Iterator[str]:
    """Superuser DSN of the session's second server: ``citext`` and nondeterministic ICU."""
    yield from _server(contrib=True)


@pytest.fixture
def pg_contrib(pg_contrib_dsn: str) -> Iterator[Any]:
    """Like ``pg``, on the citext + ICU server."""
    yield from _fresh_database(pg_contrib_dsn)
