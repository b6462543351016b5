// One throttled load of the published build, as a network log: when each file was
// asked for and when it finished (ms from navigation), and the page's marks (first
// paint, first stage, core ready, interactive). For finding where the first figure's
// time goes (docs/performance.md, "The first figure").
//
//   node e2e/trace-load.mjs [--dist DIR] [--path /?embed=1] [--runs 1] [--mbps 1.6] [--rtt 150]
//   node e2e/trace-load.mjs --sandbox        # the embed in <iframe sandbox="allow-scripts"> (a host page)
//
// Without --dist it runs `npm run dist` into a temporary directory first.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CHROMIUM_ARGS, launch, ROOT } from "./helpers.mjs";

const { values: opt } = parseArgs({
  options: {
    dist: { type: "string" },
    path: { type: "string", default: "/" },
    runs: { type: "string", default: "1" },
    mbps: { type: "string", default: "1.6" },
    rtt: { type: "string", default: "150" },
    sandbox: { type: "boolean", default: false },
  },
});
let out = opt.dist;
const temp = !out;
if (temp) {
  out = mkdtempSync(join(tmpdir(), "hwscope-trace-dist-"));
  execFileSync(process.execPath, [join(ROOT, "scripts/dist.mjs"), "--out", out], { stdio: "ignore" });
}
if (opt.sandbox) {
  // As e2e/bench-page.mjs: the sandboxed frame in the page's process, under its throttling.
  CHROMIUM_ARGS.push("--disable-features=IsolateSandboxedIframes");
  writeFileSync(join(out, "sandbox-host.html"), '<!doctype html><meta charset="utf-8"><title>sandboxed embed</title><iframe sandbox="allow-scripts" src="./?embed=1&scenario=seed-walkthrough#at=4" width="800" height="648" style="border:0"></iframe>\n');
  opt.path = "/sandbox-host.html";
}
const env = await launch({ root: out, viewport: { width: 1280, height: 900 } });
try {
  for (let r = 0; r < Number(opt.runs); r++) {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: env.baseURL });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: Number(opt.rtt), downloadThroughput: (Number(opt.mbps) * 1e6) / 8, uploadThroughput: (Number(opt.mbps) * 1e6) / 8 });
    const reqs = new Map();
    let t0 = null;
    cdp.on("Network.requestWillBeSent", (e) => {
      t0 ??= e.timestamp;
      reqs.set(e.requestId, { url: e.request.url.replace(env.baseURL, "/"), start: e.timestamp, prio: e.request.initialPriority });
    });
    cdp.on("Network.responseReceived", (e) => {
      const q = reqs.get(e.requestId);
      if (q) q.head = e.timestamp;
    });
    cdp.on("Network.loadingFinished", (e) => {
      const q = reqs.get(e.requestId);
      if (q) Object.assign(q, { end: e.timestamp, bytes: e.encodedDataLength });
    });
    await page.goto(new URL(opt.path, env.baseURL).href);
    let doc = page;
    if (opt.sandbox) {
      for (let t = 0; t < 200 && !page.frames().some((f) => f.url().includes("embed=1")); t++) await page.waitForTimeout(20);
      doc = page.frames().find((f) => f.url().includes("embed=1"));
    }
    await doc.waitForFunction(() => performance.getEntriesByName("hwscope-interactive").length, null, { timeout: 60_000 });
    await page.waitForTimeout(300);
    // A frame's clock starts with it: its marks from the page's navigation.
    const offset = doc === page ? 0 : (await doc.evaluate(() => performance.timeOrigin)) - (await page.evaluate(() => performance.timeOrigin));
    const marks = await doc.evaluate((offset) => {
      const out = {};
      for (const e of performance.getEntriesByType("mark")) if (e.name.startsWith("hwscope")) out[e.name] = Math.round(e.startTime + offset);
      for (const e of performance.getEntriesByType("paint")) out[e.name] = Math.round(e.startTime + offset);
      const n = performance.getEntriesByType("navigation")[0];
      out.responseEnd = Math.round(n.responseEnd + offset);
      out.domInteractive = Math.round(n.domInteractive + offset);
      return out;
    }, offset);
    const ms = (t) => (t == null ? "    -" : String(Math.round((t - t0) * 1000)).padStart(5));
    console.log(`run ${r + 1}: ${opt.path} at ${opt.mbps} Mbps / ${opt.rtt} ms`);
    for (const q of [...reqs.values()].sort((a, b) => a.start - b.start)) {
      console.log(`  ${ms(q.start)} → ${ms(q.head)} → ${ms(q.end)}  ${String(q.bytes ?? "").padStart(7)} B  ${q.prio.padEnd(8)} ${q.url.slice(0, 90)}`);
    }
    console.log("  marks (ms from navigation start):", JSON.stringify(marks));
    await context.close();
  }
} finally {
  await env.close();
  if (temp) rmSync(out, { recursive: true, force: true });
}
