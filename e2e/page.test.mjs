// The playground page in headless Chromium: it plays, pauses, steps, scrubs,
// intervenes, switches theme and scenario, and the LEO and HW it shows for
// each broker equal the native CLI's trace, step for step.
//
// Needs www/pkg (npm run build). Uses HWSCOPE_BIN when set, else builds the
// native CLI once (cargo build --release --bin hwscope, a no-op when fresh).
import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import { assertNoErrors, cliTrace, countAnimationFrames, launch } from "./helpers.mjs";

/** The CLI's trace of a built-in scenario, one record per step. */
const trace = (name) => cliTrace(["--builtin", name]);

/** What the page shows: the step, its time, each broker's LEO and HW, the
 *  messages in flight and each consumer's position. */
async function shown(page) {
  return page.evaluate(() => ({
    step: Number(document.getElementById("status").dataset.step),
    time: Number(document.getElementById("status").dataset.time),
    brokers: [...document.querySelectorAll(".broker[data-broker]")].map((g) => ({
      broker: Number(g.dataset.broker),
      leo: Number(g.dataset.leo),
      hw: Number(g.dataset.hw),
      alive: g.dataset.alive === "true",
    })),
    inFlight: [...document.querySelectorAll(".msg[data-msg]")].map((g) => Number(g.dataset.msg)).sort((a, b) => a - b),
    consumers: [...document.querySelectorAll(".consumer[data-consumer]")].map((g) => `${g.dataset.consumer}@${g.dataset.position}`).sort(),
  }));
}

function expected(rec) {
  return {
    step: rec.step,
    time: rec.time_ms,
    brokers: rec.replicas.map((r) => ({ broker: r.broker, leo: r.leo, hw: r.hw, alive: r.alive })),
    inFlight: rec.in_flight.map((m) => m.id).sort((a, b) => a - b),
    consumers: rec.consumers.map((c) => `${c.id}@${c.position}`).sort(),
  };
}

async function ready(page) {
  await page.waitForSelector("#status[data-step]");
  await page.waitForSelector(".broker[data-broker]");
}

async function scenarioName(page) {
  return page.$eval("#scenario", (s) => s.value);
}

/** Moves the scrubber as a user would (an input event), once it reaches n. */
async function scrubTo(page, n) {
  await page.waitForFunction((v) => Number(document.getElementById("scrub").max) >= v, n);
  await page.$eval("#scrub", (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }, n);
}

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

// Each test opens the page afresh: none depends on what another left behind.
describe("the playground page", () => {
  let page;
  let name;
  before(async () => {
    await countAnimationFrames(env.context);
  });
  beforeEach(async () => {
    page = await env.open("/");
    await ready(page);
    name = await scenarioName(page);
  });
  afterEach(async () => {
    assertNoErrors(page);
    await page.close();
  });

  test("draws its first frame quickly and shows the seed and the time", async () => {
    const ms = await page.evaluate(() => performance.getEntriesByName("hwscope-first-frame")[0]?.startTime);
    assert.ok(ms > 0, "the page marks its first frame");
    assert.ok(ms < 1500, `first frame after ${ms} ms`);
    const status = await page.textContent("#status");
    assert.match(status, /seed \d+/);
    assert.match(status, /t = [\d.]+ ms/);
  });

  test("step 0 and the next steps match the CLI trace", async () => {
    const recs = trace(name);
    assert.deepEqual(await shown(page), expected(recs[0]));
    for (let n = 1; n <= Math.min(12, recs.length - 1); n++) {
      await page.keyboard.press("ArrowRight");
      assert.deepEqual(await shown(page), expected(recs[n]), `step ${n}`);
    }
  });

  test("steps back with ←", async () => {
    const recs = trace(name);
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
    const before = (await shown(page)).step;
    await page.keyboard.press("ArrowLeft");
    assert.deepEqual(await shown(page), expected(recs[before - 1]));
  });

  test("scrubs to any step, forward and back", async () => {
    const recs = trace(name);
    const last = recs.length - 1;
    for (const n of [last, Math.floor(last / 2), 3, last - 1, 0]) {
      await scrubTo(page, n);
      assert.deepEqual(await shown(page), expected(recs[n]), `scrubbed to ${n}`);
    }
    await page.waitForFunction((n) => Number(document.getElementById("scrub").max) === n, last);
    await page.keyboard.press("End");
    assert.equal((await shown(page)).step, last);
    await page.keyboard.press("Home");
    assert.equal((await shown(page)).step, 0);
  });

  test("plays, pauses, and spends no frames while paused", async () => {
    await page.click("#play");
    await page.waitForFunction(() => Number(document.getElementById("status").dataset.step) >= 3, null, { timeout: 10_000 });
    await page.click("#play");
    assert.equal(await page.textContent("#play"), "Play");
    const paused = await shown(page);
    const frames = await page.evaluate(() => window.__frames);
    await page.waitForTimeout(400);
    assert.equal(await page.evaluate(() => window.__frames), frames, "no animation frame requested while paused");
    assert.deepEqual(await shown(page), paused);
    assert.deepEqual(paused, expected(trace(name)[paused.step]));
  });

  test("a hidden tab stops playing frames; shown again, it plays on", async () => {
    const setHidden = (hidden) =>
      page.evaluate((h) => {
        Object.defineProperty(document, "hidden", { value: h, configurable: true });
        document.dispatchEvent(new Event("visibilitychange"));
      }, hidden);
    await page.keyboard.press("Home");
    await page.click("#play");
    await page.waitForTimeout(200);
    await setHidden(true);
    await page.waitForTimeout(50);
    const frames = await page.evaluate(() => window.__frames);
    const step = (await shown(page)).step;
    await page.waitForTimeout(400);
    assert.equal(await page.evaluate(() => window.__frames), frames, "no animation frame while hidden");
    assert.equal((await shown(page)).step, step);
    await setHidden(false);
    await page.waitForFunction((n) => window.__frames > n, frames);
    await page.click("#play");
    assert.equal(await page.textContent("#play"), "Play");
  });

  test("the narration lists the steps, and a click jumps to one", async () => {
    await scrubTo(page, 6);
    // After a jump the history fills in once scrubbing stops.
    await page.waitForFunction(() => document.querySelectorAll("#narration button").length === 7);
    const items = await page.$$eval("#narration button", (bs) => bs.map((b) => b.textContent));
    assert.equal(items.length, 7);
    assert.ok(items[6].includes(trace(name)[6].text));
    assert.equal(await page.textContent("#live"), trace(name)[6].text);
    await page.click('#narration button[data-step="2"]');
    assert.equal((await shown(page)).step, 2);
  });

  test("a click on a broker or a message shows its fields", async () => {
    await scrubTo(page, 2);
    await page.click('.broker[data-broker="1"]');
    assert.match(await page.textContent("#inspector"), /Broker 1[\s\S]*leo/);
    const msg = await page.$(".msg[data-msg]");
    if (msg) {
      await msg.click({ force: true });
      assert.match(await page.textContent("#inspector"), /sent_ms[\s\S]*arrive_ms/);
    }
    await page.click("#insp-close");
    assert.match(await page.textContent("#inspector"), /Step 2/);
  });

  test("an intervention forks the future: crash, restart, produce, add a consumer", async () => {
    await scrubTo(page, 4);
    await page.selectOption("#iv-broker", "1");
    await page.click('[data-iv="crash"]');
    let now = await shown(page);
    assert.equal(now.step, 5);
    assert.equal(now.brokers[1].alive, false, "broker 1 is down after the crash");
    await page.click('[data-iv="restart"]');
    now = await shown(page);
    assert.equal(now.step, 6);
    assert.equal(now.brokers[1].alive, true);
    await page.click('[data-iv="produce"]');
    assert.equal((await shown(page)).step, 7);
    const consumers = await page.$$eval(".consumer[data-consumer]", (gs) => gs.length);
    await page.click('[data-iv="add_consumer"]');
    assert.equal(await page.$$eval(".consumer[data-consumer]", (gs) => gs.length), consumers + 1);
    // Stepping back past the fork shows the recorded past unchanged.
    await scrubTo(page, 3);
    assert.deepEqual(await shown(page), expected(trace(name)[3]));
    // Reset drops the interventions: step 6 is the scenario's own again.
    await page.click("#reset");
    assert.equal((await shown(page)).step, 0);
    await scrubTo(page, 6);
    assert.deepEqual(await shown(page), expected(trace(name)[6]));
  });

  test("the settings panel shows the core's error next to the field", async () => {
    await page.click("#settings-open");
    await page.fill("#f-replicas", "40");
    assert.match(await page.textContent("#f-replicas-err"), /between 1 and 7/);
    assert.equal(await page.isDisabled("#settings-run"), true);
    // One more broker than now is always valid (events only name existing ones).
    const more = (await shown(page)).brokers.length + 1;
    await page.fill("#f-replicas", String(more));
    assert.equal(await page.textContent("#f-replicas-err"), "");
    await page.click("#settings-run");
    await page.waitForFunction((n) => document.querySelectorAll(".broker[data-broker]").length === n, more);
    assert.equal((await shown(page)).step, 0);
  });

  test("switching scenario shows that scenario's trace", async () => {
    const names = await page.$$eval("#scenario option:not([disabled])", (os) => os.map((o) => o.value));
    const other = names.find((n) => n !== name) ?? name;
    await page.selectOption("#scenario", other);
    await ready(page);
    const recs = trace(other);
    assert.deepEqual(await shown(page), expected(recs[0]));
    const n = Math.min(recs.length - 1, 9);
    await scrubTo(page, n);
    assert.deepEqual(await shown(page), expected(recs[n]));
  });

  test("the theme button cycles auto, light and dark", async () => {
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme ?? "auto");
    const start = await theme();
    const seen = [start];
    for (let i = 0; i < 2; i++) {
      await page.click("#theme");
      seen.push(await theme());
    }
    assert.deepEqual([...seen].sort(), ["auto", "dark", "light"]);
  });
});

test("?theme=dark gives a dark page, and 320 px needs no sideways scrolling", async () => {
  const page = await env.newPage();
  await page.setViewportSize({ width: 320, height: 640 });
  await page.goto(new URL("/?theme=dark", env.baseURL).href);
  await ready(page);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = bg.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 150, `dark background, got ${bg}`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 320), "no horizontal overflow at 320 px");
  assertNoErrors(page);
  await page.close();
});

test("reduced motion still plays, one discrete step at a time", async () => {
  const context = await env.browser.newContext({ baseURL: env.baseURL, reducedMotion: "reduce" });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(new URL("/", env.baseURL).href);
  await ready(page);
  await page.click("#play");
  await page.waitForFunction(() => Number(document.getElementById("status").dataset.step) >= 2, null, { timeout: 10_000 });
  await page.click("#play");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a wasm that fails to load shows a message, not a blank page", async () => {
  const page = await env.newPage();
  // Either core: the page starts on its first one (docs/performance.md, "Two cores").
  await page.route(/\/hwscope(_first)?_bg\.wasm$/, (route) => route.fulfill({ status: 404, body: "gone" }));
  await page.goto(new URL("/", env.baseURL).href);
  // The boot guard's box (www/boot.js, issue 18): what failed, the cause, the fix, a link.
  await page.waitForSelector("#boot-fail", { state: "visible" });
  const text = await page.textContent("#boot-fail");
  assert.match(text, /The simulation core \(hwscope_first_bg\.wasm\) could not be downloaded: HTTP 404/);
  assert.match(text, /Likely cause: .*Fix: /s);
  assert.equal(await page.isVisible("#stage"), false, "the dead stage is replaced by the message");
  await page.close();
});

test("a Rust panic shows a message and stops the controls", async () => {
  const page = await env.newPage();
  // Serve the real package with step() and seek() trapping as a panic does.
  await page.route(/\/www\/pkg\/hwscope(_first)?\.js$/, async (route) => {
    const response = await route.fetch();
    const trap = "\nfor (const name of ['step', 'seek']) Playground.prototype[name] = () => { throw new WebAssembly.RuntimeError('unreachable executed'); };\n";
    await route.fulfill({ response, body: (await response.text()) + trap });
  });
  await page.goto(new URL("/", env.baseURL).href);
  await ready(page);
  await page.keyboard.press("ArrowRight");
  await page.waitForSelector("#banner.fatal:not([hidden])");
  assert.match(await page.textContent("#banner"), /simulation core stopped/);
  assert.equal(await page.isDisabled("#play"), true);
  await page.close();
});
