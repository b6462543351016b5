// Self-study in headless Chromium: every tour plays end to end at every level,
// every quiz's expected answer is the simulator's own value (checked against
// the native CLI's trace and against the stage the page draws), the views
// explain from the records (cause chain, gauges, chart), the exports are SVG
// and PNG that render, and the compare view keeps both runs at one time.
//
// Needs www/pkg (npm run build). Uses HWSCOPE_BIN when set, else builds the
// native CLI once (cargo build --release --bin hwscope, a no-op when fresh).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { assertNoErrors, cliTrace, countAnimationFrames, launch, ROOT, watch } from "./helpers.mjs";

const wasm = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
wasm.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });

const LEVELS = ["junior", "middle", "senior", "principal"];
const TOURS = ["hw-lag", "long-poll", "slow-follower", "follower-fetch", "kip101", "faults", "follower-lag", "min-insync", "leo-hw", "leader-dies", "unclean"];

const partFiles = new Map();
/** The CLI's trace, one record per step: a built-in (optionally under a preset, with the
 *  consumers and settings a tour's part adds, as the card's JSON) or a file. */
function trace({ builtin, preset, file, consumers, config }) {
  if (consumers || config) {
    const sc = JSON.parse(wasm.builtinScenarios().find((x) => x.name === builtin).json);
    if (consumers) sc.consumers = [...(sc.consumers ?? []), ...JSON.parse(consumers)];
    if (config) sc.config = { ...sc.config, ...JSON.parse(config) };
    if (preset) sc.preset = preset;
    const text = JSON.stringify(sc);
    if (!partFiles.has(text)) {
      const path = join(mkdtempSync(join(tmpdir(), "hwscope-tour-")), `${builtin}.json`);
      writeFileSync(path, text);
      partFiles.set(text, path);
    }
    return cliTrace([partFiles.get(text)]);
  }
  return cliTrace([...(file ? [file] : ["--builtin", builtin]), ...(preset ? ["--preset", preset] : [])]);
}

const replica = (rec, b) => rec.replicas.find((r) => r.broker === b);

/** The answer a claim quiz must expect, worked out here from the CLI's records. */
function claimFromTrace(recs, claim, step, broker) {
  const rec = recs[step];
  const e = rec.event;
  switch (claim) {
    case "reports-leo":
      return e.type === "fetch_request" && e.fetch_offset === replica(rec, e.from).leo ? "yes" : "no";
    case "pull":
      return e.type === "fetch_response" && e.to === broker && e.hw_after > e.hw_before ? "response" : "push";
    case "long-poll": {
      // The answer received here: which step put it on the wire, and why.
      const m = recs[step - 1].in_flight.find((x) => x.type === "fetch_response" && x.to === broker && x.arrive_ms === rec.time_ms);
      assert.ok(m, `a fetch response to ${broker} arrives at step ${step}`);
      let q = step - 1;
      while (q >= 0 && !(recs[q].event?.sent ?? []).includes(m.id)) q--;
      assert.ok(q >= 0, `the step that sent message ${m.id}`);
      const s = recs[q].event;
      return s.type === "timeout" && s.timer === "fetch-expiry" ? "protocol-wait" : "round-trip";
    }
    case "hw-not-data": {
      const f = replica(rec, broker);
      const c = rec.consumers.find((x) => x.fetch_from === broker);
      return f.leo > c.position && f.hw <= c.position ? "hw" : "nodata";
    }
    // The faults tour: each answer worked out from the CLI's records on its own.
    case "zombie-role":
      assert.notEqual(rec.partition.leader, broker, "the controller has elected another leader");
      return replica(rec, broker).role === "leader" ? "leader" : "follower";
    case "zombie-acks1":
      assert.notEqual(rec.partition.leader, broker, "the write went to a broker that is no longer the leader");
      return e.type === "produce_response" && e.from === broker && e.records.length > 0 ? "acked" : "refused";
    case "zombie-acksall": {
      assert.ok(replica(rec, broker).role === "leader" && rec.partition.leader !== broker, `asked while broker ${broker} is a zombie`);
      const p = rec.producers.find((x) => x.acks === "all");
      return p.pending.length > 0 ? "waiting" : "acked";
    }
    case "registration":
      assert.equal(e.type, "broker_registration");
      return e.outcome === "registered" ? "registered" : "refused";
    case "bounce-election": {
      // The first election after the leader's kill: at its restart, or later (at the fence)?
      let crash = step;
      while (crash >= 0 && !(recs[crash].event?.type === "crash" && recs[crash].event.broker === broker)) crash--;
      const restart = recs.findIndex((r, n) => n > crash && r.event?.type === "restart" && r.event.broker === broker);
      const elected = recs.findIndex((r, n) => n > crash && r.event?.type === "leader_election");
      assert.equal(elected, step, "the beat is the first election after the kill");
      return elected > restart && recs[elected].time_ms > recs[restart].time_ms && e.outcome === "fenced" ? "at-fence" : "at-restart";
    }
    case "duplicate":
    case "failover-copies": {
      const id = e.records[0];
      const n = replica(rec, broker).log.filter((x) => x.id === id).length;
      assert.ok(n >= 1, `${id} is in broker ${broker}'s log`);
      return claim === "duplicate" ? (n > 1 ? "twice" : "once") : n > 1 ? "many" : "one";
    }
    // The min-insync tour under kafka-2.8: what p-all's waiting acks=all write is told.
    case "after-append":
      assert.equal(e.type, "produce_response");
      assert.ok(rec.partition.isr.length < rec.partition.under_min_isr, "the ISR is under min.insync.replicas");
      return e.error ?? "ack";
    case "stale-metadata":
      assert.equal(replica(rec, broker).alive, false, `broker ${broker} is dead`);
      return e.type === "metadata_response" && e.leader === broker ? "dead" : "live";
    default:
      throw new Error(`no check for claim ${claim}`);
  }
}

async function card(page) {
  return page.$eval(".tour", (t) => ({ ...t.dataset, shown: Number(document.getElementById("status").dataset.step) }));
}

async function brokerOnStage(page, b) {
  return page.$eval(`#stage .broker[data-broker="${b}"]`, (g) => ({ hw: Number(g.dataset.hw), leo: Number(g.dataset.leo) }));
}

let env;
before(async () => {
  env = await launch({ contextOptions: { acceptDownloads: true } });
  await countAnimationFrames(env.context);
});
after(async () => {
  await env?.close();
});

test("the first load fetches nothing from www/learn/; the Learn button loads it", async () => {
  const page = await env.newPage();
  const learn = [];
  page.on("request", (r) => r.url().includes("/www/learn/") && learn.push(r.url()));
  await page.goto(new URL("/", env.baseURL).href);
  await page.waitForSelector("#status[data-step]");
  await page.waitForLoadState("networkidle");
  assert.deepEqual(learn, [], "no learn module on the first load");
  await page.click("#learn-open");
  await page.waitForSelector("#learn .tour-pick");
  assert.ok(learn.some((u) => u.endsWith("/learn.js")), "learn.js is loaded on demand");
  assert.equal(await page.$$eval("#learn .tour-pick", (bs) => bs.length), TOURS.length);
  assertNoErrors(page);
  await page.close();
});

// Two tours at a time (each drives its own pages; on 2 cores one tour leaves a core mostly
// idle), each in a browser context of its own: a tour's progress is kept in local storage and
// a level's page resumes where an unfinished one was, so two tours sharing storage could
// overwrite each other's progress (each page writes all of it back).
describe("every tour plays end to end at every level, and every quiz answer is the simulator's", { concurrency: 2 }, () => {
  for (const tour of TOURS) {
    test(tour, async () => {
      const context = await env.browser.newContext({ baseURL: env.baseURL, viewport: { width: 1280, height: 800 }, acceptDownloads: true });
      context.setDefaultTimeout(15_000);
      context.setDefaultNavigationTimeout(30_000);
      await countAnimationFrames(context);
      const counts = [];
      let quizzes = 0;
      for (const [li, level] of LEVELS.entries()) {
        const page = await context.newPage();
        watch(page);
        const response = await page.goto(`/?tour=${tour}&level=${level}`);
        assert.equal(response?.status(), 200);
        await page.waitForSelector(".tour[data-beat]");
        const pinned = await page.evaluate(async () => (await import("/www/learn/learn.js")).open().then((hub) => hub.tour.pinned()));
        assert.ok(pinned.length > 0);
        for (const b of pinned) assert.ok(b.step >= 0, `${tour}: beat ${b.id} (part ${b.part}) is found in its run`);
        let c = await card(page);
        assert.equal(c.beat, "1");
        assert.equal(c.level, level);
        counts.push(Number(c.beats));
        for (let i = 1; ; i++) {
          c = await card(page);
          assert.equal(Number(c.beat), i);
          const recs = trace({ builtin: c.scenario, preset: c.preset, consumers: c.consumers, config: c.config });
          const step = Number(c.step);
          if (c.state === "ask") {
            quizzes++;
            // Predict first: the stage shows the step before the beat.
            assert.equal(c.shown, step - 1, "a question is asked one step before its beat");
            const q = await page.$eval(".tour form.quiz", (f) => ({ ...f.dataset, keys: [...f.querySelectorAll("input[type=radio]")].map((x) => x.value) }));
            assert.equal(Number(q.step), step);
            assert.ok(q.keys.includes(q.expected), "the expected answer is among the choices");
            assert.ok(q.keys.length >= 2, "there is a wrong answer to pick");
            const rec = recs[step];
            if (q.kind === "value") {
              const want = replica(rec, Number(q.broker))[q.field];
              assert.equal(Number(q.expected), want, `${tour} beat ${i}: ${q.field} of broker ${q.broker} at step ${step}`);
            } else {
              assert.equal(q.expected, claimFromTrace(recs, q.claim, step, Number(q.broker)), `${tour} beat ${i}: claim ${q.claim}`);
            }
            // Right on the first level, wrong (a classic mistake) on the others.
            const pick = li === 0 ? q.expected : q.keys.find((k) => k !== q.expected);
            await page.check(`.tour form.quiz input[value="${pick}"]`);
            await page.click(".tour form.quiz button[type=submit]");
            const result = await page.$eval(".tour .quiz-result", (r) => ({ ...r.dataset, text: r.textContent }));
            assert.equal(result.expected, q.expected);
            assert.equal(result.right, String(pick === q.expected));
            assert.match(result.text, pick === q.expected ? /Right/ : /Not quite/);
            // The reveal shows the beat's step, and the stage agrees with the answer.
            c = await card(page);
            assert.equal(c.shown, step);
            if (q.kind === "value") assert.equal((await brokerOnStage(page, Number(q.broker)))[q.field], Number(q.expected), "the stage shows the revealed value");
          } else {
            assert.equal(c.shown, step, "a beat shows its step");
          }
          const text = await page.textContent(".tour .beat-body");
          assert.ok(text.trim().length > 20, `${tour} beat ${i} says something`);
          assert.doesNotMatch(text, /undefined|NaN|\[object/, `${tour} beat ${i} has no holes: ${text}`);
          if (await page.isDisabled(".tour-nav .primary")) break;
          await page.click(".tour-nav .primary");
        }
        assertNoErrors(page);
        await page.close();
      }
      await context.close();
      for (let i = 1; i < counts.length; i++) assert.ok(counts[i] >= counts[i - 1], `deeper levels show at least as many beats: ${counts}`);
      assert.ok(counts[3] > counts[0] || tour === "follower-fetch", `principal goes deeper than junior: ${counts}`);
      assert.ok(quizzes > 0, "the tour asks questions");
    });
  }
});

test("a tour links and embeds at a beat; the keyboard moves between beats", async () => {
  const page = await env.open("/?tour=hw-lag&beat=3&level=junior&embed=1");
  await page.waitForSelector(".tour[data-beat]");
  let c = await card(page);
  assert.equal(c.beat, "3");
  assert.equal(c.level, "junior");
  assert.equal(await page.isVisible(".bar .tools"), false, "embedded: no page chrome");
  assert.equal(await page.isVisible(".tour"), true, "embedded: the tour card shows");
  await page.click(".tour-head button:has-text('Link to this beat')");
  const link = new URL(await page.inputValue(".tour-link"));
  assert.equal(link.searchParams.get("tour"), "hw-lag");
  assert.equal(link.searchParams.get("beat"), "3");
  assert.equal(link.searchParams.get("level"), "junior");
  assert.equal(link.searchParams.get("embed"), "1");
  await page.locator("body").click({ position: { x: 2, y: 2 } });
  await page.keyboard.press("n");
  c = await card(page);
  assert.equal(c.beat, "4");
  await page.keyboard.press("p");
  assert.equal((await card(page)).beat, "3");
  assertNoErrors(page);
  await page.close();
});

test("a tour, view or level the address names that does not exist is said in Learn, and the rest applies", async () => {
  const page = await env.open("/?tour=nope&view=chart,nope&level=9");
  await page.waitForSelector(".learn-problem:not(:empty)");
  assert.equal(
    await page.textContent(".learn-problem"),
    'level=9 is not a level (junior, middle, senior, principal). There is no tour "nope": the tours are listed here. There is no view "nope": the views are gauges, why, chart, diagram, compare.',
  );
  await page.waitForSelector(".view-chart");
  assert.equal(await page.isVisible("#learn .tour-list"), true, "the tours to pick from");
  // Opened again from its button, Learn says nothing of the address.
  await page.click("#learn .learn-head button");
  await page.click("#learn-open");
  await page.waitForFunction(() => !document.getElementById("learn").hidden);
  assert.equal(await page.textContent(".learn-problem"), "");
  assertNoErrors(page);
  await page.close();
});

test("“Play to next” animates up to the next beat and stops there", async () => {
  // From beat 1, named: the test above leaves this tour's progress at beat 3, where a page
  // without a beat in its address resumes.
  const page = await env.open("/?tour=hw-lag&level=junior&beat=1");
  await page.waitForSelector(".tour[data-beat]");
  await page.click(".tour-nav button:has-text('Play to next')");
  await page.waitForFunction(() => document.querySelector(".tour .beat-title")?.textContent.startsWith("2."), null, { timeout: 20_000 });
  await page.waitForFunction(() => document.getElementById("play").textContent === "Play");
  const c = await card(page);
  assert.equal(c.beat, "2");
  assert.equal(c.shown, Number(c.step), "the animation stops at the beat's step");
  assertNoErrors(page);
  await page.close();
});

test("without local storage (a sandboxed frame) tours still work; with it, progress is kept", async () => {
  const context = await env.browser.newContext({ baseURL: env.baseURL });
  await context.addInitScript(() => {
    Object.defineProperty(window, "localStorage", { get() { throw new DOMException("blocked", "SecurityError"); } });
  });
  const blocked = await context.newPage();
  const errors = [];
  blocked.on("pageerror", (e) => errors.push(e.message));
  await blocked.goto(new URL("/?tour=kip101&level=junior", env.baseURL).href);
  await blocked.waitForSelector(".tour[data-beat]");
  await blocked.click(".tour-nav .primary");
  assert.equal((await card(blocked)).beat, "2");
  assert.deepEqual(errors, []);
  await context.close();

  const page = await env.open("/?tour=kip101&level=junior");
  await page.waitForSelector(".tour[data-beat]");
  const beats = Number((await card(page)).beats);
  await page.click(`.beat-dots li:nth-child(${beats}) button`);
  await page.reload();
  // The tour list is folded while a tour runs: wait for the card, then read the list.
  await page.waitForSelector(".tour[data-beat]");
  assert.equal(await page.$eval('#learn .tour-pick[data-tour="kip101"] + .done', (s) => s.textContent.trim()), "✓", "a finished tour is marked");
  assertNoErrors(page);
  await page.close();
});

// Each test opens the page afresh: none depends on what another left behind.
describe("the views that explain", () => {
  let page;
  const recs = () => trace({ builtin: "seed-walkthrough" });
  beforeEach(async () => {
    page = await env.open("/?scenario=seed-walkthrough&view=why,gauges,chart,diagram");
    await page.waitForSelector(".view-diagram svg .row");
    await page.waitForSelector(".view-chart svg .mk");
  });
  afterEach(async () => {
    assertNoErrors(page);
    await page.close();
  });

  test("why did the HW move: the Fetch that moved it and the answers that carried it", async () => {
    const r = recs();
    const lead = r.findIndex((x) => x.event?.type === "fetch_request" && x.event.hw_after > x.event.hw_before);
    const hw = r[lead].event.hw_after;
    const carried = r.findIndex((x, n) => n > lead && x.event?.type === "fetch_response" && x.event.to === 1 && x.event.hw >= hw);
    await page.$eval(".view-why select", (s, lead) => {
      const o = [...s.options].find((x) => x.textContent.startsWith(`#${lead} `));
      s.value = o.value;
      s.dispatchEvent(new Event("change"));
    }, lead);
    const chain = await page.$$eval(".view-why .chain li", (lis) => lis.map((li) => ({ steps: [...li.querySelectorAll("[data-step]")].map((b) => Number(b.dataset.step)), follower: li.dataset.follower, text: li.textContent })));
    const key = chain.find((x) => x.steps.includes(lead));
    assert.ok(key, "the chain names the step that moved the leader's HW");
    assert.match(key.text, new RegExp(`HW ${r[lead].event.hw_before} → ${hw}`));
    const fetchSent = chain[0];
    assert.match(fetchSent.text, new RegExp(`Fetch @${r[lead].event.fetch_offset}`), "…and the Fetch, with its fetch offset");
    const f = chain.find((x) => x.follower === "1");
    assert.deepEqual(f.steps, [carried], "…and the answer that carried the HW to follower 1");
    assert.match(f.text, new RegExp(`${r[carried].time_ms - r[lead].time_ms} ms after the leader`));
    // A click on a chain step shows that step.
    await page.click(`.view-why .chain [data-step="${carried}"]`);
    assert.equal(Number(await page.$eval("#status", (s) => s.dataset.step)), carried);
  });

  test("the gauge shows each follower's lag in offsets and milliseconds", async () => {
    const r = recs();
    // The first step where the follower's HW is behind the leader's, and the one after.
    const start = r.findIndex((x) => replica(x, 0).hw > replica(x, 1).hw);
    const n = start + 1;
    await page.$eval("#scrub", (el, v) => {
      el.value = String(v);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }, n);
    const g = await page.$eval('.view-gauges .gauge[data-broker="1"]', (x) => ({ offsets: Number(x.dataset.offsets), ms: Number(x.dataset.ms) }));
    assert.equal(g.offsets, replica(r[n], 0).hw - replica(r[n], 1).hw);
    assert.equal(g.ms, r[n].time_ms - r[start].time_ms);
  });

  test("the chart marks every HW change, and a mark explains itself", async () => {
    const r = recs();
    let changes = 0;
    for (let n = 1; n < r.length; n++) for (const x of r[n].replicas) if (x.hw !== replica(r[n - 1], x.broker).hw) changes++;
    assert.equal(await page.$$eval(".view-chart .mk", (m) => m.length), changes);
    const mk = await page.$(".view-chart .mk.lead");
    const step = Number(await mk.getAttribute("data-step"));
    await mk.click();
    await page.waitForFunction((s) => document.querySelector(".view-why .why-out")?.dataset.step === String(s), step);
  });

  test("the sequence diagram has a lane per broker and client and follows the scrubber", async () => {
    const r = recs();
    const lanes = await page.$$eval(".view-diagram .lh", (ts) => ts.map((t) => t.textContent));
    assert.deepEqual(lanes.slice(0, 2), ["broker 0", "broker 1"]);
    assert.ok(lanes.includes("p1"));
    assert.equal(await page.$$eval(".view-diagram .row", (rs) => rs.length), r.length);
    for (const n of [2, 7, 4]) {
      await page.$eval("#scrub", (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input", { bubbles: true }));
      }, n);
      assert.equal(await page.$eval(".view-diagram svg", (s) => s.dataset.step), String(n));
    }
    // Each message runs from the step that sent it to the step that received it.
    const arrows = await page.$$eval(".view-diagram .msg-a", (gs) => gs.map((g) => ({ id: Number(g.dataset.msg), from: Number(g.dataset.from), to: g.dataset.to === "" ? null : Number(g.dataset.to) })));
    for (const a of arrows) {
      assert.ok(r[a.from].in_flight.some((m) => m.id === a.id), `message ${a.id} is on the wire at step ${a.from}`);
      if (a.from > 0) assert.ok(!r[a.from - 1].in_flight.some((m) => m.id === a.id), `message ${a.id} was sent at step ${a.from}`);
      if (a.to !== null) assert.ok(!r[a.to].in_flight.some((m) => m.id === a.id) && r[a.to - 1].in_flight.some((m) => m.id === a.id), `message ${a.id} arrives at step ${a.to}`);
    }
  });

  test("the chart and the diagram export as SVG and PNG that render", async () => {
    for (const view of ["chart", "diagram"]) {
      for (const kind of ["svg", "png"]) {
        const [download] = await Promise.all([page.waitForEvent("download"), page.click(`.view-${view} [data-export="${kind}"]`)]);
        assert.match(download.suggestedFilename(), new RegExp(`\\.${kind}$`));
        const bytes = readFileSync(await download.path());
        if (kind === "png") assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], "a PNG signature");
        const shown = await page.evaluate(async ({ b64, kind }) => {
          let src;
          let parse = null;
          if (kind === "svg") {
            const text = new TextDecoder().decode(Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0)));
            parse = new DOMParser().parseFromString(text, "image/svg+xml").querySelector("parsererror")?.textContent ?? null;
            src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
          } else {
            src = `data:image/png;base64,${b64}`;
          }
          const img = new Image();
          img.src = src;
          await img.decode();
          return { parse, width: img.naturalWidth, height: img.naturalHeight };
        }, { b64: bytes.toString("base64"), kind });
        assert.equal(shown.parse, null, `${view}.${kind} parses`);
        assert.ok(shown.width > 0 && shown.height > 0, `${view}.${kind} renders (${shown.width}×${shown.height})`);
      }
    }
  });

  test("nothing runs while paused", async () => {
    const frames = await page.evaluate(() => window.__frames);
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => window.__frames), frames, "no animation frame while paused");
  });
});

test("compare: two runs differing in replica.fetch.wait.max.ms stay at one time", async () => {
  const page = await env.open("/?scenario=idle-partition-lag&view=compare");
  await page.waitForSelector(".view-compare .cmp-side[data-step]");
  await page.selectOption(".view-compare .row select", "wait");
  await page.fill(".view-compare .cmp-value input", "100");
  await page.dispatchEvent(".view-compare .cmp-value input", "change");
  await page.waitForSelector('.view-compare .view-body[data-setting="wait"][data-value="100"]');
  // B is the scenario with replica.fetch.wait.max.ms = 100, run by the CLI from a file.
  const scenario = JSON.parse(readFileSync(join(ROOT, "scenarios/idle-partition-lag.json"), "utf8"));
  scenario.config = { ...scenario.config, "replica.fetch.wait.max.ms": 100 };
  const file = join(mkdtempSync(join(tmpdir(), "hwscope-learn-")), "b.json");
  writeFileSync(file, JSON.stringify(scenario));
  const runs = { A: trace({ builtin: "idle-partition-lag" }), B: trace({ file }) };
  const lastAt = (recs, t) => recs.reduce((n, r, i) => (r.time_ms <= t ? i : n), 0);
  const sides = () => page.$$eval(".view-compare .cmp-side", (ss) => Object.fromEntries(ss.map((s) => [s.dataset.side, { step: Number(s.dataset.step), time: Number(s.dataset.time) }])));
  const max = Number(await page.getAttribute(".view-compare .cmp-scrub", "max"));
  assert.equal(max, Math.max(runs.A.at(-1).time_ms, runs.B.at(-1).time_ms));
  for (const t of [0, 1203, 1304, 1703, max]) {
    await page.$eval(".view-compare .cmp-scrub", (el, v) => {
      el.value = String(v);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }, t);
    const s = await sides();
    for (const side of ["A", "B"]) {
      const n = lastAt(runs[side], t);
      assert.equal(s[side].step, n, `${side} at ${t} ms shows step ${n}`);
      assert.equal(s[side].time, runs[side][n].time_ms);
    }
  }
  // ▶ goes to the next event in either run: both sides move to that time.
  await page.$eval(".view-compare .cmp-scrub", (el) => {
    el.value = "1203";
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await page.click('.view-compare [aria-label="Next event in either run"]');
  const t = Number(await page.$eval(".view-compare .cmp-scrub", (el) => el.value));
  const next = Math.min(...["A", "B"].map((k) => runs[k].find((r) => r.time_ms > 1203)?.time_ms ?? Infinity));
  assert.equal(t, next);
  const s = await sides();
  for (const side of ["A", "B"]) assert.equal(s[side].step, lastAt(runs[side], t));
  // The B side's follower learns the HW sooner: its chart has the follower's HW move earlier.
  assertNoErrors(page);
  await page.close();
});

test("320 px, dark: the tour and the views fit without sideways scrolling", async () => {
  const page = await env.newPage();
  await page.setViewportSize({ width: 320, height: 700 });
  await page.goto(new URL("/?theme=dark&tour=hw-lag&level=senior&view=why,chart,compare", env.baseURL).href);
  await page.waitForSelector(".tour[data-beat]");
  await page.waitForSelector(".view-compare .cmp-side[data-step]");
  const bg = await page.evaluate(() => getComputedStyle(document.querySelector(".tour")).backgroundColor);
  const [r, g, b] = bg.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 200, `the tour card is dark, got ${bg}`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 320), "no horizontal overflow at 320 px");
  assertNoErrors(page);
  await page.close();
});

// ---- the faults tour: each beat is the CLI's event, and says the CLI's numbers --------

const set = (xs) => `{${xs.join(", ")}}`;
const copiesOf = (rec, b, id) => replica(rec, b).log.filter((x) => x.id === id).map((x) => x.offset);
const zombieIn = (rec) => rec.replicas.find((r) => r.alive && r.role === "leader" && r.broker !== rec.partition.leader);

/** Per beat: what its step's record must be in the CLI's trace, and the words its text must carry. */
const FAULT_BEATS = {
  "zombie-leader": {
    cut: (r, n) => {
      assert.equal(r[n].event.type, "partition");
      assert.ok(r[n].event.links.flat().includes("controller"));
      return [`At ${r[n].time_ms} ms`];
    },
    fenced: (r, n) => {
      const e = r[n].event;
      assert.equal(e.type, "leader_election");
      assert.equal(e.outcome, "fenced");
      assert.equal(zombieIn(r[n])?.broker, e.broker, "the fenced broker still leads in its own view");
      return [`At ${r[n].time_ms} ms`, `ISR ${set(e.isr_before)} → ${set(e.isr)}`];
    },
    acks1: (r, n) => {
      assert.equal(r[n].event.type, "produce_response");
      assert.ok(r[n].lost.length > (r[n - 1].lost ?? []).length, "a record is listed as lost at this step");
      const l = r[n].lost.at(-1);
      assert.equal(l.allowed, true);
      return [l.id, `acknowledged at ${r[n].time_ms} ms`];
    },
    acksall: (r, n) => {
      const e = r[n].event;
      assert.equal(e.outcome, "shrink-proposed");
      assert.equal(zombieIn(r[n])?.broker, e.broker);
      return [`${set(e.isr_before)} → ${set(e.isr)}`, `HW is ${replica(r[n], e.broker).hw} and its LEO ${replica(r[n], e.broker).leo}`];
    },
    rejoin: (r, n) => {
      const e = r[n].event;
      assert.equal(e.type, "leader_and_isr");
      assert.equal(e.outcome, "become-follower");
      return [`log still ends at ${replica(r[n], e.to).leo}`, `the leader's at ${replica(r[n], e.leader).leo}`];
    },
    truncate: (r, n) => {
      const e = r[n].event;
      assert.equal(e.rule, "diverging-epoch");
      return [`truncates ${e.leo_before} → ${e.truncate_to}`, `#${n}`, `${r[n].lost.filter((l) => l.allowed).length} acknowledged acks=1 writes`];
    },
    retried: (r, n) => {
      const e = r[n].event;
      assert.equal(e.type, "produce_response");
      assert.equal(e.from, r[n].partition.leader);
      return [`acknowledged at ${r[n].time_ms} ms at offset ${copiesOf(r[n], e.from, e.records[0])[0]}`];
    },
  },
  "bounce-inside-session": {
    restart: (r, n) => {
      const e = r[n].event;
      assert.equal(e.type, "restart");
      return [`starts again at ${r[n].time_ms} ms, with LEO ${replica(r[n], e.broker).leo}`, `checkpoint (${replica(r[n], e.broker).hw})`];
    },
    refused: (r, n) => {
      assert.equal(r[n].event.error, "DUPLICATE_BROKER_REGISTRATION");
      return [`ISR ${set(r[n].partition.isr)}`];
    },
    "fetches-unregistered": (r, n) => {
      const e = r[n].event;
      assert.equal(e.type, "fetch_request");
      assert.equal(replica(r[n], e.from).state, "starting", "fetching before it is registered");
      return [`broker ${e.from} fetches from leader ${e.to}`, `ISR ${set(r[n].partition.isr)}`];
    },
    fenced: (r, n) => {
      // The old incarnation goes at a stale-broker check, or at the new one's registration
      // when that comes first after the session has expired (Kafka 4.0.2 does either).
      const e = r[n].event;
      assert.ok(e.outcome === "fenced" || (e.type === "broker_registration" && e.outcome === "registered"), JSON.stringify(e));
      return [`At ${r[n].time_ms} ms`, `ISR ${set(r[n].partition.isr)}`];
    },
    registered: (r, n) => {
      assert.equal(r[n].event.type, "alter_partition");
      return [`${set(r[n - 1].partition.isr)} → ${set(r[n].event.isr)} at ${r[n].time_ms} ms`];
    },
    "leader-crash": (r, n) => {
      assert.equal(r[n].event.type, "crash");
      assert.equal(r[n].event.broker, r[n].partition.leader);
      return [`At ${r[n].time_ms} ms leader ${r[n].event.broker}`];
    },
    "leader-elected": (r, n) => [`elected at ${r[n].time_ms} ms`, `${r[n].producers[0].retries} retries`],
  },
  "retry-duplicates": {
    cut: (r, n) => [`At ${r[n].time_ms} ms`],
    timeout: (r, n) => {
      assert.equal(r[n].event.timer, "produce-request-timeout");
      return [`HW ${replica(r[n], r[n].partition.leader).hw}`];
    },
    idem: (r, n) => {
      const e = r[n].event;
      assert.equal(e.outcome, "duplicate");
      assert.equal(copiesOf(r[n], e.to, e.records[0]).length, 1);
      return [`LEO stays ${replica(r[n], e.to).leo}`];
    },
    plain: (r, n) => {
      const e = r[n].event;
      const at = copiesOf(r[n], e.to, e.records[0]);
      assert.equal(at.length, 2);
      return [`offsets ${at[0]} and ${at[1]}`, "×2"];
    },
    acked: (r, n) => [`at ${r[n].time_ms} ms`],
  },
  "retry-through-failover": {
    crash: (r, n) => [`At ${r[n].time_ms} ms leader ${r[n].event.broker}`],
    stale: (r, n) => [`names leader ${r[n].event.leader} at epoch ${r[n].event.leader_epoch}`],
    elected: (r, n) => [`At ${r[n].time_ms} ms`, `${r[n].producers[0].pending.length} writes waiting`],
    learns: (r, n) => {
      let q = n;
      while (r[q].event?.type !== "leader_election") q--;
      return [`${r[n].time_ms - r[q].time_ms} ms after the election`];
    },
    delivered: (r, n) => [`acknowledged at ${r[n].time_ms} ms`, `offset ${copiesOf(r[n], r[n].event.from, r[n].event.records[0])[0]}`],
  },
};

test("the faults tour: every beat in order, at the CLI's event, with the CLI's numbers", async () => {
  const page = await env.open("/?tour=faults&level=principal");
  await page.waitForSelector(".tour[data-beat]");
  const pinned = await page.evaluate(async () => (await import("/www/learn/learn.js")).open().then((hub) => hub.tour.pinned()));
  const scenarios = Object.keys(FAULT_BEATS);
  assert.deepEqual(pinned.map((b) => `${scenarios[b.part]}/${b.id}`), scenarios.flatMap((s) => Object.keys(FAULT_BEATS[s]).map((id) => `${s}/${id}`)), "one part per fault built-in, every beat checked here");
  let last = { part: -1, step: -1 };
  for (const [i, b] of pinned.entries()) {
    assert.ok(b.step >= 0, `${b.id} is found`);
    assert.ok(b.part > last.part || b.step > last.step, `${b.id} comes after the beat before it`);
    last = b;
    const c = await card(page);
    assert.equal(Number(c.beat), i + 1);
    assert.equal(c.scenario, scenarios[b.part]);
    assert.equal(Number(c.step), b.step);
    if (c.state === "ask") await page.click(".tour form.quiz button.link");
    const text = await page.textContent(".tour .beat-body");
    const recs = trace({ builtin: c.scenario });
    for (const words of FAULT_BEATS[c.scenario][b.id](recs, b.step)) assert.ok(text.includes(words), `${c.scenario} ${b.id} (step ${b.step}) says “${words}”: ${text}`);
    if (i < pinned.length - 1) await page.click(".tour-nav .primary");
  }
  assertNoErrors(page);
  await page.close();
});

// ---- "How to read this": a line for every mark the stage draws ------------------------------

/** Classes the stage draws that are marks a reader must be told about, with the words that tell. */
const MARKS = {
  lag: /shaded band/, hwl: /HW/, leol: /LEO/, u: /dashed ones are not/, ep0: /Colours are leader epochs/, ep1: /Colours are leader epochs/,
  fmark: /▸1/, out: /faded marker ▸/, cmark: /▸c1/, parked: /‖ on its pill/, moved: /HW/,
  isr: /in ISR/, elr: /ELR/, fenced: /fenced/, offline: /offline/, down: /offline/, zombie: /leader\? zombie/,
  controller: /controller/, cut: /dashed red arc.*✕/, err: /message in red/,
  ghost: /✕ p1-7 #42.*ghost/, under: /✕ p1-7 #42/, dup: /×2/, retrying: /retry 2/,
  "under-min": /ISR < 2.*smaller than min\.insync\.replicas/, held: /red dashed HW line.*HW 101 held/, refused: /outlined red: retry 3 \(ISR too small\)/,
  perr: /written beside it with its error, p-all-2 ✗ NOT_ENOUGH_REPLICAS_AFTER_APPEND/,
};
/** Classes of the drawing's parts (layers, labels, roles), not marks of their own. */
const PARTS = new Set(["arrowhead", "ruler", "ofs", "logs", "log", "strip", "init", "initl", "hwt", "lagt", "leot", "ghosts", "fmarks", "cmarks", "heads", "broker", "leader", "follower",
  "name", "nums", "elr-tag", "clients", "client", "producer", "consumer", "parks", "cuts", "trails", "trail", "msgs", "msg", "words", "log-words", "msgl", "rec", "left", "c", "sel", "fetch", "produce", "consumer_fetch"]);

test("“How to read this” has a line for every mark the stage draws in the fault built-ins", async () => {
  const page = await env.open("/?scenario=seed-walkthrough");
  await page.waitForSelector("#status[data-step]");
  // Its lines load when it is first opened (panels/legend.js).
  await page.click(".legend summary");
  await page.waitForSelector(".legend li");
  const legend = (await page.textContent(".legend")).replace(/\s+/g, " ");
  for (const [mark, words] of Object.entries(MARKS)) assert.match(legend, words, `the legend explains .${mark}`);
  assert.match(legend, /Lost in this run/);
  const seen = new Map();
  const messages = new Set();
  for (const s of ["seed-walkthrough", "zombie-leader", "bounce-inside-session", "retry-duplicates", "retry-through-failover", "elr", "follower-fetch-consumer"]) {
    const recs = trace({ builtin: s });
    for (const r of recs) for (const m of r.in_flight) messages.add(m.type);
    // Every 40th of the run, and the steps where a fault's marks first show.
    const firsts = [
      recs.findIndex((r) => zombieIn(r)),
      recs.findIndex((r) => r.replicas.some((x) => x.lost?.length)),
      recs.findIndex((r) => r.violations.some((v) => v.invariant === "duplicate-record")),
      recs.findIndex((r) => r.producers.some((p) => (p.batches ?? []).some((b) => b.attempts > 0))),
      recs.findIndex((r) => r.partition.cut_links?.length),
      recs.findIndex((r) => r.replicas.some((x) => !x.alive)),
    ].filter((n) => n >= 0);
    const steps = [...new Set([...recs.keys()].filter((n) => n % Math.ceil(recs.length / 40) === 0).concat(firsts))].sort((a, b) => a - b);
    await page.goto(new URL(`/?scenario=${s}`, env.baseURL).href);
    await page.waitForSelector("#status[data-step]");
    if (s === "zombie-leader") {
      // The lost list's words for a permitted loss are the legend's.
      await page.$eval("#scrub", (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input", { bubbles: true }));
      }, recs.length - 1);
      const allowed = await page.textContent("#lost li.allowed");
      assert.ok(legend.includes(allowed.match(/as the configuration permits/)?.[0] ?? "(missing)"), `the legend says what “${allowed}” means`);
    }
    for (const n of steps) {
      await page.$eval("#scrub", (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input", { bubbles: true }));
      }, n);
      for (const c of await page.$$eval("#stage [class]", (els) => [...new Set(els.flatMap((e) => [...e.classList]))])) if (!seen.has(c)) seen.set(c, `${s} step ${n}`);
    }
  }
  for (const mark of ["zombie", "ghost", "dup", "retrying", "cut", "controller", "fenced", "offline"]) assert.ok(seen.has(mark), `the stage draws .${mark} in these runs`);
  const unexplained = [...seen.keys()].filter((c) => !MARKS[c] && !PARTS.has(c) && !messages.has(c));
  assert.deepEqual(unexplained.map((c) => `${c} (${seen.get(c)})`), [], "a mark the stage draws has a line in “How to read this” (add it there and to MARKS), or is a part of the drawing (PARTS)");
  assertNoErrors(page);
  await page.close();
});
