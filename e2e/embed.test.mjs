// Embedding in headless Chromium: ?embed=1's minimal chrome, the step-range
// lock, controls=, the playground inside <iframe sandbox="allow-scripts">, the
// <hwscope-playground> element (upgrade, fallback, size, theme) and the
// postMessage API with its origin checks, on docs/embed.html as the host page.
import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import { assertNoErrors, launch } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

/** The step a playground document shows (the page, or a frame). */
const stepOf = (doc) => doc.$eval("#status", (s) => Number(s.dataset.step));
const waitStep = (doc, n) => doc.waitForFunction((v) => document.getElementById("status")?.dataset.step === String(v), n);
async function open(path) {
  const page = await env.open(path);
  await page.waitForSelector("#status[data-step]");
  return page;
}

describe("?embed=1", () => {
  test("minimal chrome: stage, controls, caption and an 'open full playground' link", async () => {
    const page = await open("/?embed=1&scenario=seed-walkthrough#at=2");
    for (const hidden of [".bar .tools", ".bar .pick", ".side", "#intervene", ".legend", "#share-open", "#speed", "#reset"]) {
      assert.equal(await page.isVisible(hidden), false, `${hidden} is hidden`);
    }
    // The page's one h1 stays, for screen readers only (axe: page-has-heading-one).
    const h1 = await page.$eval(".bar", (e) => e.getBoundingClientRect());
    assert.equal(await page.$$eval(".bar h1", (hs) => hs.length), 1);
    assert.ok(h1.width <= 1 && h1.height <= 1, "the heading is not drawn");
    for (const shown of ["#stage", "#play", "#fwd", "#back", "#scrub", "#live", "#open-full"]) {
      assert.equal(await page.isVisible(shown), true, `${shown} shows`);
    }
    assert.equal(await page.textContent("#open-full"), "open full playground ↗");
    // A share link, or (before an embed has its full core, which writes them) the built-in by name.
    await page.waitForFunction(() => /#v=1&s=.+&at=2&h=|\?scenario=seed-walkthrough#at=2$/.test(document.getElementById("open-full").href));
    const href = await page.getAttribute("#open-full", "href");
    assert.ok(!href.includes("embed=1"), "the full playground, not another embed");
    assert.equal(await page.getAttribute("#open-full", "target"), "_blank");
    assert.equal(await stepOf(page), 2);
    assert.equal(new URL(page.url()).hash, "#at=2", "an embed leaves its own address alone");
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => /&at=3&|#at=3$/.test(document.getElementById("open-full").href));
    assertNoErrors(page);
    await page.close();
  });

  test("controls= picks the controls; an unknown one is named", async () => {
    let page = await open("/?embed=1&controls=none");
    assert.equal(await page.isVisible("#controls"), false);
    assert.ok((await page.$eval("#live", (l) => l.getBoundingClientRect().width)) <= 1, "the caption is for screen readers only");
    assert.equal(await page.isVisible("#stage"), true);
    await page.close();
    page = await open("/?embed=1&controls=play,speed");
    assert.deepEqual(
      await Promise.all(["#play", "#fwd", "#scrub", "#speed", "#reset"].map((s) => page.isVisible(s))),
      [true, false, false, true, false],
    );
    await page.close();
    page = await open("/?embed=1&controls=full,wide&from=x");
    assert.equal(await page.isVisible("#reset"), true);
    assert.match(await page.textContent("#notice"), /Ignored from=x is not a step number\. Ignored controls=wide is not a control/);
    assertNoErrors(page);
    await page.close();
    // A theme or motion it cannot read is named too, as every other option is (it was dropped without a word).
    page = await open("/?embed=1&theme=purple&motion=fast");
    assert.match(await page.textContent("#notice"), /Ignored theme=purple is not light, dark or auto\. Ignored motion=fast is not reduce/);
    assert.equal(await page.getAttribute("html", "data-theme"), null, "the theme is auto");
    assertNoErrors(page);
    await page.close();
  });

  test("theme=dark and theme=light are applied, and nothing is stored", async () => {
    const page = await open("/?embed=1&theme=dark");
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    await page.close();
  });
});

describe("from, to, loop: the step-range lock", () => {
  test("every way of moving stays within the range", async () => {
    const page = await open("/?embed=1&scenario=seed-walkthrough&from=3&to=6&controls=full#at=1");
    assert.equal(await stepOf(page), 3, "opened below the range: shows its first step");
    assert.deepEqual(await page.$eval("#scrub", (s) => [s.min, s.max]), ["3", "6"]);
    assert.match(await page.textContent("#scrub-out"), /^3 \/ 6$/);
    await page.keyboard.press("End");
    assert.equal(await stepOf(page), 6);
    await page.keyboard.press("ArrowRight");
    assert.equal(await stepOf(page), 6);
    await page.click("#fwd");
    assert.equal(await stepOf(page), 6);
    await page.keyboard.press("Home");
    assert.equal(await stepOf(page), 3);
    await page.click("#back");
    assert.equal(await stepOf(page), 3);
    await page.click("#first");
    assert.equal(await stepOf(page), 3);
    // Play runs to the end of the range and stops there.
    await page.evaluate(() => (document.getElementById("speed").value = "7", document.getElementById("speed").dispatchEvent(new Event("input"))));
    await page.click("#play");
    await page.waitForFunction(() => document.getElementById("play").textContent === "Play", null, { timeout: 10_000 });
    assert.equal(await stepOf(page), 6);
    assertNoErrors(page);
    await page.close();
  });

  // seed-walkthrough ends at step 13. A range past it showed the last step with nothing said;
  // it is named in the notice like any other parameter, and clamped to the last step.
  test("a range past the run's end, or given backwards, is named and clamped", async () => {
    const notice = (page) => page.waitForFunction(() => !document.getElementById("notice").hidden).then(() => page.textContent("#notice"));
    let page = await open("/?embed=1&scenario=seed-walkthrough&from=40&controls=full");
    assert.match(await notice(page), /from=40 is after the run's last step, 13: starting there\./);
    assert.equal(await stepOf(page), 13);
    assert.deepEqual(await page.$eval("#scrub", (s) => [s.min, s.max]), ["13", "13"]);
    assertNoErrors(page);
    await page.close();
    page = await open("/?embed=1&scenario=seed-walkthrough&from=2&to=500&controls=full");
    assert.match(await notice(page), /to=500 is after the run's last step, 13: ending there\./);
    assert.equal(await stepOf(page), 2);
    await page.keyboard.press("End");
    assert.equal(await stepOf(page), 13);
    assert.deepEqual(await page.$eval("#scrub", (s) => [s.min, s.max]), ["2", "13"]);
    await page.close();
    page = await open("/?embed=1&scenario=seed-walkthrough&from=6&to=3&theme=purple");
    const said = await notice(page);
    assert.match(said, /from=6 is after to=3: showing steps 3 to 6\./);
    assert.match(said, /Ignored theme=purple is not light, dark or auto\./);
    assert.equal(await stepOf(page), 3);
    await page.close();
    // Within the run: nothing to say.
    page = await open("/?embed=1&scenario=seed-walkthrough&from=3&to=13");
    await page.waitForTimeout(300);
    assert.equal(await page.$eval("#notice", (n) => n.hidden), true, await page.textContent("#notice"));
    await page.close();
  });

  test("loop=1 plays the range over and over", async () => {
    const page = await open("/?embed=1&scenario=seed-walkthrough&from=2&to=4&loop=1&motion=reduce");
    await page.click("#play");
    await waitStep(page, 4);
    await waitStep(page, 2);
    await waitStep(page, 3);
    assert.equal(await page.textContent("#play"), "Pause");
    await page.click("#play");
    assertNoErrors(page);
    await page.close();
  });
});

test("the element's first address, www/embed.js, still upgrades it", async () => {
  const page = await env.newPage();
  // A host page that pasted the old script address (served here as a route).
  await page.route("**/legacy-host.html", (route) => route.fulfill({
    contentType: "text/html",
    body: '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><hwscope-playground scenario="seed-walkthrough" at="3"><a href="/">Open the playground</a></hwscope-playground><script type="module" src="/www/embed.js"></script>',
  }));
  await page.goto(new URL("/legacy-host.html", env.baseURL).href);
  const frame = await (await page.waitForSelector("hwscope-playground iframe")).contentFrame();
  assert.equal(new URL(frame.url()).pathname, "/", "the playground at the site's root");
  await waitStep(frame, 3);
  assertNoErrors(page);
  await page.close();
});

// Each test opens the host page afresh: none depends on what another left behind.
describe("docs/embed.html: a host page", () => {
  let page;
  let walk;
  let raw;
  beforeEach(async () => {
    page = await env.open("/docs/embed.html");
    await page.waitForFunction(() => document.getElementById("walk-log").textContent.startsWith("ready"));
    walk = page.frames().find((f) => f.url().includes("scenario=seed-walkthrough"));
    await page.evaluate(() => document.getElementById("raw").scrollIntoView());
    await page.waitForFunction(() => document.getElementById("raw").dataset.told);
    raw = page.frames().find((f) => f.url().includes("scenario=idle-partition-lag"));
    await raw.waitForSelector("#status[data-step]");
  });
  afterEach(async () => {
    assertNoErrors(page);
    await page.close();
  });

  test("the element upgrades to an iframe with a title; its children stay as an unrendered fallback", async () => {
    const info = await page.$eval("#walk", (el) => {
      const frame = el.shadowRoot.querySelector("iframe");
      const img = el.querySelector("img");
      return { title: frame.title, src: frame.src, height: frame.getBoundingClientRect().height, img: !!img, imgBoxes: img.getClientRects().length };
    });
    assert.match(info.title, /^hwscope: why a follower's HW lags/);
    const src = new URL(info.src);
    assert.equal(src.searchParams.get("embed"), "1");
    assert.equal(src.searchParams.get("from"), "0");
    assert.equal(src.searchParams.get("to"), "8");
    assert.equal(src.searchParams.get("loop"), "1");
    assert.equal(src.searchParams.get("origin"), new URL(env.baseURL).origin);
    assert.equal(src.hash, "#at=4");
    assert.ok(info.img, "the fallback stays in the DOM");
    assert.equal(info.imgBoxes, 0, "and is not rendered");
    // Sized from its resize messages: the frame is as tall as the playground's content.
    const inner = await walk.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
    assert.ok(Math.abs(info.height - inner) <= 1, `frame ${info.height}px, content ${inner}px`);
    assert.equal(await stepOf(walk), 4);
  });

  test("prose drives it: seek, step, back, play and pause; events come back", async () => {
    await page.click('[data-seek="5"]');
    await waitStep(walk, 5);
    await page.waitForFunction(() => document.getElementById("walk-log").textContent === "step 5: broker 0's HW 100 → 105");
    await page.click('[data-seek="7"]');
    await waitStep(walk, 7);
    await page.waitForFunction(() => /broker 1's HW 100 → 105/.test(document.getElementById("walk-log").textContent));
    await page.$eval("#walk", (el) => el.back());
    await waitStep(walk, 6);
    await page.$eval("#walk", (el) => el.step());
    await waitStep(walk, 7);
    await page.$eval("#walk", (el) => el.seek(99));
    await waitStep(walk, 8);
    const steps = await page.evaluate(() => {
      const el = document.getElementById("walk");
      const seen = [];
      el.addEventListener("hwscope:step", (e) => seen.push(e.detail.at));
      el.play();
      return new Promise((done) => setTimeout(() => (el.pause(), done(seen)), 1500));
    });
    assert.ok(steps.length >= 1 && steps.every((s) => s >= 0 && s <= 8), `played within the range: ${steps}`);
  });

  test("a bad command is answered with an error event", async () => {
    const error = await page.evaluate(
      () =>
        new Promise((done) => {
          const el = document.getElementById("walk");
          el.addEventListener("hwscope:error", (e) => done(e.detail), { once: true });
          el.send("seek", { at: "five" });
        }),
    );
    assert.equal(error.command, "seek");
    assert.match(error.message, /step number/);
  });

  test("only its parent may command it, and only from the ?origin= it was given", async () => {
    await page.$eval("#walk", (el) => el.seek(2));
    await waitStep(walk, 2);
    // From itself (not its parent): ignored.
    await walk.evaluate(() => window.postMessage({ type: "hwscope:seek", v: 1, at: 6 }, "*"));
    // From the parent, but another protocol version: refused.
    await page.$eval("#walk", (el) => el.shadowRoot.querySelector("iframe").contentWindow.postMessage({ type: "hwscope:seek", v: 2, at: 6 }, "*"));
    await page.waitForTimeout(300);
    assert.equal(await stepOf(walk), 2);
    // A frame told another origin ignores this page's commands.
    const stranger = await page.evaluate(async () => {
      const f = document.createElement("iframe");
      f.src = "/?embed=1&origin=https://docs.example.org";
      document.body.append(f);
      await new Promise((r) => f.addEventListener("load", r));
      // Live (its core running, step 0 shown), however long a loaded machine takes.
      for (let i = 0; i < 150 && f.contentDocument.documentElement.dataset.boot !== "live"; i++) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 300));
      f.contentWindow.postMessage({ type: "hwscope:seek", v: 1, at: 3 }, "*");
      await new Promise((r) => setTimeout(r, 300));
      const step = f.contentDocument.getElementById("status").dataset.step;
      f.remove();
      return step;
    });
    assert.equal(stranger, "0");
  });

  test("it follows the host page's theme", async () => {
    const theme = () => walk.evaluate(() => document.documentElement.dataset.theme ?? "auto");
    assert.equal(await theme(), "light");
    await page.click("#page-theme");
    await walk.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    await page.evaluate(() => {
      delete document.documentElement.dataset.theme;
      document.documentElement.className = "coal"; // mdBook's dark theme
    });
    await page.waitForTimeout(200);
    assert.equal(await theme(), "dark", "mdBook's coal is dark");
    await page.evaluate(() => (document.documentElement.className = "rust"));
    await walk.waitForFunction(() => document.documentElement.dataset.theme === "light");
    await page.evaluate(() => (document.documentElement.className = ""));
    await walk.waitForFunction(() => document.documentElement.dataset.theme === undefined);
  });

  test("the plain sandboxed iframe runs with an opaque origin, no storage, and posts its size", async () => {
    assert.equal(await raw.evaluate(() => origin), "null");
    assert.equal(await raw.evaluate(() => { try { return localStorage.length; } catch (e) { return e.name; } }), "SecurityError");
    assert.equal(await stepOf(raw), 28, "the range starts just before the write");
    // Its Theme button is hidden, but theme.js must not throw where storage is refused.
    await raw.evaluate(() => document.getElementById("theme").click());
    const inner = await raw.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
    assert.equal(Number(await page.getAttribute("#raw", "height")), inner);
    await raw.click("#play");
    await page.waitForTimeout(600);
    await raw.click("#play");
    assert.ok((await stepOf(raw)) > 0, "it played");
  });
});
