"""``db audit --since``: the start of the history window, an ISO date or time or a duration.

``2026-11-01`` (midnight UTC), ``2026-11-01T08:00:00+01:00`` (a time without an offset is
UTC), or a duration back from the database server's clock: ``90m``, ``12h``, ``30d``,
``8w``. The duration is measured on the server (``now()`` of the audit's transaction), the
clock that wrote ``changed_at``, not on the machine running statedoc.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
from typing import Any

from generator.targets.sql.audit_model import Window

_DURATION = re.compile(r"([1-9][0-9]{0,5})([mhdw])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str) -> dt.datetime | dt.timedelta:
    """The window's start as given; ``ValueError`` saying what is accepted."""
    match = _DURATION.fullmatch(text.strip())
    if match is not None:
        return dt.timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"{text!r} is neither an ISO date or time (2026-11-01, 2026-11-01T08:00Z) nor a "
            "duration (90m, 12h, 30d, 8w)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def since_argument(text: str) -> str:
    """argparse ``type=``: refuse a bad ``--since`` as a usage error, keep the text."""
    try:
        parse_since(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def resolve(connection: Any, since: str | None) -> Window:
    """The :class:`~.audit_model.Window` of ``since`` (a duration back from the server's
    now())."""
    if since is None:
        return Window()
    start = parse_since(since)
    if isinstance(start, dt.timedelta):
        row = connection.execute("SELECT pg_catalog.now() OPERATOR(pg_catalog.-) %s", (start,))
        found = row.fetchone()
        assert found is not None
        start = found[0]
    assert isinstance(start, dt.datetime)
    return Window(start, since)
