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

/** The spec as the kit uses it: states in declaration order, pairs, starts, names that are not. */
export interface Model {
  readonly spec: SpecModule;
  readonly specId: string;
  readonly states: readonly string[];
  readonly initial: readonly string[];
  readonly events: readonly string[];
  /** Names that are no state: the Python kit's, then variants of every state name. */
  readonly unknown: readonly string[];
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

/** The model of a generated module. */
export function modelOf(spec: SpecModule): Model {
  const states = Object.values(spec.State);
  const first = new Map<string, TransitionLike>();
  for (const t of spec.TRANSITION_LIST) {
    if (!first.has(key(t.from, t.to))) {
      first.set(key(t.from, t.to), t);
    }
  }
  const why = (a: string, b: string): string | undefined => spec.INVALID[a]?.[b];
  const targets = new Map(states.map((a) => [a, states.filter((b) => first.has(key(a, b)))]));
  const invalid = new Map(states.map((a) => [a, states.filter((b) => why(a, b) !== undefined)]));
  const events = spec.Event === undefined ? [] : Object.values(spec.Event);
  return {
    spec,
    specId: spec.SPEC_ID,
    states,
    initial: states.filter((s) => spec.INITIAL.has(s)),
    events,
    unknown: unknownNames(states, Object.keys(spec.State)),
    declared: (a, b) => first.get(key(a, b)),
    declares: (a, b) => first.has(key(a, b)),
    why,
    targetsOf: (s) => targets.get(s) ?? [],
    invalidFrom: (s) => invalid.get(s) ?? [],
  };
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
  for (const start of model.initial) {
    if (paths.has(start)) {
      for (const name of model.unknown) {
        checks.push(check("undeclared", [start], name, false, `${repr(name)} is no state`));
      }
    }
  }
  return { checks, unreached };
}
