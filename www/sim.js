// The wasm Playground behind a small cache: records by step, the run's length
// as far as it is known, and lazy extension in short slices so the scrubber
// learns how long the run is without blocking a frame.

const KEEP = 600;
const TEXTS = 20000;
/** Log entries and read ids per record the page needs at most (it draws a
 *  window of 16 offsets); a core that can send lighter records is asked to. */
const TAIL = 64;

/** Thrown when the core itself failed (a Rust panic): the page must stop using it. */
export class CoreFailure extends Error {
  name = "CoreFailure";
}

export class Sim {
  constructor(Playground) {
    this.p = new Playground();
    this.records = new Map();
    this.texts = new Map();
    this.known = 1;
    this.done = false;
    this.scenario = null;
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

  /** Configures a scenario (JSON text); throws the core's "field: message" error. */
  load(json) {
    const first = this.call(() => this.p.configure(json));
    // The tail belongs to the run configure() just made.
    this.p.setLogTail?.(TAIL);
    this.scenario = JSON.parse(json);
    this.records.clear();
    this.texts.clear();
    this.known = 1;
    this.done = false;
    this.keep(first);
    return first;
  }

  get initialEnd() {
    return this.scenario?.initial?.log_end_offset ?? 0;
  }

  keep(rec) {
    if (this.records.size >= KEEP) this.records.delete(this.records.keys().next().value);
    this.records.set(rec.step, rec);
    if (this.texts.size >= TEXTS) this.texts.delete(this.texts.keys().next().value);
    this.texts.set(rec.step, { time: rec.time_ms, text: rec.text });
    if (rec.step + 1 > this.known) this.known = rec.step + 1;
    return rec;
  }

  /** Record n, or the last one when the run ends before n. */
  get(n) {
    const cached = this.records.get(n);
    if (cached) return cached;
    const rec = this.call(() => {
      if (this.p.current() === n - 1) {
        const next = this.p.step();
        if (next) return next;
        this.done = true;
        return this.p.snapshot();
      }
      return this.p.seek(n);
    });
    if (rec.step < n) {
      this.done = true;
      this.known = rec.step + 1;
    }
    return this.keep(rec);
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
      if (this.p.current() !== n) this.p.seek(n);
      return this.p.apply(event);
    });
    for (const k of [...this.records.keys()]) if (k > n) this.records.delete(k);
    for (const k of [...this.texts.keys()]) if (k > n) this.texts.delete(k);
    this.known = rec.step + 1;
    this.done = false;
    return this.keep(rec);
  }

  /** Moves the core's cursor to step n (the display keeps its cache). */
  at(n, fn) {
    return this.call(() => {
      if (this.p.current() !== n) this.p.seek(n);
      return fn();
    });
  }

  /** The share-link fragment for step n of this run, interventions included. */
  linkAt(n) {
    return this.at(n, () => this.p.link());
  }

  /** The state hash of step n: what a link made at n carries. */
  hashAt(n) {
    return this.at(n, () => this.p.stateHash());
  }

  /** Learns the run up to step n, for at most `ms`; false if time ran out first. */
  reach(n, ms) {
    const end = performance.now() + ms;
    while (this.known <= n && !this.done) {
      if (performance.now() > end) return false;
      this.extend(500);
    }
    return true;
  }

  /** Computes up to `budget` steps ahead without moving the cursor. */
  extend(budget) {
    if (this.done) return true;
    const { steps, done } = this.call(() => this.p.extend(budget));
    this.known = Math.max(this.known, steps);
    this.done = done;
    return done;
  }
}
