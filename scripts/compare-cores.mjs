// Builds of the page's core side by side, by CPU time (not wall time: the machine
// is shared, and a neighbour's build slows the clock, not the work): a 50,000-step
// look-ahead (Playground.extend, as www/core/frontier.js computes ahead) and 1,000
// step() records with a log tail of 64 (what playing draws), on steady-load. The
// builds take turns for --rounds rounds (default 7), each one's best counts.
//
//   node scripts/compare-cores.mjs DIR [DIR ...] [--rounds N]
//
// Each DIR holds a wasm-bindgen package (hwscope.js + hwscope_bg.wasm), e.g.
// www/pkg and a copy of it from another build (WASM_OPT_LEVEL=z npm run build, then
// copy www/pkg away). docs/performance.md, "The page's core built for size".
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { constants, gzipSync } from "node:zlib";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const at = args.indexOf("--rounds");
const rounds = at >= 0 ? Number(args[at + 1]) || 7 : 7;
const dirs = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--rounds");
if (!dirs.length) {
  console.error("compare-cores: name one or more package directories (each with hwscope.js and hwscope_bg.wasm)");
  process.exit(2);
}
const cores = [];
for (const dir of dirs) {
  const wasm = join(resolve(dir), "hwscope_bg.wasm");
  if (!existsSync(wasm)) {
    console.error(`compare-cores: ${wasm} is missing`);
    process.exit(2);
  }
  const bytes = readFileSync(wasm);
  // The query keeps each directory's glue a module of its own.
  const pkg = await import(`${pathToFileURL(join(resolve(dir), "hwscope.js")).href}?${cores.length}`);
  pkg.initSync({ module: bytes });
  cores.push({ dir, pkg, raw: bytes.length, gzip: gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length, lookahead: Infinity, records: Infinity });
}
const json = readFileSync(join(ROOT, "scenarios/steady-load.json"), "utf8");
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const STEPS = 50_000;
for (let r = 0; r < rounds; r++) {
  for (const c of cores) {
    const p = new c.pkg.Playground();
    p.configure(json);
    const t0 = cpuMs();
    p.extend(STEPS);
    c.lookahead = Math.min(c.lookahead, cpuMs() - t0);
    p.free();
    const q = new c.pkg.Playground();
    q.setLogTail(64);
    q.configure(json);
    const t1 = cpuMs();
    for (let i = 0; i < 1000; i++) q.step();
    c.records = Math.min(c.records, cpuMs() - t1);
    q.free();
  }
}
console.log(`steady-load, CPU time, best of ${rounds} alternating rounds`);
for (const c of cores) {
  const rate = Math.round((STEPS / c.lookahead) * 1000).toLocaleString("en-US");
  console.log(`${c.dir.padEnd(24)} ${String(c.raw).padStart(8)} B raw ${String(c.gzip).padStart(8)} B gzip   look-ahead ${c.lookahead.toFixed(1).padStart(6)} ms (${rate} steps/s)   1,000 records ${c.records.toFixed(1).padStart(6)} ms`);
}
