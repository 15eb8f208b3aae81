"""Rules over named events, list sources and URL sources (SD102, SD104, SD105, SD115, SD116,
SD201, SD303)."""

from __future__ import annotations

from sample_documents import HEADER, at, codes, document, lint_text

# Line 9 is `initial`, states on 10-13, `transitions:` on 14, the first transition on 15.
FRONT = """\
initial: closed
states:
  - name: open
  - name: closed
  - name: locked
transitions:
  - {from: closed, to: open, trigger: push, event: push}
  - {from: open, to: closed, trigger: close, event: close}
  - {from: open, to: closed, trigger: slam, event: slam}
  - {from: closed, to: locked, trigger: lock, event: lock}
  - {from: [locked, open], to: closed, trigger: reset, event: reset}
"""
DIAGRAM = """
## The Lifecycle

```mermaid
stateDiagram-v2
  [*] --> closed
  closed --> open : push
  open --> closed : close
  open --> closed : slam
  closed --> locked : lock
  locked --> closed : reset
  open --> closed : reset
```
"""


def _lint(front: str, diagram: str = DIAGRAM) -> object:
    return lint_text(document(front, "\n# Door\n" + diagram))


def test_events_share_a_pair_and_a_list_from_lints_clean() -> None:
    result = lint_text(document(FRONT, "\n# Door\n" + DIAGRAM))
    assert result.findings == []
    assert HEADER.count("\n") == 7


def test_same_pair_same_event_is_still_sd105() -> None:
    front = FRONT + "  - {from: open, to: closed, trigger: again, event: slam}\n"
    result = lint_text(document(front, "\n# Door\n" + DIAGRAM + ""))
    assert "SD105" in codes(result)
    assert at(result, "SD105") == [(20, 5)]
    messages = [f.message for f in result.findings if f.code == "SD105"]
    assert messages == ["transition 'open' -> 'closed' is declared twice for event 'slam'"]


def test_same_pair_one_event_one_without_is_allowed_but_two_without_are_not() -> None:
    front = FRONT + "  - {from: closed, to: open, trigger: kick}\n"
    diagram = DIAGRAM.replace("  closed --> open : push\n", "  closed --> open : push\n" * 2)
    assert "SD105" not in codes(lint_text(document(front, "\n# Door\n" + diagram)))
    twice = front + "  - {from: closed, to: open, trigger: shove}\n"
    diagram = DIAGRAM.replace("  closed --> open : push\n", "  closed --> open : push\n" * 3)
    assert codes(lint_text(document(twice, "\n# Door\n" + diagram))) == ["SD105"]


def test_a_nondeterministic_event_is_sd115_even_with_guards() -> None:
    front = FRONT + "  - {from: closed, to: closed, trigger: jam, event: push, guard: jammed}\n"
    diagram = DIAGRAM.replace(
        "  locked --> closed", "  closed --> closed : push\n  locked --> closed"
    )
    result = lint_text(document(front, "\n# Door\n" + diagram))
    assert codes(result) == ["SD111", "SD115"]  # the self-loop warning, and the finding
    assert at(result, "SD115") == [(20, 53)]
    (finding,) = [f for f in result.findings if f.code == "SD115"]
    assert finding.message == "event 'push' leads from 'closed' to both 'open' and 'closed'"


def test_the_same_event_to_the_same_target_from_one_state_is_sd105_not_sd115() -> None:
    front = FRONT + "  - {from: open, to: closed, trigger: reset again, event: reset}\n"
    result = lint_text(document(front, "\n# Door\n" + DIAGRAM))
    assert "SD105" in codes(result) and "SD115" not in codes(result)


def test_event_names_that_collide_with_the_generated_api_are_sd116() -> None:
    for name in ("fire", "state", "transition", "can", "events"):
        front = FRONT.replace("event: lock}", f"event: {name}}}")
        result = lint_text(document(front, "\n# Door\n" + DIAGRAM))
        assert codes(result) == ["SD116"], name
        assert at(result, "SD116") == [(18, 54)]


def test_a_python_keyword_event_is_sd116() -> None:
    front = FRONT.replace("event: lock}", "event: import}")
    assert codes(lint_text(document(front, "\n# Door\n" + DIAGRAM))) == ["SD116"]


def test_events_that_map_to_one_member_are_sd116_even_without_the_schema() -> None:
    front = FRONT.replace("event: lock}", "event: Push}")  # SD010: not lower snake case
    result = lint_text(document(front, "\n# Door\n" + DIAGRAM))
    assert sorted(set(codes(result))) == ["SD010", "SD116"]
    (finding,) = [f for f in result.findings if f.code == "SD116"]
    assert finding.message == "events 'push' and 'Push' both become Event.PUSH"


def test_an_invalid_pair_inside_a_list_expansion_is_sd104() -> None:
    front = FRONT + "invalid:\n  - {from: locked, to: closed, why: stays locked}\n"
    result = lint_text(document(front, "\n# Door\n" + DIAGRAM))
    assert codes(result) == ["SD104"]


def test_an_unknown_state_in_a_list_from_points_at_its_item() -> None:
    front = FRONT.replace("from: [locked, open]", "from: [locked, opne]")
    result = lint_text(document(front, "\n# Door\n" + DIAGRAM))
    assert "SD102" in codes(result)
    assert at(result, "SD102") == [(19, 21)]


def test_an_unknown_to_of_a_list_from_is_reported_once() -> None:
    front = FRONT.replace("to: closed, trigger: reset", "to: clsed, trigger: reset")
    diagram = DIAGRAM.replace("locked --> closed : reset", "locked --> clsed : reset").replace(
        "open --> closed : reset", "open --> clsed : reset"
    )
    result = lint_text(document(front, "\n# Door\n" + diagram))
    assert codes(result).count("SD102") == 1


def test_url_sources_are_not_repo_references() -> None:
    front = FRONT.replace(
        "event: push}", "event: push, source: 'https://www.rfc-editor.org/rfc/rfc9293'}"
    )
    assert lint_text(document(front, "\n# Door\n" + DIAGRAM)).findings == []
    repo = FRONT.replace("event: reset}", "event: reset, source: 'door-svc:src/door.py'}")
    result = lint_text(document(repo, "\n# Door\n" + DIAGRAM))
    assert codes(result) == ["SD201"]  # once for the list, not once per source


def test_a_spec_with_events_draws_one_edge_per_transition() -> None:
    missing = DIAGRAM.replace("  open --> closed : slam\n", "")
    result = lint_text(document(FRONT, "\n# Door\n" + missing))
    assert codes(result) == ["SD303"]
    (finding,) = result.findings
    assert finding.message == (
        "transition 'open' -> 'closed' (event 'slam') is missing from the diagram"
    )
    extra = DIAGRAM.replace(
        "  locked --> closed", "  closed --> locked : again\n  locked --> closed"
    )
    result = lint_text(document(FRONT, "\n# Door\n" + extra))
    assert codes(result) == ["SD303"]
    assert "declared 1 time(s)" in result.findings[0].message
