// A documentation page's live figure on a slow link, without any docs tool: a plain
// HTML page with ```hwscope blocks and auto.js, served from a copy of dist-docs/ the
// way docs hosts serve (gzip on the fly, e2e/docsites/site.mjs), opened cold under
// 1.6 Mbps / 150 ms (Chrome DevTools Protocol), the reader's first action a scroll.
//
//   npm run build && npm run dist:docs
//   node e2e/docs-load.mjs [--loads 5] [--dist dist-docs]
//
// Two pages, each `--loads` times, medians and the worst in brackets:
// - "in view": the first figure is in view when the page opens; the reader scrolls
//   40 px once the page has loaded (network idle). Time from that scroll to the
//   figure live (data-hwscope-live="live").
// - "below the fold": the figure is 1.5 screens down; the reader scrolls 40 px, then
//   reads for `--read` ms (default 600) and scrolls the figure into view. Time from
//   the first scroll to the figure live.
// Also: hwscope's bytes before the first action (as transferred), and from it until the
// figure is live.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, ROOT } from "./helpers.mjs";
import { serveSite } from "./docsites/site.mjs";

const { values: opt } = parseArgs({
  options: {
    loads: { type: "string", default: "5" },
    dist: { type: "string", default: join(ROOT, "dist-docs") },
    read: { type: "string", default: "600" },
  },
});
const LINK = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8) | 0, uploadThroughput: (1.6e6 / 8) | 0 };
const para = (n) => Array.from({ length: n }, (_, i) => `<p>Paragraph ${i + 1}: a Fetch carries the follower's log end offset; the leader answers with records and its HW; the follower appends, then takes the smaller of its LEO and the leader's HW as its own HW.</p>`).join("\n");
const BLOCK = `<pre><code class="language-hwscope">seed-walkthrough at=4 from=0 to=8 loop title="Why a follower's HW lags the leader's"</code></pre>`;
/** A page; `above` paragraphs before the figure (about 60 px each at 1280 px). */
export const docsPage = (above) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Replication</title>
<style>body{max-width:760px;margin:2em auto;font:16px/1.6 system-ui,sans-serif}</style>
<script type="module" src="/hwscope/www/embed/auto.js"></script></head>
<body><h1>Replication, figure by figure</h1>
${para(above)}
${BLOCK}
${para(40)}
<p>The end.</p></body></html>
`;

async function visit(browser, url, belowFold) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", LINK);
  const urls = new Map();
  const bytes = new Map();
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
  cdp.on("Network.loadingFinished", (e) => bytes.set(urls.get(e.requestId), e.encodedDataLength));
  await page.goto(url, { waitUntil: "load" });
  await page.waitForLoadState("networkidle");
  await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "waiting", null, { polling: 20 });
  const ours = (m) => [...m].filter(([u]) => u.includes("/hwscope/")).reduce((n, [, b]) => n + b, 0);
  const before = ours(bytes);
  const t0 = await page.evaluate(() => performance.now());
  await page.mouse.wheel(0, 40);
  if (belowFold) {
    await page.waitForTimeout(Number(opt.read));
    await page.evaluate(() => document.querySelector("figure.hwscope-figure").scrollIntoView({ block: "center" }));
  }
  await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "live", null, { timeout: 60_000, polling: 10 });
  const t1 = await page.evaluate(() => performance.now());
  // What had come by then (the docs core, which live.js fetches once a figure is live, not).
  const after = ours(bytes);
  await ctx.close();
  return { ms: t1 - t0, before, after: after - before };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), "hwscope-docs-load-"));
cpSync(opt.dist, join(dir, "hwscope"), { recursive: true });
writeFileSync(join(dir, "inview.html"), docsPage(2));
writeFileSync(join(dir, "below.html"), docsPage(22));
const srv = await serveSite(dir);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
try {
  for (const [name, file, below] of [["in view", "inview.html", false], ["below the fold", "below.html", true]]) {
    const runs = [];
    for (let i = 0; i < Number(opt.loads); i++) runs.push(await visit(browser, `${srv.url}/${file}`, below));
    const ms = runs.map((r) => r.ms);
    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    console.log(
      `${name}: first live figure ${median(ms).toFixed(0)} ms (worst ${Math.max(...ms).toFixed(0)}) after the first scroll; ` +
        `hwscope before any action ${kb(median(runs.map((r) => r.before)))}, from it to the figure live ${kb(median(runs.map((r) => r.after)))} ` +
        `(load average ${loadavg()[0].toFixed(1)})`,
    );
  }
} finally {
  await browser.close();
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
}
