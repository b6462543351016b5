// The parts of the page that load on first use (www/core/ondemand.js): Settings, Share,
// Learn and the broker log. When a part's download fails after the page has loaded (a
// learner on a train, a server redeployed), the page says so in a notice that names the
// part, shows no error over the page, and the next press loads it.
// Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertNoErrors, errorsOf, launch, pageWithCoreHeld } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

const LAZY = /\/(panels\/(settings|share|kafkalog)|learn\/learn)\.js$/;

async function openBlocked(path) {
  const page = await env.newPage();
  const state = { block: true };
  await page.route(LAZY, (route) => (state.block ? route.abort() : route.continue()));
  await page.goto(new URL(path, env.baseURL).href);
  await page.waitForSelector("html[data-boot=live]");
  return { page, state };
}

const noticeText = (page) => page.$eval("#notice", (n) => (n.hidden ? "" : n.textContent));
const bannerShown = (page) => page.$eval("#banner", (b) => !b.hidden);
const dismiss = (page) => page.click("#notice button.link");

test("Settings, Share and Learn whose download failed: a notice names each, no error banner, and the next press opens it", async () => {
  const { page, state } = await openBlocked("/");
  for (const [button, what] of [["#settings-open", "Settings"], ["#share-open", "Share"], ["#learn-open", "Learn"]]) {
    await page.click(button);
    await page.waitForFunction(() => !document.getElementById("notice").hidden);
    assert.match(await noticeText(page), new RegExp(`^${what} could not be loaded: its download failed`));
    assert.equal(await bannerShown(page), false, `no error banner after ${what} failed`);
    await dismiss(page);
  }
  state.block = false;
  await page.click("#settings-open");
  await page.waitForSelector("dialog#settings[open]");
  await page.keyboard.press("Escape");
  await page.click("#share-open");
  await page.waitForSelector("dialog#share[open]");
  await page.keyboard.press("Escape");
  await page.click("#learn-open");
  await page.waitForSelector("#learn:not([hidden])");
  assert.equal(await bannerShown(page), false);
  assert.deepEqual(errorsOf(page).page.map((e) => e.message), [], "uncaught page errors");
  await page.close();
});

test("the broker log whose download failed: said once, and it loads when the panel is opened again", async () => {
  const { page, state } = await openBlocked("/?scenario=kip101-data-loss");
  // Fetched ahead at idle (failing silently: no notice for what nobody asked for).
  await page.waitForTimeout(1500);
  assert.equal(await noticeText(page), "", "no notice for a fetch ahead of use");
  const toggle = (open) => page.evaluate((o) => (document.getElementById("kafka-log").closest("details").open = o), open);
  await toggle(true);
  await page.waitForFunction(() => !document.getElementById("notice").hidden);
  assert.match(await noticeText(page), /^The broker log could not be loaded/);
  await dismiss(page);
  state.block = false;
  await toggle(false);
  await toggle(true);
  await page.click("#end");
  await page.waitForFunction(() => document.querySelectorAll("#kafka-log li").length > 0);
  assert.equal(await bannerShown(page), false);
  assert.deepEqual(errorsOf(page).page.map((e) => e.message), [], "uncaught page errors");
  await page.close();
});

// A press that waits for the full core (core/ondemand.js whenReady) hands focus on as a
// keyboard user expects once it has acted, and only if they did not go on meanwhile.
const FULL_CORE = /\/hwscope_bg(\.[0-9a-f]{10})?\.wasm$/;
const focused = (page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.dataset.iv || document.activeElement?.tagName);

async function liveWithFullCoreHeld() {
  const held = await pageWithCoreHeld(env, FULL_CORE);
  await held.page.goto(new URL("/?scenario=seed-walkthrough", env.baseURL).href);
  await held.page.waitForSelector("html[data-boot=live]");
  return held;
}

test("by keyboard, Learn pressed while the full core is on its way: its panel has focus once open", async () => {
  const { context, page, release } = await liveWithFullCoreHeld();
  await page.focus("#learn-open");
  await page.keyboard.press("Enter");
  await page.waitForTimeout(200);
  assert.equal(await focused(page), "learn-open", "nothing opens before the full core");
  release();
  await page.waitForSelector("#learn:not([hidden])");
  await page.waitForFunction(() => document.activeElement?.id === "learn");
  // Tab goes on inside Learn.
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => !!document.activeElement.closest("#learn")), true);
  assertNoErrors(page);
  await context.close();
});

test("Explore pressed while the full core is on its way, then the user goes on: focus stays where they went", async () => {
  const { context, page, release } = await liveWithFullCoreHeld();
  await page.focus("#explore-open");
  await page.keyboard.press("Enter");
  await page.focus("#iv-records");
  await page.keyboard.type("7");
  release();
  await page.waitForSelector("#explore:not([hidden])");
  await page.waitForTimeout(300);
  assert.equal(await focused(page), "iv-records", "not pulled into Explore");
  // Pressed and left alone, Explore takes focus as before.
  await page.click("#explore .link");
  await page.focus("#explore-open");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.activeElement?.id === "explore");
  assertNoErrors(page);
  await context.close();
});

test("by keyboard, Settings pressed while the full core is on its way opens with focus in it, and Esc returns it", async () => {
  const { context, page, release } = await liveWithFullCoreHeld();
  await page.focus("#settings-open");
  await page.keyboard.press("Enter");
  await page.waitForTimeout(200);
  release();
  await page.waitForSelector("#settings[open]");
  assert.equal(await page.evaluate(() => !!document.activeElement.closest("#settings")), true, "focus is in the dialog");
  await page.keyboard.press("Escape");
  assert.equal(await focused(page), "settings-open");
  assertNoErrors(page);
  await context.close();
});
