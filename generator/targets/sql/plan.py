"""What both dialects generate for one spec: names, binding, pairs and their texts.

Built once per document from the model and the ``[tool.statedoc.sql]`` settings; the dialect
modules only spell it. Everything here is refused (``SqlError``) rather than bent: a state
name a database cannot hold, a pair both declared and forbidden, a name that is not declared.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.model.names import snake_name
from generator.model.spec import Spec
from generator.targets.refusals import refuse_unfaithful
from generator.targets.sql.history import DEFAULT_KEY
from generator.targets.sql.names import SqlError, fit_name, state_text
from generator.targets.sql.settings import SqlBinding, SqlSettings

#: SQLSTATEs of the generated checks: class ``SD`` is not used by the SQL standard or
#: PostgreSQL, so a caller can tell these apart from any other error.
SQLSTATE_FORBIDDEN = "SDF01"  # the spec lists the pair as invalid (DETAIL: why)
SQLSTATE_UNDECLARED = "SDU01"  # the pair is not a declared transition
SQLSTATE_UNKNOWN = "SDS01"  # a name that is not a state of the spec (or NULL)
SQLSTATE_NOT_INITIAL = "SDI01"  # a new row in a declared state that is not initial


@dataclass(frozen=True)
class Names:
    """Object names in the generated schema, each within 63 bytes."""

    base: str
    domain: str
    check: str
    trigger_function: str
    insert_trigger: str
    update_trigger: str
    history_function: str  # records a row's INSERT or state change (SECURITY DEFINER)
    history_insert_trigger: str
    history_update_trigger: str
    append_only_function: str  # refuses UPDATE, DELETE and TRUNCATE of the history
    append_only_trigger: str

    @classmethod
    def for_spec(cls, spec: Spec) -> Names:
        base = snake_name(spec.title)
        return cls(
            base=base,
            domain=fit_name(base, "_state"),
            check=fit_name(base, "_check"),
            trigger_function=fit_name(base, "_trigger"),
            insert_trigger=fit_name("statedoc_" + base, "_insert"),
            update_trigger=fit_name("statedoc_" + base, "_update"),
            history_function=fit_name(base, "_history"),
            history_insert_trigger=fit_name("statedoc_" + base, "_history_insert"),
            history_update_trigger=fit_name("statedoc_" + base, "_history_update"),
            append_only_function=fit_name(base, "_history_append_only"),
            append_only_trigger=fit_name("statedoc_" + base, "_append_only"),
        )


@dataclass(frozen=True)
class SqlPlan:
    spec: Spec
    schema: str
    names: Names
    binding: SqlBinding | None
    states: tuple[str, ...]
    declared: dict[str, tuple[str, ...]]  # from -> tos, in spec order
    forbidden: dict[tuple[str, str], str]  # pair -> why
    insert_states: tuple[str, ...]  # what an INSERT may use
    source: str  # the spec's path for headers and comments
    sha256: str

    @property
    def history(self) -> bool:
        """Whether the bound column keeps a transition history (:mod:`.history`)."""
        return self.binding is not None and self.binding.history

    @property
    def hint(self) -> str:
        return f"spec {self.spec.id} revision {self.spec.revision}"

    @property
    def comment(self) -> str:
        """What ``COMMENT ON`` carries (``statedoc db check`` reads it back)."""
        return (
            f"statedoc spec={self.spec.id} revision={self.spec.revision} "
            f"sha256={self.sha256} source={self.source}"
        )


def binding_for(spec: Spec, settings: SqlSettings) -> SqlBinding | None:
    """The front matter's ``storage`` first, else ``[tool.statedoc.sql.bindings]``. History
    is on where the binding says so, else where ``[tool.statedoc.sql] history`` does."""
    storage = spec.storage
    if storage is not None:
        history = settings.history if storage.history is None else storage.history
        key = DEFAULT_KEY if storage.key is None else storage.key
        return SqlBinding(storage.table, storage.column, storage.schema, history, key)
    return settings.bindings.get(spec.id)


def history_key_problem(binding: SqlBinding) -> str | None:
    """Why a binding with history on has no usable key (SD130), or None."""
    from generator.rules.storage import key_problem

    return key_problem(binding.key, binding.column) if binding.history else None


def build_plan(spec: Spec, settings: SqlSettings, *, source: str, sha256: str) -> SqlPlan:
    states = tuple(state_text(name) for name in spec.state_names)
    refuse_unfaithful(spec, SqlError)
    declared: dict[str, list[str]] = {}
    for t in spec.transitions:  # pair-based: transitions that differ by event share a pair
        targets = declared.setdefault(t.from_state, [])
        if t.to_state not in targets:
            targets.append(t.to_state)
    forbidden = {i.pair: i.why for i in spec.invalid}
    initial = spec.initial_states
    binding = binding_for(spec, settings)
    if binding is not None:
        problem = history_key_problem(binding)
        if problem is not None:
            where = f"{binding.table}.{binding.column}"
            raise SqlError(f"{spec.id}: the history of {where}: {problem}")
    return SqlPlan(
        spec=spec,
        schema=settings.schema,
        names=Names.for_spec(spec),
        binding=binding,
        states=states,
        declared={k: tuple(v) for k, v in declared.items()},
        forbidden=forbidden,
        insert_states=tuple(initial) if settings.insert_must_be_initial else states,
        source=source,
        sha256=sha256,
    )
