"""Mutation self-test of the generated TypeScript property tests (like tests/test_mutants.py).

Each mutant plants one defect in a generated TypeScript module (both seeds and the hostile
spec); the module's generated fast-check test (``generate --tests``) must fail on it with one
of its own assertion failures (``[statedoc]`` in the message: a crash would prove nothing).
The unmutated copies must pass, or a kill would mean nothing. Everything compiles in ONE tsc
run (mutants are well-typed: tsc must be clean) and runs in ONE node process, with a fixed
fast-check seed: a kill must not depend on luck.

The edits anchor on the generated code; if the template changes, planting fails loudly
("anchor not found"): update the mutant, never drop it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from profiles import scaled
from ts_harness import compile_project, run_tests

from generator.model.spec import Spec

from .ts_support import Subject, subjects

pytestmark = pytest.mark.slow

SUBJECTS = subjects()
SEED = 20260601

RECORD = """
function _mutantRecord(from: unknown, to: unknown): Transition {
  return { from, to, event: null, trigger: "", guard: null, sideEffects: [], who: null,
    provenance: null, source: null } as unknown as Transition;
}
function _mutantStep(from: unknown, to: unknown): _Step {
  return { to: to as State, transition: _mutantRecord(from, to), out: _outOf(to as State) };
}
"""


class AnchorError(AssertionError):
    pass


def sub(source: str, pattern: str, replacement: str, *, which: str = "all") -> str:
    """Replace matches of a MULTILINE regex: all, the first or the last; at least one."""
    matches = list(re.finditer(pattern, source, flags=re.MULTILINE))
    if not matches:
        raise AnchorError(f"anchor not found: {pattern!r}; update {__name__}")
    chosen = {"all": matches, "first": matches[:1], "last": matches[-1:]}[which]
    for match in reversed(chosen):
        source = source[: match.start()] + match.expand(replacement) + source[match.end() :]
    return source


def before(source: str, line_pattern: str, code: str, *, which: str = "first") -> str:
    """Insert ``code`` before the lines matching ``^(\\s*)<line_pattern>``, indented alike."""
    return sub(source, rf"^(\s*)(?={line_pattern})", rf"\g<1>{code}\n\g<1>", which=which)


def helper(source: str) -> str:
    return source + RECORD


#: A TypeScript string literal as ``tsliteral`` writes it.
STRING = r'"(?:[^"\\]|\\.)*"'
FINAL = r"_TRANSITION_LIST = Object\.freeze\(_TRANSITION_LIST\);"
#: The lookup of ``Machine.transition``: first the bare path, last the hooked one.
BARE_LOOKUP = r"const step = this\.#out\.get\(to\);"
ALLOW_INVALID = (
    "const step = this.#out.get(to) ?? (_WHY.get(this.#state)?.has(to) === true"
    " ? _mutantStep(this.#state, to) : undefined);"
)


def move(target: str) -> str:
    """A ``Machine`` moving to ``target`` as the module does: the state and its steps alike."""
    return f"this.#state = {target}; this.#out = _outOf({target});"


def _undeclared(spec: Spec) -> tuple[str, str] | None:
    pairs = spec.transition_pairs | spec.invalid_pairs
    for a in spec.state_names:
        for b in spec.state_names:
            if (a, b) not in pairs:
                return a, b
    return None


def _add_transition(source: str, spec: Spec) -> str:
    pair = _undeclared(spec)
    assert pair is not None
    a, b = (f"_STATES[{spec.state_names.index(name)}]" for name in pair)
    code = f"_TRANSITION_LIST = [..._TRANSITION_LIST, _mutantRecord({a}, {b})];"
    return helper(before(source, FINAL, code))


@dataclass(frozen=True)
class Mutant:
    name: str
    defect: str
    plant: Callable[[str, Spec], str]
    needs: Callable[[Spec], bool] = field(default=lambda spec: True)


def _has_invalid(spec: Spec) -> bool:
    return bool(spec.invalid)


def _has_events(spec: Spec) -> bool:
    return bool(spec.events)


#: The plain paths' second store (each the first such line): ``transition`` takes the
#: step's, ``fire`` looks it up.
BARE_MOVE = r"^[ \t]*this\.#out = step\.out;\n"
BARE_FIRE_MOVE = r"^[ \t]*this\.#out = _outOf\(found\.to\);\n"


MUTANTS = (
    Mutant(
        "invalid-pair-allowed",
        "Machine.transition performs a pair the spec lists as invalid (both paths)",
        lambda s, _: helper(sub(s, BARE_LOOKUP, ALLOW_INVALID)),
        _has_invalid,
    ),
    Mutant(
        "invalid-pair-allowed-bare-machine",
        "the same, only on a Machine without guards or listeners",
        lambda s, _: helper(sub(s, BARE_LOOKUP, ALLOW_INVALID, which="first")),
        _has_invalid,
    ),
    Mutant(
        "invalid-pair-allowed-hooked-machine",
        "the same, only on a Machine with guards or listeners",
        lambda s, _: helper(sub(s, BARE_LOOKUP, ALLOW_INVALID, which="last")),
        _has_invalid,
    ),
    Mutant(
        "invalid-pair-in-lookup-table",
        "an invalid pair is in the table behind check, canTransition and Machine",
        lambda s, _: helper(
            before(
                s,
                r"const _WHY = new Map",
                "for (const [a, b] of _INVALID_LIST.slice(0, 1)) "
                "{ _OUT.get(a)?.set(b, _mutantRecord(a, b)); }",
            )
        ),
        _has_invalid,
    ),
    Mutant(
        "state-not-restored-after-guard-rejection",
        "a guard says no: GuardRejectedError is thrown, but the state has moved",
        lambda s, _: before(
            s, r"throw new GuardRejectedError\(found", move("found.to"), which="all"
        ),
    ),
    Mutant(
        "state-not-restored-when-guard-throws",
        "the state moves before the guard runs: a guard saying no or throwing leaves it moved",
        lambda s, _: before(s, r"const guard = this\.#guards", move("found.to")),
    ),
    Mutant(
        "state-not-restored-after-rejected-pair",
        "an undeclared or invalid pair throws, but the machine has moved to the target",
        lambda s, _: before(
            s,
            r"_reject\(this\.#state, to\);",
            "if (isState(to)) { " + move("to") + " }",
            which="all",
        ),
    ),
    Mutant(
        "guard-never-called",
        "bound guards are ignored: every declared transition is performed",
        lambda s, _: sub(
            s,
            r"const guard = this\.#guards\.get\(found\.from\)\?\.get\(found\.to\);",
            "const guard = undefined as Guard | undefined;",
        ),
    ),
    Mutant(
        "guard-answer-ignored",
        "the guard is called, but its no is not honoured",
        lambda s, _: sub(
            s, r"return guard\(context\) === true;", "guard(context);\n      return true;"
        ),
    ),
    Mutant(
        "guard-gets-no-context",
        "the guard is called with an empty context instead of the transition's",
        lambda s, _: sub(
            s, r"return guard\(context\) === true;", "return guard(_NO_CONTEXT) === true;"
        ),
    ),
    Mutant(
        "transition-missing",
        "a declared transition is missing from the module (tables and behaviour agree)",
        lambda s, _: before(s, FINAL, "_TRANSITION_LIST = _TRANSITION_LIST.slice(1);"),
        lambda spec: bool(spec.transitions),
    ),
    Mutant(
        "transition-added",
        "an undeclared pair is a transition of the module (tables and behaviour agree)",
        _add_transition,
        lambda spec: _undeclared(spec) is not None,
    ),
    Mutant(
        "why-changed",
        "INVALID and ForbiddenTransitionError.why carry another text than the spec's",
        lambda s, _: before(
            s,
            FINAL,
            "_INVALID_LIST = _INVALID_LIST.map(([a, b, why]) => "
            '[a, b, why + " (edited)"] as const);',
        ),
        _has_invalid,
    ),
    Mutant(
        "forbidden-reported-as-undeclared",
        "a listed invalid pair throws UndeclaredTransitionError (no why)",
        lambda s, _: sub(
            s,
            r"if \(why !== undefined\) \{\n(\s*)throw new Forbidden",
            r"if (why !== undefined && (false as boolean)) {\n\1throw new Forbidden",
        ),
        _has_invalid,
    ),
    Mutant(
        "check-allows-undeclared",
        "check() returns a transition for an undeclared pair",
        lambda s, _: helper(
            sub(
                s,
                r"^    _reject\(from, to\);",
                "    return _WHY.get(from)?.has(to) === true "
                "? _reject(from, to) : _mutantRecord(from, to);",
            )
        ),
        lambda spec: _undeclared(spec) is not None,
    ),
    Mutant(
        "can-transition-says-yes-to-invalid",
        "canTransition() is true for a listed invalid pair",
        lambda s, _: sub(
            s,
            r"return _OUT\.get\(_state\(from\)\)\?\.has\(target\) === true;",
            "return _OUT.get(_state(from))?.has(target) === true "
            "|| _WHY.get(from)?.has(target) === true;",
        ),
        _has_invalid,
    ),
    Mutant(
        "machine-can-ignores-current-state",
        "Machine.can(to) is true when any state has a transition to `to`",
        lambda s, _: sub(
            s,
            r"return this\.#out\.has\(_state\(to\)\);",
            "return [..._OUT.values()].some((out) => out.has(_state(to)));",
        ),
    ),
    Mutant(
        "unknown-name-accepted",
        "a name that is not a state becomes the first state instead of a RangeError",
        lambda s, _: sub(
            s,
            r"if \(!_NAMES\.has\(value\)\) \{",
            "if (!_NAMES.has(value)) {\n    return _STATES[0] as State;",
        ),
    ),
    Mutant(
        "terminal-table-empty",
        "TERMINAL is empty: isTerminal is always false",
        lambda s, _: sub(
            s,
            r"^export const TERMINAL: ReadonlySet<State> = new _FrozenSet<State>\(\[",
            "export const TERMINAL: ReadonlySet<State> = new _FrozenSet<State>([]);\n"
            "export const _UNUSED = ([",
        ),
        lambda spec: bool(spec.terminal_states),
    ),
    Mutant(
        "initial-table-wrong",
        "INITIAL holds every state",
        lambda s, _: sub(
            s,
            r"^export const INITIAL: ReadonlySet<State> = new _FrozenSet<State>\(\[",
            "export const INITIAL: ReadonlySet<State> = new _FrozenSet<State>(_STATES);\n"
            "export const _UNUSED = ([",
        ),
        lambda spec: set(spec.initial_states) != set(spec.state_names),
    ),
    Mutant(
        "record-text-changed",
        "the Transition records carry another trigger than the spec",
        lambda s, _: sub(s, r"^    trigger,$", '    trigger: trigger + "!",'),
        lambda spec: bool(spec.transitions),
    ),
    Mutant(
        "listener-told-of-rejection",
        "listeners are called for a transition its guard rejected",
        lambda s, _: before(
            s,
            r"throw new GuardRejectedError\(found",
            "for (const listener of this.#listeners) { listener(found, context); }",
        ),
    ),
    Mutant(
        "transitions-writable",
        "TRANSITIONS and INVALID are not frozen: anyone can add a transition at run time",
        lambda s, _: sub(
            s, r"return Object\.freeze\(table\) as PairTable<V>;", "return table as PairTable<V>;"
        ),
    ),
    Mutant(
        "targets-include-invalid",
        "targets() lists the targets of invalid pairs too",
        lambda s, _: sub(
            s,
            r"return _TARGETS\.get\(_state\(state\)\) as ReadonlySet<State>;",
            "return new _FrozenSet<State>([...(_TARGETS.get(_state(state)) ?? []), "
            "...((_WHY.get(state)?.keys() ?? []) as Iterable<State>)]);",
        ),
        _has_invalid,
    ),
    Mutant(
        "guard-widens-invalid-pair",
        "a guard can be bound to a pair the spec does not declare",
        lambda s, _: sub(
            sub(
                s,
                r"if \(why !== undefined\) \{\n(\s*)throw new RangeError",
                r"if (false as boolean) {\n\1throw new RangeError",
            ),
            r"if \(_OUT\.get\(from\)\?\.has\(to\) !== true\) \{",
            "if (false as boolean) {",
        ),
    ),
    Mutant(
        "reentrancy-unchecked",
        "a listener can call transition() on its own machine",
        lambda s, _: sub(s, r"if \(this\.#busy\) \{", "if (false as boolean) {"),
    ),
    Mutant(
        "listener-error-undoes-transition",
        "a listener that throws rolls the state back (the transition was performed)",
        lambda s, _: sub(
            s,
            r"(for \(const listener of this\.#listeners\) \{\n\s*"
            r"listener\(found, context\);\n\s*\})\n(\s*)\} finally \{",
            rf"\1\n\2}} catch (error) {{\n\2  {move('found.from')}\n"
            r"\2  throw error;\n\2} finally {",
        ),
    ),
    Mutant(
        "meaning-lost",
        "describe() and MEANINGS drop the spec's meaning of the first state",
        lambda s, _: sub(s, rf"(= _byState\(\[\n  \[{STRING}), {STRING}\],", r"\1, null],"),
        lambda spec: spec.states[0].meaning is not None,
    ),
    Mutant(
        "bare-transition-keeps-old-steps",
        "a Machine without guards or listeners moves its state but keeps the steps out of the"
        " old one: its next can() and transition() answer for where it was",
        lambda s, _: sub(s, BARE_MOVE, "", which="first"),
        lambda spec: bool(spec.transitions),
    ),
    Mutant(
        "bare-fire-keeps-old-steps",
        "the same after fire() on a Machine without guards or listeners",
        lambda s, _: sub(s, BARE_FIRE_MOVE, "", which="first"),
        _has_events,
    ),
    Mutant(
        "sets-writable",
        "INITIAL, TERMINAL and targets() can be changed at run time",
        lambda s, _: sub(
            s,
            r"override add\(_value: T\): this \{",
            "override add(_value: T): this {\n    if (Object.isFrozen(this)) { return this; }",
        ),
    ),
)

MUTANTS_BY_NAME = {m.name: m for m in MUTANTS}

CASES = [
    (mutant, name)
    for mutant in MUTANTS
    for name, subject in SUBJECTS.items()
    if mutant.needs(subject.document.spec)
]


def _mutated_files(subject: Subject, source: str, folder: str) -> dict[str, str]:
    return {
        f"{folder}/{subject.name}.ts": source,
        f"{folder}/{subject.name}.test.ts": subject.test(f"./{subject.name}.js"),
    }


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[bool, str]]:
    """Folder -> (the test passed, its error), for the unmutated copies and every mutant."""
    root = tmp_path_factory.mktemp("ts-mutants")
    files: dict[str, str] = {}
    for name, subject in SUBJECTS.items():
        files.update(_mutated_files(subject, subject.module(), f"clean_{name}"))
    for index, (mutant, name) in enumerate(CASES):
        subject = SUBJECTS[name]
        source = subject.module()
        mutated = mutant.plant(source, subject.document.spec)
        assert mutated != source, mutant.name
        files.update(_mutated_files(subject, mutated, f"m{index:03d}"))
    compiled = compile_project(root, files)
    assert compiled.returncode == 0, compiled.errors
    tests = sorted(path for path in files if path.endswith(".test.ts"))
    results = run_tests(compiled, tests, runs=scaled(200, minimum=40), seed=SEED)
    return {Path(path).parent.as_posix(): result for path, result in results.items()}


@pytest.mark.parametrize("name", sorted(SUBJECTS))
def test_the_unmutated_copy_survives(name: str, outcomes: dict[str, tuple[bool, str]]) -> None:
    passed, error = outcomes[f"clean_{name}"]
    assert passed, error


@pytest.mark.parametrize(
    ("index", "mutant", "name"),
    [(i, m, n) for i, (m, n) in enumerate(CASES)],
    ids=[f"{m.name}-{n}" for m, n in CASES],
)
def test_the_generated_tests_kill_the_mutant(
    index: int, mutant: Mutant, name: str, outcomes: dict[str, tuple[bool, str]]
) -> None:
    passed, error = outcomes[f"m{index:03d}"]
    assert not passed, f"{mutant.name} survived in {name}: {mutant.defect}"
    assert "[statedoc]" in error, f"{mutant.name} in {name} crashed instead: {error}"


def test_the_hostile_spec_shows_every_defect() -> None:
    """Every mutant is planted in the hostile spec, but those of events (it has none): each
    of these in a seed that has events."""
    hostile = SUBJECTS["hostile"].document.spec
    missed = [m.name for m in MUTANTS if not m.needs(hostile)]
    assert all(MUTANTS_BY_NAME[name].needs is _has_events for name in missed), missed
    assert all(any(m.name == name for m, _ in CASES) for name in missed), missed


def test_mutant_names_are_unique() -> None:
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)


def test_the_readme_counts_the_mutants() -> None:
    readme = (Path(__file__).resolve().parent.parent.parent / "README.md").read_text()
    found = re.search(r"kills (\d+) kinds of deliberately broken TypeScript", readme)
    assert found is not None and int(found.group(1)) == len(MUTANTS)
