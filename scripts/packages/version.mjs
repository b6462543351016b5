// The one place the packages' version comes from: `version` in the root Cargo.toml's
// [package] table (the hwscope crate). Every package built by `npm run packages`
// (npm, PyPI, crates.io, the Hugo module) carries this version, and the browser
// assets inside each of them are stamped with it so a mismatch can be named.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The version in the root Cargo.toml's [package] table. */
export function packageVersion() {
  const toml = readFileSync(join(ROOT, "Cargo.toml"), "utf8");
  const section = toml.split(/^\[/m).find((part) => part.startsWith("package]"));
  const match = section && section.match(/^version\s*=\s*"([^"]+)"/m);
  if (!match) throw new Error("Cargo.toml: no version in the [package] table");
  return match[1];
}
