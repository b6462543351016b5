// The npm package `hwscope` (dist-packages/hwscope-X.Y.Z.tgz), from integrations/npm/:
//   static/hwscope/   the browser assets (scripts/packages/assets.mjs)
//   node/             the core for Node: the crate with its `node` feature (src/wasm_node.rs),
//                     a wasm package of its own (the page's WebAssembly does not grow)
//   lib/ bin/         hwscope/render, hwscope/assets and the `hwscope` command
//   docusaurus/ vitepress/ astro/   the docs-tool adapters (docs/embedding.md)
//
//   node scripts/packages.mjs npm
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { browserAssets } from "./assets.mjs";
import { ROOT } from "./version.mjs";

const WASM_FEATURES = [
  "--enable-bulk-memory",
  "--enable-bulk-memory-opt",
  "--enable-multivalue",
  "--enable-mutable-globals",
  "--enable-nontrapping-float-to-int",
  "--enable-reference-types",
  "--enable-sign-ext",
];

/** The Node core (wasm-bindgen --target web: ES modules Node imports as they are) into `dir`. */
export function buildNodeCore(dir) {
  const env = { ...process.env, PATH: `${process.env.HOME}/.cargo/bin:${process.env.PATH}`, CARGO_PROFILE_RELEASE_OPT_LEVEL: "2", CARGO_PROFILE_RELEASE_STRIP: "false" };
  execFileSync("cargo", ["build", "--lib", "--target", "wasm32-unknown-unknown", "--release", "--features", "node"], { cwd: ROOT, env, stdio: "inherit" });
  const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
  const wasm = join(target, "wasm32-unknown-unknown/release/hwscope.wasm");
  // Reused while the crate's output has not changed (the cargo build above is then a no-op).
  const cache = join(target, "pkg-node");
  const stamp = join(cache, "built-from");
  const from = `${statSync(wasm).mtimeMs} ${statSync(wasm).size}`;
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== from) {
    rmSync(cache, { recursive: true, force: true });
    execFileSync("wasm-bindgen", ["--target", "web", "--out-dir", cache, "--out-name", "hwscope", wasm], { cwd: ROOT, env, stdio: "inherit" });
    const bg = join(cache, "hwscope_bg.wasm");
    execFileSync(join(ROOT, "node_modules/.bin/wasm-opt"), [bg, "-o", bg, "-O2", ...WASM_FEATURES, "--strip-debug", "--strip-producers"], { cwd: ROOT, stdio: "inherit" });
    writeFileSync(stamp, from);
  }
  cpSync(cache, dir, { recursive: true, filter: (p) => !/(built-from|\.d\.ts|package\.json|\.gitignore)$/.test(p) });
}

export async function build({ out, version }) {
  const assets = await browserAssets({ out, version });
  const stage = join(out, "npm", "hwscope");
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  cpSync(join(ROOT, "integrations/npm"), stage, { recursive: true });
  writeFileSync(join(stage, "lib/version.js"), `export const VERSION = ${JSON.stringify(version)};\n`);
  const pkg = JSON.parse(readFileSync(join(stage, "package.json"), "utf8"));
  pkg.version = version;
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  cpSync(assets, join(stage, "static/hwscope"), { recursive: true });
  buildNodeCore(join(stage, "node"));
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: stage, encoding: "utf8" }).trim().split("\n").pop();
  return join(out, name);
}
