// Issue 29, seventh pass: what a fresh walk through the page (every built-in played,
// crashes, Learn, links, embeds, 360 px, keyboard) still found. Each test failed
// before its fix. Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { axeFindings } from "./a11y-findings.mjs";
import { assertNoErrors, cliTrace, launch } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

describe("seventh pass: a tagged header says LEO and HW in words at 360 px", () => {
  // The first step whose ELR holds a dead broker: its header is tagged, as a live one's.
  const elrOffline = () => {
    const trace = cliTrace(["--builtin", "elr"]);
    const dead = (r, b) => r.replicas.some((x) => x.broker === b && !x.alive);
    const rec = trace.find((r) => (r.partition.elr ?? []).some((b) => dead(r, b)));
    assert.ok(rec, "the elr built-in's ELR holds a dead broker at some step");
    return rec.step;
  };
  for (const [name, label, step] of [["acks-and-min-isr", "step 102", () => 102], ["elr", "step 112", () => 112], ["elr", "where its ELR holds a dead broker", elrOffline]]) {
    test(`${name} ${label}: every tagged header keeps “LEO n” and “HW n”, its tag apart from its words and inside its box`, async () => {
      const at = step();
      const page = await env.open(`/?scenario=${name}#at=${at}`, { viewport: { width: 360, height: 740 }, until: ["html[data-boot=live]", "#status[data-step]"] });
      await page.waitForSelector("#stage .broker[data-elr]");
      const heads = await page.$$eval("#stage .broker[data-elr]", (gs) => gs.map((g) => {
        const box = g.querySelector("rect").getBoundingClientRect();
        const tag = g.querySelector(".elr-tag rect").getBoundingClientRect();
        const words = [...g.children].filter((c) => c.tagName === "text" && c.textContent.trim()).map((t) => {
          const r = t.getBoundingClientRect();
          return { text: t.textContent.trim(), x1: r.right, y0: r.top, y1: r.bottom };
        });
        const hits = words.filter((w) => w.x1 > tag.left + 0.5 && w.y1 > tag.top + 0.5 && w.y0 < tag.bottom - 0.5).map((w) => w.text);
        const inside = tag.left >= box.left && tag.right <= box.right && tag.top >= box.top && tag.bottom <= box.bottom;
        return { tag: g.dataset.elr, lines: words.map((w) => w.text), hits, inside };
      }));
      assert.ok(heads.length > 0);
      for (const h of heads) {
        assert.ok(h.lines.some((l) => /^LEO \d+$/.test(l)), `${h.tag}: the LEO line says LEO: ${h.lines}`);
        assert.ok(h.lines.some((l) => /^HW \d+$/.test(l)), `${h.tag}: the HW line says HW: ${h.lines}`);
        assert.deepEqual(h.hits, [], `${h.tag}: no word under the tag`);
        assert.ok(h.inside, `${h.tag}: the tag is inside the header`);
      }
      assertNoErrors(page);
      await page.close();
    });
  }
});

describe("seventh pass: a built-in with a setting changed keeps its name in a link", () => {
  for (const crash of [false, true]) {
    test(`Settings › replica.fetch.wait.max.ms 100${crash ? ", then a crash" : ""}: the page the link opens says “(with replica.fetch.wait.max.ms = 100)” as the page that made it did`, async () => {
      const page = await env.open("/?scenario=idle-partition-lag", { until: ["html[data-boot=live]", "#status[data-step]"] });
      await page.click("#settings-open");
      await page.waitForSelector("#f-config-replica_fetch_wait_max_ms");
      await page.fill("#f-config-replica_fetch_wait_max_ms", "100");
      await page.click("#settings-run");
      await page.waitForFunction(() => document.getElementById("about").textContent.includes("(with replica.fetch.wait.max.ms = 100)"));
      if (crash) {
        await page.click('#iv-crash, button:has-text("Crash")');
        await page.waitForFunction(() => document.getElementById("about").textContent.includes("modified by an intervention"));
      }
      await page.waitForFunction(() => location.hash.includes("&at="));
      const said = async (p) => ({
        about: await p.$eval("#about", (a) => a.textContent),
        picked: await p.$eval("#scenario", (s) => ({ value: s.value, text: s.selectedOptions[0]?.textContent })),
        title: await p.title(),
      });
      const made = await said(page);
      // The link is the address (Share copies the same): opened in a new page, as someone it was sent to would.
      const other = await env.open(`/${new URL(page.url()).hash}`, { until: ["html[data-boot=live]", "#status[data-step]"] });
      await other.waitForFunction(() => document.getElementById("status").textContent.includes("link reproduced exactly"));
      const opened = await said(other);
      assert.equal(opened.picked.value, "idle-partition-lag", `the picker names the built-in: ${opened.picked.text}`);
      assert.match(opened.picked.text, /\(with replica\.fetch\.wait\.max\.ms = 100\)/);
      assert.match(opened.about, /\(with replica\.fetch\.wait\.max\.ms = 100\)/);
      assert.match(opened.about, /This run changes the built-in \(with replica\.fetch\.wait\.max\.ms = 100\), so it may go otherwise than the text says/);
      assert.deepEqual(opened, made);
      assertNoErrors(page);
      assertNoErrors(other);
      await page.close();
      await other.close();
    });
  }
});

describe("seventh pass: Tab stops only where a ring can be seen", () => {
  test("the page, Tab through every stop: none is the screen readers' copy of the narration (1 px, clipped), each is at least 4 px each way", async () => {
    const page = await env.open("/", { until: ["html[data-boot=live]", "#status[data-step]"] });
    const stops = [];
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press("Tab");
      const s = await page.evaluate(() => {
        const e = document.activeElement;
        const r = e.getBoundingClientRect();
        return { id: `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}`, w: r.width, h: r.height };
      });
      if (s.id === "body") break;
      stops.push(s);
    }
    assert.ok(stops.length > 20, `${stops.length} stops`);
    assert.ok(!stops.some((s) => s.id === "div#live"), "#live (sr-only) takes no Tab stop");
    for (const s of stops) assert.ok(s.w >= 4 && s.h >= 4, `${s.id} is ${s.w}×${s.h}`);
    // An embed's caption (?controls with text) still scrolls from the keyboard.
    const embed = await env.open("/?embed=1&scenario=kip101-data-loss#at=20", { viewport: { width: 360, height: 700 }, until: ["html[data-boot=live]", "#status[data-step]"] });
    assert.equal(await embed.$eval("#live", (l) => l.tabIndex), 0);
    assertNoErrors(page);
    assertNoErrors(embed);
    await page.close();
    await embed.close();
  });
});

describe("seventh pass: Esc and ✕ close Learn, Explore and the views, and the keyboard stays near", () => {
  const focused = (page) => page.evaluate(() => {
    const e = document.activeElement;
    return e.id ? `#${e.id}` : e.dataset.tour ? `tour:${e.dataset.tour}` : e.dataset.view ? `view:${e.dataset.view}` : e.tagName.toLowerCase();
  });
  test("Esc in Learn and in Explore closes the panel and gives the focus to its button; ✕ of Explore, of a tour and of a view hand it on too", async () => {
    const page = await env.open("/", { until: ["html[data-boot=live]", "#status[data-step]"] });
    for (const [open, panel] of [["#learn-open", "#learn"], ["#explore-open", "#explore"]]) {
      await page.focus(open);
      await page.keyboard.press("Enter");
      await page.waitForFunction((sel) => document.querySelector(sel) && !document.querySelector(sel).hidden && document.querySelector(sel).contains(document.activeElement), panel);
      await page.keyboard.press("Tab");
      await page.keyboard.press("Escape");
      assert.equal(await page.$eval(panel, (p) => p.hidden), true, `Esc closes ${panel}`);
      assert.equal(await focused(page), open, `the focus goes back to ${open}`);
    }
    // Explore's ✕ from the keyboard.
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => !document.getElementById("explore").hidden);
    await page.focus('#explore button[aria-label="Close Explore"]');
    await page.keyboard.press("Enter");
    assert.equal(await page.$eval("#explore", (p) => p.hidden), true);
    assert.equal(await focused(page), "#explore-open", "✕ hands the focus to Explore");
    // A tour picked from Learn, closed with its ✕: the focus goes to that tour in the list.
    await page.click("#learn-open");
    await page.waitForSelector('#learn button[data-tour="leo-hw"]');
    await page.click('#learn button[data-tour="leo-hw"]');
    await page.waitForSelector(".tour[data-beat]");
    await page.focus('.tour button[aria-label="Close the tour"]');
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => !document.querySelector(".tour"));
    assert.equal(await focused(page), "tour:leo-hw", "✕ of the tour hands the focus to the tour's button");
    // A view (the tour opened two): its ✕, and Esc inside another.
    await page.waitForSelector('.views button[aria-label="Close Follower lag"]');
    await page.focus('.views button[aria-label="Close Follower lag"]');
    await page.keyboard.press("Enter");
    assert.equal(await focused(page), "view:gauges", "✕ of a view hands the focus to its button in Learn");
    await page.focus('.views button[aria-label="Close Sequence diagram"]');
    await page.keyboard.press("Escape");
    assert.equal(await page.$('.views button[aria-label="Close Sequence diagram"]'), null, "Esc closes the view it is in");
    assert.equal(await focused(page), "view:diagram");
    assert.equal(await page.$eval("#learn", (p) => p.hidden), false, "…and not Learn");
    assertNoErrors(page);
    await page.close();
  });
});

describe("seventh pass: on a phone a beat's text is read from its top", () => {
  test("360 px, hw-lag beat 3: the answer's verdict shows at the top of the sheet after a pick that scrolled it; Next starts the next beat at its top", async () => {
    const page = await env.open("/?tour=hw-lag&level=junior&beat=3", { viewport: { width: 360, height: 740 }, until: ["html[data-boot=live]", ".tour[data-state=ask] form.quiz"] });
    const body = () => page.$eval(".tour .beat-body", (b) => {
      const r = b.getBoundingClientRect();
      const v = b.querySelector(".quiz-result")?.getBoundingClientRect();
      return { top: b.scrollTop, scrolls: b.scrollHeight > b.clientHeight + 1, verdict: v ? v.top >= r.top - 0.5 && v.top < r.bottom : null };
    });
    assert.ok((await body()).scrolls, "the question is longer than the sheet's lines");
    // Picking the last answer scrolls it into view, as a tap or a Tab would.
    await page.click(".tour form.quiz input[type=radio] >> nth=-1");
    await page.$eval(".tour .beat-body", (b) => (b.scrollTop = b.scrollHeight));
    await page.click('.tour form.quiz button[type="submit"]');
    await page.waitForSelector(".tour .quiz-result");
    const shown = await body();
    assert.equal(shown.top, 0, "the revealed beat is read from its top");
    assert.equal(shown.verdict, true, "the verdict (✓ Right / ✗ Not quite) is in view");
    await page.$eval(".tour .beat-body", (b) => (b.scrollTop = b.scrollHeight));
    const title = await page.textContent(".tour .beat-title");
    await page.click('.tour .tour-nav button.primary');
    await page.waitForFunction((t) => document.querySelector(".tour .beat-title").textContent !== t, title);
    assert.equal((await body()).top, 0, "the next beat starts at its top");
    assertNoErrors(page);
    await page.close();
  });
});

describe("seventh pass: Follower lag with no leader", () => {
  test("kip101-data-loss at a step with no live leader: the view says so, and axe finds nothing in it (a list of no gauges is no list)", async () => {
    const recs = cliTrace(["--builtin", "kip101-data-loss"]);
    const at = recs.findIndex((r) => !r.replicas.some((x) => x.role === "leader" && x.alive && x.broker === r.partition.leader));
    assert.ok(at > 0, "the run has a step with no live leader");
    const page = await env.open(`/?scenario=kip101-data-loss&view=gauges#at=${at}`, { until: ["html[data-boot=live]", "#status[data-step]", ".gauges"] });
    await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), at);
    await page.waitForFunction(() => document.querySelector(".gauges").textContent.includes("No leader at this step."));
    assert.deepEqual(await axeFindings(page, { include: ".views" }), []);
    assertNoErrors(page);
    await page.close();
  });
});

describe("seventh pass: Settings opens on the title's first words", () => {
  for (const width of [1280, 360]) {
    test(`${width} px: idle-partition-lag's long title shows from its start in the focused Title field`, async () => {
      const page = await env.open("/?scenario=idle-partition-lag", { viewport: { width, height: 800 }, until: ["html[data-boot=live]", "#status[data-step]"] });
      await page.click("#settings-open");
      await page.waitForSelector("#settings[open] #f-title");
      const t = await page.$eval("#f-title", (i) => ({ focused: document.activeElement === i, left: i.scrollLeft, start: i.selectionStart, overflows: i.scrollWidth > i.clientWidth }));
      assert.ok(t.overflows, "the title is longer than its field");
      assert.equal(t.focused, true);
      assert.equal(t.left, 0, "the field is not scrolled to the title's end");
      assert.equal(t.start, 0);
      assertNoErrors(page);
      await page.close();
    });
  }
});
