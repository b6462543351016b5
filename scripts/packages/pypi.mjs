// PyPI: `mkdocs-hwscope`, one pure-Python wheel (py3-none-any) holding the MkDocs plugin
// and Markdown extension (packages/mkdocs-hwscope/), hwscope's command line built for
// WASI (its figure renderer, run by the `wasmtime` package: no Rust or Node for the
// docs author) and the browser assets. Written by scripts/packages/wheel.py with
// Python's zipfile: no build tool to install.
import { statSync } from "node:fs";
import { join } from "node:path";
import { assets, sh, wasiCli } from "./native.mjs";

export async function build({ out, version }) {
  const dir = await assets({ out, version });
  const wasm = wasiCli();
  sh("python3", ["scripts/packages/wheel.py", "--version", version, "--src", "packages/mkdocs-hwscope", "--wasm", wasm, "--assets", dir, "--out", out], { stdio: ["ignore", "ignore", "inherit"] });
  const wheel = join(out, `mkdocs_hwscope-${version}-py3-none-any.whl`);
  return `${wheel} (${(statSync(wheel).size / 1024).toFixed(0)} KB; the WASI core ${(statSync(wasm).size / 1024).toFixed(0)} KB)`;
}
