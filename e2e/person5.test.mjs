// Issue 29, fifth pass: what the audit of the page against the issue found wrong,
// each as a learner or operator meets it, in Chromium. Each test failed before its fix.
// Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { axeFindings } from "./a11y-findings.mjs";
import { assertNoErrors, cliTrace, launch, ROOT } from "./helpers.mjs";

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

const card = (page) => page.$eval(".tour", (t) => ({ ...t.dataset, shown: Number(document.getElementById("status").dataset.step), text: t.querySelector(".beat-body").textContent }));

describe("fifth pass: the follower-lag tour shows the second it is named for", () => {
  test("junior: under a version before KAFKA-14334 the two waits add up to most of a second, each in numbers the run shows; under kafka-4.0 only the follower's is left", async () => {
    const page = await env.open("/?tour=follower-lag&level=junior&beat=4", { until: ["html[data-boot=live]", ".tour[data-beat]"] });
    const gaps = async () => {
      const c = await card(page);
      const m = c.text.match(/c-follower gets p1-1 at (\d+) ms, (\d+) ms after the leader's HW moved: (\d+) ms for follower 1 to hear the HW \([^)]*\), then (\d+) ms/);
      assert.ok(m, `the beat states the gap and its two parts: ${c.text}`);
      const [at, total, follower, consumer] = m.slice(1).map(Number);
      assert.equal(follower + consumer, total, "the two parts add up to the gap");
      // The beat's step in the run the page shows (the CLI's trace under the part's preset).
      const recs = cliTrace(["--builtin", c.scenario, "--preset", c.preset]);
      const rec = recs[Number(c.step)];
      assert.equal(c.shown, Number(c.step), "the stage shows the beat's step");
      assert.equal(rec.time_ms, at);
      assert.equal(rec.event.type, "consumer_fetch_response");
      assert.equal(rec.event.to, "c-follower");
      const leaderAt = recs.find((r) => r.replicas.find((x) => x.broker === r.partition.leader).hw >= 101).time_ms;
      const followerAt = recs.find((r) => r.replicas.find((x) => x.broker === 1).hw >= 101).time_ms;
      assert.equal(total, at - leaderAt);
      assert.equal(follower, followerAt - leaderAt);
      return { preset: c.preset, total, follower, consumer };
    };
    const before34 = await gaps();
    assert.equal(before34.preset, "kafka-2.8");
    assert.ok(before34.total >= 750, `about a second behind: ${before34.total} ms`);
    assert.ok(before34.follower >= 500 && before34.consumer >= 250, "both waits show");
    await page.click(".tour-nav .primary");
    await page.waitForFunction(() => document.querySelector(".tour").dataset.beat === "5");
    const today = await gaps();
    assert.equal(today.preset, "kafka-4.0");
    assert.ok(today.consumer <= 5 && today.total < before34.total, `from 3.4 the consumer's own wait is gone: ${JSON.stringify(today)}`);
    assertNoErrors(page);
    await page.close();
  });
});

describe("fifth pass: the unclean tour shows how a consumer notices, per preset", () => {
  test("junior: a consumer c1 on the stage reads the records that the unclean election then loses; 0.10 tells it only OFFSET_OUT_OF_RANGE, 4.0 detects the truncation (KIP-320); the run keeps the built-in's name", async () => {
    const page = await env.open("/?tour=unclean&level=junior", { until: ["html[data-boot=live]", ".tour[data-beat]"] });
    const dir = mkdtempSync(join(tmpdir(), "hwscope-unclean-"));
    const seen = [];
    for (let beat = 1; ; beat++) {
      const c = await card(page);
      seen.push(c.text);
      if (/consumer/i.test(await page.textContent(".beat-title"))) {
        // The run the card shows: the built-in with c1 added, under the part's preset.
        const sc = builtin("unclean-election");
        sc.preset = c.preset;
        sc.consumers = [{ id: "c1" }];
        const file = join(dir, `${c.preset}.json`);
        writeFileSync(file, JSON.stringify(sc));
        const rec = cliTrace([file])[Number(c.step)];
        assert.equal(c.shown, Number(c.step));
        const c1 = rec.consumers.find((x) => x.id === "c1");
        assert.deepEqual(c1.read, ["p1-1", "p1-2", "p1-3"], "c1 had read the records the election loses");
        assert.match(c.text, /c1 had read p1-1, p1-2 and p1-3/);
        assert.equal(await page.$eval('#stage [data-consumer="c1"]', (g) => Number(g.dataset.position)), c1.position, "c1 is on the stage at its position");
        if (c.preset === "kafka-0.10") {
          assert.equal(rec.event.error, "OFFSET_OUT_OF_RANGE");
          assert.match(c.text, /OFFSET_OUT_OF_RANGE/);
        } else {
          assert.equal(c.preset, "kafka-4.0");
          assert.equal(rec.event.outcome, "truncation-detected");
          assert.match(c.text, /detects the truncation \(KIP-320/);
        }
        const head = await page.textContent("#about");
        assert.match(head, /Unclean leader election.*\(.*with consumer c1\)/, "the heading names the built-in, with the consumer added");
        assert.equal(await page.$eval("#scenario", (s) => s.value), "unclean-election", "the picker keeps the built-in");
      }
      if (await page.isDisabled(".tour-nav .primary")) break;
      await page.click(".tour-nav .primary");
      await page.waitForFunction((n) => document.querySelector(".tour").dataset.beat === String(n), beat + 1);
    }
    const notices = seen.filter((t) => /c1 had read/.test(t));
    assert.equal(notices.length, 2, `one beat per preset shows what the consumer notices: ${seen.join("\n")}`);
    assertNoErrors(page);
    await page.close();
  });
});

describe("fifth pass: the min-insync tour shows acks=all with the leader alone", () => {
  test("junior: after the refusals under min.insync.replicas = 2, the same crashes with 1: the leader alone moves the HW and acknowledges p-all's write; the run keeps the built-in's name", async () => {
    const page = await env.open("/?tour=min-insync&level=junior", { until: ["html[data-boot=live]", ".tour[data-beat]"] });
    const hwOnStage = () => page.$eval('#stage .broker[data-broker="0"]', (g) => ({ hw: Number(g.dataset.hw), leo: Number(g.dataset.leo) }));
    const held = [];
    let one = null;
    for (let beat = 1; ; beat++) {
      let c = await card(page);
      if (c.state === "ask") {
        await page.click('.tour button:has-text("Just show me")');
        c = await card(page);
      }
      const stage = await hwOnStage();
      if (!c.config && /leader alone/.test(await page.textContent(".beat-title"))) held.push(stage);
      if (c.config) {
        assert.deepEqual(JSON.parse(c.config), { "min.insync.replicas": 1 });
        const sc = builtin("acks-and-min-isr");
        sc.config["min.insync.replicas"] = 1;
        const file = join(mkdtempSync(join(tmpdir(), "hwscope-minisr-")), "one.json");
        writeFileSync(file, JSON.stringify(sc));
        const rec = cliTrace([file])[Number(c.step)];
        assert.deepEqual(rec.partition.isr, [0], "the leader alone is the ISR");
        if (/leader alone is enough/.test(await page.textContent(".beat-title"))) {
          assert.equal(stage.hw, stage.leo, "with min.insync.replicas = 1 the HW moves to the leader's LEO");
          assert.equal(stage.hw, rec.replicas.find((r) => r.broker === 0).hw);
        } else {
          assert.equal(rec.event.type, "produce_response");
          assert.equal(rec.event.to, "p-all");
          assert.equal(rec.event.error ?? null, null);
          assert.match(c.text, new RegExp(`p-all gets its acknowledgement for ${rec.event.records.join(", ")} at ${rec.time_ms} ms`));
          one = c.text;
        }
        assert.match(await page.textContent("#about"), /acks=all against acks=1.*\(with min\.insync\.replicas = 1\)/);
        assert.equal(await page.$eval("#scenario", (x) => x.value), "acks-and-min-isr");
      }
      if (await page.isDisabled(".tour-nav .primary")) break;
      await page.click(".tour-nav .primary");
      await page.waitForFunction((n) => document.querySelector(".tour").dataset.beat === String(n), beat + 1);
    }
    assert.equal(held.length, 1);
    assert.ok(held[0].hw < held[0].leo, "under min.insync.replicas = 2 the HW was held below the LEO");
    assert.ok(one, "a beat shows acks=all acknowledged with one copy");
    assertNoErrors(page);
    await page.close();
  });
});

describe("fifth pass: axe on a long beat at 360 px", () => {
  test("a beat whose text scrolls in the phone's sheet can be reached by keyboard; no finding at any impact, light and dark", async () => {
    for (const theme of ["light", "dark"]) {
      for (const path of ["/?tour=follower-lag&level=junior&beat=4", "/?tour=unclean&level=junior&beat=4"]) {
        const page = await env.open(`${path}&theme=${theme}`, { viewport: { width: 360, height: 740 }, until: ["html[data-boot=live]", ".tour[data-beat]"] });
        await page.waitForTimeout(300);
        const scrolls = await page.$eval(".tour .beat-body", (b) => b.scrollHeight > b.clientHeight + 1);
        assert.ok(scrolls, `${path}: the beat's text scrolls in the sheet (what this test is about)`);
        assert.deepEqual(await axeFindings(page), [], `${path} ${theme}`);
        await page.close();
      }
    }
  });
});

describe("fifth pass: an embed's status line cuts no word", () => {
  test("360 and 640 px, under min ISR (the longest status): each part of the line is shown whole or not at all; time and step are shown", async () => {
    for (const width of [360, 640]) {
      const page = await env.open("/?embed=1&scenario=acks-and-min-isr#at=102", { viewport: { width, height: 640 }, until: ["html[data-boot=live]", "#status[data-step]"] });
      const parts = await page.$eval("#status", (s) => {
        const box = s.getBoundingClientRect();
        return [...s.children].filter((c) => c.getClientRects().length && c.textContent).map((c) => {
          const r = c.getBoundingClientRect();
          return { cls: c.className, text: c.textContent, shown: r.top < box.bottom - 1 && r.bottom > box.top + 1, whole: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 };
        });
      });
      for (const p of parts) if (p.shown) assert.ok(p.whole, `${width} px: “${p.text}” is cut`);
      for (const cls of ["time", "step"]) assert.ok(parts.find((p) => p.cls === cls)?.whole, `${width} px: the ${cls} is shown`);
      await page.close();
    }
  });
});

describe("fifth pass: a tagged leader keeps its LEO label at 360 px", () => {
  test("acks-and-min-isr under min ISR (the “ISR < 2” tag on the leader's header): the LEO line still says “LEO”", async () => {
    const page = await env.open("/?scenario=acks-and-min-isr#at=102", { viewport: { width: 360, height: 740 }, until: ["html[data-boot=live]", "#status[data-step]"] });
    await page.waitForSelector('#stage .broker[data-under-min-isr="2"]');
    const lines = await page.$$eval('#stage .broker[data-under-min-isr="2"] text', (ts) => ts.map((t) => t.textContent.trim()));
    assert.ok(lines.includes("ISR < 2"), `the tag is drawn: ${lines}`);
    assert.ok(lines.some((l) => /^LEO \d+$/.test(l)), `the LEO line keeps its word: ${lines}`);
    assertNoErrors(page);
    await page.close();
  });
});

describe("fifth pass: a tour's two runs side by side in one click", () => {
  test("min-insync's last beat: Compare shows min.insync.replicas 2 and 1 at the same moment, the HW held in A and moved in B; no stray setting picker", async () => {
    const page = await env.open("/?tour=min-insync&level=junior&beat=7", { until: ["html[data-boot=live]", ".tour[data-beat]"] });
    await page.click('.tour button[data-action="compare"]');
    await page.waitForSelector('.view-compare .cmp-side[data-side="B"] h4');
    const heads = await page.$$eval(".view-compare .cmp-side h4", (hs) => hs.map((x) => x.textContent));
    assert.match(heads[0], /min\.insync\.replicas = 2/);
    assert.match(heads[1], /min\.insync\.replicas = 1/);
    assert.match(await page.textContent(".view-compare .cmp-note"), /Two runs of this tour/);
    assert.equal(await page.isVisible('.view-compare label:has-text("B differs in")'), false, "a pair has no setting to pick");
    await page.waitForFunction(() => document.querySelectorAll('.view-compare .cmp-side .broker[data-broker="0"]').length === 2);
    const hw = await page.$$eval('.view-compare .cmp-side .broker[data-broker="0"]', (gs) => gs.map((g) => ({ hw: Number(g.dataset.hw), leo: Number(g.dataset.leo) })));
    assert.ok(hw[0].hw < hw[0].leo, `A holds the HW: ${JSON.stringify(hw)}`);
    assert.equal(hw[1].hw, hw[1].leo, `B's HW is at the leader's LEO: ${JSON.stringify(hw)}`);
    assertNoErrors(page);
    await page.close();
  });
});
