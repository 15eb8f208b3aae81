"""The Python renderer with events: names it takes only with events, collisions it refuses,
and per-event methods it leaves out rather than rename."""

from __future__ import annotations

import itertools
import sys
import types
from typing import Any

import pytest
import yaml

from generator.model.spec import build
from generator.rules.examples import HEADER
from generator.targets.python.render import RenderError, render_module

_COUNTER = itertools.count()
FRONT = """\
initial: closed
states: [{name: open}, {name: closed}]
transitions:
  - {from: closed, to: open, trigger: push, event: push}
  - {from: open, to: closed, trigger: close, event: close}
  - {from: open, to: closed, trigger: slam, event: slam}
"""


def _module(front: str, title: str = "Door") -> types.ModuleType:
    data: dict[str, Any] = yaml.safe_load(HEADER.replace("title: Door", f"title: {title}") + front)
    source = render_module(build(data), relative="specs/x.md", sha256="0" * 64, module="door")
    name = f"door_events_{next(_COUNTER)}"
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up there
    exec(compile(source, "door.py", "exec"), module.__dict__)
    return module


def test_a_title_named_event_keeps_its_alias_only_without_events() -> None:
    plain = FRONT.replace(", event: push}", "}").replace(", event: close}", "}")
    plain = plain.replace("  - {from: open, to: closed, trigger: slam, event: slam}\n", "")
    without = _module(plain, title="Event")
    assert without.Event is without.Machine  # as before events existed
    evented = _module(FRONT, title="Event")
    assert evented.EventMachine is evented.Machine
    assert [e.value for e in evented.Event] == ["push", "close", "slam"]


def test_a_clashing_event_name_drops_the_typed_methods_not_the_event() -> None:
    module = _module(FRONT.replace("event: slam}", "event: fire}"))
    machine = module.Machine("open")
    assert not hasattr(module.Machine, "close")  # no per-event method at all
    assert machine.fire("fire").trigger == "slam"
    assert _module(FRONT).Machine("open").slam().trigger == "slam"


def test_a_nondeterministic_event_is_refused() -> None:
    front = FRONT.replace("event: slam}", "event: close}").replace(
        "to: closed, trigger: slam", "to: open, trigger: slam"
    )
    with pytest.raises(RenderError, match="SD115"):
        _module(front)


def test_the_same_pair_and_event_twice_is_refused() -> None:
    with pytest.raises(RenderError, match="SD105"):
        _module(FRONT + "  - {from: open, to: closed, trigger: again, event: slam}\n")


def test_events_that_collide_as_members_are_refused() -> None:
    with pytest.raises(RenderError, match="SD116"):
        _module(FRONT.replace("event: slam}", "event: Close}"))
