// Seek budget: in the wasm build, seek to random steps of a 100,000+ step run
// (steady-load, lighter records as the page uses) and print the times.
//   node scripts/bench-seek.mjs [--count N]
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const count = Number(args[args.indexOf("--count") + 1]) || 300;
const wasm = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
wasm.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });
const b = wasm.builtinScenarios().find((s) => s.name === "steady-load");
const p = new wasm.Playground();
p.setLogTail(64);
p.configure(b.json);
let t0 = performance.now();
let ext;
do ext = p.extend(20000); while (!ext.done);
console.log(`steady-load: ${ext.steps} steps computed in ${(performance.now() - t0).toFixed(0)} ms`);
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const times = [];
for (let i = 0; i < count; i++) {
  const target = Math.floor(rand() * ext.steps);
  t0 = performance.now();
  const r = p.seek(target);
  times.push(performance.now() - t0);
  if (r.step !== target) throw new Error(`seek(${target}) gave step ${r.step}`);
}
times.sort((a, b) => a - b);
const q = (f) => times[Math.min(times.length - 1, Math.floor(f * times.length))].toFixed(2);
console.log(`seek to ${count} random steps (forward and back): median ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${q(1)} ms (budget 16 ms)`);
