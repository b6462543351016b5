// Runs one search in a fresh Web Worker (www/explore/worker.js) and reports
// what it posts. `stop()` terminates the worker at once: whatever the search
// was doing, the page gets its thread and its memory back.

const spawn = () => new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
/** A worker already loading the explorer's wasm, for the next search. */
let spare = null;

/** Starts loading the explorer (its worker and ~270 KB of gzipped wasm) before the first
 *  search is asked for: the panel and the tour's beat call it when they are shown, so on a
 *  slow link the first Run does not wait for the download. */
export function warm() {
  if (spare) return;
  spare = spawn();
  spare.postMessage({ type: "warm" });
}

/** Starts a search: `on(message)` gets every message (bounds, progress, done,
 *  stopped, error); returns {stop}. Until "bounds", the explorer is loading. */
export function search(scenario, options, on, { memoryBytes = 1024 * 2 ** 20, mode = "search" } = {}) {
  const worker = spare ?? spawn();
  spare = null;
  let over = false;
  const end = () => {
    over = true;
    worker.terminate();
  };
  worker.onmessage = (e) => {
    if (over) return;
    const m = e.data;
    if (m.type === "done" || m.type === "stopped" || m.type === "error") end();
    on(m);
  };
  worker.onerror = (e) => {
    if (over) return;
    end();
    on({ type: "error", message: e.message || "the explorer's worker failed to start" });
  };
  worker.postMessage({ type: "start", scenario, options, memoryBytes, mode });
  return {
    stop() {
      if (over) return false;
      end();
      return true;
    },
  };
}

const fmt = (n) => Math.round(n).toLocaleString("en");

/** One line of progress: level, states, rate, memory (walks and steps for a simulation). */
export function progressLine(p, ms, wasmBytes, maxDepth) {
  if (p.walks !== undefined) {
    const per = ms > 0 ? 1000 / ms : 0;
    return `${fmt(p.walks)} walks · ${fmt(p.steps)} steps · deepest ${fmt(p.deepest)} · ${fmt(p.walks * per)} walks/s · ${fmt(p.steps * per)} steps/s`;
  }
  const rate = ms > 0 ? (p.distinct * 1000) / ms : 0;
  return `level ${p.depth + 1} of ${maxDepth} · ${fmt(p.distinct)} distinct states · ${fmt(p.queued)} queued · ${fmt(rate)} states/s · ${fmt(wasmBytes / 2 ** 20)} MiB`;
}
