/**
 * The objects of statedoc's TypeScript conformance kit (`statedoc-conformance.ts`): the adapter
 * your system gives the kit, its options, and the tracker that drives one object under test
 * and checks every verdict and stored state as it goes, so a failure names the object's path.
 */
import type { SpecModule, VectorsFile } from "./statedoc-conformance-plan.js";
import { repr } from "./statedoc-conformance-plan.js";

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
  /** The spec's vectors file, parsed (`JSON.parse(readFileSync(".../<name>.vectors.json",
   * "utf8"))`): the verdicts are then the file's, every name of its `not_states` is tried,
   * and a file that disagrees with `spec` fails every check. */
  readonly vectors?: VectorsFile;
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
export class Failed extends Error {
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

export async function closeAdapter<Obj>(adapter: Adapter<Obj>): Promise<void> {
  await adapter.close?.();
}
