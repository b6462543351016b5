// Eleventh pass as a person: what a learner, a docs author and someone sharing a link met
// in Chromium that was wrong. Each test failed before its fix. Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertNoErrors, cliTrace, launch } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch();
});
after(() => env?.close());

const card = (page) =>
  page.$eval(".tour", (t) => ({
    ...t.dataset,
    title: t.querySelector(".beat-title").textContent,
    text: t.querySelector(".beat-body").textContent,
  }));

describe("eleventh pass: the leader-dies tour says who leads", () => {
  test("middle: under kafka-4.0 the bounced follower is not elected; no beat says it takes over, and the end names the old leader's return", async () => {
    const page = await env.open("/?tour=leader-dies&level=middle", { until: ["html[data-boot=live]", ".tour[data-beat]"] });
    const traces = {};
    const seen = [];
    for (let beat = 1; ; beat++) {
      await page.waitForFunction((n) => document.querySelector(".tour")?.dataset.beat === String(n), beat);
      let c = await card(page);
      if (c.state === "ask") {
        await page.click('.tour button:has-text("Just show me")');
        await page.waitForFunction(() => document.querySelector(".tour").dataset.state === "show");
        c = await card(page);
      }
      traces[c.preset] ??= cliTrace(["--builtin", c.scenario, "--preset", c.preset]);
      const rec = traces[c.preset][Number(c.step)];
      seen.push(`${c.preset} step ${c.step} (leader ${rec.partition.leader}): ${c.title} | ${c.text}`);
      const says = `${c.title} ${c.text}`;
      // Whoever the beat says takes over must be the one the run elects.
      if (/follower takes over|follower is elected/i.test(says)) {
        const leaders = traces[c.preset].slice(Number(c.step)).map((r) => r.partition.leader);
        assert.ok(leaders.includes(1), `the beat says follower 1 takes over, but the run never elects it: ${seen.at(-1)}`);
      }
      if (rec.partition.leader === null) {
        assert.match(c.text, /no leader/, `the run has no leader here; the beat must say so: ${seen.at(-1)}`);
      }
      if (c.preset === "kafka-4.0" && rec.event?.outcome === "become-leader") {
        assert.equal(rec.partition.leader, 0, "under kafka-4.0 the old leader returns and leads");
        assert.doesNotMatch(c.text, /only the rule a returning follower follows differs/, `follower 1 was never elected: ${seen.at(-1)}`);
        assert.match(c.text, /old leader, back since 12000 ms: follower 1 was never elected/, seen.at(-1));
      }
      const next = page.locator(".tour .tour-nav button.primary");
      if (!(await next.isVisible()) || (await next.isDisabled())) break;
      await next.click();
    }
    assert.ok(seen.some((s) => s.startsWith("kafka-4.0") && /leader null/.test(s)), `a kafka-4.0 beat with no leader was seen:\n${seen.join("\n")}`);
    assertNoErrors(page);
    await page.close();
  });
});

describe("eleventh pass: the follower-lag tour under kafka-2.4", () => {
  test("senior: c-follower's last 300 ms are its way to the follower (the leader held the answer naming it, KAFKA-13767), not a fetch parked there and released by the HW (KAFKA-14334 is 3.4)", async () => {
    const page = await env.open("/?tour=follower-lag&level=senior", { until: ["html[data-boot=live]", ".tour[data-beat]"] });
    const seen = [];
    for (let beat = 1; ; beat++) {
      await page.waitForFunction((n) => document.querySelector(".tour")?.dataset.beat === String(n), beat);
      let c = await card(page);
      if (c.state === "ask") {
        await page.click('.tour button:has-text("Just show me")');
        await page.waitForFunction(() => document.querySelector(".tour").dataset.state === "show");
        c = await card(page);
      }
      seen.push(`${c.preset} step ${c.step}: ${c.title} | ${c.text}`);
      const [major, minor] = c.preset.replace("kafka-", "").split(".").map(Number);
      if (major < 3 || (major === 3 && minor < 4)) {
        assert.doesNotMatch(c.text, /answers the consumer's fetch parked on it as soon as its HW moves/, `KAFKA-14334 is 3.4; this run is ${c.preset}: ${seen.at(-1)}`);
      }
      if (c.preset === "kafka-2.4" && /c-follower gets p1-1/.test(c.text)) {
        const rec = cliTrace(["--builtin", c.scenario, "--preset", c.preset]);
        const asked = rec.slice(0, Number(c.step)).findLast((r) => r.event?.type === "consumer_fetch_request" && r.event.from === "c-follower");
        assert.equal(asked.event.to, 1, "the fetch it reads went to follower 1");
        assert.equal(asked.event.outcome, "answered", "follower 1 answered it on arrival: nothing was parked there");
        assert.match(c.text, /before its fetch reached follower 1 at all/, seen.at(-1));
        assert.match(c.text, /KAFKA-13767/, seen.at(-1));
      }
      const next = page.locator(".tour .tour-nav button.primary");
      if (!(await next.isVisible()) || (await next.isDisabled())) break;
      await next.click();
    }
    assert.ok(seen.some((s) => s.startsWith("kafka-2.4") && /c-follower gets p1-1/.test(s)), `the kafka-2.4 beat was seen:\n${seen.join("\n")}`);
    assertNoErrors(page);
    await page.close();
  });
});

describe("eleventh pass: the follower-fetch tour's lag under traffic", () => {
  test("senior, last beat: p1-2 reaches c-follower 103 ms after it was produced; the beat says why (the next record, p1-3, carried the HW) and does not call that one round trip", async () => {
    const page = await env.open("/?tour=follower-fetch&level=senior&beat=7", { until: ["html[data-boot=live]", ".tour[data-beat='7']"] });
    const c = await card(page);
    const m = c.text.match(/(p1-\d+), produced at (\d+) ms, reaches c-follower at (\d+) ms/);
    assert.ok(m, c.text);
    const lag = Number(m[3]) - Number(m[2]);
    const rec = cliTrace(["--builtin", c.scenario, "--preset", c.preset]);
    // Its longest hop, four times (Fetch, answer, consumer fetch, answer): 1 ms a hop here.
    const rtt = 4 * Math.max(...rec.flatMap((r) => r.in_flight.map((x) => x.arrive_ms - x.sent_ms)));
    if (lag > rtt) {
      assert.doesNotMatch(`${c.title} ${c.text}`, /lag is (about )?one round trip/, `a lag of ${lag} ms is not one round trip (${rtt} ms at most here): ${c.title} | ${c.text}`);
      // The answer that moved follower 1's HW past the record came with the next record.
      const moved = rec.slice(0, Number(c.step)).findLast((r) => r.event?.type === "fetch_response" && r.event.to === 1 && r.event.hw_after > r.event.hw_before);
      assert.match(c.text, new RegExp(`the next record, ${moved.event.ids[0]}`), c.text);
    }
    assertNoErrors(page);
    await page.close();
  });
});
