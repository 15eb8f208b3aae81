"""The TypeScript conformance kit agrees with the Python one: the same plans (paths, verdicts,
reasons, titles) from the seeds and the hostile spec, Python's ``repr`` of any name, and the
same failure messages from the same wrong system driven by both kits. And ``generate --tests``
ships the kit next to the generated tests, kept current by ``--check``."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ts_harness import compile_project, run_node_tests, run_script

from generator.cli import main
from generator.model.verdicts import vectors_of_spec
from generator.targets import document_sha256
from generator.targets.typescript.kit import KIT_FILES, kit_files
from generator.targets.vectors import render_vectors
from generator.testing.conformance import ConformanceError, build_plan, run_checks
from generator.testing.conformance.core import Oracle
from generator.testing.proofs.expected import Expected

from .ts_support import ROOT, subjects

SUBJECTS = subjects()
SPEC = SUBJECTS["connection"].document.spec.id
SPEC_DELIVERY = SUBJECTS["workspace_export_delivery"].document.spec.id

PLANS = """\
import { type VectorsFile, buildPlan, modelOf, repr } from "./statedoc-conformance-plan.js";
{imports}
declare const console: { log(text: string): void };
declare const process: { argv: string[] };
const out: Record<string, unknown> = {};
{plans}
out["repr"] = (JSON.parse(process.argv[2] ?? "[]") as string[]).map(repr);
console.log(JSON.stringify(out));
"""


def _python_plan(name: str, *, undeclared: bool = False) -> list[list[Any]]:
    expected = Expected.from_spec(SUBJECTS[name].document.spec)
    plan = build_plan(expected, seeds_any_state=False, max_undeclared=10**6)
    return [
        [c.kind, list(c.path), c.target, c.accept, c.reason, c.title]
        for c in plan.checks
        if undeclared or c.kind != "undeclared"
    ]


def vectors_text(name: str) -> str:
    """The subject's vectors file, as the ``vectors`` target writes it."""
    document = SUBJECTS[name].document
    vectors = vectors_of_spec(
        document.spec, source=SUBJECTS[name].relative, sha256=document_sha256(document.source)
    )
    return render_vectors(vectors)


def ts_vectors(name: str) -> str:
    """A TypeScript expression for the subject's parsed vectors file."""
    return f"JSON.parse({json.dumps(vectors_text(name))}) as VectorsFile"


#: In-memory services of the delivery seed, each checked by the kit with the vectors file
#: (``{right}``) or a copy with one verdict flipped (``{flipped}``); prints check -> result.
VECTORS_SERVICES = """\
import * as spec from "./gen/workspace_export_delivery.js";
import { type Adapter, type VectorsFile, conformanceChecks } from "./statedoc-conformance.js";
declare const console: { log(text: string): void };

/** Moves by the generated Machine: the right service. */
class Right implements Adapter<number> {
  rows = new Map<number, string>();
  next = 1;
  create(state: string): number {
    this.rows.set(this.next, state);
    return this.next++;
  }
  read(id: number): unknown {
    return this.rows.get(id);
  }
  /** The name the service looks up for `to`. */
  lookup(to: string): string {
    return to;
  }
  attempt(id: number, to: string): boolean {
    const machine = new spec.Machine(this.rows.get(id) as spec.State);
    try {
      this.rows.set(id, machine.transition(this.lookup(to) as spec.State).to);
      return true;
    } catch (error) {
      if (error instanceof spec.TransitionError || error instanceof RangeError) return false;
      throw error;
    }
  }
}
/** Compares names case-insensitively. */
class CaseFold extends Right {
  override lookup(to: string): string {
    return to.toLowerCase();
  }
}
/** Folds compatibility forms (full-width letters): NFKC before the lookup. */
class WidthFold extends Right {
  override lookup(to: string): string {
    return to.normalize("NFKC");
  }
}
/** Its driver cannot send U+0000 (as node-postgres into a text column), and it does not say so. */
class NulDriver extends Right {
  override attempt(id: number, to: string): boolean {
    if (to.includes("\\u0000")) throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
    return super.attempt(id, to);
  }
}
/** The same driver, declared. */
class NulDeclared extends NulDriver {
  cannotCarry(name: string): boolean {
    return name.includes("\\u0000");
  }
}
const right = JSON.parse({right}) as VectorsFile;
const flipped = JSON.parse({flipped}) as VectorsFile;
const cases: [string, () => Adapter<number>, VectorsFile][] = [
  ["right", () => new Right(), right],
  ["case", () => new CaseFold(), right],
  ["width", () => new WidthFold(), right],
  ["nul_unsaid", () => new NulDriver(), right],
  ["nul_declared", () => new NulDeclared(), right],
  ["stale", () => new Right(), flipped],
];
const out: Record<string, Record<string, [boolean, string]>> = {};
for (const [name, adapter, vectors] of cases) {
  const results: Record<string, [boolean, string]> = {};
  for (const check of conformanceChecks({ spec, vectors, adapter, numRuns: 30, seed: 11 })) {
    try {
      results[check.name] = [true, await check.run()];
    } catch (error) {
      results[check.name] = [false, error instanceof Error ? error.message : String(error)];
    }
  }
  out[name] = results;
}
console.log(JSON.stringify(out));
"""
#: The pair whose verdict the flipped copy changes (declared -> undeclared).
FLIPPED = ("pending", "delivering")


def vectors_script() -> str:
    right = vectors_text("workspace_export_delivery")
    parsed = json.loads(right)
    for record in parsed["pairs"]:
        if (record["from"], record["to"]) == FLIPPED:
            record["verdict"] = "undeclared"
    flipped = json.dumps(parsed)
    return VECTORS_SERVICES.replace("{right}", json.dumps(right)).replace(
        "{flipped}", json.dumps(flipped)
    )


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Any:
    files = {f"gen/{name}.ts": subject.module() for name, subject in SUBJECTS.items()}
    imports = "\n".join(f'import * as {n} from "./gen/{n}.js";' for n in SUBJECTS)
    plans = "\n".join(
        f'out["{n}"] = buildPlan(modelOf({n}), false, 1e6).checks.filter((c) => c.kind !== '
        f'"undeclared").map((c) => [c.kind, c.path, c.target, c.accept, c.reason, c.title]);\n'
        f'out["{n} vectors"] = buildPlan(modelOf({n}, {ts_vectors(n)}), false, 1e6).checks'
        f".map((c) => [c.kind, c.path, c.target, c.accept, c.reason, c.title]);"
        for n in SUBJECTS
    )
    files["plans.ts"] = PLANS.replace("{imports}", imports).replace("{plans}", plans)
    files["vectors.ts"] = vectors_script()
    files.update(kit_files())
    project = compile_project(tmp_path_factory.mktemp("ts-kit"), files)
    assert project.returncode == 0, project.errors
    return project


def _run(compiled: Any, names: list[str]) -> dict[str, Any]:
    result = run_script(compiled, "js/plans.js", json.dumps(names))
    assert result.returncode == 0, result.stderr
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


@pytest.mark.parametrize("name", sorted(SUBJECTS))
def test_the_plans_are_the_python_kits(name: str, compiled: Any) -> None:
    """Reach, declared and invalid checks: the same paths, verdicts, reasons and titles
    (hostile names in titles: Python's repr in both)."""
    got = _run(compiled, [])[name]
    want = _python_plan(name)
    key = json.dumps  # the invalid checks come in another order
    assert sorted(got, key=key) == sorted(want, key=key)
    assert [c for c in got if c[0] != "invalid"] == [c for c in want if c[0] != "invalid"]


@pytest.mark.parametrize("name", sorted(SUBJECTS))
def test_the_plans_with_vectors_are_the_python_kits_every_check(name: str, compiled: Any) -> None:
    """With the vectors file, every check (undeclared pairs, and every ``not_states`` name
    once, the initial states in turn) is the Python kit's, in the same order."""
    got = _run(compiled, [])[f"{name} vectors"]
    want = _python_plan(name, undeclared=True)
    assert got == want
    names = [c[2] for c in got if c[4].endswith(" is no state")]
    document = SUBJECTS[name].document
    assert names == [n.name for n in vectors_of_spec(document.spec).not_states]


@settings(max_examples=1, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.text(alphabet=st.characters(exclude_categories=["Cn", "Cs"])), min_size=300))
def test_repr_is_pythons(compiled: Any, names: list[str]) -> None:
    """One node call for many names (awkward ones included): character for character."""
    names += ["it's", 'say "x"', "both ' and \"", "\x00\x7f\x85\u2028\ufeff\U000e0001", "\\"]
    assert _run(compiled, names)["repr"] == [repr(n) for n in names]


# -- the same wrong system through both kits -----------------------------------------------------

SYSTEM = """\
/// <reference types="node" />
import { test } from "node:test";
import * as spec from "./gen/workspace_export_delivery.js";
import { conformanceTests } from "./statedoc-conformance.js";

/** In memory: allows delivered -> delivering, writes before checking and never rolls back. */
class Wrong {
  rows = new Map<number, string>();
  next = 1;
  create(state: string): number {
    this.rows.set(this.next, state);
    return this.next++;
  }
  async read(id: number): Promise<unknown> {
    return this.rows.get(id);
  }
  async attempt(id: number, to: string): Promise<boolean> {
    const from = this.rows.get(id) as string;
    this.rows.set(id, to);
    const invalid = from === "delivered" && to === "delivering";
    return invalid || (spec.isState(to) && spec.canTransition(from as spec.State, to));
  }
}
conformanceTests(test, { spec, adapter: () => new Wrong(), numRuns: 20, seed: 1 });
"""


class Wrong:
    """The Python twin of ``SYSTEM``'s service."""

    def __init__(self, oracle: Oracle) -> None:
        self.m: Any = oracle.module
        self.rows: dict[int, str] = {}

    def create(self, state: str) -> int:
        self.rows[len(self.rows) + 1] = state
        return len(self.rows)

    def read(self, obj: int) -> object:
        return self.rows.get(obj)

    def attempt(self, obj: int, to_state: str) -> bool:
        old, self.rows[obj] = self.rows[obj], to_state
        if (old, to_state) == ("delivered", "delivering"):
            return True
        return any(s.value == to_state for s in self.m.State) and self.m.can_transition(
            old, to_state
        )


def test_the_same_wrong_system_fails_with_the_same_messages(tmp_path: Path) -> None:
    from generator.testing.conformance import load_oracle

    oracle = load_oracle(ROOT / "specs/platform/queries/workspace-export-delivery.md")
    files = {
        "gen/workspace_export_delivery.ts": SUBJECTS["workspace_export_delivery"].module(),
        "wrong.test.ts": SYSTEM,
        **kit_files(),
    }
    project = compile_project(tmp_path, files)
    assert project.returncode == 0, project.errors
    by_check = {
        name.split(": ", 1)[1]: message
        for _, _, tests in run_node_tests(project, ["wrong.test.ts"]).values()
        for name, (_, message) in tests.items()
    }
    plan = build_plan(oracle.expected)
    for kind, check in [
        ("invalid", "invalid pairs rejected"),
        ("undeclared", "undeclared rejected"),
    ]:
        with pytest.raises(ConformanceError) as caught:
            run_checks(Wrong(oracle), oracle, plan.of(kind))
        python = {p.split(": ", 1)[0]: p for p in caught.value.problems}
        lines = by_check[check].split("\n")
        typescript = {
            line[4:].split(": ", 1)[0]: line[4:] for line in lines if line.startswith("  - ")
        }
        common = set(python) & set(typescript)
        # The TypeScript kit tries every undeclared pair and more names (its message lists 20):
        # where both tried the same check, the problem is the same, word for word.
        assert common and all(python[t] == typescript[t] for t in common), (python, typescript)
        if kind == "invalid":
            assert set(python) == set(typescript)


def test_generate_tests_ships_the_kit_and_check_covers_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "specs", project / "specs")
    (project / "pyproject.toml").write_text(
        '[tool.statedoc]\nspecs = "specs"\nout = "gen"\ntargets = ["typescript"]\n'
    )
    monkeypatch.chdir(project)
    assert main(["generate", "-q", "--tests", "tests"]) == 0
    for name in KIT_FILES:
        assert (project / "tests" / name).read_text(encoding="utf-8") == kit_files()[name]
    assert main(["generate", "-q", "--tests", "tests", "--check"]) == 0
    kit = project / "tests" / KIT_FILES[0]
    kit.write_text(kit.read_text(encoding="utf-8") + "// edited\n", encoding="utf-8")
    assert main(["generate", "-q", "--tests", "tests", "--check"]) == 1
    assert main(["generate", "-q", "--tests", "tests"]) == 0
    assert kit.read_text(encoding="utf-8") == kit_files()[KIT_FILES[0]]


EVENTS = """\
/// <reference types="node" />
import { test } from "node:test";
import * as spec from "./gen/connection.js";
import { conformanceTests } from "./statedoc-conformance.js";

/** In memory, moves by the generated Machine; `fire` is the adapter's optional method. */
class Right {
  rows = new Map<number, string>();
  next = 1;
  create(state: string): number {
    this.rows.set(this.next, state);
    return this.next++;
  }
  read(id: number): unknown {
    return this.rows.get(id);
  }
  move(id: number, step: (m: spec.Machine) => spec.Transition): boolean {
    const machine = new spec.Machine(this.rows.get(id) as spec.State);
    try {
      this.rows.set(id, step(machine).to);
      return true;
    } catch (error) {
      if (error instanceof spec.TransitionError || error instanceof RangeError) return false;
      throw error;
    }
  }
  attempt(id: number, to: string): boolean {
    return this.move(id, (m) => m.transition(to as spec.State));
  }
  fire(id: number, event: string): boolean {
    return this.move(id, (m) => m.fire(event as spec.Event));
  }
}
/** Fires an event from any state: the first transition declared with it, wherever it starts. */
class AnyState extends Right {
  override fire(id: number, event: string): boolean {
    const first = spec.TRANSITION_LIST.find((t) => t.event === event);
    if (first === undefined) return false;
    this.rows.set(id, first.to);
    return true;
  }
}
conformanceTests(test, { spec, name: "right", adapter: () => new Right(), numRuns: 200, seed: 3 });
conformanceTests(test, { spec, name: "any", adapter: () => new AnyState(), numRuns: 200, seed: 3 });
"""


def test_the_walk_fires_events_through_the_adapter(tmp_path: Path) -> None:
    files = {"gen/connection.ts": SUBJECTS["connection"].module(), "events.test.ts": EVENTS}
    project = compile_project(tmp_path, {**files, **kit_files()})
    assert project.returncode == 0, project.errors
    results = {
        name: message
        for _, _, tests in run_node_tests(project, ["events.test.ts"]).values()
        for name, (_, message) in tests.items()
    }
    failed = [name for name, message in results.items() if message]
    assert len(results) == 10 and failed == [f"{SPEC} conformance of any: random walk"], results
    lines = results[failed[0]].split("\n")
    (walk,) = {line for line in lines if line.startswith("  - ")}
    assert re.fullmatch(
        r"  - random walk: '[^']+' fire '(\w+)' was accepted, but the spec does not declare it; "
        r"path: create '[^']+'; .*'[^']+' fire '\1' accepted",
        walk,
    ), walk


# -- the kit with the vectors file ---------------------------------------------------------------


@pytest.fixture(scope="module")
def with_vectors(compiled: Any) -> dict[str, dict[str, tuple[bool, str]]]:
    """Service -> check -> (passed, its summary or failure), from one node run."""
    result = run_script(compiled, "js/vectors.js")
    assert result.returncode == 0, result.stderr
    found: dict[str, dict[str, tuple[bool, str]]] = json.loads(result.stdout)
    return found


def _failing(results: dict[str, tuple[bool, str]]) -> set[str]:
    return {check for check, (ok, _) in results.items() if not ok}


def test_with_vectors_the_right_service_passes(
    with_vectors: dict[str, dict[str, tuple[bool, str]]],
) -> None:
    results = with_vectors["right"]
    assert len(results) == 5 and not _failing(results), results
    # every undeclared pair and every not_states name, the Python kit's count
    tried = len(_python_plan("workspace_export_delivery", undeclared=True)) - len(
        _python_plan("workspace_export_delivery")
    )
    assert results["undeclared rejected"][1] == f"{SPEC_DELIVERY}: {tried} undeclared checks passed"


@pytest.mark.parametrize(
    ("service", "name", "variant"),
    [
        ("case", "DELIVERING", "case"),
        ("width", "\uff44\uff45\uff4c\uff49\uff56\uff45\uff52\uff49\uff4e\uff47", "width"),
    ],
)
def test_with_vectors_a_lax_name_lookup_is_caught(
    with_vectors: dict[str, dict[str, tuple[bool, str]]], service: str, name: str, variant: str
) -> None:
    """A case variant or a full-width variant of ``delivering``: in the vectors' not_states,
    accepted by the service, reported with the path."""
    spec = SUBJECTS["workspace_export_delivery"].document.spec
    (listed,) = [n for n in vectors_of_spec(spec).not_states if n.name == name]
    assert (listed.variant, listed.of) == (variant, "delivering")
    results = with_vectors[service]
    # the plan tries every name; the walk may draw it too
    assert "undeclared rejected" in _failing(results), results
    assert _failing(results) <= {"undeclared rejected", "random walk"}, results
    assert (
        f"undeclared 'pending' -> {name!r}: 'pending' -> {name!r} was accepted, but {name!r} is "
        f"no state; path: create 'pending'; 'pending' -> {name!r} accepted"
    ) in results["undeclared rejected"][1]


def test_with_vectors_cannot_carry_leaves_names_out_with_a_note(
    with_vectors: dict[str, dict[str, tuple[bool, str]]],
) -> None:
    spec = SUBJECTS["workspace_export_delivery"].document.spec
    nul = [n.name for n in vectors_of_spec(spec).not_states if "\x00" in n.name]
    assert len(nul) > 1
    unsaid = with_vectors["nul_unsaid"]
    assert "undeclared rejected" in _failing(unsaid)
    message = unsaid["undeclared rejected"][1]
    assert f"the adapter's attempt({nul[0]!r}) raised Error: invalid byte sequence" in message
    assert "say so with the adapter's cannotCarry(name)" in message
    declared = with_vectors["nul_declared"]
    assert not _failing(declared), declared
    note = declared["undeclared rejected"][1]
    listed = ", ".join(repr(n) for n in nul[:5])
    more = f" and {len(nul) - 5} more" if len(nul) > 5 else ""
    assert note.endswith(
        f"; {len(nul)} left out, naming what the adapter cannot carry (cannotCarry): {listed}{more}"
    ), note


def test_vectors_that_disagree_with_the_module_fail_every_check(
    with_vectors: dict[str, dict[str, tuple[bool, str]]],
) -> None:
    results = with_vectors["stale"]
    assert len(_failing(results)) == 5, results
    a, b = FLIPPED
    for _, message in results.values():
        assert (
            f"the vectors disagree with the generated module: pair {a!r} -> {b!r}: undeclared, "
            "the generated module: allowed"
        ) in message
