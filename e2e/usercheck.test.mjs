// The page used as a person uses it, off the happy path: the browser's Back after
// a change, an intervention that replaces a later one, a keyboard user crashing
// and restarting, a scenario without producers, Settings closed by accident, a
// long run's counts, and the browser's own harmless notices. Each test failed on
// the page before its fix. Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { assertNoErrors, launch, ROOT, scrubTo, stepOf } from "./helpers.mjs";

const wasm = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
wasm.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });

const builtin = (name) => wasm.builtinScenarios().find((s) => s.name === name).json;
const about = (page) => page.textContent("#about");
const notice = (page) => page.$eval("#notice", (n) => (n.hidden ? "" : n.firstChild.textContent));

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

async function open(path) {
  const page = await env.newPage();
  await page.goto(new URL(path, env.baseURL).href);
  await page.waitForSelector("html[data-boot=live]");
  await page.waitForSelector("#status[data-step]");
  return page;
}

describe("the page off the happy path", () => {
  test("Back after picking another scenario returns to the one before, at its step", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    await scrubTo(page, 3);
    await page.selectOption("#scenario", "kip101-data-loss");
    await page.waitForFunction(() => document.getElementById("scenario").value === "kip101-data-loss");
    assert.doesNotMatch(page.url(), /scenario=seed-walkthrough/, "the address does not name the scenario left");
    await page.goBack();
    await page.waitForFunction(() => document.getElementById("scenario").value === "seed-walkthrough");
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "3");
    await page.goForward();
    await page.waitForFunction(() => document.getElementById("scenario").value === "kip101-data-loss");
    assertNoErrors(page);
    await page.close();
  });

  test("an intervention before an earlier one says the later one is gone, and Back brings it back", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    await scrubTo(page, 3);
    await page.click('[data-iv="produce"]');
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "4");
    assert.match(await about(page), /modified by an intervention at step 4/);
    assert.equal(await notice(page), "", "nothing was dropped");
    await scrubTo(page, 1);
    await page.selectOption("#iv-broker", "1");
    await page.click('[data-iv="crash"]');
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "2");
    assert.match(await notice(page), /intervention at step 4 was after this step.*gone from this run.*Back/);
    assert.match(await about(page), /modified by an intervention at step 2\b/);
    await page.goBack();
    await page.waitForFunction(() => /intervention at step 4/.test(document.getElementById("about").textContent));
    assert.equal(await stepOf(page), 1, "Back: the run before the crash, at the step it was made from");
    assertNoErrors(page);
    await page.close();
  });

  test("by keyboard, Crash hands focus to Restart and Cut link to Heal link", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    await page.focus('[data-iv="crash"]');
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector('[data-iv="crash"]').disabled);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.iv), "restart", "focus is on Restart");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector('[data-iv="restart"]').disabled);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.iv), "crash", "and back on Crash");
    await page.focus('[data-iv="partition"]');
    await page.keyboard.press(" ");
    await page.waitForFunction(() => document.querySelector('[data-iv="partition"]').disabled);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.iv), "heal", "focus is on Heal link");
    assertNoErrors(page);
    await page.close();
  });

  test("by keyboard, one connection between a broker and the controller is healed, then cut again", async () => {
    // A link whose run cuts only broker 0's metadata connection (partition.channel): the
    // whole-link Heal cannot undo it; the connection picker, on the cut one, can.
    const scenario = {
      format: 1,
      title: "metadata connection cut",
      preset: "kafka-4.0",
      replicas: 2,
      events: [{ at_ms: 100, partition: { from: 0, to: "controller", channel: "metadata" } }],
      stop_at_ms: 3000,
    };
    const page = await open(`/#${wasm.encodeLink(JSON.stringify(scenario))}`);
    const status = () => page.textContent("#status");
    await page.waitForFunction(() => Number(document.getElementById("scrub").max) > 2);
    await scrubTo(page, Number(await page.$eval("#scrub", (s) => s.max)));
    assert.match(await status(), /cut 0→controller \(metadata only\)/);
    await page.focus("#iv-a");
    await page.selectOption("#iv-a", "0");
    await page.selectOption("#iv-b", "controller");
    assert.equal(await page.isHidden("#iv-channel"), false, "a broker and the controller: the connection picker is shown");
    assert.equal(await page.inputValue("#iv-channel"), "metadata", "it starts on the connection that is cut");
    assert.match(await page.$eval("#iv-channel", (s) => s.selectedOptions[0].textContent), /metadata.*\(cut\)/);
    assert.equal(await page.isDisabled('[data-iv="heal"]'), false, "Heal link heals that connection");
    assert.equal(await page.isDisabled('[data-iv="partition"]'), false, "cut one way only: Cut link would cut both");
    const before = await stepOf(page);
    await page.focus('[data-iv="heal"]');
    await page.keyboard.press("Enter");
    await page.waitForFunction((n) => Number(document.getElementById("status").dataset.step) > n, before);
    assert.doesNotMatch(await status(), /metadata only/, "healed");
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.iv), "partition", "focus is on Cut link");
    assert.match(await about(page), /modified by an intervention/);
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => /metadata only/.test(document.getElementById("status").textContent));
    // Every connection again: the whole link is not cut, so Heal is off and Cut is on.
    await page.selectOption("#iv-channel", "");
    assert.equal(await page.isDisabled('[data-iv="heal"]'), true);
    assert.equal(await page.isDisabled('[data-iv="partition"]'), false);
    // Two brokers: no connection picker (a link between brokers is one connection here).
    await page.selectOption("#iv-b", "1");
    assert.equal(await page.isHidden("#iv-channel"), true);
    assertNoErrors(page);
    await page.close();
  });

  test("after a link to a later step, the run is computed on past it in idle time, as from step 0", async () => {
    const page = await open("/?scenario=steady-load#at=1000");
    assert.equal(await stepOf(page), 1000);
    // The look-ahead (core/frontier.js LOOKAHEAD) goes on from the step shown.
    await page.waitForFunction(() => Number(document.getElementById("scrub").max) > 20_000, null, { timeout: 30_000 });
    assert.equal(await stepOf(page), 1000, "still showing the link's step");
    assertNoErrors(page);
    await page.close();
  });

  test("a scenario without producers has Produce disabled and says why; a count outside 1–100 is shown as produced", async () => {
    const page = await open(`/#${wasm.encodeLink(JSON.stringify({ format: 1, title: "no producers", replicas: 3, producers: [], stop_at_ms: 2000 }))}`);
    assert.equal(await page.isDisabled('[data-iv="produce"]'), true, "Produce is disabled");
    assert.match(await page.getAttribute('[data-iv="produce"]', "title"), /no producer.*Settings/);
    await page.goto(new URL("/?scenario=seed-walkthrough", env.baseURL).href);
    await page.waitForSelector("html[data-boot=live]");
    assert.equal(await page.isDisabled('[data-iv="produce"]'), false);
    await page.fill("#iv-records", "5000");
    await page.click('[data-iv="produce"]');
    assert.equal(await page.inputValue("#iv-records"), "100", "the box shows the 100 produced");
    assertNoErrors(page);
    await page.close();
  });

  test("Escape in Settings keeps the edits for next time; Cancel lets them go", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    await page.click("#settings-open");
    await page.fill("#f-title", "My edited title");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => !document.getElementById("settings").open);
    await page.click("#settings-open");
    assert.equal(await page.inputValue("#f-title"), "My edited title", "the draft is back");
    assert.equal(await page.isVisible(".draft-note"), true, "and says so");
    await page.click("#settings-cancel");
    await page.click("#settings-open");
    assert.notEqual(await page.inputValue("#f-title"), "My edited title", "Cancel dropped it");
    assert.equal(await page.isVisible(".draft-note"), false);
    // Discard: the run's own scenario again.
    await page.fill("#f-title", "Another draft");
    await page.keyboard.press("Escape");
    await page.click("#settings-open");
    await page.click("#settings-discard");
    assert.notEqual(await page.inputValue("#f-title"), "Another draft");
    await page.click("#settings-cancel");
    assertNoErrors(page);
    await page.close();
  });

  test("text that is not a number in a number box is an error on that box, not the default", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    await page.click("#settings-open");
    await page.click("#f-replicas", { clickCount: 3 });
    await page.keyboard.type("1e");
    assert.equal(await page.isDisabled("#settings-run"), true, "Run is disabled");
    assert.match(await page.textContent("#f-replicas-err"), /not a number/);
    assert.equal(await page.getAttribute("#f-replicas", "aria-invalid"), "");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("3");
    assert.equal(await page.isDisabled("#settings-run"), false, "3 is a number again");
    assert.equal(await page.textContent("#f-replicas-err"), "");
    await page.click("#settings-cancel");
    assertNoErrors(page);
    await page.close();
  });

  test("past 64 acknowledged records the Clients panel still counts them all", async () => {
    const scenario = JSON.stringify({
      format: 1, title: "a hundred records", replicas: 3,
      producers: [{ id: "p1", acks: "all" }],
      events: [{ at_ms: 0, produce: { producer: "p1", records: 100 } }],
      stop_at_ms: 3000,
    });
    // The first step at which all hundred are acknowledged, found by the core itself.
    const p = new wasm.Playground();
    p.configure(scenario);
    let at = -1;
    for (let rec = p.step(); rec; rec = p.step()) {
      if (rec.producers[0].acked.length === 100) {
        at = rec.step;
        break;
      }
    }
    assert.ok(at > 0, "the hundred are acknowledged");
    p.seek(at);
    const page = await open(`/#${p.link()}`);
    assert.equal(await stepOf(page), at);
    const cell = await page.$eval('#clients th[scope="row"]', (th) => th.parentElement.cells[2].textContent);
    assert.match(cell, /^acked 100/, `the panel counts all: ${cell}`);
    assertNoErrors(page);
    await page.close();
  });

  test("the browser's note about a resize observer loop is not shown as a failure", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    await page.evaluate(() => dispatchEvent(new ErrorEvent("error", { message: "ResizeObserver loop completed with undelivered notifications." })));
    assert.equal(await page.isHidden("#banner"), true, "no banner");
    // A real error still is.
    await page.evaluate(() => dispatchEvent(new ErrorEvent("error", { message: "boom", error: new Error("boom") })));
    assert.match(await page.textContent("#banner"), /Something went wrong: boom/);
    await page.close();
  });

  test("a hand-written #at past the run's end says only that", async () => {
    const page = await open("/?scenario=seed-walkthrough#at=999");
    const last = await stepOf(page);
    assert.ok(last < 999);
    assert.match(await notice(page), new RegExp(`points at step 999, but this run ends at step ${last}: showing step ${last}, the last\\.$`));
    assert.doesNotMatch(await notice(page), /model/);
    assertNoErrors(page);
    await page.close();
  });
});
