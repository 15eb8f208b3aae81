"""Mutation self-test: plant a defect in a generated module; the property suite must report it.

A property suite that passes a mutant is a bug in the suite. Each mutant below edits the
source of a real generated module (the committed ones, and a hostile spec generated here),
is imported from a temporary file, and must make the checks named in ``killed_by`` raise
``AssertionError``: ``all_pairs`` (:func:`generator.testing.check_module`) and/or
``state_machine`` (:func:`generator.testing.state_machine_for`, derandomized). The unmutated
copy must pass both, or a kill would mean nothing.

The edits anchor on the generated code (the contract fixes the API, not the internals). If the
template changes, planting fails loudly ("anchor not found"): update the mutant, never drop it.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import Phase, settings
from profiles import downstream_conftest, scaled

from generator.cli import main
from generator.lint.document import lint_bytes
from generator.targets.tests import render_test_module
from generator.testing import (
    Expected,
    check_module,
    find_generated_modules,
    import_generated,
)
from generator.testing.proofs.expected import OK, UNDECLARED
from generator.testing.proofs.state_machine import run_machine, state_machine_for

ROOT = Path(__file__).resolve().parents[2]
ALL_PAIRS, STATE_MACHINE = "all_pairs", "state_machine"
BOTH = frozenset({ALL_PAIRS, STATE_MACHINE})
#: Derandomized: a kill must not depend on luck; no database: each run starts clean.
#: Detection is all a kill needs, so no shrinking (it would only make the report nicer).
KILL = settings(
    max_examples=500,  # derandomized: a kill comes early; the margin is for set orders
    derandomize=True,
    database=None,
    deadline=None,
    report_multiple_bugs=False,
    phases=[Phase.explicit, Phase.generate],
)
#: The unmutated copy runs every example (a kill stops at the first failure): slow, so the
#: default run gives it a fifth of them; a thorough run all 200.
SURVIVE = settings(KILL, max_examples=scaled(200, minimum=20))
pytestmark = pytest.mark.slow

# -- planting ------------------------------------------------------------------------------


class AnchorError(AssertionError):
    pass


def sub(source: str, pattern: str, replacement: str, *, which: str = "all") -> str:
    """Replace matches of a MULTILINE regex: all, the first or the last; at least one."""
    matches = list(re.finditer(pattern, source, flags=re.MULTILINE))
    if not matches:
        raise AnchorError(f"anchor not found: {pattern!r}; update tests/testing/test_mutants.py")
    chosen = {"all": matches, "first": matches[:1], "last": matches[-1:]}[which]
    for match in reversed(chosen):
        source = source[: match.start()] + match.expand(replacement) + source[match.end() :]
    return source


def before(source: str, line_pattern: str, code: str) -> str:
    """Insert ``code`` (a module-level statement) before the first line matching."""
    return sub(source, f"^(?={line_pattern})", code.rstrip("\n") + "\n", which="first")


def before_indented(source: str, line_pattern: str, code: str) -> str:
    """Insert ``code`` before every line matching ``^(\\s*)<line_pattern>``, indented alike."""
    return sub(source, rf"^(\s*)(?={line_pattern})", rf"\g<1>{code}\n\g<1>")


def helpers(source: str, code: str) -> str:
    return source + "\n\n# --- mutant helpers ---\n" + code


RECORD = (
    "Transition(from_state={a}, to_state={b}, trigger='', guard=None, side_effects=(), "
    "who=None, provenance=None, source=None)"
)

ALLOW_INVALID = f"""
def _mutant_allow_invalid(source, to):
    pair = (_state(source), _state(to))
    if pair in _WHY:
        return {RECORD.format(a="pair[0]", b="pair[1]")}
    _reject(source, to)
"""
MOVE_THEN_REJECT = """
def _mutant_move_then_reject(machine, to):
    source = machine._state
    machine._state = _state(to)
    _reject(source, to)
"""
TERMINAL_ACCEPTS = f"""
def _mutant_terminal(source, to):
    pair = (_state(source), _state(to))
    if pair[0] in TERMINAL and pair not in _WHY:
        return {RECORD.format(a="pair[0]", b="pair[1]")}
    _reject(source, to)
"""
CHECK_ALLOWS = f"""
def _mutant_check(source, to):
    pair = (_state(source), _state(to))
    if pair in _WHY:
        _reject(source, to)
    return {RECORD.format(a="pair[0]", b="pair[1]")}
"""
GUARD_WIDENS = f"""
def _mutant_guarded(machine, to):
    pair = (machine._state, _state(to))
    if pair in machine._guards:
        return {RECORD.format(a="pair[0]", b="pair[1]")}
    _reject(machine._state, to)
"""
MACHINE_REJECT = r"_reject\(self\._state, to\)$"
# The first event declared from the first state that has one now takes a transition to
# another target (a record of the module, so only the target is wrong).
EVENT_WRONG_TARGET = """
_mutant_source = next(s for s in State if _ON[s])
_mutant_event, _mutant_right = next(iter(_ON[_mutant_source].items()))
_ON[_mutant_source][_mutant_event] = next(
    t for t in _TRANSITION_LIST if t.to_state is not _mutant_right.to_state
)
"""
# A state that lacks some event gets it, taking one of its own declared transitions.
EVENT_ELSEWHERE = """
_mutant_source = next(s for s in State if _ON[s] and len(_ON[s]) < len(Event))
_mutant_event = next(e for e in Event if e not in _ON[_mutant_source])
_ON[_mutant_source][_mutant_event] = next(iter(_ON[_mutant_source].values()))
"""


def _undeclared_pair(e: Expected) -> tuple[str, str] | None:
    for a in e.states:
        for b in e.states:
            if e.outcome(a, b) == UNDECLARED:
                return a, b
    return None


def _add_transition(source: str, e: Expected) -> str:
    pair = _undeclared_pair(e)
    assert pair is not None
    extra = RECORD.format(a=f"State({pair[0]!r})", b=f"State({pair[1]!r})")
    return before(
        source, r"_INVALID_LIST: Final", f"_TRANSITION_LIST = (*_TRANSITION_LIST, {extra})"
    )


def _terminal_with_undeclared_target(e: Expected) -> bool:
    return any(e.outcome(t, b) == UNDECLARED for t in e.terminal for b in e.states)


@dataclass(frozen=True)
class Mutant:
    name: str
    defect: str
    plant: Callable[[str, Expected], str]
    killed_by: frozenset[str] = BOTH
    needs: Callable[[Expected], bool] = field(default=lambda e: True)


MUTANTS = (
    Mutant(
        "invalid-pair-allowed",
        "Machine.transition performs a pair the spec lists as invalid",
        lambda s, e: helpers(
            sub(s, MACHINE_REJECT, "found = _mutant_allow_invalid(self._state, to)"), ALLOW_INVALID
        ),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "invalid-pair-allowed-bare-machine",
        "the same, only on the path of a Machine without guards or listeners",
        lambda s, e: helpers(
            sub(s, MACHINE_REJECT, "found = _mutant_allow_invalid(self._state, to)", which="first"),
            ALLOW_INVALID,
        ),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "invalid-pair-allowed-hooked-machine",
        "the same, only on the path of a Machine with guards or listeners",
        lambda s, e: helpers(
            sub(s, MACHINE_REJECT, "found = _mutant_allow_invalid(self._state, to)", which="last"),
            ALLOW_INVALID,
        ),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "invalid-pair-in-lookup-table",
        "an invalid pair is in the lookup table behind check, can_transition and Machine",
        lambda s, e: before(
            s,
            r"_TARGETS: Final",
            "_OUT[_INVALID_LIST[0][0]][_INVALID_LIST[0][1]] = "
            + RECORD.format(a="_INVALID_LIST[0][0]", b="_INVALID_LIST[0][1]"),
        ),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "state-not-restored-after-guard-rejection",
        "a guard says no: GuardRejected is raised, but the state has already moved",
        lambda s, e: before_indented(s, r"raise GuardRejected\(", "self._state = found.to_state"),
    ),
    Mutant(
        "state-not-restored-when-guard-raises",
        "the state moves before the guard is called: a guard saying no or raising leaves it moved",
        lambda s, e: before_indented(s, r"allowed = guard\(", "self._state = found.to_state"),
    ),
    Mutant(
        "state-not-restored-after-rejected-pair",
        "an undeclared or invalid pair raises, but the machine has moved to the target",
        lambda s, e: helpers(
            sub(s, MACHINE_REJECT, "_mutant_move_then_reject(self, to)"), MOVE_THEN_REJECT
        ),
    ),
    Mutant(
        "guard-never-called",
        "bound guards are ignored: every declared transition is performed",
        lambda s, e: sub(s, r"guard = self\._guards\.get\(", "guard = None and self._guards.get("),
    ),
    Mutant(
        "guard-answer-ignored",
        "the guard is called, but its no is not honoured",
        lambda s, e: sub(s, r"if not allowed:", "if allowed is None:"),
    ),
    Mutant(
        "guard-gets-no-context",
        "the guard is called with an empty mapping instead of the transition's context",
        lambda s, e: sub(s, r"allowed = guard\(view\)", "allowed = guard(MappingProxyType({}))"),
    ),
    Mutant(
        "transition-missing",
        "a declared transition is missing from the module (tables and behaviour agree)",
        lambda s, e: before(s, r"_INVALID_LIST: Final", "_TRANSITION_LIST = _TRANSITION_LIST[1:]"),
        needs=lambda e: bool(e.transitions),
    ),
    Mutant(
        "transition-added",
        "an undeclared pair is a transition of the module (tables and behaviour agree)",
        _add_transition,
        needs=lambda e: _undeclared_pair(e) is not None,
    ),
    Mutant(
        "why-changed",
        "INVALID and ForbiddenTransition.why carry another text than the spec's why",
        lambda s, e: before(
            s,
            r"_BY_PAIR: Final",
            '_INVALID_LIST = tuple((a, b, why + " (edited)") for a, b, why in _INVALID_LIST)',
        ),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "why-wrong-in-error",
        "ForbiddenTransition carries another text than INVALID",
        lambda s, e: sub(
            s,
            r"ForbiddenTransition\(source, target, why\)",
            'ForbiddenTransition(source, target, why[::-1] + "!")',
        ),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "forbidden-reported-as-undeclared",
        "a listed invalid pair raises UndeclaredTransition (no why)",
        lambda s, e: sub(s, r"if why is not None:", "if False:"),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "terminal-state-accepts-a-transition",
        "a terminal state moves to a state the spec does not connect it to",
        lambda s, e: helpers(
            sub(s, MACHINE_REJECT, "found = _mutant_terminal(self._state, to)"), TERMINAL_ACCEPTS
        ),
        needs=_terminal_with_undeclared_target,
    ),
    Mutant(
        "terminal-table-empty",
        "TERMINAL is empty: is_terminal is always false",
        lambda s, e: before(s, r"def _state\(", "TERMINAL = frozenset()"),
        needs=lambda e: bool(e.terminal),
    ),
    Mutant(
        "initial-table-wrong",
        "INITIAL holds every state",
        lambda s, e: before(s, r"def _state\(", "INITIAL = frozenset(State)"),
        needs=lambda e: e.initial != e.state_set,
    ),
    Mutant(
        "check-allows-undeclared",
        "check() returns a transition for an undeclared pair",
        lambda s, e: helpers(
            sub(
                s, r"_reject\(from_state, to_state\)$", "return _mutant_check(from_state, to_state)"
            ),
            CHECK_ALLOWS,
        ),
        needs=lambda e: _undeclared_pair(e) is not None,
    ),
    Mutant(
        "can-transition-says-yes-to-invalid",
        "can_transition() is true for a listed invalid pair",
        lambda s, e: sub(
            s,
            r"return _state\(to_state\) in _OUT\[_state\(from_state\)\]",
            r"\g<0> or (_state(from_state), _state(to_state)) in _WHY",
        ),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "machine-can-ignores-current-state",
        "Machine.can(to) is true when any state has a transition to `to`",
        lambda s, e: sub(
            s,
            r"return _state\(to\) in _OUT\[self\._state\]",
            "return any(_state(to) in out for out in _OUT.values())",
        ),
        needs=lambda e: any(
            e.outcome(a, b) != OK and e.sources(b) for a in e.states for b in e.states
        ),
    ),
    Mutant(
        "unknown-name-accepted",
        "a name that is not a state becomes the first state instead of raising ValueError",
        lambda s, e: sub(
            s, r"^(\s*)raise UnknownStateError\(value\) from None$", r"\1return next(iter(State))"
        ),
    ),
    Mutant(
        "record-text-changed",
        "the Transition records (tables and return values) carry another trigger than the spec",
        lambda s, e: before(
            s,
            r"_INVALID_LIST: Final",
            "_TRANSITION_LIST = tuple(Transition(from_state=t.from_state, to_state=t.to_state, "
            'trigger=t.trigger + "!", guard=t.guard, side_effects=t.side_effects, who=t.who, '
            "provenance=t.provenance, source=t.source) for t in _TRANSITION_LIST)",
        ),
        needs=lambda e: bool(e.transitions),
    ),
    Mutant(
        "listener-told-of-rejection",
        "listeners are called for a transition its guard rejected",
        lambda s, e: before_indented(
            s, r"raise GuardRejected\(", "[listener(found, view) for listener in self._listeners]"
        ),
        killed_by=frozenset({STATE_MACHINE}),
    ),
    Mutant(
        "transitions-writable",
        "TRANSITIONS is a plain dict: anyone can add a transition at run time",
        lambda s, e: sub(s, r"MappingProxyType\(_BY_PAIR\)", "_BY_PAIR"),
        killed_by=frozenset({ALL_PAIRS}),
    ),
    Mutant(
        "targets-include-invalid",
        "targets() lists the targets of invalid pairs too",
        lambda s, e: sub(
            s,
            r"return _TARGETS\[_state\(state\)\]",
            r"\g<0> | frozenset(b for a, b in _WHY if a == _state(state))",
        ),
        killed_by=frozenset({ALL_PAIRS}),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "guard-widens-invalid-pair",
        "a guard can be bound to a listed invalid pair, and its yes performs it",
        lambda s, e: helpers(
            sub(
                sub(
                    sub(s, r"if key in _WHY:", "if False:"), r"if key not in _BY_PAIR:", "if False:"
                ),
                MACHINE_REJECT,
                "found = _mutant_guarded(self, to)",
                which="last",
            ),
            GUARD_WIDENS,
        ),
        killed_by=frozenset({ALL_PAIRS}),
        needs=lambda e: bool(e.invalid),
    ),
    Mutant(
        "event-wrong-target",
        "an event leads to the wrong target (fire takes another state's transition)",
        lambda s, e: before(s, r"_EVENT_BY_VALUE: Final", EVENT_WRONG_TARGET),
        needs=lambda e: bool(e.event_names),
    ),
    Mutant(
        "event-fires-elsewhere",
        "an event fires from a state that does not declare it",
        lambda s, e: before(s, r"_EVENT_BY_VALUE: Final", EVENT_ELSEWHERE),
        needs=lambda e: bool(e.event_names),
    ),
)
#: The mutants only a spec with named events can show (the hostile spec has none).
EVENT_MUTANTS = frozenset({"event-wrong-target", "event-fires-elsewhere"})

# -- subjects ------------------------------------------------------------------------------

HOSTILE = """\
---
id: STATE-MUT-001
title: Mutant target
object: DOM-MUT-001
product_area: mutants
module: hostile
revision: 3
status: draft
initial: [draft, 2fa]
states:
  - name: draft
  - name: in-review
  - name: class
  - name: 2fa
  - name: "on"
  - name: done ✓
  - name: rejected
transitions:
  - {from: draft, to: in-review, trigger: submit, guard: "ready == \\"yes\\""}
  - {from: in-review, to: draft, trigger: send back, side_effects: [notify, "log \\\\ it"]}
  - {from: in-review, to: done ✓, trigger: approve, who: reviewer, provenance: observed}
  - {from: in-review, to: rejected, trigger: reject}
  - {from: in-review, to: "on", trigger: hold}
  - {from: "on", to: rejected, trigger: expire}
  - {from: 2fa, to: in-review, trigger: verified}
  - {from: draft, to: class, trigger: classify}
  - {from: class, to: done ✓, trigger: "{{ close }}"}
invalid:
  - {from: done ✓, to: draft, why: "done is final"}
  - {from: rejected, to: in-review, why: "can't \\"reopen\\"\\nask for a new one"}
  - {from: "on", to: "on", why: "{% raw %}"}
  - {from: draft, to: done ✓, why: review first}
---

# Mutant target
"""


COMMITTED = {Path(spec).stem: spec for spec in find_generated_modules(ROOT / "generated")}


def _models() -> dict[str, Expected]:
    models = {name: Expected.from_spec(ROOT / spec) for name, spec in COMMITTED.items()}
    document = lint_bytes(HOSTILE.encode("utf-8"), "hostile.md").document
    assert document is not None
    models["hostile"] = Expected.from_spec(document.spec)
    return models


MODELS = _models()
SUBJECTS = tuple(MODELS)


@pytest.fixture(scope="module")
def subjects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, Path]]:
    """Subject name -> (generated module source, spec path): the committed modules and one
    generated here from a hostile spec (keyword, digit-first and YAML-word names, several
    initial states, an invalid self-pair, quotes and template syntax in the texts)."""
    found: dict[str, tuple[str, Path]] = {}
    for relative, path in find_generated_modules(ROOT / "generated").items():
        found[Path(relative).stem] = (path.read_text(encoding="utf-8"), ROOT / relative)
    root = tmp_path_factory.mktemp("hostile")
    (root / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\nout = "generated"\n')
    spec = root / "specs" / "mutants" / "hostile.md"
    spec.parent.mkdir(parents=True)
    spec.write_text(HOSTILE, encoding="utf-8")
    with contextlib.chdir(root), contextlib.redirect_stderr(io.StringIO()):
        assert main(["generate", "-j", "1", "--no-cache"]) == 0
    (module,) = find_generated_modules(root / "generated").values()
    found["hostile"] = (module.read_text(encoding="utf-8"), spec)
    return found


def load(source: str, folder: Path, name: str) -> types.ModuleType:
    path = folder / f"{name.replace('-', '_')}.py"
    path.write_text(source, encoding="utf-8")
    return import_generated(path)


def killers(
    module: types.ModuleType, spec: Path, examples: settings = KILL
) -> dict[str, Callable[[], None]]:
    return {
        ALL_PAIRS: lambda: check_module(module, spec),
        STATE_MACHINE: lambda: run_machine(state_machine_for(module, spec), examples),
    }


# -- tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("subject", SUBJECTS)
def test_the_unmutated_copy_survives(
    subject: str, subjects: dict[str, tuple[str, Path]], tmp_path: Path
) -> None:
    source, spec = subjects[subject]
    module = load(source, tmp_path, subject)
    for check in killers(module, spec, SURVIVE).values():
        check()


#: Every mutant in every subject whose spec can show its defect (an invalid pair, say).
CASES = [(m, s) for m in MUTANTS for s in SUBJECTS if m.needs(MODELS[s])]


@pytest.mark.parametrize(("mutant", "subject"), CASES, ids=[f"{m.name}-{s}" for m, s in CASES])
def test_the_suite_kills_the_mutant(
    mutant: Mutant, subject: str, subjects: dict[str, tuple[str, Path]], tmp_path: Path
) -> None:
    source, spec = subjects[subject]
    mutated = mutant.plant(source, MODELS[subject])
    assert mutated != source
    module = load(mutated, tmp_path, f"{subject}_{mutant.name}")
    for name, check in killers(module, spec).items():
        if name in mutant.killed_by:
            with pytest.raises(AssertionError):
                check()


def test_the_hostile_spec_shows_every_defect() -> None:
    missed = [m.name for m in MUTANTS if not m.needs(MODELS["hostile"])]
    assert sorted(missed) == sorted(EVENT_MUTANTS)
    assert len(SUBJECTS) >= 3


def test_the_events_mutants_have_a_subject() -> None:
    """The committed TCP connection (RFC 9293) names events: it shows both event defects."""
    for mutant in MUTANTS:
        if mutant.name in EVENT_MUTANTS:
            assert [s for s in SUBJECTS if mutant.needs(MODELS[s])] == ["connection"]


def test_mutant_names_are_unique() -> None:
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)


@pytest.mark.parametrize(
    "name", ["transition-missing", "transition-added", "why-changed", "record-text-changed"]
)
def test_module_tables_alone_cannot_see_table_consistent_mutants(
    name: str, subjects: dict[str, tuple[str, Path]], tmp_path: Path
) -> None:
    """Why the spec is the model: these mutants change a table and the behaviour together,
    so a suite that trusted the module's own tables would pass them."""
    mutant = next(m for m in MUTANTS if m.name == name)
    source, spec = subjects["hostile"]
    module = load(mutant.plant(source, MODELS["hostile"]), tmp_path, name)
    check_module(module)  # no spec: passes
    run_machine(state_machine_for(module), settings(KILL, max_examples=scaled(50, minimum=10)))
    with pytest.raises(AssertionError):
        check_module(module, spec)


def test_a_rendered_test_module_fails_on_a_mutant(
    subjects: dict[str, tuple[str, Path]], tmp_path: Path
) -> None:
    """The downstream path end to end: ``statedoc generate --tests`` output, run by pytest in
    a fresh interpreter against a mutant, fails both of its tests."""
    source, spec = subjects["hostile"]
    mutant = next(m for m in MUTANTS if m.name == "invalid-pair-allowed")
    package = tmp_path / "mutantpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "hostile.py").write_text(mutant.plant(source, MODELS["hostile"]))
    (tmp_path / "test_hostile.py").write_text(render_test_module("mutantpkg.hostile", str(spec)))
    (tmp_path / "conftest.py").write_text(downstream_conftest())
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_hostile.py"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{tmp_path}:{ROOT}", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "2 failed" in result.stdout, result.stdout
