// The wasm Playground behind the page's one cache of step records: records by
// step, narration by step, the run's length as far as it is known, and a
// revision that counts the runs (each load and each intervention starts one),
// so that whatever was read from an older run knows it is stale.
//
// Nothing else holds the Playground: views that read many steps use scan(),
// which reads lighter records and leaves the cache alone.

import { roomOf } from "./room.js";

const KEEP = 600;
const TEXTS = 20000;
/** Log entries and read ids per record the page needs at most (it draws a
 *  window of 16 offsets); a core that can send lighter records is asked to. */
const TAIL = 64;
/** Log entries per record for scan(): views read HWs, LEOs and messages, not logs. */
const SCAN_TAIL = 8;
/** swap() computes the full core this far past the cursor at most (~50 ms). */
const SWAP_AHEAD = 60000;
/** computeUntil() calls into the core for about this long at a time. */
const CHUNK_MS = 3;

/** Thrown when the core itself failed (a Rust panic): the page must stop using it. */
export class CoreFailure extends Error {
  name = "CoreFailure";
}

/** Thrown by get(), scan() and load() when the core running the page writes no records
 *  (the page's first core: docs/performance.md, tenth pass) and the record asked for was
 *  not written at build time (lend()): only the full core has it. Nothing has changed. */
export class NeedsFull extends Error {
  name = "NeedsFull";
}

export class Sim {
  #p;
  #listeners = new Set();
  #settings = null;
  /** Steps computed per millisecond, as measured (a first guess until then). */
  #rate = 50;
  #settling = false;
  /** The scenario text of the run (swap() runs it again in the full core). */
  #json = null;
  /** Records known without the core, written at build time by the full core (the steps
   *  main.js drew, the built-in's steps file): scenario text -> {records: step -> record,
   *  end: the run's last step when it ends among them, else null}. A core that writes
   *  records takes only their sentences; the page's first core, which writes none, shows
   *  these (and waits for the full core for any other: NeedsFull). */
  #lent = new Map();

  /** `tail`: log entries per cached record (the stage draws 16 offsets); `writes`: false
   *  for a core that writes no step records (the page's first core). */
  constructor(Playground, { tail = TAIL, writes = true } = {}) {
    this.#p = new Playground();
    /** Whether the core narrates (the full core), or is the page's first core, which
     *  says nothing and has no share links, until swap() gives it the full one. */
    this.full = typeof Playground.prototype.link === "function";
    /** Whether the core writes step records: the full core and the docs figures' first
     *  core do; the page's first core does not (its configure() returns null). */
    this.writes = this.full || writes;
    this.tail = tail;
    this.records = new Map();
    this.texts = new Map();
    this.known = 1;
    this.done = false;
    this.scenario = null;
    /** Counts the runs: +1 on every load and every intervention. */
    this.revision = 0;
    /** The steps that are interventions (the user's, or a link's), in order. */
    this.interventions = [];
  }

  /** Calls `fn()` whenever the run changes or grows (revision, known, done). */
  listen(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  changed() {
    for (const fn of this.#listeners) fn(this);
  }

  /** Releases the core's memory; the Sim cannot be used afterwards. */
  free() {
    this.#p?.free();
    this.#p = null;
  }

  /** A wasm trap (panic, unreachable) poisons the instance; say so plainly. */
  call(fn) {
    try {
      return fn();
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError || /unreachable|panicked/i.test(e?.message)) {
        throw new CoreFailure(`The simulation core stopped (${e.message}). Reload the page to start again.`);
      }
      throw e;
    }
  }

  /** Configures a scenario (JSON text); throws the core's "field: message" error, or
   *  NeedsFull (before anything changed) for a core that writes no records and a scenario
   *  whose step 0 was not lent. */
  load(json) {
    if (!this.canLoad(json)) throw new NeedsFull("this scenario's records are the full core's to write");
    let first = this.call(() => this.#p.configure(json));
    if (first == null) {
      this.writes = false;
      first = this.#lent.get(json)?.records.get(0);
      if (!first) throw new NeedsFull("this scenario's records are the full core's to write");
    } else this.writes = true;
    this.#json = json;
    // The tail belongs to the run configure() just made.
    this.#p.setLogTail?.(this.tail);
    this.scenario = JSON.parse(json);
    this.#settling = this.scenario.after_stop === "settle";
    // A link carries its interventions as events pinned to a step (`at_step`).
    this.interventions = (this.scenario.events ?? []).filter((e) => e.at_step != null).map((e) => e.at_step).sort((a, b) => a - b);
    this.#settings = null;
    this.records.clear();
    this.texts.clear();
    this.known = 1;
    this.done = false;
    this.revision++;
    this.keep(first);
    this.changed();
    return first;
  }

  /** The scenario in force with every default filled in (without interventions). */
  get settings() {
    this.#settings ??= JSON.parse(this.call(() => this.#p.scenario()));
    return this.#settings;
  }

  get initialEnd() {
    return this.scenario?.initial?.log_end_offset ?? 0;
  }

  /** What the stage makes room for from the run's first step (core/room.js). */
  get room() {
    return roomOf(this.scenario ?? {});
  }

  /** Notes that step n exists (and, with `last`, that the run ends there). */
  learn(n, last = false) {
    const before = this.known;
    const wasDone = this.done;
    if (last) {
      this.known = n + 1;
      this.done = true;
    } else if (n + 1 > this.known) {
      this.known = n + 1;
    }
    if (this.known !== before || this.done !== wasDone) this.changed();
  }

  /** Records of scenario `json` written at build time (the steps main.js drew, the
   *  built-in's steps file; `end`: whether the run ends at the last of them), for a first
   *  core: what it shows of that scenario's runs (the page's first core writes no
   *  records), or their sentences (a first core that writes records but says nothing). */
  lend(json, records, end = false) {
    if (this.full || !json || !records?.length) return;
    const lent = this.#lent.get(json) ?? { records: new Map(), end: null };
    for (const r of records) lent.records.set(r.step, r);
    if (end) lent.end = records.at(-1).step;
    this.#lent.set(json, lent);
  }

  /** Whether load(json) can show the run's step 0 now (else it throws NeedsFull). */
  canLoad(json) {
    return this.writes || (this.#lent.get(json)?.records.has(0) ?? false);
  }

  /** Record n of the run from what was lent (the page's first core), or NeedsFull. */
  #lentRecord(n) {
    const lent = this.#lent.get(this.#json);
    let rec = lent?.records.get(n);
    if (!rec && lent) {
      // Past the run's end the last step, as the core gives it.
      const last = lent.end ?? (this.done ? this.known - 1 : null);
      if (last != null && n > last) rec = lent.records.get(last);
    }
    if (!rec) throw new NeedsFull(`step ${n}'s record is the full core's to write`);
    if (rec.step < n) this.learn(rec.step, true);
    return rec;
  }

  /** The full core takes over the run (www/pkg/hwscope.js's Playground): the same
   *  scenario, computed as far as this one was, the cursor where it was. A run is a
   *  function of its scenario (the first core takes no interventions), so every step is
   *  the one already shown, now with its sentence and broker log. */
  swap(Playground) {
    const p = new Playground();
    // A trap here is the core's failure as anywhere else (CoreFailure: the page stops).
    if (this.#json != null) {
      this.call(() => {
        const at = this.#p.current();
        p.configure(this.#json);
        p.setLogTail?.(this.tail);
        if (this.#settling) p.settle();
        // As far as this core had computed, but at most SWAP_AHEAD steps past the cursor
        // (a run computed to millions of steps by End would hold the page for seconds):
        // past that, the look-ahead computes on in idle time, as after any load.
        const want = Math.min(this.known - 1, at + SWAP_AHEAD);
        const reached = want > 0 ? p.extend(want) : null;
        if (reached && want < this.known - 1) {
          this.known = reached.steps;
          this.done = reached.done;
        }
        p.seek(at);
      });
    }
    this.#p.free();
    this.#p = p;
    this.full = true;
    this.writes = true;
    this.#lent.clear();
    this.records.clear();
    this.texts.clear();
    this.changed();
  }

  keep(rec) {
    if (!rec.text && this.#lent.size) {
      const t = this.#lent.get(this.#json)?.records.get(rec.step);
      if (t?.time_ms === rec.time_ms) rec.text = t.text;
    }
    if (this.records.size >= KEEP) this.records.delete(this.records.keys().next().value);
    this.records.set(rec.step, rec);
    this.text(rec);
    this.learn(rec.step);
    return rec;
  }

  text(rec) {
    if (this.texts.size >= TEXTS) this.texts.delete(this.texts.keys().next().value);
    this.texts.set(rec.step, { time: rec.time_ms, text: rec.text });
  }

  /** Record n, or the last one when the run ends before n. */
  get(n) {
    const cached = this.records.get(n);
    if (cached) return cached;
    if (this.writes === false) return this.keep(this.#lentRecord(n));
    let ended = false;
    const rec = this.call(() => {
      if (this.#p.current() === n - 1) {
        const next = this.#p.step();
        if (next) return next;
        ended = true;
        return this.#p.snapshot();
      }
      return this.#p.seek(n);
    });
    if (ended || rec.step < n) this.learn(rec.step, true);
    return this.keep(rec);
  }

  /** Reads steps from..to in order as lighter records (not cached), calling
   *  visit(rec) for each; returns false when the run ended before `to`. */
  scan(from, to, visit) {
    if (this.writes === false) {
      const recs = [];
      for (let n = from; n <= to; n++) {
        const rec = this.#lentRecord(n);
        if (rec.step < n) break;
        recs.push(rec);
      }
      for (const rec of recs) visit(rec);
      return recs.length === to - from + 1;
    }
    return this.call(() => {
      const p = this.#p;
      p.setLogTail?.(SCAN_TAIL);
      try {
        let rec = p.current() === from - 1 ? p.step() : p.seek(from);
        if (!rec || rec.step < from) {
          this.learn(rec ? rec.step : from - 1, true);
          return false;
        }
        for (;;) {
          this.text(rec);
          visit(rec);
          if (rec.step >= to) break;
          const next = p.step();
          if (!next) {
            this.learn(rec.step, true);
            return false;
          }
          rec = next;
        }
        this.learn(rec.step);
        return true;
      } finally {
        p.setLogTail?.(this.tail);
      }
    });
  }

  /** Narration for steps from..to, walking forward once for the ones not seen. */
  narration(from, to) {
    const out = [];
    for (let n = from; n <= to; n++) {
      let t = this.texts.get(n);
      if (!t) {
        const rec = this.get(n);
        if (rec.step !== n) break;
        t = this.texts.get(n);
      }
      out.push({ step: n, ...t });
    }
    return out;
  }

  /** An intervention at step n: the future after n is discarded. */
  apply(n, event) {
    const rec = this.call(() => {
      if (this.#p.current() !== n) this.#p.seek(n);
      return this.#p.apply(event);
    });
    for (const k of [...this.records.keys()]) if (k > n) this.records.delete(k);
    for (const k of [...this.texts.keys()]) if (k > n) this.texts.delete(k);
    this.known = rec.step + 1;
    this.done = false;
    this.interventions = [...this.interventions.filter((k) => k <= n), rec.step];
    // An intervention lets the run go on past its script (src/run.rs).
    this.#settling = true;
    this.revision++;
    this.keep(rec);
    this.changed();
    return rec;
  }

  /** Whether the run goes on past its script until it settles (after an intervention, or `settle()`). */
  get settling() {
    return this.#settling;
  }

  /** Lets the run go on past its script until its consequences settle (Play at the
   *  end): what is computed stays; the run is open again. */
  settle() {
    if (this.#settling || !this.#p.settle) return false;
    this.call(() => this.#p.settle());
    this.#settling = true;
    this.done = false;
    this.changed();
    return true;
  }

  /** How far the run goes and why, at step n: {stop_at_ms, settling, pending: [{text, at_ms}], settled_since, ends_at_ms}. */
  futureAt(n) {
    return this.at(n, (p) => p.future?.() ?? null);
  }

  /** Moves the core's cursor to step n (the display keeps its cache). */
  at(n, fn) {
    return this.call(() => {
      if (this.#p.current() !== n) this.#p.seek(n);
      return fn(this.#p);
    });
  }

  /** The kinds of key moment (src/marks.rs bits) in each of `buckets` spans of steps from..to. */
  markBuckets(from, to, buckets) {
    return this.call(() => this.#p.markBuckets?.(from, to, buckets) ?? new Uint8Array(buckets));
  }

  /** Each property's verdict along the run as far as it is computed (src/verdict.rs), or null from an older core. */
  verdicts() {
    return this.call(() => this.#p.verdicts?.() ?? null);
  }

  /** The next step after `step` (forward) or the last before it marked with a kind in `mask`; -1 if none computed. */
  nextMark(step, mask, forward) {
    return this.call(() => this.#p.nextMark?.(step, mask, forward) ?? -1);
  }

  /** The share-link fragment for step n of this run, interventions included. */
  linkAt(n) {
    if (!this.full) return null;
    return this.at(n, (p) => p.link());
  }

  /** The state hash of step n: what a link made at n carries. */
  hashAt(n) {
    if (!this.full) return null;
    return this.at(n, (p) => p.stateHash());
  }

  /** Computes ahead, without moving the cursor, until step n is known or the
   *  run ends (true), or until `ms` have passed (false). Works in chunks of a
   *  few milliseconds, sized from the speed measured so far. */
  computeUntil(n, ms) {
    const end = performance.now() + ms;
    while (this.known <= n && !this.done) {
      const left = end - performance.now();
      if (left <= 0) return false;
      // At least 16 steps a call (the call itself costs), never past step n: the
      // look-ahead ends where it says (50,000 steps, not 50,015).
      const budget = Math.min(n + 1 - this.known, Math.max(16, Math.floor(this.#rate * Math.min(left, CHUNK_MS))));
      const t0 = performance.now();
      this.extend(budget);
      const took = performance.now() - t0;
      if (took > 0.25) this.#rate = Math.max(1, 0.5 * this.#rate + (0.5 * budget) / took);
    }
    return true;
  }

  /** Computes up to `budget` steps ahead without moving the cursor; true when the run is over. */
  extend(budget) {
    if (this.done) return true;
    const { steps, done } = this.call(() => this.#p.extend(budget));
    const before = this.known;
    this.known = Math.max(this.known, steps);
    this.done = done;
    if (this.known !== before || done) this.changed();
    return done;
  }
}
