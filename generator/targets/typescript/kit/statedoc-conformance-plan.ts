/**
 * The plans of statedoc's TypeScript conformance kit (`statedoc-conformance.ts`), computed from
 * the generated module alone: no system, no fast-check. The same plans as the Python kit's
 * `generator.testing.conformance.plan`, and Python's `repr` for names, so a failure reads the
 * same in both languages.
 */

/** A declared transition as the generated module lists it. */
export interface TransitionLike {
  readonly from: string;
  readonly to: string;
  readonly trigger: string;
  readonly event?: string | null;
}

/** The generated `Machine`, seen with plain strings. */
export interface MachineLike {
  readonly state: string;
  transition(to: never): unknown;
  fire?(event: never): unknown;
}

/** What the kit reads from a generated module (`import * as spec from ".../<name>.js"`). */
export interface SpecModule {
  readonly SPEC_ID: string;
  readonly SPEC_SHA256?: string;
  readonly State: Readonly<Record<string, string>>;
  readonly Event?: Readonly<Record<string, string>>;
  readonly TRANSITION_LIST: readonly TransitionLike[];
  readonly INVALID: { readonly [from: string]: { readonly [to: string]: string | undefined } | undefined };
  readonly INITIAL: ReadonlySet<string>;
  readonly Machine: new (state: never) => MachineLike;
  readonly TransitionError: abstract new (...args: never[]) => Error;
  readonly ForbiddenTransitionError: abstract new (...args: never[]) => Error & { readonly why: string };
}

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, "0");
}

/** Python's `repr` of a value: `'pending'`, `"it's"`, `'\x00'`, `None` (messages match the
 * Python kit's character for character). */
export function repr(value: unknown): string {
  if (typeof value !== "string") {
    if (value === null || value === undefined) {
      return "None";
    }
    if (typeof value === "boolean") {
      return value ? "True" : "False";
    }
    if (typeof value === "number" || typeof value === "bigint") {
      return String(value);
    }
    try {
      return JSON.stringify(value) ?? String(value);
    } catch {
      return typeof value;
    }
  }
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === quote || char === "\\") {
      out += `\\${char}`;
    } else if (char === "\n" || char === "\r" || char === "\t") {
      out += char === "\n" ? "\\n" : char === "\r" ? "\\r" : "\\t";
    } else if (char === " " || !NOT_PRINTABLE.test(char)) {
      out += char;
    } else {
      out += code < 0x100 ? `\\x${hex(code, 2)}` : code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
    }
  }
  return out + quote;
}

const key = (a: string, b: string): string => JSON.stringify([a, b]);

/**
 * The spec's vectors file (the `vectors` target's `<name>.vectors.json`, parsed): every
 * verdict the system must give. Read it yourself (`JSON.parse(readFileSync(path, "utf8"))`,
 * or an import `with { type: "json" }`) and pass it as the option `vectors`.
 */
export interface VectorsFile {
  readonly format: number;
  readonly spec: { readonly id: string; readonly revision: number; readonly sha256: string };
  readonly states: readonly string[];
  readonly initial: readonly string[];
  readonly terminal: readonly string[];
  readonly events: readonly string[];
  readonly pairs: readonly { readonly from: string; readonly to: string; readonly verdict: string; readonly why?: string }[];
  readonly fires: readonly { readonly from: string; readonly event: string; readonly verdict: string; readonly to?: string }[];
  readonly not_states: readonly { readonly name: string; readonly variant: string; readonly of: string | null }[];
  readonly not_events: readonly { readonly name: string; readonly variant: string; readonly of: string | null }[];
}

/** The spec as the kit uses it: states in declaration order, pairs, starts, names that are not. */
export interface Model {
  readonly spec: SpecModule;
  readonly specId: string;
  readonly states: readonly string[];
  readonly initial: readonly string[];
  readonly events: readonly string[];
  /** Names that are no state: the vectors' `not_states` (each tried once, the initial states
   * in turn, as the Python kit does), else the kit's own variants of every state name (each
   * tried from every initial state). */
  readonly unknown: readonly string[];
  /** True when the verdicts are the vectors file's. */
  readonly fromVectors: boolean;
  /** Where the vectors disagree with the generated module (empty without vectors). */
  readonly problems: readonly string[];
  /** The declared transition of a pair (the first one declared). */
  declared(a: string, b: string): TransitionLike | undefined;
  declares(a: string, b: string): boolean;
  why(a: string, b: string): string | undefined;
  targetsOf(state: string): readonly string[];
  invalidFrom(state: string): readonly string[];
}

const FULLWIDTH = (text: string): string =>
  text.replace(/[!-~]/gu, (c) => String.fromCodePoint((c.codePointAt(0) ?? 0) + 0xfee0));
const SWAPCASE = (text: string): string =>
  [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");

/** Look-alikes of real names a lax service might accept: case, padding, width, normalisation. */
export function unknownNames(states: readonly string[], members: readonly string[]): string[] {
  const known = new Set(states);
  const candidates = ["", " ", "\u0000", "not a state", "__class__"];
  for (const name of states) {
    candidates.push(
      name + " ",
      " " + name,
      name.toUpperCase(),
      SWAPCASE(name),
      name.toLowerCase(),
      name.charAt(0).toUpperCase() + name.slice(1),
      name + "\t",
      name + "\u0000",
      "\u200B" + name,
      FULLWIDTH(name),
      name.normalize("NFC"),
      name.normalize("NFD"),
      name.normalize("NFKC"),
    );
  }
  candidates.push(...members, "no such state");
  return [...new Set(candidates)].filter((c) => !known.has(c));
}

/** The model of a generated module; with `vectors`, the verdicts are the file's (and where
 * the file disagrees with the module is listed in `problems`). */
export function modelOf(spec: SpecModule, vectors?: VectorsFile): Model {
  const states = Object.values(spec.State);
  const first = new Map<string, TransitionLike>();
  for (const t of spec.TRANSITION_LIST) {
    if (!first.has(key(t.from, t.to))) {
      first.set(key(t.from, t.to), t);
    }
  }
  const events = spec.Event === undefined ? [] : Object.values(spec.Event);
  const initial = states.filter((s) => spec.INITIAL.has(s));
  const own = (a: string, b: string): string | undefined => spec.INVALID[a]?.[b];
  if (vectors === undefined) {
    const unknown = unknownNames(states, Object.keys(spec.State));
    return table(spec, states, initial, events, unknown, false, [], (a, b) => first.has(key(a, b)), own, first);
  }
  const shape = shapeProblem(vectors);
  if (shape !== null) { // every check fails with it: the module's verdicts fill the model
    return table(spec, states, initial, events, [], true, [shape], (a, b) => first.has(key(a, b)), own, first);
  }
  const problems = vectorProblems(spec, vectors, states, initial, events, first);
  const verdicts = new Map(vectors.pairs.map((v) => [key(v.from, v.to), v]));
  const allowed = (a: string, b: string): boolean => verdicts.get(key(a, b))?.verdict === "allowed";
  const why = (a: string, b: string): string | undefined => {
    const found = verdicts.get(key(a, b));
    return found?.verdict === "forbidden" ? found.why : undefined;
  };
  const unknown = vectors.not_states.map((n) => n.name);
  return table(spec, vectors.states, vectors.initial, vectors.events, unknown, true, problems, allowed, why, first);
}

function table(
  spec: SpecModule,
  states: readonly string[],
  initial: readonly string[],
  events: readonly string[],
  unknown: readonly string[],
  fromVectors: boolean,
  problems: readonly string[],
  allowed: (a: string, b: string) => boolean,
  why: (a: string, b: string) => string | undefined,
  first: ReadonlyMap<string, TransitionLike>,
): Model {
  const targets = new Map(states.map((a) => [a, states.filter((b) => allowed(a, b))]));
  const invalid = new Map(states.map((a) => [a, states.filter((b) => why(a, b) !== undefined)]));
  return {
    spec,
    specId: spec.SPEC_ID,
    states,
    initial: states.filter((s) => initial.includes(s)),
    events,
    unknown,
    fromVectors,
    problems,
    declared: (a, b) => (allowed(a, b) ? first.get(key(a, b)) : undefined),
    declares: allowed,
    why,
    targetsOf: (s) => targets.get(s) ?? [],
    invalidFrom: (s) => invalid.get(s) ?? [],
  };
}

/** Why `vectors` is no parsed vectors file of format 1 (null: it has the shape). */
function shapeProblem(vectors: unknown): string | null {
  const given = (typeof vectors === "object" && vectors !== null ? vectors : {}) as Readonly<Record<string, unknown>>;
  if (given["format"] !== 1) {
    return `the vectors are format ${repr(given["format"])}, not the format 1 this kit reads`;
  }
  const lists = ["states", "initial", "terminal", "events", "pairs", "fires", "not_states", "not_events"];
  const missing = lists.filter((name) => !Array.isArray(given[name]));
  const spec = given["spec"];
  if (typeof spec !== "object" || spec === null) {
    missing.unshift("spec");
  }
  return missing.length === 0 ? null : `the vectors lack ${missing.join(", ")}: not a vectors file`;
}

const same = (a: readonly unknown[], b: readonly unknown[]): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Where `vectors` disagrees with the generated module (a file of another spec or revision,
 * or edited by hand): one line each, at most 20. */
function vectorProblems(
  spec: SpecModule,
  vectors: VectorsFile,
  states: readonly string[],
  initial: readonly string[],
  events: readonly string[],
  first: ReadonlyMap<string, TransitionLike>,
): string[] {
  const out: string[] = [];
  if (vectors.spec.id !== spec.SPEC_ID) {
    out.push(`spec id is ${repr(vectors.spec.id)}, the generated module's is ${repr(spec.SPEC_ID)}`);
  }
  if (spec.SPEC_SHA256 !== undefined && vectors.spec.sha256 !== spec.SPEC_SHA256) {
    out.push(`spec sha256 is ${repr(vectors.spec.sha256)}, the generated module's is ${repr(spec.SPEC_SHA256)}`);
  }
  for (const [name, got, want] of [
    ["states", vectors.states, states],
    ["initial", vectors.initial, initial],
    ["events", vectors.events, events],
  ] as const) {
    if (!same(got, want)) {
      out.push(`${name} are ${got.map(repr).join(", ")}; the generated module's are ${want.map(repr).join(", ")}`);
    }
  }
  const verdictOf = (a: string, b: string): string => {
    const why = spec.INVALID[a]?.[b];
    return first.has(key(a, b)) ? "allowed" : why === undefined ? "undeclared" : `forbidden (${repr(why)})`;
  };
  const listed = new Map(vectors.pairs.map((v) => [key(v.from, v.to), v]));
  for (const a of states) {
    for (const b of states) {
      const v = listed.get(key(a, b));
      const got = v === undefined ? "absent" : v.verdict === "forbidden" ? `forbidden (${repr(v.why)})` : v.verdict;
      if (got !== verdictOf(a, b)) {
        out.push(`pair ${repr(a)} -> ${repr(b)}: ${got}, the generated module: ${verdictOf(a, b)}`);
      }
    }
  }
  const fired = new Map<string, string>();
  for (const t of spec.TRANSITION_LIST) {
    if (typeof t.event === "string" && !fired.has(key(t.from, t.event))) {
      fired.set(key(t.from, t.event), t.to);
    }
  }
  for (const v of vectors.fires) {
    const to = fired.get(key(v.from, v.event));
    const want = to === undefined ? "undeclared" : `allowed (${repr(to)})`;
    const got = v.verdict === "allowed" ? `allowed (${repr(v.to)})` : v.verdict;
    if (got !== want) {
      out.push(`fire ${repr(v.from)} -> ${repr(v.event)}: ${got}, the generated module: ${want}`);
    }
  }
  if (vectors.fires.length !== states.length * events.length) {
    out.push(`${vectors.fires.length} fires listed, not every (state, event): ${states.length * events.length}`);
  }
  return out.slice(0, 20);
}

export type Kind = "reach" | "declared" | "invalid" | "undeclared";

/** Walk `path` (each step a declared transition), then attempt `target` (null: just reach). */
export interface Check {
  readonly kind: Kind;
  readonly path: readonly [string, ...string[]];
  readonly target: string | null;
  readonly accept: boolean;
  readonly reason: string;
  readonly title: string;
}

export interface Plan {
  readonly checks: readonly Check[];
  /** States no path reaches (left out unless the adapter seeds any state). */
  readonly unreached: readonly string[];
}

function check(kind: Kind, path: readonly [string, ...string[]], target: string | null, accept: boolean, reason: string): Check {
  const last = path[path.length - 1] as string;
  const title = target === null ? `reach ${repr(last)}` : `${kind} ${repr(last)} -> ${repr(target)}`;
  return { kind, path, target, accept, reason, title };
}

/** State -> a shortest path of declared transitions from an initial state (breadth-first, in
 * declaration order: the Python kit's paths). */
export function shortestPaths(model: Model): Map<string, readonly [string, ...string[]]> {
  const paths = new Map<string, readonly [string, ...string[]]>(model.initial.map((s) => [s, [s]]));
  const queue = [...model.initial];
  for (let here = queue.shift(); here !== undefined; here = queue.shift()) {
    const way = paths.get(here) as readonly [string, ...string[]];
    for (const there of model.targetsOf(here)) {
      if (!paths.has(there)) {
        paths.set(there, [...way, there]);
        queue.push(there);
      }
    }
  }
  return paths;
}

/** Every planned check; `maxUndeclared` bounds the undeclared pairs (beyond it: a sample that
 * takes from every source state in turn). */
export function buildPlan(model: Model, seedsAnyState: boolean, maxUndeclared: number): Plan {
  const paths = shortestPaths(model);
  let unreached = model.states.filter((s) => !paths.has(s));
  if (seedsAnyState) {
    for (const s of unreached) {
      paths.set(s, [s]);
    }
    unreached = [];
  }
  const checks: Check[] = [];
  const reached = model.states.filter((s) => paths.has(s));
  const way = (s: string): readonly [string, ...string[]] => paths.get(s) as readonly [string, ...string[]];
  for (const s of reached) {
    checks.push(check("reach", way(s), null, true, "reach"));
  }
  for (const t of model.spec.TRANSITION_LIST) {
    if (paths.has(t.from) && model.declared(t.from, t.to) === t) {
      checks.push(check("declared", way(t.from), t.to, true, `the spec declares it (${t.trigger})`));
    }
  }
  for (const a of reached) {
    for (const b of model.invalidFrom(a)) {
      checks.push(check("invalid", way(a), b, false, `the spec forbids it: ${model.why(a, b) ?? ""}`));
    }
  }
  const bySource = reached.map((a) =>
    model.states.filter((b) => a !== b && !model.declares(a, b) && model.why(a, b) === undefined).map((b) => [a, b] as const),
  );
  const undeclared: (readonly [string, string])[] = [];
  for (let round = 0; bySource.some((pairs) => round < pairs.length); round += 1) {
    for (const pairs of bySource) {
      const pair = pairs[round];
      if (pair !== undefined) {
        undeclared.push(pair);
      }
    }
  }
  const all = undeclared.length <= maxUndeclared;
  const chosen = all ? bySource.flat() : undeclared.slice(0, maxUndeclared);
  for (const [a, b] of chosen) {
    checks.push(check("undeclared", way(a), b, false, "the spec does not declare it"));
  }
  const starts = model.initial.filter((s) => paths.has(s));
  if (model.fromVectors) {
    model.unknown.forEach((name, index) => {
      const start = starts[index % starts.length];
      if (start !== undefined) {
        checks.push(check("undeclared", [start], name, false, `${repr(name)} is no state`));
      }
    });
  } else {
    for (const start of starts) {
      for (const name of model.unknown) {
        checks.push(check("undeclared", [start], name, false, `${repr(name)} is no state`));
      }
    }
  }
  return { checks, unreached };
}
