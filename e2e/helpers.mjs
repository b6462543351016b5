// Helpers for the browser tests (node:test + playwright-core + Debian's /usr/bin/chromium).
//
//   import { launch } from "./helpers.mjs";
//   let env;
//   before(async () => { env = await launch(); });
//   after(() => env?.close());
//   test("...", async () => {
//     const page = await env.open("/");          // new page, navigated, errors collected
//     assertNoErrors(page);                       // no console errors, no uncaught errors
//   });
//
// The static server (scripts/serve.mjs, with its strict CSP) runs on a free port, so the
// page is tested under the same Content-Security-Policy it is deployed with.
import assert from "node:assert/strict";
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "../scripts/serve.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Issue 17's long run: one simulated day, seven replicas, replica.fetch.wait.max.ms 1,
 * latency 1 ms. Valid and well inside every limit, and far too long to compute to its
 * end in a page (hundreds of millions of steps).
 */
export const LONG_RUN = {
  format: 1,
  title: "One simulated day, seven replicas",
  replicas: 7,
  config: { "replica.fetch.wait.max.ms": 1 },
  network: { latency_ms: 1 },
  stop_at_ms: 86_400_000,
};

/** @type {WeakMap<import("playwright-core").Page, {console: object[], page: object[], requests: object[]}>} */
const collected = new WeakMap();
const launched = new Set();

/** Start collecting a page's console errors, uncaught errors and failed requests. */
export function watch(page) {
  if (collected.has(page)) return collected.get(page);
  const errors = { console: [], page: [], requests: [] };
  collected.set(page, errors);
  page.on("console", (msg) => {
    if (msg.type() === "error") {
      const loc = msg.location();
      errors.console.push({ text: msg.text(), url: loc?.url ?? "", line: loc?.lineNumber ?? 0 });
    }
  });
  page.on("pageerror", (err) => {
    errors.page.push({ message: err.message, stack: err.stack ?? "" });
  });
  page.on("requestfailed", (req) => {
    errors.requests.push({ url: req.url(), failure: req.failure()?.errorText ?? "" });
  });
  return errors;
}

/** The errors collected so far for a page: {console, page, requests}. */
export function errorsOf(page) {
  const errors = collected.get(page);
  if (!errors) throw new Error("errorsOf: this page was not opened by the helpers (call watch(page) first)");
  return errors;
}

/** Assert the page logged no console error and threw no uncaught error. */
export function assertNoErrors(page, { requests = false } = {}) {
  const e = errorsOf(page);
  assert.deepEqual(
    e.console.map((c) => `${c.text}${c.url ? ` (${c.url}:${c.line})` : ""}`),
    [],
    "console errors",
  );
  assert.deepEqual(
    e.page.map((p) => p.stack || p.message),
    [],
    "uncaught page errors",
  );
  if (requests) {
    assert.deepEqual(
      e.requests.map((r) => `${r.url}: ${r.failure}`),
      [],
      "failed requests",
    );
  }
}

/**
 * Start the static server on a free port and a headless Chromium with a fresh profile.
 * @param {{root?: string, viewport?: {width: number, height: number}, contextOptions?: object}} [options]
 */
export async function launch({ root = ROOT, viewport = { width: 1280, height: 800 }, contextOptions = {} } = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: run \`bash scripts/install-tools.sh --browser\` (or set CHROMIUM_PATH)`);
  }
  const server = await startServer({ port: 0, root });
  let browser;
  try {
    // launch() gives the browser a fresh temporary user-data-dir and removes it on close.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      chromiumSandbox: false,
      args: CHROMIUM_ARGS,
      timeout: 60_000,
    });
  } catch (err) {
    await server.close();
    throw err;
  }
  const context = await browser.newContext({ viewport, baseURL: server.url, ...contextOptions });
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(30_000);

  const env = {
    server,
    browser,
    context,
    baseURL: server.url,
    /** A new page whose errors are collected (see errorsOf / assertNoErrors). */
    async newPage() {
      const page = await context.newPage();
      watch(page);
      return page;
    },
    /**
     * A new page navigated to `path` (relative to the server root), waited until loaded,
     * at `viewport` when given, then until each selector of `until` is there (in order).
     */
    async open(path = "/", { waitUntil = "load", viewport, until = [] } = {}) {
      const page = await env.newPage();
      if (viewport) await page.setViewportSize(viewport);
      const response = await page.goto(new URL(path, server.url).href, { waitUntil });
      assert.ok(response, `no response for ${path}`);
      assert.equal(response.status(), 200, `HTTP status of ${path}`);
      for (const sel of until) await page.waitForSelector(sel);
      return page;
    },
    async close() {
      launched.delete(env);
      await context.close().catch(() => {});
      await browser.close().catch(() => {});
      await server.close();
    },
  };
  launched.add(env);
  return env;
}

/**
 * Counts the animation frames each page of `context` requests (`window.__frames`),
 * so a test can prove that none is requested while the player is paused.
 */
export function countAnimationFrames(context) {
  return context.addInitScript(() => {
    const raf = window.requestAnimationFrame.bind(window);
    window.__frames = 0;
    window.requestAnimationFrame = (cb) => {
      window.__frames++;
      return raf(cb);
    };
  });
}

/**
 * Seconds of main-thread task time the page's renderer spends in the next `ms`
 * milliseconds (Chrome DevTools Protocol, Performance.getMetrics TaskDuration):
 * what "paused means idle" is measured by. Same-origin frames share the count.
 */
export async function mainThreadSeconds(page, ms) {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send("Performance.enable");
    const task = async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration").value;
    const before = await task();
    await page.waitForTimeout(ms);
    return (await task()) - before;
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/**
 * The renderer main threads' tasks while `during()` runs (Chromium tracing):
 * [{start, wall, cpu}] in ms, `cpu` being the thread's own time, which a busy
 * machine does not inflate. What "never blocks input for more than one frame"
 * is checked with.
 */
export async function mainThreadTasks(browser, page, during) {
  await browser.startTracing(page, { categories: ["toplevel", "disabled-by-default-devtools.timeline"] });
  try {
    await during();
  } finally {
    const trace = JSON.parse((await browser.stopTracing()).toString("utf8"));
    const events = trace.traceEvents ?? trace;
    const main = new Set(events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
    // eslint-disable-next-line no-unsafe-finally
    return events
      .filter((e) => e.ph === "X" && (e.name === "ThreadControllerImpl::RunTask" || e.name === "RunTask") && main.has(`${e.pid}:${e.tid}`))
      .map((e) => ({ start: e.ts / 1000, wall: (e.dur ?? 0) / 1000, cpu: (e.tdur ?? e.dur ?? 0) / 1000 }));
  }
}

/** Close one environment, or every environment launch() opened and has not closed yet. */
export async function close(env) {
  if (env) return env.close();
  await Promise.all([...launched].map((e) => e.close()));
}

let hwscopeBin = process.env.HWSCOPE_BIN;

/** Runs the CLI and returns what it printed, failing the test if it exits non-zero.
 *  The release binary is built once per test process unless HWSCOPE_BIN names one. */
export function hwscope(args) {
  const r = spawnSync(hwscopeBinary(), args, { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `hwscope ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

function hwscopeBinary() {
  if (!hwscopeBin) {
    execFileSync("cargo", ["build", "--quiet", "--release", "--bin", "hwscope"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
    hwscopeBin = join(resolve(ROOT, process.env.CARGO_TARGET_DIR || "target"), "release", "hwscope");
  }
  return hwscopeBin;
}

/** `hwscope(args)` for each of `runs`, `width` at a time (each run is a process of its own,
 *  mostly its start-up: one after the other they leave the other core idle); what each
 *  printed, in order. Fails as `hwscope` does if any exits non-zero. */
export async function hwscopeEach(runs, width = 4) {
  const bin = hwscopeBinary();
  const out = new Array(runs.length);
  let next = 0;
  const one = (args) =>
    new Promise((done, fail) => {
      execFile(bin, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 30 }, (err, stdout, stderr) => {
        if (err) fail(new assert.AssertionError({ message: `hwscope ${args.join(" ")}: ${stderr || err.message}` }));
        else done(stdout);
      });
    });
  await Promise.all(Array.from({ length: Math.min(width, runs.length) }, async () => {
    while (next < runs.length) {
      const i = next++;
      out[i] = await one(runs[i]);
    }
  }));
  return out;
}

const traces = new Map();

/** The CLI's trace, one record per step: `hwscope run SOURCE... --format jsonl`
 *  (e.g. `["--builtin", "kip101-data-loss"]`, a file, `--preset`), kept per test process. */
export function cliTrace(source) {
  const key = JSON.stringify(source);
  if (!traces.has(key)) {
    const out = hwscope(["run", ...source, "--format", "jsonl"]);
    traces.set(key, out.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)));
  }
  return traces.get(key);
}

/**
 * A page on a new 1280 px context that counts layout shifts (window.__cls) and holds the
 * cores (hwscope_first_bg.wasm and hwscope_bg.wasm, hashed or not; `cores` narrows it, for
 * example to the full core alone) back until `release()`, as a slow link does; `asked()`
 * counts the requests held.
 */
export async function pageWithCoreHeld(env, cores = /hwscope(_first)?_bg(\.[0-9a-f]{10})?\.wasm$/) {
  const context = await env.browser.newContext({ baseURL: env.baseURL, viewport: { width: 1280, height: 800 } });
  await context.addInitScript(() => {
    window.__cls = 0;
    new PerformanceObserver((l) => l.getEntries().forEach((e) => !e.hadRecentInput && (window.__cls += e.value))).observe({ type: "layout-shift", buffered: true });
  });
  const page = await context.newPage();
  watch(page);
  let release;
  let asked = 0;
  const held = new Promise((r) => (release = r));
  // By default both cores: the first one the page starts on, and the full one (a share link's).
  await page.route(cores, async (route) => {
    asked++;
    await held;
    await route.continue();
  });
  return { context, page, release, asked: () => asked };
}

/** The step the page shows (the status line's data-step). */
export const stepOf = (page) => page.$eval("#status", (s) => Number(s.dataset.step));

/** Moves the scrubber as a user would (an input event), once it reaches n, and
 *  waits until step n is shown. */
export async function scrubTo(page, n) {
  await page.waitForFunction((v) => Number(document.getElementById("scrub").max) >= v, n);
  await page.$eval("#scrub", (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }, n);
  await page.waitForFunction((v) => document.getElementById("status").dataset.step === String(v), n);
}

/** Opens `path` and waits until the page is live and shows a step. */
export const openLive = (env, path, viewport) => env.open(path, { viewport, until: ["html[data-boot=live]", "#status[data-step]"] });

/** An element's box in the viewport: edges (x0, x1, y0, y1) and size (w, h). */
export const box = (page, sel) => page.$eval(sel, (e) => {
  const r = e.getBoundingClientRect();
  return { x0: r.left, x1: r.right, y0: r.top, y1: r.bottom, w: r.width, h: r.height };
});
