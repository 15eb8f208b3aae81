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
 * document; nothing is learnt from the system under test. The five checks are those of the
 * Python kit (`generator.testing.conformance`), with the same failure messages:
 *
 * - reaches every state: the shortest path of declared transitions from an initial state to
 *   every state (breadth-first in declaration order, so plans are reproducible);
 * - declared transitions: every declared transition, its source reached along a shortest path;
 * - invalid pairs rejected: every pair the spec lists as invalid, attempted from its source;
 * - undeclared rejected: every undeclared pair (beyond `maxUndeclared`, a sample that covers
 *   every source state), and names that are no state: case, padding, width and Unicode
 *   normalisation variants of every state name, its `State` key, and a few others;
 * - random walk: fast-check's model-based testing (`fc.commands`, `fc.asyncModelRun`) of
 *   random attempts on fresh objects, compared with the generated `Machine` after every step
 *   and shrunk to a short path.
 *
 * Every failure is a `ConformanceError` whose problems each name the path of the object:
 * `create 'pending'; 'pending' -> 'delivering' accepted; 'delivering' -> 'x' rejected`.
 * Needs nothing but `fast-check`; no Node API, so it runs under any test runner.
 */
import fc from "fast-check";
import { type Check, type MachineLike, type Model, type SpecModule, buildPlan, modelOf, repr } from "./statedoc-conformance-plan.js";

export { type Check, type MachineLike, type Model, type Plan, type SpecModule, buildPlan, modelOf, repr } from "./statedoc-conformance-plan.js";

/**
 * How the kit drives your system. An object (`Obj`) is whatever handle you use: a row id, an
 * entity, a client. State names are the spec's, as plain strings; each method may be async.
 */
export interface Adapter<Obj> {
  /** True if `create` can store an object in any state (a fixture INSERT): unreachable states
   * are then seeded and the walk also creates objects in any state. Default: initial only. */
  readonly seedsAnyState?: boolean;
  /** A new object stored in `state` (an initial state unless `seedsAnyState`). */
  create(state: string): Obj | PromiseLike<Obj>;
  /** The state your system has stored for `obj`, read back from storage (not from a cache: a
   * rejection that was not rolled back must show). */
  read(obj: Obj): unknown;
  /** Ask your system to move `obj` to `toState`: true if it did, false if it refused (translate
   * your domain error or the database's refusal). `toState` may be a name that is no state;
   * any exception is reported as a failure of the system. */
  attempt(obj: Obj, toState: string): boolean | PromiseLike<boolean>;
  /** Optional: fire `event` on `obj` (specs with events): true if a transition happened. */
  fire?(obj: Obj, event: string): boolean | PromiseLike<boolean>;
  /** Optional: true for a name your driver cannot send at all (PostgreSQL's `text` holds no
   * U+0000): checks that need it are left out and listed in the test's summary. */
  cannotCarry?(name: string): boolean;
  /** Optional: called when a check (or a run of the walk) is done with the adapter. */
  close?(): void | PromiseLike<void>;
}

/** Makes a fresh adapter: one per check and per run of the random walk. */
export type AdapterFactory<Obj> = () => Adapter<Obj> | PromiseLike<Adapter<Obj>>;

export interface ConformanceOptions<Obj> {
  /** The generated module: `import * as spec from ".../<name>.js"`. */
  readonly spec: SpecModule;
  readonly adapter: AdapterFactory<Obj>;
  /** Names the system under test in the tests' names (several adapters of one spec). */
  readonly name?: string;
  /** Undeclared pairs tried before sampling (default 500). */
  readonly maxUndeclared?: number;
  /** fast-check runs of the walk (default: fast-check's, 100 unless `fc.configureGlobal`). */
  readonly numRuns?: number;
  /** fast-check seed: the same seed replays the same walk. */
  readonly seed?: number;
  /** The longest command sequence of one run (default 30). */
  readonly maxCommands?: number;
}

/** One step on an object: from the stored state to `to` (or firing `event`), and the verdict. */
export interface Step {
  readonly from: string;
  readonly to: string;
  readonly event?: string;
  readonly accepted: boolean;
}

/** `create 'a'; 'a' -> 'b' accepted; 'b' -> 'x' rejected`: how an object got here. */
export function formatPath(start: string, steps: readonly Step[]): string {
  const parts = [`create ${repr(start)}`];
  for (const s of steps) {
    const verdict = s.accepted ? "accepted" : "rejected";
    const move = s.event === undefined ? `${repr(s.from)} -> ${repr(s.to)}` : `${repr(s.from)} fire ${repr(s.event)}`;
    parts.push(`${move} ${verdict}`);
  }
  return parts.join("; ");
}

const MAX_LISTED = 20;

/** The system did not do what the spec says; `problems` each name their path. */
export class ConformanceError extends Error {
  override readonly name: string = "ConformanceError";
  readonly specId: string;
  readonly problems: readonly string[];

  constructor(specId: string, problems: readonly string[], options?: ErrorOptions) {
    const shown = problems.slice(0, MAX_LISTED);
    const lines = [
      `${specId}: the system does not honour its spec (${problems.length} problem${problems.length === 1 ? "" : "s"}):`,
      ...shown.map((p) => `  - ${p}`),
    ];
    if (problems.length > shown.length) {
      lines.push(`  ... and ${problems.length - shown.length} more`);
    }
    super(lines.join("\n"), options);
    this.specId = specId;
    this.problems = Object.freeze([...problems]);
  }
}

/** One check failed; the message names the path. */
class Failed extends Error {
  override readonly name: string = "Failed";
}

function errorName(error: unknown): string {
  if (error instanceof Error) {
    const made = (error.constructor as { name?: unknown }).name;
    return typeof made === "string" && made !== "" ? made : error.name;
  }
  return typeof error;
}

function hint(name: string): string {
  if (!/[\u0000\uD800-\uDFFF]/u.test(name)) {
    return "";
  }
  return " (the name holds a NUL or a lone surrogate, which some drivers and databases cannot carry: if yours cannot, say so with the adapter's cannotCarry(name))";
}

/** One object under test: its start and the attempts made on it, checked as they happen. */
export class Tracker<Obj> {
  readonly steps: Step[] = [];
  readonly adapter: Adapter<Obj>;
  readonly start: string;
  #obj: Obj | undefined;

  private constructor(adapter: Adapter<Obj>, start: string) {
    this.adapter = adapter;
    this.start = start;
  }

  /** A new object in `start`, checked to be stored there. */
  static async create<Obj>(adapter: Adapter<Obj>, start: string): Promise<Tracker<Obj>> {
    const tracker = new Tracker(adapter, start);
    tracker.#obj = await tracker.#call(() => adapter.create(start), `create(${repr(start)})`, start);
    await tracker.expectStored(start, "after creation");
    return tracker;
  }

  get path(): string {
    return formatPath(this.start, this.steps);
  }

  async #call<T>(action: () => T | PromiseLike<T>, what: string, name = ""): Promise<T> {
    try {
      return await action();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Failed(`the adapter's ${what} raised ${errorName(error)}: ${message}${hint(name)}; path: ${this.path}`, {
        cause: error,
      });
    }
  }

  stored(): Promise<unknown> {
    return this.#call(() => this.adapter.read(this.#obj as Obj), "read");
  }

  async expectStored(want: string, when: string): Promise<void> {
    const got = await this.stored();
    if (got !== want) {
      throw new Failed(`stored state is ${repr(got)} ${when}, expected ${repr(want)}; path: ${this.path}`);
    }
  }

  /** Attempt a move; check the verdict and the stored state against `accept`. */
  async attempt(to: string, accept: boolean, why: string): Promise<void> {
    const before = await this.stored();
    if (typeof before !== "string") {
      throw new Failed(`stored state ${repr(before)} is no state name; path: ${this.path}`);
    }
    const accepted = await this.#call(() => this.adapter.attempt(this.#obj as Obj, to), `attempt(${repr(to)})`, to);
    await this.#verdict({ from: before, to, accepted }, accepted, accept, `${repr(before)} -> ${repr(to)}`, why);
    await this.expectStored(accept ? to : before, accept ? "after an accepted move" : "after a rejected move (not rolled back)");
  }

  /** Fire an event; `to` is where the spec says it leads (the current state if refused). */
  async fire(event: string, to: string, accept: boolean, why: string): Promise<void> {
    const fire = this.adapter.fire;
    const before = await this.stored();
    if (typeof before !== "string" || fire === undefined) {
      throw new Failed(`stored state ${repr(before)} is no state name; path: ${this.path}`);
    }
    const accepted = await this.#call(() => fire.call(this.adapter, this.#obj as Obj, event), `fire(${repr(event)})`, event);
    await this.#verdict({ from: before, to, event, accepted }, accepted, accept, `${repr(before)} fire ${repr(event)}`, why);
    await this.expectStored(accept ? to : before, accept ? "after an accepted event" : "after a rejected event (not rolled back)");
  }

  async #verdict(step: Step, accepted: unknown, accept: boolean, move: string, why: string): Promise<void> {
    if (typeof accepted !== "boolean") {
      throw new Failed(`attempt() returned ${repr(accepted)}, not a bool; path: ${this.path}`);
    }
    this.steps.push(step);
    if (accepted !== accept) {
      throw new Failed(`${move} was ${accepted ? "accepted" : "rejected"}, but ${why}; path: ${this.path}`);
    }
    await Promise.resolve();
  }
}

async function closeAdapter<Obj>(adapter: Adapter<Obj>): Promise<void> {
  await adapter.close?.();
}

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
 * resolves to the titles of the checks left out because the adapter cannot carry a name. */
export async function runChecks<Obj>(model: Model, factory: AdapterFactory<Obj>, checks: readonly Check[]): Promise<string[]> {
  const adapter = await factory();
  const problems: string[] = [];
  const skipped: string[] = [];
  try {
    for (const check of checks) {
      const names = [...check.path, ...(check.target === null ? [] : [check.target])];
      if (adapter.cannotCarry !== undefined && names.some((n) => adapter.cannotCarry?.(n) === true)) {
        skipped.push(check.title);
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
    fc.constantFrom(...unknown).map((s) => attempt(`unknownName(${repr(s)})`, () => true, () => s)),
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
  const model = modelOf(options.spec);
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
      const chosen = (await planned()).checks.filter((c) => c.kind === kind);
      const skipped = await runChecks(model, options.adapter, chosen);
      const unreached = (await planned()).unreached;
      const parts = [`${model.specId}: ${chosen.length - skipped.length} ${kind} checks passed`];
      if (unreached.length > 0) {
        parts.push(`no path reaches ${unreached.map(repr).join(", ")} (set seedsAnyState to seed them)`);
      }
      if (skipped.length > 0) {
        parts.push(`${skipped.length} left out: names the adapter cannot carry`);
      }
      return parts.join("; ");
    },
  }));
  checks.push({
    name: "random walk",
    async run(): Promise<string> {
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
