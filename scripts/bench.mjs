// The benchmark the README names: simulated events per second for every built-in
// scenario, natively and in WebAssembly (under Node), measured in one run, with the
// ratio; then peak memory of the native run. Narration and step records are off in
// both, so this is the engine's own speed.
//
// Native and wasm take turns for --rounds rounds (default 3) of --seconds each
// (default 2, spread over the built-ins), and each scenario's best round counts
// on each side: on a shared machine a neighbour's burst slows one round, not the
// figure.
//
//   node scripts/bench.mjs [--seconds S] [--rounds N]   (needs `npm run build` and a release build)
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) || fallback : fallback);
const seconds = option("--seconds", 2);
const rounds = Math.max(1, Math.round(option("--rounds", 3)));

const nativeRound = () => JSON.parse(execFileSync(join(ROOT, "target/release/hwscope"), ["bench", "--json", "--seconds", String(seconds)], { encoding: "utf8" }));
const wasm = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
wasm.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });
const builtins = wasm.builtinScenarios();
const perScenarioMs = (seconds * 1000) / builtins.length;

const rows = builtins.map((b) => ({ name: b.name, native: 0, wasm: 0 }));
let native;
for (let round = 0; round < rounds; round++) {
  native = nativeRound();
  builtins.forEach((b, i) => {
    wasm.benchEvents(b.json, 20); // warm-up
    const t0 = performance.now();
    const events = wasm.benchEvents(b.json, perScenarioMs);
    const ms = performance.now() - t0;
    const n = native.native.find((r) => r.scenario === b.name);
    rows[i].native = Math.max(rows[i].native, n.events_per_second);
    rows[i].wasm = Math.max(rows[i].wasm, (events / ms) * 1000);
  });
}
console.log(`best of ${rounds} alternating rounds of ${seconds} s each, native then wasm`);
const total = (key) => rows.reduce((a, r) => a + r[key], 0) / rows.length;
const fmt = (x) => Math.round(x).toLocaleString("en-US").padStart(12);
console.log(`${"scenario".padEnd(28)}${"native ev/s".padStart(12)}${"wasm ev/s".padStart(12)}   wasm/native`);
for (const r of rows) console.log(`${r.name.padEnd(28)}${fmt(r.native)}${fmt(r.wasm)}   ${(r.wasm / r.native).toFixed(2)}`);
console.log(`${"mean".padEnd(28)}${fmt(total("native"))}${fmt(total("wasm"))}   ${(total("wasm") / total("native")).toFixed(2)}`);
const heavy = rows.find((r) => r.name === "steady-load");
if (heavy) console.log(`heavy scenario (steady-load: 5 replicas, 3 consumers, 10,000 produces): native ${fmt(heavy.native).trim()} ev/s, wasm ${fmt(heavy.wasm).trim()} ev/s, ratio ${(heavy.wasm / heavy.native).toFixed(2)}`);
if (native.peak_rss_kib) console.log(`native peak memory (VmHWM): ${(native.peak_rss_kib / 1024).toFixed(1)} MiB`);
