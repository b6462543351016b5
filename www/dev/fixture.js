// Development stand-in for www/pkg/hwscope.js, used with ?dev=fixture while
// the wasm core is not built. A toy event loop that emits records shaped like
// the core's (CONTRACT §3); its protocol is deliberately crude. Not shipped.

const SCEN = {
  format: 1, title: "Fixture: a follower's HW lags by one fetch round trip", seed: 1, replicas: 3,
  initial: { log_end_offset: 100 }, network: { latency_ms: 1, links: [{ from: 0, to: 2, latency_ms: 20 }, { from: 2, to: 0, latency_ms: 20 }] },
  producers: [{ id: "p1", acks: "all" }], consumers: [{ id: "c1" }, { id: "c2", fetch_from: 2 }],
  events: [{ at_ms: 5, produce: { producer: "p1", records: 2 } }, { at_ms: 120, produce: { producer: "p1", records: 1 } }],
  stop_at_ms: 1500,
};

function run(sc, forks) {
  const n = sc.replicas ?? 3, init = sc.initial?.log_end_offset ?? 0, lat = sc.network?.latency_ms ?? 1;
  const linkLat = (a, b) => (sc.network?.links ?? []).find((l) => l.from === a && l.to === b)?.latency_ms ?? lat;
  const B = [...Array(n)].map((_, i) => ({ broker: i, alive: true, role: i ? "follower" : "leader", leader_epoch: 0, log_start_offset: 0, leo: init, hw: init, log: [], fenced: false, parked: [] }));
  const view = {}; for (let i = 1; i < n; i++) view[i] = init;
  const prod = (sc.producers ?? [{ id: "p1", acks: "all" }]).map((p) => ({ id: p.id, acks: p.acks ?? "all", acked: [], failed: [], pending: [], n: 0 }));
  const cons = (sc.consumers ?? []).map((c) => ({ id: c.id, fetch_from: c.fetch_from ?? null, position: init, records_read: 0, read: [] }));
  let now = 0, mid = 0, cut = [], ev = null, text = "";
  const fly = [], recs = [];
  const send = (type, from, to, f) => { const d = typeof from === "number" && typeof to === "number" ? linkLat(from, to) : lat; const m = { id: ++mid, type, from, to, sent_ms: now, arrive_ms: now + d, ...f }; if (!cut.some(([a, b]) => a === from && b === to)) fly.push(m); };
  const snap = (step) => recs.push(JSON.parse(JSON.stringify({ step, time_ms: now, event: ev, text,
    partition: { leader: 0, leader_epoch: 0, isr: [...Array(n).keys()], partition_epoch: 0, maximal_isr: [...Array(n).keys()], cut_links: cut },
    replicas: B.map((b) => ({ ...b, followers: b.role === "leader" ? Object.keys(view).map((f) => ({ broker: +f, fetch_offset: view[f], last_caught_up_ms: 0, in_isr: true })) : undefined })),
    in_flight: fly, producers: prod.map(({ n, ...p }) => p), consumers: cons, violations: [] })));
  const L = B[0];
  const hwUpdate = () => { const hw = Math.min(L.leo, ...Object.keys(view).filter((f) => B[f].alive).map((f) => view[f])); if (hw > L.hw) { L.hw = hw; return true; } return false; };
  const respond = (p) => { L.parked = L.parked.filter((x) => x !== p); const recs = L.log.filter((r) => r.offset >= p.offset); send("fetch_response", 0, p.from, { records: recs.length, first_offset: recs[0]?.offset ?? null, hw: L.hw, error: null, diverging_epoch: null, _recs: recs }); };
  const timers = sc.events.map((e) => ({ at: e.at_ms, e }));
  for (let f = 1; f < n; f++) send("fetch_request", f, 0, { fetch_offset: init, last_fetched_epoch: 0 });
  for (const c of cons) send("consumer_fetch_request", c.id, c.fetch_from ?? 0, { offset: c.position });
  ev = null; text = `Configured ${n} brokers; broker 0 leads epoch 0 with ${init} committed records.`; snap(0);
  for (let step = 1; step < 400; step++) {
    const fork = forks.find((f) => f.after === step - 1);
    const due = [...fly.map((m) => ({ at: m.arrive_ms, m })), ...timers, ...L.parked.map((p) => ({ at: p.expire_ms, p }))].sort((a, b) => a.at - b.at)[0];
    if (!fork && (!due || due.at > sc.stop_at_ms)) break;
    const x = fork ? { e: fork.event } : due;
    if (!fork) now = x.at;
    if (x.m) fly.splice(fly.indexOf(x.m), 1);
    if (x.e) {
      if (!fork) timers.splice(timers.indexOf(x), 1);
      const e = x.e;
      if (e.produce) { const p = prod.find((q) => q.id === e.produce.producer); const ids = [...Array(e.produce.records)].map(() => `${p.id}-${++p.n}`); p.pending.push(...ids); send("produce_request", p.id, 0, { records: ids, acks: p.acks }); ev = { type: "produce", producer: p.id }; text = `${p.id} sends ${ids.length} records to leader 0.`; }
      else if (e.crash) { B[e.crash.broker].alive = false; B[e.crash.broker].role = "offline"; ev = { type: "crash", broker: e.crash.broker }; text = `Broker ${e.crash.broker} crashes.`; }
      else if (e.restart) { const b = B[e.restart.broker]; b.alive = true; b.role = b.broker ? "follower" : "leader"; ev = { type: "restart", broker: b.broker }; text = `Broker ${b.broker} restarts.`; if (b.broker) send("fetch_request", b.broker, 0, { fetch_offset: b.leo, last_fetched_epoch: 0 }); }
      else if (e.partition) { cut.push(e.partition.between, [...e.partition.between].reverse()); ev = { type: "partition", links: e.partition.between }; text = `Link ${e.partition.between.join(" ⇄ ")} cut.`; }
      else if (e.heal) { cut = []; ev = { type: "heal" }; text = "Links healed."; }
      else if (e.add_consumer) { const c = { id: e.add_consumer.id, fetch_from: e.add_consumer.fetch_from ?? null, position: init, records_read: 0, read: [] }; cons.push(c); send("consumer_fetch_request", c.id, c.fetch_from ?? 0, { offset: c.position }); ev = { type: "add_consumer", consumer: c.id }; text = `Consumer ${c.id} joins.`; }
    } else if (x.p) { respond(x.p); ev = { type: "timeout", broker: 0 }; text = `Broker ${x.p.from}'s parked fetch expires; leader 0 answers with HW ${L.hw}.`; }
    else {
      const m = x.m; const to = typeof m.to === "number" ? B[m.to] : null;
      ev = { type: m.type, from: m.from, to: m.to }; const { _recs, ...pub } = m; Object.assign(ev, pub, { id: undefined, sent_ms: undefined, arrive_ms: undefined });
      if (to && !to.alive) { text = `Broker ${m.to} is down; the ${m.type} is lost.`; }
      else if (m.type === "produce_request") { for (const id of m.records) L.log.push({ offset: L.leo++, epoch: 0, id }); hwUpdate(); L.parked.slice().filter((p) => p.kind === "fetch").forEach(respond); text = `Leader 0 appends ${m.records.length} records; LEO ${L.leo}; waits for the ISR before acking.`; L.parked.push({ kind: "produce", from: m.from, offset: L.leo, expire_ms: now + 30000 }); }
      else if (m.type === "fetch_request") { view[m.from] = m.fetch_offset; const before = L.hw; const moved = hwUpdate(); text = `Leader 0 learns follower ${m.from} is at ${m.fetch_offset}; HW ${before}${moved ? " → " + L.hw : " stays"}.`;
        for (const p of L.parked.filter((p) => p.kind === "produce" && p.offset <= L.hw)) { L.parked.splice(L.parked.indexOf(p), 1); const pr = prod.find((q) => q.id === p.from); const ids = pr.pending.splice(0); pr.acked.push(...ids); send("produce_response", 0, p.from, { records: ids, error: null }); text += ` Produce acked.`; }
        if (m.fetch_offset < L.leo) respond({ from: m.from, offset: m.fetch_offset }); else { L.parked.push({ kind: "fetch", from: m.from, offset: m.fetch_offset, expire_ms: now + 500 }); text += " Nothing new: the fetch waits up to 500 ms."; } }
      else if (m.type === "fetch_response") { for (const r of _recs) if (r.offset === to.leo) { to.log.push(r); to.leo++; } const before = to.hw; to.hw = Math.max(to.hw, Math.min(m.hw, to.leo)); text = `Follower ${m.to} gets ${m.records} records (LEO ${to.leo}) and the leader's HW ${m.hw}: its HW ${before} → ${to.hw}.`; send("fetch_request", m.to, 0, { fetch_offset: to.leo, last_fetched_epoch: 0 }); }
      else if (m.type === "consumer_fetch_request") { const c = cons.find((q) => q.id === m.from); const recs = to.log.filter((r) => r.offset >= m.offset && r.offset < to.hw); send("consumer_fetch_response", m.to, m.from, { offset: m.offset, records: recs.map((r) => r.id), hw: to.hw, error: null }); text = `Broker ${m.to} serves ${c.id} ${recs.length} records below its HW ${to.hw}.`; }
      else if (m.type === "consumer_fetch_response") { const c = cons.find((q) => q.id === m.to); c.read.push(...m.records); c.records_read += m.records.length; c.position += m.records.length; text = `${c.id} reads ${m.records.length} records; position ${c.position}.`; if (now < sc.stop_at_ms - 100) fly.push({ id: ++mid, type: "consumer_fetch_request", from: c.id, to: m.from, sent_ms: now, arrive_ms: now + 40, offset: c.position }); }
      else text = `${m.type} arrives.`;
    }
    snap(step);
  }
  return recs;
}

export default async function init() {}
export function builtinScenarios() { return [{ name: "fixture", title: SCEN.title, description: "Hand-made stand-in records.", json: JSON.stringify(SCEN, null, 2) }, { name: "fixture-five", title: "Fixture: five brokers", description: "More columns.", json: JSON.stringify({ ...SCEN, replicas: 5, title: "Fixture: five brokers" }) }]; }
export function presets() { return ["textbook", "kafka-0.10", "kafka-4.0"].map((name) => ({ name, description: name })); }
export function validateScenario(text) { try { const s = JSON.parse(text); if (s.format !== 1) return "format: must be 1"; if (s.replicas != null && (s.replicas < 1 || s.replicas > 7)) return `replicas: must be between 1 and 7, got ${s.replicas}`; return null; } catch (e) { return "not valid JSON: " + e.message; } }

export class Playground {
  configure(s) { const err = validateScenario(typeof s === "string" ? s : JSON.stringify(s)); if (err) throw new Error(err); this.sc = typeof s === "string" ? JSON.parse(s) : s; this.forks = []; this.recs = run(this.sc, this.forks); this.cur = 0; return this.recs[0]; }
  step() { if (this.cur + 1 >= this.recs.length) return null; return this.recs[++this.cur]; }
  seek(n) { this.cur = Math.max(0, Math.min(n, this.recs.length - 1)); return this.recs[this.cur]; }
  reset() { return this.seek(0); }
  snapshot() { return this.recs[this.cur]; }
  current() { return this.cur; }
  extend() { return { steps: this.recs.length, done: true }; }
  apply(event) { this.forks = this.forks.filter((f) => f.after < this.cur); this.forks.push({ after: this.cur, event }); this.recs = run(this.sc, this.forks); return this.seek(this.cur + 1); }
}
