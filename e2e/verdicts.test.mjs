// The verdict strip under the scrubber and its list (issue 27, www/panels/verdicts.js):
// what a learner sees of each property along a run, in Chromium. The verdicts come
// from the core; these tests check that the page shows them where they belong and
// that a witness's button takes the learner to the step where it broke.
// Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { assertNoErrors, launch, openLive, ROOT, stepOf } from "./helpers.mjs";

const wasm = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
wasm.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });

const builtin = (name) => JSON.parse(wasm.builtinScenarios().find((s) => s.name === name).json);

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

const open = (path) => openLive(env, path);
const summary = (page) => page.$eval("#verdicts .v-summary", (s) => s.textContent);

test("KIP-101 under 0.10: the loss is named with its witness, and its button shows the step", async () => {
  const page = await open("/?scenario=kip101-data-loss");
  await page.waitForFunction(() => /broken elsewhere in the run/.test(document.querySelector("#verdicts .v-summary").textContent));
  assert.match(await summary(page), /^Step 0: all \d+ properties hold \(\d+ broken elsewhere/);
  // Red segments in the strip, one row per property.
  assert.ok(await page.$$eval("#vstrip rect.v-fails", (r) => r.length) >= 1, "the strip shows a broken segment");
  await page.click("#verdicts .v-summary");
  const item = '#verdicts .v-list li[data-property="acked-record-lost"]';
  await page.waitForSelector(item, { state: "visible" });
  const text = await page.$eval(item, (li) => li.textContent);
  // The witness: which record, at which offset, on which leader in which epoch.
  assert.match(text, /record p1-\d+ · offset \d+ · replica \d+ · leader epoch \d+/, text);
  assert.match(text, /holds here; broken from step \d+/, text);
  const first = await page.$eval(item, (li) => Number(li.dataset.first));
  assert.ok(first > 0);
  await page.click(`${item} button`);
  await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), first);
  assert.equal(await stepOf(page), first);
  assert.match(await summary(page), new RegExp(`^Step ${first}: .*acked-record-lost broken`));
  assert.equal(await page.$eval(item, (li) => [li.className, li.querySelector(".v-mark").textContent].join(" ")), "v-fails ✗");
  // The cursor sits over the broken segment of the strip, not at its start.
  const cursor = await page.$eval("#vstrip .v-cursor", (l) => Number(l.getAttribute("x1")));
  assert.ok(cursor > 8, `cursor at x = ${cursor}`);
  assertNoErrors(page);
  await page.close();
});

test("the same schedule under kafka-4.0: no property broken, and the strip says so", async () => {
  const scenario = { ...builtin("kip101-data-loss"), preset: "kafka-4.0" };
  const page = await open(`/#${wasm.encodeLink(JSON.stringify(scenario))}`);
  await page.click("#end");
  await page.waitForFunction(() => {
    const s = document.getElementById("status").dataset;
    return s.step && /^Step \d+: all \d+ properties hold in the \d+ steps computed\.$/.test(document.querySelector("#verdicts .v-summary").textContent);
  });
  assert.equal(await page.$$eval("#vstrip rect.v-fails, #vstrip rect.v-allowed", (r) => r.length), 0);
  assert.equal(await page.$$eval("#verdicts .v-list li", (l) => l.length), 0);
  assertNoErrors(page);
  await page.close();
});
