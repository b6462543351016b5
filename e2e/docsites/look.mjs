// Screenshots of each tool's built fixture page, to look at: light and dark,
// 1280 and 360 px wide, static (JavaScript off) and live.
//
//   node e2e/docsites/look.mjs [mdbook|mkdocs|mkdocs-material|hugo|docusaurus ...]   # PNGs in e2e/out/docsites/
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, ROOT } from "../helpers.mjs";
import { eachBuiltSite } from "./site.mjs";
import { darkMode } from "./modes.mjs";

const OUT = join(ROOT, "e2e/out/docsites");
mkdirSync(OUT, { recursive: true });
const tools = process.argv.slice(2).length ? process.argv.slice(2) : ["mdbook", "mkdocs", "mkdocs-material", "hugo", "docusaurus"];
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
for await (const { name, site, srv } of eachBuiltSite(tools)) {
  for (const [w, hgt] of [[1280, 900], [360, 740]]) {
    for (const mode of ["light", "dark"]) {
      for (const js of [false, true]) {
        const ctx = await browser.newContext({ viewport: { width: w, height: hgt }, javaScriptEnabled: js, colorScheme: mode });
        const page = await ctx.newPage();
        await page.goto(`${srv.url}/${site.page}`);
        if (js) {
          await darkMode(page, name, mode === "dark");
          const figs = page.locator("figure.hwscope-figure");
          for (let i = 0; i < (await figs.count()); i++) {
            await figs.nth(i).scrollIntoViewIfNeeded();
            await page.waitForFunction((k) => ["live", "error"].includes(document.querySelectorAll("figure.hwscope-figure")[k]?.dataset.hwscopeLive) || !document.querySelectorAll("figure.hwscope-figure")[k], i, { timeout: 10000 }).catch(() => {});
          }
          await page.evaluate(() => scrollTo(0, 0));
          await page.waitForTimeout(300);
        }
        const file = join(OUT, `${name}-${w}-${mode}-${js ? "live" : "static"}.png`);
        await page.screenshot({ path: file, fullPage: true });
        console.log(file);
        await ctx.close();
      }
    }
  }
}
await browser.close();
