// Issue 29, the defects left after the third person-style pass: each as a user meets it,
// in Chromium. Each test failed on the page (or on hwscope svg) before its fix. Needs
// www/pkg (npm run build).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import { assertNoErrors, box, CHROMIUM, CHROMIUM_ARGS, hwscope, launch, openLive, scrubTo } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

const open = (path, viewport) => openLive(env, path, viewport);

const meet = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/** Every log's HW and LEO words, as drawn beside it. */
const logWords = (page) => page.$$eval("#stage g.log-words", (gs) => gs.map((g) => ({
  broker: g.dataset.broker,
  hw: g.querySelector("text.hwt").textContent,
  leo: g.querySelector("text.leot").textContent,
})));

describe("fourth pass: every log says its HW and LEO", () => {
  test("steady-load (five brokers) at 360 px and at 1280 px: each broker's log has both, at every step tried", async () => {
    for (const width of [360, 1280]) {
      const page = await open("/?scenario=steady-load", { width, height: 800 });
      for (const at of [0, 12, 30, 64, 100, 160]) {
        if (at) await scrubTo(page, at);
        const logs = await logWords(page);
        assert.equal(logs.length, 5);
        for (const l of logs) {
          assert.match(l.hw, /^(HW |↑)\d+/, `${width} px, step ${at}: broker ${l.broker}'s HW beside its log`);
          assert.match(l.leo, /^LEO \d+$/, `${width} px, step ${at}: broker ${l.broker}'s LEO beside its log`);
        }
      }
      assertNoErrors(page);
      await page.close();
    }
  });
});

describe("fourth pass: the CLI's stills name the followers as the page does", () => {
  test("hwscope svg: four followers at one offset read as “1–4” or “1 & 2 & 3 & 4”, never “1,2,3,4”; no word over another", async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 800, height: 700 } });
      for (const [name, at, want] of [["steady-load", 0, /^(1–4|1 & 2 & 3 & 4)$/], ["acks-and-min-isr", 0, /^1 & 2$/]]) {
        await page.setContent(`<body style="margin:0">${hwscope(["svg", "--builtin", name, "--at", String(at)])}</body>`);
        const drawn = await page.evaluate(() => {
          const texts = [...document.querySelectorAll("svg text")].filter((t) => t.textContent.trim());
          const boxes = texts.map((t) => ({ t: t.textContent, r: t.getBoundingClientRect() }));
          const over = [];
          for (let i = 0; i < boxes.length; i++) {
            for (let j = i + 1; j < boxes.length; j++) {
              const [a, b] = [boxes[i].r, boxes[j].r];
              if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) over.push(`${boxes[i].t} / ${boxes[j].t}`);
            }
          }
          return { marks: [...document.querySelectorAll("g.fmark text")].map((t) => t.textContent), titles: [...document.querySelectorAll("g.fmark title")].map((t) => t.textContent), over };
        });
        assert.ok(drawn.marks.length > 0, `${name}@${at}: a follower mark is written`);
        assert.ok(!drawn.marks.some((m) => /\d,\d/.test(m)), `${name}@${at}: ${drawn.marks}`);
        assert.ok(drawn.marks.some((m) => want.test(m)), `${name}@${at}: ${drawn.marks}`);
        assert.ok(drawn.titles.every((t) => /^Leader's view of follower \d+: fetch offset \d+(; Leader's view of follower \d+: fetch offset \d+)*$/.test(t)), drawn.titles.join(" | "));
        assert.deepEqual(drawn.over, [], `${name}@${at}: no word drawn over another`);
      }
    } finally {
      await browser.close();
    }
  });
});

describe("fourth pass: a share link after an intervention", () => {
  for (const [name, act] of [["kafka-7128", "partition"], ["zombie-leader", "crash"], ["bounce-inside-session", "partition"]]) {
    test(`${name}: ${act} at step 10, Share › link: at most 2,000 characters, and it reproduces the run exactly`, async () => {
      const page = await open(`/?scenario=${name}`);
      await scrubTo(page, 10);
      await page.click(`[data-iv="${act}"]`);
      await page.waitForFunction(() => /modified/.test(document.getElementById("about").textContent));
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowRight");
      await page.waitForFunction(() => !document.getElementById("share-open").disabled);
      await page.click("#share-open");
      await page.waitForSelector("#share[open]");
      const link = await page.inputValue("#share-link");
      const step = await page.$eval("#status", (s) => s.dataset.step);
      assert.ok(link.length <= 2000, `the link is ${link.length} characters`);
      assert.equal(await page.textContent("#share-msg"), "", "no warning about its length");
      await page.close();
      const other = await open(link.replace(/^http:\/\/[^/]+/, ""));
      await other.waitForSelector("#status .verified:not([hidden]):not(.pending)");
      assert.equal(await other.$eval("#status", (s) => s.dataset.step), step);
      assert.match(await other.textContent("#about"), /modified/);
      assert.equal(await other.isHidden("#notice"), true, "no sentence about the link");
      assertNoErrors(other);
      await other.close();
    });
  }

  test("a link written before (zombie-leader, crash at step 10, its scenario in the z form) still opens, exactly", async () => {
    const page = await open(`/#${OLD_LINK}`);
    await page.waitForSelector("#status .verified:not([hidden]):not(.pending)");
    assert.equal(await page.$eval("#status", (s) => s.dataset.step), "14");
    assert.match(await page.textContent("#about"), /modified/);
    assertNoErrors(page);
    await page.close();
  });
});

describe("fourth pass: the Intervene panel at 360 px", () => {
  test("every select is wide enough for every choice it offers (“the controller”, “every connection”, “on broker 1 (follower)”)", async () => {
    const page = await open("/?scenario=zombie-leader", { width: 360, height: 800 });
    await page.waitForSelector("#iv-b:not([disabled])");
    await page.selectOption("#iv-b", "controller");
    await page.waitForSelector("#iv-channel:not([hidden])");
    const tight = await page.$$eval("#intervene select:not([hidden])", (ss) => ss.map((s) => {
      // The width the select would take to show its widest choice whole.
      const free = s.cloneNode(true);
      free.removeAttribute("id");
      free.style.width = "auto";
      free.style.maxWidth = "none";
      s.after(free);
      const need = free.getBoundingClientRect().width;
      free.remove();
      const r = s.getBoundingClientRect();
      return { id: s.id, has: r.width, need, inside: r.right <= document.documentElement.clientWidth };
    }));
    assert.ok(tight.length >= 5, JSON.stringify(tight));
    for (const s of tight) {
      assert.ok(s.has >= s.need - 0.5, `#${s.id} is ${s.has.toFixed(1)} px, its choices need ${s.need.toFixed(1)}`);
      assert.ok(s.inside, `#${s.id} is on the screen`);
    }
    await page.close();
  });
});

describe("fourth pass: the preset-change notice", () => {
  for (const width of [1280, 360]) {
    test(`${width} px: after Settings › kafka-4.0 › Run the notice hides neither the title nor the status line, and the stage does not move`, async () => {
      const page = await open("/?scenario=kip101-data-loss", { width, height: 800 });
      await page.click("#end");
      await page.waitForFunction(() => Number(document.getElementById("status").dataset.step) > 20);
      await page.click("#settings-open");
      await page.waitForSelector("#settings[open]");
      await page.selectOption("#f-preset", "kafka-4.0");
      await page.click("#settings-run");
      await page.waitForSelector("#notice:not([hidden])");
      await page.waitForTimeout(700);
      assert.equal(await page.isVisible("#notice"), true, "the notice stays until dismissed");
      const notice = await box(page, "#notice");
      for (const sel of ["#status", "#about"]) assert.ok(!meet(notice, await box(page, sel)), `the notice is not over ${sel}`);
      // (The title may take another line, "(under kafka-4.0)": the notice itself takes none.)
      assert.equal(await page.$eval("#notice", (n) => getComputedStyle(n).position), "fixed", "the notice is out of the page's flow");
      const stage = await box(page, "#stage");
      await page.click("#notice button[aria-label=Dismiss]");
      assert.equal((await box(page, "#stage")).y0, stage.y0, "and stays when the notice goes");
      assertNoErrors(page);
      await page.close();
    });
  }
});

const OLD_LINK = "v=1&s=zALABeyJhZnRlcl9zdG9wIjoic2V0dGxlIiwiY29uZmlnIjp7InJlcGxpY2EubGFnLnRpbWUubWF4Lm1zIjo2MDAwfSwiZGVzY3JpcHRpb24iOiJBdCAxIHMgbGVhZGVyIDAgaXMgY3V0IG9mZiBmcm9tIHRoZSBjb250cm9sbGVyIChib3RoIHdheXMpOiBpdHMgaGVhcnRiZWF0cyBubyBsb25nZXIgYXJyaXZlLCBidXQBJQUAFGZvbGxvd2VycyBhbmQgcHJvZHVjAQ4EABFzdGlsbCByZWFjaCBpdC4gVAFtDgAOZmVuY2VzIGl0IDkgcyAB-AEFAU8FAARsYXN0AXkKAAUgdGhhdAFzBwABZAFhBQAQZWxlY3RzIGJyb2tlciAxOwHFAQUBhAEKAAVsZWFybgFWBAEsBAAFZmV0Y2gB6wEGATAIAAMuIEIBCgYABzAgbmV2ZXIBawUABHM6IGkBNQQACnMgb3duIHZpZXcBQgQAAWkBxAEIAWIEAcQCBwABKAGBAwcAEHNbMF0ucm9sZSkgd2hpbGUBJAUABXBhcnRpAfsCBAABJwH0AgkAAmlzAXMEAAFQAZUCBwAMIHAxIChhY2tzPTEpAVwHAAJoYQHMAQkAATABhQEIAAhtZXRhZGF0YQHEAQUADWtlZXBzIHdyaXRpbmcBZwQAA3JlOgFuBQAUem9tYmllIGFja25vd2xlZGdlcyAB0gEEAAF5AS0FAAhlLCBhbG9uZQF9DAABMgF9BwAWYWxsKSBjYW5ub3QgY29tcGxldGUgYQE3BgACIG8BhAEEAAE6AfADBAHVAggBxwIGAAJlcwHJAgYB2wIFAAp5IG1vcmUsIHNvAbEBBQACSFcBzQIHAAZtb3ZlcywBuAEFAAN3aGUBiAMFAAZzaHJpbmsB6QMEAAdzIElTUiB0ATMFAANlbGYBzAIJAc0FEAAFID0gNiAB_QQEAANyZSkBNwUABkFsdGVyUAHdAggB1AIEAARsb3N0AaoBBAHBBQUAB3V0IGxpbmsBswUEAa4CCAABYQGuAgYAA2ZvcgGfBA4AAy4gVwGXAQQB0QMFAANpbmsB_QMEAAtscyBhdCAyMCBzLAGJAwkABidzIG5leAGHBQwABmJyaW5ncwE5BQGeAwkACWl0IG1pc3NlZAF6BQAJYmVjb21lcyBhAbgCCgACb2YB9wQJAAEsAZkFBgHEAgcBRwQABmRpdmVyZwGmAQQABWVwb2NoAbACBAACcmUBggYGAAVvZyBkZQHNBAQBywIHAAh0cnVuY2F0ZQGAAQYBwAQGAa4DBgAGcyBvbmx5AX8EAARoYWQuARsIAARwZXJtAUkEAbwGBQAGbG9zczsgAYYHBQG2AgUABnJlY29yZAHFAgQABG5hbWUBqAMFAXgFABogaGFwcGVucy4iLCJldmVudHMiOlt7ImF0XwHfCAQAAzAsIgHaBwcBhgkEAeUHCAAIIjoicDEiLCIBVAYABXMiOjF9AQ0EAARwZWF0AScEAAljb3VudCI6MjABUgUAAnJ5AUoFAAExAakJBAACfSwBWgkAAjUwAVwaAAEyAVwhAAEzAVsMAYQKBQFbCwFrBAACLCIBlgcJATcEAAtiZXR3ZWVuIjpbMAHXCgUBjgkHAAIiXQE4DAACMjABOQUBnQQEATQpAccBBQASYXRfc3RlcCI6MTEsImNyYXNoAUAFAYQEBQHBAQQACH1dLCJmb3JtAcMBBAABMQH2AQkAAXIB6gIHAAJjawG0AQQABCwiaWQB2AIKAAVxdWVzdAGdBgUAA291dAHpCwUAATMBnQEEAXkFATAFAAUiYWxsIgE0CAGwAgYBNBgAA10sIgHZDAQAAV8B5gEIAAE0AeYBBQACdGkB5AwEAAM6IloBzwgGAbgJBgABOgGoDBwAASwB1wcFAZoKBwHcBwcBOAUAA3MifQ&at=14&h=6d0f806f3abefc9b";

describe("fourth pass: item 4 again, at 1280 × 800 Intervene is in view for every built-in", () => {
  test("the whole Intervene panel is above the fold at load, the tall runs (elr, zombie-leader, steady-load) included", async () => {
    const names = await (async () => {
      const page = await open("/");
      await page.waitForFunction(() => document.querySelectorAll("#scenario option[value]").length >= 18);
      const list = await page.$$eval("#scenario option[value]", (os) => os.map((o) => o.value).filter((v) => /^[a-z0-9-]+$/.test(v)));
      await page.close();
      return list;
    })();
    assert.ok(names.length >= 18, names.join());
    const below = [];
    for (const name of names) {
      const page = await open(`/?scenario=${name}`, { width: 1280, height: 800 });
      const r = await box(page, "#intervene");
      if (!(r.y0 >= 0 && r.y1 <= 800.5 && r.y1 > r.y0)) below.push(`${name}: ${Math.round(r.y0)}–${Math.round(r.y1)}`);
      await page.close();
    }
    assert.deepEqual(below, [], "Intervene below the fold");
  });
});

describe("fourth pass: item 10 again, axe on an embed at 360 px", () => {
  test("steady-load's embed at 360 px: its caption scrolls and can be reached by keyboard; no finding at any impact", async () => {
    const { axeFindings } = await import("./a11y-findings.mjs");
    const page = await open("/?embed=1&scenario=steady-load#at=30", { width: 360, height: 800 });
    await page.waitForTimeout(500);
    assert.deepEqual(await axeFindings(page), []);
    await page.close();
  });
});
