"""The session ``db check`` and ``db audit`` read a database through: read-only, bounded, named.
A role with SELECT alone is enough for both; the timeouts make a locked table a finding, not a
hang."""

from __future__ import annotations

from typing import Any

#: Seconds each statement (and each lock wait) may take, unless ``--timeout`` says otherwise.
DEFAULT_TIMEOUT = 30.0


def read_only_session(connection: Any, timeout: float, name: str) -> None:
    """Make ``connection`` (autocommit) what ``db check`` and ``db audit`` read through:
    read-only, every statement and lock wait bounded by ``timeout`` seconds, UTF-8, named."""
    millis = max(1, round(timeout * 1000))
    for setting in (
        "default_transaction_read_only = on",
        f"statement_timeout = {millis}",
        f"lock_timeout = {millis}",
        "client_encoding = 'UTF8'",
        f"application_name = '{name}'",
    ):
        connection.execute(f"SET {setting}")
