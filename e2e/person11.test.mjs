// Eleventh pass as a person: what a learner, a docs author and someone sharing a link met
// in Chromium that was wrong. Each test failed before its fix. Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { assertNoErrors, cliTrace, hwscope, launch, ROOT } from "./helpers.mjs";

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

describe("eleventh pass: a share link's block with preset=", () => {
  test("hwscope render-docs: preset=kafka-4.0 on a kafka-0.10 link draws without saying the model changed; a hash that does not match still warns", () => {
    const link = hwscope(["link", "--builtin", "kip101-data-loss", "--at", "11"]).trim();
    const wrong = link.replace(/h=([0-9a-f])/, (_, d) => `h=${d === "0" ? "1" : "0"}`);
    const render = (block) => {
      const dir = mkdtempSync(join(tmpdir(), "hwscope-person11-"));
      try {
        writeFileSync(join(dir, "index.html"), `<!doctype html><html><body><pre><code class="language-hwscope">${block}</code></pre></body></html>\n`);
        const bin = join(resolve(ROOT, process.env.CARGO_TARGET_DIR || "target"), "release", "hwscope");
        const r = spawnSync(bin, ["render-docs", dir], { encoding: "utf8" });
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout + r.stderr, /1 figures in 1 pages, 0 blocks with errors/);
        return r.stderr;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const changed = /differs from what this version computes/;
    assert.doesNotMatch(render(`${link} loop`), changed, "the link as made");
    assert.doesNotMatch(render(`${link} loop preset=kafka-4.0`), changed, "another preset: the link's hash is for its own");
    assert.match(render(`${wrong} loop`), changed, "a hash the run does not reproduce");
    assert.match(render(`${wrong} preset=kafka-0.10`), changed, "the link's own preset, named: still checked");
  });
});

describe("eleventh pass: a docs figure with controls=full on a phone", () => {
  test("360 px: every control of the bar, “open full playground ↗” last, is inside the figure", async () => {
    mkdirSync(join(ROOT, "e2e/out"), { recursive: true });
    const file = join(ROOT, "e2e/out/person11-figure.html");
    writeFileSync(file, `<!doctype html><html><head><meta charset="utf-8"><title>figure</title><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main>
<hwscope-playground scenario="elr" at="3" from="1" to="9" controls="full"></hwscope-playground>
<p>text</p></main><script type="module" src="/www/embed/auto.js"></script></body></html>\n`);
    try {
      const page = await env.open("/e2e/out/person11-figure.html", { viewport: { width: 360, height: 740 } });
      await page.mouse.wheel(0, 40);
      await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "live", null, { timeout: 60_000 });
      const boxes = await page.$eval("figure.hwscope-figure", (f) => {
        const root = [...f.querySelectorAll("*")].find((e) => e.shadowRoot).shadowRoot;
        const fig = root.querySelector(".hs").getBoundingClientRect();
        const r = (e) => e.getBoundingClientRect();
        return { fig: { left: fig.left, right: fig.right, bottom: fig.bottom }, items: [...root.querySelector(".hs-bar").children].map((e) => ({ name: e.className || e.tagName, left: r(e).left, right: r(e).right, bottom: r(e).bottom })) };
      });
      assert.ok(boxes.items.some((i) => /hs-open/.test(i.name)), JSON.stringify(boxes.items));
      for (const i of boxes.items) {
        assert.ok(i.left >= boxes.fig.left && i.right <= boxes.fig.right + 0.5 && i.bottom <= boxes.fig.bottom + 0.5, `${i.name} (${Math.round(i.left)}–${Math.round(i.right)}) is outside the figure (${Math.round(boxes.fig.left)}–${Math.round(boxes.fig.right)})`);
      }
      // No assertNoErrors: this host page is served under the playground's strict CSP,
      // which refuses auto.js's <style> for the figure box (a docs site has its own policy).
      await page.close();
    } finally {
      rmSync(file, { force: true });
    }
  });
});
