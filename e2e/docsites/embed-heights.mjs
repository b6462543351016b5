// The height the playground's embed (?embed=1, compact controls) takes at
// common widths, per built-in: what an iframe snippet must give it, and what
// <hwscope-playground> reserves before the embed's first resize message.
//
//   node e2e/docsites/embed-heights.mjs
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, ROOT } from "../helpers.mjs";
import { startServer } from "../../scripts/serve.mjs";

const WIDTHS = [320, 360, 480, 640, 800, 1000];
const srv = await startServer({ port: 0, root: ROOT });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const page = await browser.newPage();
const names = await (async () => {
  await page.goto(`${srv.url}/?embed=1`);
  await page.waitForSelector("#status[data-step]");
  return page.$$eval("#scenario option", (o) => o.map((x) => x.value).filter(Boolean));
})();
console.log(`scenario                     ${WIDTHS.map((w) => String(w).padStart(5)).join(" ")}   (CSS px of height at each width)`);
const worst = new Map();
for (const name of names) {
  const row = [];
  for (const w of WIDTHS) {
    await page.setViewportSize({ width: w, height: 400 });
    await page.goto(`${srv.url}/?embed=1&scenario=${name}#at=0`);
    await page.waitForSelector("#status[data-step]");
    // Play it through its first steps: the ruler and the consumers grow the stage.
    const h = await page.evaluate(async () => {
      let max = 0;
      for (let i = 0; i < 60; i++) {
        document.getElementById("fwd").click();
        await new Promise((r) => requestAnimationFrame(r));
        max = Math.max(max, Math.ceil(document.body.getBoundingClientRect().height));
      }
      return max;
    });
    row.push(h);
    worst.set(w, Math.max(worst.get(w) ?? 0, h));
  }
  console.log(`${name.padEnd(28)} ${row.map((h) => String(h).padStart(5)).join(" ")}`);
}
console.log(`${"most".padEnd(28)} ${WIDTHS.map((w) => String(worst.get(w)).padStart(5)).join(" ")}`);
await browser.close();
await srv.close();
