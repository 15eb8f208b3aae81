"""The real PostgreSQL server of the SQL target's tests, for the conformance tests here."""

from targets.conftest import pg, pg_dsn

__all__ = ["pg", "pg_dsn"]
