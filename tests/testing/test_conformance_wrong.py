"""Deliberately wrong services: the conformance suite must catch every one, and its message
must name the (shortest, or shrunk) path that led to the failure."""

from __future__ import annotations

import re

import pytest
from hypothesis import Phase, settings

from generator.testing.conformance import ConformanceError, conformance_tests

from .repos import (
    SEEDS,
    AcceptsUnknownState,
    ForgetsRollback,
    MissingTransition,
    PerformsInvalidPair,
    Store,
    StoreAdapter,
    TriggerStore,
)

#: Deterministic, and always shrinking (the CI profile does not shrink).
WALK = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
)
TESTS = (
    "test_reaches_every_state",
    "test_declared_transitions",
    "test_invalid_pairs_rejected",
    "test_undeclared_rejected",
    "test_random_walk",
)

TO_DELIVERED = "create 'pending'; 'pending' -> 'delivering' accepted; 'delivering' -> 'delivered'"
TO_FAILED = "create 'pending'; 'pending' -> 'delivering' accepted; 'delivering' -> 'failed'"


def failures(store: type[Store], **kwargs: bool) -> dict[str, str]:
    """Each conformance test of the delivery seed run on ``store``: name -> failure message."""
    cls = conformance_tests(
        spec=SEEDS["delivery"],
        adapter=lambda: StoreAdapter(store.sqlite("delivery", **kwargs)),
        settings=WALK,
    )
    found: dict[str, str] = {}
    for name in TESTS:
        try:
            getattr(cls(), name)(None)
        except ConformanceError as exc:
            assert exc.spec_id == "STATE-PFM-QRY-011"
            found[name] = str(exc)
    return found


def test_a_service_that_performs_an_invalid_pair_is_caught() -> None:
    found = failures(PerformsInvalidPair)
    assert set(found) == {"test_invalid_pairs_rejected", "test_random_walk"}
    path = f"path: {TO_DELIVERED} accepted; 'delivered' -> 'delivering' accepted"
    for message in found.values():
        assert "'delivered' -> 'delivering' was accepted, but the spec forbids it" in message
        assert message.rstrip().endswith(path), message


def test_a_service_that_does_not_roll_back_a_rejection_is_caught() -> None:
    found = failures(ForgetsRollback)
    assert set(found) == {
        "test_invalid_pairs_rejected",
        "test_undeclared_rejected",
        "test_random_walk",
    }
    assert (
        "stored state is 'delivering' after a rejected move (not rolled back), expected "
        f"'delivered'; path: {TO_DELIVERED} accepted; 'delivered' -> 'delivering' rejected"
    ) in found["test_invalid_pairs_rejected"]
    # Shrunk to one rejected attempt right after creation: the shortest path there is.
    walk = found["test_random_walk"]
    assert re.search(
        r"not rolled back\), expected 'pending'; path: create 'pending'; 'pending' -> '[^;]*' "
        r"rejected$",
        walk.rstrip(),
    ), walk


def test_a_service_missing_a_declared_transition_is_caught() -> None:
    found = failures(MissingTransition)
    # Every plan whose path needs the missing transition fails, and says where.
    assert set(found) == set(TESTS)
    path = f"path: {TO_FAILED} accepted; 'failed' -> 'superseded' rejected"
    assert (
        "'failed' -> 'superseded' was rejected, but the spec declares it (The supersession "
        f"helper is called.); {path}"
    ) in found["test_declared_transitions"]
    assert found["test_random_walk"].rstrip().endswith(path), found["test_random_walk"]


def test_a_service_that_accepts_an_unknown_state_is_caught() -> None:
    found = failures(AcceptsUnknownState)
    assert set(found) == {"test_undeclared_rejected", "test_random_walk"}
    message = found["test_undeclared_rejected"]
    assert "'pending' -> 'PENDING' was accepted, but 'PENDING' is no state" in message
    walk = found["test_random_walk"].rstrip()
    match = re.search(r"path: create 'pending'; 'pending' -> '([^;]*)' accepted$", walk)
    assert match is not None, walk
    assert f"'pending' -> '{match[1]}' was accepted, but '{match[1]}' is no state" in walk


def test_a_table_without_any_enforcement_is_caught() -> None:
    """Plain UPDATEs with the triggers left out: everything the spec refuses goes through."""
    found = failures(TriggerStore, triggers=False)
    assert set(found) == {
        "test_invalid_pairs_rejected",
        "test_undeclared_rejected",
        "test_random_walk",
    }


def test_the_same_table_with_the_sql_targets_triggers_passes() -> None:
    assert failures(TriggerStore, triggers=True) == {}


@pytest.mark.parametrize("store", [PerformsInvalidPair, MissingTransition, AcceptsUnknownState])
def test_wrong_services_fail_the_collected_class_too(store: type[Store]) -> None:
    """What pytest collects from the one-liner is what fails (not only direct calls)."""
    cls = conformance_tests(
        spec=SEEDS["delivery"], adapter=lambda: StoreAdapter(store.sqlite("delivery"))
    )
    assert cls.__test__ is True and cls.__name__.startswith("Test")
    with pytest.raises(ConformanceError):
        for name in TESTS[:4]:
            getattr(cls(), name)(None)
