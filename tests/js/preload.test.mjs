// index.html's modulepreload block against the import graph (scripts/graph.mjs):
// every module of the first stage (what main.js imports statically, to draw the
// stage before the core arrives) is preloaded, nothing else is, and the check
// itself notices a module added to the first stage, or a preload left behind.
// Likewise auto.js's preloads (docs pages) against what a live figure loads.
//
// Needs www/pkg (npm run build): the wasm is found through the package's script.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { checkPreloads, moduleClosure, pageGraph, preloadLines, references, withPreloads } from "../../scripts/graph.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const scratch = [];
after(() => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A copy of the page (index.html and www/) to break on purpose. */
function copy() {
  const dir = mkdtempSync(join(tmpdir(), "hwscope-preload-"));
  scratch.push(dir);
  cpSync(join(ROOT, "index.html"), join(dir, "index.html"));
  cpSync(join(ROOT, "www"), join(dir, "www"), { recursive: true });
  return dir;
}

test("index.html preloads exactly the first stage: `npm run preload` rewrites it", () => {
  assert.deepEqual(checkPreloads(ROOT), { missing: [], extra: [] });
  const html = readFileSync(join(ROOT, "index.html"), "utf8");
  assert.equal(withPreloads(html, preloadLines(ROOT)), html, "the block is as npm run preload writes it");
});

test("the first load has the boot, the first core and the panels; the full core, Learn, Share and the embed API load on demand", () => {
  const g = pageGraph(ROOT);
  for (const p of ["www/main.js", "www/app.js", "www/core/sim.js", "www/pkg/hwscope_first.js", "www/pkg/hwscope_first_bg.wasm", "www/render/stage.js", "www/style.css"]) assert.ok(g.first.includes(p), `${p} is in the first load`);
  // The full core comes once the page is idle (docs/performance.md, "Two cores").
  for (const p of ["www/pkg/hwscope.js", "www/pkg/hwscope_bg.wasm"]) assert.ok(g.later.includes(p) && !g.first.includes(p), `${p} is not in the first load`);
  for (const p of ["www/learn/learn.js", "www/learn/tours/index.js", "www/learn/learn.css", "www/panels/share.js", "www/embed/api.js"]) {
    assert.ok(g.later.includes(p), `${p} loads on demand`);
    assert.ok(!g.first.includes(p), `${p} is not in the first load`);
  }
  assert.ok(!g.first.includes("www/embed/embed.js") && !g.later.includes("www/embed/embed.js"), "the host pages' element is not part of the page");
});

test("a module added to the first stage without a preload is named as missing; one app.js adds is not", () => {
  const dir = copy();
  writeFileSync(join(dir, "www/core/extra.js"), "export const x = 1;\n");
  const main = join(dir, "www/main.js");
  writeFileSync(main, `import { x } from "./core/extra.js";\n${readFileSync(main, "utf8")}`);
  assert.deepEqual(checkPreloads(dir), { missing: ["www/core/extra.js"], extra: [] });
  // app.js comes with the core, after the first stage: not preloaded.
  writeFileSync(join(dir, "www/core/later.js"), "export const y = 1;\n");
  const app = join(dir, "www/app.js");
  writeFileSync(app, `import { y } from "./core/later.js";\n${readFileSync(app, "utf8")}`);
  assert.deepEqual(checkPreloads(dir), { missing: ["www/core/extra.js"], extra: [] });
  assert.ok(pageGraph(dir).first.includes("www/core/later.js"), "…but it is part of the first load");
});

test("a preload the first stage no longer imports is named as extra; a lazy import is not preloaded", () => {
  const dir = copy();
  const main = join(dir, "www/main.js");
  // Status becomes an on-demand module of main.js: still in the first load, no longer in the first stage.
  const text = readFileSync(main, "utf8").replace(/^import \{ createStatus \} from "\.\/panels\/status\.js";\n/m, "");
  assert.notEqual(text, readFileSync(main, "utf8"));
  writeFileSync(main, `${text}\nexport const later = () => import("./panels/status.js");\n`);
  assert.deepEqual(checkPreloads(dir), { missing: [], extra: ["www/panels/status.js"] });
});

/** auto.js's preloads (its `new URL(…, import.meta.url)` list) against what live.js
 *  loads before a figure is live: {missing, extra}. The docs core (hwscope.js with
 *  hwscope_docs_bg.wasm) comes after, once a figure is live on the docs figures' first
 *  core; the page's cores are not a figure's. */
const AFTER_LIVE = ["www/pkg/hwscope.js", "www/pkg/hwscope_bg.wasm", "www/pkg/hwscope_docs_bg.wasm"];
function checkAutoPreloads(root) {
  const rel = (p) => p.slice(resolve(root).length + 1);
  const preloads = references(join(root, "www/embed/auto.js"), root).filter((r) => r.kind === "asset").map((r) => rel(r.path));
  const loads = moduleClosure(root, "www/embed/live.js").filter((p) => !AFTER_LIVE.includes(p));
  return { missing: loads.filter((p) => !preloads.includes(p)), extra: preloads.filter((p) => !loads.includes(p)) };
}

test("auto.js preloads exactly what a live figure loads: live.js, its modules, the docs figures' first core, the style sheets", () => {
  assert.deepEqual(checkAutoPreloads(ROOT), { missing: [], extra: [] });
  const loads = moduleClosure(ROOT, "www/embed/live.js");
  for (const p of ["www/embed/live.js", "www/core/sim.js", "www/core/frontier.js", "www/render/stage.js", "www/pkg/hwscope_docs_first.js", "www/pkg/hwscope_docs_first_bg.wasm", "www/pkg/hwscope_docs_bg.wasm", "www/embed/figure.css"]) {
    assert.ok(loads.includes(p), `a live figure loads ${p}`);
  }
  // A module live.js starts importing is named as missing from auto.js's list.
  const dir = copy();
  writeFileSync(join(dir, "www/core/extra.js"), "export const x = 1;\n");
  const live = join(dir, "www/embed/live.js");
  writeFileSync(live, `import { x } from "../core/extra.js";\n${readFileSync(live, "utf8")}`);
  assert.deepEqual(checkAutoPreloads(dir), { missing: ["www/core/extra.js"], extra: [] });
});
