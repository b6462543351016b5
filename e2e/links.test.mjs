// Share links in headless Chromium: a link opens the exact state it was made
// from ("reproduced exactly"), the address bar follows the step shown, the
// Share button's snippets, and hostile links (script in the title, huge
// numbers, a 1 MB fragment, broken base64, a future version…) each get a clear
// message, the default scenario, no script run and no console error.
//
// Needs www/pkg (npm run build): the links are made with the same codec.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { assertNoErrors, launch, ROOT } from "./helpers.mjs";

const wasm = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
wasm.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });

/** The fragment for a scenario at step `at`, with its state hash, as the page makes it. */
function linkFor(scenario, at) {
  const p = new wasm.Playground();
  p.configure(typeof scenario === "string" ? scenario : JSON.stringify(scenario));
  p.seek(at);
  return p.link();
}
const builtin = (name) => wasm.builtinScenarios().find((s) => s.name === name).json;

let env;
before(async () => {
  env = await launch({ contextOptions: { permissions: ["clipboard-read", "clipboard-write"] } });
});
after(async () => {
  await env?.close();
});

/** Opens a URL, fails on any dialog (alert from injected script), waits for the stage. */
async function open(path) {
  const page = await env.newPage();
  page.on("dialog", (d) => {
    page.dialogSeen = d.message();
    d.dismiss();
  });
  await page.goto(new URL(path, env.baseURL).href);
  await page.waitForSelector("#status[data-step]");
  await page.waitForFunction(() => !document.getElementById("share-open").disabled);
  return page;
}

const step = (page) => page.$eval("#status", (s) => Number(s.dataset.step));
const notice = (page) => page.$eval("#notice", (n) => (n.hidden ? "" : n.textContent.trim()));
/** "Reproduced exactly" shown: a link to a built-in as it is opens on the first core, and the
 *  full core compares its state hash when it comes (docs/page.md, "Two cores"). */
async function verified(page) {
  await page.waitForFunction(() => !document.querySelector("#status .verified.pending"));
  return page.$eval("#status .verified", (v) => !v.hidden);
}
const brokers = (page) => page.$$eval(".broker[data-broker]", (gs) => gs.map((g) => `${g.dataset.broker}:${g.dataset.alive === "true"}:${g.dataset.leo}/${g.dataset.hw}`));

describe("a share link", () => {
  test("opens at its step and says it reproduced exactly", async () => {
    const page = await open(`/#${linkFor(builtin("kip101-data-loss"), 11)}`);
    assert.equal(await step(page), 11);
    assert.equal(await verified(page), true);
    assert.equal(await notice(page), "");
    assert.match(await page.textContent("#about"), /KIP-101|truncat/i);
    assertNoErrors(page);
    await page.close();
  });

  test("a state that differs from the link's says so plainly", async () => {
    const good = linkFor(builtin("seed-walkthrough"), 5);
    const page = await open(`/#${good.replace(/h=[0-9a-f]{16}/, "h=0123456789abcdef")}`);
    assert.equal(await step(page), 5);
    assert.equal(await verified(page), false);
    assert.match(await notice(page), /Step 5 here is not the state this link was made from.*changed by hand.*model has changed/);
    assertNoErrors(page);
    await page.close();
  });

  test("the address bar follows the step, and reloading it reproduces the state", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    assert.equal(new URL(page.url()).hash, "", "no fragment before the first move");
    for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => /[#&]at=4(&|$)/.test(location.hash));
    const before = await brokers(page);
    await page.reload();
    await page.waitForSelector("#status[data-step]");
    await page.waitForFunction(() => !document.getElementById("share-open").disabled);
    assert.equal(await step(page), 4);
    assert.equal(await verified(page), true);
    assert.deepEqual(await brokers(page), before);
    assertNoErrors(page);
    await page.close();
  });

  test("carries interventions; Share copies the link, an iframe and a Markdown snippet", async () => {
    const page = await open("/?scenario=seed-walkthrough");
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
    await page.fill("#iv-records", "3");
    await page.click('[data-iv="produce"]');
    await page.click("#fwd");
    await page.click("#fwd");
    const state = await brokers(page);
    assert.match(state.join(), /0:true:108\//, "the leader has the 3 extra records");

    await page.click("#share-open");
    await page.waitForSelector("#share[open]");
    const link = await page.inputValue("#share-link");
    const iframe = await page.inputValue("#share-iframe");
    const md = await page.inputValue("#share-md");
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/#v=1&s=(b[\w-]+\.)?[\w-]+&at=6&h=[0-9a-f]{16}$/);
    assert.match(iframe, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/\?embed=1&amp;fit=1&amp;theme=auto#v=1&amp;s=/);
    assert.match(iframe, / title="hwscope: [^"]+\(interactive Kafka replication playground\)"/);
    assert.match(iframe, / sandbox="allow-scripts/);
    assert.match(md, /^\[hwscope: .+, step 6\]\(http:\/\/127\.0\.0\.1:\d+\/#v=1&s=.+\)$/);
    await page.click('[data-copy="share-link"]');
    await page.waitForFunction(() => document.getElementById("share-msg").textContent.includes("Copied"));
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await page.click('[data-copy="share-md"]');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), md);
    await page.keyboard.press("Escape");

    const other = await open(link.replace(/^http:\/\/[^/]+/, ""));
    assert.equal(await step(other), 6);
    assert.deepEqual(await brokers(other), state);
    assert.equal(await verified(other), true);
    assertNoErrors(page);
    assertNoErrors(other);
    await page.close();
    await other.close();
  });

  test("a link to another built-in pasted before the full core came opens once it comes", async () => {
    // The first core has only the first built-in's text: the link waits for the full
    // core (held here until the fragment has changed), not "could not be opened".
    const page = await env.newPage();
    let release;
    const held = new Promise((r) => (release = r));
    await page.route(/\/hwscope_bg\.wasm$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(new URL("/", env.baseURL).href);
    await page.waitForSelector("#status[data-step]");
    await page.evaluate((f) => (location.hash = f), linkFor(builtin("unclean-election"), 9));
    await page.waitForTimeout(300);
    release();
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "9");
    assert.equal(await verified(page), true);
    assert.doesNotMatch(await page.textContent("#notice"), /could not be opened/);
    assertNoErrors(page);
    await page.close();
  });

  test("a new fragment in the same tab (hashchange) opens that link", async () => {
    const page = await open("/");
    await page.evaluate((f) => (location.hash = f), linkFor(builtin("unclean-election"), 9));
    await page.waitForFunction(() => document.getElementById("status").dataset.step === "9");
    assert.equal(await verified(page), true);
    assertNoErrors(page);
    await page.close();
  });
});

describe("a hostile or broken link", () => {
  const script = `<img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=2;alert(2)</script>`;
  const cases = [
    ["a future version", "v=9&s=jeyJmb3JtYXQiOjF9", /could not be opened: the link is format v=9, made by a newer hwscope/],
    ["broken base64", "v=1&s=j!!!not*base64@@&at=2", /could not be opened: the link's `s` part is damaged/],
    ["a truncated compressed scenario", () => {
      const f = linkFor(builtin("acks-and-min-isr"), 3);
      const s = f.match(/s=(z[\w-]+)/)[1];
      return `v=1&s=${s.slice(0, s.length >> 1)}`;
    }, /could not be opened: the link's (scenario is cut short|`s` part is damaged)/],
    ["a 1 MB fragment", `v=1&s=j${"A".repeat(1 << 20)}`, /could not be opened: the link is \d+ characters long/],
    ["a step number past u64", () => `${linkFor(builtin("seed-walkthrough"), 2).replace(/&at=\d+&h=\w+/, "")}&at=99999999999999999999999`, /`at` part is damaged/],
    ["a step far past the run's end", () => `${linkFor(builtin("seed-walkthrough"), 2).replace(/&at=\d+&h=\w+/, "")}&at=18446744073709551615`, /points at step 18446744073709552000, but this run ends at step 13/],
    ["huge numbers in the scenario", `v=1&s=j${Buffer.from('{"format":1,"replicas":1e300,"stop_at_ms":1e300}').toString("base64url")}`, /could not be opened: the link's scenario is not valid/],
    ["a missing part", "v=1&at=3", /could not be opened: the link has no `s=` part/],
    ["a bad hash", () => linkFor(builtin("seed-walkthrough"), 2).replace(/h=\w+/, "h=<script>"), /could not be opened: the link's `h` part is damaged/],
    ["a bare step that is not a number", "at=1e9<b>", /`at` part is damaged/],
  ];
  for (const [name, fragment, message] of cases) {
    test(`${name}: a clear message, the default scenario, no script`, async () => {
      const f = typeof fragment === "function" ? fragment() : fragment;
      const page = await open(`/?scenario=seed-walkthrough#${f}`);
      assert.match(await notice(page), message);
      assert.ok(await page.isVisible("#notice"), "the notice shows");
      assert.ok(await page.isVisible(".broker[data-broker]"), "the stage shows a scenario");
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      assert.equal(page.dialogSeen, undefined);
      assertNoErrors(page);
      await page.close();
    });
  }

  test("script in the title is shown as text and never run", async () => {
    const f = linkFor({ format: 1, title: script, description: script, replicas: 2 }, 3);
    const page = await open(`/#${f}`);
    assert.equal(await verified(page), true, "it is a valid link");
    assert.ok((await page.textContent("#about")).includes(script), "the title is shown literally");
    assert.equal(await page.title(), `${script} · hwscope`);
    assert.equal(await page.$$eval("img[src=x], #about script", (els) => els.length), 0);
    await page.click("#share-open");
    await page.waitForSelector("#share[open]");
    assert.ok((await page.inputValue("#share-iframe")).includes("&lt;img src=x onerror=&quot;"), "escaped in the snippet");
    assert.ok((await page.inputValue("#share-md")).includes("\\<img src=x"), "escaped in the Markdown");
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(page.dialogSeen, undefined);
    assertNoErrors(page);
    await page.close();
  });

  test("a title thousands of characters long does not push the stage out of sight; it is cut on its line and whole in the fold", async () => {
    const title = `${"A very long title ".repeat(160)}END`;
    const page = await open(`/#${linkFor({ format: 1, title, replicas: 2 }, 0)}`);
    await page.setViewportSize({ width: 360, height: 800 });
    assert.equal(await notice(page), "", "a long title is not an error");
    const about = await page.$eval("#about", (a) => a.getBoundingClientRect().height);
    assert.ok(about < 120, `the title takes ${about} px, not the screen`);
    const stageTop = await page.$eval("#stage", (s) => s.getBoundingClientRect().top);
    assert.ok(stageTop < 400, `the stage starts at ${stageTop} px, in view`);
    assert.match(await page.textContent("#about summary"), /^A very long title .*…$/);
    await page.click("#about summary");
    assert.equal((await page.textContent("#about .whole-title")).trim(), title, "the whole title is in the fold");
    assertNoErrors(page);
    await page.close();
  });
});
