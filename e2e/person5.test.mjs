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
