// The explorer's Web Worker: loads the explorer's own wasm package
// (www/pkg-explore/, built with the `explore` feature; the page never loads
// it) and runs the search in slices of about 50 ms, posting progress after
// each. The page never waits for it; Stop terminates the worker.
//
// in:  {type:"warm"}: load the wasm now, for a start to come (the panel warms one worker
//      when it opens: the first Run does not wait for the explorer's download)
//      {type:"start", scenario: JSON text, options: {...}, memoryBytes, mode: "search"|"simulate"}
//      (simulate: seeded random walks, check/simulate.rs; progress counts walks and steps)
// out: {type:"bounds", bounds} · {type:"progress", progress, ms, wasmBytes}
//      {type:"done", result, ms, wasmBytes} · {type:"stopped", reason, progress, ms, wasmBytes}
//      {type:"error", message}

import init, { Explorer, Simulator } from "../pkg-explore/hwscope.js";

const SLICE_MS = 50;

/** The wasm, loading or loaded (a failed load is tried again at the next message). */
let ready = null;
const load = () => (ready ??= init().catch((err) => {
  ready = null;
  throw err;
}));

onmessage = async (e) => {
  const msg = e.data;
  if (msg?.type === "warm") {
    load().catch(() => {
      /* said at the start that follows */
    });
    return;
  }
  if (msg?.type !== "start") return;
  let wasm;
  let explorer;
  try {
    wasm = await load();
    explorer = msg.mode === "simulate" ? new Simulator(msg.scenario, msg.options ?? {}) : new Explorer(msg.scenario, msg.options ?? {});
  } catch (err) {
    postMessage({ type: "error", message: err?.message ?? String(err) });
    return;
  }
  postMessage({ type: "bounds", bounds: explorer.bounds() });
  const t0 = performance.now();
  let budget = 500;
  let progress;
  for (;;) {
    const s0 = performance.now();
    progress = explorer.run(budget);
    const dt = performance.now() - s0;
    budget = Math.max(50, Math.min(2_000_000, Math.round((budget * SLICE_MS) / Math.max(1, dt))));
    const wasmBytes = wasm.memory.buffer.byteLength;
    if (progress.done) break;
    postMessage({ type: "progress", progress, ms: performance.now() - t0, wasmBytes });
    // The true footprint (the wasm memory never shrinks): stop before the tab is in trouble.
    if (wasmBytes > msg.memoryBytes) {
      postMessage({ type: "stopped", reason: "memory", progress, ms: performance.now() - t0, wasmBytes });
      return;
    }
  }
  const result = explorer.result();
  postMessage({ type: "done", result, progress, ms: performance.now() - t0, wasmBytes: wasm.memory.buffer.byteLength });
  explorer.free();
};
