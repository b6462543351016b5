// npm run packages: every distributable into dist-packages/ (not committed), all at the
// version in the root Cargo.toml (scripts/packages/version.mjs).
//
//   node scripts/packages.mjs            # every package
//   node scripts/packages.mjs npm pypi   # only these builders
//
// Each builder is scripts/packages/<name>.mjs exporting `build({ out, version })`; they run in
// the order of BUILDERS, and later ones may reuse what earlier ones wrote (the wasm is built once).
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, packageVersion } from "./packages/version.mjs";

const BUILDERS = ["npm", "pypi", "crate", "hugo"];

const asked = process.argv.slice(2).filter((a) => !a.startsWith("-"));
for (const name of asked) {
  if (!BUILDERS.includes(name)) {
    console.error(`packages: unknown package "${name}"; the packages are ${BUILDERS.join(", ")}`);
    process.exit(2);
  }
}
const out = join(ROOT, "dist-packages");
mkdirSync(out, { recursive: true });
const version = packageVersion();
for (const name of asked.length ? asked : BUILDERS) {
  const file = join(ROOT, "scripts", "packages", `${name}.mjs`);
  if (!existsSync(file)) {
    console.log(`packages: ${name}: no builder yet (scripts/packages/${name}.mjs)`);
    continue;
  }
  const started = Date.now();
  const { build } = await import(pathToFileURL(file).href);
  const made = await build({ out, version });
  for (const path of [made ?? []].flat()) console.log(`packages: ${name}: ${path}`);
  console.log(`packages: ${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
