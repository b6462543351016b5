// npm run dist: the playground as a self-contained static site in dist/, for
// GitHub Pages or any static host (no server code).
//
//   node scripts/dist.mjs [--out DIR]     # needs www/pkg (npm run build)
//   node scripts/dist.mjs --docs --out dist-docs   # npm run dist:docs: the folder a docs site copies
//
// Starting from the entry pages it follows every local reference (HTML src/href,
// ES-module imports, wasm-bindgen's `new URL("…wasm", import.meta.url)`) and
// gives every file it reaches a content-hashed name (app.3f2a9c01de.js), with
// the references rewritten, so those files can be cached forever. Entry points
// keep their names: index.html, docs/embed.html, www/embed/embed.js and
// www/embed.js (the element documentation sites load, at its new and its first
// address), and www/embed/auto.js (the docs sites' one module script). The page's
// first load is bundled first (scripts/bundle-page.mjs: main.js, app.js and
// panels/page.js with what each imports statically, four files in www/pkg/page/
// instead of forty modules: the three and the chunk main.js and app.js share), and
// index.html loads that entry and preloads it with its chunk. It also writes
// _headers (cache and security headers for hosts that read it) and .nojekyll, and
// puts the page's CSP in a <meta> tag for hosts that cannot send headers (GitHub
// Pages). Other scripts and style sheets are minified one file at a time
// (esbuild's transform: what loads on demand keeps its module graph, names and
// lazy imports as in www/); comments are dropped from the HTML.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import { brotliCompressSync, constants as zlib } from "node:zlib";
import { referencePatterns, target, withPreloads } from "./graph.mjs";
import { bundleEntry, bundleModule, bundlePage } from "./bundle-page.mjs";
import { CONTENT_SECURITY_POLICY } from "./serve.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
// --docs: only what a documentation site copies into its static files (auto.js,
// the custom element at both its addresses, and the playground their links open).
const ENTRIES = args.includes("--docs")
  ? ["index.html", "www/embed/embed.js", "www/embed.js", "www/embed/auto.js"]
  : ["index.html", "docs/embed.html", "www/embed/embed.js", "www/embed.js", "www/embed/auto.js", "docs/embedding.md", "docs/behaviors.md", "docs/exactness.md"];
const TEXT = new Set([".html", ".js", ".mjs", ".css", ".svg", ".md", ".json"]);

const OUT = resolve(args.includes("--out") ? args[args.indexOf("--out") + 1] : join(ROOT, "dist"));

const rel = (p) => relative(ROOT, p).split(sep).join("/");
const isFile = (p) => existsSync(p) && statSync(p).isFile();

/** Rewrites each local file reference in `text` to what `map(path)` returns;
 *  other sites, data: URLs, anchors and directories are left alone. */
function rewrite(file, text, map) {
  for (const [, re] of referencePatterns(file)) {
    text = text.replace(re, (whole, spec) => {
      const path = target(file, spec, ROOT);
      if (!path) return whole;
      let next = relative(dirname(file), resolve(ROOT, map(path))).split(sep).join("/");
      if (spec.startsWith("./") && !next.startsWith(".")) next = `./${next}`;
      return whole.replace(spec, next);
    });
  }
  return text;
}

const done = new Map(); // source path -> output path (relative to OUT)
const visiting = new Set();
const immutable = [];

/** Copies a file (after the files it refers to) and returns its name in dist/. */
function emit(path) {
  if (done.has(path)) return done.get(path);
  if (visiting.has(path)) throw new Error(`dist: a reference cycle goes through ${rel(path)}`);
  visiting.add(path);
  const entry = ENTRIES.includes(rel(path));
  let data = readFileSync(path);
  if (TEXT.has(extname(path))) {
    let text = entryBundles.get(rel(path)) ?? data.toString("utf8");
    // The page's modules bundled (scripts/bundle-page.mjs): the entry is one file, with
    // nothing else to preload; the checkout's preload block goes.
    if (rel(path) === "index.html") text = withPreloads(text.replace('src="www/main.js"', `src="${pageBundle.entry}"`).replace('src="www/prefetch.js"', `src="${pageBundle.prefetch}"`), [pageBundle.entry, ...pageBundle.chunks].map((m) => `<link rel="modulepreload" href="${m}">`));
    text = rewrite(path, text, emit);
    if (rel(path) === "index.html") text = withCsp(text);
    data = Buffer.from(minify(path, text));
  }
  let name = rel(path);
  if (!entry) {
    const hash = createHash("sha256").update(data).digest("hex").slice(0, 10);
    const ext = extname(name);
    name = join(dirname(name), `${basename(name, ext)}.${hash}${ext}`).split(sep).join("/");
    immutable.push(name);
  }
  mkdirSync(dirname(join(OUT, name)), { recursive: true });
  writeFileSync(join(OUT, name), data);
  visiting.delete(path);
  done.set(path, name);
  return name;
}

/** The published form of a script, style sheet or page: same behaviour, fewer bytes. */
function minify(path, text) {
  switch (extname(path)) {
    case ".js":
    case ".mjs":
      // The classic bundle is minified when it is built (scripts/standalone.mjs).
      if (path.endsWith("/www/pkg/standalone.js") || rel(path).startsWith("www/pkg/page/")) return text;
      return transformSync(text, { loader: "js", format: "esm", minify: true, target: "es2020", legalComments: "none" }).code;
    case ".css":
      return transformSync(text, { loader: "css", minify: true }).code;
    case ".html":
      return text.replace(/<!--[\s\S]*?-->\n?/g, "");
    default:
      return text;
  }
}

/** The page's CSP as a <meta> tag (frame-ancestors only works as a header). */
function withCsp(html) {
  const policy = CONTENT_SECURITY_POLICY.split("; ").filter((d) => !d.startsWith("frame-ancestors")).join("; ");
  return html.replace(/<meta charset="utf-8">/i, `$&\n<meta http-equiv="Content-Security-Policy" content="${policy}">`);
}

if (!isFile(join(ROOT, "www/pkg/hwscope_bg.wasm"))) {
  console.error("dist: www/pkg is missing: run `npm run build` first");
  process.exit(2);
}
// The classic bundle from the modules as they are now (a second or two), not as the
// last `npm run build` left it: it must be the same page as the modules beside it.
execFileSync(process.execPath, [join(ROOT, "scripts/standalone.mjs")], { stdio: "ignore" });
// The first load as three modules instead of forty (HTTP/1.1: six at a time).
const pageBundle = await bundlePage(ROOT);
// A host page's entries, each one file under its own name (scripts/bundle-page.mjs).
const entryBundles = new Map();
for (const e of ["www/embed/embed.js", "www/embed/auto.js"]) entryBundles.set(e, await bundleEntry(ROOT, e));
// A docs figure's live.js with its static imports (the renderer, the player, the docs
// figures' first core's glue): one file instead of sixteen modules, which on HTTP/1.1's six
// connections came in waves beside the core (docs/performance.md, tenth pass). auto.js's
// preloads of the modules it now holds go: they would be downloaded for nothing.
const live = await bundleModule(ROOT, "www/embed/live.js");
entryBundles.set("www/embed/live.js", live.text);
entryBundles.set("www/embed/auto.js", withoutPreloads(entryBundles.get("www/embed/auto.js"), "www/embed", live.inputs.filter((p) => p !== "www/embed/live.js")));

/** `text` (a bundle in folder `dir`) without its modulepreload entries of `modules`. */
function withoutPreloads(text, dir, modules) {
  for (const m of modules) {
    const spec = relative(join(ROOT, dir), join(ROOT, m)).split(sep).join("/");
    const re = new RegExp(`\\["modulepreload",\\s*new URL\\("${spec.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}",\\s*import\\.meta\\.url\\)\\],?`, "g");
    text = text.replace(re, "");
  }
  return text;
}
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
for (const e of ENTRIES) emit(join(ROOT, e));

writeFileSync(join(OUT, ".nojekyll"), "");
// The pictures an embed shows when it cannot start (www/boot.js, scripts/stills.mjs),
// under their own names: boot.js builds a still's name from the scenario and step.
if (existsSync(join(ROOT, "www/pkg/stills"))) cpSync(join(ROOT, "www/pkg/stills"), join(OUT, "www/pkg/stills"), { recursive: true });
// The wasm, precompressed at brotli's highest quality (12% smaller than what a server
// compressing on the fly spends; seconds of work, done once here): for servers that
// send a file's .br sibling (scripts/serve.mjs, nginx's brotli_static, …).
for (const name of done.values()) {
  if (name.endsWith(".wasm")) writeFileSync(join(OUT, `${name}.br`), brotliCompressSync(readFileSync(join(OUT, name)), { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
}
const headers = [
  "# Netlify / Cloudflare Pages format; GitHub Pages ignores this file.",
  "/*",
  `  Content-Security-Policy: ${CONTENT_SECURITY_POLICY}`,
  "  X-Content-Type-Options: nosniff",
  "  Referrer-Policy: no-referrer",
  "  Access-Control-Allow-Origin: *",
  // Entry points keep their names: revalidate them. (No Cache-Control under /*:
  // hosts combine the values of every rule that matches.)
  ...["/", ...ENTRIES.map((e) => `/${e}`)].flatMap((f) => [f, "  Cache-Control: no-cache"]),
  ...immutable.sort().flatMap((f) => [`/${f}`, "  Cache-Control: public, max-age=31536000, immutable"]),
];
writeFileSync(join(OUT, "_headers"), `${headers.join("\n")}\n`);

let bytes = 0;
for (const name of done.values()) bytes += statSync(join(OUT, name)).size;
console.log(`dist: ${done.size} files (${immutable.length} content-hashed), ${(bytes / 1024).toFixed(1)} KiB, in ${relative(process.cwd(), OUT) || "."}/`);
