// Issue 13, "a playground you can play": one test per problem the issue lists,
// each written against the page as a new user meets it (each failed on the page
// before the fix; see docs/page.md). Needs www/pkg (npm run build). Uses
// HWSCOPE_BIN when set, else builds the native CLI once.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { assertNoErrors, launch, ROOT } from "./helpers.mjs";

const TARGET_DIR = resolve(ROOT, process.env.CARGO_TARGET_DIR || "target");
let bin = process.env.HWSCOPE_BIN;
const traces = new Map();

/** The CLI's trace of a built-in scenario, one record per step. */
export function trace(name) {
  if (!traces.has(name)) {
    if (!bin) {
      execFileSync("cargo", ["build", "--quiet", "--release", "--bin", "hwscope"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
      bin = join(TARGET_DIR, "release", "hwscope");
    }
    const r = spawnSync(bin, ["run", "--builtin", name, "--format", "jsonl"], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 30 });
    assert.equal(r.status, 0, `hwscope run --builtin ${name}: ${r.stderr}`);
    traces.set(name, r.stdout.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)));
  }
  return traces.get(name);
}

const stepOf = (page) => page.$eval("#status", (s) => Number(s.dataset.step));

async function open(path, viewport) {
  const page = await env.newPage();
  if (viewport) await page.setViewportSize(viewport);
  await page.goto(new URL(path, env.baseURL).href);
  await page.waitForSelector("#status[data-step]");
  await page.waitForSelector(".broker[data-broker]");
  return page;
}

/** Moves the scrubber as a user would (an input event), once it reaches n. */
async function scrubTo(page, n) {
  await page.waitForFunction((v) => Number(document.getElementById("scrub").max) >= v, n);
  await page.$eval("#scrub", (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }, n);
  await page.waitForFunction((v) => document.getElementById("status").dataset.step === String(v), n);
}

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

describe("issue 13", () => {
  test("problem 3: the broker being dropped is leaving the ISR, and a pending shrink reads as a shrink", async () => {
    const recs = trace("slow-follower-isr");
    const proposed = recs.findIndex((r) => r.event?.type === "timeout" && r.event.outcome === "shrink-proposed");
    const committed = recs.findIndex((r, n) => n > proposed && r.partition.isr.length < recs[proposed].partition.isr.length);
    const dropped = recs[proposed].partition.isr.find((b) => !recs[proposed].event.isr.includes(b));
    const expanding = recs.findIndex((r, n) => n > committed && r.partition.maximal_isr.length > r.partition.isr.length);
    assert.ok(proposed > 0 && committed > proposed && expanding > committed, "the scenario shrinks, then expands");
    const page = await open("/?scenario=slow-follower-isr");
    const label = () => page.$eval(`.broker[data-broker="${dropped}"]`, (g) => g.getAttribute("aria-label"));
    const drawn = () => page.$eval(`.broker[data-broker="${dropped}"] text:nth-of-type(2)`, (t) => t.textContent);
    const status = () => page.textContent("#status");
    for (const n of [proposed, committed]) {
      await scrubTo(page, n);
      assert.match(await label(), /leaving ISR/, `step ${n}: broker ${dropped} is leaving`);
      assert.match(await drawn(), /leaving ISR/, `step ${n}: the stage says leaving`);
      assert.match(await status(), /shrinking/, `step ${n}: the status line says the ISR is shrinking`);
      assert.doesNotMatch(await status(), /pending \{/, `step ${n}: no "pending {…}" that reads as growth`);
    }
    await scrubTo(page, expanding);
    assert.match(await label(), /joining ISR/, "a caught-up follower counted by the leader is joining");
    assert.match(await status(), /expanding/);
    assertNoErrors(page);
    await page.close();
  });

  test("problem 6: Space presses the focused control; only elsewhere does it play", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    // A focused button: Space presses it (Produce forks the run at step 0).
    await page.focus('[data-iv="produce"]');
    await page.keyboard.press(" ");
    assert.equal(await page.textContent("#play"), "Play", "Space on Produce does not start playback");
    assert.equal(await stepOf(page), 1, "Space on Produce produced");
    // The description's toggle: Space folds it.
    const open0 = await page.$eval("#about details", (d) => d.open);
    await page.focus("#about summary");
    await page.keyboard.press(" ");
    assert.equal(await page.$eval("#about details", (d) => d.open), !open0, "Space on the description's toggle folds it");
    assert.equal(await page.textContent("#play"), "Play");
    // Learn: Space opens it.
    await page.focus("#learn-open");
    await page.keyboard.press(" ");
    await page.waitForSelector("#learn:not([hidden])");
    assert.equal(await page.textContent("#play"), "Play");
    // Nothing focused: Space plays and pauses.
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press(" ");
    assert.equal(await page.textContent("#play"), "Pause");
    await page.keyboard.press(" ");
    assert.equal(await page.textContent("#play"), "Play");
    assertNoErrors(page);
    await page.close();
  });

  test("problem 11: Heal only what is cut; a modified run says so; Settings and the description agree; the demo's range has its write; chart marks and diagram rows", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    // Heal link is for a cut link only.
    assert.equal(await page.isDisabled('[data-iv="heal"]'), true, "nothing is cut: Heal link is disabled");
    await page.click('[data-iv="partition"]');
    assert.equal(await page.isDisabled('[data-iv="heal"]'), false, "after Cut link, Heal link is enabled");
    assert.equal(await page.isDisabled('[data-iv="partition"]'), true, "a cut link cannot be cut again");
    // After an intervention the picker and the description say the run is modified.
    const picked = await page.$eval("#scenario", (s) => s.selectedOptions[0].textContent);
    assert.match(picked, /modified/, "the picker says modified");
    assert.match(await page.textContent("#about"), /modified by an intervention at step 1/);
    await page.click("#reset");
    assert.doesNotMatch(await page.$eval("#scenario", (s) => s.selectedOptions[0].textContent), /modified/, "Reset: the built-in again");
    // The latency the description names is the one Settings shows.
    const description = await page.textContent("#about");
    const said = Number(description.match(/(\d+) ms/)[1]);
    await page.click("#settings-open");
    const settings = await page.$eval("#settings #fields", (f) => f.textContent);
    assert.ok(settings.includes(`${said} ms`), `Settings shows the ${said} ms the description names`);
    await page.click("#settings-cancel");
    // The demo's second figure: its range holds the write and an HW change.
    const html = readFileSync(join(ROOT, "docs/embed.html"), "utf8");
    const src = html.match(/<iframe id="raw"[^>]*src="([^"]+)"/)[1].replace(/&amp;/g, "&");
    const q = new URL(src, "http://x/").searchParams;
    const recs = trace(q.get("scenario"));
    const from = Number(q.get("from") ?? 0);
    const to = Number(q.get("to") ?? recs.length - 1);
    const write = recs.findIndex((r) => r.event?.type === "produce" || r.event?.type === "produce_request");
    const hwMove = recs.findIndex((r, n) => n > 0 && r.replicas.some((x, i) => x.hw !== recs[n - 1].replicas[i].hw));
    assert.ok(from <= write && write <= to, `the write (step ${write}) is within ${from}–${to}`);
    assert.ok(from <= hwMove && hwMove <= to, `an HW change (step ${hwMove}) is within ${from}–${to}`);
    await page.close();

    // Chart marks are 24 px targets; the diagram's rows are reachable and operable by keyboard.
    const views = await open("/?scenario=seed-walkthrough&view=chart,diagram");
    await views.waitForSelector(".view-chart svg .mk");
    await views.waitForSelector(".view-diagram svg .row");
    const sizes = await views.$$eval(".view-chart .mk", (ms) => ms.map((m) => m.getBoundingClientRect()).map((r) => Math.min(r.width, r.height)));
    assert.ok(sizes.length > 0 && Math.min(...sizes) >= 24, `chart marks are at least 24 px (smallest ${Math.min(...sizes)})`);
    const row = await views.$('.view-diagram .row[tabindex="0"]');
    assert.ok(row, "one diagram row is in the tab order");
    await row.focus();
    await views.keyboard.press("ArrowDown");
    await views.keyboard.press("ArrowDown");
    await views.keyboard.press("Enter");
    assert.equal(await stepOf(views), 2, "↓ ↓ Enter on the diagram shows step 2");
    assertNoErrors(views);
    await views.close();
  });
});
