"""The TypeScript conformance kit on a real PostgreSQL server, through node-postgres: services
that check in TypeScript or rely on the SQL target's triggers pass all five checks; the same
table without the triggers, and each deliberately wrong service, is caught with a message that
names the path. The kit takes its verdicts from each seed's vectors file, read as a team's
test reads it. Everything compiles in one tsc run and runs in one ``node`` process under
node:test's own runner (fixed fast-check seed: a catch must not depend on luck)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from ts_harness import node_available

from .test_typescript_conformance_support import Case, problems, run_cases, why

CHECKS = (
    "reaches every state",
    "declared transitions",
    "invalid pairs rejected",
    "undeclared rejected",
    "random walk",
)
CASES: list[Case] = [
    ("checked", "delivery", "CheckedService", False, False),
    ("triggers", "delivery", "TriggerService", True, False),
    ("no_triggers", "delivery", "TriggerService", False, False),
    ("attempt_checked", "attempt", "CheckedService", False, False),
    ("attempt_triggers", "attempt", "TriggerService", True, False),
    ("case_insensitive", "delivery", "CaseInsensitive", False, False),
    ("undeclared_allowed", "delivery", "AllowsUndeclared", False, False),
    ("invalid_allowed", "delivery", "AllowsInvalid", False, False),
    ("lost_write", "delivery", "LostWrite", False, False),
    ("wrong_read", "delivery", "WrongRead", False, False),
    ("nul_unsaid", "delivery", "TriggerService", True, True),
]
TO_DELIVERED = "create 'pending'; 'pending' -> 'delivering' accepted; 'delivering' -> 'delivered'"
WHY = why("delivery", ("delivered", "delivering"))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory, pg_dsn: str) -> dict[str, dict[str, str]]:
    """Case -> check -> "" (passed) or its failure message, all from one node process (the
    NUL case in a second one: it shares the triggers' table)."""
    from postgres_fixtures import _fresh_database

    node_available()
    database = _fresh_database(pg_dsn)
    connection: Any = next(database)
    try:
        cases = [c for c in CASES if c[0] != "nul_unsaid"]
        found = run_cases(tmp_path_factory.mktemp("ts-conformance"), connection, cases, runs=100)
        nul = [c for c in CASES if c[0] == "nul_unsaid"]
        root = tmp_path_factory.mktemp("ts-nul")
        return {**found, **run_cases(root, connection, nul, runs=5, tables=False)}
    finally:
        database.close()


@pytest.mark.parametrize("name", ["checked", "triggers", "attempt_checked", "attempt_triggers"])
def test_the_right_services_pass_every_check(
    name: str, outcomes: dict[str, dict[str, str]]
) -> None:
    failed = "\n\n".join(f"{check}: {error}" for check, error in outcomes[name].items() if error)
    assert outcomes[name] == dict.fromkeys(CHECKS, ""), failed


def test_the_table_without_the_triggers_is_caught(outcomes: dict[str, dict[str, str]]) -> None:
    found = outcomes["no_triggers"]
    assert {c for c, m in found.items() if m} == {
        "invalid pairs rejected",
        "undeclared rejected",
        "random walk",
    }
    assert (
        f"invalid 'delivered' -> 'delivering': 'delivered' -> 'delivering' was accepted, but "
        f"the spec forbids it: {WHY}; path: {TO_DELIVERED} accepted; "
        "'delivered' -> 'delivering' accepted"
    ) in problems(found["invalid pairs rejected"])


def test_case_insensitive_names_are_caught(outcomes: dict[str, dict[str, str]]) -> None:
    found = outcomes["case_insensitive"]
    assert {c for c, m in found.items() if m} == {"undeclared rejected", "random walk"}
    assert (
        "undeclared 'pending' -> 'DELIVERING': 'pending' -> 'DELIVERING' was accepted, but "
        "'DELIVERING' is no state; path: create 'pending'; 'pending' -> 'DELIVERING' accepted"
    ) in problems(found["undeclared rejected"])
    (walk,) = problems(found["random walk"])
    assert re.fullmatch(
        r"random walk: '(\w+)' -> '([^']+)' was accepted, but '\2' is no state; path: create "
        r"'pending'; .*'\1' -> '\2' accepted",
        walk,
    ), walk


def test_an_undeclared_pair_allowed_is_caught(outcomes: dict[str, dict[str, str]]) -> None:
    """Every undeclared pair is tried (the Python kit's sample of 20 may miss this one; the
    walk's random runs may too)."""
    found = outcomes["undeclared_allowed"]
    assert "undeclared rejected" in {c for c, m in found.items() if m}
    assert {c for c, m in found.items() if m} <= {"undeclared rejected", "random walk"}
    path = "path: create 'pending'; 'pending' -> 'withheld' accepted; 'withheld' -> 'delivering'"
    assert (
        "undeclared 'withheld' -> 'delivering': 'withheld' -> 'delivering' was accepted, but the "
        f"spec does not declare it; {path} accepted"
    ) in problems(found["undeclared rejected"])
    if found["random walk"]:
        walk = problems(found["random walk"])[0]
        assert walk.endswith("'withheld' -> 'delivering' accepted"), walk


def test_an_invalid_pair_allowed_is_caught(outcomes: dict[str, dict[str, str]]) -> None:
    found = outcomes["invalid_allowed"]
    assert {c for c, m in found.items() if m} == {"invalid pairs rejected", "random walk"}
    path = f"path: {TO_DELIVERED} accepted; 'delivered' -> 'delivering' accepted"
    for check in ("invalid pairs rejected", "random walk"):
        (problem,) = problems(found[check])
        assert "'delivered' -> 'delivering' was accepted, but the spec forbids it" in problem
        assert problem.endswith(path), problem


def test_a_lost_write_is_caught(outcomes: dict[str, dict[str, str]]) -> None:
    found = outcomes["lost_write"]
    assert all(found[c] for c in ("reaches every state", "declared transitions", "random walk"))
    assert (
        "reach 'delivering': stored state is 'pending' after an accepted move, expected "
        "'delivering'; path: create 'pending'; 'pending' -> 'delivering' accepted"
    ) in problems(found["reaches every state"])
    (walk,) = problems(found["random walk"])
    assert re.fullmatch(
        r"random walk: stored state is 'pending' after an accepted move, expected '(\w+)'; "
        r"path: create 'pending'; 'pending' -> '\1' accepted",
        walk,
    ), walk


def test_a_wrong_read_is_caught(outcomes: dict[str, dict[str, str]]) -> None:
    found = outcomes["wrong_read"]
    assert found["invalid pairs rejected"] and found["random walk"]
    assert (
        "invalid 'delivered' -> 'delivering': stored state is 'delivering' after a rejected "
        f"move (not rolled back), expected 'delivered'; path: {TO_DELIVERED} accepted; "
        "'delivered' -> 'delivering' rejected"
    ) in problems(found["invalid pairs rejected"])


def test_a_name_the_driver_cannot_carry_says_what_to_do(
    outcomes: dict[str, dict[str, str]],
) -> None:
    """PostgreSQL's text holds no NUL: an adapter that does not say so fails with a hint."""
    found = outcomes["nul_unsaid"]
    assert {c for c, m in found.items() if m} >= {"undeclared rejected"}
    nul = [p for p in problems(found["undeclared rejected"]) if "\\x00" in p.split(":")[0]]
    assert nul, found["undeclared rejected"]
    assert re.search(r"the adapter's attempt\('[^']*\\x00'\) raised DatabaseError", nul[0]), nul
    assert "say so with the adapter's cannotCarry(name)" in nul[0]
    # The same table and service with cannotCarry: the names are left out, nothing fails.
    assert outcomes["triggers"]["undeclared rejected"] == ""
