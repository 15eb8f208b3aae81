"""Events in the TypeScript target (issue 14's optional ``event`` per transition).

The model does not have the field yet, so the spec here is hand-built: a linted TCP-like
document whose transitions are swapped for records that carry ``event`` (the renderer reads it
with ``getattr``). Several transitions share a pair with different events; an event leads from
one state to one target (SD115: the renderer refuses two). The generated test checks ``fire``
over every (state, event) and in its random command sequences; a scripted walk does the
handshake and the teardown; three event mutants must be killed.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from ts_harness import compile_project, run_script, run_tests

from generator.model.spec import Spec
from generator.targets import document_sha256
from generator.targets.typescript.render import render_module
from generator.targets.typescript.tests import render_test

from .ts_support import load

TCP = """\
---
id: STATE-NET-TCP-001
title: TCP connection
object: DOM-NET-TCP-001
product_area: net
module: tcp
revision: 1
status: draft
initial: [closed]
states:
  - {name: closed}
  - {name: listen}
  - {name: syn-sent}
  - {name: syn-received}
  - {name: established}
  - {name: fin-wait}
  - {name: time-wait}
transitions:
  - {from: closed, to: listen, trigger: t}
---

# TCP connection
"""

#: (from, to, event): established -> closed twice (abort, rcv_rst); syn-sent has two events
#: (rcv_syn_ack, rcv_syn) to two targets; one transition has no event.
EDGES = (
    ("closed", "listen", "passive_open"),
    ("closed", "syn-sent", "active_open"),
    ("listen", "syn-received", "rcv_syn"),
    ("syn-sent", "established", "rcv_syn_ack"),
    ("syn-sent", "syn-received", "rcv_syn"),
    ("syn-received", "established", "rcv_ack"),
    ("established", "fin-wait", "close"),
    ("established", "closed", "abort"),
    ("established", "closed", "rcv_rst"),
    ("fin-wait", "time-wait", "rcv_fin"),
    ("time-wait", "closed", None),
    ("listen", "closed", "close"),
)


@dataclass(frozen=True)
class EventTransition:
    """The model's transition plus the ``event`` field issue 14 adds."""

    from_state: str
    to_state: str
    trigger: str
    guard: str | None
    side_effects: tuple[str, ...]
    who: str | None
    provenance: str | None
    source: str | None
    path: tuple[str | int, ...]
    event: str | None

    @property
    def pair(self) -> tuple[str, str]:
        return (self.from_state, self.to_state)


def tcp_spec() -> tuple[Spec, str]:
    document = load(TCP, "specs/net/tcp.md")
    transitions = tuple(
        EventTransition(a, b, f"{event or 'timeout'} in {a}", None, (), None, None, None, (), event)
        for a, b, event in EDGES
    )
    spec = document.spec._replace(transitions=transitions)  # type: ignore[arg-type]
    return spec, document_sha256(document.source)


WALK = """\
import * as tcp from "./tcp.js";

declare const console: { log(text: string): void };
const out: unknown[] = [];
const server = new tcp.Machine();
for (const event of [tcp.Event.PASSIVE_OPEN, tcp.Event.RCV_SYN, tcp.Event.RCV_ACK, tcp.Event.CLOSE,
  tcp.Event.RCV_FIN]) {
  out.push(server.fire(event).to);
}
out.push(server.transition("closed").from);
const client = new tcp.Machine("closed", {
  guards: { "syn-sent": { established: (c) => c["ack"] === true } },
});
client.fire("active_open");
out.push(client.fire("rcv_syn", { ack: false }).to);
try {
  client.fire("rcv_fin");
} catch (error) {
  const refused = error as tcp.EventNotAllowedError;
  out.push(refused.name, refused instanceof tcp.TransitionError, refused.event);
  const alias = tcp.UndeclaredEventError;
  out.push(refused instanceof alias, alias === tcp.EventNotAllowedError);
}
const shy = new tcp.Machine("syn-sent", {
  guards: { "syn-sent": { established: (c) => c["ack"] === true } },
});
try {
  shy.fire("rcv_syn_ack", { ack: false });
} catch (error) {
  out.push((error as Error).name, shy.state);
}
const other = new tcp.Machine("syn-sent", { guards: { "syn-sent": { established: () => true } } });
out.push(other.canFire("rcv_syn_ack"), other.canFire("close"), [...other.events].sort());
out.push(other.fire("rcv_syn_ack").to, [...other.events].sort(), other.fire("rcv_rst").event);
out.push(tcp.check("established", "closed").event);
out.push(tcp.isEvent("abort"), tcp.isEvent("nope"), Object.values(tcp.Event).length);
console.log(JSON.stringify(out));
"""


def test_events_generate_fire_and_pass_their_property_tests(tmp_path: Path) -> None:
    spec, sha256 = tcp_spec()
    module = render_module(spec, relative="specs/net/tcp.md", sha256=sha256)
    assert "export const Event = Object.freeze(" in module and "fire(event: Event" in module
    test = render_test(spec, relative="specs/net/tcp.md", sha256=sha256, module_import="./tcp.js")
    files = {"tcp.ts": module, "tcp.test.ts": test, "walk.ts": WALK}
    compiled = compile_project(tmp_path, files)
    assert compiled.returncode == 0, compiled.errors
    assert run_tests(compiled, ["tcp.test.ts"], runs=100) == {"tcp.test.ts": (True, "")}
    result = run_script(compiled, "js/walk.js")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        "listen",
        "syn-received",
        "established",
        "fin-wait",
        "time-wait",
        "time-wait",
        "syn-received",
        "EventNotAllowedError",
        True,
        "rcv_fin",
        True,
        True,
        "GuardRejectedError",
        "syn-sent",
        True,
        False,
        ["rcv_syn", "rcv_syn_ack"],
        "established",
        ["abort", "close", "rcv_rst"],
        "rcv_rst",
        "abort",
        True,
        False,
        9,
    ]


EVENT_MUTANTS = {
    "event-leads-to-the-wrong-target": (
        "if (t.event !== null && byEvent !== undefined && !byEvent.has(t.event)) {",
        "if (t.event !== null && byEvent !== undefined && !byEvent.has(t.event)"
        " && t !== _TRANSITION_LIST[0]) {",
    ),
    "event-fires-from-a-state-that-does-not-declare-it": (
        "const found = _ON.get(this.#state)?.get(event);",
        "const found = _ON.get(this.#state)?.get(event) ?? "
        "[..._ON.values()].map((m) => m.get(event)).find((t) => t !== undefined);",
    ),
    "fire-ignores-guards": (
        "if (this.#allows(found, context)) {",
        "if (this.#allows(found, context) || Number.isNaN(Number.NaN)) {",
    ),
}


def test_the_generated_tests_kill_the_event_mutants(tmp_path: Path) -> None:
    spec, sha256 = tcp_spec()
    module = render_module(spec, relative="specs/net/tcp.md", sha256=sha256)
    test = render_test(spec, relative="specs/net/tcp.md", sha256=sha256, module_import="./tcp.js")
    files: dict[str, str] = {}
    for name, (old, new) in EVENT_MUTANTS.items():
        assert module.count(old) == 1, f"anchor of {name} not found: update the mutant"
        files[f"{name}/tcp.ts"] = module.replace(old, new)
        files[f"{name}/tcp.test.ts"] = test
    compiled = compile_project(tmp_path, files)
    assert compiled.returncode == 0, compiled.errors
    tests = [p for p in files if p.endswith(".test.ts")]
    results = run_tests(compiled, tests, runs=200, seed=7)
    for path, (passed, error) in results.items():
        assert not passed, f"{path} survived"
        assert "[statedoc]" in error, error


def test_events_that_collide_as_keys_are_refused() -> None:
    import pytest

    from generator.targets.typescript import TypeScriptError

    spec, sha256 = tcp_spec()
    first = spec.transitions[0]
    assert isinstance(first, EventTransition)
    twin = dataclasses.replace(first, to_state="syn-sent", event="passive-open")
    clashing = spec._replace(transitions=(*spec.transitions, twin))  # type: ignore[arg-type]
    with pytest.raises(TypeScriptError, match="both map to the key PASSIVE_OPEN"):
        render_module(clashing, relative="specs/net/tcp.md", sha256=sha256)


def test_an_event_with_two_targets_from_one_state_is_refused() -> None:
    """``fire`` takes the one transition an event names (SD115), in TypeScript as in Python:
    regression, the TypeScript module tried several in order and took the first a guard let
    through, which lint forbids and Python refuses to generate."""
    import pytest

    from generator.targets.typescript import TypeScriptError

    spec, sha256 = tcp_spec()
    first = spec.transitions[1]
    assert isinstance(first, EventTransition) and first.event == "active_open"
    twin = dataclasses.replace(first, to_state="listen")
    both = spec._replace(transitions=(*spec.transitions, twin))  # type: ignore[arg-type]
    with pytest.raises(TypeScriptError, match=r"leads from 'closed' to two targets \(SD115\)"):
        render_module(both, relative="specs/net/tcp.md", sha256=sha256)
