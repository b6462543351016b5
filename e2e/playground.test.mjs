// Issue 13, "a playground you can play": one test per problem the issue lists,
// each written against the page as a new user meets it (each failed on the page
// before the fix; see docs/page.md). Needs www/pkg (npm run build). Uses
// HWSCOPE_BIN when set, else builds the native CLI once.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { assertNoErrors, cliTrace, launch, pageWithCoreHeld, ROOT, scrubTo, stepOf, watch } from "./helpers.mjs";

const wasm = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
wasm.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });

/** The CLI's trace of a built-in scenario, one record per step. */
export const trace = (name) => cliTrace(["--builtin", name]);


const open = (path, viewport) => env.open(path, { viewport, until: ["#status[data-step]", ".broker[data-broker]"] });

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
    // A focused button: Space presses it (Produce forks the run at step 0). A fork runs on
    // the full core: pressed before it has come, the write waits for it, then is shown.
    await page.focus('[data-iv="produce"]');
    await page.keyboard.press(" ");
    assert.equal(await page.textContent("#play"), "Play", "Space on Produce does not start playback");
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "1", null, { timeout: 15000 }).catch(() => {});
    assert.equal(await stepOf(page), 1, "Space on Produce produced");
    assert.equal(await page.textContent("#play"), "Play", "Space on Produce does not start playback");
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

  test("problem 6, on a slow link: a write pressed before the full core has come waits for it and is not lost", async () => {
    const held = await pageWithCoreHeld(env, /\/hwscope_bg(\.[0-9a-f]{10})?\.wasm$/);
    const { page } = held;
    await page.goto("/?scenario=seed-walkthrough");
    await page.waitForSelector("#status[data-step]");
    await page.waitForFunction(() => !document.querySelector('[data-iv="produce"]').disabled);
    await page.fill("#iv-records", "3");
    await page.focus('[data-iv="produce"]');
    await page.keyboard.press(" ");
    await page.waitForTimeout(300);
    assert.equal(held.asked(), 1, "the full core was asked for");
    // While it waits, the press is seen to wait: the button is busy, and a status line says
    // what is coming and why (before, nothing did until the write appeared).
    assert.equal(await page.getAttribute('[data-iv="produce"]', "aria-busy"), "true", "the Produce button is busy while it waits");
    assert.match(await page.textContent(".intervene [role=status]"), /Produce 3 records \(p1\): waiting for the simulation core.*as soon as it has come/);
    assert.equal(await stepOf(page), 0, "nothing is written yet");
    held.release();
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "1", null, { timeout: 15000 });
    assert.match(await page.textContent("#live"), /produce|writ|record/i, "the write is narrated");
    assert.equal(await page.textContent(".intervene [role=status]"), "", "the waiting line goes once the write is shown");
    assert.equal(await page.getAttribute('[data-iv="produce"]', "aria-busy"), null);
    assert.equal(await page.textContent("#play"), "Play");
    assertNoErrors(page);
    await held.context.close();
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
    // Settings loads on first use (www/panels/page.js): its fields are there when it opens.
    await page.waitForSelector("#settings[open]");
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
  test("problem 2: lost data stays visible (ghosts, the list, the producer) and no banner moves the controls", async () => {
    const recs = trace("kip101-data-loss");
    assert.ok(recs.some((r) => r.violations.length), "kip101-data-loss breaks an invariant");
    const page = await open("/?scenario=kip101-data-loss");
    const top = () => page.$eval("#play", (b) => Math.round(b.getBoundingClientRect().top + scrollY));
    const first = await top();
    for (let n = 1; n < recs.length; n++) {
      await page.keyboard.press("ArrowRight");
      assert.equal(await stepOf(page), n);
      assert.equal(await top(), first, `step ${n}${recs[n].violations.length ? " (a violation)" : ""}: Play stays where it was`);
    }
    // The truncated record leaves a ghost where it was, named with the step that removed it.
    const cut = recs.findIndex((r) => r.event?.truncate_to != null);
    // The replica that truncates: the event's broker, or the one a controller answer makes a follower.
    const broker = recs[cut].event.broker ?? recs[cut].event.to;
    await page.keyboard.press("Home");
    for (const n of [cut, cut + 1, recs.length - 1]) {
      await scrubTo(page, n);
      const ghost = await page.$(`.log[data-broker="${broker}"] .ghost[data-id="p1-1"][data-step="${cut}"]`);
      assert.ok(ghost, `step ${n}: broker ${broker}'s log shows the ghost of p1-1, removed at step ${cut}`);
    }
    // The acknowledged record's loss stays listed, and the producer shows it.
    const found = recs.findIndex((r) => r.violations.some((v) => v.invariant === "acked-record-lost"));
    await scrubTo(page, found - 1);
    assert.equal(await page.isVisible("#lost-panel"), false, "nothing lost yet");
    for (const n of [found, recs.length - 1]) {
      await scrubTo(page, n);
      assert.equal(await page.isVisible("#lost-panel"), true, `step ${n}: the list of what was lost shows`);
      assert.match(await page.textContent("#lost"), new RegExp(`p1-1 at offset 1 · acknowledged \\(acks=all\\), then lost · step ${found}`));
      assert.match(await page.textContent("#clients"), /acknowledged, then lost: p1-1/);
    }
    await page.click(`#lost button[data-step="${found}"]`);
    assert.equal(await stepOf(page), found, "a click on a loss shows its step");

    // A notice about the address floats over the page.
    const noticed = await open("/?scenario=kip101-data-loss&controls=full,wide");
    await noticed.waitForSelector("#notice:not([hidden])");
    assert.equal(await noticed.$eval("#play", (b) => Math.round(b.getBoundingClientRect().top + scrollY)), first, "a notice does not push the controls down");
    assertNoErrors(page);
    await page.close();
    await noticed.close();
  });

  test("problem 9: Learn opens in view, views never push the controls away, the answer shows with its question, and the junior tour ends with a way deeper", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    const inView = (sel) => page.$eval(sel, (e) => {
      const r = e.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= innerHeight && r.height > 0;
    });
    const interventions = await page.$eval("#intervene", (f) => f.getBoundingClientRect().top + scrollY);
    await page.click("#learn-open");
    await page.waitForSelector("#learn .tour-pick");
    assert.ok(await inView("#learn .learn-head"), "the Learn panel is in view when it opens");
    for (const v of ["gauges", "why", "chart", "diagram"]) await page.click(`#learn [data-view="${v}"]`);
    await page.waitForSelector(".view-diagram svg .row");
    const moved = (await page.$eval("#intervene", (f) => f.getBoundingClientRect().top + scrollY)) - interventions;
    assert.ok(Math.abs(moved) < 2, `opening every view leaves the interventions where they were (moved ${moved.toFixed(1)} px)`);
    await page.close();

    // A question, answered: the stage showing the answer and the result are in view together.
    const quiz = await open("/?tour=hw-lag&level=junior");
    await quiz.waitForSelector(".tour[data-beat]");
    for (let i = 0; i < 12 && !(await quiz.$(".tour form.quiz")); i++) await quiz.click(".tour-nav .primary");
    await quiz.waitForSelector(".tour form.quiz");
    await quiz.check(".tour form.quiz input[type=radio]");
    await quiz.click(".tour form.quiz button[type=submit]");
    await quiz.waitForSelector(".tour .quiz-result");
    const seen = await quiz.evaluate(() => {
      const stage = document.getElementById("stage").getBoundingClientRect();
      const result = document.querySelector(".tour .quiz-result").getBoundingClientRect();
      return { stage: stage.top >= 0 && stage.bottom <= innerHeight, result: result.top >= 0 && result.bottom <= innerHeight };
    });
    assert.deepEqual(seen, { stage: true, result: true }, "at 1280×800 the stage and the answer are both in view");
    await quiz.close();

    // The junior tour's last beat says it is the end and offers the next level.
    const end = await open("/?tour=hw-lag&level=junior");
    await end.waitForSelector(".tour[data-beat]");
    const beats = Number(await end.$eval(".tour", (t) => t.dataset.beats));
    await end.click(`.beat-dots li:nth-child(${beats}) button`);
    await end.waitForFunction((n) => document.querySelector(".tour").dataset.beat === String(n), beats);
    assert.doesNotMatch(await end.textContent(".tour .part"), /Part 1 of 2/, "junior sees one part: no 'Part 1 of 2'");
    if (await end.$(".tour form.quiz")) {
      await end.check(".tour form.quiz input[type=radio]");
      await end.click(".tour form.quiz button[type=submit]");
    }
    assert.match(await end.textContent(".tour .tour-end"), /End of the tour/);
    const seenTitles = await end.$$eval(".beat-dots button", (bs) => bs.map((b) => b.title));
    await end.click(".tour .tour-end [data-deeper]");
    await end.waitForFunction(() => document.querySelector(".tour").dataset.level === "middle");
    const now = await end.$eval(".tour", (t) => ({ beats: Number(t.dataset.beats), title: t.querySelector(".beat-title").textContent.replace(/^\d+\. /, "") }));
    assert.ok(now.beats > beats, "the middle level has more beats");
    assert.ok(!seenTitles.includes(now.title), `going deeper opens a beat not seen at junior ("${now.title}")`);
    assertNoErrors(end);
    await end.close();
  });

  test("problem 10: at 360 px the narration is near the stage, the tour card leaves the stage in view, stage text is 12 px or more, and ? does not wrap", async () => {
    const phone = { width: 360, height: 740 };
    const page = await open("/?scenario=slow-follower-isr", phone);
    const { gap, between } = await page.evaluate(() => {
      const narration = document.querySelector(".narr-panel").getBoundingClientRect().top;
      return { gap: narration - document.getElementById("stage").getBoundingClientRect().bottom, between: narration - document.getElementById("controls").getBoundingClientRect().bottom };
    });
    assert.ok(between <= 16, `the narration follows the controls (${Math.round(between)} px after them)`);
    assert.ok(gap < 240, `the narration starts ${Math.round(gap)} px under the stage (only the controls between)`);
    const sizes = await page.$$eval("#stage text", (ts) => ts.filter((t) => t.textContent.trim()).map((t) => {
      const svg = t.ownerSVGElement;
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return parseFloat(getComputedStyle(t).fontSize) * scale;
    }));
    assert.ok(Math.min(...sizes) >= 12, `stage text is at least 12 px (smallest ${Math.min(...sizes).toFixed(1)} px)`);
    const help = await page.$eval("#help-open", (b) => b.getBoundingClientRect());
    const learn = await page.$eval("#learn-open", (b) => b.getBoundingClientRect());
    assert.equal(Math.round(help.top), Math.round(learn.top), "? sits on the row of the other buttons");
    assert.ok(help.height < 40, "? is one line");
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), "no sideways scrolling");
    await page.close();

    const tour = await open("/?tour=slow-follower&level=junior", phone);
    await tour.waitForSelector(".tour[data-beat]");
    const card = await tour.$eval(".tour", (t) => t.getBoundingClientRect().height);
    assert.ok(card <= 0.5 * phone.height, `the tour card is ${Math.round(card)} px high: half the screen at most`);
    // Scrolled to the stage, the card's question and the stage share the screen.
    await tour.$eval("#stage", (s) => s.scrollIntoView({ block: "start" }));
    const both = await tour.evaluate(() => {
      const s = document.getElementById("stage").getBoundingClientRect();
      const c = document.querySelector(".tour").getBoundingClientRect();
      return { stageTop: s.top, cardTop: c.top, cardBottom: c.bottom, h: innerHeight };
    });
    assert.ok(both.cardBottom <= both.h && both.cardTop > both.stageTop + 150, `the card is on screen below the stage's top (${JSON.stringify(both)})`);
    assertNoErrors(tour);
    await tour.close();
  });
  test("problem 4: key moments are marked on the scrubber, and keys and buttons jump between them", async () => {
    const recs = trace("slow-follower-isr");
    const isrEvent = (r) => !!r.event && ("isr_before" in r.event || r.event.type === "alter_partition");
    const hwMoved = (r, n) => n > 0 && r.replicas.some((x, i) => x.hw !== recs[n - 1].replicas[i].hw);
    const isrSteps = recs.map((r, n) => (isrEvent(r) ? n : -1)).filter((n) => n >= 0);
    const hwSteps = recs.map((r, n) => (hwMoved(r, n) ? n : -1)).filter((n) => n >= 0);
    assert.ok(isrSteps.length >= 3 && hwSteps.length >= 2);
    const page = await open("/?scenario=slow-follower-isr");
    await page.waitForFunction(() => document.querySelector("#marks .k-isr")?.getAttribute("d"));
    for (const k of ["hw", "isr"]) assert.ok(await page.$eval(`#marks .k-${k}`, (p) => p.getAttribute("d").length > 0), `the scrubber shows ${k} marks`);
    // The first ISR change, then the next, then back: by key.
    await page.keyboard.press("i");
    await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), isrSteps[0]);
    await page.keyboard.press("i");
    await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), isrSteps[1]);
    await page.keyboard.press("Shift+I");
    await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), isrSteps[0]);
    assert.match(await page.textContent("#jump-msg"), new RegExp(`ISR change at step ${isrSteps[0]}`));
    // By button: the kind picked, then ▶ and ◀.
    await page.keyboard.press("Home");
    await page.selectOption("#jump-kind", "hw");
    await page.click("#jump-next");
    await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), hwSteps[0]);
    await page.click("#jump-next");
    await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), hwSteps[1]);
    await page.click("#jump-prev");
    await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), hwSteps[0]);
    // A kind the run does not have says so, and stays where it is.
    await page.keyboard.press("e");
    await page.waitForFunction(() => /No election/.test(document.getElementById("jump-msg").textContent));
    assert.equal(await stepOf(page), hwSteps[0]);
    assertNoErrors(page);
    await page.close();
  });
  test("problem 1: an intervention, or Play at the end, continues the run while its consequences play out, says why, and a link carries it", async () => {
    // The case: the leader crashes at step 2 of the default scenario.
    const page = await open("/");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await page.selectOption("#iv-broker", "0");
    await page.click('[data-iv="crash"]');
    assert.equal(await stepOf(page), 3);
    assert.match(await page.textContent("#future"), /the controller fences broker 0 at \d+ ms/, "the page says what is pending");
    await page.waitForFunction(() => !/so far/.test(document.getElementById("scrub-out").textContent));
    await page.keyboard.press("End");
    const end = await page.evaluate(() => ({
      time: Number(document.getElementById("status").dataset.time),
      leader: document.querySelector('.broker[data-broker="1"]').dataset.role,
      future: document.getElementById("future").textContent,
    }));
    assert.ok(end.time >= 9000, `the run goes on past its script (1,200 ms) to the fencing and after: ends at ${end.time} ms`);
    assert.equal(end.leader, "leader", "broker 1 was elected");
    assert.match(end.future, /went past its script \(1,200 ms\) until nothing was pending/);
    await page.close();

    // Play at the end of a script whose consequences are still pending.
    const cut = { format: 1, title: "Cut near the end", replicas: 3, config: { "replica.lag.time.max.ms": 4000 },
      events: [{ at_ms: 0, produce: { producer: "p1", records: 2 } }, { at_ms: 900, partition: { between: [0, 2] } }, { at_ms: 950, produce: { producer: "p1", records: 1 } }], stop_at_ms: 1000 };
    const p = new wasm.Playground();
    p.configure(JSON.stringify(cut));
    const atEnd = await open(`/#${p.link()}`);
    await atEnd.waitForFunction(() => !/so far/.test(document.getElementById("scrub-out").textContent));
    await atEnd.keyboard.press("End");
    assert.match(await atEnd.textContent("#future"), /The script ends here \(1,000 ms\), with consequences still pending: .*drops follower 2/);
    const scripted = await atEnd.$eval("#scrub", (s) => Number(s.max));
    await atEnd.click("#play");
    await atEnd.waitForFunction((n) => Number(document.getElementById("status").dataset.step) > n, scripted, { timeout: 20_000 });
    await atEnd.click("#play");
    await atEnd.waitForFunction(() => !/so far/.test(document.getElementById("scrub-out").textContent));
    await atEnd.keyboard.press("End");
    const last = await atEnd.evaluate(() => ({ step: Number(document.getElementById("status").dataset.step), time: Number(document.getElementById("status").dataset.time), isr: document.getElementById("status").textContent }));
    assert.ok(last.time > 1000, "Play at the end went on past the script");
    assert.match(last.isr, /ISR \{0, 1\}/, "until the cut-off follower left the ISR");
    // The address bar's link carries the extension, and opening it reproduces this step.
    await atEnd.waitForFunction((n) => new RegExp(`[#&]at=${n}(&|$)`).test(location.hash), last.step);
    const fragment = await atEnd.evaluate(() => location.hash.slice(1));
    assert.match(wasm.decodeLink(fragment).scenario, /"after_stop":"settle"/);
    const again = await open(`/#${fragment}`);
    assert.equal(await stepOf(again), last.step);
    assert.equal(await again.$eval("#status .verified", (v) => !v.hidden), true, "reproduced exactly");
    assertNoErrors(atEnd);
    assertNoErrors(again);
    await atEnd.close();
    await again.close();
  });
  test("problem 8: the first stage is drawn before the WebAssembly arrives, nothing moves when it does, and files come compressed and cacheable", async () => {
    for (const path of ["/", "/?embed=1&scenario=idle-partition-lag"]) {
      // The core is held back, as on a slow link.
      const { context, page, release } = await pageWithCoreHeld(env);
      await page.goto(new URL(path, env.baseURL).href);
      await page.waitForSelector(".broker[data-broker]", { timeout: 5000 });
      const before = await page.evaluate(() => ({
        brokers: document.querySelectorAll("#stage .broker").length,
        play: document.getElementById("play").disabled,
        crash: document.querySelector('[data-iv="crash"]').disabled,
        speed: getComputedStyle(document.querySelector(".speed")).display,
        core: performance.getEntriesByName("hwscope-core-ready").length,
        stage: document.getElementById("stage").getBoundingClientRect().height,
      }));
      assert.equal(before.core, 0, `${path}: the core has not arrived`);
      assert.ok(before.brokers >= 2 && before.stage > 200, `${path}: the first stage is drawn meanwhile`);
      assert.equal(before.play, true, `${path}: Play waits for the core`);
      assert.equal(before.crash, true, `${path}: interventions wait for the core`);
      if (path.includes("embed")) assert.equal(before.speed, "none", "an embed shows its own (compact) controls from the start");
      await page.waitForTimeout(300);
      release();
      await page.waitForSelector("#status[data-step]");
      await page.waitForFunction(() => !document.getElementById("play").disabled);
      await page.waitForTimeout(500);
      const after = await page.evaluate(() => ({ cls: window.__cls, stage: document.getElementById("stage").getBoundingClientRect().height }));
      assert.equal(after.stage, before.stage, `${path}: the live stage has the first stage's size`);
      assert.equal(after.cls, 0, `${path}: no layout shift`);
      assertNoErrors(page);
      await context.close();
    }
    // npm start serves like the published site: compressed, with ETags, revalidated or immutable.
    const res = await fetch(new URL("/www/app.js", env.baseURL), { headers: { "accept-encoding": "gzip" } });
    assert.equal(res.headers.get("content-encoding"), "gzip");
    assert.equal(res.headers.get("cache-control"), "no-cache");
    const again = await fetch(new URL("/www/app.js", env.baseURL), { headers: { "if-none-match": res.headers.get("etag") } });
    assert.equal(again.status, 304, "a revalidation costs no body");
    const wasmRes = await fetch(new URL("/www/pkg/hwscope_bg.wasm", env.baseURL), { headers: { "accept-encoding": "gzip, br" } });
    assert.match(wasmRes.headers.get("content-encoding") ?? "", /br|gzip/, "the wasm is compressed too");
  });
  test("problem 7: an embed is as tall as the element and the snippets say, at every width, and loads only what it shows", async () => {
    // The Share dialog's snippet holds the embed it writes, at a phone's width and at its max-width.
    {
      const tall = [];
      for (const width of [360, 800]) {
        const page = await open("/?embed=1&scenario=seed-walkthrough", { width, height: 900 });
        tall.push(await page.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height)));
        await page.close();
      }
      const page = await open("/?scenario=seed-walkthrough");
      await page.click("#share-open");
      await page.waitForFunction(() => document.getElementById("share-iframe").value);
      const said = Number((await page.inputValue("#share-iframe")).match(/height="(\d+)"/)[1]);
      assert.ok(said >= Math.max(...tall), `the Share snippet's iframe is ${said} px high; its embed needs ${tall.join(" px at 360 px, ")} px at 800 px`);
      await page.close();
    }
    const { embedHeight } = await import(pathToFileURL(join(ROOT, "www/embed/size.js")).href);
    const { readOptions } = await import(pathToFileURL(join(ROOT, "www/core/options.js")).href);
    const SIZES = (await import(pathToFileURL(join(ROOT, "www/pkg/sizes.js")).href)).default;
    const wrong = [];
    for (const name of ["seed-walkthrough", "idle-partition-lag", "follower-fetch-consumer", "steady-load"]) {
      for (const controls of ["compact", "full", "none"]) {
        for (const width of [360, 640, 800]) {
          const page = await open(`/?embed=1&scenario=${name}&controls=${controls}`, { width, height: 900 });
          const real = await page.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
          const said = embedHeight(width, readOptions(`?embed=1&controls=${controls}`).controls, SIZES[name]);
          if (real !== said) wrong.push(`${name}, ${controls}, ${width} px: the embed is ${real} px, size.js says ${said}`);
          await page.close();
        }
      }
    }
    assert.deepEqual(wrong, []);

    // The element is at its height from the start: the playground's first resize changes nothing.
    for (const width of [360, 800]) {
      const page = await env.newPage();
      watch(page);
      await page.setViewportSize({ width, height: 900 });
      await page.goto(new URL("/docs/embed.html", env.baseURL).href);
      const first = await page.$eval("#walk", (el) => el.shadowRoot.querySelector("iframe").getBoundingClientRect().height);
      await page.waitForFunction(() => document.getElementById("walk-log").textContent.startsWith("ready"));
      const walk = page.frames().find((f) => f.url().includes("scenario=seed-walkthrough"));
      const inner = await walk.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      const last = await page.$eval("#walk", (el) => el.shadowRoot.querySelector("iframe").getBoundingClientRect().height);
      assert.equal(first, inner, `${width} px: the element's first height is the embed's`);
      assert.equal(last, inner);
      await page.close();
    }

    // The Share dialog's iframe and the documentation's snippet are tall enough.
    const page = await open("/?scenario=seed-walkthrough");
    await page.click("#share-open");
    await page.waitForFunction(() => document.getElementById("share-iframe").value);
    const snippet = await page.inputValue("#share-iframe");
    const height = Number(snippet.match(/height="(\d+)"/)[1]);
    const need = Math.max(...[360, 800].map((w) => embedHeight(w, readOptions("?embed=1").controls, SIZES["seed-walkthrough"])));
    assert.equal(height, need, "the Share snippet's height is the embed's tallest");
    const docs = readFileSync(join(ROOT, "docs/embedding.md"), "utf8").match(/<iframe src="[^"]*scenario=seed-walkthrough[^"]*"[^>]*height="(\d+)"/);
    assert.equal(Number(docs[1]), need, "docs/embedding.md's iframe snippet is as tall as its embed");
    await page.close();

    // An embed loads the stage, its controls and the core: none of the page's panels.
    const embed = await env.newPage();
    const loaded = [];
    embed.on("request", (r) => loaded.push(new URL(r.url()).pathname));
    await embed.goto(new URL("/?embed=1&scenario=seed-walkthrough", env.baseURL).href);
    await embed.waitForSelector("#status[data-step]");
    await embed.waitForLoadState("networkidle");
    const panels = loaded.filter((p) => /panels\/(page|narration|inspector|interventions|settings|clients|lost|future)\.js$/.test(p));
    assert.deepEqual(panels, [], "no panel an embed does not show");
    await embed.close();
  });

  test("the speed is kept across a reload, as the theme is; an embed keeps neither; a stored value out of range is not taken", async () => {
    const context = await env.browser.newContext({ baseURL: env.baseURL, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    watch(page);
    await page.goto("/?scenario=seed-walkthrough");
    await page.waitForSelector("html[data-boot=live]");
    await page.waitForFunction(() => !document.getElementById("speed").disabled);
    await page.fill("#speed", "3");
    await page.click("#theme");
    const theme = await page.getAttribute("html", "data-theme");
    assert.equal(await page.textContent("#speed-out"), "×8");
    await page.reload();
    await page.waitForSelector("html[data-boot=live]");
    assert.equal(await page.inputValue("#speed"), "3", "the speed chosen before the reload");
    assert.equal(await page.textContent("#speed-out"), "×8");
    assert.equal(await page.getAttribute("html", "data-theme"), theme, "the theme too");
    // Playing at ×8: ten steps in well under the ~6 s they take at ×1.
    await page.click("#play");
    await page.waitForFunction(() => Number(document.getElementById("status").dataset.step) >= 10, null, { timeout: 5000 });
    // An embed plays at its host's speed, whatever this browser chose on the page.
    await page.goto("/?embed=1&controls=play,speed&scenario=seed-walkthrough");
    await page.waitForSelector("html[data-boot=live]");
    assert.equal(await page.inputValue("#speed"), "0");
    await page.fill("#speed", "-2");
    await page.goto("/?scenario=seed-walkthrough");
    await page.waitForSelector("html[data-boot=live]");
    assert.equal(await page.inputValue("#speed"), "3", "an embed's speed is not the page's");
    // What is stored is checked, not trusted.
    await page.evaluate(() => localStorage.setItem("hwscope-speed", "99"));
    await page.reload();
    await page.waitForSelector("html[data-boot=live]");
    assert.equal(await page.inputValue("#speed"), "0");
    assertNoErrors(page);
    await context.close();
  });
});
