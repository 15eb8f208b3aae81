"""A real PostgreSQL server for the tests that need one (SQL target, conformance), ONE per
test session: tests/conftest.py imports these fixtures so every folder shares it.

Started from the binaries the test extra installs (see :mod:`generator.testing.pgserver`).
Under ``CI=true`` a server that cannot start fails the tests; locally they are skipped with
the reason, and only then.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from generator.testing.pgserver import LocalPostgres, ServerUnavailableError


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    try:
        server = LocalPostgres().start()
    except ServerUnavailableError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required under CI: {exc}")
        pytest.skip(f"no PostgreSQL server: {exc}")
    try:
        yield server.dsn
    finally:
        server.stop()


@pytest.fixture
def pg(pg_dsn: str) -> Iterator[object]:
    """A connection to a fresh database (dropped afterwards), autocommit."""
    import uuid

    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    dsn = pg_dsn.replace("dbname=postgres", f"dbname={name}")
    try:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.info  # noqa: B018 - connected
            yield connection
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
