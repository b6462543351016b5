// Issue 29, fifth pass: what the audit of the page against the issue found wrong,
// each as a learner or operator meets it, in Chromium. Each test failed before its fix.
// Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertNoErrors, cliTrace, launch } from "./helpers.mjs";

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
