"""``statedoc db check`` against one connection: read the catalog, probe, compare.

Everything runs read-only except the probe (:mod:`.probe`), whose transaction is always
rolled back. The session is set to ``default_transaction_read_only = on`` and every
statement to ``statement_timeout`` (and ``lock_timeout``) of ``timeout`` seconds, so a busy
or hostile database ends the check with an error instead of hanging it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from generator.targets.sql.compare import Accepts
from generator.targets.sql.history_check import read_executors, read_histories
from generator.targets.sql.installed import read_catalog
from generator.targets.sql.probe import TriggerProbe, domain_accepts, near_misses, probe_generated
from generator.targets.sql.session import DEFAULT_TIMEOUT, read_only_session
from generator.targets.sql.verify import Expected, Report, verify

#: Seconds any one statement of the check may take (``db check --timeout``).


def check_database(
    connection: Any,
    specs: Sequence[Expected],
    schema: str,
    *,
    sweep: bool,
    known_ids: Iterable[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
) -> Report:
    """The :class:`~.verify.Report` of the database behind ``connection`` (autocommit)."""
    read_only_session(connection, timeout, "statedoc db check")
    tables = [t.table_name for spec in specs for t in spec.triggers]
    histories = [s.history.table.qualified for s in specs if s.history is not None]
    with connection.transaction(force_rollback=True):  # read-only, and never committed
        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        catalog = read_catalog(connection, schema, [*tables, *histories])
        installed_histories = read_histories(connection, histories)
        recorders = [
            f.oid
            for s in specs
            if s.history is not None
            for f in [catalog.function(s.history.recorder.schema, s.history.recorder.name, ())]
            if f is not None
        ]
        executors = read_executors(connection, recorders)
        accepts: dict[int, Accepts] = {}
        for spec in specs:
            expected = spec.objects.domain
            domain = catalog.domain(expected.schema, expected.name)
            if domain is not None:
                values = [*expected.states, *near_misses(expected.states)]
                results = domain_accepts(connection, domain.schema, domain.name, values)
                accepts[domain.oid] = Accepts(results, expected.states)
    probes: list[TriggerProbe] = []
    domains = []
    for spec in specs:
        expected_domain = spec.objects.domain
        domain = catalog.domain(expected_domain.schema, expected_domain.name)
        if domain is not None:
            domains.append((domain.oid, expected_domain))
        for trigger in spec.triggers:
            if trigger.when is None:
                continue  # nothing to probe
            table = catalog.tables.get(trigger.table_name)
            if table is None or table.oid is None:
                continue
            installed = catalog.trigger(table.oid, trigger.name)
            column = table.columns.get(trigger.column)
            if installed is not None and column is not None:
                probes.append(TriggerProbe(trigger, installed, column))
    probed = probe_generated(connection, probes, domains)
    return verify(
        specs,
        catalog,
        probed,
        accepts,
        sweep=sweep,
        known_ids=known_ids,
        histories=installed_histories,
        executors=executors,
    )
