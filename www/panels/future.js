// How far the run goes and why (issue 13): the script ends at stop_at_ms; after
// an intervention, or Play at the end, the run goes on while something Kafka's
// timers imply is pending (src/sim/settle.rs), and ends once nothing is. This
// line says which, at the step shown (its full text is its title).

import { fmt } from "../core/dom.js";

/** While playing, the line is rewritten at most this often. */
const EVERY_MS = 300;

export function createFuture(line, sim) {
  let timer = 0;
  let due = null;

  function write(rec) {
    const f = sim.futureAt(rec.step);
    if (!f) return;
    const stop = `${fmt(f.stop_at_ms)} ms`;
    const pending = f.pending.map((p) => p.text);
    const list = pending.length > 3 ? `${pending.slice(0, 3).join("; ")}; and ${pending.length - 3} more` : pending.join("; ");
    const atEnd = sim.done && rec.step === sim.known - 1;
    let text;
    if (!f.settling) {
      if (!atEnd) text = `The script runs to ${stop}.`;
      else if (pending.length) text = `The script ends here (${stop}), with consequences still pending: ${list}. Play continues the run until they have played out.`;
      else text = `The script ends here (${stop}); nothing is pending: the partition has settled.`;
    } else if (f.quiet_since != null && pending.length) {
      // sim/settle.rs QUIET_MS: nothing a user sees has changed for ten minutes of simulated time.
      text = `Nothing has changed since ${fmt(f.quiet_since)} ms: what is still pending repeats without effect (${list}), so the run ${atEnd ? "stops here" : "stops ten minutes of simulated time after that"}.`;
    } else if (pending.length && atEnd) {
      // sim/settle.rs MAX_RUN_ON_MS: a run goes on at most a day of simulated time past its script.
      text = `The run stops here, a day of simulated time past its script (${stop}), with this still pending: ${list}.`;
    } else if (pending.length) {
      text = `${rec.time_ms > f.stop_at_ms ? `Past the script (${stop}), the` : "The"} run goes on while something is pending. Now: ${list}.`;
    } else if (atEnd) {
      text = rec.time_ms > f.stop_at_ms ? `The run went past its script (${stop}) until nothing was pending${f.settled_since != null ? ` (settled at ${fmt(f.settled_since)} ms)` : ""}, and ends here.` : `Nothing is pending here, past the script or before it: the run ends at ${stop}.`;
    } else {
      text = `Nothing is pending at this step${f.settled_since != null && f.ends_at_ms != null ? `: settled at ${fmt(f.settled_since)} ms, the run ends at ${fmt(f.ends_at_ms)} ms` : ""}. After an intervention the run goes on past its script (${stop}) while anything is pending.`;
    }
    if (line.textContent !== text) {
      line.textContent = text;
      line.title = text;
    }
    line.dataset.pending = pending.length;
    line.dataset.settling = f.settling;
  }

  /** A step is shown: say where the run goes from here (throttled while playing). */
  return function show(rec, playing = false) {
    due = rec;
    if (!playing) {
      clearTimeout(timer);
      timer = 0;
      return write(rec);
    }
    timer ||= setTimeout(() => {
      timer = 0;
      write(due);
    }, EVERY_MS);
  };
}
