// The page's first load as four files for `npm run dist` (the first figure on a
// slow link): www/main.js with every module it imports statically (what draws the
// first stage), www/prefetch.js (index.html's other module script, a few hundred
// bytes), and the two modules main.js loads with the core, www/app.js and
// www/panels/page.js, each with its own static imports, bundled by esbuild into
// www/pkg/page/. On HTTP/1.1 a browser opens 6 connections to a host, so the 20
// modules of the first stage took four round trips (~600 ms at 150 ms) and app.js's
// 20 more another three; bundled, each takes one. What loads on demand (Learn,
// Explore, Share, the embed API) stays the module graph it is in www/, as does the
// wasm-bindgen glue (www/pkg/hwscope.js, which the docs figures load too). Modules
// without state of their own (the renderer, dom.js) may be in two bundles; nothing
// depends on their identity.
//
// `new URL("…", import.meta.url)` (the wasm, style sheets, the explorer's worker) and
// the lazy imports are rewritten to name the same files from the bundle's folder;
// dist.mjs then gives every file its hashed name as it does for any reference.
//
//   import { bundlePage } from "./bundle-page.mjs";
//   const { entry, prefetch } = await bundlePage(ROOT);   // "www/pkg/page/main.js", …, relative to ROOT
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { build } from "esbuild";

export const BUNDLE_DIR = "www/pkg/page";
/** Source module -> its bundle in BUNDLE_DIR. */
const BUNDLES = { "www/main.js": "main.js", "www/prefetch.js": "prefetch.js", "www/app.js": "app.js", "www/panels/page.js": "page.js" };

export async function bundlePage(root) {
  const out = join(root, BUNDLE_DIR);
  const posix = (p) => p.split(sep).join("/");
  const fromOut = (abs) => {
    const r = posix(relative(out, abs));
    return r.startsWith(".") ? r : `./${r}`;
  };
  const bundled = new Map(Object.entries(BUNDLES).map(([src, name]) => [resolve(root, src), `./${name}`]));
  const glue = resolve(root, "www/pkg/hwscope.js");
  const plugin = {
    name: "hwscope-page-bundle",
    setup(b) {
      // Lazy imports, and the glue, stay separate files, named from the bundle's folder.
      b.onResolve({ filter: /^\.\.?\// }, (a) => {
        const abs = resolve(a.resolveDir, a.path);
        if (a.kind === "dynamic-import") return { path: bundled.get(abs) ?? fromOut(abs), external: true };
        if (abs === glue) return { path: fromOut(abs), external: true };
        return undefined;
      });
      b.onLoad({ filter: /\.m?js$/ }, (a) => {
        const text = readFileSync(a.path, "utf8").replace(/\bnew URL\(\s*(["'])([^"']+)\1\s*,\s*import\.meta\.url\s*\)/g, (whole, q, spec) => {
          if (/^([a-z]+:|\/\/|\/)/i.test(spec)) return whole;
          return `new URL(${JSON.stringify(fromOut(resolve(dirname(a.path), spec)))}, import.meta.url)`;
        });
        return { contents: text, loader: "js" };
      });
    },
  };
  rmSync(out, { recursive: true, force: true });
  for (const [src, name] of Object.entries(BUNDLES)) {
    await build({
      entryPoints: [join(root, src)],
      bundle: true,
      format: "esm",
      outfile: join(out, name),
      minify: true,
      target: "es2020",
      legalComments: "none",
      plugins: [plugin],
      logLevel: "error",
    });
  }
  return { entry: `${BUNDLE_DIR}/main.js`, prefetch: `${BUNDLE_DIR}/prefetch.js` };
}
