"""The TCP connection of RFC 9293 (specs/network/tcp/connection.md): one transition per event,
list sources and URL sources lint clean, and the committed module's ``fire`` API walks the
handshakes and teardowns the RFC describes."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

import pytest

from generator.lint.document import lint_bytes
from targets.test_generate_support import ROOT, load_module

SPEC = ROOT / "specs/network/tcp/connection.md"
MODULE = ROOT / "generated/network/tcp/tcp_connection.py"


@pytest.fixture(scope="module")
def tcp() -> ModuleType:
    return load_module(MODULE)


def test_the_spec_lints_clean_and_uses_every_new_key() -> None:
    result = lint_bytes(SPEC.read_bytes(), str(SPEC))
    assert result.findings == []
    assert result.document is not None
    spec = result.document.spec
    assert len(spec.events) >= 15
    assert any(t.from_index is not None for t in spec.transitions)  # a list `from`
    assert all(t.source and t.source.startswith("https://") for t in spec.transitions)
    pairs = [t.pair for t in spec.transitions]
    assert len(set(pairs)) < len(pairs)  # several events share a pair


def _walk(tcp: ModuleType, start: str, events: list[str]) -> list[str]:
    machine = tcp.Machine(start)
    seen = [machine.state.value]
    for event in events:
        taken = machine.fire(event)
        assert taken.event == event and taken.to_state is machine.state
        seen.append(machine.state.value)
    return seen


def test_active_open_and_active_close(tcp: ModuleType) -> None:
    events = ["active_open", "rcv_syn_ack", "close", "rcv_ack_of_fin", "rcv_fin"]
    assert _walk(tcp, "CLOSED", [*events, "time_wait_timeout"]) == [
        "CLOSED",
        "SYN-SENT",
        "ESTABLISHED",
        "FIN-WAIT-1",
        "FIN-WAIT-2",
        "TIME-WAIT",
        "CLOSED",
    ]


def test_passive_open_and_passive_close(tcp: ModuleType) -> None:
    events = ["passive_open", "rcv_syn", "rcv_ack", "rcv_fin", "close", "rcv_ack_of_fin"]
    assert _walk(tcp, "CLOSED", events) == [
        "CLOSED",
        "LISTEN",
        "SYN-RECEIVED",
        "ESTABLISHED",
        "CLOSE-WAIT",
        "LAST-ACK",
        "CLOSED",
    ]


def test_simultaneous_open_and_simultaneous_close(tcp: ModuleType) -> None:
    events = ["active_open", "rcv_syn", "rcv_ack", "close", "rcv_fin", "rcv_ack_of_fin"]
    assert _walk(tcp, "CLOSED", events) == [
        "CLOSED",
        "SYN-SENT",
        "SYN-RECEIVED",
        "ESTABLISHED",
        "FIN-WAIT-1",
        "CLOSING",
        "TIME-WAIT",
    ]


def test_the_same_segment_leads_where_the_state_says(tcp: ModuleType) -> None:
    """rcv_fin goes to CLOSE-WAIT, CLOSING or TIME-WAIT depending on the current state."""
    targets = {
        state: tcp.TRANSITIONS_BY_EVENT[(tcp.State(state), tcp.Event.RCV_FIN)].to_state.value
        for state in ("SYN-RECEIVED", "ESTABLISHED", "FIN-WAIT-1", "FIN-WAIT-2")
    }
    assert targets == {
        "SYN-RECEIVED": "CLOSE-WAIT",
        "ESTABLISHED": "CLOSE-WAIT",
        "FIN-WAIT-1": "CLOSING",
        "FIN-WAIT-2": "TIME-WAIT",
    }


def test_abort_and_user_timeout_close_from_every_open_state(tcp: ModuleType) -> None:
    for state in tcp.State:
        if state is tcp.State.CLOSED:
            continue
        for event in ("abort", "user_timeout"):
            machine = tcp.Machine(state)
            assert machine.fire(event).to_state is tcp.State.CLOSED


def test_an_event_without_a_transition_from_here_is_refused(tcp: ModuleType) -> None:
    machine = tcp.Machine()
    assert machine.state is tcp.State.CLOSED
    with pytest.raises(tcp.EventNotAllowed) as caught:
        machine.fire("rcv_fin")
    assert isinstance(caught.value, tcp.TransitionError)
    assert caught.value.event is tcp.Event.RCV_FIN
    assert caught.value.from_state is tcp.State.CLOSED
    assert "'rcv_fin' has no transition from 'CLOSED'" in str(caught.value)
    assert machine.state is tcp.State.CLOSED
    with pytest.raises(ValueError, match="not an event"):
        machine.fire("rcv_banana")
    assert not machine.can_fire("close") and machine.can_fire(tcp.Event.PASSIVE_OPEN)
    assert machine.events == {tcp.Event.PASSIVE_OPEN, tcp.Event.ACTIVE_OPEN}


def test_typed_methods_fire_their_event(tcp: ModuleType) -> None:
    machine = tcp.Machine()
    assert machine.passive_open().event is tcp.Event.PASSIVE_OPEN
    assert machine.send().to_state is tcp.State.SYN_SENT  # LISTEN --SEND--> SYN-SENT


def test_a_pair_with_several_events(tcp: ModuleType) -> None:
    pair = (tcp.State.LISTEN, tcp.State.CLOSED)
    every = tcp.transitions_for(*pair)
    assert [t.event for t in every] == ["close", "abort", "user_timeout"]
    assert tcp.TRANSITIONS[pair] is every[0]  # the first declared
    assert tcp.check("LISTEN", "CLOSED") is every[0]
    assert tcp.transitions_for("CLOSED", "ESTABLISHED") == ()
    with pytest.raises(tcp.ForbiddenTransition):
        tcp.check("CLOSED", "ESTABLISHED")
    # transition() by target still works on a shared pair and takes the first declared.
    assert tcp.Machine("LISTEN").transition("CLOSED").event == "close"


def test_fire_runs_the_pair_guard_and_the_listeners(tcp: ModuleType) -> None:
    calls: list[tuple[Any, Mapping[str, Any]]] = []
    machine = tcp.Machine(
        "ESTABLISHED",
        guards={("ESTABLISHED", "FIN-WAIT-1"): lambda context: context.get("drained", False)},
        listeners=[lambda transition, context: calls.append((transition, dict(context)))],
    )
    with pytest.raises(tcp.GuardRejected):
        machine.fire("close", drained=False)
    assert machine.state is tcp.State.ESTABLISHED and calls == []
    taken = machine.fire(tcp.Event.CLOSE, drained=True)
    assert machine.state is tcp.State.FIN_WAIT_1
    assert calls == [(taken, {"drained": True})] and taken.event is tcp.Event.CLOSE
    with pytest.raises(tcp.EventNotAllowed):
        machine.fire("rcv_syn")
    assert len(calls) == 1


def test_no_event_reaches_an_invalid_pair(tcp: ModuleType) -> None:
    for (source, _event), transition in tcp.TRANSITIONS_BY_EVENT.items():
        assert (source, transition.to_state) not in tcp.INVALID


@pytest.mark.mermaid_js
def test_mermaid_draws_one_labelled_edge_per_event() -> None:
    """Mermaid's own parser and renderer read the committed .mmd as one edge per transition,
    each showing its event name."""
    from collections import Counter

    from mermaid_oracle import ensure_node_modules, node_available, parse_diagrams

    node_available()
    ensure_node_modules()
    result = lint_bytes(SPEC.read_bytes(), str(SPEC))
    assert result.document is not None
    spec = result.document.spec
    text = (MODULE.parent / "tcp_connection.mmd").read_text(encoding="utf-8")
    (parsed,) = parse_diagrams([text], render=True)
    names = {node["id"]: node["text"] for node in parsed["nodes"]}
    ids = {name: ident for ident, name in names.items()}
    drawn = Counter(
        (edge["start"], edge["end"], parsed["rendered"]["edges"][edge["id"]]["text"])
        for edge in parsed["edges"]
        if edge["start"] != "root_start"
    )
    wanted = Counter((ids[t.from_state], ids[t.to_state], t.event) for t in spec.transitions)
    assert drawn == wanted
