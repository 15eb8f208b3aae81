"""Render one spec's TypeScript module (and its fast-check property test) from Jinja2 templates.

The environment, the header line and the ``code`` filter come from the template kit every
target uses (:mod:`generator.render.environment`: ``StrictUndefined``, no autoescape, and a
``finalize`` hook that refuses any ``{{ }}`` whose value did not come out of a filter). Spec
text reaches a template only through this module's ``tsliteral`` (string literals) and
``comment`` (JSDoc lines); ``code`` marks text the renderer built itself from such pieces.

A spec whose transitions carry events gets an ``Event`` object, ``isEvent`` and
``Machine.fire``; any other spec renders exactly as before the model had events.

Jinja2 is imported lazily, so importing the target costs nothing on the lint path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from generator.model.names import member_name
from generator.render.environment import Code, defined, environment, header_line
from generator.render.environment import has_header as templating_has_header
from generator.targets.refusals import refuse_ambiguous_events, refuse_unfaithful, unique_members
from generator.targets.typescript.literals import ts_comment, tsliteral

if TYPE_CHECKING:
    from generator.model.spec import InvalidPair, Spec, Transition


class TypeScriptError(ValueError):
    """A TypeScript module cannot be generated for this document (the message says why)."""


@dataclass(frozen=True)
class StateView:
    name: str
    member: str
    meaning: str | None
    targets: str  # the TypeScript union of its targets, or ``never``


@dataclass(frozen=True)
class EventView:
    name: str
    member: str


@dataclass(frozen=True)
class View:
    """Everything a template needs from one spec, checked for what TypeScript cannot hold."""

    states: tuple[StateView, ...]
    transitions: tuple[Transition, ...]  # the model's own: the templates read its fields
    invalid: tuple[InvalidPair, ...]
    initial: tuple[str, ...]
    terminal: tuple[str, ...]
    events: tuple[EventView, ...]


def build_view(spec: Spec) -> View:
    """The template's view of ``spec``; refuses what lint reports as an error (a rule can be
    ignored in the configuration, but generation never renames, drops or merges silently)."""
    members = unique_members(
        spec.state_names, member_name, "states", "SD110", error=TypeScriptError, noun="key"
    )
    refuse_unfaithful(spec, TypeScriptError)
    event_names = list(dict.fromkeys(e for t in spec.transitions if (e := t.event)))
    event_members = unique_members(
        event_names, member_name, "events", "SD110", error=TypeScriptError, noun="key"
    )
    refuse_ambiguous_events(spec, TypeScriptError)
    meanings = {state.name: state.meaning for state in reversed(spec.states)}
    states = []
    for name in spec.state_names:
        out = list(dict.fromkeys(t.to_state for t in spec.transitions if t.from_state == name))
        union = " | ".join(tsliteral(target) for target in out) or "never"
        states.append(StateView(name, members[name], meanings[name], union))
    return View(
        states=tuple(states),
        transitions=tuple(spec.transitions),
        invalid=tuple(spec.invalid),
        initial=tuple(spec.initial_states),
        terminal=tuple(spec.terminal_states),
        events=tuple(EventView(name, event_members[name]) for name in event_names),
    )


def header(relative: str, spec: Spec, sha256: str) -> str:
    """The three comment lines every generated TypeScript file starts with."""
    return "\n".join(
        (
            header_line("//", relative, escape=ts_comment),
            f"// Spec: {ts_comment(spec.id)}, revision {spec.revision:d}",
            f"// SHA-256: {ts_comment(sha256)}",
        )
    )


def has_header(first_line: str) -> bool:
    """Whether a first line is the header of a TypeScript file statedoc wrote."""
    return first_line.startswith("// ") and templating_has_header(first_line)


# -- the filters -----------------------------------------------------------------------------


def _tsliteral(value: object) -> Code:
    defined(value)
    return Code(tsliteral(value))


def _comment(value: object) -> Code:
    defined(value)
    if not isinstance(value, str):
        raise TypeScriptError(f"template bug: `comment` got a {type(value).__name__}")
    return Code(ts_comment(value))


_FILTERS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("tsliteral", _tsliteral),
    ("comment", _comment),
)


def render(template: str, context: dict[str, Any]) -> str:
    package = "generator.targets.typescript"
    return environment(package, filters=_FILTERS).get_template(template).render(context)


def context(spec: Spec, *, relative: str, sha256: str) -> dict[str, Any]:
    """What every TypeScript template renders from: the header, the spec and its view."""
    view = build_view(spec)
    return {
        "header": header(relative, spec, sha256),
        "doc_title": f"{spec.id}: {spec.title}",
        "spec": spec,
        "sha256": sha256,
        "states": view.states,
        "transitions": view.transitions,
        "invalid": view.invalid,
        "initial": view.initial,
        "terminal": view.terminal,
        "events": view.events,
    }


def render_module(spec: Spec, *, relative: str, sha256: str) -> str:
    """The TypeScript module for ``spec``; ``relative`` is the spec's path for the header."""
    return render("module.ts.j2", context(spec, relative=relative, sha256=sha256))
