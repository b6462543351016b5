// The playback clock. Shows one step at a time; while playing, the display
// time runs from this step's time_ms to the next one's, so messages glide.
// An animation frame is requested only while playing and visible; with
// reduced motion, steps change discretely on a timer and nothing tweens.
// An embed may lock it to a range of steps (from..to), played once or looped.

/** Real milliseconds one step takes at speed 1: longer gaps take a little
 *  longer, so a 20 ms link reads slower than a 1 ms one, but idle waits of
 *  hundreds of simulated ms do not stall the show. */
export function stepDuration(rec, next, speed) {
  const gap = Math.max(0, next.time_ms - rec.time_ms);
  const base = 380 + 520 * Math.log10(1 + gap);
  return Math.min(rec.in_flight.length ? 2400 : 1000, base) / speed;
}

export class Player {
  /** `reduced`: discrete steps, no tweening (prefers-reduced-motion or ?motion=reduce). */
  constructor(sim, show, frame, onState, { reduced = false } = {}) {
    this.sim = sim;
    this.show = show;
    this.frame = frame;
    this.onState = onState;
    this.rec = null;
    this.next = null;
    this.playing = false;
    this.speed = 1;
    this.started = 0;
    this.raf = 0;
    this.timer = 0;
    this.from = 0;
    this.to = Infinity;
    this.loop = false;
    this.reduced = reduced;
    /** Set while a step asked for waits for the full core (the page's first core writes
     *  no records past those written at build time: core/sim.js NeedsFull). */
    this.waiting = null;
    /** `() => Promise<boolean>`: brings what a waiting step needs (app.js); true when it
     *  may be asked for again. */
    this.onNeed = null;
    this.tick = this.tick.bind(this);
    document.addEventListener("visibilitychange", () => {
      if (document.hidden) this.halt();
      else if (this.playing) {
        this.started = performance.now();
        this.run();
      }
    });
  }

  get step() {
    return this.rec ? this.rec.step : 0;
  }

  /** Asks onNeed for what a step needs, then `retry()` unless something else was
   *  shown or waited for meanwhile. Nothing runs meanwhile (no frame, no timer). */
  wait(retry) {
    const token = (this.waiting = {});
    Promise.resolve(this.onNeed?.() ?? false).then((ok) => {
      if (this.waiting !== token) return;
      this.waiting = null;
      if (ok) retry();
      else if (this.playing) this.pause();
    });
  }

  /** Shows step n (clamped to the range and the run) with the display time at that step;
   *  a step whose record only the full core writes is shown once it has come. */
  go(n) {
    let rec;
    try {
      rec = this.sim.get(Math.max(this.from, Math.min(this.to, n)));
    } catch (e) {
      if (e.name !== "NeedsFull") throw e;
      this.wait(() => this.go(n));
      return this.rec;
    }
    this.waiting = null;
    this.rec = rec;
    this.next = null;
    this.show(this.rec);
    this.frame(this.rec.time_ms);
    this.started = performance.now();
    return this.rec;
  }

  /** Shows a record that is already known (after an intervention or a load). */
  showRecord(rec) {
    this.rec = rec;
    this.next = null;
    this.show(rec);
    this.frame(rec.time_ms);
    this.started = performance.now();
  }

  upcoming() {
    if (this.rec.step >= this.to) return null;
    if (!this.next || this.next.step !== this.rec.step + 1) {
      let next;
      try {
        next = this.sim.get(this.rec.step + 1);
      } catch (e) {
        if (e.name !== "NeedsFull") throw e;
        // Playing on waits (the clock holds) until the full core has the next step.
        this.wait(() => {
          if (this.playing) {
            this.started = performance.now();
            this.run();
          }
        });
        return null;
      }
      this.next = next.step === this.rec.step + 1 ? next : null;
    }
    return this.next;
  }

  play() {
    if (this.playing) return;
    // Play at the end of the script: the run goes on while its consequences play out
    // (an embed locked to a range starts its range over instead).
    let next = this.upcoming();
    if (!next && !this.waiting && this.to === Infinity && this.sim.done && !this.sim.settling && this.sim.settle()) next = this.upcoming();
    if (!next && !this.waiting) this.go(this.from);
    this.playing = true;
    this.started = performance.now();
    this.onState(true);
    this.run();
  }

  /** Stops where it is: messages stay frozen mid-flight until the next step. */
  pause() {
    if (!this.playing) return;
    this.playing = false;
    this.halt();
    this.onState(false);
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  halt() {
    cancelAnimationFrame(this.raf);
    clearTimeout(this.timer);
    this.raf = 0;
    this.timer = 0;
  }

  /** The last step of the run or range is shown: stop, or start over after a pause. */
  ended() {
    if (this.loop && this.rec.step > this.from) {
      this.timer = setTimeout(() => {
        this.go(this.from);
        this.run();
      }, 1200);
    } else {
      this.playing = false;
      this.onState(false);
    }
  }

  run() {
    this.halt();
    if (this.reduced) {
      const next = this.upcoming();
      if (!next) return this.waiting ? undefined : this.ended();
      this.timer = setTimeout(() => {
        this.go(next.step);
        this.run();
      }, stepDuration(this.rec, next, this.speed));
    } else {
      this.raf = requestAnimationFrame(this.tick);
    }
  }

  /** One animation frame: advance past every step whose time is up, draw the
   *  last one, place the messages. */
  tick(now) {
    this.raf = 0;
    if (!this.playing) return;
    let next = this.upcoming();
    let dur = next && stepDuration(this.rec, next, this.speed);
    let moved = null;
    // Never spend more than ~8 ms of a frame catching up: at high speed the
    // clock slips instead of the frame rate.
    const budget = performance.now() + 8;
    while (next && now - this.started >= dur && performance.now() < budget) {
      this.started += dur;
      this.rec = next;
      this.next = null;
      moved = next;
      next = this.upcoming();
      dur = next && stepDuration(this.rec, next, this.speed);
    }
    if (moved) this.show(moved);
    if (!next) {
      this.frame(this.rec.time_ms);
      return this.waiting ? undefined : this.ended();
    }
    if (now - this.started > dur) this.started = now;
    const f = Math.min(1, (now - this.started) / dur);
    this.frame(this.rec.time_ms + f * (next.time_ms - this.rec.time_ms));
    this.raf = requestAnimationFrame(this.tick);
  }
}
