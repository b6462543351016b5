// What the page downloads, raw and gzipped (zlib level 9), against the size budget.
//
//   node scripts/size-report.mjs [--json]
//
// Two forms of the page are measured: the source tree as `npm start` serves it, and
// the published site that `npm run dist` writes (scripts and style sheets minified,
// file names content-hashed), which is what a visitor of the deployed playground
// downloads. The budget is judged on the published first load.
// Counts what index.html loads, as its references say (scripts/graph.mjs): the page,
// its style sheets and scripts and the wasm at first load, and the modules loaded on
// demand (Learn, Share, the embed API) apart. Files only host pages load (the
// <hwscope-playground> element) are not the page's, and are left out.
// Then where the core's bytes are (scripts/wasm-sizes.mjs: its sections, and its
// largest functions from the copy with names that scripts/build-wasm.sh keeps).
// Budgets (issue 28): the core the page downloads at first load (its first core,
// www/pkg/hwscope_first_bg.wasm: no narration, docs/performance.md "Two cores") 120 KiB
// gzipped, the published first load 160 KB gzipped. The full core (hwscope_bg.wasm,
// fetched once the page is idle) is printed beside it.
// Exits 1 when the first load or the core is over its budget, 2 when the build output is missing.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync, constants } from "node:zlib";
import { pageGraph } from "./graph.mjs";
import { NAMED_CORE, sizeLines } from "./wasm-sizes.mjs";

export const BUDGET_GZIP_BYTES = 160_000;
export const CORE_BUDGET_GZIP_BYTES = 120 * 1024;
const CORE = "www/pkg/hwscope_first_bg.wasm";
const FULL = "www/pkg/hwscope_bg.wasm";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REQUIRED = ["index.html", "www/pkg/hwscope_first.js", CORE, "www/pkg/hwscope.js", FULL];
const COUNTED = /(^index\.html|\.(m?js|css|wasm))$/;

/** The page's files under `root` (a source tree, or one written by dist.mjs):
 *  {first, later}, paths relative to root. */
export function pageFiles(root = ROOT) {
  if (!existsSync(join(root, "index.html"))) return { first: [], later: [] };
  const g = pageGraph(root);
  return { first: g.first.filter((p) => COUNTED.test(p)), later: g.later.filter((p) => COUNTED.test(p)) };
}

/** A published file's source name: `www/app.9e057cc7a8.js` -> `www/app.js`. */
const unhashed = (path) => path.replace(/\.[0-9a-f]{10}(\.[a-z]+)$/, "$1");

/** The size of the page in `root`: the source tree, or with `published` a tree written by dist.mjs. */
export function sizeReport(root = ROOT, published = false) {
  const { first, later } = pageFiles(root);
  const measure = (file) => {
    const data = readFileSync(join(root, file));
    const gzip = gzipSync(data, { level: constants.Z_BEST_COMPRESSION }).length;
    return { path: published ? unhashed(file) : file, raw: statSync(join(root, file)).size, gzip };
  };
  const firstFiles = first.map(measure);
  const laterFiles = later.map((f) => ({ ...measure(f), on_demand: true }));
  const files = [...firstFiles, ...laterFiles].sort((a, b) => a.path.localeCompare(b.path));
  const sum = (list) => list.reduce((t, f) => ({ raw: t.raw + f.raw, gzip: t.gzip + f.gzip }), { raw: 0, gzip: 0 });
  const missing = REQUIRED.filter((f) => !files.some((x) => x.path === f));
  const total = sum(firstFiles);
  const core = files.find((f) => f.path === CORE) ?? { raw: 0, gzip: 0 };
  const full = files.find((f) => f.path === FULL) ?? { raw: 0, gzip: 0 };
  return {
    files,
    total,
    on_demand: sum(laterFiles),
    core,
    full,
    budget: { gzip: BUDGET_GZIP_BYTES, core_gzip: CORE_BUDGET_GZIP_BYTES },
    missing,
    ok: missing.length === 0 && total.gzip <= BUDGET_GZIP_BYTES && core.gzip <= CORE_BUDGET_GZIP_BYTES,
  };
}

/** The size of the published site: dist.mjs into a temporary directory, measured, removed. */
export function publishedReport() {
  const out = mkdtempSync(join(tmpdir(), "hwscope-size-"));
  try {
    execFileSync(process.execPath, [join(ROOT, "scripts/dist.mjs"), "--out", out], { stdio: "ignore" });
    return sizeReport(out, true);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const source = sizeReport();
  if (source.missing.length) {
    console.error(`size-report: missing ${source.missing.join(", ")} (run \`npm run build\`; index.html is the page)`);
    process.exit(2);
  }
  const report = publishedReport();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify({ ...report, source: { files: source.files, total: source.total, on_demand: source.on_demand } }, null, 2));
  } else {
    const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
    const src = new Map(source.files.map((f) => [f.path, f]));
    const w = Math.max(5, ...report.files.map((f) => f.path.length), ...source.files.map((f) => f.path.length));
    const cols = (a, b) => `${kib(a).padStart(10)}  ${kib(b).padStart(10)}`;
    console.log(`${"".padEnd(w)}  ${"source (npm start)".padStart(22)}  ${"published (npm run dist)".padStart(22)}`);
    console.log(`${"file".padEnd(w)}  ${"raw".padStart(10)}  ${"gzip -9".padStart(10)}  ${"raw".padStart(10)}  ${"gzip -9".padStart(10)}`);
    // The published site bundles the first load (scripts/bundle-page.mjs): its files and
    // the source's modules have different names; each side shows 0 for the other's.
    const pub = new Map(report.files.map((f) => [f.path, f]));
    for (const path of [...new Set([...pub.keys(), ...src.keys()])].sort()) {
      const none = { raw: 0, gzip: 0 };
      const s = src.get(path) ?? none;
      const f = pub.get(path) ?? none;
      const tag = (pub.get(path) ?? s).on_demand ? "  (on demand)" : "";
      console.log(`${path.padEnd(w)}  ${cols(s.raw, s.gzip)}  ${cols(f.raw, f.gzip)}${tag}`);
    }
    console.log(`${"first load".padEnd(w)}  ${cols(source.total.raw, source.total.gzip)}  ${cols(report.total.raw, report.total.gzip)}`);
    console.log(`${"on demand".padEnd(w)}  ${cols(source.on_demand.raw, source.on_demand.gzip)}  ${cols(report.on_demand.raw, report.on_demand.gzip)}`);
    const verdict = (n, budget) => (n <= budget ? "within" : "OVER");
    console.log(`the page's first core (${CORE}, first load): gzip ${report.core.gzip} bytes, ${report.core.raw} raw: ${verdict(report.core.gzip, CORE_BUDGET_GZIP_BYTES)} the budget of ${CORE_BUDGET_GZIP_BYTES} bytes (120 KiB)`);
    console.log(`the page's full core (${FULL}, fetched once the page is idle): gzip ${report.full.gzip} bytes, ${report.full.raw} raw`);
    console.log(`published first load: gzip ${report.total.gzip} bytes: ${verdict(report.total.gzip, BUDGET_GZIP_BYTES)} the budget of ${BUDGET_GZIP_BYTES} bytes (160 KB)`);
    console.log("");
    console.log(`where the core's bytes are (scripts/wasm-sizes.mjs; twiggy gives more: docs/performance.md):`);
    // Each core, from the copy with names scripts/build-wasm.sh keeps beside it.
    for (const [file, named] of [[CORE, NAMED_CORE.replace(/hwscope_bg\.wasm$/, "hwscope_first_bg.wasm")], [FULL, NAMED_CORE]]) {
      console.log(`${file}:`);
      if (existsSync(named) && statSync(named).mtimeMs >= statSync(join(ROOT, file)).mtimeMs - 60_000) {
        for (const line of sizeLines(named, 12)) console.log(`  ${line}`);
      } else {
        // A core built with --no-opt, or copied in: sections only, functions unnamed.
        for (const line of sizeLines(join(ROOT, file), 0)) console.log(`  ${line}`);
        console.log(`  (no copy with names at ${named.slice(ROOT.length + 1)}: \`npm run build\` writes one)`);
      }
    }
  }
  if (report.missing.length) {
    console.error(`size-report: the published site lacks ${report.missing.join(", ")}`);
    process.exit(2);
  }
  if (report.total.gzip > BUDGET_GZIP_BYTES || report.core.gzip > CORE_BUDGET_GZIP_BYTES) {
    console.error(`size-report: over budget (first load ${report.total.gzip} of ${BUDGET_GZIP_BYTES} bytes, core ${report.core.gzip} of ${CORE_BUDGET_GZIP_BYTES} bytes, gzip)`);
    process.exit(1);
  }
}
