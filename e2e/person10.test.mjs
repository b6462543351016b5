// Tenth pass as a person: a docs figure's keys after a click on its picture, the Explore
// panel's place in one column, its memory bound on a small device. Each test failed
// before its fix. Needs www/pkg, www/pkg-explore (npm run build) and builds dist-docs.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startServer } from "../scripts/serve.mjs";
import { assertNoErrors, launch, ROOT } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch();
});
after(() => env?.close());

describe("a live docs figure", () => {
  let dir;
  let srv;
  before(async () => {
    execFileSync(process.execPath, ["scripts/dist.mjs", "--docs", "--out", "dist-docs"], { cwd: ROOT, stdio: "ignore" });
    dir = mkdtempSync(join(tmpdir(), "hwscope-person10-"));
    cpSync(join(ROOT, "dist-docs"), join(dir, "hwscope"), { recursive: true });
    writeFileSync(
      join(dir, "index.html"),
      `<!doctype html><meta charset="utf-8"><title>docs</title><link rel="icon" href="data:,"><main style="max-width:720px">
<p style="height:300px">text</p>
<pre><code class="language-hwscope">seed-walkthrough at=2</code></pre>
<p style="height:1500px">text</p>
<hwscope-playground scenario="kip101-data-loss" at="5"><a href="#">fallback</a></hwscope-playground>
<p style="height:1500px">text</p></main>
<script type="module" src="hwscope/www/embed/auto.js"></script>`,
    );
    srv = await startServer({ port: 0, root: dir });
  });
  after(async () => {
    await srv?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("a click on its picture focuses it, without scrolling or a ring: then → and ← act on it", async () => {
    const page = await env.newPage();
    await page.goto(`${srv.url}/index.html`);
    await page.mouse.wheel(0, 10);
    for (const [k, at] of [[0, 2], [1, 5]]) {
      const fig = page.locator("figure.hwscope-figure").nth(k);
      await fig.scrollIntoViewIfNeeded();
      await page.waitForFunction((i) => document.querySelectorAll("figure.hwscope-figure")[i]?.dataset.hwscopeLive === "live", k);
      const y = await page.evaluate(() => scrollY);
      // The stage's empty top-left corner: not a broker, a message or a control.
      const box = await fig.boundingBox();
      await page.mouse.click(box.x + 12, box.y + 40);
      assert.equal(await page.evaluate(() => scrollY), y, "the click does not scroll");
      const ring = await page.evaluate((i) => {
        const hs = document.querySelectorAll("figure.hwscope-figure")[i].querySelector(".hwscope-live").shadowRoot.querySelector(".hs");
        return { focused: hs.matches(":focus"), outline: getComputedStyle(hs).outlineStyle };
      }, k);
      assert.deepEqual(ring, { focused: true, outline: "none" }, "the figure has the focus, and no ring from a click");
      const stepAt = () => page.evaluate((i) => Number(document.querySelectorAll("figure.hwscope-figure")[i].dataset.hwscopeStep), k);
      assert.equal(await stepAt(), at);
      await page.keyboard.press("ArrowRight");
      await page.waitForFunction(([i, n]) => Number(document.querySelectorAll("figure.hwscope-figure")[i].dataset.hwscopeStep) === n, [k, at + 1]);
      await page.keyboard.press("ArrowLeft");
      await page.keyboard.press("ArrowLeft");
      await page.waitForFunction(([i, n]) => Number(document.querySelectorAll("figure.hwscope-figure")[i].dataset.hwscopeStep) === n, [k, at - 1]);
      assert.equal(await page.evaluate(() => scrollY), y, "the arrows do not scroll the page");
    }
    await page.close();
  });

  test("on a site whose body font is not the figure's (a serif one here), the labels' boxes fit their text", async () => {
    const page = await env.newPage();
    await page.goto(`${srv.url}/index.html`);
    await page.mouse.wheel(0, 10);
    const fig = page.locator("figure.hwscope-figure").first();
    await fig.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector("figure.hwscope-figure")?.dataset.hwscopeLive === "live");
    const pills = await page.evaluate(() =>
      [...document.querySelector(".hwscope-live").shadowRoot.querySelectorAll("svg .client")].map((g) => {
        const t = g.querySelector("text");
        return { text: t.textContent, box: Math.round(g.querySelector("rect").getBBox().width), text_w: Math.round(t.getComputedTextLength()) };
      }));
    assert.ok(pills.length > 0);
    for (const p of pills) assert.ok(p.box >= p.text_w, `"${p.text}" is ${p.text_w} px wide in a box of ${p.box} px`);
    await page.close();
  });
});

test("the iframe embed: a click on its stage, then → steps it", async () => {
  const host = await env.newPage();
  await host.route("**/host.html", (r) =>
    r.fulfill({ contentType: "text/html", body: `<!doctype html><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"><hwscope-playground scenario="seed-walkthrough" at="3"></hwscope-playground><script type="module" src="/www/embed/embed.js"></script>` }),
  );
  await host.goto(`${env.baseURL}/host.html`);
  const frame = await (await host.waitForSelector("hwscope-playground iframe")).contentFrame();
  await frame.waitForFunction(() => document.getElementById("status")?.dataset.step === "3");
  const box = await (await frame.$("#stage")).boundingBox();
  await host.mouse.click(box.x + 8, box.y + 8);
  await host.keyboard.press("ArrowRight");
  await frame.waitForFunction(() => document.getElementById("status").dataset.step === "4");
  await host.close();
});

describe("Explore on a phone", () => {
  test("below 900 px the panel opens under the controls it acts on, not above the run's title", async () => {
    const page = await env.open("/?scenario=kip101-data-loss", { viewport: { width: 360, height: 740 } });
    await page.waitForSelector("#explore-open:not([disabled])");
    await page.click("#explore-open");
    await page.waitForSelector("#explore form");
    const r = await page.evaluate(() => {
      const top = (id) => document.getElementById(id).getBoundingClientRect();
      return { explore: top("explore").top, controls: top("controls").bottom, about: document.querySelector(".about").getBoundingClientRect().top };
    });
    assert.ok(r.explore > r.about, `the panel (${r.explore}) is below the run's title (${r.about})`);
    assert.ok(r.explore >= r.controls, `the panel (${r.explore}) is under the controls (${r.controls})`);
    assertNoErrors(page);
    await page.close();
  });

  test("the memory bound's default follows the device's memory, and says so; a stop at the bound says it reached it", async () => {
    const page = await env.newPage();
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, "deviceMemory", { get: () => 2 }));
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${env.baseURL}/?scenario=kip101-data-loss`);
    await page.waitForSelector("#explore-open:not([disabled])");
    await page.click("#explore-open");
    await page.waitForSelector("#explore form");
    assert.equal(await page.inputValue("#explore input[name=memory_mb]"), "256");
    const hint = page.locator("#explore .ex-memory small");
    assert.ok(await hint.isVisible(), "the reason is shown at 360 px");
    assert.match(await hint.textContent(), /256 by default: this device has 2 GB/);

    await page.fill("#explore input[name=max_depth]", "60");
    await page.fill("#explore input[name=faults]", "6");
    await page.fill("#explore input[name=memory_mb]", "16");
    await page.click("#explore button[type=submit]");
    await page.waitForFunction(() => !["running", "idle", undefined].includes(document.getElementById("explore").dataset.state), null, { timeout: 120_000 });
    assert.equal(await page.$eval("#explore", (e) => e.dataset.state), "stopped-memory");
    const said = await page.textContent("#explore .ex-verdict");
    assert.doesNotMatch(said, /over the 16 MiB bound/);
    assert.match(said, /16 MiB memory bound|memory bound/);
    assertNoErrors(page);
    await page.close();
  });
});
