// What the PyPI, crates.io and Hugo builders share (scripts/packages/{pypi,crate,hugo}.mjs):
// the browser assets every docs tool serves, the WASI build of the hwscope CLI (the
// figure renderer inside the wheel), and running a command loudly.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./version.mjs";

/** Runs a command in the checkout; its output goes to the terminal; throws on failure. */
export function sh(cmd, args, opts = {}) {
  execFileSync(cmd, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], ...opts });
}

/**
 * The browser assets folder (auto.js, the custom element, the page core, the stills,
 * `hwscope-assets.json` with the version), built once per run: pkg-npm's
 * scripts/packages/assets.mjs when it is there, else `scripts/dist.mjs --docs`.
 */
let assetsBuilt = null;
export async function assets({ out, version }) {
  const shared = join(ROOT, "scripts/packages/assets.mjs");
  if (existsSync(shared)) {
    const { browserAssets } = await import(pathToFileURL(shared).href);
    return browserAssets({ out, version });
  }
  const dir = join(out, "assets");
  if (assetsBuilt === dir) return dir;
  assetsBuilt = dir;
  if (!existsSync(join(ROOT, "www/pkg/hwscope_docs_bg.wasm"))) sh("npm", ["run", "build"]);
  rmSync(dir, { recursive: true, force: true });
  sh(process.execPath, ["scripts/dist.mjs", "--docs", "--out", dir], { stdio: "ignore" });
  for (const f of ["_headers", ".nojekyll"]) rmSync(join(dir, f), { force: true });
  writeFileSync(join(dir, "hwscope-assets.json"), `${JSON.stringify({ name: "hwscope-assets", version })}\n`);
  return dir;
}

/** Copies the assets folder's contents to `to` (emptied first). */
export function copyAssets(from, to) {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  cpSync(from, to, { recursive: true });
}

/**
 * The hwscope CLI built for WASI (wasm32-wasip1), release: one file that any WASI
 * runtime runs (wasmtime in the wheel). Built once; returns its path.
 */
let wasiBuilt = null;
export function wasiCli() {
  if (wasiBuilt) return wasiBuilt;
  sh("rustup", ["target", "add", "wasm32-wasip1"], { stdio: "ignore" });
  // The page's wasm trades speed for size at opt-level 2; figures at build time are small work: "s".
  sh("cargo", ["build", "--release", "--bin", "hwscope", "--target", "wasm32-wasip1"], {
    env: { ...process.env, CARGO_PROFILE_RELEASE_OPT_LEVEL: process.env.WASI_OPT_LEVEL ?? "s" },
  });
  wasiBuilt = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "wasm32-wasip1/release/hwscope.wasm");
  return wasiBuilt;
}
