// Issue 18: the published site on a plain static host, and on hosts that get
// something wrong. `npm run dist` output behind e2e/static-host.mjs (no CORS,
// no CSP, no caching headers), under a subpath as a docs site would put it,
// with docs/embed.html as the host page: each embed (the <hwscope-playground>
// element's iframe, the plain <iframe sandbox="allow-scripts">) draws the
// stage or shows its message with the fix and a picture; none is blank.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, ROOT } from "./helpers.mjs";
import { startStaticHost } from "./static-host.mjs";

const TMP = mkdtempSync(join(tmpdir(), "hwscope-hosting-"));
const SUB = "/docs-site/hwscope";
let browser;
before(async () => {
  const out = join(TMP, "dist");
  execFileSync(process.execPath, [join(ROOT, "scripts/dist.mjs"), "--out", out], { stdio: "ignore" });
  mkdirSync(join(TMP, "site", SUB), { recursive: true });
  cpSync(out, join(TMP, "site", SUB), { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: CHROMIUM_ARGS, timeout: 60_000 });
});
after(async () => {
  await browser?.close();
  rmSync(TMP, { recursive: true, force: true });
});

/** What a playground document shows: "live" (the stage drawn, the controls
 *  working), "message" (the boot guard's box, with its words and picture), or
 *  "blank" (neither, after `ms`). */
async function outcome(frame, ms = 25_000) {
  try {
    await frame.waitForFunction(
      () => {
        // Live: the stage drawn and Play enabled (what a reader sees, not a marker of ours).
        const live = document.querySelector("#stage .broker") && document.getElementById("play")?.disabled === false;
        const box = document.getElementById("boot-fail");
        const shown = box && getComputedStyle(box).display !== "none" && getComputedStyle(box).visibility === "visible";
        return live || shown;
      },
      null,
      { timeout: ms, polling: 200 },
    );
  } catch {
    return { state: "blank" };
  }
  return frame.evaluate(async () => {
    const box = document.getElementById("boot-fail");
    if (!box || getComputedStyle(box).display === "none") return { state: "live" };
    const img = box.querySelector(".boot-still");
    if (!img.hidden) await img.decode().catch(() => {});
    const r = box.getBoundingClientRect();
    return {
      state: "message",
      text: box.innerText,
      open: box.querySelector(".boot-open").href,
      target: box.querySelector(".boot-open").target,
      picture: !img.hidden && img.naturalWidth > 0 ? img.getAttribute("src") : null,
      caption: box.querySelector(".boot-still-cap").textContent,
      size: [Math.round(r.width), Math.round(r.height)],
    };
  });
}

/** Opens docs/embed.html on a host in `mode`; the outcome of each embed. */
async function embedsOn(mode) {
  const host = await startStaticHost({ root: join(TMP, "site"), mode });
  const context = await browser.newContext({ viewport: { width: 1280, height: 3200 } });
  try {
    const page = await context.newPage();
    await page.goto(`${host.url}${SUB}/docs/embed.html`);
    const frame = async (test) => {
      for (let i = 0; i < 30; i++) {
        const f = page.frames().find((x) => test(x.url()));
        if (f) return f;
        await page.waitForTimeout(100);
      }
      return null;
    };
    const elementFrame = await frame((u) => /[?&]origin=/.test(u));
    const sandboxed = await frame((u) => /scenario=idle-partition-lag/.test(u));
    assert.equal(await page.$eval("#raw", (f) => f.getAttribute("sandbox")), "allow-scripts");
    const result = {
      element: elementFrame ? await outcome(elementFrame) : { state: "no frame", fallback: await page.$eval("hwscope-playground img", (i) => i.naturalWidth > 0 && i.getBoundingClientRect().height > 100) },
      sandboxed: sandboxed ? await outcome(sandboxed) : { state: "no frame" },
    };
    const main = await context.newPage();
    await main.goto(`${host.url}${SUB}/?scenario=kip101-data-loss#at=9`);
    result.page = await outcome(main.mainFrame());
    return result;
  } finally {
    await context.close();
    await host.close();
  }
}

/** A message as the issue asks: what failed, the likely cause, the fix, a link to the
 *  playground (a new tab) and a picture of the step asked for. */
function assertMessage(m, { what, still }) {
  assert.equal(m.state, "message", JSON.stringify(m));
  assert.match(m.text, what);
  assert.match(m.text, /Likely cause: \S/);
  assert.match(m.text, /Fix: \S/);
  assert.match(m.text, /Open the playground/);
  assert.equal(m.target, "_blank");
  assert.doesNotMatch(m.open, /embed=1/, "the link opens the full playground");
  if (still) {
    assert.match(m.picture ?? "", still, `a picture: ${m.caption}`);
    assert.match(m.caption, /^Step \d+ of /);
  }
  assert.ok(m.size[0] > 200 && m.size[1] > 100, `the box is visible (${m.size})`);
}

test("a host with no extra headers (no CORS): every embed draws the stage, the sandboxed one too", async () => {
  const r = await embedsOn("plain");
  assert.deepEqual([r.element.state, r.sandboxed.state, r.page.state], ["live", "live", "live"], JSON.stringify(r));
});

test("the sandboxed embed shows the asked step's picture while its bundle downloads, and the stage when it has come", async () => {
  const host = await startStaticHost({ root: join(TMP, "site"), mode: "slow-bundle" });
  const context = await browser.newContext({ viewport: { width: 1280, height: 3200 } });
  await context.addInitScript(() => {
    window.__cls = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
    }).observe({ type: "layout-shift", buffered: true });
  });
  try {
    const page = await context.newPage();
    await page.goto(`${host.url}${SUB}/docs/embed.html`, { waitUntil: "commit" });
    let frame = null;
    for (let i = 0; i < 50 && !frame; i++) {
      frame = page.frames().find((x) => /scenario=idle-partition-lag/.test(x.url()));
      if (!frame) await page.waitForTimeout(100);
    }
    assert.ok(frame, "the sandboxed frame");
    const look = () =>
      frame.evaluate(() => {
        const fig = document.querySelector(".boot-preview");
        const img = fig?.querySelector("img");
        const r = fig?.getBoundingClientRect();
        return {
          boot: document.documentElement.dataset.boot ?? null,
          src: img?.getAttribute("src") ?? null,
          loaded: !!img && img.complete && img.naturalWidth > 0,
          shown: !!fig && getComputedStyle(fig).display !== "none" && getComputedStyle(fig).visibility === "visible" && r.height > 200,
          caption: fig?.querySelector("figcaption")?.textContent ?? "",
        };
      });
    let seen = null;
    for (let i = 0; i < 100 && !seen; i++) {
      const s = await look().catch(() => null);
      if (s?.loaded && s.shown) seen = s;
      else await page.waitForTimeout(50);
    }
    assert.ok(seen, "the picture is shown while the bundle is on its way");
    assert.equal(seen.boot, null, "before the playground runs");
    assert.match(seen.src, /stills\/idle-partition-lag-28\.svg$/, "the step the embed asks for (from=28)");
    assert.match(seen.caption, /step 28, drawn when the site was built/);
    await frame.waitForFunction(() => document.documentElement.dataset.boot === "live", null, { timeout: 20_000 });
    const after = await look();
    assert.equal(after.shown, false, "the picture gives way to the stage");
    // The stage comes whole: the page is not shown with an empty stage that then fills.
    await page.waitForTimeout(300);
    assert.equal(await frame.evaluate(() => window.__cls), 0, "no layout shift in the frame");
  } finally {
    await context.close();
    await host.close();
  }
});

test("a host that serves .wasm as application/octet-stream: every embed still draws", async () => {
  const r = await embedsOn("wrong-mime");
  assert.deepEqual([r.element.state, r.sandboxed.state, r.page.state], ["live", "live", "live"], JSON.stringify(r));
});

test("the .wasm missing (404): the element says so with the fix and a picture; the sandboxed embed, with its core inside, draws", async () => {
  const r = await embedsOn("no-wasm");
  // The page starts on its first core (docs/performance.md, "Two cores").
  assertMessage(r.element, { what: /simulation core \(hwscope_first_bg\.[0-9a-f]{10}\.wasm\) could not be downloaded: HTTP 404/, still: /seed-walkthrough-4\.svg$/ });
  assert.match(r.element.caption, /^Step 4 of seed-walkthrough, drawn when the site was built\.$/);
  assertMessage(r.page, { what: /HTTP 404/, still: /kip101-data-loss-8\.svg$/ });
  assert.match(r.page.caption, /the nearest picture to step 9/);
  assert.equal(r.sandboxed.state, "live");
});

test("a Content-Security-Policy without 'wasm-unsafe-eval': every embed names the policy and its fix", async () => {
  const r = await embedsOn("csp");
  for (const m of [r.element, r.sandboxed, r.page]) {
    assertMessage(m, { what: /WebAssembly\) was refused by this site's Content-Security-Policy/, still: /\.svg$/ });
    assert.match(m.text, /add 'wasm-unsafe-eval' to script-src/);
  }
  assert.match(r.sandboxed.picture, /idle-partition-lag-28\.svg$/, "the sandboxed embed's range starts at step 28");
});

test("the page's scripts missing (404): each embed names the file and the status", async () => {
  const r = await embedsOn("no-main");
  assertMessage(r.element, { what: /A script of the playground \(main\.[0-9a-f]{10}\.js\) could not be downloaded: HTTP 404/, still: /seed-walkthrough-4\.svg$/ });
  assertMessage(r.sandboxed, { what: /A script of the playground \(standalone\.[0-9a-f]{10}\.js\) could not be loaded/, still: /idle-partition-lag-28\.svg$/ });
  assertMessage(r.page, { what: /HTTP 404/ });
});

test("no script at all loads (every .js 404): the element shows its fallback, a frame its static message", async () => {
  const r = await embedsOn("no-scripts");
  assert.equal(r.element.state, "no frame");
  assert.equal(r.element.fallback, true, "the element's own fallback picture");
  for (const m of [r.sandboxed, r.page]) {
    assert.equal(m.state, "message", JSON.stringify(m));
    assert.match(m.text, /Its scripts did not run: they are missing on this host, or blocked by it/);
    assert.match(m.text, /Open the playground/);
  }
});

test("a script that throws as it starts: each embed says it stopped, with the error", async () => {
  const r = await embedsOn("throws");
  for (const m of [r.element, r.page]) assertMessage(m, { what: /stopped with an error: .*a script of this upload is broken|did not run/ });
  // A sandboxed frame's own scripts are another origin's to it: the browser hides the error's text.
  assertMessage(r.sandboxed, { what: /The playground's script stopped with an error \(its text is hidden/, still: /idle-partition-lag-28\.svg$/ });
});
