"""The SQL target is pair-based: several transitions (events) per pair give each pair once."""

from __future__ import annotations

import copy
from typing import Any

import yaml

from generator.model.spec import build
from generator.targets.sql.plan import build_plan
from generator.targets.sql.postgresql import render_postgresql
from generator.targets.sql.settings import SqlSettings

from ..test_generate_support import ROOT

TCP = ROOT / "specs/network/tcp/connection.md"


def _front() -> dict[str, Any]:
    text = TCP.read_text(encoding="utf-8")
    loaded: dict[str, Any] = yaml.safe_load(text.split("---\n")[1])
    return loaded


def _one_per_pair(front: dict[str, Any]) -> dict[str, Any]:
    """The same graph written without events: one transition per pair."""
    flat = copy.deepcopy(front)
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for item in front["transitions"]:
        sources = item["from"] if isinstance(item["from"], list) else [item["from"]]
        for source in sources:
            seen.setdefault(
                (source, item["to"]), {"from": source, "to": item["to"], "trigger": "x"}
            )
    flat["transitions"] = list(seen.values())
    return flat


def test_each_pair_appears_once_in_the_plan() -> None:
    spec = build(_front())
    plan = build_plan(spec, SqlSettings(), source="tcp.md", sha256="0" * 64)
    for source, targets in plan.declared.items():
        assert len(targets) == len(set(targets)), source
    assert {(a, b) for a, targets in plan.declared.items() for b in targets} == set(
        spec.transition_pairs
    )
    assert len(spec.transitions) > len(spec.transition_pairs)


def test_events_do_not_change_the_generated_sql() -> None:
    with_events = build(_front())
    without = build(_one_per_pair(_front()))
    assert not without.events
    sql = [
        render_postgresql(build_plan(s, SqlSettings(), source="tcp.md", sha256="0" * 64), "--")
        for s in (with_events, without)
    ]
    assert sql[0] == sql[1]
