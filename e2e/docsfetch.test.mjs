// When a documentation page fetches the live figure (www/embed/auto.js): nothing of it
// before the reader acts (then the docs figures' first core; the docs core, which
// narrates, once the figure is live), and from the reader's first action (a scroll, the pointer, a
// key, focus) as soon as a figure is within two screen heights of the view, even when
// it is not in view yet; the figure turns live when the reader reaches it. A plain page
// with one ```hwscope block 1.5 screens down, served the way docs hosts serve
// (e2e/docsites/site.mjs), with the source tree under /hwscope/ (needs `npm run build`).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, ROOT } from "./helpers.mjs";
import { serveSite } from "./docsites/site.mjs";

const para = (n) => Array.from({ length: n }, (_, i) => `<p>Paragraph ${i + 1}: a Fetch carries the follower's log end offset; the leader answers with records and its HW.</p>`).join("\n");
const page = (above, below) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Replication</title>
<style>body{max-width:760px;margin:2em auto;font:16px/1.6 system-ui,sans-serif}p{margin:0;height:60px}</style>
<script type="module" src="/hwscope/www/embed/auto.js"></script></head>
<body><h1>Replication</h1>
${para(above)}
<pre><code class="language-hwscope">seed-walkthrough at=4 title="Why a follower's HW lags the leader's"</code></pre>
${para(below)}
<p>The end.</p></body></html>
`;

let dir;
let srv;
let browser;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "hwscope-docsfetch-"));
  symlinkSync(ROOT, join(dir, "hwscope"));
  // 22 paragraphs of 60 px: the figure starts ~1.5 screens (900 px) down; 80 screens: far below.
  writeFileSync(join(dir, "below.html"), page(22, 10));
  writeFileSync(join(dir, "far.html"), page(1200, 10));
  // A block the docs figures' first core refuses (it keeps no messages): the docs core says why.
  writeFileSync(join(dir, "broken.html"), page(0, 10).replace("seed-walkthrough at=4", "seed-walkthru at=4"));
  srv = await serveSite(dir);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  await srv?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens a page and records the paths of hwscope's requests. */
async function open(file) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p = await ctx.newPage();
  const requests = [];
  p.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith("/hwscope/")) requests.push(u.pathname.replace("/hwscope/", ""));
  });
  await p.goto(`${srv.url}/${file}`, { waitUntil: "load" });
  await p.waitForLoadState("networkidle");
  await p.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "waiting");
  await p.waitForTimeout(300);
  return { ctx, p, requests };
}
const state = (p) => p.evaluate(() => document.querySelector("figure.hwscope-figure").dataset.hwscopeLive);
const CORE = "www/pkg/hwscope_docs_first_bg.wasm";
/** Waits (up to 5 s) until the core has been asked for. */
async function fetched(requests) {
  for (let t = 0; t < 100 && !requests.includes(CORE); t++) await new Promise((ok) => setTimeout(ok, 50));
  assert.ok(requests.includes(CORE), `the core asked for: ${requests.join(", ")}`);
}

test("a figure below the fold: nothing before any action, the core fetched at the first scroll", async () => {
  const { ctx, p, requests } = await open("below.html");
  assert.deepEqual(requests, ["www/embed/auto.js"], "before the reader acts, only auto.js");
  const inView = await p.evaluate(() => document.querySelector("figure.hwscope-figure").getBoundingClientRect().top < innerHeight);
  assert.equal(inView, false, "the figure is below the fold");
  await p.mouse.wheel(0, 40);
  await fetched(requests);
  assert.ok(requests.includes("www/embed/live.js"), "live.js fetched with it");
  assert.equal(await state(p), "waiting", "the figure turns live only when it is reached");
  assert.ok(!requests.includes("www/pkg/hwscope_docs_bg.wasm"), "the docs core (narration) only once a figure is live");
  await p.evaluate(() => document.querySelector("figure.hwscope-figure").scrollIntoView({ block: "center" }));
  await p.waitForFunction(() => document.querySelector("figure.hwscope-figure").dataset.hwscopeLive === "live");
  // Then the docs core comes, and the figure tells its step.
  await p.waitForFunction(() => document.querySelector("figure.hwscope-figure").dataset.hwscopeCore === "docs");
  const caption = await p.evaluate(() => document.querySelector("figure.hwscope-figure .hwscope-live").shadowRoot.querySelector(".hs-caption").textContent);
  assert.match(caption, /^Follower 1 appends 5 records/);
  await ctx.close();
});

test("the pointer moving over the page, and a key (Tab), are actions too", async () => {
  for (const act of [(p) => p.mouse.move(400, 300), (p) => p.keyboard.press("Tab")]) {
    const { ctx, p, requests } = await open("below.html");
    assert.deepEqual(requests, ["www/embed/auto.js"]);
    await act(p);
    await fetched(requests);
    await ctx.close();
  }
});

test("a figure far below (80 screens): the first scroll fetches nothing; coming within two screens does", async () => {
  const { ctx, p, requests } = await open("far.html");
  await p.mouse.wheel(0, 40);
  await p.waitForTimeout(500);
  assert.deepEqual(requests, ["www/embed/auto.js"]);
  // The figure's top 2.5 screens below the view's bottom edge: not yet; 1.5 screens: fetched.
  await p.evaluate(() => scrollTo(0, document.querySelector("figure.hwscope-figure").offsetTop - 3.5 * innerHeight));
  await p.waitForTimeout(300);
  assert.deepEqual(requests, ["www/embed/auto.js"], "2.5 screens away: not yet");
  await p.evaluate(() => scrollBy(0, innerHeight));
  await fetched(requests);
  assert.equal(await state(p), "waiting");
  await ctx.close();
});

test("a block that cannot be drawn says why in the docs core's words (the first core keeps no messages)", async () => {
  const { ctx, p, requests } = await open("broken.html");
  await p.mouse.wheel(0, 40);
  await p.waitForSelector(".hwscope-error", { timeout: 30_000 });
  assert.match(await p.textContent(".hwscope-error"), /This hwscope figure cannot be drawn: line 1 of the block: no built-in scenario "seed-walkthru" \(did you mean seed-walkthrough\?\)/);
  assert.ok(requests.includes("www/pkg/hwscope_docs_bg.wasm"), "the docs core was asked for the message");
  await ctx.close();
});
