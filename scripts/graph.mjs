// The page's files as its own references say: what index.html loads at once
// (the first load) and what its scripts load later. One reader of references
// for the tools that need them: preload.mjs (index.html's modulepreload block),
// size-report.mjs (first load and on demand) and dist.mjs (hashed names).
//
// The first load is index.html's style sheets and module scripts, every module
// those import statically, the modules the entry script itself imports
// dynamically (main.js starts the core and app.js at once, so they load in
// parallel), and the files those modules name with `new URL(…, import.meta.url)`
// (the wasm). A dynamic import anywhere else is on demand (Learn, Share, the
// embed API), and so is whatever it imports; so is data named that way (.json:
// a built-in's steps, fetched when the address asks for a later step).
//
// The page's full core (www/pkg/hwscope.js and hwscope_bg.wasm: narration, share
// links, settings) is not part of the first load, wherever it is named: the page
// starts on its first core (hwscope_first*) and fetches the full one once idle
// (app.js), or at once only for a share link, which only the full core reads.
//
// The first stage is the part of the first load the entry imports statically:
// what draws the stage before the core arrives (issue 13). index.html preloads
// exactly that, so nothing else shares the network with it; the entry fetches
// the rest of the first load (the core, app.js) as soon as it runs.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, relative, resolve, sep } from "node:path";

/** Where a file's references are, by kind: [kind, regex whose group 1 is the path]. */
export function referencePatterns(file) {
  switch (extname(file)) {
    case ".html":
      // data-standalone-src: index.html's boot guard names the classic bundle it may load.
      return [["html", /\s(?:src|href|data-standalone-src)="([^"#?]+)(?:[?#][^"]*)?"/g]];
    case ".js":
    case ".mjs":
      return [
        ["static", /\bfrom\s*["']([^"']+)["']/g],
        ["static", /\bimport\s*["']([^"']+)["']/g],
        ["dynamic", /\bimport\(\s*["']([^"']+)["']\s*\)/g],
        ["asset", /\bnew URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url\s*\)/g],
      ];
    case ".css":
      return [["asset", /url\(\s*["']?([^"')]+)["']?\s*\)/g]];
    default:
      return [];
  }
}

const isFile = (p) => existsSync(p) && statSync(p).isFile();
/** The full core's files, hashed (dist) or not: on demand, never the first load. */
const FULL_CORE = /[\/]www[\/]pkg[\/](hwscope\.js|hwscope_bg\.wasm)$/;
const isFullCore = (path) => FULL_CORE.test(path.replace(/\.[0-9a-f]{10}(\.[a-z]+)$/, "$1"));
/** A local file a reference names, or null (other sites, data: URLs, anchors, directories). */
export function target(file, spec, root) {
  if (/^([a-z]+:|\/\/|#|\/)/i.test(spec)) return null;
  const path = resolve(dirname(file), spec);
  return isFile(path) && path.startsWith(resolve(root) + sep) ? path : null;
}

/** A file's references to local files: [{kind, path}]. */
export function references(file, root) {
  const text = readFileSync(file, "utf8");
  const out = [];
  for (const [kind, re] of referencePatterns(file)) {
    for (const m of text.matchAll(re)) {
      const path = target(file, m[1], root);
      if (path) out.push({ kind, path });
    }
  }
  return out;
}

/**
 * The page in `root` (a source tree or one written by dist.mjs), as paths
 * relative to root: `first` (the first load, in the order found), `later`
 * (reachable from it on demand), `scripts` (the entry's module scripts) and
 * `preloads` (what index.html's link rel=modulepreload/preload name).
 */
export function pageGraph(root, page = "index.html") {
  root = resolve(root);
  const rel = (p) => relative(root, p).split(sep).join("/");
  const html = resolve(root, page);
  const text = readFileSync(html, "utf8");
  const scripts = [...text.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => target(html, m[1], root)).filter(Boolean);
  const styles = [...text.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => target(html, m[1], root)).filter(Boolean);
  // Classic scripts (the boot guard, www/boot.js) load at once too.
  const classic = [...text.matchAll(/<script (?:async |defer )?src="([^"]+)"/g)].map((m) => target(html, m[1], root)).filter(Boolean);
  const preloads = [...text.matchAll(/<link rel="(?:modulepreload|preload)" href="([^"]+)"/g)].map((m) => target(html, m[1], root) ?? resolve(dirname(html), m[1]));

  const first = new Set([html, ...styles, ...classic]);
  const later = new Set();
  const lazy = [];
  // The first stage: the entry scripts and what they import statically.
  const stage = new Set();
  const statically = (file) => {
    if (stage.has(file)) return;
    stage.add(file);
    for (const r of references(file, root)) if (r.kind === "static") statically(r.path);
  };
  scripts.forEach(statically);
  /** Adds a module and what it imports statically; its dynamic imports wait in `lazy`. */
  function add(file, into) {
    if (into.has(file) || (into === later && first.has(file))) return;
    into.add(file);
    for (const r of references(file, root)) {
      // Data a module names (www/pkg/steps/*.json) is fetched when the address asks for it.
      if (r.kind === "dynamic" || (r.kind === "asset" && r.path.endsWith(".json")) || isFullCore(r.path)) lazy.push(r.path);
      else add(r.path, into);
    }
  }
  for (const s of scripts) {
    first.add(s);
    // The entry's own dynamic imports start at once: they belong to the first load.
    for (const r of references(s, root)) {
      if ((r.kind === "asset" && r.path.endsWith(".json")) || isFullCore(r.path)) lazy.push(r.path);
      else add(r.path, first);
    }
  }
  for (let i = 0; i < lazy.length; i++) add(lazy[i], later);
  for (const f of first) later.delete(f);
  return {
    first: [...first].map(rel),
    later: [...later].map(rel),
    scripts: scripts.map(rel),
    preloads: preloads.map(rel),
    stage: [...stage].map(rel),
  };
}

/** What loading `entry` (a module, relative to root) fetches before it runs:
 *  the modules it imports statically, transitively, and the files they name
 *  with `new URL(…, import.meta.url)` (style sheets, wasm). Pages named that
 *  way (links) are not followed. Paths relative to root. */
export function moduleClosure(root, entry) {
  root = resolve(root);
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!/\.m?js$/.test(file)) return;
    for (const r of references(file, root)) if (r.kind !== "dynamic" && !r.path.endsWith(".html")) visit(r.path);
  };
  visit(resolve(root, entry));
  return [...seen].map((p) => relative(root, p).split(sep).join("/"));
}

/** The preload lines index.html should have: every module of the first stage, the entry first. */
export function preloadLines(root, page = "index.html") {
  const g = pageGraph(root, page);
  const from = dirname(resolve(root, page));
  const href = (p) => relative(from, resolve(root, p)).split(sep).join("/");
  const modules = g.stage.filter((p) => /\.m?js$/.test(p));
  const ordered = [...g.scripts, ...modules.filter((p) => !g.scripts.includes(p)).sort()];
  return ordered.map((p) => `<link rel="modulepreload" href="${href(p)}">`);
}

const PRELOAD_LINE = /^<link rel="(?:modulepreload|preload)" href="[^"]+"[^>]*>\n/gm;

/** index.html's text with its preload block replaced by `lines` (at the first preload line). */
export function withPreloads(html, lines) {
  const at = html.search(PRELOAD_LINE);
  if (at < 0) throw new Error('index.html has no <link rel="modulepreload"> block to rewrite');
  const rest = html.replace(PRELOAD_LINE, "");
  return `${rest.slice(0, at)}${lines.map((l) => `${l}\n`).join("")}${rest.slice(at)}`;
}

/** What is wrong with index.html's preloads in `root`: {missing, extra} (both empty when right). */
export function checkPreloads(root, page = "index.html") {
  const g = pageGraph(root, page);
  const want = new Set(g.stage.filter((p) => /\.m?js$/.test(p)));
  const have = new Set(g.preloads);
  return { missing: [...want].filter((p) => !have.has(p)), extra: [...have].filter((p) => !want.has(p)) };
}
