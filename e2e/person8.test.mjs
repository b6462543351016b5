// Issue 29, eighth pass: a docs author's site and a learner's page, walked as their users
// walk them. Each test failed before its fix. Needs www/pkg (npm run build) and builds the
// release CLI (the static figures are `hwscope figure`'s).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, ROOT, hwscope } from "./helpers.mjs";
import { serveSite } from "./docsites/site.mjs";

describe("eighth pass: a live docs figure is drawn at least as large as the picture it replaces", () => {
  // The text columns of the docs themes: a phone, MkDocs, VitePress (624 px), Starlight,
  // mdBook (750 px), Docusaurus (820 px), a wide one.
  const COLUMNS = [360, 480, 624, 700, 750, 820, 900];
  const BLOCKS = ["seed-walkthrough at=4", "idle-partition-lag at=3", "kip101-data-loss at=11"];
  let dir;
  let srv;
  let browser;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "hwscope-person8-"));
    symlinkSync(ROOT, join(dir, "hwscope"));
    // Each block twice: drawn at build time (`hwscope figure`, as every tool's adapter
    // draws it) and as a code block no build step touched (auto.js draws its box).
    const drawn = BLOCKS.map((b) => {
      const file = join(dir, `${BLOCKS.indexOf(b)}.txt`);
      writeFileSync(file, b);
      return hwscope(["figure", file]);
    });
    const code = BLOCKS.map((b) => `<pre><code class="language-hwscope">${b}</code></pre>`);
    writeFileSync(
      join(dir, "index.html"),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Figures</title><style>*,::before,::after{box-sizing:border-box}body{margin:0 auto;padding:0;max-width:var(--col);font:16px/1.6 system-ui,sans-serif}</style>
<script type="module" src="/hwscope/www/embed/auto.js"></script></head><body>
<p>Text above.</p>${[...drawn, ...code].join("\n<p>Text between.</p>\n")}<p>The end.</p></body></html>`,
    );
    srv = await serveSite(dir);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const col of COLUMNS) {
    test(`a ${col} px column: the live stage's text is as large as the static picture's (12 px at most), 9 px or more, and nothing moves`, async () => {
      const ctx = await browser.newContext({ viewport: { width: col, height: 900 } });
      const page = await ctx.newPage();
      await page.addInitScript((c) => document.documentElement.style.setProperty("--col", `${c}px`), col);
      await page.goto(`${srv.url}/index.html`);
      await page.waitForFunction((n) => document.querySelectorAll("figure.hwscope-figure").length === n, BLOCKS.length * 2);
      const heights = () => page.$$eval("figure.hwscope-figure", (fs) => fs.map((f) => Math.round(f.getBoundingClientRect().height)));
      const end = () => page.evaluate(() => Math.round([...document.querySelectorAll("p")].at(-1).getBoundingClientRect().top + scrollY));
      const before = { figs: await heights(), end: await end() };
      if (col === COLUMNS[0]) {
        // Before the reader acts, a block no build step drew shows its text in its box
        // (it was a blank hole the size of a figure); once live, the text is hidden.
        const pending = await page.$$eval("figure.hwscope-figure", (fs) => fs.map((f) => {
          const p = f.querySelector(".hwscope-box > .hwscope-pending");
          const r = p?.getBoundingClientRect();
          return p && r.height > 100 && getComputedStyle(p).visibility === "visible" ? p.textContent : null;
        }));
        assert.deepEqual(pending, [...BLOCKS.map(() => null), ...BLOCKS], "the undrawn blocks show their text, the drawn ones their picture");
      }
      // The static pictures' text: 12 px in an 800 px wide picture, scaled into its box.
      const still = await page.$$eval("figure.hwscope-figure img.hwscope-static", (imgs) =>
        imgs.map((i) => { const r = i.getBoundingClientRect(); return 12 * Math.min(r.width / i.naturalWidth, r.height / i.naturalHeight); }),
      );
      assert.equal(still.length, BLOCKS.length);
      await page.mouse.move(5, 5);
      await page.mouse.wheel(0, 10);
      for (let i = 0; i < BLOCKS.length * 2; i++) {
        await page.locator("figure.hwscope-figure").nth(i).scrollIntoViewIfNeeded();
        await page.waitForFunction((k) => document.querySelectorAll("figure.hwscope-figure")[k].dataset.hwscopeLive === "live", i);
      }
      await page.waitForTimeout(300);
      const shown = await page.$$eval(".hwscope-pending", (ps) => ps.filter((p) => getComputedStyle(p).visibility !== "hidden").length);
      assert.equal(shown, 0, "a live figure hides the block's text under it");
      const live = await page.$$eval("figure.hwscope-figure", (fs) => fs.map((f) => {
        const svg = f.querySelector(".hwscope-live").shadowRoot.querySelector("svg.stage");
        const vb = svg.viewBox.baseVal;
        const r = svg.getBoundingClientRect();
        return 12 * Math.min(r.width / vb.width, r.height / vb.height);
      }));
      for (let i = 0; i < BLOCKS.length; i++) {
        const what = `${BLOCKS[i]} at ${col} px`;
        assert.ok(live[i] >= Math.min(still[i], 12) - 0.15, `${what}: live text ${live[i].toFixed(1)} px, the static picture's ${still[i].toFixed(1)} px`);
        for (const k of [i, i + BLOCKS.length]) assert.ok(live[k] >= 9, `${what}${k >= BLOCKS.length ? " (code block)" : ""}: live text ${live[k].toFixed(1)} px`);
      }
      assert.deepEqual({ figs: await heights(), end: await end() }, before, "the live figures take the static boxes' place exactly");
      await ctx.close();
    });
  }
});
