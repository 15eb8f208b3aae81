// Driven by bench_runtime_ts.py (which compiles the generated module and writes walk.json).
// Per-step cost of one random walk done five ways, in paired rounds: every round times each
// way right next to a run of the bare walk (which of the two goes first alternates), so a slow
// moment of the machine (another process, the GC after XState's garbage) lands on both runs of
// a pair alike. A way's ratio is the median of its per-pair ratios against the bare walk, after
// warm-up rounds (JIT) that are not kept. No forced GC between runs: node 20 then flushes and
// re-optimises code, which costs more than it steadies.
import { readFileSync } from "node:fs";
import { createActor, createMachine } from "xstate";

const [modulePath, walkPath, roundsText, warmText] = process.argv.slice(2);
const m = await import(modulePath);
const walk = JSON.parse(readFileSync(walkPath, "utf-8"));
const rounds = Number(roundsText);
const warm = Number(warmText ?? "5");
const steps = walk.reduce((n, [, path]) => n + path.length, 0);
const pairs = m.TRANSITION_LIST.map((t) => [t.from, t.to]);

/** ns per step of one run; `prepare` (building machines, actors) runs before the clock. */
function once(run, prepare) {
  const prepared = prepare ? prepare() : undefined;
  const begin = process.hrtime.bigint();
  run(prepared);
  return Number(process.hrtime.bigint() - begin) / steps;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

// The least validation can cost: a Set of the declared targets per state.
const next = new Map();
for (const s of Object.values(m.State)) next.set(s, new Set());
for (const [a, b] of pairs) next.get(a).add(b);
function bare() {
  for (const [start, path] of walk) {
    let state = start;
    for (const to of path) {
      if (!next.get(state).has(to)) throw new Error(to);
      state = to;
    }
  }
}
// The same with one Set of "from\0to" keys (a string is built per step).
const keyed = new Set(pairs.map(([a, b]) => `${a}\u0000${b}`));
function bareKeyed() {
  for (const [start, path] of walk) {
    let state = start;
    for (const to of path) {
      if (!keyed.has(`${state}\u0000${to}`)) throw new Error(to);
      state = to;
    }
  }
}
const check = m.check;
function checked() {
  for (const [start, path] of walk) {
    let state = start;
    for (const to of path) {
      check(state, to);
      state = to;
    }
  }
}
function machines() {
  return walk.map(([start, path]) => [new m.Machine(start), path]);
}
function transitioned(bound) {
  for (const [machine, path] of bound) {
    for (const to of path) machine.transition(to);
  }
}
// XState v5: one event per declared pair ("to:<target>"), one actor per path.
const config = { id: "bench", initial: walk[0][0], states: {} };
for (const s of Object.values(m.State)) config.states[s] = { on: {} };
for (const [a, b] of pairs) config.states[a].on[`to:${b}`] = { target: b };
const xmachine = createMachine(config);
function actors() {
  return walk.map(([start, path]) => {
    const actor = createActor(xmachine, { snapshot: xmachine.resolveState({ value: start }) });
    actor.start();
    return [actor, path];
  });
}
function sent(bound) {
  for (const [actor, path] of bound) {
    for (const to of path) actor.send({ type: `to:${to}` });
  }
}
// Correctness before timing: every way ends every path where the walk does.
for (const [actor, path] of actors()) {
  sent([[actor, path]]);
  if (actor.getSnapshot().value !== path[path.length - 1]) throw new Error("xstate walk differs");
}
for (const [machine, path] of machines()) {
  transitioned([[machine, path]]);
  if (machine.state !== path[path.length - 1]) throw new Error("Machine walk differs");
}
const ways = {
  bareKeyed: [bareKeyed],
  check: [checked],
  machine: [transitioned, machines],
  xstate: [sent, actors],
};
const names = Object.keys(ways);
const bareTimes = [];
const samples = Object.fromEntries(names.map((name) => [name, []]));
const ratios = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < warm + rounds; round++) {
  for (const name of names) {
    let base, time;
    if (round % 2) {
      time = once(...ways[name]);
      base = once(bare);
    } else {
      base = once(bare);
      time = once(...ways[name]);
    }
    if (round < warm) continue;
    bareTimes.push(base);
    samples[name].push(time);
    ratios[name].push(time / base);
  }
}
const result = { steps, node: process.version, rounds, warm, bare: median(bareTimes) };
for (const name of names) result[name] = median(samples[name]);
const summary = (pick) => Object.fromEntries([["bare", 1], ...names.map((n) => [n, pick(ratios[n])])]);
result.ratio = summary(median);
result.ratioLow = summary((values) => quantile(values, 0.25));
result.ratioHigh = summary((values) => quantile(values, 0.75));
process.stdout.write(JSON.stringify(result));
