// The page starts on its first core (www/pkg/hwscope_first_bg.wasm: no narration, no
// step records) and takes the full core (www/pkg/hwscope_bg.wasm) once idle
// (docs/performance.md, "Two cores" and the tenth pass). With the full core's download
// held, the page is live: it steps and plays through the steps the full core wrote at
// build time (the built-in's steps file, 0..64, sentences included), and nothing moves;
// released, the full core takes over the same run at the same step. A step past the
// steps file waits for the full core. An embed does not fetch the full core until it
// shows a step past the steps file.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { assertNoErrors, launch, pageWithCoreHeld, ROOT, scrubTo, stepOf, watch } from "./helpers.mjs";

const pkg = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
pkg.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });

/** The full core's sentences for steps 0..n of a built-in, computed in Node. */
function sentences(name, n) {
  const p = new pkg.Playground();
  const out = [p.configure(pkg.builtinScenarios().find((b) => b.name === name).json).text];
  for (let i = 1; i <= n; i++) out.push(p.step().text);
  p.free();
  return out;
}

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

/** A page whose full core (not the first one) is held until `release()`. */
const pageWithFullCoreHeld = () => pageWithCoreHeld(env, /\/hwscope_bg(\.[0-9a-f]{10})?\.wasm$/);

const fullCore = (page) => page.evaluate(() => performance.getEntriesByName("hwscope-full-core").length > 0);

test("the page steps and plays on its first core while the full core is held; then the narration comes, at the same step", async () => {
  const { context, page, release, asked } = await pageWithFullCoreHeld();
  await page.goto(new URL("/", env.baseURL).href);
  await page.waitForFunction(() => document.documentElement.dataset.boot === "live");
  // Idle: the full core is asked for, and held.
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__cls), 0, "nothing moved as the page loaded");
  assert.equal(await fullCore(page), false);
  // The steps' sentences were computed at build time (first.js, the steps file): they stay.
  const said = sentences("seed-walkthrough", 12);
  assert.equal(await page.textContent("#live"), said[0]);
  await page.click("#fwd");
  await page.click("#fwd");
  await page.waitForFunction(() => document.getElementById("status").dataset.step === "2");
  assert.equal(await page.textContent("#live"), said[2]);
  assert.ok((await page.textContent("#narration li:last-child button")).endsWith(said[2]));
  await page.click("#play");
  await page.waitForFunction(() => Number(document.getElementById("status").dataset.step) >= 5, null, { timeout: 15_000 });
  await page.click("#play");
  const at = await stepOf(page);
  assert.equal(await fullCore(page), false, "the full core is still held");
  assert.ok(asked() >= 1, "the page asked for the full core once idle");
  // What moves when the full core takes over (the narration log, which grows from the
  // bottom while playing on either core, is filled in again: it is not counted).
  await page.evaluate(() => {
    window.__moved = [];
    // An entry of the log is counted as the log (the node a shift names may be its <li>).
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__moved.push(...(e.sources ?? []).map((x) => (x.node?.closest?.("#narration") ? "narration" : x.node?.id || x.node?.nodeName))))).observe({ type: "layout-shift" });
  });
  release();
  await page.waitForFunction(() => performance.getEntriesByName("hwscope-full-core").length > 0);
  assert.equal(await stepOf(page), at, "the full core takes over at the step shown");
  assert.equal(await page.textContent("#live"), said[at]);
  await page.click("#fwd");
  assert.equal(await page.textContent("#live"), said[at + 1]);
  const texts = await page.$$eval("#narration li button", (bs) => bs.map((b) => b.textContent));
  assert.ok(!texts.some((t) => t.includes("Loading the narration")), texts.join("\n"));
  await page.waitForTimeout(300);
  assert.deepEqual((await page.evaluate(() => window.__moved)).filter((id) => id !== "narration"), [], "nothing but the narration log moved");
  assertNoErrors(page);
  await context.close();
});

test("an embed does not fetch the full core until it shows a step it cannot tell", async () => {
  const { context, page, release, asked } = await pageWithFullCoreHeld();
  await page.goto(new URL("/?embed=1&scenario=unclean-election#at=63", env.baseURL).href);
  await page.waitForFunction(() => document.documentElement.dataset.boot === "live");
  await page.waitForTimeout(1500);
  const said = sentences("unclean-election", 66);
  assert.equal(asked(), 0, "no full core while the embed shows what it drew");
  assert.equal(await page.textContent("#live"), said[63], "the caption drawn first stays");
  // Steps 0-64 came in the steps file with their sentences (computed at build time).
  await page.click("#fwd");
  assert.equal(await page.textContent("#live"), said[64]);
  await page.click("#back");
  await page.click("#back");
  assert.equal(await page.textContent("#live"), said[62]);
  await page.click("#fwd");
  await page.click("#fwd");
  await page.waitForTimeout(200);
  assert.equal(asked(), 0, "none while it shows a step the steps file told");
  // Step 65 is past the steps file: the first core writes no records, so it waits for the
  // full core (the step shown stays, with its sentence), then is shown with its own.
  await page.click("#fwd");
  await page.waitForTimeout(200);
  assert.equal(await stepOf(page), 64);
  assert.equal(await page.textContent("#live"), said[64]);
  assert.equal(asked(), 1, "the step past the steps file asks for the full core");
  release();
  await page.waitForFunction(() => performance.getEntriesByName("hwscope-full-core").length > 0);
  await page.waitForFunction(() => document.getElementById("status").dataset.step === "65");
  assert.equal(await page.textContent("#live"), said[65]);
  assert.equal(await page.evaluate(() => window.__cls), 0);
  assertNoErrors(page);
  await context.close();
});

test("playing on past the steps file waits for the full core at step 64, then plays on", async () => {
  const { context, page, release } = await pageWithFullCoreHeld();
  await page.goto(new URL("/?scenario=steady-load", env.baseURL).href);
  await page.waitForFunction(() => document.documentElement.dataset.boot === "live");
  await scrubTo(page, 62);
  await page.fill("#speed", "7");
  await page.click("#play");
  await page.waitForFunction(() => document.getElementById("status").dataset.step === "64");
  await page.waitForTimeout(800);
  assert.equal(await stepOf(page), 64, "held at the last step written at build time");
  assert.equal(await page.textContent("#play"), "Pause", "still playing: it goes on when the step comes");
  release();
  await page.waitForFunction(() => Number(document.getElementById("status").dataset.step) > 64);
  await page.click("#play");
  assertNoErrors(page);
  await context.close();
});

test("a step past the steps file waits for the full core when pressed; then it is shown, told", async () => {
  const { context, page, release, asked } = await pageWithFullCoreHeld();
  await context.addInitScript(() => {
    window.__moved2 = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__moved2.push([e.value, e.hadRecentInput, ...(e.sources ?? []).map((x) => x.node?.id || x.node?.className || x.node?.nodeName)]))).observe({ type: "layout-shift", buffered: true });
  });
  await page.goto(new URL("/?scenario=steady-load", env.baseURL).href);
  await page.waitForFunction(() => document.documentElement.dataset.boot === "live");
  await page.waitForTimeout(300);
  // End: the furthest step the first core has computed (its look-ahead), past the steps file.
  await page.waitForFunction(() => Number(document.getElementById("scrub").max) > 64);
  const end = await page.$eval("#scrub", (s) => Number(s.max));
  await page.click("#end");
  await page.waitForTimeout(300);
  assert.equal(await stepOf(page), 0, "the step shown stays until the full core has come");
  assert.equal(await fullCore(page), false);
  assert.ok(asked() >= 1);
  release();
  await page.waitForFunction(() => performance.getEntriesByName("hwscope-full-core").length > 0);
  await page.waitForFunction((n) => Number(document.getElementById("status").dataset.step) >= n, end);
  const said = await page.textContent("#live");
  assert.ok(said && !/Loading/.test(said), said);
  // The stage keeps its place (the step counter under the scrubber widens as the run is
  // computed further, on either core).
  assert.deepEqual((await page.evaluate(() => window.__moved2)).filter((m) => m.includes("stage") || m.includes("stage-box")), []);
  assertNoErrors(page);
  await context.close();
});

test("Settings waits for the full core, and a failed download says so and is tried again", async () => {
  const context = await env.browser.newContext({ baseURL: env.baseURL, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  watch(page);
  let fail = true;
  await page.route(/\/hwscope_bg(\.[0-9a-f]{10})?\.wasm$/, (route) => (fail ? route.abort() : route.continue()));
  await page.goto(new URL("/", env.baseURL).href);
  await page.waitForFunction(() => document.documentElement.dataset.boot === "live");
  await page.waitForTimeout(500);
  await page.click("#settings-open");
  await page.waitForFunction(() => /could not be loaded/.test(document.getElementById("notice").textContent));
  assert.equal(await page.isVisible("#settings"), false);
  fail = false;
  await page.click("#settings-open");
  await page.waitForFunction(() => performance.getEntriesByName("hwscope-full-core").length > 0);
  await page.waitForSelector("#settings", { state: "visible" });
  await context.close();
});

test("a share link to a built-in as it is is live on the first core; the full core then says it reproduced exactly", async () => {
  const p = new pkg.Playground();
  p.configure(pkg.builtinScenarios().find((b) => b.name === "kip101-data-loss").json);
  p.seek(20);
  const fragment = p.link();
  p.free();
  const { context, page, release } = await pageWithFullCoreHeld();
  await context.addInitScript(() => {
    window.__moved = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__moved.push(...(e.sources ?? []).map((x) => (x.node?.closest?.("#narration") ? "narration" : x.node?.id || x.node?.nodeName))))).observe({ type: "layout-shift", buffered: true });
  });
  await page.goto(new URL(`/#${fragment}`, env.baseURL).href);
  // Live while the full core is held: the link was read without it.
  await page.waitForFunction(() => document.documentElement.dataset.boot === "live");
  assert.equal(await stepOf(page), 20);
  assert.equal(await fullCore(page), false);
  // Its room on the status line is kept, not shown, until the state hash is compared.
  assert.equal(await page.$eval("#status .verified", (v) => !v.hidden && v.classList.contains("pending")), true);
  release();
  await page.waitForFunction(() => performance.getEntriesByName("hwscope-full-core").length > 0);
  await page.waitForFunction(() => !document.querySelector("#status .verified.pending"));
  assert.equal(await page.$eval("#status .verified", (v) => !v.hidden), true, "link reproduced exactly");
  assert.equal(await stepOf(page), 20);
  assert.equal(await page.textContent("#live"), sentences("kip101-data-loss", 20)[20]);
  // Nothing moved but the narration log, whose history before the link's step is filled in
  // once the full core can tell it (as after any jump).
  await page.waitForTimeout(300);
  assert.deepEqual((await page.evaluate(() => window.__moved)).filter((id) => id !== "narration"), [], "nothing but the narration log moved");
  // A wrong state hash is said once the full core has compared it.
  await page.evaluate((f) => (location.hash = f), fragment.replace(/h=[0-9a-f]{16}/, "h=0123456789abcdef"));
  await page.waitForFunction(() => /not the state this link was made from/.test(document.getElementById("notice").textContent));
  assertNoErrors(page);
  await context.close();
});
