// The parts of the page that load on first use (www/core/ondemand.js): Settings, Share,
// Learn and the broker log. When a part's download fails after the page has loaded (a
// learner on a train, a server redeployed), the page says so in a notice that names the
// part, shows no error over the page, and the next press loads it.
// Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { errorsOf, launch } from "./helpers.mjs";

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
