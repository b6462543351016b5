// Shared by the docs-site tests and measurements: a static server for a built
// site (gzip like a real docs host, no CSP of ours: the tools' pages have
// inline scripts), and the build of each tool's fixture site into a temp folder.
// mdBook, MkDocs (plain, Material), Zensical and Hugo use hwscope's *packed*
// packages from dist-packages/ (`npm run packages`), installed as a docs author
// would: the mdbook-hwscope crate by `cargo install --path` of the unpacked .crate,
// the mkdocs-hwscope wheel by pip into a fresh venv, the Hugo module by its path;
// each tool then runs with a PATH that has no cargo (and, for the Python tools,
// no node).
//
//   const srv = await serveSite(dir, { port: 0 });   // srv.url, srv.close()
//   const dir = buildSite("mdbook", { onError: "show" });
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { createGzip } from "node:zlib";
import { MIME_TYPES } from "../../scripts/serve.mjs";
import { ROOT } from "../helpers.mjs";
import { envWithoutRust, freshSite, siteInstalled } from "../packages.mjs";

export const FIXTURES = join(ROOT, "e2e/docsites");
export const TOOLS = join(ROOT, ".tools");
export const DIST = join(ROOT, "dist-docs");
export const PACKAGES = join(ROOT, "dist-packages");
/** The module path of the Hugo module (packages/hugo/go.mod). */
export const HUGO_MODULE = /^module\s+(\S+)/m.exec(readFileSync(join(ROOT, "packages/hugo/go.mod"), "utf8"))[1];
export const VERSION = /^\[package\][^[]*?^version\s*=\s*"([^"]+)"/ms.exec(readFileSync(join(ROOT, "Cargo.toml"), "utf8"))[1];
export const ARTIFACTS = {
  wheel: join(PACKAGES, `mkdocs_hwscope-${VERSION}-py3-none-any.whl`),
  crate: join(PACKAGES, `mdbook-hwscope-${VERSION}.crate`),
  hwscopeCrate: join(PACKAGES, `hwscope-${VERSION}.crate`),
  hugo: join(PACKAGES, "hugo-hwscope"),
};
/** What the fresh venv installs from the wheelhouse (.tools/wheels, install-docs-tools.sh wheels) with the wheel. */
const PY_TOOLS = ["mkdocs==1.6.1", "mkdocs-material==9.7.7", "zensical==0.0.52"];
/** A PATH for the docs tools: the system's folders and `extra`, never cargo's or node's. */
export function bareEnv(extra = []) {
  const sys = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
  return { HOME: process.env.HOME, LANG: "C.UTF-8", PATH: [...extra, ...sys].join(":"), XDG_CACHE_HOME: join(TOOLS, "cache") };
}
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
    mkdocs: join(TOOLS, "wheels/.want"),
    zensical: join(TOOLS, "wheels/.want"),
    hugo: "/usr/bin/hugo",
  }[tool];
  if (NPM_SITES[tool]) return siteInstalled(tool) ? null : `${tool} is not installed: bash scripts/install-docs-tools.sh ${tool}`;
  if (!existsSync(need)) return `${tool} is not installed: bash scripts/install-docs-tools.sh ${tool === "mkdocs" || tool === "zensical" ? "wheels" : tool}`;
  if (!existsSync(join(DIST, "www/embed/auto.js"))) return "dist-docs/ is missing: npm run dist:docs";
  return null;
}

/** The packed artifacts, built by `npm run packages` when one is missing (HWSCOPE_PACKAGE_VERIFY=0: the install below builds the crate). */
export function packedArtifacts() {
  const need = Object.values(ARTIFACTS).filter((p) => !existsSync(p));
  if (need.length) {
    must(run(process.execPath, ["scripts/packages.mjs", "pypi", "crate", "hugo"], { cwd: ROOT, env: { ...process.env, HWSCOPE_PACKAGE_VERIFY: "0" } }), `npm run packages (for ${need.join(", ")})`);
  }
  return ARTIFACTS;
}

/** A TCP port free on 127.0.0.1 now. */
function freePort() {
  const code = "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})";
  return Number(must(run(process.execPath, ["-e", code]), "finding a free port").stdout.trim());
}

/**
 * `cargo install --path` of the unpacked mdbook-hwscope .crate (its hwscope dependency from
 * the unpacked hwscope .crate: neither is on crates.io yet), into .tools/pkg-mdbook/<crate hash>/
 * (kept: a later run with the same crate skips the build). Returns the bin folder.
 */
let mdbookBin = null;
export function mdbookFromCrate() {
  if (mdbookBin) return mdbookBin;
  const { crate, hwscopeCrate } = packedArtifacts();
  // Unpacked at one place (outside the checkout: not in its Cargo workspace).
  const src = join(tmpdir(), "mdbook-hwscope-crates");
  rmSync(src, { recursive: true, force: true });
  mkdirSync(src, { recursive: true });
  for (const c of [crate, hwscopeCrate]) must(run("tar", ["xzf", c, "-C", src]), `unpacking ${c}`);
  const unpacked = (name) => join(src, readdirSync(src).find((d) => d.startsWith(`${name}-`) && /-\d/.test(d.slice(name.length))));
  // Keyed by what the crates hold (not by the .crate files, whose times change with every checkout).
  const root = join(TOOLS, "pkg-mdbook", contentHash(src));
  const bin = join(root, "bin");
  if (!existsSync(join(bin, "mdbook-hwscope"))) {
    const t0 = Date.now();
    must(
      run("cargo", ["install", "--quiet", "--locked", "--path", unpacked("mdbook-hwscope"), "--root", root, "--config", `patch.crates-io.hwscope.path=${JSON.stringify(unpacked("hwscope"))}`], {
        env: { ...process.env, CARGO_TARGET_DIR: join(TOOLS, "pkg-target") },
      }),
      "cargo install --path mdbook-hwscope (unpacked crate)",
    );
    writeFileSync(join(root, "install-seconds"), `${(Date.now() - t0) / 1000}\n`);
  }
  rmSync(src, { recursive: true, force: true });
  mdbookBin = bin;
  return bin;
}

/** A hash of every file under `dir` (paths and bytes, in order), mtimes left out. */
function contentHash(dir) {
  const h = createHash("sha256");
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name !== ".cargo_vcs_info.json") h.update(`${p.slice(dir.length)}\0`).update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest("hex").slice(0, 20);
}

/**
 * A fresh venv (one per process) with the mkdocs-hwscope wheel and MkDocs, Material and
 * Zensical, from the wheelhouse (no index): the packed wheel as a docs author installs it.
 * (One venv for the three tools: a pip install is most of their tests' time.)
 */
const venvs = {};
const venvSeconds = {};
export function pythonVenv(tool) {
  if (venvs.python) {
    venvSeconds[tool] ??= venvSeconds.python;
    return venvs.python;
  }
  const { wheel } = packedArtifacts();
  const dir = mkdtempSync(join(tmpdir(), "mkdocs-hwscope-venv-"));
  const t0 = Date.now();
  must(run("python3", ["-m", "venv", dir]), "python3 -m venv");
  must(
    run(join(dir, "bin/pip"), ["install", "--quiet", "--disable-pip-version-check", "--no-index", "--find-links", join(TOOLS, "wheels"), wheel, ...PY_TOOLS]),
    `pip install ${wheel}`,
  );
  venvSeconds.python = venvSeconds[tool] = (Date.now() - t0) / 1000;
  venvs.python = dir;
  return dir;
}
process.on("exit", () => {
  for (const d of Object.values(venvs)) rmSync(d, { recursive: true, force: true });
});

/** `cargo build -p hwscope` once per process; the paths of the binaries (render-docs for Hugo and Docusaurus). */
let built = null;
export function hwscopeBinaries() {
  if (!built) {
    must(run("cargo", ["build", "-q", "-p", "hwscope", "--bin", "hwscope"], { cwd: ROOT }), "cargo build");
    const dir = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "debug");
    built = { dir, hwscope: join(dir, "hwscope") };
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
  // A post-pass tool's output is drawn twice: strictly on a copy (the exit status and
  // message a CI build would see), then for the page as asked.
  // `hwscope render-docs`: the Rust CLI's, or `bin` (the npm package's, for Hugo).
  const renderDocs = (dir, out, bin = null, binEnv = null) => {
    const bins = bin ? null : hwscopeBinaries();
    const cmd = bin ?? bins.hwscope;
    const env = binEnv ?? { ...process.env, PATH: `${bins.dir}:${process.env.PATH}` };
    const copy = `${out}.strict`;
    cpSync(out, copy, { recursive: true });
    const strict = run(cmd, ["render-docs", copy], { cwd: dir, env });
    rmSync(copy, { recursive: true, force: true });
    if (onError !== "show") return strict;
    const r = run(cmd, ["render-docs", out, "--allow-errors"], { cwd: dir, env });
    return { ...r, strict };
  };
  const copyAssets = (to) => cpSync(DIST, to, { recursive: true, filter: (p) => !/(_headers|\.nojekyll)$/.test(p) });
  if (tool === "mdbook") {
    const bin = mdbookFromCrate();
    const dir = stage("mdbook", "src/figures.md");
    writeFileSync(join(dir, "src/plain.md"), readFileSync(join(FIXTURES, "plain.md"), "utf8"));
    const benv = bareEnv([bin, join(TOOLS, "cargo/bin")]);
    // The crate's own assets: `install` with no --assets.
    const t0 = Date.now();
    must(run(join(bin, "mdbook-hwscope"), ["install", dir], { env: benv }), "mdbook-hwscope install");
    const took = join(dirname(bin), "install-seconds");
    const cargoSeconds = existsSync(took) ? Number(readFileSync(took, "utf8")) : Number.NaN;
    const seconds = { install: cargoSeconds + (Date.now() - t0) / 1000, build: 0 };
    const s = run(join(TOOLS, "cargo/bin/mdbook"), ["build"], { cwd: dir, env: benv });
    const strict = { status: s.status, stdout: s.stdout, stderr: s.stderr };
    if (onError !== "show") return { dir, out: join(dir, "book"), page: "figures.html", status: s.status, log: s.stdout + s.stderr, strict };
    {
      const toml = join(dir, "book.toml");
      writeFileSync(toml, readFileSync(toml, "utf8").replace(/^# on-error = "show".*$/m, 'on-error = "show"'));
    }
    const t1 = Date.now();
    const r = run(join(TOOLS, "cargo/bin/mdbook"), ["build"], { cwd: dir, env: benv });
    seconds.build = (Date.now() - t1) / 1000;
    return { dir, out: join(dir, "book"), page: "figures.html", status: r.status, log: r.stdout + r.stderr, strict, seconds, bin, env: benv };
  }
  if (tool === "mkdocs" || tool === "zensical") {
    const venv = pythonVenv(tool);
    const dir = stage("mkdocs", "docs/index.md");
    for (const p of ["second", "plain"]) writeFileSync(join(dir, `docs/${p}.md`), readFileSync(join(FIXTURES, `${p}.md`), "utf8"));
    const benv = bareEnv([join(venv, "bin")]);
    const config = tool === "zensical" ? "zensical.yml" : material ? "mkdocs-material.yml" : "mkdocs.yml";
    // Material's instant navigation takes only links the sitemap names, at site_url's host
    // and port: the test serves the site where site_url says.
    const port = freePort();
    const yml0 = readFileSync(join(dir, config), "utf8");
    writeFileSync(join(dir, config), yml0.replace(/^site_url: .*$/m, `site_url: http://127.0.0.1:${port}/`));
    const build = (out) =>
      tool === "zensical"
        ? run(join(venv, "bin/zensical"), ["build", "-f", config, "--clean"], { cwd: dir, env: benv })
        : run(join(venv, "bin/mkdocs"), ["build", "-q", "-f", config, "-d", out], { cwd: dir, env: benv });
    const s = build("site.strict");
    const strict = { status: s.status, stdout: s.stdout, stderr: s.stderr };
    const file = join(dir, config);
    const yml = readFileSync(file, "utf8");
    writeFileSync(file, tool === "zensical" ? yml.replace("- mkdocs_hwscope", "- mkdocs_hwscope:\n      on_error: show") : yml.replace(/^  - hwscope$/m, "  - hwscope:\n      on_error: show"));
    const t1 = Date.now();
    const r = build("site");
    const seconds = { install: venvSeconds[tool], build: (Date.now() - t1) / 1000 };
    const out = join(dir, "site");
    return { dir, out, page: "", status: r.status, log: r.stdout + r.stderr, strict, port, seconds };
  }
  if (tool === "hugo") {
    const dir = stage("hugo", "content/figures.md");
    writeFileSync(join(dir, "content/plain.md"), readFileSync(join(FIXTURES, "plain.md"), "utf8"));
    // The module by its path, from the unpacked package (as `hugo mod get` would place it).
    const benv = { ...bareEnv(), HUGO_MODULE_REPLACEMENTS: `${HUGO_MODULE} -> ${ARTIFACTS.hugo}` };
    const t1 = Date.now();
    const r = run("hugo", ["--quiet", "-d", "public"], { cwd: dir, env: benv });
    const seconds = { install: 0, build: (Date.now() - t1) / 1000 };
    if (r.status !== 0) return { dir, out: join(dir, "public"), page: "figures/", status: r.status, log: r.stdout + r.stderr };
    // The site as Hugo wrote it, before render-docs: the Hugo-only way, live figures from auto.js.
    const raw = join(dir, "public-raw");
    cpSync(join(dir, "public"), raw, { recursive: true });
    // Static figures as a Hugo author draws them: the npm package's command, installed from
    // its packed tarball on a PATH without cargo (`npm i hwscope`, then `npx hwscope render-docs
    // public/`); the Rust CLI when the tarball is not built.
    const tgz = join(PACKAGES, `hwscope-${VERSION}.tgz`);
    let bin = null;
    let binEnv = null;
    if (existsSync(tgz)) {
      binEnv = envWithoutRust();
      must(run("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--offline", "--ignore-scripts", tgz], { cwd: dir, env: binEnv }), "npm install of the hwscope tarball");
      bin = join(dir, "node_modules/.bin/hwscope");
    }
    const t2 = Date.now();
    const d = renderDocs(dir, join(dir, "public"), bin, binEnv);
    seconds.render = (Date.now() - t2) / 1000;
    seconds.renderer = bin ? "npm" : "rust";
    return { dir, out: join(dir, "public"), page: "figures/", status: d.status, log: r.stdout + r.stderr + d.stderr, strict: d.strict, raw, seconds };
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
    const srv = await serveSite(site.out, { port: site.port ?? 0 });
    try {
      yield { name, site, srv };
    } finally {
      await srv.close();
      removeSite(site);
    }
  }
}

export { execFileSync };
