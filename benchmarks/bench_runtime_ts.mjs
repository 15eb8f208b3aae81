// Driven by bench_runtime_ts.py (which compiles the generated module and writes walk.json).
// Per-step cost of one random walk done five ways; best of --repeat after a warm-up.
import { readFileSync } from "node:fs";
import { createActor, createMachine } from "xstate";

const [modulePath, walkPath, repeatText] = process.argv.slice(2);
const m = await import(modulePath);
const walk = JSON.parse(readFileSync(walkPath, "utf-8"));
const repeat = Number(repeatText);
const steps = walk.reduce((n, [, path]) => n + path.length, 0);
const pairs = m.TRANSITION_LIST.map((t) => [t.from, t.to]);

function timed(run, prepare) {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const prepared = prepare ? prepare() : undefined;
    const begin = process.hrtime.bigint();
    run(prepared);
    const elapsed = Number(process.hrtime.bigint() - begin);
    best = Math.min(best, elapsed);
  }
  return best / steps;
}

// The least validation can cost: a Set of the declared targets per state.
const next = new Map(m.TRANSITION_LIST.length ? [] : []);
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
for (let i = 0; i < 3; i++) { bare(); bareKeyed(); checked(); transitioned(machines()); sent(actors()); }
const result = {
  steps,
  node: process.version,
  bare: timed(bare),
  bareKeyed: timed(bareKeyed),
  check: timed(checked),
  machine: timed(transitioned, machines),
  xstate: timed(sent, actors),
};
process.stdout.write(JSON.stringify(result));
