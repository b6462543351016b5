// npm run preload: rewrites index.html's modulepreload block from the import
// graph (scripts/graph.mjs), so the browser fetches every module of the first
// load, and the wasm, at once instead of level by level.
//
//   node scripts/preload.mjs           # rewrite index.html
//   node scripts/preload.mjs --check   # exit 1, naming what is missing or extra
//
// Needs www/pkg (npm run build): the wasm is found through the package's script.
// tests/js/preload.test.mjs fails when the block and the graph disagree.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkPreloads, preloadLines, withPreloads } from "./graph.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
if (!existsSync(join(ROOT, "www/pkg/hwscope.js"))) {
  console.error("preload: www/pkg is missing: run `npm run build` first");
  process.exit(2);
}
if (process.argv.includes("--check")) {
  const { missing, extra } = checkPreloads(ROOT);
  for (const p of missing) console.error(`preload: ${p} is in the first load but index.html does not preload it`);
  for (const p of extra) console.error(`preload: index.html preloads ${p}, which the first load does not import`);
  if (missing.length || extra.length) {
    console.error("preload: run `npm run preload` to rewrite the block");
    process.exit(1);
  }
  console.log("preload: index.html preloads exactly the first load");
} else {
  const file = join(ROOT, "index.html");
  const lines = preloadLines(ROOT);
  writeFileSync(file, withPreloads(readFileSync(file, "utf8"), lines));
  console.log(`preload: index.html preloads ${lines.length} files`);
}
