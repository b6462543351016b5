// The page's first load as a few files for `npm run dist` (the first figure on a
// slow link): www/main.js with every module it imports statically (what draws the
// first stage), www/prefetch.js (index.html's other module script, a few hundred
// bytes), and the two modules main.js loads with the core, www/app.js and
// www/panels/page.js, each with its own static imports, bundled by esbuild into
// www/pkg/page/. On HTTP/1.1 a browser opens 6 connections to a host, so the 20
// modules of the first stage took four round trips (~600 ms at 150 ms) and app.js's
// 20 more another three; bundled, each takes one. main.js and app.js are bundled
// together with code splitting: what both import (the renderer, the status line,
// dom.js: ~10 KB gzipped, once in each before) is one chunk, which main.js imports
// and index.html preloads beside it (`chunks` below). What loads on demand (Learn,
// Explore, Share, Settings, the embed API) stays the module graph it is in www/, as
// does the wasm-bindgen glue (www/pkg/hwscope.js, which the docs figures load too).
// Modules without state of their own (dom.js) may be in two bundles; nothing
// depends on their identity. What prefetch.js imports (the built-ins' keys and steps
// files, the address reader: `SHARED` below) is in prefetch.js's bundle only, which
// exports it: main.js and app.js import it from there (the same file, so the same
// module the async script already ran), not a second copy in the shared chunk.
//
// `new URL("…", import.meta.url)` (the wasm, style sheets, the explorer's worker) and
// the lazy imports are rewritten to name the same files from the bundle's folder;
// dist.mjs then gives every file its hashed name as it does for any reference.
//
//   import { bundlePage, bundleEntry } from "./bundle-page.mjs";
//   const { entry, prefetch, chunks } = await bundlePage(ROOT);   // "www/pkg/page/main.js", …, relative to ROOT
//   const text = await bundleEntry(ROOT, "www/embed/embed.js");   // a host page's entry, one file
//   const { text, inputs } = await bundleModule(ROOT, "www/embed/live.js");   // and what it holds
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { build } from "esbuild";

export const BUNDLE_DIR = "www/pkg/page";
/** Source module -> its bundle in BUNDLE_DIR. */
const BUNDLES = { "www/main.js": "main.js", "www/prefetch.js": "prefetch.js", "www/app.js": "app.js", "www/panels/page.js": "page.js" };
/** prefetch.js's static imports: its bundle exports them, and the other bundles import them
 *  from it (once in the first load, ~2.4 KB gzipped, instead of in prefetch.js and in the chunk). */
const SHARED = ["www/core/options.js", "www/core/first-view.js", "www/pkg/steps.js"];

/** The esbuild plugin: lazy imports and the glue stay separate files, and `new URL("…",
 *  import.meta.url)` names the same file, both written relative to `out` (the folder the
 *  bundle is served from); `bundled` maps a source module to its bundle there, for lazy
 *  imports, and `shared` for static ones (SHARED: from prefetch.js's bundle). */
function pagePlugin(root, out, bundled, shared = new Map()) {
  const posix = (p) => p.split(sep).join("/");
  const fromOut = (abs) => {
    const r = posix(relative(out, abs));
    return r.startsWith(".") ? r : `./${r}`;
  };
  const glue = resolve(root, "www/pkg/hwscope.js");
  return {
    name: "hwscope-page-bundle",
    setup(b) {
      // Lazy imports, and the glue, stay separate files, named from the bundle's folder.
      b.onResolve({ filter: /^\.\.?\// }, (a) => {
        const abs = resolve(a.resolveDir, a.path);
        if (a.kind === "dynamic-import") return { path: bundled.get(abs) ?? fromOut(abs), external: true };
        if (shared.has(abs)) return { path: shared.get(abs), external: true };
        if (abs === glue) return { path: fromOut(abs), external: true };
        return undefined;
      });
      b.onLoad({ filter: /\.m?js$/ }, (a) => {
        const text = readFileSync(a.path, "utf8").replace(/\bnew URL\(\s*(["'])([^"']+)\1\s*,\s*import\.meta\.url\s*\)/g, (whole, q, spec) => {
          if (/^([a-z]+:|\/\/|\/)/i.test(spec)) return whole;
          const to = fromOut(resolve(dirname(a.path), spec));
          return `new URL(${JSON.stringify(spec.endsWith("/") && !to.endsWith("/") ? `${to}/` : to)}, import.meta.url)`;
        });
        return { contents: text, loader: "js" };
      });
    },
  };
}

const ESBUILD = { bundle: true, format: "esm", minify: true, target: "es2022", legalComments: "none", logLevel: "error" };

export async function bundlePage(root) {
  const out = join(root, BUNDLE_DIR);
  const bundled = new Map(Object.entries(BUNDLES).map(([src, name]) => [resolve(root, src), `./${name}`]));
  const plugin = pagePlugin(root, out, bundled);
  rmSync(out, { recursive: true, force: true });
  // prefetch.js alone: it must arrive and run before anything else, with nothing to wait
  // for; it also exports what it imports (SHARED), for main.js and app.js. page.js alone
  // too: of what main.js has, it uses only dom.js (0.4 KB gzipped twice costs less than a
  // third chunk the first stage waits for).
  await build({
    ...ESBUILD,
    stdin: { contents: ['import "./prefetch.js";', ...SHARED.map((m) => `export * from "${posixRel(join(root, "www"), join(root, m))}";`.replace('"', '"./'))].join("\n"), resolveDir: join(root, "www"), sourcefile: "prefetch-bundle.js", loader: "js" },
    outfile: join(out, BUNDLES["www/prefetch.js"]),
    plugins: [plugin],
  });
  await build({ ...ESBUILD, entryPoints: [join(root, "www/panels/page.js")], outfile: join(out, BUNDLES["www/panels/page.js"]), plugins: [plugin] });
  const shared = new Map(SHARED.map((m) => [resolve(root, m), `./${BUNDLES["www/prefetch.js"]}`]));
  // main.js and app.js together, with what both have in a chunk of its own (the
  // renderer, the status line, dom.js…) instead of a copy in each: ~9 KB gzipped less.
  const multi = Object.entries(BUNDLES).filter(([src]) => src === "www/main.js" || src === "www/app.js");
  const r = await build({
    ...ESBUILD,
    entryPoints: multi.map(([src, name]) => ({ in: join(root, src), out: name.replace(/\.js$/, "") })),
    outdir: out,
    splitting: true,
    chunkNames: "chunk-[hash]",
    metafile: true,
    absWorkingDir: root,
    plugins: [pagePlugin(root, out, bundled, shared)],
  });
  // What the entry imports statically: index.html preloads it with the entry.
  const outputs = r.metafile.outputs;
  const key = (p) => posixRel(root, resolve(root, p));
  const entryOut = Object.keys(outputs).find((o) => key(o) === `${BUNDLE_DIR}/main.js`);
  const chunks = [];
  const visit = (o) => {
    for (const i of outputs[o].imports) {
      if (i.kind !== "import-statement" || i.external || chunks.includes(key(i.path))) continue;
      chunks.push(key(i.path));
      visit(i.path);
    }
  };
  visit(entryOut);
  return { entry: `${BUNDLE_DIR}/main.js`, prefetch: `${BUNDLE_DIR}/prefetch.js`, chunks };
}

const posixRel = (root, abs) => relative(root, abs).split(sep).join("/");

/**
 * A host page's entry (www/embed/embed.js, the element; www/embed/auto.js, the docs
 * sites' loader) with its static imports, as text to publish under the entry's own name:
 * a docs page then fetches one file before it creates its figures, not a chain of
 * modules one round trip per level (embed.js's was four: ~600 ms at 150 ms). Its lazy
 * imports and URLs are written relative to the entry's own folder.
 */
export async function bundleEntry(root, src) {
  return (await bundleModule(root, src)).text;
}

/** As bundleEntry, with the modules the bundle holds: {text, inputs} (paths relative to
 *  root). dist.mjs bundles a docs figure's live.js so (one file instead of sixteen
 *  modules, each a request on a slow link) and drops auto.js's preloads of what it holds. */
export async function bundleModule(root, src) {
  const abs = resolve(root, src);
  const plugin = pagePlugin(root, dirname(abs), new Map());
  const r = await build({ ...ESBUILD, entryPoints: [abs], outfile: abs, write: false, allowOverwrite: true, metafile: true, absWorkingDir: root, plugins: [plugin] });
  const inputs = Object.keys(r.metafile.inputs).map((p) => posixRel(root, resolve(root, p)));
  return { text: r.outputFiles[0].text, inputs };
}
