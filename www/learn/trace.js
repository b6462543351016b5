// A run read step by step into small rows: what the views and tours need
// (each replica's HW and LEO, the leader, consumer positions, the event) and
// every message with the steps it was sent and received in. It reads a Sim
// (core/sim.js): the page's own, or one of its own for another run (a tour's
// part, a compared run); whole records come from that Sim's one cache.
//
// Nothing here decides protocol questions: rows are copied from the step
// records the core returns. A long run is read as a window of steps
// (`first`..`last`) that moves when a view asks for steps far away.

import { Sim } from "../core/sim.js";

/** Steps in a window at most. */
export const CAP = 6000;
/** How far ahead of the window a view may ask before the window jumps instead. */
const JUMP = 3000;

export class Trace {
  /** A trace of `sim`'s run as it is now (its revision). */
  constructor(sim) {
    this.sim = sim;
    this.revision = sim.revision;
    this.scenario = sim.settings;
    this.restart(sim.get(0));
  }

  /** A trace on a Sim of its own: `json` is the scenario text; free() releases it. */
  static of(wasm, json, { tail = 8 } = {}) {
    const sim = new Sim(wasm.Playground, { tail });
    sim.load(json);
    const trace = new Trace(sim);
    trace.own = true;
    return trace;
  }

  free() {
    if (this.own) this.sim.free();
  }

  /** Starts the window at this record. */
  restart(rec) {
    this.first = rec.step;
    this.rows = [];
    this.msgs = new Map();
    this.delivered = new Map();
    this.done = false;
    this.push(rec);
  }

  get last() {
    return this.first + this.rows.length - 1;
  }

  row(n) {
    return this.rows[n - this.first];
  }

  push(rec) {
    const prev = this.rows[this.rows.length - 1];
    const hw = [];
    const leo = [];
    const role = [];
    for (const r of rec.replicas) {
      hw[r.broker] = r.hw;
      leo[r.broker] = r.leo;
      role[r.broker] = r.alive ? r.role : "offline";
    }
    const leader = rec.replicas.find((r) => r.role === "leader" && r.alive && r.broker === rec.partition.leader);
    const row = {
      step: rec.step,
      t: rec.time_ms,
      ev: rec.event,
      leader: leader ? leader.broker : null,
      epoch: rec.partition.leader_epoch,
      isr: rec.partition.isr,
      hw,
      leo,
      role,
      pos: Object.fromEntries(rec.consumers.map((c) => [c.id, c.position])),
      flying: rec.in_flight.map((m) => m.id),
      bad: rec.violations.length,
    };
    for (const m of rec.in_flight) {
      // `early`: already on the wire when the window starts, sent at an earlier step.
      if (!this.msgs.has(m.id)) this.msgs.set(m.id, { ...m, sentStep: rec.step, early: !prev && rec.step > 0, endStep: null, delivered: false });
    }
    if (prev) {
      const now = new Set(row.flying);
      for (const id of prev.flying) {
        if (now.has(id)) continue;
        const m = this.msgs.get(id);
        m.endStep = rec.step;
        // Received when this step's event is that message arriving; else it was lost.
        const ev = rec.event;
        m.delivered = !!ev && String(ev.from) === String(m.from) && String(ev.to) === String(m.to) && ev.type !== "timeout";
        if (m.delivered) this.delivered.set(rec.step, m);
      }
    }
    this.rows.push(row);
  }

  /** Makes the window hold steps from..to (as far as the run goes; at most CAP steps). */
  cover(from, to = from) {
    from = Math.max(0, from);
    to = Math.max(from, Math.min(to, from + CAP - 1));
    if (this.done && from > this.last) return this;
    if (from < this.first || to > this.first + CAP - 1 || from > this.last + JUMP) {
      // Past the run's last step there is nothing: the window starts at that step.
      const rec = this.sim.get(from);
      this.restart(rec);
      if (rec.step < from) this.done = true;
    }
    return this.upTo(to);
  }

  /** Reads the run on up to step n; a window that would pass CAP steps moves on instead. */
  upTo(n) {
    if (n <= this.last || this.done) return this;
    const reach = Math.min(n, this.first + CAP - 1);
    if (!this.sim.scan(this.last + 1, reach, (rec) => this.push(rec))) {
      this.done = true;
      return this;
    }
    return this.last < n ? this.cover(n - CAP + 1, n) : this;
  }

  /** Reads on until `pred(rec, prev)` holds for a step after `from`; that step, or -1. */
  find(pred, from = -1, limit = 5000) {
    let prev = from >= 0 ? this.record(from) : null;
    for (let n = from + 1; n <= from + limit; n++) {
      this.upTo(n);
      if (n > this.last) return -1;
      const rec = this.record(n);
      if (pred(rec, prev)) return n;
      prev = rec;
    }
    return -1;
  }

  /** The whole step record n (tours and the "why" view read a few). */
  record(n) {
    return this.sim.get(n);
  }

  /** The last step of the window at or before time t. */
  atTime(t) {
    let lo = 0;
    let hi = this.rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.rows[mid].t <= t) lo = mid;
      else hi = mid - 1;
    }
    return this.first + lo;
  }

  /** Every HW move in steps from..to of the window: {step, t, broker, from, to, leader}. */
  hwChanges(from = this.first + 1, to = this.last) {
    const out = [];
    for (let n = Math.max(this.first + 1, from); n <= Math.min(to, this.last); n++) {
      const a = this.row(n - 1);
      const b = this.row(n);
      b.hw.forEach((v, broker) => {
        if (a.hw[broker] !== undefined && v !== a.hw[broker]) out.push({ step: n, t: b.t, broker, from: a.hw[broker], to: v, leader: b.leader === broker });
      });
    }
    return out;
  }

  /** The message received at step n, if that step is a delivery. */
  receivedAt(n) {
    return this.delivered.get(n) ?? null;
  }
}
