// axe-core's findings on a page as it is now (any impact), as lines: for the person-style
// tests and e2e/a11y.test.mjs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.mjs";

const AXE = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");

/** Every finding of axe-core on the page as it is now (any impact), as lines. */
export async function axeFindings(page, { include } = {}) {
  // page.evaluate runs outside the page's CSP, which would refuse an inline script.
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(AXE);
  const results = await page.evaluate(async (include) => {
    const r = await window.axe.run(include ? { include: [include] } : document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary.replace(/\s+/g, " ").slice(0, 220)}`) }));
  }, include ?? null);
  return results.flatMap((v) => v.nodes.slice(0, 4).map((n) => `${v.id} (${v.impact}): ${n}`));
}
