/**
 * statedoc's conformance kit for TypeScript services: does the code that changes stored rows
 * honour the lifecycle its spec document declares?
 *
 * You write an adapter (`Adapter`: create / read / attempt, optional fire; each may be async)
 * that lets the kit create an object in your system, read its stored state back and attempt a
 * move; `conformanceTests` registers five tests with your runner's `test` function:
 *
 *     import { test } from "node:test";          // or: import { test } from "vitest";
 *     import * as spec from "../generated/platform/queries/workspace_export_delivery.js";
 *     import { conformanceTests } from "./statedoc-conformance.js";
 *
 *     conformanceTests(test, { spec, adapter: () => new DeliveryAdapter(pool) });
 *
 * The oracle is the generated module (`spec`), which `statedoc check` keeps equal to the spec
 * document; nothing is learnt from the system under test. With the spec's vectors file (the
 * `vectors` target's `<name>.vectors.json`, parsed, as the option `vectors`) the verdicts are
 * the file's, the very ones the Python kit and the SQL tests hold their targets to, and a file
 * that disagrees with `spec` fails every check:
 *
 *     const vectors = JSON.parse(readFileSync(new URL("../generated/platform/queries/workspace_export_delivery.vectors.json", import.meta.url), "utf8"));
 *     conformanceTests(test, { spec, vectors, adapter: () => new DeliveryAdapter(pool) });
 *
 * The five checks are those of the Python kit (`generator.testing.conformance`), with the same
 * failure messages:
 *
 * - reaches every state: the shortest path of declared transitions from an initial state to
 *   every state (breadth-first in declaration order, so plans are reproducible);
 * - declared transitions: every declared transition, its source reached along a shortest path;
 * - invalid pairs rejected: every pair the spec lists as invalid, attempted from its source;
 * - undeclared rejected: every undeclared pair (beyond `maxUndeclared`, a sample that covers
 *   every source state), and names that are no state: with vectors every one of their
 *   `not_states` (case, padding, width, Unicode normalisation, separator and control variants
 *   of every state name, and generic non-names), each once from an initial state as the Python
 *   kit tries them; without, the kit's own variants of every state name and its `State` key,
 *   from every initial state. A name the adapter's `cannotCarry(name)` declares its driver
 *   cannot send (node-postgres and PostgreSQL `text`: U+0000) is left out, and the test's
 *   summary names it;
 * - random walk: fast-check's model-based testing (`fc.commands`, `fc.asyncModelRun`) of
 *   random attempts on fresh objects, compared with the generated `Machine` after every step
 *   and shrunk to a short path.
 *
 * Every failure is a `ConformanceError` whose problems each name the path of the object:
 * `create 'pending'; 'pending' -> 'delivering' accepted; 'delivering' -> 'x' rejected`.
 * Needs nothing but `fast-check`; no Node API, so it runs under any test runner.
 */
import fc from "fast-check";
import { type Check, type MachineLike, type Model, buildPlan, modelOf, repr } from "./statedoc-conformance-plan.js";
import {
  type Adapter,
  type AdapterFactory,
  type ConformanceOptions,
  ConformanceError,
  Failed,
  Tracker,
  closeAdapter,
} from "./statedoc-conformance-tracker.js";

export {
  type Adapter,
  type AdapterFactory,
  type ConformanceOptions,
  type Step,
  ConformanceError,
  Tracker,
  formatPath,
} from "./statedoc-conformance-tracker.js";
export {
  type Check,
  type MachineLike,
  type Model,
  type Plan,
  type SpecModule,
  type VectorsFile,
  buildPlan,
  modelOf,
  repr,
} from "./statedoc-conformance-plan.js";


async function runCheck<Obj>(adapter: Adapter<Obj>, check: Check): Promise<void> {
  const [start, ...rest] = check.path;
  const tracker = await Tracker.create(adapter, start as string);
  let here = start as string;
  for (const next of rest) {
    await tracker.attempt(next, true, `the spec declares ${repr(here)} -> ${repr(next)} (on the way)`);
    here = next;
  }
  if (check.target !== null) {
    await tracker.attempt(check.target, check.accept, check.reason);
  }
}

/** Run every check on one fresh adapter, collect every failure, throw one `ConformanceError`;
 * resolves to the checks left out because the adapter cannot carry a name in them. */
export async function runChecks<Obj>(model: Model, factory: AdapterFactory<Obj>, checks: readonly Check[]): Promise<Check[]> {
  const adapter = await factory();
  const problems: string[] = [];
  const skipped: Check[] = [];
  try {
    for (const check of checks) {
      const names = [...check.path, ...(check.target === null ? [] : [check.target])];
      if (adapter.cannotCarry !== undefined && names.some((n) => adapter.cannotCarry?.(n) === true)) {
        skipped.push(check);
        continue;
      }
      try {
        await runCheck(adapter, check);
      } catch (error) {
        if (!(error instanceof Failed)) {
          throw error;
        }
        problems.push(`${check.title}: ${error.message}`);
      }
    }
  } finally {
    await closeAdapter(adapter);
  }
  if (problems.length > 0) {
    throw new ConformanceError(model.specId, problems);
  }
  return skipped;
}

// -- the random walk ---------------------------------------------------------------------------

interface WalkState {
  here: string;
}
interface WalkReal<Obj> {
  readonly adapter: Adapter<Obj>;
  tracker: Tracker<Obj>;
  machine: MachineLike;
}
type Verdict = readonly [accept: boolean, why: string, to: string];

/** What the generated `Machine` says about a move (performing it when allowed). */
function oracle(model: Model, machine: WalkReal<unknown>["machine"], move: () => unknown, to: string): Verdict {
  try {
    const done = move() as { readonly to?: unknown } | undefined;
    return [true, "the spec declares it", typeof done?.to === "string" ? done.to : machine.state];
  } catch (error) {
    if (error instanceof model.spec.ForbiddenTransitionError) {
      return [false, `the spec forbids it: ${error.why}`, machine.state];
    }
    if (error instanceof model.spec.TransitionError) {
      return [false, "the spec does not declare it", machine.state];
    }
    if (error instanceof RangeError) {
      return [false, `${repr(to)} is no state`, machine.state];
    }
    throw error;
  }
}

type Command<Obj> = fc.AsyncCommand<WalkState, WalkReal<Obj>>;

/** What the walk may do with this adapter. */
interface Reach {
  readonly anywhere: boolean;
  readonly canFire: boolean;
  readonly carries: (name: string) => boolean;
  readonly maxCommands: number;
}

function commandsFor<Obj>(model: Model, reach: Reach): fc.Arbitrary<Iterable<Command<Obj>>> {
  const attempt = (name: string, check: (m: WalkState) => boolean, pick: (m: WalkState) => string): Command<Obj> => ({
    check,
    async run(m: WalkState, r: WalkReal<Obj>): Promise<void> {
      const to = pick(m);
      const [accept, why] = oracle(model, r.machine, () => r.machine.transition(to as never), to);
      await r.tracker.attempt(to, accept, why);
      m.here = r.machine.state;
      await r.tracker.expectStored(m.here, "between steps");
    },
    toString: () => name,
  });
  const at = (list: readonly string[], i: number): string => list[i % list.length] as string;
  const starts = reach.anywhere ? model.states : model.initial;
  const unknown = model.unknown.filter(reach.carries);
  const arbitraries: fc.Arbitrary<Command<Obj>>[] = [
    fc.nat().map((i) =>
      attempt(`declared(${i})`, (m) => model.targetsOf(m.here).length > 0, (m) => at(model.targetsOf(m.here), i)),
    ),
    fc.nat().map((i) =>
      attempt(`invalid(${i})`, (m) => model.invalidFrom(m.here).length > 0, (m) => at(model.invalidFrom(m.here), i)),
    ),
    fc.constantFrom(...model.states).map((s) =>
      attempt(`anyState(${repr(s)})`, (m) => s !== m.here || model.declares(s, s), () => s),
    ),
    ...(unknown.length > 0 ? [fc.constantFrom(...unknown).map((s) => attempt(`unknownName(${repr(s)})`, () => true, () => s))] : []),
    fc.constantFrom(...starts).map(
      (s): Command<Obj> => ({
        check: () => true,
        async run(m: WalkState, r: WalkReal<Obj>): Promise<void> {
          r.tracker = await Tracker.create(r.adapter, s);
          r.machine = new model.spec.Machine(s as never);
          m.here = s;
        },
        toString: () => `freshObject(${repr(s)})`,
      }),
    ),
  ];
  if (reach.canFire && model.events.length > 0) {
    arbitraries.push(
      fc.constantFrom(...model.events).map(
        (event): Command<Obj> => ({
          check: () => true,
          async run(m: WalkState, r: WalkReal<Obj>): Promise<void> {
            const fire = r.machine.fire;
            const [accept, why, to] = oracle(model, r.machine, () => fire?.call(r.machine, event as never), event);
            await r.tracker.fire(event, to, accept, why.replace("the spec declares it", "the spec declares the event"));
            m.here = r.machine.state;
            await r.tracker.expectStored(m.here, "between steps");
          },
          toString: () => `fire(${repr(event)})`,
        }),
      ),
    );
  }
  return fc.commands(arbitraries, { maxCommands: reach.maxCommands });
}

function failedCause(error: unknown): Failed | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth += 1) {
    if (e instanceof Failed) {
      return e;
    }
  }
  return undefined;
}

/** The walk: fresh adapter and object per run, the `Machine` in step after every command. */
export async function runWalk<Obj>(model: Model, options: ConformanceOptions<Obj>): Promise<void> {
  const probe = await options.adapter();
  const reach: Reach = {
    anywhere: probe.seedsAnyState === true,
    canFire: typeof probe.fire === "function",
    carries: (name) => probe.cannotCarry?.(name) !== true,
    maxCommands: options.maxCommands ?? 30,
  };
  await closeAdapter(probe);
  const starts = model.initial.length > 0 ? model.initial : model.states;
  const commands = commandsFor<Obj>(model, reach);
  const property = fc.asyncProperty(fc.constantFrom(...starts), commands, async (start, cmds) => {
    const adapter = await options.adapter();
    try {
      const tracker = await Tracker.create(adapter, start);
      const real: WalkReal<Obj> = { adapter, tracker, machine: new model.spec.Machine(start as never) };
      await fc.asyncModelRun(() => ({ model: { here: start }, real }), cmds);
    } finally {
      await closeAdapter(adapter);
    }
  });
  const settings: fc.Parameters<[string, Iterable<Command<Obj>>]> = {};
  if (options.numRuns !== undefined) {
    settings.numRuns = options.numRuns;
  }
  if (options.seed !== undefined) {
    settings.seed = options.seed;
  }
  try {
    await fc.assert(property, settings);
  } catch (error) {
    const failed = failedCause(error);
    if (failed === undefined) {
      throw error;
    }
    throw new ConformanceError(model.specId, [`random walk: ${failed.message}`], { cause: error });
  }
}

// -- the tests --------------------------------------------------------------------------------

/** One of the five checks: `run` throws a `ConformanceError`, or resolves to a summary line. */
export interface ConformanceCheck {
  readonly name: string;
  run(): Promise<string>;
}

/** The five checks of `options.spec` against `options.adapter`, to run with any runner. */
export function conformanceChecks<Obj>(options: ConformanceOptions<Obj>): readonly ConformanceCheck[] {
  const model = modelOf(options.spec, options.vectors);
  const agree = (): void => {
    if (model.problems.length > 0) {
      const lines = model.problems.map((p) => `the vectors disagree with the generated module: ${p}`);
      throw new ConformanceError(model.specId, lines);
    }
  };
  let plan: ReturnType<typeof buildPlan> | undefined;
  const planned = async (): Promise<ReturnType<typeof buildPlan>> => {
    if (plan === undefined) {
      const probe = await options.adapter();
      const seeds = probe.seedsAnyState === true;
      await closeAdapter(probe);
      plan = buildPlan(model, seeds, options.maxUndeclared ?? 500);
    }
    return plan;
  };
  const kinds = [
    ["reaches every state", "reach"],
    ["declared transitions", "declared"],
    ["invalid pairs rejected", "invalid"],
    ["undeclared rejected", "undeclared"],
  ] as const;
  const checks: ConformanceCheck[] = kinds.map(([name, kind]) => ({
    name,
    async run(): Promise<string> {
      agree();
      const chosen = (await planned()).checks.filter((c) => c.kind === kind);
      const skipped = await runChecks(model, options.adapter, chosen);
      const unreached = (await planned()).unreached;
      const parts = [`${model.specId}: ${chosen.length - skipped.length} ${kind} checks passed`];
      if (unreached.length > 0) {
        parts.push(`no path reaches ${unreached.map(repr).join(", ")} (set seedsAnyState to seed them)`);
      }
      if (skipped.length > 0) {
        const names = skipped.slice(0, 5).map((c) => repr(c.target ?? c.path[c.path.length - 1]));
        const more = skipped.length > names.length ? ` and ${skipped.length - names.length} more` : "";
        parts.push(`${skipped.length} left out, naming what the adapter cannot carry (cannotCarry): ${names.join(", ")}${more}`);
      }
      return parts.join("; ");
    },
  }));
  checks.push({
    name: "random walk",
    async run(): Promise<string> {
      agree();
      await runWalk(model, options);
      return `${model.specId}: the random walk agreed with the generated Machine`;
    },
  });
  return checks;
}

/** What `test` from node:test, vitest or jest is: (name, fn). */
export type TestFunction = (name: string, fn: (...args: unknown[]) => Promise<void>) => unknown;

/**
 * Register the five checks with your runner's `test`: `conformanceTests(test, { spec, adapter })`.
 * Each test is named `<SPEC_ID> conformance[ of <name>]: <check>`; under node:test its summary is a
 * diagnostic of the test.
 */
export function conformanceTests<Obj>(test: TestFunction, options: ConformanceOptions<Obj>): void {
  const label = options.name === undefined ? "" : ` of ${options.name}`;
  for (const check of conformanceChecks(options)) {
    test(`${options.spec.SPEC_ID} conformance${label}: ${check.name}`, async (...args: unknown[]) => {
      const summary = await check.run();
      const context = args[0] as { diagnostic?: unknown } | undefined;
      if (typeof context?.diagnostic === "function") {
        (context.diagnostic as (message: string) => void).call(context, summary);
      }
    });
  }
}
