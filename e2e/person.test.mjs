// Issue 29, "from a person-style pass over the page": each defect a new user met,
// as that user would meet it, in Chromium. Each test failed on the page before
// its fix. Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { assertNoErrors, box, cliTrace, launch, openLive, ROOT, scrubTo, stepOf } from "./helpers.mjs";

const wasm = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
wasm.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });

const builtin = (name) => wasm.builtinScenarios().find((s) => s.name === name).json;

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

const open = (path, viewport) => openLive(env, path, viewport);


describe("fix 6: the status line is never cut", () => {
  test("past 100 s the time keeps its unit, inside its box", async () => {
    const long = { format: 1, title: "A quiet partition for five minutes", replicas: 2, initial: { log_end_offset: 10 }, stop_at_ms: 300000 };
    const page = await open(`/#${wasm.encodeLink(JSON.stringify(long))}`);
    await page.click("#end");
    await page.waitForFunction(() => Number(document.getElementById("status").dataset.time) >= 100000);
    const t = await page.$eval("#status .time", (e) => ({ text: e.textContent, fits: e.scrollWidth <= e.clientWidth + 0.5 }));
    assert.match(t.text, /^t = \d+(\.\d+)? s$/, t.text);
    assert.ok(t.fits, `"${t.text}" fits its box`);
    assertNoErrors(page);
    await page.close();
  });

  test("in an embed the time and the step do not overlap; the modified mark is not cut off", async () => {
    // A run with an intervention, made on the page, then opened as an embed.
    const full = await open("/?scenario=slow-follower-isr");
    await scrubTo(full, 3);
    await full.click('[data-iv="crash"]');
    await full.waitForFunction(() => /modified/.test(document.getElementById("about").textContent));
    await full.waitForTimeout(600); // the address bar is rewritten at most every 500 ms
    const hash = new URL(full.url()).hash;
    await full.close();
    const page = await open(`/?embed=1${hash.replace(/at=\d+/, "at=30")}`, { width: 640, height: 500 });
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "30");
    const time = await box(page, "#status .time");
    const step = await box(page, "#status .step");
    assert.ok(time.x1 <= step.x0, `the time (ends ${time.x1}) ends before the step (starts ${step.x0})`);
    const t = await page.$eval("#status .time", (e) => ({ text: e.textContent, fits: e.scrollWidth <= e.clientWidth + 0.5 }));
    assert.ok(t.fits, `"${t.text}" fits its box`);
    const mark = await page.$eval("#about .modified", (m) => {
      const r = m.getBoundingClientRect();
      const line = m.parentElement.getBoundingClientRect();
      return { text: m.textContent, inside: r.width > 0 && r.right <= line.right + 0.5 };
    });
    assert.match(mark.text, /modified/);
    assert.ok(mark.inside, "the modified mark is within the one line the embed has");
    await page.close();
  });
});

describe("fix 9: small layout defects", () => {
  test("at 360 px every replica's HW and LEO are written right of its own log", async () => {
    const page = await open("/?scenario=slow-follower-isr#at=30", { width: 360, height: 800 });
    const labels = await page.$$eval("#stage g.log", (gs) => gs.map((g) => {
      const strip = g.querySelector("rect.strip")?.getBoundingClientRect();
      const words = document.querySelector(`#stage g.log-words[data-broker="${g.dataset.broker}"]`);
      const t = (cls) => {
        const n = words.querySelector(`text.${cls}`);
        const r = n?.getBoundingClientRect();
        return { text: n?.textContent ?? "", x0: r?.left ?? 0 };
      };
      return { broker: g.dataset.broker, right: strip.right, hw: t("hwt"), leo: t("leot") };
    }));
    assert.equal(labels.length, 3);
    for (const l of labels) {
      assert.match(l.hw.text, /^HW \d+/, `broker ${l.broker} has its HW label`);
      assert.match(l.leo.text, /^LEO \d+/, `broker ${l.broker} has its LEO label`);
      assert.ok(l.hw.x0 >= l.right && l.leo.x0 >= l.right, `broker ${l.broker}'s labels are right of its log`);
    }
    await page.close();
  });

  test("at 360 px the ? button is at least 24 × 24 and the theme button says what it is", async () => {
    const page = await open("/", { width: 360, height: 800 });
    const help = await box(page, "#help-open");
    assert.ok(help.w >= 24 && help.h >= 24, `? is ${help.w} × ${help.h}`);
    const theme = await page.$eval("#theme", (b) => b.innerText.trim());
    assert.notEqual(theme, "auto", "more than a bare “auto”");
    assert.match(theme, /◐/);
    await page.close();
  });

  test("two followers at one fetch offset are marked as two, not as “1,2”", async () => {
    const page = await open("/?scenario=slow-follower-isr#at=30");
    const marks = await page.$$eval("#stage .fmark text", (ts) => ts.map((t) => t.textContent).filter(Boolean));
    assert.ok(marks.length > 0);
    assert.ok(!marks.some((m) => /\d,\d/.test(m)), `marks: ${marks}`);
    assert.ok(marks.some((m) => /1 & 2/.test(m)), `marks: ${marks}`);
    await page.close();
  });

  test("a quiz's question sits inside its box", async () => {
    const page = await open("/?tour=hw-lag&beat=3&level=junior");
    await page.waitForSelector(".tour form.quiz legend");
    const legend = await box(page, ".tour form.quiz legend");
    const set = await box(page, ".tour form.quiz fieldset");
    assert.ok(legend.y0 >= set.y0 + 0.5, `the question (top ${legend.y0}) is below the box's border (${set.y0})`);
    await page.close();
  });

  test("Settings does not say “none — none”", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    await page.click("#settings-open");
    await page.waitForSelector("#settings[open]");
    const zk = await page.textContent("#f-config-zookeeper_session_timeout_ms-src");
    assert.match(zk, /ZooKeeper/);
    assert.doesNotMatch(zk, /none — none/);
    await page.close();
  });

  test("an embed's “link reproduced exactly” goes once another step is shown", async () => {
    const full = await open("/?scenario=seed-walkthrough");
    await scrubTo(full, 4);
    await full.waitForTimeout(600);
    const hash = new URL(full.url()).hash;
    await full.close();
    const page = await open(`/?embed=1${hash}`);
    await page.waitForSelector("#status .verified:not([hidden])");
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "5");
    assert.equal(await page.isHidden("#status .verified"), true);
    await page.close();
  });
});

describe("fix 2 and fix 8: a built-in under another preset keeps its name and its moment", () => {
  test("kip101-data-loss at its end, Settings › kafka-4.0 › Run: same moment, same name, both presets one click away", async () => {
    const page = await open("/?scenario=kip101-data-loss");
    await page.click("#end");
    await page.waitForFunction(() => Number(document.getElementById("status").dataset.step) > 20);
    const before = await page.$eval("#status", (s) => ({ step: Number(s.dataset.step), t: Number(s.dataset.time) }));
    await page.click("#settings-open");
    await page.waitForSelector("#settings[open]");
    await page.selectOption("#f-preset", "kafka-4.0");
    await page.click("#settings-run");
    await page.waitForFunction(() => /kafka-4\.0/.test(document.querySelector("#status .seed").textContent));
    const after = await page.$eval("#status", (s) => ({ step: Number(s.dataset.step), t: Number(s.dataset.time) }));
    assert.ok(after.step > 0, "not back at step 0");
    assert.ok(after.t <= before.t && after.t > before.t - 2000, `the same moment: ${after.t} ms against ${before.t} ms`);
    assert.equal(await page.$eval("#scenario", (s) => s.value), "kip101-data-loss", "the picker keeps the built-in");
    assert.match(await page.$eval("#scenario", (s) => s.selectedOptions[0].textContent), /under kafka-4\.0/);
    const about = await page.textContent("#about");
    assert.match(about, /under kafka-4\.0/, "the heading says which preset runs");
    assert.match(about, /Written for kafka-0\.10/, "the description says which version it tells of");
    // One click: both presets side by side.
    await page.click("#notice .notice-action");
    await page.waitForSelector(".view-compare .cmp-side[data-side=B] h4");
    const heads = await page.$$eval(".view-compare .cmp-side h4", (hs) => hs.map((x) => x.textContent));
    assert.match(heads[0], /kafka-0\.10/);
    assert.match(heads[1], /kafka-4\.0/);
    assertNoErrors(page);
    await page.close();
  });

  test("an edited built-in's description is marked as the built-in's", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    await page.click("#settings-open");
    await page.waitForSelector("#settings[open]");
    await page.fill("#f-title", "My own run");
    await page.fill("#f-replicas", "3");
    await page.click("#settings-run");
    await page.waitForFunction(() => /My own run/.test(document.getElementById("about").textContent));
    assert.match(await page.textContent("#about"), /which your edits changed/);
    await page.close();
  });

  test("the KIP-101 tour: part 2 keeps the built-in's name; the junior level shows kafka-4.0 keeping the record", async () => {
    const page = await open("/?tour=kip101&level=junior");
    await page.waitForSelector(".tour[data-beat]");
    const seen = [];
    for (;;) {
      const c = await page.$eval(".tour", (t) => ({ ...t.dataset }));
      if (c.state === "ask") {
        await page.click(".tour form.quiz button.link");
        await page.waitForSelector(".tour[data-state=show]");
      }
      const pick = await page.$eval("#scenario", (s) => s.selectedOptions[0]?.textContent ?? "");
      seen.push({ preset: c.preset, pick, text: await page.textContent(".tour .beat-body") });
      if (await page.isDisabled(".tour-nav .primary")) break;
      await page.click(".tour-nav .primary");
    }
    const latest = seen.filter((s) => s.preset === "kafka-4.0");
    assert.ok(latest.length > 0, "a junior beat under kafka-4.0");
    assert.ok(latest.some((s) => /the acknowledged record is kept/.test(s.text)), "it shows the record kept");
    for (const s of seen) assert.doesNotMatch(s.pick, /Custom/, `the picker names the built-in under ${s.preset}`);
    assert.ok(seen.some((s) => /under kafka-4\.0/.test(s.pick)));
    await page.close();
  });
});

describe("fix 3: min.insync.replicas on the stage", () => {
  test("RF 5, min.insync 3, three followers crashed: the leader is marked under min ISR, its HW held, the producer's refused write shown", async () => {
    const sc = {
      format: 1, title: "Three of five down under min.insync.replicas 3", replicas: 5, initial: { log_end_offset: 100 },
      config: { "min.insync.replicas": 3 }, producers: [{ id: "p1", acks: "all" }],
      events: [
        { at_ms: 500, crash: { broker: 2 } }, { at_ms: 500, crash: { broker: 3 } }, { at_ms: 500, crash: { broker: 4 } },
        { at_ms: 1000, produce: { producer: "p1", records: 1 } },
        { at_ms: 14000, produce: { producer: "p1", records: 1 } },
      ],
      stop_at_ms: 16000,
    };
    const page = await open(`/#${wasm.encodeLink(JSON.stringify(sc))}`);
    await page.click("#end");
    await page.waitForFunction(() => document.querySelector('#stage .broker[data-under-min-isr]'));
    // Step to a moment where the leader is under min ISR.
    const leader = await page.$eval("#stage .broker[data-under-min-isr]", (g) => ({ broker: g.dataset.broker, min: g.dataset.underMinIsr, label: g.getAttribute("aria-label"), tag: g.querySelector(".elr-tag text")?.textContent }));
    assert.equal(leader.min, "3");
    assert.match(leader.tag, /ISR < 3/);
    assert.match(leader.label, /under min\.insync\.replicas 3, HW held/);
    const hw = await page.$eval(`#stage g.log[data-broker="${leader.broker}"]`, (g) => ({ line: g.querySelector("line.hwl").getAttribute("class"), label: document.querySelector(`#stage g.log-words[data-broker="${g.dataset.broker}"] text.hwt`).textContent }));
    assert.match(hw.line, /held/);
    assert.match(hw.label, /held/);
    assert.match(await page.textContent("#status"), /< min\.insync 3 \(HW held\)/);
    const producer = await page.$eval('#stage .producer[data-producer="p1"]', (g) => ({ cls: g.getAttribute("class"), text: g.textContent }));
    assert.match(producer.cls, /refused/);
    assert.match(producer.text, /ISR too small|failed/);
    assertNoErrors(page);
    await page.close();
  });
});

describe("fix 5: the Share dialog locks the embed to a range", () => {
  test("the range around the step shown, and the loop, go into the iframe snippet", async () => {
    const page = await open("/?scenario=slow-follower-isr");
    await scrubTo(page, 20);
    await page.click("#share-open");
    await page.waitForSelector("#share[open]");
    assert.doesNotMatch(await page.inputValue("#share-iframe"), /from=/, "not locked unless asked");
    assert.equal(await page.isDisabled("#share-from"), true);
    await page.check("#share-lock");
    assert.equal(await page.inputValue("#share-from"), "10");
    assert.equal(await page.inputValue("#share-to"), "30");
    assert.match(await page.inputValue("#share-iframe"), /&amp;from=10&amp;to=30#/);
    await page.check("#share-loop");
    assert.match(await page.inputValue("#share-iframe"), /from=10&amp;to=30&amp;loop=1#/);
    await page.fill("#share-to", "25");
    assert.match(await page.inputValue("#share-iframe"), /from=10&amp;to=25&amp;loop=1#/);
    // The snippet's own address opens an embed held to that range.
    const src = (await page.inputValue("#share-iframe")).match(/src="([^"]+)"/)[1].replace(/&amp;/g, "&");
    const embed = await open(new URL(src).pathname + new URL(src).search + new URL(src).hash);
    await embed.waitForFunction(() => document.getElementById("scrub").min === "10" || Number(document.getElementById("status").dataset.step) >= 10);
    assert.ok((await stepOf(embed)) >= 10 && (await stepOf(embed)) <= 25);
    await embed.close();
    await page.close();
  });
});

describe("fix 1: a zombie's truncation shows what it loses", () => {
  test("across the truncation every truncated record stays in view, the sentence names them, and the losses are dated then", async () => {
    const page = await open("/?scenario=zombie-leader");
    await page.selectOption("#jump-kind", "truncation");
    await page.click("#jump-next");
    await page.waitForFunction(() => /truncat/i.test(document.getElementById("live").textContent));
    const at = await stepOf(page);
    const ghosts = await page.$$eval('#stage g.log[data-broker="0"] .ghost', (gs) => gs.map((g) => g.dataset.id));
    const text = await page.textContent("#live");
    const m = text.match(/It drops (\d+) records? \(([^)]*)\)/);
    assert.ok(m, `the sentence names what is dropped: ${text}`);
    assert.match(text, /acknowledged, and are lost here/);
    assert.equal(ghosts.length, Number(m[1]), `every truncated record is drawn (${ghosts.length} of ${m[1]})`);
    // The step before: the same offsets in view, as records.
    await page.keyboard.press("ArrowLeft");
    await page.waitForFunction((s) => document.getElementById("status").dataset.step === String(s - 1), at);
    const records = await page.$$eval('#stage g.log[data-broker="0"] .rec', (gs) => gs.length);
    assert.ok(records >= Number(m[1]), `before the truncation its records are in view too (${records})`);
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction((s) => document.getElementById("status").dataset.step === String(s), at);
    // "Lost in this run" dates these losses at the truncation.
    const dated = await page.$$eval("#lost li", (ls) => ls.map((l) => ({ id: l.dataset.id, step: Number(l.dataset.step) })));
    const truncated = dated.filter((d) => ghosts.includes(d.id));
    assert.ok(truncated.length > 0);
    for (const d of truncated) assert.equal(d.step, at, `${d.id} is dated at the truncation`);
    await page.close();
  });
});

describe("fix 7: a consumer on a cut follower", () => {
  test("the run goes on until the consumer's metadata refresh takes it back to the leader, and says so", async () => {
    const sc = JSON.parse(builtin("follower-fetch-consumer"));
    sc.title = "A consumer on a cut follower";
    sc.consumers = sc.consumers.map((c) => (c.fetch_from != null ? { ...c, "metadata.max.age.ms": 20000 } : c));
    sc.events = [...sc.events, { at_ms: 1500, partition: { between: [0, 1] } }];
    sc.after_stop = "settle";
    const page = await open(`/#${wasm.encodeLink(JSON.stringify(sc))}`);
    // Past the ISR shrink, the line under the scrubber names the wait.
    let said = "";
    for (let i = 0; i < 40 && !/metadata refresh/.test(said); i++) {
      await page.click("#end");
      await page.waitForTimeout(300);
      said = await page.textContent("#future");
    }
    await page.click("#end");
    await page.waitForFunction(() => /ends here|settled/.test(document.getElementById("future").textContent), null, { timeout: 30000 });
    const end = await page.evaluate(() => {
      const st = document.getElementById("status").dataset;
      const pos = Number(document.querySelector('#stage .consumer[data-consumer="c-follower"]').dataset.position);
      const lead = document.querySelector("#stage .broker.leader");
      return { t: Number(st.time), pos, hw: Number(lead.dataset.hw), future: document.getElementById("future").textContent };
    });
    assert.ok(end.t >= 20000, `the run went on past the refresh (${end.t} ms)`);
    assert.equal(end.pos, end.hw, `c-follower caught up with the leader's HW: ${end.future}`);
    await page.close();
  });
});

describe("fix 4: at 1280 × 800 the main actions and their results are in view", () => {
  const inView = (page, sel) => page.$eval(sel, (e) => {
    const r = e.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight + 0.5 && r.height > 0;
  });

  test("the Intervene panel is in view at load", async () => {
    const page = await open("/?scenario=seed-walkthrough", { width: 1280, height: 800 });
    assert.equal(await inView(page, "#intervene"), true, "the whole Intervene panel is above the fold");
    await page.close();
  });

  test("Explore's verdict comes into view, and “Open it as a run” shows the stage", async () => {
    const page = await open("/?scenario=kip101-data-loss", { width: 1280, height: 800 });
    await page.click("#explore-open");
    await page.waitForSelector("#explore button[type=submit]");
    await page.click("#explore button[type=submit]");
    await page.waitForFunction(() => document.getElementById("explore")?.dataset.state === "counterexample", null, { timeout: 120_000 });
    await page.waitForTimeout(300);
    assert.equal(await inView(page, "#explore .ex-verdict h3"), true, "the verdict's head is in view");
    assert.equal(await inView(page, "#explore .ex-actions button.primary"), true, "so is Open it as a run");
    await page.click("#explore .ex-actions button.primary");
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "28");
    await page.waitForTimeout(300);
    assert.equal(await inView(page, "#stage"), true, "the stage is in view");
    await page.close();
  });
});

describe("what your broker log would say", () => {
  test("the panel shows each step's log lines in the version's format, and a click shows the step", async () => {
    const page = await open("/?scenario=slow-follower-isr");
    await page.click(".klog-panel summary");
    await page.click("#end");
    await page.waitForFunction(() => /Shrinking ISR from 0,1,2 to 0,1\. Leader: \(highWatermark: \d+, endOffset: \d+\)\. Out of sync replicas: \(brokerId: 2, endOffset: \d+, lastCaughtUpTimeMs: \d+\)\./.test(document.getElementById("kafka-log").textContent), null, { timeout: 10000 });
    const b = await page.$eval("#kafka-log button", (x) => Number(x.dataset.step));
    await page.click("#kafka-log button");
    assert.equal(await stepOf(page), b);
    await page.close();
  });

  test("under kafka-0.10 the lines are 0.10's, and the textbook has none", async () => {
    const sc = JSON.parse(builtin("slow-follower-isr"));
    sc.preset = "kafka-0.10";
    const page = await open(`/#${wasm.encodeLink(JSON.stringify(sc))}`);
    await page.click(".klog-panel summary");
    await page.click("#end");
    await page.waitForFunction(() => /Partition \[t,0\] on broker 0: Shrinking ISR for partition \[t,0\] from 0,1,2 to 0,1/.test(document.getElementById("kafka-log").textContent), null, { timeout: 10000 });
    await page.close();
    const textbook = await open("/?scenario=seed-walkthrough");
    await textbook.click(".klog-panel summary");
    assert.match(await textbook.textContent("#kafka-log-note"), /no broker log/);
    await textbook.close();
  });
});

describe("a timeline that branches", () => {
  test("an intervention makes a branch; any branch can be returned to, compared, and Back still works", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    assert.equal(await page.isHidden("#branches"), true, "no branches before an intervention");
    await scrubTo(page, 3);
    await page.click('[data-iv="produce"]');
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "4");
    await page.waitForSelector("#branches:not([hidden])");
    const names = () => page.$$eval("#branches button.branch", (bs) => bs.map((b) => `${b.textContent}${b.getAttribute("aria-current") ? "*" : ""}`));
    assert.deepEqual(await names(), ["as loaded", "1 record from p1 @4*"]);
    // A second intervention, earlier: a second branch, and the first is kept.
    await scrubTo(page, 1);
    await page.selectOption("#iv-broker", "1");
    await page.click('[data-iv="crash"]');
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "2");
    assert.deepEqual(await names(), ["as loaded", "1 record from p1 @4", "crash broker 1 @2*"]);
    // Return to the first branch: its link, at the step it was left at.
    await page.click('#branches button.branch:text("1 record from p1 @4")');
    await page.waitForFunction(() => /intervention at step 4\b/.test(document.getElementById("about").textContent));
    assert.deepEqual(await names(), ["as loaded", "1 record from p1 @4*", "crash broker 1 @2"]);
    assert.match(decodeURIComponent(page.url()), /#v=1&s=/, "the address holds the branch shown");
    // Compare: Shift+click another branch, then Compare.
    await page.click('#branches button.branch:text("crash broker 1 @2")', { modifiers: ["Shift"] });
    await page.click("#branches button.link:not([hidden])");
    await page.waitForSelector('.view-compare .cmp-side[data-side="B"] h4');
    const heads = await page.$$eval(".view-compare .cmp-side h4", (hs) => hs.map((x) => x.textContent));
    assert.match(heads[0], /1 record from p1 @4/);
    assert.match(heads[1], /crash broker 1 @2/);
    // Back: the branch shown before.
    await page.goBack();
    await page.waitForFunction(() => /intervention at step 2\b/.test(document.getElementById("about").textContent));
    assert.deepEqual(await names(), ["as loaded", "1 record from p1 @4", "crash broker 1 @2*"]);
    assertNoErrors(page);
    await page.close();
  });
});

// The first thing a new user sees: "What happened" at step 0 was an empty box with its one
// sentence at the bottom (the list is anchored there so the newest step stays in view), which
// read as a panel that failed to load. A short list starts at the top; a long one still keeps
// the step shown in view at the bottom.
describe("second pass: the narration starts at the top of its box", () => {
  test("step 0's sentence is at the top; at the end of a run the last step is in view", async () => {
    const page = await open("/");
    const where = () => page.evaluate(() => {
      const box = document.querySelector(".narration").getBoundingClientRect();
      const items = [...document.querySelectorAll("#narration li")];
      const first = items[0].getBoundingClientRect();
      const last = items.at(-1).getBoundingClientRect();
      return { gap: first.top - box.top, lastIn: last.bottom <= box.bottom + 1 && last.top >= box.top - 1, n: items.length };
    });
    const start = await where();
    assert.ok(start.gap < 12, `step 0's sentence starts ${start.gap} px below the top of its box`);
    await page.click("#end");
    await page.waitForFunction(() => document.querySelectorAll("#narration li").length > 12);
    const end = await where();
    assert.ok(end.lastIn, `the last of ${end.n} sentences is in view`);
    assertNoErrors(page);
    await page.close();
  });
});

// At 1280 px the scenario picker stopped at 360 px with half the header empty, so a built-in's
// name was cut mid-word ("Zombie leader: cut off from the controller, it s"). It takes the
// room the header has.
describe("second pass: the picker shows a built-in's whole name when the header has room", () => {
  test("1280 px: zombie-leader's title fits in the picker, and the header's buttons stay on one line", async () => {
    const page = await open("/?scenario=zombie-leader");
    const fit = await page.$eval("#scenario", (s) => {
      const c = document.createElement("canvas").getContext("2d");
      const cs = getComputedStyle(s);
      c.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const text = s.selectedOptions[0].textContent;
      // The text, the select's padding and its arrow (about 20 px).
      const need = c.measureText(text).width + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + 20;
      return { text, need: Math.ceil(need), has: s.getBoundingClientRect().width };
    });
    assert.ok(fit.has >= fit.need, `"${fit.text}" needs ${fit.need} px, the picker is ${fit.has} px`);
    const tops = await page.$$eval("header.bar button, header.bar select", (xs) => xs.map((x) => Math.round(x.getBoundingClientRect().top)));
    assert.ok(Math.max(...tops) - Math.min(...tops) < 10, `the header is one line: ${tops}`);
    assertNoErrors(page);
    await page.close();
  });
});

// At 360 px the tour card is a sheet at the bottom of the screen "so the stage above and the
// question stay in view together", but the page was not scrolled: the sheet covered the logs
// and their HW lines, which the beat's question is about (hw-lag beat 10, "When does follower 1
// learn it?"). Each beat now keeps the stage above the sheet, and the status line in view.
describe("second pass: on a phone the tour's sheet leaves the stage in view", () => {
  test("360 px: the stage ends above the tour's sheet at a beat", async () => {
    const page = await open("/?tour=hw-lag&level=middle&beat=10", { width: 360, height: 740 });
    await page.waitForSelector(".tour-slot .tour[data-beat='10']");
    await page.waitForTimeout(300);
    const r = await page.evaluate(() => ({
      status: document.getElementById("status").getBoundingClientRect().toJSON(),
      // The logs' HW and LEO labels (the beat asks about follower 1's HW).
      labels: Math.max(...[...document.querySelectorAll("#stage text")].filter((t) => /^(HW|LEO) /.test(t.textContent)).map((t) => t.getBoundingClientRect().bottom)),
      sheet: document.querySelector(".tour-slot .tour").getBoundingClientRect().toJSON(),
    }));
    assert.ok(r.labels <= r.sheet.top, `the logs' HW/LEO labels end at ${r.labels} px, the sheet starts at ${r.sheet.top} px`);
    assert.ok(r.status.top >= -1, `the status line (step, time) is in view (${r.status.top} px)`);
    assertNoErrors(page);
    await page.close();
  });
});

// steady-load, as it plays: c-f1's first fetch runs from its pill to the leader's log, under
// the leader's "HW 0", and its dot was drawn over those words (and any dot over another
// message's label). The stage draws every word beside a log, and every message's label,
// after (over) every message: whatever passes under a word leaves it readable. Checked on the
// stage module itself, at 24 moments along each message's flight, with the CLI's records.
describe("third pass: no message is drawn over a word", () => {
  test("steady-load's first steps: a dot passing the leader's HW 0 goes under it, and under other messages' labels", async () => {
    const page = await open("/?scenario=steady-load");
    const recs = cliTrace(["--builtin", "steady-load", "--until-ms", "2"]);
    const found = await page.evaluate(async (recs) => {
      const { createStage } = await import("/www/render/stage.js");
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      svg.setAttribute("class", "stage");
      svg.style.width = "870px";
      document.body.append(svg);
      const stage = createStage(svg, () => {});
      const box = (e) => e.getBoundingClientRect();
      const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const crossings = [];
      recs.forEach((rec, i) => {
        stage.step(rec, 0, i === 0);
        for (const m of rec.in_flight) {
          for (let k = 0; k <= 24; k++) {
            stage.frame(m.sent_ms + ((m.arrive_ms - m.sent_ms) * k) / 24);
            const words = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim() && !t.closest(".msg") && (t.matches(".hwt, .leot, .lagt, .msgl") || t.closest(".fmark, .cmark")));
            for (const dot of svg.querySelectorAll(".msg circle")) {
              for (const w of words) {
                if (w.dataset.msg === dot.parentNode.dataset.msg || !meet(box(dot), box(w))) continue;
                const over = !!(dot.compareDocumentPosition(w) & Node.DOCUMENT_POSITION_FOLLOWING);
                crossings.push({ step: rec.step, words: w.textContent, msg: dot.parentNode.dataset.msg, over });
              }
            }
          }
        }
      });
      svg.remove();
      return crossings;
    }, recs);
    assert.ok(found.some((c) => c.words === "HW 0"), `a dot passes the leader's HW 0 in these steps: ${JSON.stringify(found.slice(0, 5))}`);
    const under = found.filter((c) => !c.over);
    assert.deepEqual(under.slice(0, 5), [], `${under.length} times a dot is drawn over a word`);
    assertNoErrors(page);
    await page.close();
  });
});

// 1280 × 800: Learn scrolls the page down to its panel; a tour picked there put its card at
// the top of the side column, above the view, and kept the page where it was. At the KIP-101
// tour's beat 2 the learner saw two bare radio buttons, Check and Next: the prediction itself
// was 100 px above the window. The card's top and the status line now come into view.
describe("third pass: a tour started from the Learn panel is in view", () => {
  test("1280 × 800: Learn › KIP-101 tour › Next: beat 2's prediction and the stage's status are on screen", async () => {
    const page = await open("/");
    await page.click("#learn-open");
    await page.click('.tour-pick:has-text("KIP-101")');
    await page.waitForSelector(".tour[data-beat='1']");
    await page.click(".tour-nav .primary");
    await page.waitForSelector(".tour[data-beat='2'] form.quiz");
    await page.waitForTimeout(300);
    const r = await page.evaluate(() => ({
      quiz: document.querySelector(".tour form.quiz").getBoundingClientRect().toJSON(),
      title: document.querySelector(".tour h3, .tour h4, .tour h2")?.getBoundingClientRect().toJSON(),
      status: document.getElementById("status").getBoundingClientRect().toJSON(),
      vh: innerHeight,
    }));
    assert.ok(r.quiz.top >= 0 && r.quiz.bottom <= r.vh, `the prediction is on screen (${Math.round(r.quiz.top)}–${Math.round(r.quiz.bottom)} px of ${r.vh})`);
    assert.ok(r.title.top >= 0, `the beat's title is on screen (${Math.round(r.title.top)} px)`);
    assert.ok(r.status.top >= 0 && r.status.bottom <= r.vh, `the status line is on screen (${Math.round(r.status.top)} px)`);
    assertNoErrors(page);
    await page.close();
  });
});

// By keyboard only: Enter on Learn scrolled the page to its panel but left the focus on the
// Learn button, now 330 px above the window, so the next Tab went on through the header
// (Explore, Share, …) and then the stage, never into the tours. Picking a tour redrew the list
// under the focus (to the page's body); closing Learn hid the button pressed.
describe("third pass: Learn by keyboard", () => {
  test("Enter on Learn takes the keyboard to the panel; a tour picked goes on at its first beat; ✕ comes back to Learn", async () => {
    const page = await open("/");
    const focus = () => page.evaluate(() => {
      const e = document.activeElement;
      const r = e.getBoundingClientRect();
      return { inLearn: !!e.closest("#learn"), inTour: !!e.closest(".tour"), id: e.id, cls: e.getAttribute("class") ?? "", text: e.textContent.trim().slice(0, 60), top: r.top, bottom: r.bottom, vh: innerHeight };
    });
    await page.focus("#learn-open");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#learn .tour-pick");
    await page.waitForFunction(() => document.activeElement?.closest("#learn"), null, { timeout: 3000 }).catch(() => {});
    let f = await focus();
    assert.ok(f.inLearn && f.top >= 0 && f.top < f.vh, `the focus is in the Learn panel, on screen: ${JSON.stringify(f)}`);
    // Tab on to the tours.
    for (let i = 0; i < 12 && !/tour-pick/.test(f.cls); i++) {
      await page.keyboard.press("Tab");
      f = await focus();
    }
    assert.match(f.cls, /tour-pick/, "Tab reaches the tours from there");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".tour[data-beat='1']");
    await page.waitForFunction(() => document.activeElement?.closest(".tour"), null, { timeout: 3000 }).catch(() => {});
    f = await focus();
    assert.ok(f.inTour && /beat-title/.test(f.cls), `the focus is on the first beat's title: ${JSON.stringify(f)}`);
    await page.click('#learn button[aria-label="Close Learn"]');
    f = await focus();
    assert.equal(f.id, "learn-open", "closing Learn gives the focus back to its button");
    assertNoErrors(page);
    await page.close();
  });
});

// Share after an intervention, then open the link: the page that made it said "Zombie leader: …
// (modified)" in the picker; the page the link opened said "Custom (from Settings)" and
// "The description of “Zombie leader…”, which your edits changed": nobody had opened Settings.
// Such a link writes every default out (and after_stop: settle), so it no longer matched the
// built-in's text; it is recognised by the scenario in force instead.
describe("third pass: a shared link after an intervention keeps the built-in's name", () => {
  test("zombie-leader, Crash at step 120, Share › Link, opened: the picker and the heading name zombie-leader (modified)", async () => {
    const page = await open("/?scenario=zombie-leader");
    await scrubTo(page, 120);
    await page.click('[data-iv="crash"]');
    await page.waitForFunction(() => /modified/.test(document.getElementById("about").textContent));
    const before = await page.$eval("#scenario", (s) => ({ value: s.value, text: s.selectedOptions[0]?.textContent }));
    await page.click("#share-open");
    await page.waitForSelector("dialog[open] input");
    const link = await page.$eval("dialog[open] input", (i) => i.value);
    assert.match(link, /#v=1&s=.*&at=121&/);
    await page.close();
    const opened = await open(new URL(link).pathname + new URL(link).hash);
    await opened.waitForFunction(() => document.getElementById("status").dataset.step === "121");
    const after = await opened.$eval("#scenario", (s) => ({ value: s.value, text: s.selectedOptions[0]?.textContent }));
    assert.deepEqual(after, before, "the picker reads as it did where the link was made");
    const about = await opened.textContent("#about");
    assert.doesNotMatch(about, /which your edits changed/);
    assert.match(about, /^Zombie leader.*modified by an intervention at step 121/);
    assertNoErrors(opened);
    await opened.close();
  });
});

// 360 × 740, a tour's sheet at a prediction: the question and its answers showed, and the
// Check button was below the sheet's scrolling body, under Previous/Next, at every one of the
// 33 predictions of the tours (the learner saw no way to answer but to scroll a 143 px box).
// Check now stays at the foot of the body, the short answers side by side.
describe("third pass: on a phone a prediction's Check is in sight", () => {
  test("360 × 740: at every prediction of hw-lag (principal) and follower-lag (middle), Check is on screen, not covered", async () => {
    const page = await open("/", { width: 360, height: 740 });
    let seen = 0;
    for (const [tour, level] of [["hw-lag", "principal"], ["follower-lag", "middle"]]) {
      await page.goto(new URL(`/?tour=${tour}&level=${level}&beat=1`, env.baseURL).href);
      await page.waitForSelector(".tour[data-beat='1']");
      const n = Number(await page.$eval(".tour", (t) => t.dataset.beats));
      for (let k = 1; k <= n; k++) {
        if (k > 1) await page.click(".tour-nav .primary");
        await page.waitForSelector(`.tour[data-beat='${k}']`);
        await page.waitForTimeout(150);
        const r = await page.evaluate(() => {
          const chk = document.querySelector('.tour form.quiz button[type="submit"]');
          if (!chk) return null;
          const c = chk.getBoundingClientRect();
          const body = document.querySelector(".tour .beat-body").getBoundingClientRect();
          const hit = document.elementFromPoint(c.left + c.width / 2, c.top + c.height / 2);
          return { inBody: c.top >= body.top - 1 && c.bottom <= body.bottom + 1, onScreen: c.top >= 0 && c.bottom <= innerHeight, top: hit === chk, at: `${Math.round(c.top)}–${Math.round(c.bottom)} (body ${Math.round(body.top)}–${Math.round(body.bottom)})` };
        });
        if (!r) continue;
        seen++;
        assert.ok(r.inBody && r.onScreen && r.top, `${tour} ${level} beat ${k}: Check at ${r.at}, uncovered: ${r.top}`);
        // Answer it, so Next goes on to the next beat.
        await page.click(".tour form.quiz .choice input");
        await page.click('.tour form.quiz button[type="submit"]');
        await page.waitForSelector(".tour .quiz-result");
      }
    }
    assert.ok(seen >= 6, `${seen} predictions seen`);
    assertNoErrors(page);
    await page.close();
  });
});

// 1280 × 800, the KIP-101 tour's last beat ("Predict, then search"): after "Search every
// timing" the verdict came under the window's edge: "✓ Right." showed, the explorer's own
// sentence (how many states, within which bounds) did not. The answer now comes into view.
describe("third pass: a search beat's verdict comes into view", () => {
  test("kip101 junior, last beat: predict, Search every timing: the answer and the search's sentence are on screen", async () => {
    const page = await open("/?tour=kip101&level=junior&beat=9");
    await page.waitForSelector(".tour .ex-beat form.quiz input");
    await page.click('.tour .ex-beat input[value="none-within-bounds"]');
    await page.click('.tour .ex-beat button[type="submit"]');
    await page.waitForSelector('.tour .ex-beat[data-state="revealed"]', { timeout: 60000 });
    await page.waitForTimeout(300);
    const r = await page.evaluate(() => {
      const at = (sel) => document.querySelector(sel)?.getBoundingClientRect().toJSON();
      return { answer: at(".tour .ex-beat-answer"), run: at(".tour .ex-beat-run"), text: document.querySelector(".tour .ex-beat-answer").textContent, vh: innerHeight };
    });
    assert.match(r.text, /^✓ Right: nothing within these bounds/);
    for (const k of ["answer", "run"]) assert.ok(r[k].top >= 0 && r[k].bottom <= r.vh, `${k} on screen: ${Math.round(r[k].top)}–${Math.round(r[k].bottom)} of ${r.vh}`);
    assertNoErrors(page);
    await page.close();
  });
});

// Branches: crash at step 5, then back to step 3 and Produce. The notice said the crash
// "at step 6" was gone from the new run, while the tree drew "as loaded → crash broker 0 @5
// → 1 record from p1 @3": the new run nested under a crash it does not have, and the crash
// named by another step than the heading's. A branch hangs from the one whose intervention
// it keeps, and is named by its intervention's step.
describe("third pass: the branch tree nests a run only under interventions it keeps", () => {
  test("kip101-data-loss: crash @6, then Produce at step 3: two branches of “as loaded”, named by the heading's steps", async () => {
    const page = await open("/?scenario=kip101-data-loss");
    await scrubTo(page, 5);
    await page.click('[data-iv="crash"]');
    await page.waitForFunction(() => /intervention at step 6\b/.test(document.getElementById("about").textContent));
    await scrubTo(page, 3);
    await page.click('[data-iv="produce"]');
    await page.waitForFunction(() => /intervention at step 4\b/.test(document.getElementById("about").textContent));
    const tree = await page.$eval("#branches .branch-tree", (t) => {
      const walk = (li) => ({ name: li.querySelector(":scope > button").textContent, children: [...(li.querySelector(":scope > ol")?.children ?? [])].map(walk) });
      return walk(t.querySelector(":scope > li"));
    });
    assert.deepEqual(tree, { name: "as loaded", children: [{ name: "crash broker 0 @6", children: [] }, { name: "1 record from p1 @4", children: [] }] });
    assertNoErrors(page);
    await page.close();
  });
});
