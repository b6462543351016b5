// The playground as one classic script with the WebAssembly core inside it:
// www/pkg/standalone.js, for documents with an opaque origin (an
// <iframe sandbox="allow-scripts">), where module scripts and the .wasm are
// cross-origin requests that need CORS headers a plain static host does not
// send, while a classic script needs none (issue 18). www/boot.js loads it there.
//
//   node scripts/standalone.mjs [www/pkg]     # run by scripts/build-wasm.sh
//
// esbuild (already the dist step's minifier) bundles www/embed/standalone.js
// with every module the page can reach, dynamic imports included (one file, no
// code splitting: an iife cannot import), and the core gzipped (level 9) in base64:
// 26% smaller than base64 of the raw module on a host that does not compress,
// and decompressed in the browser by DecompressionStream.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dir = resolve(process.argv[2] ?? join(ROOT, "www/pkg"));
const wasm = readFileSync(join(dir, "hwscope_bg.wasm"));
const packed = gzipSync(wasm, { level: 9 }).toString("base64");

const inlineWasm = {
  name: "hwscope-inline-wasm",
  setup(build) {
    build.onResolve({ filter: /^hwscope:wasm-gzip-base64$/ }, (a) => ({ path: a.path, namespace: "hwscope" }));
    build.onLoad({ filter: /.*/, namespace: "hwscope" }, () => ({ contents: `export default ${JSON.stringify(packed)};`, loader: "js" }));
  },
};

// Every built-in's step 0 in first.js (the page's has the default one's, and fetches
// another's from first/NAME.json: a fetch a sandboxed frame cannot make without CORS),
// without the scenario texts: the bundle's core is the full one, which has them.
const firstDir = join(dir, "first");
const everyFirst = {
  name: "hwscope-every-first",
  setup(build) {
    build.onLoad({ filter: /[\\/]www[\\/]pkg[\\/]first\.js$/ }, (a) => {
      const own = readFileSync(a.path, "utf8");
      const all = Object.fromEntries(readdirSync(firstDir).filter((f) => f.endsWith(".json")).sort().map((f) => [f.slice(0, -5), { ...JSON.parse(readFileSync(join(firstDir, f), "utf8")), json: undefined }]));
      return { contents: `${own.match(/^export const DEFAULT = .*$/m)[0]}\n${own.match(/^export const TITLES = .*$/m)[0]}\nexport default ${JSON.stringify(all)};\n`, loader: "js" };
    });
  },
};

// The page's first core is not in the bundle: the bundle has the full core inside it,
// so main.js never imports the first core's glue here (an empty module in its place).
const noFirstCore = {
  name: "hwscope-no-first-core",
  setup(build) {
    build.onLoad({ filter: /[\\/]www[\\/]pkg[\\/]hwscope_first\.js$/ }, () => ({ contents: "export default null;", loader: "js" }));
  },
};

const out = join(dir, "standalone.js");
const result = await build({
  entryPoints: [join(ROOT, "www/embed/standalone.js")],
  bundle: true,
  format: "iife",
  minify: true,
  target: "es2020",
  legalComments: "none",
  plugins: [inlineWasm, everyFirst, noFirstCore],
  // import.meta.url is only read where the bundle does not go (the fetch of the
  // .wasm, which the inline core replaces); say so instead of warning.
  define: { "import.meta.url": "undefined" },
  banner: { js: "// hwscope: the playground as one classic script (scripts/standalone.mjs), for <iframe sandbox> on any static host." },
  outfile: out,
  write: false,
  logLevel: "error",
});
writeFileSync(out, result.outputFiles[0].contents);
const size = result.outputFiles[0].contents.length;
const gz = gzipSync(result.outputFiles[0].contents, { level: 6 }).length;
console.log(`standalone: ${out} (${(size / 1024).toFixed(1)} KiB, ${(gz / 1024).toFixed(1)} KiB gzipped; the core ${(wasm.length / 1024).toFixed(1)} KiB, ${(packed.length / 1024).toFixed(1)} KiB as gzip+base64)`);
