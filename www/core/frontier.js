// How far the run is computed, and the only code that computes ahead of what
// is shown (issue 17: paused means idle, whatever the run).
//
// - Look-ahead: LOOKAHEAD steps beyond the step shown are computed in idle
//   time, then nothing runs. It follows the cursor: play, a step or a scrub
//   move it on. End shows the furthest step computed and holds there (until
//   the cursor moves back or plays): End again computes further (more()). A
//   hidden page computes nothing.
// - On demand: reach(n) (a far link, an embed's seek) and more() (End at the
//   furthest step computed) compute in slices of at most SLICE_MS, each its own
//   task, so input and frames go on between them; each has a deadline and
//   stop() ends it. Progress goes to `onProgress`.

/** Steps computed beyond the step shown while nobody asks for more: every
 *  built-in but steady-load fits (steady-load's 170,024 steps take three
 *  screens of End), and computing it takes a fraction of a second. */
export const LOOKAHEAD = 50_000;
/** The longest a slice of on-demand computing runs before input and frames get their turn. */
export const SLICE_MS = 8;
/** How long one End at the furthest step computes further (holding End keeps it going). */
export const MORE_MS = 1000;

export class Frontier {
  #sim;
  #onProgress;
  #want = 0;
  #held = false;
  #idle = 0;
  #job = null;
  #timer = 0;

  /** `onProgress(job)` after every slice of on-demand work ({kind, target,
   *  label}); `onProgress(null)` when it ends. */
  constructor(sim, onProgress = () => {}) {
    this.#sim = sim;
    this.#onProgress = onProgress;
    document.addEventListener("visibilitychange", () => this.#schedule());
  }

  /** The on-demand job running ({kind: "reach"|"more", …}), or null. */
  get job() {
    return this.#job;
  }

  /** The step shown is `step` (and the view ends at `limit`): keep
   *  LOOKAHEAD steps computed beyond it. */
  follow(step, limit = Infinity) {
    if (this.#held && step >= this.#sim.known - 1) return;
    this.#held = false;
    this.#want = Math.min(limit, step + LOOKAHEAD);
    this.#schedule();
  }

  /** Playing asks for steps: the look-ahead follows again, even after End. */
  playing(step, limit = Infinity) {
    this.#held = false;
    this.follow(step, limit);
  }

  /** End is showing the furthest step computed: compute nothing beyond it
   *  until asked (more(), End again) or until the step shown moves back. */
  hold() {
    this.#held = true;
    this.#want = 0;
    cancelIdleCallback(this.#idle);
    this.#idle = 0;
  }

  #schedule() {
    const sim = this.#sim;
    if (this.#idle || this.#job || document.hidden || sim.done || sim.known > this.#want) return;
    this.#idle = requestIdleCallback((deadline) => {
      this.#idle = 0;
      if (this.#job || document.hidden) return;
      sim.computeUntil(this.#want, Math.min(SLICE_MS, Math.max(1, deadline.timeRemaining() - 1)));
      this.#schedule();
    }, { timeout: 1000 });
  }

  /** A new run (a load, an intervention): the job and the hold belonged to the old one. */
  reset() {
    this.stop();
    this.#held = false;
    this.#want = 0;
  }

  /** Computes until step n is known, in slices, for at most `ms`. Resolves
   *  "reached" (step n, or the run's end, is known), "timeout", "stopped"
   *  (stop()) or "superseded" (another job took over). */
  reach(n, ms, label) {
    if (this.#sim.known > n || this.#sim.done) return Promise.resolve("reached");
    return this.#start({ kind: "reach", target: n, deadline: performance.now() + ms, label });
  }

  /** Computes on, in slices, until `test()` holds or the run ends ("reached"),
   *  for at most `ms` ("timeout"; "stopped" by stop()). */
  find(test, ms, label) {
    if (test() || this.#sim.done) return Promise.resolve("reached");
    return this.#start({ kind: "reach", target: Infinity, until: test, deadline: performance.now() + ms, label });
  }

  /** Computes further, past what is known, for `ms` more (again while asked);
   *  resolves when it ends ("reached" means the run's end). */
  more(ms = MORE_MS) {
    const job = this.#job;
    if (job?.kind === "more") {
      job.deadline = Math.max(job.deadline, performance.now() + ms);
      return job.done;
    }
    if (this.#sim.done) return Promise.resolve("reached");
    return this.#start({ kind: "more", target: Infinity, deadline: performance.now() + ms, label: "Computing further" });
  }

  /** Ends the job now (what it computed is kept). */
  stop() {
    if (this.#job) this.#end(this.#job, "stopped");
  }

  #start(job) {
    if (this.#job) this.#end(this.#job, "superseded");
    cancelIdleCallback(this.#idle);
    this.#idle = 0;
    job.done = new Promise((resolve) => (job.resolve = resolve));
    this.#job = job;
    this.#onProgress(job);
    this.#timer = setTimeout(this.#slice, 0);
    return job.done;
  }

  #slice = () => {
    this.#timer = 0;
    const job = this.#job;
    if (!job) return;
    const left = job.deadline - performance.now();
    let reached = this.#sim.computeUntil(job.target, Math.min(SLICE_MS, Math.max(0, left)));
    if (job.until) reached = this.#sim.done || job.until();
    if (reached || performance.now() >= job.deadline) return this.#end(job, reached ? "reached" : "timeout");
    this.#onProgress(job);
    this.#timer = setTimeout(this.#slice, 0);
  };

  #end(job, outcome) {
    if (this.#job !== job) return;
    clearTimeout(this.#timer);
    this.#timer = 0;
    this.#job = null;
    this.#onProgress(null);
    // What waits for the job (showing the step it reached) runs as a task of its
    // own, not at the end of the last slice: neither holds up a frame.
    setTimeout(() => job.resolve(outcome), 0);
    this.#schedule();
  }
}
