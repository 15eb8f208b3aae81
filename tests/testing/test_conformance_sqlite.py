"""The conformance suite on real SQLite repositories of both seeds: checked in Python, and
relying on the SQL target's triggers. Each class is what a user writes: one line."""

from __future__ import annotations

from generator.testing.conformance import conformance_tests

from .repos import SEEDS, CheckedStore, StoreAdapter, TriggerStore

TestDeliveryCheckedInPython = conformance_tests(
    spec=SEEDS["delivery"], adapter=lambda: StoreAdapter(CheckedStore.sqlite("delivery"))
)
TestDeliveryEnforcedByTriggers = conformance_tests(
    spec=SEEDS["delivery"],
    adapter=lambda: StoreAdapter(TriggerStore.sqlite("delivery", triggers=True)),
)
TestAttemptCheckedInPython = conformance_tests(
    spec=SEEDS["attempt"], adapter=lambda: StoreAdapter(CheckedStore.sqlite("attempt"))
)
TestAttemptEnforcedByTriggers = conformance_tests(
    spec=SEEDS["attempt"],
    adapter=lambda: StoreAdapter(TriggerStore.sqlite("attempt", triggers=True)),
)
