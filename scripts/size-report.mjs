// What the page downloads, raw and gzipped (zlib level 9), against the size budget.
//
//   node scripts/size-report.mjs [--json]
//
// Counts index.html, www/**/*.{js,mjs,css} (wasm-bindgen snippets included) and
// www/pkg/hwscope_bg.wasm; leaves out type declarations (*.d.ts), www/dev/, www/embed.js (the
// host pages' script) and test files.
// Exits 1 when the gzip total is over the budget (70 KiB), 2 when the build output is missing.
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync, constants } from "node:zlib";

export const BUDGET_GZIP_BYTES = 70 * 1024;

/** Modules loaded only on demand (dynamic import): the Learn views, the Share dialog,
 *  the embed-mode message API. Reported apart; not part of the first load. */
const ON_DEMAND = [/^www\/learn\//, /^www\/share\.js$/, /^www\/embed-api\.js$/, /^www\/embed-protocol\.js$/];
export const onDemand = (path) => ON_DEMAND.some((re) => re.test(path));

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REQUIRED = ["index.html", "www/pkg/hwscope.js", "www/pkg/hwscope_bg.wasm"];
const COUNTED = /\.(m?js|css)$/;
const TEST_FILE = /(^|\/)(tests?|__tests__|e2e)\/|\.(test|spec)\.m?js$/;

function walk(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(p));
    else if (entry.isFile()) out.push(p);
  }
  return out;
}

export function pageFiles(root = ROOT) {
  const rel = (p) => relative(root, p).split(sep).join("/");
  const files = new Set();
  for (const f of REQUIRED) if (existsSync(join(root, f))) files.add(f);
  const www = join(root, "www");
  if (existsSync(www)) {
    for (const p of walk(www)) {
      const r = rel(p);
      if (r.startsWith("www/dev/")) continue;
      if (r === "www/embed.js") continue; // loaded by pages that embed the playground, not by it
      if (r.endsWith(".d.ts")) continue;
      if (TEST_FILE.test(r)) continue;
      if (COUNTED.test(r)) files.add(r);
    }
  }
  return [...files].sort();
}

export function sizeReport(root = ROOT) {
  const missing = REQUIRED.filter((f) => !existsSync(join(root, f)));
  const files = pageFiles(root).map((path) => {
    const data = readFileSync(join(root, path));
    const gzip = gzipSync(data, { level: constants.Z_BEST_COMPRESSION }).length;
    return { path, raw: statSync(join(root, path)).size, gzip };
  });
  const sum = (list) => list.reduce((t, f) => ({ raw: t.raw + f.raw, gzip: t.gzip + f.gzip }), { raw: 0, gzip: 0 });
  const first = files.filter((f) => !onDemand(f.path));
  const total = sum(first);
  const later = sum(files.filter((f) => onDemand(f.path)));
  return { files, total, on_demand: later, budget: { gzip: BUDGET_GZIP_BYTES }, missing, ok: missing.length === 0 && total.gzip <= BUDGET_GZIP_BYTES };
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const report = sizeReport();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
    const w = Math.max(5, ...report.files.map((f) => f.path.length));
    console.log(`${"file".padEnd(w)}  ${"raw".padStart(10)}  ${"gzip -9".padStart(10)}`);
    for (const f of report.files) {
      const tag = onDemand(f.path) ? "  (on demand)" : "";
      console.log(`${f.path.padEnd(w)}  ${kib(f.raw).padStart(10)}  ${kib(f.gzip).padStart(10)}${tag}`);
    }
    console.log(`${"first load".padEnd(w)}  ${kib(report.total.raw).padStart(10)}  ${kib(report.total.gzip).padStart(10)}`);
    console.log(`${"on demand".padEnd(w)}  ${kib(report.on_demand.raw).padStart(10)}  ${kib(report.on_demand.gzip).padStart(10)}`);
    const verdict = report.total.gzip <= BUDGET_GZIP_BYTES ? "within" : "OVER";
    console.log(`gzip total ${report.total.gzip} bytes: ${verdict} the budget of ${BUDGET_GZIP_BYTES} bytes (70 KiB)`);
  }
  if (report.missing.length) {
    console.error(`size-report: missing ${report.missing.join(", ")} (run \`npm run build\`; index.html is the page)`);
    process.exit(2);
  }
  if (report.total.gzip > BUDGET_GZIP_BYTES) {
    console.error(`size-report: gzip total ${report.total.gzip} bytes is over the ${BUDGET_GZIP_BYTES}-byte budget`);
    process.exit(1);
  }
}
