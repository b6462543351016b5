// Check that the built wasm package instantiates under Node (as the tests load it):
//   node scripts/check-pkg.mjs [www/pkg]
//   node scripts/check-pkg.mjs www/pkg-explore --explorer   (the explorer's worker package:
//     one core, hwscope_bg.wasm, which must export the Explorer)
// Both cores load with the one hwscope.js: hwscope_bg.wasm (the page) and
// hwscope_docs_bg.wasm (documentation figures, which alone export parseDocBlock).
//   node scripts/check-pkg.mjs www/pkg --first   (the page's first core: hwscope_first.js with
//     hwscope_first_bg.wasm, built with feature `first`: it runs a built-in and writes no records)
//   node scripts/check-pkg.mjs www/pkg --docs-first   (the docs figures' first core: hwscope_docs_first.js
//     with hwscope_docs_first_bg.wasm, features `first` and `docs`: it reads a block, has no narration)
// Exits non-zero, with the loader's error, when either does not.
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const explorer = process.argv.includes("--explorer");
const first = process.argv.includes("--first");
const docsFirst = process.argv.includes("--docs-first");
const dir = resolve(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? "www/pkg");
const js = resolve(dir, first ? "hwscope_first.js" : docsFirst ? "hwscope_docs_first.js" : "hwscope.js");
const DOCS_ONLY = ["parseDocBlock"];

/** Instantiates `file` with a fresh copy of the glue; returns the wasm's exports. */
async function check(file) {
  const wasm = resolve(dir, file);
  const pkg = await import(`${pathToFileURL(js).href}?${file}`);
  const bytes = readFileSync(wasm);
  pkg.initSync({ module: bytes });
  if (typeof pkg.Playground === "function") {
    const p = new pkg.Playground();
    p.free?.();
  }
  const names = WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name);
  console.log(`check-pkg: ${file} instantiates (${(statSync(wasm).size / 1024).toFixed(1)} KiB)`);
  return { pkg, names };
}

/** Fails when `file` links core::unicode::printable (its panic locations name the file). */
function printable(file) {
  if (readFileSync(resolve(dir, file)).includes("unicode/printable.rs")) {
    throw new Error(`${file} links core::unicode::printable (a \`str\` sliced by index in what it runs: use \`.get(range)\` or \`.split_at_checked(at)\`)`);
  }
}

try {
  if (explorer) {
    const core = await check("hwscope_bg.wasm");
    if (typeof core.pkg.Explorer !== "function") throw new Error("hwscope_bg.wasm does not export Explorer (build with --features explore)");
    process.exit(0);
  }
  if (docsFirst) {
    const core = await check("hwscope_docs_first_bg.wasm");
    const block = core.pkg.parseDocBlock('seed-walkthrough at=4 title="A check"');
    const p = new core.pkg.Playground();
    const rec = p.configure(block.scenario);
    p.free();
    if (rec.text !== "") throw new Error("hwscope_docs_first_bg.wasm narrates (build it with --features first,docs)");
    printable("hwscope_docs_first_bg.wasm");
    process.exit(0);
  }
  if (first) {
    const core = await check("hwscope_first_bg.wasm");
    const p = new core.pkg.Playground();
    const rec = p.configure(readFileSync(new URL("../scenarios/seed-walkthrough.json", import.meta.url), "utf8"));
    const run = p.extend(100);
    p.free();
    // It writes no step records (the page shows those written at build time: www/core/sim.js
    // lend), and no narration with them (docs/performance.md, tenth pass).
    if (rec !== null) throw new Error("hwscope_first_bg.wasm writes step records (build it with --features first, without docs)");
    if (!(run.steps > 1)) throw new Error("hwscope_first_bg.wasm does not run the scenario");
    if (core.names.includes("decodeLink")) throw new Error("hwscope_first_bg.wasm exports decodeLink, which only the full core has");
    // A `str` indexed by a range (`&s[a..b]`) links the standard library's panic for a
    // cut inside a character, whose message quotes the character as `{:?}`: its Unicode
    // tables and their code, ~3.8 KB gzipped of this core (docs/performance.md, sixth
    // pass). What the first core runs slices strings with `get`.
    printable("hwscope_first_bg.wasm");
    process.exit(0);
  }
  const page = await check("hwscope_bg.wasm");
  const docs = await check("hwscope_docs_bg.wasm");
  // The same for the full core and the docs core (the docs block reader cut its lines
  // by index; docs/performance.md, seventh pass). Both are built from one link: what
  // parseDocBlock alone reaches stays in the page's table, so it counts for both.
  printable("hwscope_bg.wasm");
  printable("hwscope_docs_bg.wasm");
  const exports = Object.keys(page.pkg).filter((k) => k !== "default" && k !== "initSync").sort();
  console.log(`check-pkg: ${dir}: exports ${exports.join(", ") || "none"}; ${DOCS_ONLY.join(", ")} in the docs core only`);
  for (const name of DOCS_ONLY) {
    if (!docs.names.includes(name)) throw new Error(`hwscope_docs_bg.wasm does not export ${name}`);
    if (page.names.includes(name)) throw new Error(`hwscope_bg.wasm exports ${name}, which only documentation figures use`);
  }
} catch (err) {
  console.error(`check-pkg: ${dir} does not load: ${err?.stack ?? err}`);
  process.exit(1);
}
