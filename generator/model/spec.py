"""The typed, frozen model of a state document, built only from schema-valid front matter.

Rules and renderers read this, never the raw dict. Each item keeps ``path``, its place in the
front matter, so a rule can point at it without knowing anything about YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from types import MappingProxyType
from typing import Any, NamedTuple

from generator.load.strict_yaml import Path


class State(NamedTuple):
    name: str
    meaning: str | None
    path: Path


class Transition(NamedTuple):
    from_state: str
    to_state: str
    trigger: str
    guard: str | None
    side_effects: tuple[str, ...]
    who: str | None
    provenance: str | None
    source: str | None
    path: Path
    #: The event's name (front matter ``event``), or None: what callers ``fire``.
    event: str | None = None
    #: Where ``from`` names this source when it is a list (its index), else None.
    from_index: int | None = None

    @property
    def pair(self) -> tuple[str, str]:
        return (self.from_state, self.to_state)

    @property
    def from_path(self) -> Path:
        """The front matter path of this transition's source state."""
        base = (*self.path, "from")
        return base if self.from_index is None else (*base, self.from_index)


#: The text fields of a transition (besides its pair, its event and its place in the file),
#: in declaration order; written once here, read by the renderer.
TRANSITION_TEXT_FIELDS: tuple[str, ...] = tuple(
    name
    for name in Transition._fields
    if name not in ("from_state", "to_state", "path", "event", "from_index")
)


class InvalidPair(NamedTuple):
    from_state: str
    to_state: str
    why: str
    path: Path

    @property
    def pair(self) -> tuple[str, str]:
        return (self.from_state, self.to_state)


class Storage(NamedTuple):
    """Where a database keeps the state (front matter ``storage``): ``schema`` None means the
    connection's search path decides. Only the SQL target reads it."""

    table: str
    column: str
    schema: str | None
    path: Path
    history: bool | None = None  # None: [tool.statedoc.sql] history decides
    key: tuple[str, ...] | None = None  # None: the default key column, ``id``


class Retired(NamedTuple):
    """A state a revision removed or renamed (front matter ``retired``): the rows holding it
    move to ``to``, a declared state; ``to`` None means no row may hold it."""

    state: str
    to: str | None
    why: str
    path: Path


class _SpecFields(NamedTuple):
    id: str
    title: str
    object: str
    product_area: str
    module: str
    revision: int
    status: str
    states: tuple[State, ...]
    transitions: tuple[Transition, ...]
    invalid: tuple[InvalidPair, ...]
    initial: tuple[str, ...] | None
    source_sha: Mapping[str, str]
    invariants: tuple[str, ...]
    evidence: tuple[str, ...]
    text_fields: Mapping[str, str] = MappingProxyType({})
    storage: Storage | None = None
    retired: tuple[Retired, ...] = ()


class Spec(_SpecFields):
    """One state document's front matter. ``initial`` is the declared list, if any.

    Its fields are a NamedTuple's (immutable, equal by value); this subclass has a
    ``__dict__`` for the cached properties the rules share."""

    @cached_property
    def state_names(self) -> tuple[str, ...]:
        """Declared names in order, first declaration wins."""
        return tuple(dict.fromkeys(s.name for s in self.states))

    @cached_property
    def transition_pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset(t.pair for t in self.transitions)

    @cached_property
    def events(self) -> tuple[str, ...]:
        """Declared event names in order of first use (empty: the document uses none)."""
        return tuple(dict.fromkeys(t.event for t in self.transitions if t.event is not None))

    @cached_property
    def invalid_pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset(i.pair for i in self.invalid)

    @cached_property
    def initial_states(self) -> tuple[str, ...]:
        """Declared ``initial``, else the states no transition enters."""
        if self.initial is not None:
            return tuple(dict.fromkeys(self.initial))
        entered = {t.to_state for t in self.transitions if t.to_state != t.from_state}
        return tuple(n for n in self.state_names if n not in entered)

    @cached_property
    def terminal_states(self) -> tuple[str, ...]:
        """States no transition leaves (self-loops do not count as leaving)."""
        left = {t.from_state for t in self.transitions if t.to_state != t.from_state}
        return tuple(n for n in self.state_names if n not in left)


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


TEXT_FIELDS = ("design_intent", "implementation_evidence", "origin", "concurrency")


def _strings(value: object) -> tuple[str, ...]:
    if not value or not isinstance(value, list):  # most side_effects are empty or absent
        return ()
    return tuple([v for v in value if isinstance(v, str)])


def _storage(value: object) -> Storage | None:
    """``storage`` when its required parts are strings; anything else is the schema's finding."""
    if not isinstance(value, dict):
        return None
    table, column = value.get("table"), value.get("column")
    if not isinstance(table, str) or not isinstance(column, str):
        return None
    history = value.get("history")
    key = value.get("key")
    keys = (key,) if isinstance(key, str) else key if isinstance(key, list) else None
    return Storage(
        table,
        column,
        _opt_str(value, "schema"),
        ("storage",),
        history if isinstance(history, bool) else None,
        None if keys is None else tuple(k for k in keys if isinstance(k, str)),
    )


def _retired(value: object) -> tuple[Retired, ...]:
    """``retired`` entries whose ``state`` and ``why`` are strings (the schema reports the rest);
    a ``to`` that is not a string is dropped, so it can never name a destination."""
    if not isinstance(value, list):
        return ()
    return tuple(
        Retired(item["state"], _opt_str(item, "to"), item["why"], ("retired", i))
        for i, item in enumerate(value)
        if isinstance(item, dict)
        and isinstance(item.get("state"), str)
        and isinstance(item.get("why"), str)
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def usable(data: object) -> bool:
    """Whether the model can be built although the schema found problems: every field the
    rules and generator read structurally has its type (the rest is sanitised by ``build``).
    So ``--ignore SD010`` on a legacy document still gets the graph and diagram checks."""
    if not isinstance(data, dict):
        return False
    texts = ("id", "title", "object", "product_area", "module", "status")
    if not all(isinstance(data.get(key), str) for key in texts) or not _is_int(
        data.get("revision")
    ):
        return False

    def items(key: str, fields: tuple[str, ...], required: bool) -> bool:
        value = data.get(key)
        if value is None and not required:
            return True
        return isinstance(value, list) and all(
            isinstance(item, dict)
            and all(
                isinstance(item.get(f), str) or (f == "from" and _state_list(item.get(f)))
                for f in fields
            )
            for item in value
        )

    return (
        items("states", ("name",), True)
        and items("transitions", ("from", "to", "trigger"), True)
        and items("invalid", ("from", "to", "why"), False)
    )


def _state_list(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _sources(value: object) -> list[tuple[str, int | None]]:
    """``from`` as (state, index in the list or None): a list expands to one per source."""
    if isinstance(value, str):  # the usual case first
        return [(value, None)]
    if isinstance(value, list):
        return [(v, j) for j, v in enumerate(value) if isinstance(v, str)]
    return []


def build(data: Mapping[str, Any]) -> Spec:
    """Build the model from front matter that passed the schema or is :func:`usable`;
    optional fields of the wrong type are dropped rather than trusted."""
    states = tuple(
        State(s["name"], _opt_str(s, "meaning"), ("states", i))
        for i, s in enumerate(data["states"])
    )
    transitions = []
    for i, t in enumerate(data["transitions"]):
        # Positional, in field order (mypy checks the types): eleven keywords cost ~15% of build.
        texts = (
            t["to"],
            t["trigger"],
            _opt_str(t, "guard"),
            _strings(t.get("side_effects")),
            _opt_str(t, "who"),
            _opt_str(t, "provenance"),
            _opt_str(t, "source"),
            ("transitions", i),
            _opt_str(t, "event"),
        )
        for source, j in _sources(t["from"]):
            transitions.append(Transition(source, *texts, j))
    invalid = tuple(
        InvalidPair(p["from"], p["to"], p["why"], ("invalid", i))
        for i, p in enumerate(data.get("invalid") or ())
    )
    initial = data.get("initial")
    return Spec(
        id=data["id"],
        title=data["title"],
        object=data["object"],
        product_area=data["product_area"],
        module=data["module"],
        revision=int(data["revision"]),
        status=data["status"],
        states=states,
        transitions=tuple(transitions),
        invalid=invalid,
        initial=(initial,) if isinstance(initial, str) else (_strings(initial) or None),
        source_sha={
            k: v
            for k, v in (data.get("source_sha") or {}).items()
            if isinstance(k, str) and isinstance(v, str)
        }
        if isinstance(data.get("source_sha"), dict)
        else {},
        invariants=_strings(data.get("invariants")),
        evidence=_strings(data.get("evidence")),
        text_fields={k: data[k] for k in TEXT_FIELDS if isinstance(data.get(k), str)},
        storage=_storage(data.get("storage")),
        retired=_retired(data.get("retired")),
    )
