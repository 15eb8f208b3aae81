"""``diff`` over named events: adding one is compatible, removing or retargeting one breaks."""

from __future__ import annotations

import copy
from typing import Any

import yaml

from generator.diffing.changes import KINDS, ChangeClass
from generator.diffing.classify import diff_specs
from generator.model.spec import build
from generator.rules.examples import HEADER

BASE: dict[str, Any] = yaml.safe_load(
    HEADER
    + """\
initial: closed
states: [{name: open}, {name: closed}, {name: locked}]
transitions:
  - {from: closed, to: open, trigger: push, event: push}
  - {from: open, to: closed, trigger: close, event: close}
  - {from: [open, closed], to: locked, trigger: lock, event: lock}
  - {from: locked, to: closed, trigger: unlock, event: unlock}
"""
)


def _kinds(edit: Any) -> list[tuple[str, str]]:
    new = copy.deepcopy(BASE)
    edit(new)
    return [(c.kind, c.message) for c in diff_specs(build(BASE), build(new))]


def test_adding_an_event_on_an_existing_pair_is_compatible() -> None:
    found = _kinds(
        lambda d: d["transitions"].append(
            {"from": "open", "to": "closed", "trigger": "slam", "event": "slam"}
        )
    )
    assert found == [("event-added", "event 'slam' from 'open' added")]
    assert KINDS["event-added"] is ChangeClass.COMPATIBLE


def test_removing_an_event_is_breaking_even_when_the_pair_stays() -> None:
    def edit(d: Any) -> None:
        d["transitions"][0]["event"] = "shove"

    assert _kinds(edit) == [
        ("event-removed", "event 'push' from 'closed' removed"),
        ("event-added", "event 'shove' from 'closed' added"),
    ]
    assert KINDS["event-removed"] is ChangeClass.BREAKING


def test_narrowing_a_list_from_removes_the_event_from_that_state() -> None:
    def edit(d: Any) -> None:
        d["transitions"][2]["from"] = ["open"]

    found = _kinds(edit)
    assert ("event-removed", "event 'lock' from 'closed' removed") in found
    assert ("transition-removed", "transition 'closed' -> 'locked' removed") in found


def test_retargeting_an_event_is_breaking() -> None:
    def edit(d: Any) -> None:
        d["transitions"][3]["to"] = "open"
        d["transitions"].append({"from": "locked", "to": "closed", "trigger": "x"})

    found = _kinds(edit)
    assert found[0] == (
        "event-retargeted",
        "event 'unlock' from 'locked' now leads to 'open', not 'closed'",
    )
    assert KINDS["event-retargeted"] is ChangeClass.BREAKING


def test_text_changes_name_the_event() -> None:
    def edit(d: Any) -> None:
        d["transitions"][1]["trigger"] = "close gently"

    assert _kinds(edit) == [
        (
            "transition-trigger-changed",
            "transition 'open' -> 'closed' (event 'close' from 'open'): trigger changed",
        )
    ]
