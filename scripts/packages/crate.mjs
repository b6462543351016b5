// crates.io: `mdbook-hwscope` (the mdBook preprocessor, with hwscope's browser assets
// inside its binary) and `hwscope` (the library and CLI it depends on), packed by
// `cargo package --workspace` into dist-packages/*.crate.
//
// The assets are build outputs, not sources: they are written to mdbook-hwscope/assets/
// (ignored by git; the crate's `include` takes them in) just before packing, and the
// crate's build.rs embeds them. `cargo package` then verifies that each crate builds on
// its own from its .crate (mdbook-hwscope against the packed hwscope, cargo's local
// overlay). HWSCOPE_PACKAGE_VERIFY=0 skips that (the docs-site test builds it anyway).
import { copyFileSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./version.mjs";
import { assets, copyAssets, sh } from "./native.mjs";

/** The crates' manifests must carry the one version (root Cargo.toml); says which does not. */
function checkVersions(version) {
  const toml = readFileSync(join(ROOT, "mdbook-hwscope/Cargo.toml"), "utf8");
  const own = /^version\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const dep = /^hwscope\s*=\s*\{[^}]*version\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  for (const [what, v] of [["version", own], ["its hwscope dependency's version", dep]]) {
    if (v !== version) throw new Error(`mdbook-hwscope/Cargo.toml: ${what} is ${v}, the packages' version is ${version} (root Cargo.toml): make them equal`);
  }
}

export async function build({ out, version }) {
  checkVersions(version);
  copyAssets(await assets({ out, version }), join(ROOT, "mdbook-hwscope/assets"));
  const verify = process.env.HWSCOPE_PACKAGE_VERIFY === "0" ? ["--no-verify"] : [];
  sh("cargo", ["package", "--workspace", "--allow-dirty", "--quiet", ...verify]);
  const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
  const made = [];
  for (const name of ["hwscope", "mdbook-hwscope"]) {
    const file = `${name}-${version}.crate`;
    copyFileSync(join(target, "package", file), join(out, file));
    made.push(`${join(out, file)} (${(statSync(join(out, file)).size / 1024).toFixed(0)} KB)`);
  }
  return made;
}
