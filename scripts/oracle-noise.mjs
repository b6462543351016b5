#!/usr/bin/env node
// Measures the scheduling noise the oracle's tolerances allow for (oracle/lib/compare.mjs,
// NOISE_MS and NOISE_MEDIAN_MS): the idle-partition §11 scenario (acks=all, no timer on the
// path from send to acknowledgement and to the leader reader's receipt) run N times on the
// real cluster; prints real − simulated per record (median, 90th/95th percentile, max) and
// each run's median, with the machine's load.
//
//   node scripts/oracle-noise.mjs [--repeat N]      (default 3; about 75 s a run)

import { spawnSync } from "node:child_process";
import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const i = process.argv.indexOf("--repeat");
const repeat = i > 0 ? Number(process.argv[i + 1]) : 3;
const out = join(mkdtempSync(join(tmpdir(), "hwscope-noise-")), "noise.json");
const r = spawnSync(
  process.execPath,
  [join(root, "oracle", "driver.mjs"), join(root, "oracle", "scenarios", "s11-idle-fetch-wait-500.json"), "--repeat", String(repeat), "--json", out, "--quiet"],
  { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
);
if (r.status === 2) process.exit(2);
const result = JSON.parse(readFileSync(out, "utf8"));
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const all = [];
const medians = [];
for (const run of result.runs) {
  const xs = run.rows
    .filter((row) => (row.kind === "ack" || (row.kind === "visible" && row.consumer === "c-leader")) && row.real.ms !== null && row.sim?.ms !== null)
    .map((row) => row.real.ms - row.sim.ms)
    .sort((a, b) => a - b);
  all.push(...xs);
  medians.push(xs[xs.length >> 1]);
}
all.sort((a, b) => a - b);
const f = (x) => Math.round(x * 10) / 10;
console.log(`Kafka ${result.kafka_version}, ${result.machine.cpu}, ${result.machine.cores} cores, load ${result.machine.load.join(" ")}, ${result.date}`);
console.log(`real − simulated, send→ack and send→leader-reader receipt, ${all.length} records in ${result.runs.length} runs:`);
console.log(`  median ${f(pct(all, 0.5))} ms, p90 ${f(pct(all, 0.9))} ms, p95 ${f(pct(all, 0.95))} ms, max ${f(all.at(-1))} ms`);
console.log(`  per-run medians: ${medians.map(f).join(", ")} ms`);
