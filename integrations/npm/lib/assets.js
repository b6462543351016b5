// Where the package's browser assets are (auto.js, the custom element, the core, the
// stills, the playground): a folder to serve as <site>/hwscope/. Reference: docs/embedding.md.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { VERSION } from "./version.js";

/** The folder whose only child is `hwscope/` (a static directory for tools that take one). */
export const STATIC_DIR = fileURLToPath(new URL("../static", import.meta.url));
/** The assets themselves: serve this folder's contents at <base>/hwscope/. */
export const ASSETS_DIR = join(STATIC_DIR, "hwscope");
/** The page loads this file (relative to where ASSETS_DIR is served). */
export const AUTO_SCRIPT = "www/embed/auto.js";

/** Throws, naming both, when a folder of assets is missing or is another version than this package. */
export function checkAssets(dir = ASSETS_DIR, { who = "hwscope" } = {}) {
  const stamp = join(dir, "hwscope-assets.json");
  if (!existsSync(join(dir, AUTO_SCRIPT))) throw new Error(`${who}: the hwscope assets are missing: no ${join(dir, AUTO_SCRIPT)}`);
  const found = existsSync(stamp) ? JSON.parse(readFileSync(stamp, "utf8")).version : "unknown (no hwscope-assets.json)";
  if (found !== VERSION) throw new Error(`${who}: the hwscope assets in ${dir} are version ${found}, but this package (hwscope ${VERSION}) needs version ${VERSION}`);
  return dir;
}

export { VERSION };
