// The first stage (drawn before the WebAssembly arrives) is exactly what the live page
// then shows: the same step, the same picture, for the page, an embed at #at=N, an
// embed with ?from=, and a share link to a built-in at a later step, from the source
// tree (npm start) and from the published build (npm run dist, its modules bundled).
// A link the page cannot read without the core (a scenario that is no built-in) draws
// nothing early rather than something else.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { assertNoErrors, launch, pageWithCoreHeld, ROOT } from "./helpers.mjs";

const OUT = mkdtempSync(join(tmpdir(), "hwscope-firstframe-"));
const pkg = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
pkg.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });

/** The fragment the Share button writes for step `at` of a built-in (optionally changed). */
function link(name, at, change = (s) => s) {
  const p = new pkg.Playground();
  p.setLogTail(64);
  p.configure(JSON.stringify(change(JSON.parse(pkg.builtinScenarios().find((b) => b.name === name).json))));
  p.seek(at);
  const fragment = p.link();
  p.free();
  return fragment;
}

let source;
let dist;
before(async () => {
  execFileSync(process.execPath, [join(ROOT, "scripts/dist.mjs"), "--out", OUT], { stdio: "ignore" });
  source = await launch();
  dist = await launch({ root: OUT });
});
after(async () => {
  await source?.close();
  await dist?.close();
  rmSync(OUT, { recursive: true, force: true });
});

/** What a reader sees of the stage and the step: the SVG as drawn, the step line, the caption. */
const seen = () => ({
  stage: document.getElementById("stage").innerHTML,
  step: document.querySelector("#status .step").textContent,
  part: document.querySelector("#status .part").textContent,
  time: document.querySelector("#status .time").textContent,
  caption: document.getElementById("live").textContent,
  height: document.getElementById("stage").getBoundingClientRect().height,
});

/** Opens `path` with the core held back; returns what the first stage showed (or null) and what the live page shows. */
async function firstAndLive(env, path) {
  const { context, page, release } = await pageWithCoreHeld(env);
  await page.goto(new URL(path, env.baseURL).href);
  // The first stage, or (when the page cannot draw this address early) nothing until the core.
  await page.waitForFunction(() => document.documentElement.dataset.boot === "drawn" || performance.getEntriesByName("hwscope-first-stage").length, null, { timeout: 10_000 }).catch(() => {});
  await page.waitForTimeout(400);
  const first = (await page.evaluate(() => document.documentElement.dataset.boot)) === "drawn" ? await page.evaluate(seen) : null;
  const core = await page.evaluate(() => performance.getEntriesByName("hwscope-core-ready").length);
  release();
  await page.waitForFunction(() => document.documentElement.dataset.boot === "live");
  // Layout shifts up to the frame after the core took over (later ones, such as the
  // narration's history filled in 150 ms after a link's jump, are not the load's).
  const cls = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(window.__cls)))));
  await page.waitForTimeout(700);
  const live = await page.evaluate(seen);
  assertNoErrors(page);
  await context.close();
  return { first, live, core, cls };
}

const CASES = [
  ["the page", "/"],
  // Not the default built-in: its step 0 is a file of its own (www/pkg/first/NAME.json).
  ["another built-in at step 0", "/?scenario=acks-and-min-isr"],
  ["an embed at #at=4", "/?embed=1&scenario=seed-walkthrough#at=4"],
  ["an embed from step 6, at #at=9", "/?embed=1&scenario=kip101-data-loss&from=6&to=30#at=9"],
  ["an embed at #at= past a short run's end", "/?embed=1&scenario=seed-walkthrough#at=40"],
  ["a share link to a built-in at step 20", `/#${link("kip101-data-loss", 20)}`],
  ["a share link at step 37 of another", `/?scenario=seed-walkthrough#${link("unclean-election", 37)}`],
];

for (const [where, env] of [["source tree", () => source], ["published build", () => dist]]) {
  test(`${where}: the first stage is drawn before the core and is what the live page shows`, async () => {
    for (const [what, path] of CASES) {
      const r = await firstAndLive(env(), path);
      assert.equal(r.core, 0, `${what}: the core was held back`);
      assert.ok(r.first, `${what}: a first stage was drawn before the core`);
      assert.ok(r.first.stage.length > 1000, `${what}: the first stage has the brokers`);
      assert.deepEqual(r.live, r.first, `${what}: the live page shows exactly the first stage`);
      assert.equal(r.cls, 0, `${what}: no layout shift`);
    }
  });
}

test("a link to a scenario that is not a built-in draws nothing early, then the link's step", async () => {
  const changed = link("kip101-data-loss", 12, (s) => ({ ...s, title: "Changed" }));
  for (const env of [source, dist]) {
    const r = await firstAndLive(env, `/#${changed}`);
    assert.equal(r.first, null, "nothing before the core");
    assert.equal(r.live.step, "step 12");
  }
});
