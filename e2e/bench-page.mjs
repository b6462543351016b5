// The page's budgets in headless Chromium: time to the first frame, and frame
// times while playing the heaviest built-in scenario.
//
//   node e2e/bench-page.mjs [--scenario steady-load] [--speed 8] [--seconds 8] [--json]
//
// Needs www/pkg (npm run build). Frame time is the interval between animation
// frames (what a viewer sees); a frame counts as on time when it comes within
// 16.7 ms (+1 ms of timer jitter) of the previous one.
import { parseArgs } from "node:util";
import { launch } from "./helpers.mjs";

const { values: opt } = parseArgs({
  options: {
    scenario: { type: "string", default: "steady-load" },
    speed: { type: "string", default: "8" },
    seconds: { type: "string", default: "8" },
    runs: { type: "string", default: "5" },
    json: { type: "boolean", default: false },
  },
});

const env = await launch({ viewport: { width: 1280, height: 900 } });
try {
  // First frame: a fresh page each run, the median reported.
  const firsts = [];
  for (let i = 0; i < Number(opt.runs); i++) {
    const page = await env.open("/");
    await page.waitForSelector("#status[data-step]");
    firsts.push(await page.evaluate(() => performance.getEntriesByName("hwscope-first-frame")[0].startTime));
    await page.close();
  }
  firsts.sort((a, b) => a - b);

  // Frames while playing: intervals between animation frames and the script
  // time spent in each.
  await env.context.addInitScript(() => {
    const raf = window.requestAnimationFrame.bind(window);
    window.__frames = [];
    window.requestAnimationFrame = (cb) =>
      raf((ts) => {
        const t0 = performance.now();
        cb(ts);
        window.__frames.push([ts, performance.now() - t0]);
      });
  });
  const page = await env.open(`/?scenario=${encodeURIComponent(opt.scenario)}`);
  await page.waitForSelector("#status[data-step]");
  await page.$eval("#speed", (el, v) => {
    el.value = String(Math.log2(Number(v)));
    el.dispatchEvent(new Event("input"));
  }, opt.speed);
  await page.click("#play");
  await page.waitForTimeout(Number(opt.seconds) * 1000);
  await page.click("#play");
  const frames = await page.evaluate(() => {
    const f = window.__frames.slice(3);
    const gaps = f.slice(1).map(([ts], i) => ts - f[i][0]);
    return { gaps, work: f.map(([, w]) => w), step: Number(document.getElementById("status").dataset.step) };
  });
  await page.close();

  const pct = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))];
  const onTime = frames.gaps.filter((g) => g <= 17.7).length / frames.gaps.length;
  const result = {
    first_frame_ms: { median: +firsts[firsts.length >> 1].toFixed(1), min: +firsts[0].toFixed(1), budget: 300 },
    playing: {
      scenario: opt.scenario,
      speed: Number(opt.speed),
      frames: frames.gaps.length,
      reached_step: frames.step,
      frames_on_time: +(onTime * 100).toFixed(1),
      frame_interval_p95_ms: +pct(frames.gaps, 0.95).toFixed(1),
      script_per_frame_p95_ms: +pct(frames.work, 0.95).toFixed(2),
      budget: "95% of frames within 16.7 ms",
    },
  };
  if (opt.json) console.log(JSON.stringify(result));
  else {
    console.log(`first frame: median ${result.first_frame_ms.median} ms (min ${result.first_frame_ms.min}; budget 300 ms)`);
    const p = result.playing;
    console.log(`playing ${p.scenario} at ×${p.speed}: ${p.frames_on_time}% of ${p.frames} frames on time (budget 95%), interval p95 ${p.frame_interval_p95_ms} ms, script p95 ${p.script_per_frame_p95_ms} ms, reached step ${p.reached_step}`);
  }
} finally {
  await env.close();
}
