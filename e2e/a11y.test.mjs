// Accessibility (issue 13, problem 12; issue 29, fix 10): axe-core in Chromium
// finds no violation at any impact level (minor to critical) on the page (at rest and playing a step with messages),
// an embed, the Learn panel with a tour and its views, and every dialog, in the
// light and the dark theme. axe-core is an npm dev dependency (install-tools.sh).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { axeFindings } from "./a11y-findings.mjs";
import { assertNoErrors, launch } from "./helpers.mjs";

export { axeFindings };

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

async function open(path) {
  const page = await env.open(path);
  await page.waitForSelector("#status[data-step]");
  await page.waitForSelector(".broker[data-broker]");
  return page;
}

describe("problem 12: no axe-core finding at any impact level", () => {
  for (const theme of ["light", "dark"]) {
    test(`the page, ${theme}: at rest, with messages in flight, with a broker picked`, async () => {
      const page = await open(`/?theme=${theme}&scenario=idle-partition-lag`);
      assert.deepEqual(await axeFindings(page), [], "step 0");
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
      await page.click('.broker[data-broker="1"]');
      assert.deepEqual(await axeFindings(page), [], "step 3, broker 1 in the inspector");
      assertNoErrors(page);
      await page.close();
    });

    test(`an embed, ${theme}`, async () => {
      const page = await open(`/?embed=1&theme=${theme}&scenario=seed-walkthrough#at=4`);
      assert.deepEqual(await axeFindings(page), []);
      await page.close();
    });

    test(`the Learn panel with a tour and every view, ${theme}`, async () => {
      const page = await open(`/?theme=${theme}&tour=slow-follower&view=why,gauges,chart,diagram,compare`);
      await page.waitForSelector(".tour[data-beat]");
      await page.waitForSelector(".view-diagram svg .row");
      await page.waitForSelector(".view-chart svg .mk");
      await page.waitForSelector(".view-gauges .gauge");
      assert.deepEqual(await axeFindings(page), []);
      await page.close();
    });

    test(`every dialog, ${theme}`, async () => {
      const page = await open(`/?theme=${theme}`);
      for (const [button, dialog] of [["#share-open", "#share"], ["#help-open", "#help"], ["#settings-open", "#settings"]]) {
        await page.click(button);
        await page.waitForSelector(`${dialog}[open]`);
        assert.deepEqual(await axeFindings(page, { include: dialog }), [], dialog);
        await page.keyboard.press("Escape");
        await page.waitForSelector(`${dialog}:not([open])`, { state: "attached" });
      }
      await page.close();
    });
  }

  test("the documentation page that embeds it", async () => {
    const page = await env.open("/docs/embed.html");
    await page.waitForSelector("hwscope-playground");
    assert.deepEqual(await axeFindings(page), []);
    await page.close();
  });
});
