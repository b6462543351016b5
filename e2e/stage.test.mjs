// The stage never overprints (issue 13, problem 5): in every step of every
// built-in scenario, at 1280 px and at 360 px, no two pieces of text drawn on the
// stage overlap, none leaves the stage, and none is smaller than 12 px. What is
// measured is what Chromium drew (each <text>'s box on screen), at the step's
// own instant. steady-load (170,024 steps, the benchmark) is checked on its
// first 2,000 steps and every 97th step of the 50,000 the page looks ahead.
// The same for `hwscope svg` (src/cli/svg/), as Chromium draws its SVGs: every
// step of every built-in (steady-load: its first 300).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { assertNoErrors, hwscope, hwscopeEach, launch, ROOT } from "./helpers.mjs";

const wasm = await import(join(ROOT, "www/pkg/hwscope.js"));
wasm.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });
const BUILTINS = wasm.builtinScenarios().map((s) => s.name);

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

/** Walks the page through `steps` (scrubber input, as a user would) and returns
 *  every overlap, text outside the stage and text under 12 px it finds. */
function check(steps) {
  const scrub = document.getElementById("scrub");
  const svg = document.getElementById("stage");
  const problems = [];
  for (const n of steps) {
    if (n > Number(scrub.max)) break;
    scrub.value = String(n);
    scrub.dispatchEvent(new Event("input", { bubbles: true }));
    const frame = svg.getBoundingClientRect();
    const boxes = [];
    for (const t of svg.querySelectorAll("text")) {
      const words = t.textContent.trim();
      if (!words || t.closest("[visibility=hidden]")) continue;
      const r = t.getBoundingClientRect();
      if (!r.width) continue;
      boxes.push({ words, r, size: parseFloat(getComputedStyle(t).fontSize) });
    }
    for (const b of boxes) {
      if (b.size < 12) problems.push(`step ${n}: "${b.words}" is ${b.size} px`);
      if (b.r.left < frame.left - 0.5 || b.r.right > frame.right + 0.5 || b.r.top < frame.top - 0.5 || b.r.bottom > frame.bottom + 0.5) problems.push(`step ${n}: "${b.words}" leaves the stage`);
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r;
        const b = boxes[j].r;
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 0.5 && y > 0.5) problems.push(`step ${n}: "${boxes[i].words}" overlaps "${boxes[j].words}" (${x.toFixed(1)}×${y.toFixed(1)} px)`);
      }
    }
    if (problems.length > 20) break;
  }
  return problems;
}

// The two widths side by side: each is one renderer laying out every step, which keeps one
// core busy; on 2 cores the other was idle.
describe("problem 5: no two words on the stage overlap, in any step of any built-in", { concurrency: 2 }, () => {
  for (const width of [1280, 360]) {
    test(`at ${width} px`, async () => {
      const page = await env.newPage();
      await page.setViewportSize({ width, height: 900 });
      const found = [];
      for (const name of BUILTINS) {
        await page.goto(new URL(`/?scenario=${name}`, env.baseURL).href);
        await page.waitForSelector("#status[data-step]");
        // The full core (fetched once the page is idle) draws every step; the first core
        // shows only steps 0..64, written at build time (a step past them waits for it).
        await page.waitForFunction(() => performance.getEntriesByName("hwscope-full-core").length > 0, null, { timeout: 60_000 });
        const total = wasm.builtinScenarios().find((s) => s.name === name);
        // The whole run, as the look-ahead computes it (steady-load: its first 50,000 steps).
        await page.waitForFunction(() => !/so far/.test(document.getElementById("scrub-out").textContent) || Number(document.getElementById("scrub").max) >= 49_999, null, { timeout: 60_000 });
        const max = await page.$eval("#scrub", (s) => Number(s.max));
        const last = max;
        const steps = [];
        for (let n = 0; n <= Math.min(max, last); n++) if (name !== "steady-load" || n < 2000 || n % 97 === 0) steps.push(n);
        assert.ok(total && steps.length > 10, `${name}: steps to check`);
        // In batches, so one evaluate does not run for minutes.
        for (let i = 0; i < steps.length && found.length < 40; i += 1500) {
          for (const p of await page.evaluate(check, steps.slice(i, i + 1500))) found.push(`${name} at ${width} px, ${p}`);
        }
      }
      assert.deepEqual(found, []);
      assertNoErrors(page);
      await page.close();
    });
  }
});


// The ZooKeeper era draws two more pills beside the producer's (ZooKeeper, and the controller,
// a broker): at 360 px a retrying producer's pill must still show all its words.
test("problem 5 under a ZooKeeper-era preset: bounce-inside-session under kafka-2.8 at 360 px", async () => {
  const page = await env.newPage();
  await page.setViewportSize({ width: 360, height: 900 });
  await page.goto(new URL("/?scenario=bounce-inside-session", env.baseURL).href);
  await page.waitForSelector("#status[data-step]");
  await page.click("#settings-open");
  await page.selectOption("#f-preset", "kafka-2.8");
  await page.click("#settings-run");
  await page.waitForFunction(() => document.querySelector("#stage .client.zookeeper") && !/so far/.test(document.getElementById("scrub-out").textContent), null, { timeout: 60_000 });
  const max = await page.$eval("#scrub", (s) => Number(s.max));
  const found = await page.evaluate(check, Array.from({ length: max + 1 }, (_, n) => n));
  assert.deepEqual(found.slice(0, 20), []);
  assertNoErrors(page);
  await page.close();
});

/** Overlaps among the texts of each SVG, as the page lays them out. */
function measure(svgs) {
  const box = document.createElement("div");
  document.body.append(box);
  const problems = [];
  for (const [at, svg] of svgs) {
    box.innerHTML = svg;
    const frame = box.firstElementChild.getBoundingClientRect();
    const boxes = [...box.querySelectorAll("text")].filter((t) => t.textContent.trim()).map((t) => ({ words: t.textContent, r: t.getBoundingClientRect() }));
    for (const b of boxes) if (b.r.left < frame.left - 0.5 || b.r.right > frame.right + 0.5) problems.push(`step ${at}: "${b.words}" leaves the picture`);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r;
        const b = boxes[j].r;
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 0.5 && y > 0.5) problems.push(`step ${at}: "${boxes[i].words}" overlaps "${boxes[j].words}" (${x.toFixed(1)}×${y.toFixed(1)} px)`);
      }
    }
  }
  box.remove();
  return problems;
}

test("problem 5: hwscope svg never overprints either, as Chromium draws it", async () => {
  const page = await env.newPage();
  await page.setContent("<!doctype html><body style='margin:0'></body>");
  const found = [];
  for (const name of BUILTINS) {
    const steps = name === "steady-load" ? 300 : hwscope(["run", "--builtin", name, "--log-tail", "1"]).trim().split("\n").length;
    const drawn = await hwscopeEach(Array.from({ length: steps }, (_, n) => ["svg", "--builtin", name, "--at", String(n)]));
    const svgs = drawn.map((svg, n) => [n, svg]);
    for (const p of await page.evaluate(measure, svgs)) found.push(`${name}: ${p}`);
  }
  assert.deepEqual(found.slice(0, 40), []);
  await page.close();
});

// At 360 px a cell too narrow for its record's id showed the id's number alone ("p1-12" → "12")
// beside the offset ruler: read as an offset, one off from the ruler's, and "2" for p-plain-2
// and p-idem-2 alike. A cell says the whole id or no number (its title names the record), and
// a fetch mark's follower is not set close after a ruler number ("105 1▸" read "1051").
test("at 360 px no log cell says a bare number beside the offset ruler; each cell's title names its record", async () => {
  const page = await env.newPage();
  await page.setViewportSize({ width: 360, height: 900 });
  const cells = (p) =>
    p.$$eval("#stage .rec", (gs) =>
      gs.map((g) => {
        const t = g.querySelector("text");
        const within = !t?.textContent || t.getBBox().width <= g.querySelector("rect").getBBox().width;
        return [t?.textContent ?? "", g.querySelector("title")?.textContent ?? "", within];
      }),
    );
  for (const [name, at] of [["retry-duplicates", 40], ["zombie-leader", 60], ["steady-load", 60]]) {
    await page.goto(new URL(`/?scenario=${name}#at=${at}`, env.baseURL).href);
    await page.waitForFunction((n) => document.getElementById("status")?.dataset.step === String(n), at, { timeout: 60_000 });
    const seen = await cells(page);
    assert.ok(seen.length >= 4, `${name}: cells drawn`);
    for (const [words, title, within] of seen) {
      assert.ok(within, `${name}: "${words}" fits its cell`);
      assert.doesNotMatch(words, /^\d+$/, `${name}: a cell says "${words}", which reads as an offset`);
      assert.match(title, /^[\w-]+-\d+ at offset \d+, epoch \d+/, `${name}: the cell's title names its record`);
      if (words && words !== "×2") assert.ok(title.startsWith(words.replace(/ ×2$/, "")), `${name}: "${words}" is the record's whole id`);
    }
  }
  // Two brokers have room for the ids.
  await page.goto(new URL("/?scenario=seed-walkthrough#at=7", env.baseURL).href);
  await page.waitForFunction(() => document.getElementById("status")?.dataset.step === "7");
  assert.deepEqual([...new Set((await cells(page)).map(([w]) => w))].sort(), ["p1-1", "p1-2", "p1-3", "p1-4", "p1-5"]);
  const gap = await page.evaluate(() => {
    const mark = document.querySelector("#stage .fmark text");
    if (!mark?.textContent) return Infinity;
    const m = mark.getBoundingClientRect();
    const rows = [...document.querySelectorAll("#stage text")].filter((t) => /^\d+$/.test(t.textContent) && !t.closest(".fmark, .rec"));
    return Math.min(...rows.filter((t) => Math.abs(t.getBoundingClientRect().top - m.top) < 8).map((t) => m.left - t.getBoundingClientRect().right));
  });
  assert.ok(gap >= 6, `a fetch mark's label keeps clear of the ruler's numbers (gap ${gap.toFixed?.(1) ?? gap} px)`);
  assertNoErrors(page);
  await page.close();
});
