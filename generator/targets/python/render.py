"""Render one spec's Python module (and the package files around it) from Jinja2 templates.

The environment (:mod:`generator.templating`, strict) makes injection structurally
impossible rather than merely unlikely: a ``finalize`` hook refuses any ``{{ }}`` whose value
did not come out of one of the kit's filters. Spec text reaches a template only through
``pyliteral`` (:mod:`generator.targets.python.literals`), identifiers only through ``ident`` (which
checks what :mod:`generator.model.names` made). Under test (``literals.SELF_CHECK``) the
whole module is also parsed with ``ast``, so a template bug fails the suite, not a user's run.

Jinja2 is imported lazily by the kit, so linting never pays for it.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from generator.model.events import event_member, method_clash
from generator.model.names import member_name, pascal_name
from generator.model.spec import TRANSITION_TEXT_FIELDS, Spec
from generator.targets.python import literals
from generator.targets.python.literals import comment_text
from generator.targets.refusals import refuse_unfaithful
from generator.templating import GENERATED, RenderError, environment, header_line

if TYPE_CHECKING:
    pass

#: How a generated Python file starts; followed by `` from <spec path>`` for a module.
PY_HEADER = f"# {GENERATED}"
#: How a generated Mermaid file starts.
MMD_HEADER = f"%% {GENERATED}"

#: Module names ruff's N999 accepts; any other file or folder name gets a file-level noqa.
_RUFF_MODULE_NAME = re.compile(r"[_a-z][_a-z0-9]*")
#: Longest state member a ``class State`` body line holds under the line width.
_MAX_CLASS_MEMBER = 60
#: Longest title alias bound to ``Machine`` (one ``Alias = Machine`` line).
_MAX_ALIAS = 72

#: Top-level names of a generated module (and builtins): the title's PascalCase alias may
#: not rebind any of them, or ``raise ValueError`` could end up raising a Machine.
_MODULE_NAMES = frozenset(
    {
        "State",
        "Transition",
        "TransitionError",
        "ForbiddenTransition",
        "UndeclaredTransition",
        "GuardRejected",
        "ForbiddenTransitionError",
        "UndeclaredTransitionError",
        "GuardRejectedError",
        "Machine",
        "Guard",
        "Listener",
        "TRANSITIONS",
        "INVALID",
        "INITIAL",
        "TERMINAL",
        "SPEC_ID",
        "SPEC_REVISION",
        "SPEC_TITLE",
        "SPEC_SHA256",
        "check",
        "can_transition",
        "targets",
        "sources",
        "describe",
        "MEANINGS",
        "threading",
        "Callable",
        "Iterable",
        "Mapping",
        "dataclass",
        "StrEnum",
        "MappingProxyType",
        "Any",
        "Final",
        "NoReturn",
        "TypeAlias",
        "annotations",
    }
)


#: The names a module with events adds (taken only then: a spec without events keeps its alias).
_EVENT_MODULE_NAMES = frozenset(
    {"Event", "EventNotAllowed", "EventNotAllowedError", "TRANSITIONS_BY_EVENT", "transitions_for"}
)


def module_header(relative: str) -> str:
    return header_line("#", relative)


def mmd_header(relative: str) -> str:
    # ``%`` is spelled ``%25`` so a path can never form a ``%%{...}%%`` Mermaid directive.
    return header_line("%%", relative, escape=lambda text: comment_text(text).replace("%", "%25"))


def alias_name(title: str, *, events: bool = False) -> str | None:
    """The PascalCase name ``Machine`` is also bound to, or None.

    ``pascal_name(title)``; if that is already a name of the module or a builtin, the same
    with ``Machine`` appended; no alias if that is taken too, if the name is ``Machine``
    itself, not ASCII (ruff's PLC2401 refuses non-ASCII bindings, and any suppression is
    itself a finding under a configuration that does not select PLC2401) or longer than
    72 characters.
    """
    taken = _MODULE_NAMES | set(dir(builtins)) | (_EVENT_MODULE_NAMES if events else set())
    name = pascal_name(title)
    if name == "Machine":
        return None
    if name in taken:
        name += "Machine"
    if name in taken or not name.isascii() or len(name) > _MAX_ALIAS:
        return None
    return name


#: The public API of every generated module (``__all__``), each object once under its
#: documented name: ``help(module)`` documents every listed class in full, so the PEP 8
#: spellings of the errors (``ForbiddenTransitionError``...) and the title alias of
#: ``Machine`` stay importable but unlisted.
_PUBLIC = (
    "SPEC_ID",
    "SPEC_REVISION",
    "SPEC_TITLE",
    "SPEC_SHA256",
    "State",
    "Transition",
    "TransitionError",
    "ForbiddenTransition",
    "UndeclaredTransition",
    "GuardRejected",
    "TRANSITIONS",
    "INVALID",
    "INITIAL",
    "TERMINAL",
    "MEANINGS",
    "check",
    "can_transition",
    "describe",
    "targets",
    "sources",
    "Guard",
    "Listener",
    "Machine",
)
#: Added to ``_PUBLIC`` for a spec that declares events (and only then, so a document without
#: events generates the same module as before events existed).
_PUBLIC_EVENTS = ("Event", "EventNotAllowed", "TRANSITIONS_BY_EVENT", "transitions_for")

#: The module docstring after its first line (``<spec id>: <title>``).
_MODULE_DOC = (
    "A state machine generated by statedoc from the spec document named above.\n\n"
    "``State`` lists the states (``MEANINGS`` and ``describe`` say what each means), "
    "``TRANSITIONS`` and ``INVALID`` map ``(from, to)`` pairs to the declared transitions "
    "and to the reason a pair is forbidden, ``check`` validates one step and ``Machine`` "
    "tracks the state of one object. A pair the spec lists as invalid can never be "
    "performed through this module. Only the standard library is used: the file can be "
    "copied into a project on its own. Change the spec and run ``statedoc generate``; do "
    "not edit."
)


def _all_order(name: str) -> tuple[int, str]:
    """ruff's RUF022 order for ``__all__``: CONSTANTS, then CamelCase, then the rest."""
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name


@dataclass(frozen=True)
class _StateView:
    name: str
    member: str
    meaning: str | None


@dataclass(frozen=True)
class _EventView:
    name: str
    member: str


@dataclass(frozen=True)
class _InvalidView:
    from_member: str
    to_member: str
    why: str


def _members(spec: Spec) -> dict[str, str]:
    """State name -> member name; refuses what the module could not represent faithfully.

    Lint reports these too (SD101-SD106, SD110), but a rule can be ignored in the
    configuration: generation must never rename, drop or merge anything silently, and a pair
    can never be both declared and invalid.
    """
    members: dict[str, str] = {}
    owner: dict[str, str] = {}
    for name in spec.state_names:
        member = member_name(name)
        if member in owner:
            raise RenderError(
                f"states {owner[member]!r} and {name!r} both map to the member {member} (SD110)"
            )
        owner[member] = name
        members[name] = member
    refuse_unfaithful(spec)
    return members


def _events(spec: Spec) -> dict[str, str]:
    """Event name -> ``Event`` member; refuses a collision (SD116) or an event that leads
    from one state to two targets (SD115), which ``fire`` could not honour."""
    members: dict[str, str] = {}
    owner: dict[str, str] = {}
    for name in spec.events:
        member = event_member(name)
        if member in owner:
            raise RenderError(
                f"events {owner[member]!r} and {name!r} both map to the member {member} (SD116)"
            )
        owner[member] = name
        members[name] = member
    target: dict[tuple[str, str], str] = {}
    for t in spec.transitions:
        if t.event is not None and target.setdefault((t.from_state, t.event), t.to_state) != (
            t.to_state
        ):
            raise RenderError(
                f"event {t.event!r} leads from {t.from_state!r} to two targets (SD115)"
            )
    return members


def _render(template: str, context: dict[str, Any], what: str) -> str:
    text = environment("generator.targets.python").get_template(template).render(context)
    if not literals.SELF_CHECK:
        return text
    import ast

    try:
        ast.parse(text, filename=what)
    except SyntaxError as exc:  # pragma: no cover - a template bug, never a spec's doing
        raise RenderError(f"generated {what} does not parse: {exc}") from None
    return text


def render_module(spec: Spec, *, relative: str, sha256: str, module: str) -> str:
    """The Python module for ``spec``; ``relative`` is the spec's path for the header and
    ``module`` the file's stem (for the file-level N999 suppression when ruff needs it)."""
    members = _members(spec)
    events = _events(spec)
    meanings = {state.name: state.meaning for state in reversed(spec.states)}
    states = [_StateView(name, members[name], meanings[name]) for name in spec.state_names]
    alias = alias_name(spec.title, events=bool(spec.events))
    enum_class = all(s.member.isascii() and len(s.member) <= _MAX_CLASS_MEMBER for s in states)
    context: dict[str, Any] = {
        "header": "\n".join(
            (
                module_header(relative),
                f"# Spec: {comment_text(spec.id)}, revision {spec.revision:d}",
                f"# SHA-256: {comment_text(sha256)}",
            )
        ),
        "ruff_n999": _RUFF_MODULE_NAME.fullmatch(module) is None,
        "spec": spec,
        "sha256": sha256,
        "enum_class": enum_class,
        "states": states,
        "transitions": [
            {
                "from_member": members[t.from_state],
                "to_member": members[t.to_state],
                **{name: getattr(t, name) for name in TRANSITION_TEXT_FIELDS},
                "event_member": None if t.event is None else events[t.event],
            }
            for t in spec.transitions
        ],
        "events": [_EventView(name, member) for name, member in events.items()],
        # Per-event methods only when every name is free (SD116 reports the others).
        "event_methods": all(method_clash(name) is None for name in events),
        "invalid": [
            _InvalidView(members[i.from_state], members[i.to_state], i.why) for i in spec.invalid
        ],
        "initial": [members[name] for name in spec.initial_states],
        "terminal": [members[name] for name in spec.terminal_states],
        "alias": alias,
        "module_doc": f"{spec.id}: {spec.title}\n\n{_MODULE_DOC}",
        "public": sorted(_PUBLIC + (_PUBLIC_EVENTS if events else ()), key=_all_order),
    }
    with literals.memo():
        return _render("module.py.j2", context, f"{module}.py")


def render_package_init(package: str) -> str:
    """``__init__.py`` of a generated package (``package`` is the folder's name)."""
    context = {
        "header": header_line("#"),
        "ruff_n999": _RUFF_MODULE_NAME.fullmatch(package) is None,
    }
    return _render("__init__.py.j2", context, "__init__.py")


def render_py_typed() -> str:
    """The PEP 561 marker: a comment line only (no ``partial``), so cleanup can recognise it."""
    return header_line("#") + "\n"
