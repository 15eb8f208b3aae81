"""The public surface: an async adapter through ``sync_adapter``, the lazy exports, cheap
imports, an adapter that raises, and a spec that does not lint."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, settings

import generator.testing
from generator.testing.conformance import (
    ConformanceError,
    conformance_tests,
    load_oracle,
    sync_adapter,
)
from generator.testing.proofs.expected import SpecError

from .repos import (
    ROOT,
    SEEDS,
    TABLES,
    CheckedStore,
    MissingTransition,
    RefusedError,
    Store,
    StoreAdapter,
)


class AsyncStoreAdapter:
    """The store behind coroutines, as an async service would expose it."""

    def __init__(self, store: Store) -> None:
        self.inner = StoreAdapter(store)
        self.closed = False

    async def create(self, state: str) -> int:
        return self.inner.create(state)

    async def read(self, obj: int) -> object:
        return self.inner.read(obj)

    async def attempt(self, obj: int, to_state: str) -> bool:
        return self.inner.attempt(obj, to_state)

    async def close(self) -> None:
        self.inner.close()
        self.closed = True


QUICK = settings(
    max_examples=30,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
)


def test_an_async_adapter_runs_through_sync_adapter() -> None:
    made: list[AsyncStoreAdapter] = []

    def factory(store: type[Store]) -> Any:
        def make() -> Any:
            made.append(AsyncStoreAdapter(store.sqlite("delivery")))
            return sync_adapter(made[-1])

        return make

    good = conformance_tests(spec=SEEDS["delivery"], adapter=factory(CheckedStore), settings=QUICK)
    for name in ("test_declared_transitions", "test_random_walk"):
        getattr(good(), name)(None)
    assert made and all(a.closed for a in made)
    bad = conformance_tests(
        spec=SEEDS["delivery"], adapter=factory(MissingTransition), settings=QUICK
    )
    with pytest.raises(ConformanceError, match="'failed' -> 'superseded' was rejected"):
        bad().test_declared_transitions(None)


class Crashing(StoreAdapter):
    def attempt(self, obj: int, to_state: str) -> bool:
        if to_state == "expired":
            raise RuntimeError("connection lost")
        return super().attempt(obj, to_state)


def test_an_adapter_that_raises_is_a_failure_naming_the_path() -> None:
    cls = conformance_tests(
        spec=SEEDS["delivery"], adapter=lambda: Crashing(CheckedStore.sqlite("delivery"))
    )
    with pytest.raises(ConformanceError) as caught:
        cls().test_declared_transitions(None)
    assert (
        "declared 'pending' -> 'expired': the adapter's attempt('expired') raised RuntimeError: "
        "connection lost; path: create 'pending'"
    ) in str(caught.value)


def test_a_spec_that_does_not_lint_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / "broken.md"
    broken.write_text("---\nid: X\n---\n")
    with pytest.raises(SpecError, match="does not lint clean"):
        load_oracle(broken)
    with pytest.raises(SpecError, match="cannot read spec"):
        load_oracle(tmp_path / "missing.md")


def test_the_names_are_exported_lazily_and_imports_stay_cheap() -> None:
    assert generator.testing.conformance_tests is conformance_tests
    assert {"Adapter", "Collector", "CoveringAdapter", "conformance_tests"} <= set(
        generator.testing.__all__
    )
    code = (
        "import sys, generator.testing.conformance, generator.testing.coverage, "
        "generator.testing.pytest_plugin; "
        "print(sorted(m for m in ('hypothesis', 'jinja2') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"


class DeliveryRepository:
    """The repository the README's example adapter talks to (plain SQL, checked in Python)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.store = CheckedStore(db, "delivery", "sqlite")

    def add(self, status: str) -> int:
        return self.store.add(status)

    def status(self, row: int) -> object:
        return self.store.status(row)

    def move(self, row: int, status: str) -> None:
        self.store.move(row, status)


def connect() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute(f"CREATE TABLE {TABLES['delivery']} (id INTEGER PRIMARY KEY, status TEXT)")
    return db


def test_the_readme_adapter_example_is_true() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Test your service against the spec", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    names: dict[str, Any] = {
        "DeliveryRepository": DeliveryRepository,
        "connect": connect,
        "DeliveryStatusError": RefusedError,
    }
    exec(compile(code.group(1), str(ROOT / "README.md"), "exec"), names)
    cls = names["TestDeliveries"]
    assert cls.__test__
    for name in ("test_reaches_every_state", "test_declared_transitions"):
        getattr(cls(), name)(None)
    for name in ("test_invalid_pairs_rejected", "test_undeclared_rejected"):
        getattr(cls(), name)(None)


class SeedingAdapter(StoreAdapter):
    """Stores objects in any state directly (a fixture INSERT: no triggers on this table)."""

    seeds_any_state = True


def test_an_adapter_that_seeds_any_state_shortens_the_path() -> None:
    good = conformance_tests(
        spec=SEEDS["delivery"],
        adapter=lambda: SeedingAdapter(CheckedStore.sqlite("delivery")),
        settings=QUICK,
    )
    good().test_random_walk(None)
    wrong = conformance_tests(
        spec=SEEDS["delivery"],
        adapter=lambda: SeedingAdapter(MissingTransition.sqlite("delivery")),
        settings=QUICK.__class__(QUICK, max_examples=200),
    )
    with pytest.raises(ConformanceError) as caught:
        wrong().test_random_walk(None)
    # Resumed straight in 'failed': shorter than any path from 'pending'.
    assert (
        str(caught.value)
        .rstrip()
        .endswith("path: create 'failed'; 'failed' -> 'superseded' rejected")
    ), str(caught.value)
