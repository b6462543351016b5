// Explore in headless Chromium: the search runs in a Web Worker and finds the
// KIP-101 loss by itself with the same counts as the native CLI, opens it as
// a normal run at its violation (link reproduced, violation marked), states
// "no counterexample within these bounds" precisely under kafka-4.0, stops at
// the memory bound and on Stop while the page stays usable, and the Learn
// tour's beat asks for a prediction and reveals the search's answer.
//
// Needs www/pkg and www/pkg-explore (npm run build). Uses HWSCOPE_BIN when
// set, else builds the native CLI once.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { assertNoErrors, launch, ROOT } from "./helpers.mjs";

let env;
let bin = process.env.HWSCOPE_BIN;

/** The native CLI's verdict for the same search (`hwscope check --json`). */
function native(args) {
  if (!bin) {
    execFileSync("cargo", ["build", "--quiet", "--release", "--bin", "hwscope"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
    bin = join(resolve(ROOT, process.env.CARGO_TARGET_DIR || "target"), "release", "hwscope");
  }
  const r = spawnSync(bin, ["check", ...args, "--json", "--threads", "1", "--quiet"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

before(async () => {
  env = await launch();
});
after(() => env?.close());

async function openExplore(path) {
  const page = await env.open(path);
  await page.waitForSelector("#explore-open:not([disabled])");
  await page.click("#explore-open");
  await page.waitForSelector("#explore form");
  return page;
}

const verdictOf = (page) => page.waitForFunction(() => {
  const s = document.getElementById("explore")?.dataset.state;
  return s && !["running", "idle"].includes(s) ? s : null;
}, null, { timeout: 120_000 }).then((h) => h.jsonValue());

test("finds KIP-101 by itself, as the CLI does, and opens it as a run at its violation", async () => {
  const page = await openExplore("/?scenario=kip101-data-loss");
  await page.click("#explore button[type=submit]");
  assert.equal(await verdictOf(page), "counterexample");
  const sentence = await page.textContent("#explore .ex-sentence");
  const cli = native(["--builtin", "kip101-data-loss"]);
  assert.equal(cli.verdict, "counterexample");
  assert.equal(sentence, cli.sentence, "the page's search (wasm) says what the native one says, counts included");
  assert.match(sentence, /acked-record-lost at step 28/);
  const why = await page.$$eval("#explore .ex-why li", (lis) => lis.map((li) => ({ injected: li.classList.contains("injected"), text: li.textContent })));
  assert.equal(why.filter((w) => w.injected).length, 3, "three injected faults");
  assert.ok(why.some((w) => /truncates its log to its own HW/.test(w.text)), "the chain reaches the truncation");
  assert.ok(why.some((w) => /elects broker 0/.test(w.text)), "and the election");

  await page.click("#explore .ex-actions button.primary");
  await page.waitForFunction(() => document.getElementById("status").dataset.step === "28");
  await page.waitForSelector(".verified:not([hidden])");
  assert.match(await page.textContent("#violations"), /acked-record-lost/);
  assert.match(await page.textContent("#about"), /Counterexample: acked-record-lost under kafka-0.10/);
  // A step of the chain opens that step of the same run.
  await page.click("#explore .ex-why li:last-child button");
  await page.waitForFunction(() => document.getElementById("status").dataset.step === "3");
  assertNoErrors(page);
  await page.close();
});

test("says precisely that nothing was found within the bounds, never a proof", async () => {
  const page = await openExplore("/?scenario=kip101-data-loss");
  await page.selectOption("#explore select[name=preset]", "kafka-4.0");
  await page.click("#explore button[type=submit]");
  assert.equal(await verdictOf(page), "none-within-bounds");
  const cli = native(["--builtin", "kip101-data-loss", "--preset", "kafka-4.0"]);
  assert.equal(await page.textContent("#explore .ex-sentence"), cli.sentence);
  assert.match(cli.sentence, /^No counterexample within these bounds: all 126,219 distinct states/);
  assert.match(cli.sentence, /This is not a proof/);
  const bounds = await page.textContent("#explore .ex-bounds-said");
  assert.ok(bounds.includes(cli.bounds), `${bounds} names ${cli.bounds}`);
  assertNoErrors(page);
  await page.close();
});

test("a long search leaves the page usable, stops on Stop, and stops at the memory bound", async () => {
  const page = await openExplore("/?scenario=kip101-data-loss");
  await page.fill("#explore input[name=max_depth]", "40");
  await page.fill("#explore input[name=faults]", "6");
  await page.selectOption("#explore select[name=preset]", "kafka-4.0");
  await page.click("#explore button[type=submit]");
  await page.waitForFunction(() => /distinct states/.test(document.querySelector("#explore .ex-progress").textContent));
  // The page answers while the worker searches: step forward twice.
  const before = Number(await page.$eval("#status", (s) => s.dataset.step));
  await page.click("#fwd");
  await page.click("#fwd");
  await page.waitForFunction((n) => Number(document.getElementById("status").dataset.step) === n + 2, before);
  assert.equal(await page.$eval("#explore", (e) => e.dataset.state), "running");
  await page.click("#explore .ex-run button:not(.primary)");
  assert.equal(await page.$eval("#explore", (e) => e.dataset.state), "cancelled");
  assert.match(await page.textContent("#explore .ex-verdict"), /Stopped by you/);

  await page.fill("#explore input[name=memory_mb]", "16");
  await page.click("#explore button[type=submit]");
  assert.equal(await verdictOf(page), "stopped-memory");
  // Whichever notices first: the search's own estimate, or the worker's wasm memory between slices.
  const said = await page.textContent("#explore .ex-verdict");
  assert.match(said, /memory bound/);
  assert.match(said, /16 MiB/);
  assert.match(said, /no counterexample among .*but the bounds were not exhausted/);
  assertNoErrors(page);
  await page.close();
});

test("a Learn beat asks for a prediction, then the search reveals it", async () => {
  const page = await env.open("/?tour=kip101&beat=every-timing&level=junior");
  await page.waitForSelector(".ex-beat");
  await page.check('.ex-beat input[value="counterexample"]');
  await page.click(".ex-beat button[type=submit]");
  await page.waitForSelector('.ex-beat[data-state="revealed"]', { timeout: 60_000 });
  const beat = await page.$eval(".ex-beat", (b) => ({ ...b.dataset }));
  assert.equal(beat.verdict, "none-within-bounds", "kafka-4.0 within the beat's bounds");
  assert.equal(beat.right, "false", "the prediction 'yes' was wrong");
  assert.match(await page.textContent(".ex-beat-answer"), /Not quite.*not a proof/);
  await page.click(".ex-beat-out p button");
  await page.waitForSelector('.ex-beat-run[data-preset="kafka-0.10"][data-verdict="counterexample"]', { timeout: 60_000 });
  assertNoErrors(page);
  await page.close();
});
