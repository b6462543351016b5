// A throttled load as a person sees it: the published build opened on a 1.6 Mbps /
// 150 ms link, the screen every 100 ms from navigation until the page is interactive
// (Chromium's own filmstrip: trace screenshots), laid out as one PNG with each
// frame's time and the page's marks.
//
//   node e2e/filmstrip.mjs [--path /] [--width 1280] [--height 800] [--theme light|dark]
//                          [--dist DIR] [--out e2e/out/filmstrip.png] [--every 100] [--frames DIR]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { launch, ROOT } from "./helpers.mjs";

const { values: opt } = parseArgs({
  options: {
    path: { type: "string", default: "/" },
    width: { type: "string", default: "1280" },
    height: { type: "string", default: "800" },
    theme: { type: "string", default: "light" },
    dist: { type: "string" },
    out: { type: "string", default: join(ROOT, "e2e/out/filmstrip.png") },
    every: { type: "string", default: "100" },
    // --frames DIR: also each distinct screenshot at full size, named by its time.
    frames: { type: "string" },
  },
});
let dist = opt.dist;
if (!dist) {
  dist = mkdtempSync(join(tmpdir(), "hwscope-filmstrip-"));
  execFileSync(process.execPath, [join(ROOT, "scripts/dist.mjs"), "--out", dist], { stdio: "ignore" });
}
const width = Number(opt.width);
const height = Number(opt.height);
const env = await launch({ root: dist, viewport: { width, height } });
try {
  const context = await env.browser.newContext({ viewport: { width, height }, baseURL: env.baseURL, colorScheme: opt.theme });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 1.6e6 / 8 });
  await page.goto("about:blank");
  await env.browser.startTracing(page, { screenshots: true, categories: ["devtools.timeline", "disabled-by-default-devtools.screenshot", "blink.user_timing"] });
  await page.goto(new URL(opt.path, env.baseURL).href);
  await page.waitForFunction(() => performance.getEntriesByName("hwscope-interactive").length, null, { timeout: 60_000 });
  await page.waitForTimeout(400);
  const marks = await page.evaluate(() => Object.fromEntries(["hwscope-first-stage", "hwscope-interactive"].map((n) => [n, Math.round(performance.getEntriesByName(n)[0]?.startTime ?? -1)])));
  const trace = JSON.parse((await env.browser.stopTracing()).toString("utf8"));
  const events = trace.traceEvents ?? trace;
  // Navigation start: the trace's navigationStart of the page's URL (its clock is the trace's).
  const nav = events.filter((e) => e.name === "navigationStart" && String(e.args?.data?.documentLoaderURL ?? "").startsWith(env.baseURL)).map((e) => e.ts).sort((a, b) => a - b)[0];
  const shots = events.filter((e) => e.name === "Screenshot" && e.args?.snapshot).map((e) => ({ t: (e.ts - nav) / 1000, src: `data:image/jpeg;base64,${e.args.snapshot}` })).filter((s) => s.t >= -50).sort((a, b) => a.t - b.t);
  if (opt.frames) {
    // As PNGs (the trace's screenshots are JPEGs): each drawn into a page of its size.
    mkdirSync(opt.frames, { recursive: true });
    const one = await env.browser.newPage({ viewport: { width, height } });
    for (const s of shots) {
      await one.setContent(`<body style="margin:0"><img src="${s.src}" style="display:block;width:${width}px">`);
      await one.waitForFunction(() => document.images[0].complete);
      await one.screenshot({ path: join(opt.frames, `${String(Math.max(0, Math.round(s.t))).padStart(5, "0")}ms.png`) });
    }
    await one.close();
  }
  const end = Math.max(marks["hwscope-interactive"] + 200, 600);
  const every = Number(opt.every);
  const frames = [];
  for (let t = 0; t <= end; t += every) frames.push({ t, shot: shots.filter((s) => s.t <= t).at(-1) });
  const cell = Math.min(320, Math.round(width / 2));
  const label = (t) => {
    const at = [];
    if (marks["hwscope-first-stage"] >= 0 && marks["hwscope-first-stage"] <= t && marks["hwscope-first-stage"] > t - every) at.push("first stage");
    if (marks["hwscope-interactive"] <= t && marks["hwscope-interactive"] > t - every) at.push("interactive");
    return `${t} ms${at.length ? ` · ${at.join(", ")}` : ""}`;
  };
  const html = `<!doctype html><meta charset="utf-8"><style>body{margin:8px;font:12px system-ui;background:#eee}div.g{display:flex;flex-wrap:wrap;gap:6px}figure{margin:0;background:#fff;padding:3px}img{display:block;width:${cell}px;border:1px solid #999}figcaption{padding:2px}</style>
<p>${opt.path} · ${width}×${height} ${opt.theme} · 1.6 Mbps / 150 ms · marks: first stage ${marks["hwscope-first-stage"]} ms, interactive ${marks["hwscope-interactive"]} ms</p><div class="g">${frames.map((f) => `<figure>${f.shot ? `<img src="${f.shot.src}">` : `<div style="width:${cell}px;height:${Math.round((cell * height) / width)}px;background:#fff;border:1px solid #999"></div>`}<figcaption>${label(f.t)}</figcaption></figure>`).join("")}</div>`;
  const sheet = await env.browser.newPage({ viewport: { width: Math.min(6, frames.length) * (cell + 8) + 24, height: 400 } });
  await sheet.setContent(html);
  mkdirSync(dirname(resolve(opt.out)), { recursive: true });
  await sheet.screenshot({ path: resolve(opt.out), fullPage: true });
  console.log(`filmstrip: ${resolve(opt.out)} (${frames.length} frames every ${every} ms; ${shots.length} screenshots in the trace; first stage ${marks["hwscope-first-stage"]} ms, interactive ${marks["hwscope-interactive"]} ms)`);
} finally {
  await env.close();
  if (!opt.dist) rmSync(dist, { recursive: true, force: true });
}
