// The notice that floats over the page (www/panels/notice.js) at a phone's width: with an
// action button beside its text (Settings' Run after a preset change offers the side-by-side
// comparison), the text had a column a few letters wide and the notice grew to ~290 px tall
// over the header and the stage. Its text keeps a readable width; the action wraps below it.
// Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertNoErrors, launch } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch({ viewport: { width: 360, height: 740 } });
});
after(async () => {
  await env?.close();
});

test("360 px: a notice with an action keeps its text readable and stays short", async () => {
  const page = await env.open("/?scenario=kip101-data-loss", { until: ["html[data-boot=live]"] });
  await page.click("#settings-open");
  await page.waitForSelector("dialog#settings[open]");
  await page.selectOption("#f-preset", "kafka-4.0");
  await page.click("#settings-run");
  await page.waitForSelector("#notice:not([hidden]) .notice-action");
  const box = await page.$eval("#notice", (n) => {
    const r = n.getBoundingClientRect();
    return { text: n.querySelector("span").getBoundingClientRect().width, height: r.height, right: r.right };
  });
  assert.ok(box.text >= 200, `the notice's text is ${box.text} px wide`);
  assert.ok(box.height <= 160, `the notice is ${box.height} px tall`);
  assert.ok(box.right <= 360, `the notice ends at ${box.right} px, within the 360 px viewport`);
  // Still dismissable.
  await page.click("#notice button.link");
  assert.equal(await page.$eval("#notice", (n) => n.hidden), true);
  assertNoErrors(page);
  await page.close();
});
