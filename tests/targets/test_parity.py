"""The same API in Python and TypeScript (issue 26 section 3), on the real modules: the
exported names and ``Machine`` members of both, read at run time (Python's ``__all__`` and
``dir``, node's ``Object.keys`` of the compiled ES module), must match name for name up to
the documented differences, and ``fire``/``canFire``/``events`` must give the same answers
for every (state, event) of the TCP seed. The type-level test of ``Guards`` is in
test_parity_guards.py."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from ts_harness import compile_project, node_available, run_script

from .sql.cases import python_module
from .ts_support import Subject, subjects

SUBJECTS = subjects()

#: Python name -> TypeScript name, for every runtime name the two modules share.
SHARED = {
    "SPEC_ID": "SPEC_ID",
    "SPEC_REVISION": "SPEC_REVISION",
    "SPEC_TITLE": "SPEC_TITLE",
    "SPEC_SHA256": "SPEC_SHA256",
    "State": "State",
    "TRANSITIONS": "TRANSITIONS",
    "INVALID": "INVALID",
    "INITIAL": "INITIAL",
    "TERMINAL": "TERMINAL",
    "MEANINGS": "MEANINGS",
    "TransitionError": "TransitionError",
    "ForbiddenTransition": "ForbiddenTransitionError",
    "UndeclaredTransition": "UndeclaredTransitionError",
    "GuardRejected": "GuardRejectedError",
    "UnknownStateError": "UnknownStateError",
    "InitialStateError": "InitialStateError",
    "check": "check",
    "can_transition": "canTransition",
    "describe": "describe",
    "targets": "targets",
    "sources": "sources",
    "from_database_error": "fromDatabaseError",
    "Machine": "Machine",
}
SHARED_EVENTS = {"Event": "Event", "EventNotAllowed": "EventNotAllowedError"}
#: Where the languages differ on purpose. Python: the record class and the type aliases are
#: runtime names (in TypeScript they are types: ``Transition``, ``Guard``, ...); ``AsyncMachine``
#: (a TypeScript guard is synchronous); the transitions by event and by pair. TypeScript: the
#: list of transitions, the predicates a union type needs, the re-entry error (Python raises
#: ``RuntimeError``) and the old name of ``EventNotAllowedError``.
PYTHON_ONLY = {"Transition", "Guard", "Listener", "DatabaseRefusal", "AsyncGuard", "AsyncListener"}
PYTHON_ONLY |= {"AsyncMachine"}
PYTHON_ONLY_EVENTS = {"TRANSITIONS_BY_EVENT", "transitions_for"}
TS_ONLY = {"TRANSITION_LIST", "isState", "ReentrancyError"}
TS_ONLY_EVENTS = {"isEvent", "UndeclaredEventError"}

#: ``Machine``'s members: Python -> TypeScript (per-event methods are Python's alone).
MACHINE = {"state": "state", "is_terminal": "isTerminal", "can": "can", "transition": "transition"}
MACHINE_EVENTS = {"fire": "fire", "can_fire": "canFire", "events": "events"}

LIST = """\
const [path, ...states] = process.argv.slice(2);
const m = await import(path);
const proto = Object.getOwnPropertyNames(m.Machine.prototype).filter((n) => n !== "constructor");
const fired = {};
if (m.Event !== undefined) {
  for (const state of Object.values(m.State)) {
    const machine = new m.Machine(state);
    const row = { events: [...machine.events].sort(), fire: {}, canFire: {} };
    for (const event of Object.values(m.Event)) {
      row.canFire[event] = new m.Machine(state).canFire(event);
      try {
        row.fire[event] = new m.Machine(state).fire(event).to;
      } catch (error) {
        row.fire[event] = [error.name, error.event, error.from, error === undefined];
      }
    }
    fired[state] = row;
  }
}
process.stdout.write(JSON.stringify({ exports: Object.keys(m).sort(), machine: proto, fired }));
"""


def _python(subject: Subject, folder: Path) -> ModuleType:
    return python_module(subject.document, folder)


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """Subject -> what node saw of its compiled TypeScript module."""
    node_available()
    root = tmp_path_factory.mktemp("parity")
    files = {f"{name}.ts": s.module() for name, s in SUBJECTS.items()}
    compiled = compile_project(root, files)
    assert compiled.returncode == 0, compiled.errors
    (root / "list.mjs").write_text(LIST, encoding="utf-8")
    out = {}
    for name in SUBJECTS:
        result = run_script(compiled, "list.mjs", f"./js/{name}.js")
        assert result.returncode == 0, result.stderr
        out[name] = json.loads(result.stdout)
    return out


@pytest.mark.parametrize("name", sorted(SUBJECTS))
def test_both_modules_export_the_same_api(
    name: str, seen: dict[str, dict[str, object]], tmp_path: Path
) -> None:
    module = _python(SUBJECTS[name], tmp_path)
    events = hasattr(module, "Event")
    shared = SHARED | (SHARED_EVENTS if events else {})
    python = set(module.__all__)
    typescript = set(seen[name]["exports"])  # type: ignore[arg-type]
    assert python - set(shared) == PYTHON_ONLY | (PYTHON_ONLY_EVENTS if events else set())
    assert typescript - set(shared.values()) == TS_ONLY | (TS_ONLY_EVENTS if events else set())
    assert set(shared) <= python and set(shared.values()) <= typescript


@pytest.mark.parametrize("name", sorted(SUBJECTS))
def test_both_machines_have_the_same_members(
    name: str, seen: dict[str, dict[str, object]], tmp_path: Path
) -> None:
    module = _python(SUBJECTS[name], tmp_path)
    events = hasattr(module, "Event")
    members = MACHINE | (MACHINE_EVENTS if events else {})
    per_event = {e.value for e in module.Event} if events else set()
    for cls in (module.Machine, module.AsyncMachine):
        public = {n for n in dir(cls) if not n.startswith("_")}
        assert public - per_event == set(members), cls
    typescript = {n for n in seen[name]["machine"] if not n.startswith("#")}  # type: ignore[attr-defined]
    assert typescript - {"toString"} == set(members.values())


def test_fire_can_fire_and_events_agree_for_every_state_and_event(
    seen: dict[str, dict[str, object]], tmp_path: Path
) -> None:
    module = _python(SUBJECTS["connection"], tmp_path)
    fired = seen["connection"]["fired"]
    assert isinstance(fired, dict) and len(fired) == len(module.State)
    for state in module.State:
        row = fired[state.value]
        assert row["events"] == sorted(e.value for e in module.Machine(state).events)
        for event in module.Event:
            assert row["canFire"][event.value] == module.Machine(state).can_fire(event)
            try:
                want: object = module.Machine(state).fire(event).to_state.value
            except module.EventNotAllowed as exc:
                want = [type(exc).__name__, exc.event.value, exc.from_state.value, False]
            assert row["fire"][event.value] == want, (state, event)


PROTO = """\
const m = await import(process.argv[2]);
const out = [];
for (const guards of [
  { "__proto__": { constructor: () => false } },
  { ["__proto__"]: { constructor: () => false } },
]) {
  try {
    const machine = new m.Machine("__proto__", { guards });
    machine.transition("constructor");
    out.push(["moved", machine.state]);
  } catch (error) {
    out.push([error.name, error.message]);
  }
}
process.stdout.write(JSON.stringify(out));
"""


def test_a_literal_proto_key_is_refused_not_skipped(tmp_path: Path) -> None:
    """Regression: ``{ "__proto__": {...} }`` sets the prototype of the literal, so its guard
    was never bound and the transition went through unguarded. ``new Machine`` now refuses
    such an object; the computed key ``["__proto__"]`` binds the guard."""
    node_available()
    compiled = compile_project(tmp_path, {"hostile.ts": SUBJECTS["hostile"].module()})
    assert compiled.returncode == 0, compiled.errors
    (tmp_path / "proto.mjs").write_text(PROTO, encoding="utf-8")
    result = run_script(compiled, "proto.mjs", "./js/hostile.js")
    assert result.returncode == 0, result.stderr
    literal, computed = json.loads(result.stdout)
    assert literal[0] == "TypeError" and '["__proto__"]' in literal[1], literal
    assert computed[0] == "GuardRejectedError", computed
