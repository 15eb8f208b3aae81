"""The conformance suite on the real PostgreSQL server: both seeds, a repository checking in
Python and one relying on the SQL target's triggers; the adapters come from fixtures, by name.
And a wrong service on the server: the rollback it forgets is a real transaction's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import Phase, settings

from generator.testing.conformance import Adapter, ConformanceError, conformance_tests

from .repos import SEEDS, CheckedStore, ForgetsRollback, Store, StoreAdapter, TriggerStore


def factory(pg: Any, store: type[Store], seed: str, triggers: bool) -> Callable[[], Adapter]:
    made = store.postgresql(pg, seed, triggers=triggers)
    return lambda: StoreAdapter(made)


@pytest.fixture
def delivery_checked(pg: Any) -> Callable[[], Adapter]:
    return factory(pg, CheckedStore, "delivery", False)


@pytest.fixture
def delivery_triggers(pg: Any) -> Callable[[], Adapter]:
    return factory(pg, TriggerStore, "delivery", True)


@pytest.fixture
def attempt_checked(pg: Any) -> Callable[[], Adapter]:
    return factory(pg, CheckedStore, "attempt", False)


@pytest.fixture
def attempt_triggers(pg: Any) -> Callable[[], Adapter]:
    return factory(pg, TriggerStore, "attempt", True)


TestDeliveryCheckedOnPostgres = conformance_tests(
    spec=SEEDS["delivery"], adapter="delivery_checked"
)
TestDeliveryTriggersOnPostgres = conformance_tests(
    spec=SEEDS["delivery"], adapter="delivery_triggers"
)
TestAttemptCheckedOnPostgres = conformance_tests(spec=SEEDS["attempt"], adapter="attempt_checked")
TestAttemptTriggersOnPostgres = conformance_tests(spec=SEEDS["attempt"], adapter="attempt_triggers")


def test_forgotten_rollback_is_caught_on_postgres(pg: Any) -> None:
    make = factory(pg, ForgetsRollback, "attempt", False)
    walk = settings(
        max_examples=100,
        derandomize=True,
        database=None,
        deadline=None,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
    )
    cls = conformance_tests(spec=SEEDS["attempt"], adapter=make, settings=walk)
    with pytest.raises(ConformanceError) as caught:
        cls().test_invalid_pairs_rejected(None)
    assert (
        "stored state is 'running' after a rejected move (not rolled back), expected "
        "'succeeded'; path: create 'pending'; 'pending' -> 'running' accepted; "
        "'running' -> 'succeeded' accepted; 'succeeded' -> 'running' rejected"
    ) in str(caught.value)
    with pytest.raises(ConformanceError, match=r"path: create 'pending'; 'pending' -> '[^;]*' "):
        cls().test_random_walk(None)


class PlainUpdates:
    """A newcomer's adapter: plain UPDATEs through psycopg, the SQL target's triggers refuse
    what the spec does not allow (their SQLSTATEs become False), nothing else is caught."""

    def __init__(self, pg: Any) -> None:
        self.store = TriggerStore.postgresql(pg, "attempt", triggers=True)

    def create(self, state: str) -> int:
        return self.store.add(state)

    def read(self, obj: int) -> object:
        return self.store.status(obj)

    def attempt(self, obj: int, to_state: str) -> bool:
        import psycopg

        try:
            self.store._update(obj, to_state)
        except psycopg.Error as exc:
            if exc.sqlstate in ("SDF01", "SDU01", "SDS01"):
                return False
            raise
        return True


class CarriesNoNul(PlainUpdates):
    cannot_carry = "\x00"


def test_a_name_psycopg_cannot_send_says_what_to_do(pg: Any) -> None:
    cls = conformance_tests(spec=SEEDS["attempt"], adapter=lambda: PlainUpdates(pg))
    with pytest.raises(ConformanceError) as caught:
        cls().test_undeclared_rejected(None)
    message = str(caught.value)
    assert "the adapter's attempt('pending\\x00') raised DataError" in message
    assert 'on the adapter class, cannot_carry = "\\x00", to leave such names out' in message
    # Every failure is a NUL the driver refused: the triggers themselves refuse all else.
    assert all("U+0000" in problem for problem in caught.value.problems)


def test_an_adapter_that_declares_what_it_cannot_carry_passes(pg: Any) -> None:
    cls = conformance_tests(spec=SEEDS["attempt"], adapter=lambda: CarriesNoNul(pg))
    instance = cls()
    for name in (
        "test_reaches_every_state",
        "test_declared_transitions",
        "test_invalid_pairs_rejected",
        "test_undeclared_rejected",
        "test_random_walk",
    ):
        getattr(instance, name)(None)
