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

// At 1280 px the notice floated at the top of the window, over the header's picker, Learn
// and Explore until dismissed: a click on Learn landed on the notice. It now sits under the
// header, and showing it moves nothing (it floats: the stage keeps its place).
test("1280 px: a notice never covers the header's controls and moves nothing", async () => {
  const wide = await launch({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await wide.open("/?scenario=kip101-data-loss", { until: ["html[data-boot=live]"] });
    const stageTop = () => page.$eval("#stage", (s) => s.getBoundingClientRect().top);
    const top0 = await stageTop();
    await page.click("#settings-open");
    await page.waitForSelector("dialog#settings[open]");
    await page.selectOption("#f-preset", "kafka-4.0");
    await page.click("#settings-run");
    await page.waitForSelector("#notice:not([hidden]) .notice-action");
    const hits = await page.evaluate(() => {
      const n = document.getElementById("notice").getBoundingClientRect();
      return [...document.querySelectorAll("header.bar select, header.bar button")].map((c) => {
        const r = c.getBoundingClientRect();
        const overlap = r.left < n.right && n.left < r.right && r.top < n.bottom && n.top < r.bottom;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return { id: c.id, overlap, reaches: c === hit || c.contains(hit) };
      });
    });
    for (const h of hits) {
      assert.ok(!h.overlap && h.reaches, `the notice covers #${h.id}: ${JSON.stringify(h)}`);
    }
    assert.equal(await stageTop(), top0, "the stage stays where it was");
    await page.click("#learn-open");
    await page.waitForSelector("#learn-open[aria-expanded=true], .learn-slot:not(:empty), dialog[open]", { timeout: 5000 });
    assertNoErrors(page);
    await page.close();
  } finally {
    await wide.close();
  }
});

// Settings' Run after a preset change from step 0 said "at 0 ms as before (step 1)": the run
// moved to the last step at 0 ms. Step 0 is the same moment under any preset; when the step
// number does change, the notice says so.
test("a preset change keeps step 0, and says when the step number changed", async () => {
  const change = async (page, preset) => {
    await page.click("#settings-open");
    await page.waitForSelector("dialog#settings[open]");
    await page.selectOption("#f-preset", preset);
    await page.click("#settings-run");
    await page.waitForSelector("#notice:not([hidden]) .notice-action");
    const text = await page.$eval("#notice span", (s) => s.textContent);
    await page.click("#notice button.link");
    return text;
  };
  const page = await env.open("/?scenario=kip101-data-loss", { until: ["html[data-boot=live]"] });
  await page.click("#first");
  const text = await change(page, "kafka-4.0");
  assert.equal(text, "Now under kafka-4.0, at 0 ms (step 0), as before.");
  // Later in the run the two presets' steps differ: both numbers are named.
  await page.click("#end");
  const later = await change(page, "kafka-0.10");
  const m = later.match(/^Now under kafka-0\.10, at [\d,.]+ ms (?:\(step (\d+)\), as before|as before: step (\d+) here, step (\d+) under kafka-4\.0)\.$/);
  assert.ok(m, later);
  if (m[2]) assert.notEqual(m[2], m[3], later);
  assertNoErrors(page);
  await page.close();
});

// From the keyboard the notice's ✕ was the far end of the Tab order (the notice is last in the
// page): Esc puts it away, as it closes a dialog.
test("Esc puts a notice away", async () => {
  const page = await env.open("/?scenario=kip101-data-loss", { until: ["html[data-boot=live]"] });
  await page.click("#settings-open");
  await page.waitForSelector("dialog#settings[open]");
  await page.selectOption("#f-preset", "kafka-4.0");
  await page.click("#settings-run");
  await page.waitForSelector("#notice:not([hidden])");
  await page.focus("#play");
  await page.keyboard.press("Escape");
  assert.equal(await page.$eval("#notice", (n) => n.hidden), true, "Esc dismissed the notice");
  assertNoErrors(page);
  await page.close();
});
