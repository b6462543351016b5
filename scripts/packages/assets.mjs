// The browser assets every package ships (npm, PyPI, crates.io, Hugo): what
// `npm run dist:docs` writes (auto.js, the custom element, the page core, the
// stills, the playground the figures link to), built once per process into
// dist-packages/assets/ and stamped with the package version.
//
//   import { browserAssets } from "./assets.mjs";
//   const dir = await browserAssets({ out, version });   // join(out, "assets")
//
// A page loads <where the folder is served>/www/embed/auto.js; every other file
// is found relative to it. hwscope-assets.json says which version the folder is,
// so a plugin can name a mismatch (see docs/embedding.md, "Versions").
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./version.mjs";

export const STAMP = "hwscope-assets.json";
let built = null;

/** The assets folder (absolute path), built on the first call of the process. */
export async function browserAssets({ out, version }) {
  const dir = join(out, "assets");
  if (built === dir) return dir;
  if (!existsSync(join(ROOT, "www/pkg/hwscope_bg.wasm"))) {
    console.log("packages: assets: www/pkg is missing, running npm run build");
    execFileSync("bash", ["scripts/build-wasm.sh"], { cwd: ROOT, stdio: "inherit" });
  }
  execFileSync(process.execPath, [join(ROOT, "scripts/dist.mjs"), "--docs", "--out", dir], { cwd: ROOT, stdio: "inherit" });
  // Hosting files for a whole site: a docs tool has its own.
  rmSync(join(dir, "_headers"), { force: true });
  rmSync(join(dir, ".nojekyll"), { force: true });
  writeFileSync(join(dir, STAMP), `${JSON.stringify({ name: "hwscope-assets", version })}\n`);
  built = dir;
  return dir;
}

/** The version an assets folder says it is, or null when it has no stamp. */
export function assetsVersion(dir) {
  const file = join(dir, STAMP);
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, "utf8")).version ?? null;
}
