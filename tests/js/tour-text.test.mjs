// Every tour beat's text against the run it shows, for every part (preset) each
// tour offers: what a beat states must be what that run's step records say.
//
// For each tour part the beats are pinned as the page pins them (tour-player.js
// `pin`), each beat's text is built at every level from the same context the card
// uses (`context`), with its quiz's question and explanation, and checked:
//
//  1. Settings: a Kafka setting the text names (`broker.session.timeout.ms`,
//     `zookeeper.session.timeout.ms`, …, any key of `configInForce`) must be one
//     this run's preset uses, and a value written right after it, "name (9000 ms)"
//     or "name = 9000", must be the value in force.
//  2. The era: a run under a ZooKeeper-era preset has no broker heartbeats, fencing
//     or KRaft; a KRaft run has no ZooKeeper. Words of the other era fail the beat.
//  4. Names: a client (p1, c-follower) or record (p1-3) the text names must be one the
//     run has: a client of the scenario, or a record the beat's records hold.
//  5. Brokers: a broker the text names must be one the run has: a replica, or in a
//     ZooKeeper-era run the controller, itself a broker (record controller.broker_id);
//     the controller named as a broker must be that one, and a KRaft controller is none.
//  6. Errors: a Kafka error the text names (NOT_ENOUGH_REPLICAS_AFTER_APPEND,
//     FENCED_LEADER_EPOCH) must be one the run's records at the beat hold (an answer,
//     a batch's error, the narration), unless the beat claims it (a contrast).
//  3. Numbers: every number the text states must be one the run shows: in the
//     beat's record, the one before it, the scenario, the settings in force, or the
//     step narration at the beat (±1, for ranges "100–104" and "LEO n+1"), the time
//     each replica's HW last moved up to the beat, or the difference of two of those
//     ("1868 ms after the heal": two times); version numbers (0.11, 2.8), KIP-n and
//     KAFKA-n are names, not numbers.
//
// A beat that states something the records do not hold declares it, in the beat:
//
//   claims: (c) => [3, 28, "KRaft"]
//
// numbers it states from elsewhere (the explorer's bounds, a rule of thumb), and
// words of the other era it uses on purpose (a contrast: "unlike KRaft, …"). The
// test prints which rule a failing beat broke, with the beat, the part's preset
// and the text. Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PKG_JS = join(ROOT, "www/pkg/hwscope.js");
const PKG_WASM = join(ROOT, "www/pkg/hwscope_bg.wasm");
if (!existsSync(PKG_JS) || !existsSync(PKG_WASM)) throw new Error(`${PKG_JS} is missing: run \`npm run build\` first`);
const wasm = await import(pathToFileURL(PKG_JS).href);
wasm.initSync({ module: readFileSync(PKG_WASM) });

const { TOURS, LEVELS } = await import(pathToFileURL(join(ROOT, "www/learn/tours/index.js")).href);
const { pin, context } = await import(pathToFileURL(join(ROOT, "www/learn/tour-player.js")).href);
const { Sim } = await import(pathToFileURL(join(ROOT, "www/core/sim.js")).href);

const scenarios = wasm.builtinScenarios();

/** Words that belong to one era only. */
const KRAFT_ONLY = [/\bbroker\.session\.timeout\.ms\b/, /\bbroker\.heartbeat\.interval\.ms\b/, /\bheartbeat/i, /\bfenc(e|es|ed|ing)\b/i, /\bunfenced\b/i, /\bKRaft\b/];
const ZOOKEEPER_ONLY = [/\bZooKeeper\b/i, /\bzookeeper\.session\.timeout\.ms\b/];

/** The numbers a text states, leaving out names: versions, KIP-n, KAFKA-n, record ids, settings. */
export function numbersIn(text) {
  const scrubbed = text
    .replace(/\b(KIP|KAFKA)-\d+\b/g, " ")
    .replace(/\b\d+\.\d+(\.\d+)*(?=[^\d]|$)/g, " ") // 0.11, 2.8, 3.7.0
    .replace(/[A-Za-z_][\w.-]*\d[\w-]*/g, " "); // p1-2, kafka-0.10, replica.lag.time.max.ms, t1
  return [...scrubbed.matchAll(/\d[\d,]*/g)].map((m) => Number(m[0].replace(/,/g, "")));
}

/** Every number anywhere in a JSON value (keys' values, arrays, and digits inside strings). */
function collect(v, out) {
  if (v === null || v === undefined) return out;
  if (typeof v === "number") out.add(v);
  else if (typeof v === "string") for (const n of numbersIn(v)) out.add(n);
  else if (Array.isArray(v)) for (const x of v) collect(x, out);
  else if (typeof v === "object") for (const x of Object.values(v)) collect(x, out);
  return out;
}

/** What a beat's text says, at every level, with its quiz's question and explanation. */
function textsOf(def, c) {
  const out = [];
  for (const l of LEVELS) {
    const f = def.say?.[l];
    const t = typeof f === "function" ? f(c) : f;
    if (t) out.push([l, t]);
  }
  const q = def.quiz;
  if (q?.ask) out.push(["quiz", typeof q.ask === "function" ? q.ask(c) : q.ask]);
  if (q?.explain) out.push(["quiz", typeof q.explain === "function" ? q.explain(c) : q.explain]);
  return out;
}

/** The client and record names a text states: p1, c-follower, p1-3, p-one-10. */
export function namesIn(text) {
  return [...text.matchAll(/(?<![\w.-])([pc](?:\d+|-[a-z]+)(?:-[a-z0-9]+)*)(?![\w-])/g)].map((m) => m[1]);
}

/** The Kafka error names a text states: NOT_ENOUGH_REPLICAS, OFFSET_OUT_OF_RANGE. */
export function errorsIn(text) {
  return [...text.matchAll(/(?<![\w.-])[A-Z]+(?:_[A-Z]+)+(?![\w-])/g)].map((m) => m[0]);
}

/** The brokers a text names ("broker 3", "the controller (broker 3)", "Controller id=3"),
 *  as [id, whether it is named as the controller]. */
export function brokersIn(text) {
  const out = [];
  for (const m of text.matchAll(/\b(controller(?: \(| · |, )broker|Controller id=|[Bb]roker) (\d+)|\bController id=(\d+)/g)) {
    const id = Number(m[2] ?? m[3]);
    out.push([id, /controller/i.test(m[1] ?? "Controller")]);
  }
  return out;
}

/** What is wrong with one text of a beat, as sentences (empty: nothing). `known`: the
 *  run's client ids and the record ids its records at the beat name (in logs, reads, losses).
 *  `brokers`: the run's replicas; `controller`: the ZooKeeper era's controller broker id
 *  (the record's controller.broker_id; none in KRaft, whose controller is no broker). */
export function check(text, { settings, zookeeper, facts, claimed, known = null, errors = null, brokers = null, controller = null }) {
  const wrong = [];
  if (brokers) {
    for (const [id, asController] of brokersIn(text)) {
      if (claimed.has(`broker ${id}`)) continue;
      if (asController && id !== controller) wrong.push(controller === null ? `names the controller as broker ${id}, but a KRaft controller is no broker` : `names the controller as broker ${id}, but it is broker ${controller}`);
      else if (!asController && !brokers.has(id) && id !== controller) wrong.push(`names broker ${id}, which this run does not have`);
    }
  }
  if (known) for (const n of namesIn(text)) if (!known.has(n) && !claimed.has(n)) wrong.push(`names ${n}, which this run does not have here`);
  if (errors) for (const e of errorsIn(text)) if (!errors.has(e) && !claimed.has(e)) wrong.push(`names the error ${e}, which this run's records do not hold here`);
  for (const s of settings) {
    const name = s.key.replace(/^.*\]\./, "");
    const at = text.indexOf(s.key.includes("[") ? name : s.key);
    if (s.key.includes("[") || at < 0) continue;
    if (!s.used) wrong.push(`names ${s.key}, which this preset does not use`);
    const after = text.slice(at + s.key.length).match(/^\s*(?:\(|=\s*|of\s+)(\d[\d,]*)/);
    // A name both the brokers and the clients have (request.timeout.ms): the text may
    // mean either, so any of their values in force is the one it states.
    const values = [s, ...settings.filter((o) => o.key.endsWith(`].${s.key}`))].map((o) => o.value).filter((v) => v !== null);
    if (after && values.length > 0 && !values.some((v) => Number(after[1].replace(/,/g, "")) === Number(v))) {
      wrong.push(`says ${s.key} is ${after[1]}, but ${values.join(" or ")} is in force`);
    }
  }
  const other = zookeeper ? KRAFT_ONLY : ZOOKEEPER_ONLY;
  for (const re of other) {
    const m = text.match(re);
    if (m && !claimed.has(m[0])) wrong.push(`says "${m[0]}", which a ${zookeeper ? "ZooKeeper-era" : "KRaft"} run does not have`);
  }
  for (const n of numbersIn(text)) {
    if (!(facts.has(n) || facts.has(n + 1) || facts.has(n - 1) || claimed.has(n))) wrong.push(`states ${n}, which the run does not show here`);
  }
  return wrong;
}

for (const tour of TOURS) {
  for (const [i, part] of tour.parts.entries()) {
    test(`tour ${tour.id}, part ${i + 1} (${part.scenario}${part.preset ? ` under ${part.preset}` : ""}${part.consumers ? ` with ${part.consumers.map((x) => x.id).join(", ")}` : ""}${part.config ? ` with ${Object.entries(part.config).map(([k, v]) => `${k} = ${v}`).join(", ")}` : ""}): every beat says what its run shows`, () => {
      const api = { wasm, scenarios, sim: null };
      const [pinned] = pin(api, { ...tour, parts: [part] });
      const sim = new Sim(wasm.Playground, { tail: 64 });
      sim.load(pinned.json);
      api.sim = sim;
      const settings = wasm.configInForce(pinned.json);
      const preset = JSON.parse(pinned.json).preset ?? "kafka-4.0";
      const zookeeper = settings.some((s) => s.key === "zookeeper.session.timeout.ms" && s.used);
      const failures = [];
      try {
        for (const b of pinned.beats) {
          if (b.step < 0) {
            failures.push(`beat ${b.def.id}: its predicate matches no step`);
            continue;
          }
          const c = context(api, pinned, b.step);
          const facts = new Set([0, 1, 2]);
          for (const v of [c.rec, c.prev, c.sc, settings.map((s) => s.value)]) collect(v, facts);
          // When each replica's HW last moved up to the beat ("502 ms after the leader's HW moved").
          const lastMove = new Map();
          for (const m of c.trace.hwChanges(c.trace.first + 1, b.step)) lastMove.set(m.broker, m.t);
          for (const t of lastMove.values()) facts.add(t);
          // Durations: the difference of two values the run shows.
          const known = [...facts].filter((n) => Number.isFinite(n) && n >= 0);
          for (const a of known) for (const b of known) if (a > b) facts.add(a - b);
          const claimed = new Set(b.def.claims ? b.def.claims(c) : []);
          // Names: the scenario's clients, and every record id the records at the beat hold.
          const names = new Set([...(c.sc.producers ?? []), ...(c.sc.consumers ?? [])].map((x) => x.id));
          for (const v of [c.rec, c.prev]) {
            for (const m of JSON.stringify(v ?? {}).matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
              names.add(m[1]);
              for (const n of namesIn(m[1])) names.add(n);
            }
          }
          // Errors: every error name the records at the beat (or the one before) hold.
          const errors = new Set();
          for (const v of [c.rec, c.prev]) for (const e of errorsIn(JSON.stringify(v ?? {}))) errors.add(e);
          for (const [level, text] of textsOf(b.def, c)) {
            const brokers = new Set(c.rec.replicas.map((r) => r.broker));
            const controller = c.rec.controller?.broker_id ?? null;
            for (const w of check(text, { settings, zookeeper, facts, claimed, known: names, errors, brokers, controller })) {
              failures.push(`beat ${b.def.id} (${level}, step ${b.step}, ${preset}): ${w}\n    ${text}`);
            }
          }
        }
      } finally {
        pinned.trace.free();
        sim.free();
      }
      assert.deepEqual(failures, [], failures.join("\n"));
    });
  }
}

test("the checker fails a beat that names the other era's setting with the wrong value", () => {
  const settings = [
    { key: "broker.session.timeout.ms", value: 9000, used: false },
    { key: "zookeeper.session.timeout.ms", value: 6000, used: true },
  ];
  const text = "The controller fences broker 0 after broker.session.timeout.ms (9000 ms) and elects broker 1.";
  const wrong = check(text, { settings, zookeeper: true, facts: new Set([0, 1, 9000]), claimed: new Set() });
  assert.ok(wrong.some((w) => w.includes("does not use")), wrong.join("; "));
  assert.ok(wrong.some((w) => w.includes('"fences"')), wrong.join("; "));
  const right = "ZooKeeper expires broker 0's session after zookeeper.session.timeout.ms (6000 ms); the controller elects broker 1.";
  assert.deepEqual(check(right, { settings, zookeeper: true, facts: new Set([0, 1, 6000]), claimed: new Set() }), []);
  assert.ok(check("zookeeper.session.timeout.ms (18000 ms)", { settings, zookeeper: true, facts: new Set([18000]), claimed: new Set() }).length > 0);
  assert.deepEqual(numbersIn("KIP-101 at 0.11 lost p1-2 in kafka-0.10 after replica.lag.time.max.ms: 30 s"), [30]);
});

test("a setting both the brokers and the clients have is right at either's value, wrong at neither's", () => {
  const settings = [
    { key: "request.timeout.ms", value: 30000, used: true },
    { key: "producers[0].request.timeout.ms", value: 3000, used: true },
  ];
  const base = { settings, zookeeper: false, facts: new Set([3000, 30000]), claimed: new Set() };
  assert.deepEqual(check("After request.timeout.ms (3000 ms) p1 gives the request up.", base), []);
  assert.deepEqual(check("A broker waits request.timeout.ms (30000 ms).", base), []);
  const wrong = check("After request.timeout.ms (5000 ms) p1 gives the request up.", { ...base, facts: new Set([5000]) });
  assert.ok(wrong.some((w) => w.includes("30000 or 3000 is in force")), wrong.join("; "));
});

test("the checker fails a beat that names a client or a record the run does not have there", () => {
  assert.deepEqual(namesIn("c-follower reads p1-3 and p-one-10 from follower 1; p2 waits (cf. kafka-4.0)."), ["c-follower", "p1-3", "p-one-10", "p2"]);
  const base = { settings: [], zookeeper: false, facts: new Set([0, 1, 2, 3]), claimed: new Set() };
  const known = new Set(["p1", "c-follower", "p1-1", "p1-2", "p1-3"]);
  assert.deepEqual(check("c-follower gets p1-3.", { ...base, known }), []);
  const wrong = check("c-leader gets p1-4 from p2.", { ...base, known });
  assert.equal(wrong.length, 3, wrong.join("; "));
});

test("the checker fails a beat that names the controller as the wrong broker, or as a broker in KRaft", () => {
  assert.deepEqual(brokersIn("The controller (broker 3) elects broker 1; [Controller id=3] logs it."), [[3, true], [1, false], [3, true]]);
  const base = { settings: [], facts: new Set([0, 1, 2, 3]), claimed: new Set(), brokers: new Set([0, 1, 2]) };
  const zk = { ...base, zookeeper: true, controller: 3 };
  assert.deepEqual(check("ZooKeeper expires broker 0's session; the controller (broker 3) elects broker 1.", zk), []);
  assert.ok(check("the controller (broker 2) elects broker 1.", zk).some((w) => w.includes("it is broker 3")));
  assert.ok(check("broker 4 fetches.", zk).some((w) => w.includes("does not have")));
  const kraft = { ...base, zookeeper: false, controller: null };
  assert.ok(check("the controller (broker 3) fences broker 0.", kraft).some((w) => w.includes("KRaft controller is no broker")));
  assert.ok(check("broker 3 fetches.", kraft).some((w) => w.includes("does not have")));
});

test("the checker fails a beat that names an error its run's records do not hold there", () => {
  assert.deepEqual(errorsIn("p1 gets NOT_ENOUGH_REPLICAS_AFTER_APPEND, not NOT_ENOUGH_REPLICAS (KIP-101, p1-2, acks=all)."), ["NOT_ENOUGH_REPLICAS_AFTER_APPEND", "NOT_ENOUGH_REPLICAS"]);
  const base = { settings: [], zookeeper: true, facts: new Set([0, 1]), claimed: new Set() };
  const errors = new Set(["NOT_ENOUGH_REPLICAS_AFTER_APPEND"]);
  assert.deepEqual(check("p-all is told NOT_ENOUGH_REPLICAS_AFTER_APPEND.", { ...base, errors }), []);
  assert.ok(check("p-all is told NOT_ENOUGH_REPLICAS.", { ...base, errors }).some((w) => w.includes("NOT_ENOUGH_REPLICAS,")));
  assert.deepEqual(check("p-all is told NOT_ENOUGH_REPLICAS.", { ...base, errors, claimed: new Set(["NOT_ENOUGH_REPLICAS"]) }), []);
});

test("min-insync's kafka-2.8 beat asks which error comes and reveals NOT_ENOUGH_REPLICAS_AFTER_APPEND from the run, at every level", () => {
  const tour = TOURS.find((t) => t.id === "min-insync");
  const part = tour.parts.find((p) => p.preset === "kafka-2.8");
  assert.ok(part, "the min-insync tour has a kafka-2.8 part");
  const api = { wasm, scenarios, sim: null };
  const [pinned] = pin(api, { ...tour, parts: [part] });
  const sim = new Sim(wasm.Playground, { tail: 64 });
  sim.load(pinned.json);
  api.sim = sim;
  try {
    const b = pinned.beats.find((x) => x.def.id === "after-append");
    assert.ok(b && b.step >= 0, "the beat is pinned");
    assert.equal(b.def.level, "junior", "shown at every level");
    const c = context(api, pinned, b.step);
    assert.equal(c.rec.event.type, "produce_response");
    assert.equal(c.rec.event.error, "NOT_ENOUGH_REPLICAS_AFTER_APPEND");
    const q = b.def.quiz;
    const keys = q.choices(c).map((x) => x.key);
    assert.ok(keys.includes("NOT_ENOUGH_REPLICAS") && keys.includes("NOT_ENOUGH_REPLICAS_AFTER_APPEND"), keys.join());
    assert.equal(q.answer(c).key, c.rec.event.error, "the answer is read from the run");
    const ask = q.ask(c);
    assert.match(ask, new RegExp(`ISR \\{${c.rec.partition.isr.join(", ")}\\}`));
    assert.ok(ask.includes(String(c.lead.hw)) && ask.includes(c.rec.event.to), ask);
    for (const l of LEVELS) assert.ok(typeof b.def.say[l] === "function", `a paragraph at ${l}`);
    assert.ok(b.def.say.junior(c).includes(c.rec.event.error));
  } finally {
    pinned.trace.free();
    sim.free();
  }
});
