// ```hwscope blocks in real documentation tools, each with hwscope's packed
// package installed as a docs author would (e2e/docsites/site.mjs): mdBook
// (the mdbook-hwscope crate), MkDocs plain and Material (the mkdocs-hwscope
// wheel's plugin), Zensical (the wheel's Markdown extension), Hugo (the Hugo
// module + render-docs) and Docusaurus (docusaurus-theme-hwscope + render-docs),
// each building e2e/docsites/figures.md (a built-in, a custom scenario, a
// share link and a broken block) from its fixture in e2e/docsites/<tool>/.
// For each: the strict build fails naming the file and line; with JavaScript
// off the static figures are there with their step's sentence as alt text;
// with it on each figure becomes live when scrolled into view, without moving
// anything; the figures follow the site's dark mode; the broken block shows its
// error; nothing is requested from another origin.
//
// The tools come from scripts/install-docs-tools.sh (scripts/test.sh runs it);
// a tool that is missing skips its tests.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, ROOT } from "./helpers.mjs";
import { DIST, HUGO_MODULE, hwscopeBinaries, PACKAGES as PACKAGES_DIR, TOOLS as TOOLS_DIR, VERSION, buildSite, missing, packedArtifacts, removeSite, serveSite } from "./docsites/site.mjs";
import { darkMode, themeToggle } from "./docsites/modes.mjs";

const TOOLS = [
  { name: "mdbook", tool: "mdbook", where: /src\/figures\.md:49: hwscope block: no built-in scenario "seed-walkthru" \(did you mean seed-walkthrough\?\)/ },
  { name: "mkdocs", tool: "mkdocs", second: true, where: /docs\/index\.md:49: hwscope block: no built-in scenario "seed-walkthru" \(did you mean seed-walkthrough\?\)/ },
  { name: "mkdocs-material", tool: "mkdocs", material: true, second: true, spa: true, where: /docs\/index\.md:49: hwscope block: no built-in scenario "seed-walkthru"/ },
  { name: "zensical", tool: "zensical", second: true, spa: true, where: /docs\/index\.md:49: hwscope block: no built-in scenario "seed-walkthru"/ },
  { name: "hugo", tool: "hugo", where: /content\/figures\.md:49 \(in .*public\.strict\/figures\/index\.html:\d+\): hwscope block: no built-in scenario/ },
  // From the npm package (its packed tarball installed into a fresh site, no cargo on PATH).
  { name: "docusaurus", tool: "docusaurus", npm: true, where: /docs\/figures\.md:49: hwscope block: no built-in scenario "seed-walkthru" \(did you mean seed-walkthrough\?\)/ },
  { name: "vitepress", tool: "vitepress", npm: true, where: /figures\.md:49: hwscope block: no built-in scenario "seed-walkthru" \(did you mean seed-walkthrough\?\)/ },
  // Starlight's pages start with three lines of front matter.
  { name: "starlight", tool: "starlight", npm: true, where: /src\/content\/docs\/figures\.md:52: hwscope block: no built-in scenario "seed-walkthru" \(did you mean seed-walkthrough\?\)/ },
];

/** A page of each fixture site without a ```hwscope block. */
const PLAIN = { mdbook: "plain.html", mkdocs: "plain/", zensical: "plain/", hugo: "plain/", docusaurus: "", vitepress: "", starlight: "" };

let browser;
before(async () => {
  execFileSync(process.execPath, ["scripts/dist.mjs", "--docs", "--out", "dist-docs"], { cwd: ROOT, stdio: "ignore" });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
after(() => browser?.close());

const figureStates = (page) => page.evaluate(() => [...document.querySelectorAll("figure.hwscope-figure")].map((f) => f.dataset.hwscopeLive ?? "static"));
const liveBackground = (page, k) =>
  page.evaluate((i) => {
    const hs = document.querySelectorAll("figure.hwscope-figure")[i]?.querySelector(".hwscope-live")?.shadowRoot?.querySelector(".hs");
    return hs ? getComputedStyle(hs).backgroundColor : null;
  }, k);

/** Opens the page, recording every request and console error. */
async function open(site, srv, options = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await ctx.newPage();
  const requests = [];
  const errors = [];
  page.on("request", (r) => requests.push(r.url()));
  // Ours only: MkDocs 1.6.1's darkmode.js throws when highlightjs is off (it looks for the hljs style sheets).
  const ours = (text, where = "") => /hwscope/.test(`${text} ${where}`) || where.startsWith(`${srv.url}/hwscope/`);
  page.on("console", (m) => m.type() === "error" && ours(m.text(), m.location()?.url) && errors.push(m.text()));
  page.on("pageerror", (e) => ours(e.message, e.stack) && errors.push(e.message));
  await page.goto(`${srv.url}/${site.page}`);
  return { ctx, page, requests, errors };
}

test("plain HTML: hwscope render-docs draws <hwscope-playground> as its static figure (fallback replaced), which auto.js makes live", async () => {
  const dir = mkdtempSync(join(tmpdir(), "hwscope-element-"));
  cpSync(DIST, join(dir, "hwscope"), { recursive: true });
  const gap = "<p style='height:1200px'>text</p>";
  const page = join(dir, "index.html");
  writeFileSync(
    page,
    `<!doctype html><meta charset="utf-8"><title>element</title><link rel="icon" href="data:,"><main style="max-width:720px">
<hwscope-playground scenario="kip101-data-loss" at="5" to="9" loop label="KIP-101 &amp; friends"><a href="#">fallback</a></hwscope-playground>${gap}
<hwscope-playground scenario="seed-walkthru"></hwscope-playground></main>
<script type="module" src="hwscope/www/embed/auto.js"></script>`,
  );
  const { hwscope } = hwscopeBinaries();
  const strict = spawnSync(hwscope, ["render-docs", dir], { encoding: "utf8" });
  assert.equal(strict.status, 2, "a broken element fails the command");
  assert.match(strict.stderr, /index\.html:3: hwscope block `seed-walkthru`: no built-in scenario "seed-walkthru" \(did you mean seed-walkthrough\?\)/);
  assert.match(strict.stderr, /1 figure/);
  const drawn = readFileSync(page, "utf8");
  assert.match(drawn, /<hwscope-playground scenario="kip101-data-loss" at="5" to="9" loop label="KIP-101 &amp; friends"><figure class="hwscope-figure" data-hwscope="kip101-data-loss at=5 to=9 loop title=&quot;KIP-101 &amp; friends&quot;" data-hwscope-step="5"/);
  assert.doesNotMatch(drawn, /fallback/, "the static figure is the element's fallback now");
  assert.match(drawn, /<hwscope-playground scenario="seed-walkthru"><div class="hwscope-error"/);
  // Drawn once: a second run leaves the figure as it is.
  spawnSync(hwscope, ["render-docs", dir, "--allow-errors"], { encoding: "utf8" });
  assert.equal(readFileSync(page, "utf8"), drawn);

  const srv = await serveSite(dir);
  const { ctx, page: tab, errors, requests } = await open({ page: "" }, srv);
  assert.equal(await tab.$eval("hwscope-playground figure.hwscope-figure", (f) => f.dataset.hwscopeLive), "waiting", "auto.js took the drawn figure");
  assert.match(await tab.getAttribute("hwscope-playground img.hwscope-static", "alt"), /^KIP-101 & friends, step 5: /);
  await tab.mouse.wheel(0, 10);
  await tab.waitForFunction(() => document.querySelector("hwscope-playground figure.hwscope-figure")?.dataset.hwscopeLive === "live");
  assert.deepEqual(errors, []);
  assert.deepEqual(requests.filter((u) => !u.startsWith(srv.url)), []);
  await ctx.close();
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
});

test("docs/embedding.md shows each tool's setup as the fixture the tests build has it", () => {
  const doc = readFileSync(join(ROOT, "docs/embedding.md"), "utf8");
  for (const f of [
    "e2e/docsites/mdbook/book.toml",
    "e2e/docsites/mkdocs/mkdocs.yml",
    "e2e/docsites/mkdocs/mkdocs-material.yml",
    "e2e/docsites/hugo/hugo.toml",
    "e2e/docsites/mkdocs/zensical.yml",
    "packages/hugo/layouts/_default/_markup/render-codeblock-hwscope.html",
    "e2e/docsites/docusaurus/docusaurus.config.js",
    "e2e/docsites/vitepress/.vitepress/config.mjs",
    "e2e/docsites/vitepress/.vitepress/theme/index.js",
    "e2e/docsites/starlight/astro.config.mjs",
  ]) {
    assert.ok(doc.includes(readFileSync(join(ROOT, f), "utf8").trimEnd()), `docs/embedding.md has ${f} as it is`);
  }
});

test("plain HTML: auto.js upgrades every form of block, with no build step", async () => {
  const dir = mkdtempSync(join(tmpdir(), "hwscope-plain-"));
  cpSync(DIST, join(dir, "hwscope"), { recursive: true });
  const gap = "<p style='height:1200px'>text</p>";
  writeFileSync(
    join(dir, "index.html"),
    `<!doctype html><meta charset="utf-8"><title>plain</title><link rel="icon" href="data:,"><main style="max-width:720px">
<pre><code class="language-hwscope">seed-walkthrough at=2</code></pre>${gap}
<pre class="hwscope">idle-partition-lag at=3 controls=play</pre>${gap}
<hwscope-playground scenario="kip101-data-loss" at="5" to="9" label="KIP-101"><a href="#">fallback</a></hwscope-playground>${gap}
<div class="hwscope">seed-walkthrough from=3 to=1</div></main>
<script type="module" src="hwscope/www/embed/auto.js"></script>`,
  );
  const srv = await serveSite(dir);
  const { ctx, page, errors, requests } = await open({ page: "" }, srv);
  await page.mouse.wheel(0, 10);
  for (let i = 0; i < 3; i++) {
    await page.locator("figure.hwscope-figure").nth(i).scrollIntoViewIfNeeded();
    await page.waitForFunction((k) => document.querySelectorAll("figure.hwscope-figure")[k]?.dataset.hwscopeLive === "live", i);
  }
  assert.deepEqual(await page.$$eval("figure.hwscope-figure", (fs) => fs.slice(0, 3).map((f) => f.dataset.hwscopeStep)), ["2", "3", "5"]);
  assert.equal(await page.isVisible("hwscope-playground a"), false, "the element's fallback is hidden once its figure is there");
  await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
  await page.waitForSelector(".hwscope-error");
  assert.match(await page.textContent(".hwscope-error"), /from=3 is after to=1/);
  assert.deepEqual(errors, []);
  assert.deepEqual(requests.filter((u) => !u.startsWith(srv.url)), []);
  await ctx.close();
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
});

/** After a client-side navigation: scroll a little, as a reader does, until the page's first
 *  figure is live. A wheel that comes before the site has run hwscope's script for the new page,
 *  or that the site's navigation undoes by scrolling back to the top, engages nothing (seen on a
 *  loaded CI machine with Zensical's instant loading), so one wheel is not enough. Fails when the
 *  figure is still not live after 30 s of scrolling. */
async function scrollUntilLive(page) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await page.mouse.wheel(0, 40);
    try {
      await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "live", null, { timeout: 2000 });
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
    }
  }
}

// HWSCOPE_DOCSITES=mdbook,hugo runs only those tools' tests (by hand; CI runs all).
const ONLY = process.env.HWSCOPE_DOCSITES?.split(",");
for (const t of TOOLS) {
  const skip = ONLY && !ONLY.includes(t.name) ? "not in HWSCOPE_DOCSITES" : missing(t.tool);
  describe(t.name, { skip: skip ?? false }, () => {
    let site;
    let srv;
    before(async () => {
      site = buildSite(t.tool, { onError: "show", material: t.material });
      assert.equal(site.status, 0, `the build with on-error=show passes:\n${site.log}`);
      srv = await serveSite(site.out, { port: site.port ?? 0 });
    });
    after(async () => {
      await srv?.close();
      removeSite(site);
    });

    test("the strict build fails on the broken block, naming the file and line", () => {
      assert.notEqual(site.strict.status, 0);
      assert.match(site.strict.stdout + site.strict.stderr, t.where);
    });

    test("with JavaScript off: three static figures with their step's sentence, and the error", async () => {
      const { ctx, page, requests } = await open(site, srv, { javaScriptEnabled: false });
      const figs = await page.$$eval("figure.hwscope-figure img.hwscope-static", (imgs) =>
        imgs.map((i) => ({ alt: i.alt, ok: i.complete && i.naturalWidth === 800, h: Math.round(i.getBoundingClientRect().height) })),
      );
      assert.equal(figs.length, 3);
      assert.match(figs[0].alt, /^Why a follower's HW lags the leader's, step 4: Follower 1 appends 5 records/);
      assert.match(figs[1].alt, /^Three records, two replicas, 20 ms apart, step 6: /);
      assert.match(figs[2].alt, /^KIP-101 scenario 1: .*, step 11: /);
      for (const f of figs) assert.ok(f.ok && f.h > 200, `the image is drawn: ${JSON.stringify(f)}`);
      assert.match(await page.textContent(".hwscope-error"), /This hwscope figure cannot be drawn:.*no built-in scenario "seed-walkthru" \(did you mean seed-walkthrough\?\)/);
      assert.deepEqual(requests.filter((u) => !u.startsWith(srv.url)), []);
      await ctx.close();
    });

    test("each figure goes live when scrolled into view, and nothing moves", async () => {
      const { ctx, page, requests, errors } = await open(site, srv);
      await page.waitForLoadState("networkidle");
      assert.deepEqual(await figureStates(page), ["waiting", "waiting", "waiting"], "nothing loads before the reader does something");
      assert.deepEqual(
        requests.filter((u) => u.includes("/hwscope/")).map((u) => u.replace(/.*\/hwscope\//, "").replace(/\?.*/, "")),
        ["www/embed/auto.js"],
        "before that, hwscope adds one script to the page",
      );
      await page.mouse.wheel(0, 40);
      await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "live");
      assert.equal((await figureStates(page))[2], "waiting", "the third figure waits until it is reached");
      const before = await page.evaluate(() => {
        const end = [...document.querySelectorAll("p")].find((p) => p.textContent === "The end.");
        return { end: end.getBoundingClientRect().top + scrollY, figs: [...document.querySelectorAll("figure.hwscope-figure")].map((f) => f.getBoundingClientRect().height) };
      });
      // Each figure is as wide as the text column (site styles for <figure> do not shrink it).
      const widths = await page.$$eval("figure.hwscope-figure", (fs) => {
        const text = [...document.querySelectorAll("p")].find((p) => p.textContent.startsWith("The leader"));
        return fs.map((f) => [Math.round(f.getBoundingClientRect().width), Math.round(text.getBoundingClientRect().width)]);
      });
      for (const [fig, text] of widths) assert.ok(Math.abs(fig - text) <= 2, `figure ${fig} px wide, text ${text} px`);
      for (let i = 0; i < 3; i++) {
        await page.locator("figure.hwscope-figure").nth(i).scrollIntoViewIfNeeded();
        await page.waitForFunction((k) => document.querySelectorAll("figure.hwscope-figure")[k].dataset.hwscopeLive === "live", i);
      }
      const after = await page.evaluate(() => {
        const end = [...document.querySelectorAll("p")].find((p) => p.textContent === "The end.");
        return { end: end.getBoundingClientRect().top + scrollY, figs: [...document.querySelectorAll("figure.hwscope-figure")].map((f) => f.getBoundingClientRect().height) };
      });
      assert.deepEqual(after, before, "the live figures take the static figures' place exactly");
      // The live figure plays: a step forward changes the step shown.
      const fig = page.locator("figure.hwscope-figure").nth(0);
      assert.equal(await fig.getAttribute("data-hwscope-step"), "4");
      await fig.locator(".hs-fwd").click();
      await page.waitForFunction(() => document.querySelector("figure.hwscope-figure").dataset.hwscopeStep === "5");
      await fig.locator(".hs-play").click();
      await page.waitForFunction(() => document.querySelector("figure.hwscope-figure").dataset.hwscopeStep !== "5");
      // The broken block still shows its error; nothing came from elsewhere; no errors logged.
      assert.equal(await page.isVisible(".hwscope-error"), true);
      assert.deepEqual(requests.filter((u) => !u.startsWith(srv.url) && !u.startsWith("data:")), []);
      assert.deepEqual(errors, []);
      await ctx.close();
    });

    test("the figures follow the site's dark mode", async () => {
      const { ctx, page } = await open(site, srv, { colorScheme: "light" });
      await page.mouse.wheel(0, 40);
      await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "live");
      await darkMode(page, t.name, false);
      await page.waitForFunction(() => !document.querySelector(".hwscope-live").classList.contains("dark"));
      assert.equal(await liveBackground(page, 0), "rgb(251, 251, 250)");
      await darkMode(page, t.name, true);
      await page.waitForFunction(() => document.querySelector(".hwscope-live").classList.contains("dark"));
      assert.equal(await liveBackground(page, 0), "rgb(18, 22, 28)");
      // A static figure not yet live is drawn dark too.
      assert.equal(await page.$eval("figure.hwscope-figure:nth-of-type(1) img", () => document.querySelectorAll("figure.hwscope-figure img.hwscope-static")[2].style.colorScheme), "dark");
      await ctx.close();
    });

    test("a page without a block loads nothing of hwscope", { skip: !(t.tool in PLAIN) && "the fixture has no such page" }, async () => {
      const { ctx, page, requests } = await open({ page: PLAIN[t.tool] }, srv);
      await page.waitForLoadState("networkidle");
      await page.mouse.wheel(0, 40);
      await page.waitForTimeout(300);
      assert.deepEqual(requests.filter((u) => u.includes("/hwscope/")), []);
      assert.equal(await page.locator('script[src*="hwscope"]').count(), 0);
      await ctx.close();
    });

    test("printing shows the static figure, in light colours, even from a live figure on a dark page", async () => {
      const { ctx, page } = await open(site, srv, { colorScheme: "dark" });
      await page.mouse.wheel(0, 40);
      await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "live");
      await darkMode(page, t.name, true);
      await page.emulateMedia({ media: "print", colorScheme: "dark" });
      const printed = await page.$eval("figure.hwscope-figure", (f) => ({
        live: getComputedStyle(f.querySelector(".hwscope-live")).display,
        img: getComputedStyle(f.querySelector("img.hwscope-static")).visibility,
        scheme: getComputedStyle(f.querySelector("img.hwscope-static")).colorScheme,
      }));
      assert.deepEqual(printed, { live: "none", img: "visible", scheme: "light" });
      await ctx.close();
    });

    if (t.npm) {
      test("a page without a block loads nothing of hwscope; a client-side navigation to pages with figures makes them live", async () => {
        const { ctx, page, requests, errors } = await open({ page: "" }, srv);
        await page.waitForLoadState("networkidle");
        assert.deepEqual(requests.filter((u) => /hwscope/.test(u.replace(srv.url, ""))), [], "the home page has no block and loads nothing of hwscope");
        const nav = (name) => page.locator(`main a:has-text("${name}"), .content a:has-text("${name}"), article a:has-text("${name}")`).first().click();
        await nav("the second page");
        await page.waitForSelector("figure.hwscope-figure");
        await scrollUntilLive(page);
        assert.equal(await page.$eval("figure.hwscope-figure", (f) => f.dataset.hwscopeStep), "3");
        // Back, then to the page of three figures: its first figure goes live too, and a theme toggle re-themes it.
        await page.goBack();
        await page.waitForFunction(() => !document.querySelector("figure.hwscope-figure"));
        await nav("the figures");
        await page.waitForFunction(() => document.querySelectorAll("figure.hwscope-figure").length >= 3);
        await scrollUntilLive(page);
        for (const dark of [true, false, true]) {
          await themeToggle(page, t.name, dark);
          await page.waitForFunction((d) => document.querySelector(".hwscope-live")?.classList.contains("dark") === d, dark);
          assert.equal(await liveBackground(page, 0), dark ? "rgb(18, 22, 28)" : "rgb(251, 251, 250)");
        }
        assert.deepEqual(requests.filter((u) => !u.startsWith(srv.url) && !u.startsWith("data:")), [], "nothing from another origin");
        assert.deepEqual(errors, []);
        await ctx.close();
      });
    }

    if (t.name === "mdbook") {
      test("a book whose assets are of another version, or missing, fails saying which", () => {
        const stamp = join(site.dir, "src/hwscope/hwscope-assets.json");
        const mine = JSON.parse(readFileSync(stamp, "utf8")).version;
        writeFileSync(stamp, JSON.stringify({ name: "hwscope-assets", version: "0.0.1" }));
        let r = spawnSync(join(TOOLS_DIR, "cargo/bin/mdbook"), ["build"], { cwd: site.dir, env: site.env, encoding: "utf8" });
        assert.notEqual(r.status, 0);
        assert.match(r.stderr, new RegExp(`src/hwscope/ holds hwscope's assets version 0\\.0\\.1, this is mdbook-hwscope ${mine.replaceAll(".", "\\.")}: run \`mdbook-hwscope install\` again`));
        rmSync(join(site.dir, "src/hwscope"), { recursive: true, force: true });
        r = spawnSync(join(TOOLS_DIR, "cargo/bin/mdbook"), ["build"], { cwd: site.dir, env: site.env, encoding: "utf8" });
        assert.notEqual(r.status, 0);
        assert.match(r.stderr, /src\/hwscope\/www\/embed\/auto\.js is missing: the figures cannot go live\. Run `mdbook-hwscope install`/);
        // And `install` (no --assets: the crate's own) puts it right.
        assert.equal(spawnSync(join(site.bin, "mdbook-hwscope"), ["install", site.dir], { env: site.env }).status, 0);
        r = spawnSync(join(TOOLS_DIR, "cargo/bin/mdbook"), ["build"], { cwd: site.dir, env: site.env, encoding: "utf8" });
        assert.equal(r.status, 0, r.stderr);
      });
    }

    if (t.spa) {
      test("the site's own palette toggle re-themes the figures, live and static, without a reload", async () => {
        const { ctx, page } = await open(site, srv, { colorScheme: "light" });
        await scrollUntilLive(page);
        const state = () =>
          page.evaluate(() => ({
            scheme: document.body.dataset.mdColorScheme,
            live: document.querySelector(".hwscope-live").classList.contains("dark"),
            still: document.querySelectorAll("figure.hwscope-figure img.hwscope-static")[2].style.colorScheme,
          }));
        assert.deepEqual(await state(), { scheme: "default", live: false, still: "light" });
        const loads = [];
        page.on("load", () => loads.push(page.url()));
        await page.locator('[data-md-component="palette"] label:visible').first().click();
        await page.waitForFunction(() => document.querySelector(".hwscope-live").classList.contains("dark"));
        assert.deepEqual(await state(), { scheme: "slate", live: true, still: "dark" });
        assert.equal(await liveBackground(page, 0), "rgb(18, 22, 28)");
        await page.locator('[data-md-component="palette"] label:visible').first().click();
        await page.waitForFunction(() => !document.querySelector(".hwscope-live").classList.contains("dark"));
        assert.deepEqual(await state(), { scheme: "default", live: false, still: "light" });
        assert.deepEqual(loads, []);
        await ctx.close();
      });

      test("an SPA navigation (instant loading) to a page with a figure makes it live, and back", async () => {
        const { ctx, page, requests, errors } = await open({ page: PLAIN[t.tool] }, srv);
        await page.waitForLoadState("networkidle");
        assert.deepEqual(requests.filter((u) => u.includes("/hwscope/")), []);
        const loads = [];
        page.on("load", () => loads.push(page.url()));
        await page.locator('a.md-nav__link[href$="second/"]:visible').first().click();
        await page.waitForURL(/\/second\/$/);
        await page.waitForSelector("figure.hwscope-figure");
        await scrollUntilLive(page);
        assert.equal(await page.$eval("figure.hwscope-figure", (f) => f.dataset.hwscopeStep), "3");
        // The navigation's link to the first page (Material writes "..", Zensical "./..").
        await page.evaluate(() => [...document.querySelectorAll("a.md-nav__link")].find((a) => new URL(a.href).pathname === "/")?.click());
        await page.waitForURL((u) => u.pathname === "/");
        await page.waitForFunction(() => document.querySelectorAll("figure.hwscope-figure").length === 3);
        await scrollUntilLive(page);
        assert.deepEqual(loads, [], "no page load: the site navigated in place");
        assert.deepEqual(requests.filter((u) => !u.startsWith(srv.url) && !u.startsWith("data:")), []);
        assert.deepEqual(errors, []);
        await ctx.close();
      });
    }

    if (t.name === "hugo") {
      test("the static figures come from the npm package's hwscope render-docs (its packed tarball, no cargo on PATH)", { skip: !existsSync(join(PACKAGES_DIR, `hwscope-${VERSION}.tgz`)) && "the npm tarball is not built" }, () => {
        assert.equal(site.seconds.renderer, "npm");
        assert.ok(existsSync(join(site.dir, "node_modules/hwscope/package.json")));
      });

      const go = spawnSync("go", ["version"]).status === 0;
      test("hugo mod get fetches the module by its path from a Go module proxy (dist-packages/goproxy)", { skip: !go && "Go is not installed" }, () => {
        const dir = mkdtempSync(join(tmpdir(), "hwscope-hugo-mod-"));
        cpSync(site.dir, dir, { recursive: true, filter: (p) => !/public/.test(p) });
        const env = {
          ...process.env,
          HUGO_MODULE_PROXY: `file://${join(PACKAGES_DIR, "goproxy")}`,
          HUGO_MODULE_NOSUMDB: "*",
          GOSUMDB: "off",
          GOPATH: join(dir, ".gopath"),
          GOFLAGS: "-modcacherw",
        };
        for (const args of [["mod", "init", "example.com/site"], ["mod", "get", `${HUGO_MODULE}@v${VERSION}`], ["--quiet", "-d", "public"]]) {
          const r = spawnSync("hugo", args, { cwd: dir, env, encoding: "utf8" });
          assert.equal(r.status, 0, `hugo ${args.join(" ")}: ${r.stdout}${r.stderr}`);
        }
        assert.match(readFileSync(join(dir, "go.mod"), "utf8"), new RegExp(`require ${HUGO_MODULE} v${VERSION.replaceAll(".", "\\.")}`));
        assert.equal(JSON.parse(readFileSync(join(dir, "public/hwscope/hwscope-assets.json"), "utf8")).version, VERSION);
        assert.match(readFileSync(join(dir, "public/figures/index.html"), "utf8"), /<div class="hwscope" data-hwscope-source="content\/figures\.md:\d+"/);
        rmSync(dir, { recursive: true, force: true });
      });

      test("live figures only (Hugo without render-docs): auto.js upgrades the blocks in their boxes, and shows the broken block's error", async () => {
        const raw = await serveSite(site.raw);
        const { ctx, page, errors } = await open(site, raw);
        const boxes = await page.$$eval("div.hwscope, figure.hwscope-figure", (els) => els.map((e) => Math.round(e.getBoundingClientRect().height)));
        await page.mouse.wheel(0, 40);
        assert.equal(await page.locator("div.hwscope").count(), 0, "auto.js turned every div.hwscope into a figure box");
        for (let i = 0; i < 3; i++) {
          await page.locator("figure.hwscope-figure").nth(i).scrollIntoViewIfNeeded();
          await page.waitForFunction((k) => document.querySelectorAll("figure.hwscope-figure")[k]?.dataset.hwscopeLive === "live", i);
        }
        await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
        await page.waitForSelector(".hwscope-error");
        assert.match(await page.textContent(".hwscope-error"), /line 1 of the block: no built-in scenario "seed-walkthru"/);
        const figs = await page.$$eval("figure.hwscope-figure", (els) => els.map((e) => Math.round(e.getBoundingClientRect().height)));
        assert.deepEqual(figs, boxes.slice(0, 3), "the render hook's boxes are the figures' size: nothing moves");
        assert.deepEqual(errors, []);
        await ctx.close();
        await raw.close();
      });
    }
  });
}

describe("the packed packages pass their registries' checks", () => {
  test("twine check: the mkdocs-hwscope wheel's metadata and description render on PyPI", { skip: !existsSync(join(TOOLS_DIR, "venv/bin/twine")) && "twine is not installed: bash scripts/install-docs-tools.sh wheels" }, () => {
    const { wheel } = packedArtifacts();
    const r = spawnSync(join(TOOLS_DIR, "venv/bin/twine"), ["check", "--strict", wheel], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /PASSED/);
  });

  test("cargo publish --dry-run: hwscope and mdbook-hwscope pack as crates.io takes them, with the assets inside", () => {
    packedArtifacts();
    const r = spawnSync("cargo", ["publish", "--dry-run", "--workspace", "--no-verify", "--allow-dirty"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /Uploading hwscope v/);
    assert.match(r.stderr, /Uploading mdbook-hwscope v/);
    const list = spawnSync("cargo", ["package", "--list", "-p", "mdbook-hwscope", "--allow-dirty"], { cwd: ROOT, encoding: "utf8" }).stdout.split("\n");
    assert.ok(list.includes("assets/www/embed/auto.js") && list.includes("assets/hwscope-assets.json"), "the crate carries the browser assets");
    const core = spawnSync("cargo", ["package", "--list", "-p", "hwscope", "--allow-dirty"], { cwd: ROOT, encoding: "utf8" }).stdout.split("\n");
    assert.ok(core.includes("scenarios/seed-walkthrough.json"), "the hwscope crate carries the scenarios it include_str!s");
    assert.deepEqual(core.filter((f) => /^(www|e2e|node_modules|oracle|docs|tests|target)\//.test(f)), [], "and nothing of the page, tests or docs");
  });
});
