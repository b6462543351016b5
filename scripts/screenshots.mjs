// The screenshots in docs/ (README, docs/learn.md), taken from the page as it is:
// the seed walkthrough at the step where the leader's HW has moved and the
// follower's has not, light and dark, 1280 px and 360 px wide, and a tour beat
// after its answer. Needs www/pkg (npm run build) and Chromium.
//
//   node scripts/screenshots.mjs [--out docs]
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { launch, ROOT } from "../e2e/helpers.mjs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const { values: opt } = parseArgs({ options: { out: { type: "string", default: "docs" } } });
const out = resolve(ROOT, opt.out);
const env = await launch();

/** The CLI's trace of a built-in, one record per step. */
function trace(name) {
  execFileSync("cargo", ["build", "--quiet", "--release", "--bin", "hwscope"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  const bin = join(ROOT, process.env.CARGO_TARGET_DIR || "target", "release", "hwscope");
  const text = execFileSync(bin, ["run", "--builtin", name, "--format", "jsonl"], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 });
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** The first step of the seed walkthrough where the leader's HW is ahead of the follower's. */
const lagStep = trace("seed-walkthrough").findIndex((r) => r.replicas[0].hw > r.replicas[1].hw);

async function shot(name, { width, height, theme, full = false }) {
  const page = await env.newPage();
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme: theme });
  const n = lagStep;
  await page.goto(new URL(`/?scenario=seed-walkthrough#at=${n}`, env.baseURL).href);
  await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), n);
  await page.waitForTimeout(300);
  await page.screenshot({ path: resolve(out, name), fullPage: full });
  console.log(`screenshots: ${name} (${width} px, ${theme}, step ${n})`);
  await page.close();
}

await shot("screenshot-light.png", { width: 1280, height: 900, theme: "light" });
await shot("screenshot-dark.png", { width: 1280, height: 900, theme: "dark" });
await shot("screenshot-narrow.png", { width: 360, height: 740, theme: "light" });
await shot("screenshot-narrow-dark.png", { width: 360, height: 740, theme: "dark" });

// A tour beat after its answer (docs/learn.md).
{
  const page = await env.newPage();
  await page.setViewportSize({ width: 1280, height: 1100 });
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto(new URL("/?tour=hw-lag&level=middle&beat=7", env.baseURL).href);
  await page.waitForSelector(".tour[data-beat]");
  // Answer the beat's question with what the simulator says, as a learner would.
  const quiz = await page.$(".tour form.quiz");
  if (quiz) {
    await page.$eval(".tour form.quiz", (f) => (f.querySelector(`input[value="${f.dataset.expected}"]`) ?? f.querySelector("input")).click());
    await page.click('.tour form.quiz button[type="submit"]');
    await page.waitForSelector(".tour .quiz-result");
    await page.waitForTimeout(300);
  }
  await page.screenshot({ path: resolve(out, "screenshot-tour.png") });
  console.log("screenshots: screenshot-tour.png (1280 px, light, hw-lag beat 7)");
  await page.close();
}
await env.close();
