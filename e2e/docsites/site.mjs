// Shared by the docs-site tests and measurements: a static server for a built
// site (gzip like a real docs host, no CSP of ours: the tools' pages have
// inline scripts), and the build of each tool's fixture site into a temp folder.
//
//   const srv = await serveSite(dir, { port: 0 });   // srv.url, srv.close()
//   const dir = buildSite("mdbook", { onError: "show" });
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { createGzip } from "node:zlib";
import { MIME_TYPES } from "../../scripts/serve.mjs";
import { ROOT } from "../helpers.mjs";
import { freshSite, siteInstalled } from "../packages.mjs";

export const FIXTURES = join(ROOT, "e2e/docsites");
export const TOOLS = join(ROOT, ".tools");
export const DIST = join(ROOT, "dist-docs");
const COMPRESS = new Set([".html", ".js", ".css", ".svg", ".wasm", ".json", ".xml", ".txt", ".md"]);

/** Serves `root` on 127.0.0.1; gzip when asked for, as GitHub Pages and most docs hosts do. */
export function serveSite(root, { port = 0 } = {}) {
  root = resolve(root);
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) return res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file) && existsSync(`${file}.html`)) file = `${file}.html`;
    if (!existsSync(file)) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      return res.end("not found");
    }
    const ext = extname(file);
    const headers = { "Content-Type": MIME_TYPES[ext] ?? "application/octet-stream", "Cache-Control": "no-cache" };
    const gzip = COMPRESS.has(ext) && /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
    if (gzip) headers["Content-Encoding"] = "gzip";
    res.writeHead(200, headers);
    if (req.method === "HEAD") return res.end();
    const stream = createReadStream(file);
    (gzip ? stream.pipe(createGzip({ level: 6 })) : stream).pipe(res);
  });
  return new Promise((ok) =>
    server.listen(port, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}`;
      ok({ url, port: server.address().port, close: () => new Promise((done) => server.close(done)) });
    }),
  );
}

const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { encoding: "utf8", ...opts });
  if (r.error) throw r.error;
  return r;
};
const must = (r, what) => {
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r;
};

/** The tools a test needs, or why it must be skipped. */
export function missing(tool) {
  const need = {
    mdbook: join(TOOLS, "cargo/bin/mdbook"),
    mkdocs: join(TOOLS, "venv/bin/mkdocs"),
    hugo: "/usr/bin/hugo",
  }[tool];
  if (NPM_SITES[tool]) return siteInstalled(tool) ? null : `${tool} is not installed: bash scripts/install-docs-tools.sh ${tool}`;
  if (!existsSync(need)) return `${tool} is not installed: bash scripts/install-docs-tools.sh ${tool}`;
  if (!existsSync(join(DIST, "www/embed/auto.js"))) return "dist-docs/ is missing: npm run dist:docs";
  return null;
}

/** `cargo build -p mdbook-hwscope` once per process; the paths of the two binaries. */
let built = null;
export function hwscopeBinaries() {
  if (!built) {
    must(run("cargo", ["build", "-q", "-p", "mdbook-hwscope", "-p", "hwscope", "--bins"], { cwd: ROOT }), "cargo build");
    const dir = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "debug");
    built = { dir, hwscope: join(dir, "hwscope"), mdbook: join(dir, "mdbook-hwscope") };
  }
  return built;
}

/** A temp copy of a fixture with the shared page (figures.md) in it. */
function stage(tool, page) {
  const dir = mkdtempSync(join(tmpdir(), `hwscope-${tool}-`));
  cpSync(join(FIXTURES, tool), dir, { recursive: true, filter: (p) => !p.includes(`${sep}node_modules`) && !/[/\\](build|public|site|book|\.docusaurus)$/.test(p) });
  // The page's folder (docs/, content/) holds only generated files, so git keeps no empty copy of it.
  mkdirSync(dirname(join(dir, page)), { recursive: true });
  writeFileSync(join(dir, page), readFileSync(join(FIXTURES, "figures.md"), "utf8"));
  return dir;
}

/**
 * Builds a tool's fixture site; returns {dir, out (the built site), log, status}.
 * `onError: "show"` lets the broken block through as an error box (the default build fails on it).
 */
export function buildSite(tool, { onError = "fail", material = false } = {}) {
  if (NPM_SITES[tool]) return buildNpmSite(tool, { onError });
  const bins = hwscopeBinaries();
  const env = { ...process.env, PATH: `${bins.dir}:${join(TOOLS, "cargo/bin")}:${process.env.PATH}` };
  // A post-pass tool's output is drawn twice: strictly on a copy (the exit status and
  // message a CI build would see), then for the page as asked.
  const renderDocs = (dir, out) => {
    const copy = `${out}.strict`;
    cpSync(out, copy, { recursive: true });
    const strict = run(bins.hwscope, ["render-docs", copy], { cwd: dir, env });
    rmSync(copy, { recursive: true, force: true });
    if (onError !== "show") return strict;
    const r = run(bins.hwscope, ["render-docs", out, "--allow-errors"], { cwd: dir, env });
    return { ...r, strict };
  };
  const copyAssets = (to) => cpSync(DIST, to, { recursive: true, filter: (p) => !/(_headers|\.nojekyll)$/.test(p) });
  if (tool === "mdbook") {
    const dir = stage("mdbook", "src/figures.md");
    must(run(bins.mdbook, ["install", dir, "--assets", DIST], { env }), "mdbook-hwscope install");
    const s = run(join(TOOLS, "cargo/bin/mdbook"), ["build"], { cwd: dir, env });
    const strict = { status: s.status, stdout: s.stdout, stderr: s.stderr };
    if (onError !== "show") return { dir, out: join(dir, "book"), page: "figures.html", status: s.status, log: s.stdout + s.stderr, strict };
    {
      const toml = join(dir, "book.toml");
      writeFileSync(toml, readFileSync(toml, "utf8").replace(/^# on-error = "show".*$/m, 'on-error = "show"'));
    }
    const r = run(join(TOOLS, "cargo/bin/mdbook"), ["build"], { cwd: dir, env });
    return { dir, out: join(dir, "book"), page: "figures.html", status: r.status, log: r.stdout + r.stderr, strict };
  }
  if (tool === "mkdocs") {
    const dir = stage("mkdocs", "docs/index.md");
    copyAssets(join(dir, "docs/hwscope"));
    const config = material ? "mkdocs-material.yml" : "mkdocs.yml";
    const r = run(join(TOOLS, "venv/bin/mkdocs"), ["build", "-q", "-f", config, "-d", "site"], { cwd: dir, env });
    if (r.status !== 0) return { dir, out: join(dir, "site"), page: "", status: r.status, log: r.stdout + r.stderr };
    // The site as MkDocs wrote it, before render-docs: auto.js alone upgrades its blocks.
    const raw = `${dir}/site-raw`;
    cpSync(join(dir, "site"), raw, { recursive: true });
    const d = renderDocs(dir, join(dir, "site"));
    return { dir, out: join(dir, "site"), page: "", status: d.status, log: r.stdout + r.stderr + d.stderr, strict: d.strict, raw };
  }
  if (tool === "hugo") {
    const dir = stage("hugo", "content/figures.md");
    cpSync(join(ROOT, "integrations/hugo"), join(dir, "themes/hwscope"), { recursive: true });
    copyAssets(join(dir, "static/hwscope"));
    const r = run("hugo", ["--quiet", "-d", "public"], { cwd: dir, env });
    if (r.status !== 0) return { dir, out: join(dir, "public"), page: "figures/", status: r.status, log: r.stdout + r.stderr };
    const d = renderDocs(dir, join(dir, "public"));
    return { dir, out: join(dir, "public"), page: "figures/", status: d.status, log: r.stdout + r.stderr + d.stderr, strict: d.strict };
  }
  throw new Error(`unknown tool ${tool}`);
}

/**
 * The sites built with the npm package (installed from its packed tarball into a fresh
 * site on a PATH without cargo): where the shared pages go, the built pages' addresses,
 * the build command, and the config edit that turns on "show the error in the page".
 */
export const NPM_SITES = {
  docusaurus: {
    figures: "docs/figures.md",
    second: "docs/second.md",
    page: "docs/figures",
    secondPage: "docs/second",
    out: "build",
    build: ["node_modules/@docusaurus/core/bin/docusaurus.mjs", "build", "--out-dir", "build"],
    config: ["docusaurus.config.js", 'themes: ["hwscope/docusaurus"]', 'themes: [["hwscope/docusaurus", { onError: "show" }]]'],
  },
  vitepress: {
    figures: "figures.md",
    second: "second.md",
    page: "figures.html",
    secondPage: "second.html",
    out: ".vitepress/dist",
    build: ["node_modules/vitepress/bin/vitepress.js", "build"],
    config: [".vitepress/config.mjs", "}));", '}), { onError: "show" });'],
  },
  starlight: {
    figures: "src/content/docs/figures.md",
    second: "src/content/docs/second.md",
    // Starlight wants a title in each page's front matter (three lines above the page).
    frontMatter: (title) => `---\ntitle: ${title}\n---\n`,
    page: "figures/",
    secondPage: "second/",
    out: "dist",
    build: ["node_modules/astro/astro.js", "build"],
    config: ["astro.config.mjs", "hwscope()", 'hwscope({ onError: "show" })'],
  },
};

/** A fresh site with the packed package; built strictly (the failure a CI build sees), then for the page as asked. */
function buildNpmSite(tool, { onError }) {
  const t = NPM_SITES[tool];
  const front = t.frontMatter ?? (() => "");
  const { dir, env, installSeconds } = freshSite(tool, {
    files: {
      [t.figures]: front("Figures") + readFileSync(join(FIXTURES, "figures.md"), "utf8"),
      [t.second]: front("Second page") + readFileSync(join(FIXTURES, "second.md"), "utf8"),
    },
  });
  const build = () => run(process.execPath, t.build, { cwd: dir, env: { ...env, NODE_ENV: "production" } });
  const s = build();
  const strict = { status: s.status, stdout: s.stdout, stderr: s.stderr };
  if (onError !== "show") return { dir, out: join(dir, t.out), page: t.page, status: s.status, log: s.stdout + s.stderr, strict };
  const [file, from, to] = t.config;
  const text = readFileSync(join(dir, file), "utf8");
  if (!text.includes(from)) throw new Error(`${tool}: ${file} has no ${from}`);
  writeFileSync(join(dir, file), text.replace(from, to));
  rmSync(join(dir, t.out), { recursive: true, force: true });
  const started = Date.now();
  const r = build();
  const seconds = { install: installSeconds, build: (Date.now() - started) / 1000 };
  return { dir, out: join(dir, t.out), page: t.page, secondPage: t.secondPage, status: r.status, log: r.stdout + r.stderr, strict, seconds };
}

export function removeSite(site) {
  if (site?.dir?.startsWith(tmpdir())) rmSync(site.dir, { recursive: true, force: true });
}

/// Each named fixture site (mdbook, mkdocs, mkdocs-material, hugo, docusaurus),
/// built and served in turn for a script that looks at or measures it: a tool
/// that is not installed or fails to build is reported and passed over; the
/// server and the build are removed once the caller has done with it.
export async function* eachBuiltSite(names) {
  for (const name of names) {
    const tool = name.startsWith("mkdocs") ? "mkdocs" : name;
    const why = missing(tool);
    if (why) {
      console.log(`${name}: skipped (${why})`);
      continue;
    }
    const site = buildSite(tool, { onError: "show", material: name === "mkdocs-material" });
    if (site.status !== 0) {
      console.log(`${name}: build failed\n${site.log}`);
      continue;
    }
    const srv = await serveSite(site.out);
    try {
      yield { name, site, srv };
    } finally {
      await srv.close();
      removeSite(site);
    }
  }
}

export { execFileSync };
