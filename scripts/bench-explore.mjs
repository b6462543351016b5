// The explorer's benchmark (README, "Measuring"): distinct states per second of
// the same searches natively on one thread and on all threads (`hwscope check`),
// in wasm in Chromium (the page's Web Worker, www/explore/worker.js), and
// stateright 0.31's own 2pc example on the same machine in the same run as
// the anchor; the seeded simulation (`check --simulate`: walks and steps per second,
// native on one thread and in the page's worker); then the KIP-101 counterexample
// in the page, timed from pressing Run to the verdict shown. Prints figures;
// asserts nothing.
//
//   node scripts/bench-explore.mjs [--quick] [--no-anchor] [--json]
//
// --quick: only the KIP-101 search (skips the larger divergence search).
// --no-anchor: skip stateright's 2pc (its first build downloads its example's
// dev-dependencies from crates.io and takes a few minutes; it is built from
// the crate cargo already holds as our dev-dependency, under target/, never
// copied into the project).
// Needs www/pkg-explore (npm run build) and Chromium (install-tools --browser).
// The machine's load average is printed: on a shared machine the figures move.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { launch } from "../e2e/helpers.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TARGET = resolve(ROOT, process.env.CARGO_TARGET_DIR || "target");
const args = process.argv.slice(2);
for (const a of args) {
  if (!["--quick", "--no-anchor", "--json"].includes(a)) {
    console.error(`bench-explore: unknown option ${a}`);
    process.exit(2);
  }
}
const quick = args.includes("--quick");
const anchor = !args.includes("--no-anchor");
const asJson = args.includes("--json");
const log = (...a) => asJson || console.log(...a);

/** The searches, as CLI arguments and as the page's options (same bounds). */
const SEARCHES = [
  {
    name: "kip101",
    what: "KIP-101: kip101-data-loss under kafka-4.0 (exhaustive), 20 steps, 4 faults with cuts",
    scenario: { builtin: "kip101-data-loss", file: "scenarios/kip101-data-loss.json" },
    preset: "kafka-4.0",
    cli: ["--max-depth", "20", "--faults", "4"],
    options: { property: "any", max_depth: 20, faults: 4, drop_faults: true },
  },
  {
    name: "divergence",
    // 18 steps and 4 faults went past a tab's memory once heartbeats were steps (issue 11).
    what: "divergence: tests/check/one-write-two-producers.json under kafka-4.0, 9 steps, 3 crashes/restarts, 1 extra record",
    scenario: { file: "tests/check/one-write-two-producers.json" },
    preset: "kafka-4.0",
    cli: ["--max-depth", "9", "--faults", "3", "--records", "1", "--no-cuts", "--property", "replicas-diverged"],
    options: { property: "replicas-diverged", max_depth: 9, faults: 3, records: 1, cuts: false, drop_faults: true },
  },
].filter((s) => !quick || s.name === "kip101");

const threads = cpus().length;
let bin = process.env.HWSCOPE_BIN;
if (!bin) {
  execFileSync("cargo", ["build", "--quiet", "--release", "--bin", "hwscope"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  bin = join(TARGET, "release", "hwscope");
}

/** `hwscope check --json` on T threads: {distinct, explored, seconds, distinct_per_second, bytes_per_state, verdict}. */
function native(s, t) {
  const src = s.scenario.builtin ? ["--builtin", s.scenario.builtin] : [s.scenario.file];
  const r = spawnSync(bin, ["check", ...src, "--preset", s.preset, ...s.cli, "--threads", String(t), "--json", "--quiet"], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`hwscope check failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The best of `n` runs (the least disturbed by the machine's other work). */
function best(n, f) {
  let top;
  for (let i = 0; i < n; i++) {
    const r = f();
    if (!top || r.distinct_per_second > top.distinct_per_second) top = r;
  }
  return top;
}

/** `n` runs of the Explore panel's worker (www/explore/client.js) in `page`, each a fresh
 *  worker: each run's "done" message, or an Error naming what the worker said instead. */
async function inWorker(page, text, options, mode, n = 3) {
  const runs = [];
  for (let i = 0; i < n; i++) {
    const m = await page.evaluate(
      ([text, options, mode]) =>
        import("/www/explore/client.js").then(
          ({ search }) =>
            new Promise((res) => {
              search(text, options, (m) => {
                if (m.type === "done") res({ result: m.result, progress: m.progress, ms: m.ms });
                else if (m.type !== "progress" && m.type !== "bounds") res({ error: m.message ?? m.type });
              }, { mode });
            }),
        ),
      [text, options, mode],
    );
    if (m.error) throw new Error(`wasm ${mode}: ${m.error}`);
    runs.push(m);
  }
  return runs;
}

/** The scenario as the page gets it (the built-ins are the files in scenarios/). */
const scenarioText = (s) => JSON.parse(readFileSync(join(ROOT, s.scenario.file), "utf8"));

/** stateright 0.31's 2pc example (its `check` subcommand, DFS, 8 resource managers): unique states per second. */
function stateright2pc() {
  const meta = JSON.parse(execFileSync("cargo", ["metadata", "--format-version", "1"], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] }));
  const pkg = meta.packages.find((p) => p.name === "stateright");
  if (!pkg) throw new Error("stateright is not a dependency (Cargo.toml dev-dependencies)");
  const src = dirname(pkg.manifest_path);
  const dir = join(TARGET, "bench-anchor", `stateright-${pkg.version}`);
  const exe = join(dir, "target", "release", "examples", "2pc");
  if (!existsSync(exe)) {
    mkdirSync(dirname(dir), { recursive: true });
    cpSync(src, dir, { recursive: true });
    log(`(building stateright ${pkg.version}'s 2pc example under ${dir}: a few minutes the first time)`);
    execFileSync("cargo", ["build", "--quiet", "--release", "--example", "2pc"], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
  }
  const run = (cpuList) => {
    // The example uses every CPU it may run on (num_cpus respects the affinity): taskset pins it.
    const cmd = cpuList ? ["taskset", ["-c", cpuList, exe, "check", "8"]] : [exe, ["check", "8"]];
    const t0 = performance.now();
    const r = spawnSync(cmd[0], cmd[1], { encoding: "utf8", maxBuffer: 64 << 20 });
    const seconds = (performance.now() - t0) / 1000;
    const m = /Done\. states=(\d+), unique=(\d+)/.exec(r.stdout);
    if (!m) throw new Error(`2pc: unexpected output ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 300)}`);
    return { unique: Number(m[2]), seconds, distinct_per_second: Number(m[2]) / seconds };
  };
  const bestOf = (n, cpuList) => {
    let top;
    for (let i = 0; i < n; i++) {
      const r = run(cpuList);
      if (!top || r.distinct_per_second > top.distinct_per_second) top = r;
    }
    return top;
  };
  return { version: pkg.version, one: bestOf(3, "0"), all: bestOf(3, null) };
}

const fmt = (n) => Math.round(n).toLocaleString("en");
const out = { machine: { cpus: threads, loadavg_before: loadavg().map((x) => +x.toFixed(2)) }, searches: [] };
log(`bench-explore: ${threads} CPUs; load average ${out.machine.loadavg_before.join(" ")} (other work on the machine lowers every figure)`);

const env = await launch();
try {
  const page = await env.open("/?scenario=kip101-data-loss");
  await page.waitForSelector("#explore-open:not([disabled])");
  for (const s of SEARCHES) {
    log(`\n== ${s.what}`);
    const one = best(3, () => native(s, 1));
    const all = best(3, () => native(s, threads));
    const text = JSON.stringify({ ...scenarioText(s), preset: s.preset });
    // The page's own worker and wasm package; the best of 3 runs, each a fresh worker.
    const wasm = (await inWorker(page, text, s.options, "search")).map((m) => ({ distinct: m.result.distinct, ms: m.ms, verdict: m.result.verdict }));
    const w = wasm.reduce((a, b) => (b.distinct / b.ms > a.distinct / a.ms ? b : a));
    const wasmRate = (w.distinct * 1000) / w.ms;
    if (w.distinct !== one.distinct || w.verdict !== one.verdict) throw new Error(`wasm and native disagree: ${JSON.stringify(w)} vs ${one.distinct} ${one.verdict}`);
    const row = {
      name: s.name,
      distinct: one.distinct,
      verdict: one.verdict,
      bytes_per_state: one.bytes_per_state,
      native_1: one.distinct_per_second,
      native_all: all.distinct_per_second,
      threads,
      wasm: wasmRate,
      seconds: { native_1: one.seconds, native_all: all.seconds, wasm: w.ms / 1000 },
    };
    out.searches.push(row);
    log(`  ${fmt(one.distinct)} distinct states (${one.verdict}), ~${fmt(one.bytes_per_state)} bytes per distinct state at the peak`);
    log(`  native, 1 thread      ${fmt(one.distinct_per_second).padStart(10)} distinct states/s  (${one.seconds.toFixed(3)} s)`);
    log(`  native, ${threads} threads     ${fmt(all.distinct_per_second).padStart(10)} distinct states/s  (${all.seconds.toFixed(3)} s; ×${(all.distinct_per_second / one.distinct_per_second).toFixed(2)})`);
    log(`  wasm, Chromium worker ${fmt(wasmRate).padStart(10)} distinct states/s  (${(w.ms / 1000).toFixed(3)} s; ×${(wasmRate / one.distinct_per_second).toFixed(2)} of native)`);
  }

  // The seeded simulation: the same walks natively and in the page's worker.
  {
    const walks = quick ? 3000 : 20000;
    log(`\n== simulation: kip279-fast-leader-change (kafka-0.11), ${fmt(walks)} walks from seed 1 (check --simulate)`);
    const sim = () => {
      const r = spawnSync(bin, ["check", "--builtin", "kip279-fast-leader-change", "--simulate", "--walks", String(walks), "--json", "--quiet"], { cwd: ROOT, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`hwscope check --simulate failed: ${r.stderr}`);
      const j = JSON.parse(r.stdout);
      return { ...j, distinct_per_second: j.steps_per_second };
    };
    const one = best(3, sim);
    const text = JSON.stringify(scenarioText({ scenario: { file: "scenarios/kip279-fast-leader-change.json" } }));
    const walkOptions = { walks, seed: 1, max_depth: 200, faults: 8, records: 3, one_way: true, controller_cuts: true, client_cuts: true };
    const runs = (await inWorker(page, text, walkOptions, "simulate")).map((m) => ({ walks: m.progress.walks, steps: m.progress.steps, ms: m.ms, verdict: m.result.verdict }));
    const w = runs.reduce((a, b) => (b.steps / b.ms > a.steps / a.ms ? b : a));
    if (w.steps !== one.steps || w.verdict !== one.verdict) throw new Error(`wasm and native walks disagree: ${JSON.stringify(w)} vs ${one.steps} ${one.verdict}`);
    const wasmSteps = (w.steps * 1000) / w.ms;
    out.simulation = { walks, steps: one.steps, verdict: one.verdict, native_1: { walks_per_second: one.walks_per_second, steps_per_second: one.steps_per_second }, wasm: { walks_per_second: (w.walks * 1000) / w.ms, steps_per_second: wasmSteps } };
    log(`  ${fmt(one.steps)} steps (${one.verdict})`);
    log(`  native, 1 thread      ${fmt(one.walks_per_second).padStart(10)} walks/s  ${fmt(one.steps_per_second).padStart(10)} steps/s  (${one.seconds.toFixed(3)} s)`);
    log(`  wasm, Chromium worker ${fmt((w.walks * 1000) / w.ms).padStart(10)} walks/s  ${fmt(wasmSteps).padStart(10)} steps/s  (${(w.ms / 1000).toFixed(3)} s; ×${(wasmSteps / one.steps_per_second).toFixed(2)} of native)`);
  }

  // What a user sees: press Run in the Explore panel on kip101-data-loss (its defaults,
  // kafka-0.10) until the verdict is shown; the first press includes the worker's start
  // and the explorer's wasm download and compile.
  await page.click("#explore-open");
  await page.waitForSelector("#explore form");
  const press = () =>
    page.evaluate(
      () =>
        new Promise((res) => {
          const ex = document.getElementById("explore");
          const t0 = performance.now();
          const obs = new MutationObserver(() => {
            const s = ex.dataset.state;
            if (s && !["running", "idle"].includes(s)) {
              obs.disconnect();
              res({ state: s, ms: performance.now() - t0 });
            }
          });
          obs.observe(ex, { attributes: true });
          ex.querySelector("button[type=submit]").click();
        }),
    );
  const first = await press();
  const again = await press();
  out.press_run = { first, again };
  log(`\n== the page: Explore on kip101-data-loss (defaults), Run pressed until the verdict is shown`);
  log(`  ${first.state}: ${fmt(first.ms)} ms the first time (worker start, wasm fetch and compile included), ${fmt(again.ms)} ms the second`);
} finally {
  await env.close();
}

if (anchor) {
  const a = stateright2pc();
  out.anchor = a;
  log(`\n== anchor: stateright ${a.version}'s own 2pc example (check 8: DFS, ${fmt(a.one.unique)} unique states)`);
  log(`  1 thread (taskset -c 0)  ${fmt(a.one.distinct_per_second).padStart(10)} unique states/s  (${a.one.seconds.toFixed(2)} s)`);
  log(`  ${threads} threads               ${fmt(a.all.distinct_per_second).padStart(10)} unique states/s  (${a.all.seconds.toFixed(2)} s)`);
}
out.machine.loadavg_after = loadavg().map((x) => +x.toFixed(2));
log(`\nload average after: ${out.machine.loadavg_after.join(" ")}`);
if (asJson) console.log(JSON.stringify(out, null, 2));
