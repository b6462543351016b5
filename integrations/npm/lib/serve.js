// The package's browser assets for a dev server (Vite's, Astro's): a connect-style
// middleware answering <base>hwscope/… from static/hwscope/, so nothing is copied
// into the site. Builds copy the folder into the output instead (copyAssets).
import { cpSync, createReadStream, existsSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { ASSETS_DIR } from "./assets.js";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".webp": "image/webp",
};

/** A middleware serving ASSETS_DIR at `${base}hwscope/`. */
export function assetsMiddleware(base = "/") {
  const prefix = `${base.replace(/\/?$/, "/")}hwscope/`;
  return (req, res, next) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (!url.pathname.startsWith(prefix)) return next();
    const file = normalize(join(ASSETS_DIR, decodeURIComponent(url.pathname.slice(prefix.length))));
    if (!file.startsWith(ASSETS_DIR + sep) || !existsSync(file) || !statSync(file).isFile()) return next();
    res.setHeader("Content-Type", TYPES[extname(file)] ?? "application/octet-stream");
    createReadStream(file).pipe(res);
  };
}

/** Copies the assets to `<outDir>/hwscope/` (after a site's build). */
export function copyAssets(outDir) {
  cpSync(ASSETS_DIR, join(outDir, "hwscope"), { recursive: true });
}
