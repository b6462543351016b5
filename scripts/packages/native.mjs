// What the PyPI, crates.io and Hugo builders share (scripts/packages/{pypi,crate,hugo}.mjs):
// the browser assets every docs tool serves, the WASI build of the hwscope CLI (the
// figure renderer inside the wheel), and running a command loudly.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { browserAssets } from "./assets.mjs";
import { ROOT } from "./version.mjs";

/** Runs a command in the checkout; its output goes to the terminal; throws on failure. */
export function sh(cmd, args, opts = {}) {
  execFileSync(cmd, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], ...opts });
}

/** The browser assets folder (scripts/packages/assets.mjs: built once per run, stamped with the version). */
export async function assets({ out, version }) {
  return browserAssets({ out, version });
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
