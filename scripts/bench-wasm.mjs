// Time every built-in scenario through the wasm build, as the page runs it:
// new Playground(), configure(scenario), step() until null. Prints events (steps) per second.
//
//   node scripts/bench-wasm.mjs [--json] [--min-ms N] [NAME ...]
//
// Each scenario is repeated until at least --min-ms (default 500) of stepping has been
// measured; configure() is timed separately. Needs www/pkg (npm run build).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PKG_JS = join(ROOT, "www/pkg/hwscope.js");
const PKG_WASM = join(ROOT, "www/pkg/hwscope_bg.wasm");

const args = process.argv.slice(2);
const json = args.includes("--json");
let minMs = 500;
const only = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--json") continue;
  if (args[i] === "--min-ms") {
    minMs = Number(args[++i]);
    if (!(minMs >= 0)) {
      console.error("bench-wasm: --min-ms needs a number");
      process.exit(2);
    }
  } else if (args[i].startsWith("-")) {
    console.error(`bench-wasm: unknown option ${args[i]}`);
    process.exit(2);
  } else {
    only.push(args[i]);
  }
}

if (!existsSync(PKG_JS) || !existsSync(PKG_WASM)) {
  console.error("bench-wasm: www/pkg is missing: run `npm run build` first");
  process.exit(1);
}
const wasm = await import(pathToFileURL(PKG_JS).href);
wasm.initSync({ module: readFileSync(PKG_WASM) });
const { Playground, builtinScenarios } = wasm;

let scenarios = builtinScenarios();
if (only.length) {
  const unknown = only.filter((n) => !scenarios.some((s) => s.name === n));
  if (unknown.length) {
    console.error(`bench-wasm: no built-in scenario named ${unknown.join(", ")}`);
    process.exit(2);
  }
  scenarios = scenarios.filter((s) => only.includes(s.name));
}

function runOnce(scenario) {
  const p = new Playground();
  try {
    const t0 = performance.now();
    p.configure(scenario);
    const t1 = performance.now();
    let steps = 0;
    while (p.step() !== null) steps++;
    const t2 = performance.now();
    return { configureMs: t1 - t0, stepMs: t2 - t1, steps };
  } finally {
    try {
      p.free?.();
    } catch {
      // poisoned by a panic inside wasm: keep the original error
    }
  }
}

const results = [];
for (const { name, scenario: s, json: j } of scenarios) {
  const scenario = s ?? j; // `scenario` is the API; `json` tolerated
  runOnce(scenario); // warm-up (JIT, allocator)
  let runs = 0;
  let steps = 0;
  let stepMs = 0;
  let configureMs = 0;
  do {
    const r = runOnce(scenario);
    runs++;
    steps += r.steps;
    stepMs += r.stepMs;
    configureMs += r.configureMs;
  } while (stepMs + configureMs < minMs);
  results.push({
    name,
    steps_per_run: steps / runs,
    runs,
    configure_ms: configureMs / runs,
    ms_per_run: stepMs / runs,
    events_per_second: stepMs > 0 ? Math.round((steps / stepMs) * 1000) : null,
  });
}

if (json) {
  console.log(JSON.stringify({ node: process.version, results }, null, 2));
} else {
  const w = Math.max(8, ...results.map((r) => r.name.length));
  console.log(`${"scenario".padEnd(w)}  ${"steps".padStart(8)}  ${"runs".padStart(5)}  ${"configure ms".padStart(12)}  ${"run ms".padStart(9)}  ${"events/s".padStart(11)}`);
  for (const r of results) {
    console.log(
      `${r.name.padEnd(w)}  ${String(r.steps_per_run).padStart(8)}  ${String(r.runs).padStart(5)}  ` +
        `${r.configure_ms.toFixed(3).padStart(12)}  ${r.ms_per_run.toFixed(2).padStart(9)}  ` +
        `${(r.events_per_second ?? "n/a").toLocaleString("en-US").padStart(11)}`,
    );
  }
}
