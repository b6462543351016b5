// What hwscope adds to a documentation page with three figures, measured on
// the real tools' builds of e2e/docsites/figures.md (served gzipped, as docs
// hosts do):
//
//   npm run docs-bench [-- mdbook mkdocs-material ...]     # default: every tool installed
//
// - bytes before the reader does anything: the static figures (the page's
//   gzipped size with them, less without them: the raw ```hwscope blocks
//   instead) and the scripts hwscope adds (auto.js, and mdBook's loader), as
//   transferred;
// - time to the first live figure on a 1.6 Mbps / 150 ms link (Chromium's
//   Network.emulateNetworkConditions), cold cache: from the reader's first
//   scroll after the page has loaded, and from navigation when the reader
//   scrolls as soon as auto.js runs;
// - what the live figure loads (gzipped), for the record;
// - for the tools the npm package serves (Docusaurus, VitePress, Starlight): what a
//   page without a block pays (goal: nothing), and install-to-first-figure: the
//   commands a docs author types (docs/embedding.md, "Two commands per tool") and the
//   seconds `npm install` of the packed tarball into the fresh site and the site's
//   build took here;
// - for mdBook, MkDocs, Material, Zensical and Hugo: install-to-first-figure (the
//   commands a docs author types, and the seconds the packed package's install and
//   the site's build took here), and the wheel's and crates' sizes (native-bench.mjs).
// - the npm tarball's size.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../helpers.mjs";
import { NPM_SITES, eachBuiltSite } from "./site.mjs";
import { npmTarball } from "../packages.mjs";
import { installLines, sizeLines } from "./native-bench.mjs";

const LINK = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8) | 0, uploadThroughput: (1.6e6 / 8) | 0 };
const names = process.argv.slice(2).length ? process.argv.slice(2) : ["mdbook", "mkdocs", "mkdocs-material", "zensical", "hugo", "docusaurus", "vitepress", "starlight"];
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const gz = (s) => gzipSync(s, { level: 6 }).length;

/** The page's gzipped bytes that its static figures account for. */
function figureBytes(html) {
  const without = html.replace(/<figure class="hwscope-figure" data-hwscope="([^"]*)"[\s\S]*?<\/figure>/g, (_, src) => `<pre><code class="language-hwscope">${src}</code></pre>`);
  return gz(html) - gz(without);
}

async function visit(browser, url, { throttle, engage }) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  if (throttle) await cdp.send("Network.emulateNetworkConditions", LINK);
  const bytes = new Map();
  const urls = new Map();
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
  cdp.on("Network.loadingFinished", (e) => bytes.set(urls.get(e.requestId), e.encodedDataLength));
  await page.goto(url, { waitUntil: engage === "at-once" ? "commit" : "load" });
  if (engage === "after-load") await page.waitForLoadState("networkidle");
  // The reader's scroll counts once auto.js listens (it runs when the page's scripts do).
  else await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "waiting", null, { timeout: 60_000, polling: 20 });
  const before = new Map(bytes);
  const t0 = await page.evaluate(() => performance.now());
  await page.mouse.move(640, 300);
  await page.mouse.wheel(0, 40);
  await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "live", null, { timeout: 60_000, polling: 20 });
  const t1 = await page.evaluate(() => performance.now());
  await page.waitForLoadState("networkidle");
  const result = { before, all: new Map(bytes), fromEngage: t1 - t0, fromNavigation: t1 };
  await ctx.close();
  return result;
}

/** What a page without a block loads of hwscope (every request whose path names it). */
async function blockless(browser, url) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  const urls = new Map();
  let bytes = 0;
  let requests = 0;
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
  cdp.on("Network.loadingFinished", (e) => {
    if (/hwscope/.test(new URL(urls.get(e.requestId)).pathname)) {
      bytes += e.encodedDataLength;
      requests++;
    }
  });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForLoadState("networkidle");
  await page.mouse.wheel(0, 40);
  await page.waitForTimeout(500);
  await ctx.close();
  return { bytes, requests };
}

const tgz = npmTarball();
console.log(`npm package: ${tgz.replace(/.*\//, "")} ${kb(statSync(tgz).size)} packed`);
const COMMANDS = { docusaurus: 2, vitepress: 2, starlight: 2 };
for (const line of sizeLines()) console.log(line);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
for await (const { name, site, srv } of eachBuiltSite(names)) {
  const url = `${srv.url}/${site.page}`;
  const htmlFile = join(site.out, site.page.endsWith(".html") ? site.page : join(site.page, "index.html"));
  const figures = figureBytes(readFileSync(htmlFile, "utf8"));
  const ours = (u) => u.includes("/hwscope/") || /hwscope-loader/.test(u);
  const quiet = await visit(browser, url, { throttle: false, engage: "after-load" });
  const scripts = [...quiet.before].filter(([u]) => ours(u)).reduce((n, [, b]) => n + b, 0);
  const pageTotal = [...quiet.before].reduce((n, [, b]) => n + b, 0);
  const liveBytes = [...quiet.all].filter(([u]) => ours(u) && !quiet.before.has(u)).reduce((n, [, b]) => n + b, 0);
  const slowAfter = await visit(browser, url, { throttle: true, engage: "after-load" });
  const slowAtOnce = await visit(browser, url, { throttle: true, engage: "at-once" });
  console.log(`\n${name}  (${url})`);
  console.log(`  before the reader does anything, hwscope adds ${kb(figures + scripts)} gzipped: static figures ${kb(figures)}, scripts ${kb(scripts)} (budget 30 KB); the whole page loads ${kb(pageTotal)}`);
  console.log(`  the live figure then loads ${kb(liveBytes)} (WebAssembly core, modules, styles)`);
  if (NPM_SITES[name]) {
    const none = await blockless(browser, `${srv.url}/`);
    console.log(`  a page without a block: ${none.requests} requests, ${kb(none.bytes)} of hwscope (goal 0)`);
    console.log(`  install to first figure: ${COMMANDS[name]} commands typed (npm i hwscope; one config line); npm install of the tarball ${site.seconds.install.toFixed(1)} s, build with static figures ${site.seconds.build.toFixed(1)} s`);
  }
  for (const line of installLines(name, site)) console.log(line);
  console.log(`  1.6 Mbps / 150 ms, cold: first live figure ${slowAfter.fromEngage.toFixed(0)} ms after the reader's first scroll; ${slowAtOnce.fromNavigation.toFixed(0)} ms from navigation when the reader scrolls as soon as auto.js runs (budget 2000 ms)`);
}
await browser.close();
