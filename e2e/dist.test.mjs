// npm run dist: the static site in dist/ works on its own, served by a plain
// static server: the page, a share link, the docs page with its embeds. Every
// asset it loads has a content-hashed name except the entry points.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { assertNoErrors, launch, ROOT } from "./helpers.mjs";

const OUT = mkdtempSync(join(tmpdir(), "hwscope-dist-"));
const STABLE = new Set(["/", "/index.html", "/www/embed/embed.js", "/www/embed.js", "/docs/embed.html"]);

let env;
before(async () => {
  execFileSync(process.execPath, [join(ROOT, "scripts/dist.mjs"), "--out", OUT], { stdio: "ignore" });
  env = await launch({ root: OUT });
});
after(async () => {
  await env?.close();
  rmSync(OUT, { recursive: true, force: true });
});

/** Opens a path and lists the same-site paths it requested. */
async function visit(path) {
  const page = await env.newPage();
  const paths = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.origin === env.baseURL) paths.push(u.pathname);
  });
  await page.goto(env.baseURL + path);
  return { page, paths };
}

test("the page runs from dist/ with only content-hashed assets", async () => {
  const { page, paths } = await visit("/");
  await page.waitForSelector(".broker[data-broker]");
  await page.waitForLoadState("networkidle");
  const unhashed = paths.filter((p) => !STABLE.has(p) && !/\.[0-9a-f]{10}\.(js|css|wasm|svg|json)$/.test(p));
  assert.deepEqual(unhashed, []);
  assert.ok(paths.some((p) => /hwscope_bg\.[0-9a-f]{10}\.wasm$/.test(p)), "the wasm under its hashed name");
  assert.match(readFileSync(join(OUT, "index.html"), "utf8"), /<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'/);
  assertNoErrors(page, { requests: true });
  await page.close();
});

test("the docs page's element and sandboxed iframe work from dist/", async () => {
  const { page } = await visit("/docs/embed.html");
  await page.waitForFunction(() => document.getElementById("walk-log").textContent.startsWith("ready"));
  await page.click('[data-seek="5"]');
  await page.waitForFunction(() => document.getElementById("walk-log").textContent.includes("HW 100 → 105"));
  await page.evaluate(() => document.getElementById("raw").scrollIntoView());
  await page.waitForFunction(() => document.getElementById("raw").dataset.told);
  assertNoErrors(page, { requests: true });
  await page.close();
});

test("the published scripts and style sheets are minified, and smaller than their sources", async () => {
  const { sizeReport } = await import("../scripts/size-report.mjs");
  const published = sizeReport(OUT, true);
  const tree = sizeReport(ROOT);
  const source = new Map(tree.files.map((f) => [f.path, f]));
  // The first load's modules are published bundled (scripts/bundle-page.mjs), under names of their own.
  const bundles = published.files.filter((f) => f.path.startsWith("www/pkg/page/"));
  // …and the chunk main.js and app.js share (its name is esbuild's hash of its content).
  assert.deepEqual(bundles.map((f) => f.path.replace(/chunk-[A-Z0-9]+\.js$/, "chunk.js")).sort(), ["www/pkg/page/app.js", "www/pkg/page/chunk.js", "www/pkg/page/main.js", "www/pkg/page/page.js", "www/pkg/page/prefetch.js"]);
  const text = published.files.filter((f) => /\.(js|css)$/.test(f.path) && !bundles.includes(f));
  assert.ok(text.length >= 20, `found ${text.length} published scripts and style sheets`);
  for (const f of text) assert.ok(f.raw < source.get(f.path).raw, `${f.path}: ${f.raw} bytes published, ${source.get(f.path).raw} in www/`);
  assert.ok(published.total.gzip < tree.total.gzip, "the published first load is smaller");
  assert.doesNotMatch(readFileSync(join(OUT, "index.html"), "utf8"), /<!--/);
});

test("the published first load and its first core are within their budgets (issue 28; what npm run size judges)", async () => {
  const { sizeReport, BUDGET_GZIP_BYTES, CORE_BUDGET_GZIP_BYTES } = await import("../scripts/size-report.mjs");
  const published = sizeReport(OUT, true);
  const list = published.files.filter((f) => !f.on_demand).map((f) => `${f.path} ${f.gzip}`).join(", ");
  assert.ok(published.core.gzip > 0, "the first core is in the first load");
  assert.ok(published.core.gzip <= CORE_BUDGET_GZIP_BYTES, `the first core: ${published.core.gzip} bytes gzipped, budget ${CORE_BUDGET_GZIP_BYTES}`);
  assert.ok(published.total.gzip <= BUDGET_GZIP_BYTES, `the published first load: ${published.total.gzip} bytes gzipped, budget ${BUDGET_GZIP_BYTES} (${list})`);
});

test("the first load downloads prefetch.js's modules once, and the core is asked for before prefetch.js has come", async () => {
  // The built-ins' keys and steps files (www/pkg/steps.js) are in prefetch.js's bundle
  // only: main.js and app.js import them from it (scripts/bundle-page.mjs, SHARED).
  const { readdirSync } = await import("node:fs");
  const dir = join(OUT, "www/pkg/page");
  const holders = readdirSync(dir).filter((f) => readFileSync(join(dir, f), "utf8").includes("/steps/seed-walkthrough."));
  assert.deepEqual(holders.map((f) => f.replace(/\.[0-9a-f]{10}\.js$/, ".js")), ["prefetch.js"]);
  // www/start.js asks for the first core at once unless the address is a share link:
  // for one (here to a built-in as it is, which starts on the first core too), the core
  // waits for prefetch.js, which knows the built-ins' link keys.
  const { s } = JSON.parse(readFileSync(join(ROOT, "www/pkg/steps/kip101-data-loss.json"), "utf8"));
  for (const [path, early] of [["/", true], ["/?embed=1&scenario=seed-walkthrough#at=4", true], [`/#v=1&s=${s}&at=20`, false]]) {
    const page = await env.newPage();
    const log = [];
    await page.route(/\/prefetch\.[0-9a-f]{10}\.js$/, async (route) => {
      await new Promise((r) => setTimeout(r, 700));
      log.push("prefetch.js served");
      await route.continue();
    });
    page.on("request", (r) => {
      if (/hwscope_first_bg\.[0-9a-f]{10}\.wasm$/.test(r.url())) log.push("core asked for");
    });
    await page.goto(env.baseURL + path);
    await page.waitForSelector(".broker[data-broker]");
    await page.waitForFunction(() => performance.getEntriesByName("hwscope-interactive").length);
    assert.deepEqual(log.slice(0, 2), early ? ["core asked for", "prefetch.js served"] : ["prefetch.js served", "core asked for"], path);
    assertNoErrors(page, { requests: true });
    await page.close();
  }
});
