// Check that the built wasm package instantiates under Node (as the tests load it):
//   node scripts/check-pkg.mjs [www/pkg]
// Exits non-zero, with the loader's error, when it does not.
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const dir = resolve(process.argv[2] ?? "www/pkg");
const js = resolve(dir, "hwscope.js");
const wasm = resolve(dir, "hwscope_bg.wasm");

try {
  const pkg = await import(pathToFileURL(js).href);
  pkg.initSync({ module: readFileSync(wasm) });
  const exports = Object.keys(pkg).filter((k) => k !== "default" && k !== "initSync").sort();
  if (typeof pkg.Playground === "function") {
    const p = new pkg.Playground();
    p.free?.();
  }
  const kb = (statSync(wasm).size / 1024).toFixed(1);
  console.log(`check-pkg: ${dir} instantiates (${kb} KiB wasm; exports: ${exports.join(", ") || "none"})`);
} catch (err) {
  console.error(`check-pkg: ${dir} does not load: ${err?.stack ?? err}`);
  process.exit(1);
}
