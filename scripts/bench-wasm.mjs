// Time every built-in scenario through the wasm build, as the page runs it:
// new Playground(), configure(scenario), step() until null. Prints events (steps) per second.
//
//   node scripts/bench-wasm.mjs [--json] [--min-ms N] [--max-steps N] [NAME ...]
//
// Each scenario is repeated until at least --min-ms (default 500) of stepping has been
// measured; configure() is timed separately. A run stops after --max-steps steps (default
// 5000; 0 = no limit): every record carries whole logs, so a long scenario's later steps
// cost more and more. Needs www/pkg (npm run build).
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
let maxSteps = 5000;
const only = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--json") continue;
  if (args[i] === "--min-ms") {
    minMs = Number(args[++i]);
    if (!(minMs >= 0)) {
      console.error("bench-wasm: --min-ms needs a number");
      process.exit(2);
    }
  } else if (args[i] === "--max-steps") {
    maxSteps = Number(args[++i]);
    if (!(maxSteps >= 0)) {
      console.error("bench-wasm: --max-steps needs a number");
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
    let capped = false;
    while (p.step() !== null) {
      steps++;
      if (maxSteps && steps >= maxSteps) {
        capped = true;
        break;
      }
    }
    const t2 = performance.now();
    return { configureMs: t1 - t0, stepMs: t2 - t1, steps, capped };
  } finally {
    try {
      p.free?.();
    } catch {
      // poisoned by a panic inside wasm: keep the original error
    }
  }
}

const w = Math.max(8, ...scenarios.map((r) => r.name.length));
if (!json) {
  console.log(
    `${"scenario".padEnd(w)}  ${"steps".padStart(8)}  ${"runs".padStart(5)}  ${"configure ms".padStart(12)}  ` +
      `${"run ms".padStart(9)}  ${"events/s".padStart(11)}`,
  );
}
const results = [];
for (const { name, scenario: s, json: j } of scenarios) {
  const scenario = s ?? j; // `scenario` per the brief; the facade calls it `json`
  runOnce(scenario); // warm-up (JIT, allocator)
  let runs = 0;
  let steps = 0;
  let stepMs = 0;
  let configureMs = 0;
  let capped = false;
  do {
    const r = runOnce(scenario);
    runs++;
    steps += r.steps;
    stepMs += r.stepMs;
    configureMs += r.configureMs;
    capped ||= r.capped;
  } while (stepMs + configureMs < minMs);
  const row = {
    name,
    steps_per_run: steps / runs,
    capped_at_max_steps: capped,
    runs,
    configure_ms: configureMs / runs,
    ms_per_run: stepMs / runs,
    events_per_second: stepMs > 0 ? Math.round((steps / stepMs) * 1000) : null,
  };
  results.push(row);
  if (!json) {
    console.log(
      `${name.padEnd(w)}  ${`${row.steps_per_run}${capped ? "+" : ""}`.padStart(8)}  ${String(runs).padStart(5)}  ` +
        `${row.configure_ms.toFixed(3).padStart(12)}  ${row.ms_per_run.toFixed(2).padStart(9)}  ` +
        `${(row.events_per_second ?? "n/a").toLocaleString("en-US").padStart(11)}`,
    );
  }
}

if (json) {
  console.log(JSON.stringify({ node: process.version, max_steps: maxSteps, results }, null, 2));
} else if (results.some((r) => r.capped_at_max_steps)) {
  console.log(`+ stopped at --max-steps ${maxSteps}`);
}
