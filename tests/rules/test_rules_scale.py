"""Rules over machines far larger than a hand-written spec: findings stay complete, ordered as
the spec writes its states, and each rule walks the states a bounded number of times."""

from __future__ import annotations

import random

from sample_documents import codes, document, lint_text


def _many_initial_states(count: int) -> tuple[str, list[str]]:
    """A spec whose ``count`` initial states (shuffled names) all lead to ``done``, and a
    diagram (small: Mermaid's text limit does not bound the spec) drawing the first only."""
    names = [f"s{i:05d}" for i in range(count)]
    random.Random(7).shuffle(names)
    front = (
        f"initial: [{', '.join(names)}]\n"
        "states:\n"
        + "".join(f"  - name: {n}\n" for n in [*names, "done"])
        + "transitions:\n"
        + "".join(f"  - {{from: {n}, to: done, trigger: finish}}\n" for n in names)
    )
    body = (
        "\n# Door\n\n## The Lifecycle\n\n```mermaid\nstateDiagram-v2\n"
        f"  [*] --> {names[0]}\n  {names[0]} --> done\n  done --> [*]\n```\n"
    )
    return document(front, body), names


def test_sd305_reports_every_undrawn_initial_state_in_spec_order() -> None:
    text, names = _many_initial_states(20_000)
    result = lint_text(text)
    undrawn = [
        f.message.split("'")[1]
        for f in result.findings
        if f.code == "SD305" and "has no" in f.message
    ]
    assert undrawn == names[1:], codes(result)[:5]


def test_sd107_names_a_few_initial_states_and_counts_the_rest() -> None:
    """One finding per unreachable state: each names three initial states, not all of them
    (a message per state listing every start grows with the square of the spec)."""
    starts = [f"start{i}" for i in range(50)]
    front = (
        f"initial: [{', '.join(starts)}]\n"
        "states:\n"
        + "".join(f"  - name: {n}\n" for n in [*starts, "done", "lost", "found"])
        + "transitions:\n"
        + "".join(f"  - {{from: {n}, to: done, trigger: finish}}\n" for n in starts)
        + "  - {from: lost, to: found, trigger: look}\n"
    )
    messages = [f.message for f in lint_text(document(front)).findings if f.code == "SD107"]
    assert messages == [
        f"state {name!r} cannot be reached from the initial states 'start0', 'start1', "
        "'start2' and 47 more"
        for name in ("lost", "found")
    ]
