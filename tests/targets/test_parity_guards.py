"""The TypeScript ``Guards`` type accepts exactly the declared pairs, checked by the real tsc.

For every subject (the seeds and the hostile spec) one file binds a guard to every declared
pair, and marks with ``@ts-expect-error`` every other kind of key: each pair out of a
terminal state (a mapped type over ``never`` used to be ``{}``, which took any key), each
invalid pair, each undeclared pair, a source and a target that are no state, a guard that is
no function or answers no boolean, both as a ``Guards`` value and inside ``MachineOptions``.
tsc reports a directive that suppresses nothing, so the file compiles only if every marked
line is an error. A second copy without the directives must fail on exactly the marked lines,
and the same cases against the old ``Guards`` type show what the fix changed. One tsc run."""

from __future__ import annotations

import re
from pathlib import Path

from ts_harness import compile_project

from generator.targets.typescript.literals import tsliteral

from .ts_support import subjects

SUBJECTS = subjects()
MARK = "// @ts-expect-error: "
#: Names of ``Object.prototype``. When a key of ``Guards`` (a state with a transition, or a
#: target) is one, no guard literal compiles: tsc compares a literal's inherited members
#: (``toString``) with the optional keys of that name (a known limit, reported); and a literal
#: ``"__proto__"`` key sets the prototype, which ``new Machine`` refuses. The wrong keys of
#: such a spec are still all tested.
PROTOTYPE = frozenset(
    {
        "__proto__",
        "constructor",
        "toString",
        "toLocaleString",
        "valueOf",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    }
)
OLD_GUARDS = """export type Guards = {
  readonly [F in State]?: { readonly [T in Targets[F]]?: Guard };
};
"""
NEW_GUARDS = re.compile(r"export type Guards = \{\n  readonly \[F in State as .*?\n\};\n", re.S)


def cases(name: str) -> tuple[str, dict[int, str]]:
    """The test file of subject ``name`` and its wrong lines: line number -> kind."""
    spec = SUBJECTS[name].document.spec
    declared = spec.transition_pairs
    invalid = spec.invalid_pairs
    terminal = set(spec.terminal_states)
    lines = [
        f'import {{ Machine, type Guards }} from "./{name}.js";',
        "const g = (): boolean => true;",
    ]
    wrong: dict[int, str] = {}

    def guards(source: str, target: str, value: str = "g") -> str:
        return f"{{ {tsliteral(source)}: {{ {tsliteral(target)}: {value} }} }}"

    def add(text: str, kind: str | None) -> None:
        if kind is not None:
            lines.append(MARK + kind)
            wrong[len(lines) + 1] = kind
        lines.append(text)

    count = 0
    keys = {name for pair in declared for name in pair}
    for a in spec.state_names:
        for b in spec.state_names:
            if (a, b) in declared:
                kind = None
                if PROTOTYPE & keys:
                    continue  # see PROTOTYPE
            elif a in terminal:
                kind = "out of a terminal state"
            elif (a, b) in invalid:
                kind = "an invalid pair"
            else:
                kind = "an undeclared pair"
            count += 1
            add(f"export const g{count}: Guards = {guards(a, b)};", kind)
            start = tsliteral(a)
            add(f"new Machine({start}, {{ guards: {guards(a, b)} }});", kind)
    a, b = next(iter(sorted(declared)))
    for text, kind in (
        (guards("no such state", b), "a source that is no state"),
        (guards(a, "no such state"), "a target that is no state"),
        (guards(a, b, "true"), "a guard that is no function"),
        (guards(a, b, '() => "yes"'), "a guard that answers no boolean"),
    ):
        count += 1
        add(f"export const g{count}: Guards = {text};", kind)
        add(f"new Machine({tsliteral(a)}, {{ guards: {text} }});", kind)
    return "\n".join(lines) + "\n", wrong


def errors(output: str, file: str) -> set[int]:
    """The lines tsc reports an error on in ``file``."""
    found = re.findall(rf"^{re.escape(file)}\((\d+),\d+\): error", output, flags=re.M)
    return {int(line) for line in found}


def test_guards_take_declared_pairs_only(tmp_path: Path) -> None:
    files: dict[str, str] = {}
    wrong: dict[str, dict[int, str]] = {}
    for name, subject in SUBJECTS.items():
        module = subject.module()
        assert len(NEW_GUARDS.findall(module)) == 1, name
        text, wrong[name] = cases(name)
        files[f"checked/{name}.ts"] = files[f"bare/{name}.ts"] = module
        files[f"old/{name}.ts"] = NEW_GUARDS.sub(OLD_GUARDS, module)
        files[f"checked/{name}.guards.ts"] = text
        bare = "\n".join(line for line in text.split("\n") if not line.startswith(MARK))
        files[f"bare/{name}.guards.ts"] = files[f"old/{name}.guards.ts"] = bare
    compiled = compile_project(tmp_path, files)
    output = compiled.errors
    for name, lines in wrong.items():
        kinds = set(lines.values())
        assert "an undeclared pair" in kinds and "a source that is no state" in kinds, name
        assert not errors(output, f"checked/{name}.guards.ts"), output
        bare = files[f"bare/{name}.guards.ts"].split("\n")
        marked = {i + 1 for i, line in enumerate(bare) if line in _marked_lines(files, name)}
        assert errors(output, f"bare/{name}.guards.ts") == marked, name
        pairs = SUBJECTS[name].document.spec.transition_pairs
        if PROTOTYPE & {state for pair in pairs for state in pair}:
            continue  # every literal fails with the old type too (see PROTOTYPE)
        # Before the fix, a pair out of a terminal state compiled; everything else did not.
        old = errors(output, f"old/{name}.guards.ts")
        terminal = {
            i + 1
            for i, line in enumerate(bare)
            if line in _marked_lines(files, name, "out of a terminal state")
        }
        assert old == marked - terminal, name
    terminal = "out of a terminal state"
    assert [n for n, lines in wrong.items() if terminal in lines.values()], (
        "no subject has a terminal state: the regression is not exercised"
    )
    for file in files:
        if not file.endswith(".guards.ts"):
            assert not errors(output, file), output


def _marked_lines(files: dict[str, str], name: str, kind: str | None = None) -> set[str]:
    """The code lines under a directive (of ``kind``, or any) in the checked file."""
    lines = files[f"checked/{name}.guards.ts"].split("\n")
    return {
        lines[i + 1]
        for i, line in enumerate(lines)
        if line.startswith(MARK) and (kind is None or line == MARK + kind)
    }
