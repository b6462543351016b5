// Issue 29, sixth pass: NOT_ENOUGH_REPLICAS_AFTER_APPEND on the stage and in the
// min-insync tour, Compare's chart at 360 px, and what a walk through the person-pass
// items still found. Each test failed before its fix. Needs www/pkg (npm run build).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { axeFindings } from "./a11y-findings.mjs";
import { assertNoErrors, cliTrace, launch, openLive } from "./helpers.mjs";

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

const card = (page) => page.$eval(".tour", (t) => ({ ...t.dataset, shown: Number(document.getElementById("status").dataset.step), text: t.querySelector(".beat-body").textContent, title: t.querySelector(".beat-title")?.textContent }));

describe("sixth pass: NOT_ENOUGH_REPLICAS_AFTER_APPEND on the stage", () => {
  for (const width of [1280, 360]) {
    test(`${width} px: under kafka-2.8 the write answered with it is marked on p-all with the error, and stays marked while it waits to be sent again`, async () => {
      const page = await env.open("/?tour=min-insync&level=junior&beat=after-append", { viewport: { width, height: width > 600 ? 800 : 740 }, until: ["html[data-boot=live]", ".tour[data-beat]"] });
      const c = await card(page);
      assert.equal(c.preset, "kafka-2.8");
      const recs = cliTrace(["--builtin", "acks-and-min-isr", "--preset", "kafka-2.8"]);
      const at = recs.findIndex((r) => r.event?.type === "produce_response" && r.event.error === "NOT_ENOUGH_REPLICAS_AFTER_APPEND");
      assert.equal(Number(c.step), at, "the beat is the first NOT_ENOUGH_REPLICAS_AFTER_APPEND");
      await page.click('.tour button:has-text("Just show me")');
      await page.waitForFunction((n) => document.getElementById("status").dataset.step === String(n), at);
      for (const n of [at, at + 2]) {
        await page.$eval("#scrub", (el, v) => {
          el.value = String(v);
          el.dispatchEvent(new Event("input", { bubbles: true }));
        }, n);
        await page.waitForFunction((v) => document.getElementById("status").dataset.step === String(v), n);
        const mark = await page.$eval('#stage .perr[data-producer="p-all"]', (g) => {
          const t = g.querySelector("text");
          const r = t.getBoundingClientRect();
          const s = g.ownerSVGElement.getBoundingClientRect();
          const cs = getComputedStyle(t);
          return { text: t.textContent, inside: r.left >= s.left - 0.5 && r.right <= s.right + 0.5, halo: cs.paintOrder.startsWith("stroke") && parseFloat(cs.strokeWidth) >= 2 };
        });
        const batches = recs[n].producers.find((p) => p.id === "p-all").batches.filter((b) => b.attempts > 0 && b.error);
        const records = batches.filter((b) => b.error === batches[0].error).flatMap((b) => b.records);
        const named = records.length === 1 ? `${records[0]} ` : `(${records[0]}.*|${records.length} records )`;
        assert.match(mark.text, new RegExp(`^${named}✗ ${batches[0].error}$`), `step ${n}: ${mark.text}`);
        assert.ok(mark.inside, `step ${n}: the mark is on the stage`);
        // Messages' arrows pass under it (zombie-leader at 360 px): a halo keeps it readable, as the messages' labels.
        assert.ok(mark.halo, `step ${n}: the mark has a halo`);
        // The partition under min ISR: the leader's tag, and the status line.
        assert.ok(await page.$('#stage .broker[data-under-min-isr="2"]'), "the leader is tagged under min ISR");
      }
      assertNoErrors(page);
      await page.close();
    });
  }
});

describe("sixth pass: the min-insync tour asks which error comes", () => {
  for (const level of ["junior", "principal"]) {
    test(`${level}: the kafka-2.8 beat asks before the answer, shows the step before, then reveals NOT_ENOUGH_REPLICAS_AFTER_APPEND from the run`, async () => {
      const page = await env.open(`/?tour=min-insync&level=${level}&beat=after-append`, { until: ["html[data-boot=live]", ".tour[data-beat]"] });
      const c = await card(page);
      assert.equal(c.preset, "kafka-2.8");
      assert.equal(c.state, "ask");
      assert.equal(c.shown, Number(c.step) - 1, "the question is asked on the step before");
      const choices = await page.$$eval(".tour form.quiz input[type=radio]", (xs) => xs.map((x) => x.value));
      assert.ok(choices.includes("NOT_ENOUGH_REPLICAS") && choices.includes("NOT_ENOUGH_REPLICAS_AFTER_APPEND"), choices.join());
      const ask = await page.textContent(".tour form.quiz legend");
      const recs = cliTrace(["--builtin", "acks-and-min-isr", "--preset", "kafka-2.8"]);
      const rec = recs[Number(c.step)];
      assert.match(ask, new RegExp(`${rec.event.to}'s acks=all write ${rec.event.records.join(", ")}`));
      assert.match(ask, new RegExp(`ISR \\{${rec.partition.isr.join(", ")}\\}`));
      await page.check('.tour form.quiz input[value="NOT_ENOUGH_REPLICAS"]');
      await page.click('.tour form.quiz button[type="submit"]');
      await page.waitForSelector(".tour .quiz-result");
      const result = await page.$eval(".tour .quiz-result", (r) => ({ ...r.dataset, text: r.textContent }));
      assert.equal(result.expected, rec.event.error);
      assert.equal(result.right, "false");
      assert.match(result.text, /checked before the append/);
      const after = await card(page);
      assert.equal(after.shown, Number(c.step), "the reveal shows the beat's step");
      assert.match(after.text, new RegExp(`${rec.event.to} is told NOT_ENOUGH_REPLICAS_AFTER_APPEND`));
      if (level === "principal") assert.match(after.text, /KAFKA-15583/);
      assertNoErrors(page);
      await page.close();
    });
  }
});

describe("sixth pass: Compare's chart at 360 px", () => {
  test("the time cursor's label stays on the chart at the end of the runs", async () => {
    const page = await openLive(env, "/?view=compare", { width: 360, height: 740 });
    await page.waitForSelector(".view-compare svg.chart .cur text");
    await page.$eval(".view-compare .cmp-scrub", (el) => {
      el.value = el.max;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await page.waitForTimeout(200);
    const cut = await page.$$eval(".view-compare svg.chart", (svgs) => svgs.map((s) => {
      const t = s.querySelector(".cur text").getBoundingClientRect();
      const r = s.getBoundingClientRect();
      return { label: s.querySelector(".cur text").textContent, over: Math.round(t.right - r.right), under: Math.round(r.left - t.left) };
    }));
    for (const x of cut) assert.ok(x.over <= 0 && x.under <= 0, `“${x.label}” runs off its chart: ${JSON.stringify(x)}`);
    assertNoErrors(page);
    await page.close();
  });
});

describe("sixth pass: the end of a tour counts what a deeper level adds", () => {
  test("min-insync at the junior level: the middle level adds one beat, and the button says “1 more beat”", async () => {
    const page = await env.open("/?tour=min-insync&level=junior&beat=after-append", { until: ["html[data-boot=live]", ".tour[data-beat]"] });
    await page.click('.tour button:has-text("Just show me")');
    const deeper = await page.waitForSelector('.tour button[data-deeper="middle"]');
    assert.match(await deeper.textContent(), /\(1 more beat\)$/);
    assertNoErrors(page);
    await page.close();
  });
});

describe("sixth pass: Settings shows a built-in's whole title", () => {
  test("1280 × 800, kip101-data-loss: the Title field spans the dialog and its text is not cut", async () => {
    const page = await openLive(env, "/?scenario=kip101-data-loss");
    await page.click("#settings-open");
    const input = await page.waitForSelector('.field[data-key="title"] input');
    const fit = await input.evaluate((i) => ({ value: i.value, fits: i.scrollWidth <= i.clientWidth + 1 }));
    assert.ok(fit.fits, `“${fit.value}” is cut in its field`);
    assertNoErrors(page);
    await page.close();
  });
});

describe("sixth pass: axe on a leader tagged under min ISR at 360 px", () => {
  test("acks-and-min-isr at step 102 (kafka-4.0) and the min-insync tour's kafka-2.8 beat: the header's words are in its name; no finding, light and dark", async () => {
    for (const theme of ["light", "dark"]) {
      for (const path of [`/?scenario=acks-and-min-isr&theme=${theme}#at=102`, `/?tour=min-insync&level=junior&beat=after-append&theme=${theme}`]) {
        const page = await env.open(path, { viewport: { width: 360, height: 740 }, until: ["html[data-boot=live]", "#status[data-step]"] });
        await page.waitForSelector('#stage .broker[data-under-min-isr="2"]');
        await page.waitForTimeout(300);
        assert.deepEqual(await axeFindings(page), [], `${path}`);
        await page.close();
      }
    }
  });
});
