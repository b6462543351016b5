// The npm package `hwscope` as a docs author gets it: the packed tarball
// (dist-packages/hwscope-X.Y.Z.tgz) installed with `npm install` into a fresh folder,
// on a PATH without cargo. Its `hwscope` command prints byte for byte what the Rust
// binary prints (stdout, stderr, exit status) for svg, run in every format,
// render-docs, figure, link and bad input; `renderBlock` from "hwscope/render" draws
// the SVG `hwscope svg` draws and names the file and line of a broken block; the
// browser assets are in it, stamped with its version; `npm publish --dry-run` accepts it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { ROOT } from "./helpers.mjs";
import { envWithoutRust, npmTarball } from "./packages.mjs";
import { packageVersion } from "../scripts/packages/version.mjs";

let dir, tgz, native, bin, env;

before(() => {
  tgz = npmTarball();
  const b = spawnSync("cargo", ["build", "-q", "--bin", "hwscope"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(b.status, 0, b.stderr);
  native = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "debug/hwscope");
  dir = mkdtempSync(join(tmpdir(), "hwscope-npm-"));
  env = envWithoutRust();
  writeFileSync(join(dir, "package.json"), '{"name":"a-docs-site","private":true}\n');
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--offline", tgz], { cwd: dir, env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  bin = join(dir, "node_modules/.bin/hwscope");
});
after(() => dir && rmSync(dir, { recursive: true, force: true }));

const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 28, env, ...opts });

/** Both commands with the same arguments and stdin, in the same folder: equal output, byte for byte. */
function same(args, { input, cwd = dir } = {}) {
  const a = run(native, args, { input, cwd });
  const b = run(bin, args, { input, cwd });
  assert.equal(b.status, a.status, `exit status of hwscope ${args.join(" ")}: ${b.stderr}`);
  assert.equal(b.stderr, a.stderr, `stderr of hwscope ${args.join(" ")}`);
  assert.ok(b.stdout === a.stdout, `stdout of hwscope ${args.join(" ")} differs (${b.stdout.length} vs ${a.stdout.length} chars)`);
  return a;
}

describe("the hwscope command from npm prints what the Rust binary prints", () => {
  test("the installed command runs with no cargo on PATH", () => {
    assert.equal(run("sh", ["-c", "command -v cargo || echo none"]).stdout.trim(), "none");
    const r = run(bin, ["scenarios"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /seed-walkthrough/);
  });

  const builtins = ["seed-walkthrough", "kip101-data-loss", "unclean-election", "idle-partition-lag"];
  for (const name of builtins) {
    test(`svg and run of ${name}`, () => {
      for (const at of ["0", "4", "9999"]) same(["svg", "--builtin", name, "--at", at]);
      const jsonl = same(["run", "--builtin", name]);
      assert.ok(jsonl.stdout.split("\n").length > 5, "the run printed records");
      same(["run", "--builtin", name, "--format", "table"]);
      same(["run", "--builtin", name, "--format", "markdown", "--log-tail", "2"]);
      same(["run", "--builtin", name, "--preset", "kafka-2.0", "--until-ms", "3000", "--show-config"]);
      same(["link", "--builtin", name, "--at", "3"]);
    });
  }

  test("a scenario file, stdin, the lists", () => {
    const file = join(dir, "s.json");
    writeFileSync(file, readFileSync(join(ROOT, "scenarios", readdirSync(join(ROOT, "scenarios")).find((f) => f.endsWith(".json"))), "utf8"));
    same(["svg", file, "--at", "2"]);
    same(["run", file, "--format", "table"]);
    same(["config", file, "--json"]);
    same(["presets", "--defaults"]);
    same(["figure"], { input: "seed-walkthrough at=3 title=\"A & B\"\n" });
    same(["--help"]);
  });

  test("bad input: the same message and exit status", () => {
    same(["svg", "--builtin", "seed-walkthru"]);
    same(["svg", join(dir, "missing.json")]);
    same(["svg", dir]);
    same(["run", "--builtin", "seed-walkthrough", "--format", "yaml"]);
    same(["run", "--builtin", "seed-walkthrough", "--until-ms", "soon"]);
    same(["figure"], { input: "seed-walkthrough at=zz\n" });
    same(["render-docs"]);
    same(["render-docs", join(dir, "no-such-site")]);
    same([]);
    same(["frobnicate"]);
  });

  test("render-docs draws a built site's blocks as the Rust command does, errors included", () => {
    const site = join(ROOT, "e2e/docsites/figures.md");
    const md = readFileSync(site, "utf8");
    const blocks = [...md.matchAll(/```hwscope\n([\s\S]*?)```/g)].map((m) => m[1]);
    assert.ok(blocks.length >= 3, "figures.md has blocks");
    const html = (b) => `<pre><code class="language-hwscope">${b.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;")}</code></pre>`;
    const make = (name) => {
      const root = join(dir, name);
      mkdirSync(join(root, "guide"), { recursive: true });
      writeFileSync(join(root, "index.html"), `<!doctype html><title>t</title>\n<p>a</p>\n${blocks.map(html).join("\n<p>b</p>\n")}\n`);
      writeFileSync(join(root, "guide/index.html"), `<p>x</p>\n<div class="hwscope" data-hwscope-source="docs/guide.md:7">seed-walkthrough at=2</div>\n`);
      writeFileSync(join(root, "guide/skip.txt"), "not html");
      return root;
    };
    const a = make("site-native");
    const b = make("site-npm");
    for (const allow of [[], ["--allow-errors"]]) {
      const ra = run(native, ["render-docs", a, ...allow], { cwd: dir });
      const rb = run(bin, ["render-docs", b, ...allow], { cwd: dir });
      assert.equal(rb.status, ra.status);
      assert.equal(rb.stderr.replaceAll("site-npm", "site-native"), ra.stderr);
      for (const page of ["index.html", "guide/index.html"]) assert.ok(readFileSync(join(b, page), "utf8") === readFileSync(join(a, page), "utf8"), `${page} drawn the same`);
    }
    assert.match(readFileSync(join(b, "index.html"), "utf8"), /<figure class="hwscope-figure"/);
  });
});

describe("hwscope/render", () => {
  let api;
  before(async () => {
    api = await import(pathToFileURL(join(dir, "node_modules/hwscope/lib/render.js")).href);
  });

  test("renderBlock draws the SVG hwscope svg draws, with the step's sentence as alt text", () => {
    for (const [block, name, at] of [["seed-walkthrough at=5", "seed-walkthrough", "5"], ["kip101-data-loss", "kip101-data-loss", "0"]]) {
      const fig = api.renderBlock(block);
      assert.ok(fig.svg === run(native, ["svg", "--builtin", name, "--at", at]).stdout, `${block}: the same SVG`);
      assert.ok(fig.html === run(native, ["figure"], { input: block }).stdout.replace(/\n$/, ""), `${block}: the same figure HTML`);
      assert.match(fig.alt, new RegExp(`, step ${at}: \\S`));
      assert.equal(fig.step, Number(at));
    }
  });

  test("a broken block throws naming the Markdown file and line", () => {
    assert.throws(
      () => api.renderBlock("seed-walkthrough\nat=3 colour=red", { file: "docs/intro.md", line: 20 }),
      (e) => e instanceof api.HwscopeBlockError && /^docs\/intro\.md:22: hwscope block: .*colour/.test(e.message) && e.line === 2 && /hwscope-error/.test(e.errorBox),
    );
    assert.throws(() => api.renderBlock("seed-walkthru"), /no built-in scenario "seed-walkthru" \(did you mean seed-walkthrough\?\)/);
    assert.match(api.figureHtml("seed-walkthru", { onError: "show" }), /^<div class="hwscope-error"/);
  });

  test("the browser assets are in the package, at its version", async () => {
    const assets = await import(pathToFileURL(join(dir, "node_modules/hwscope/lib/assets.js")).href);
    assert.equal(assets.VERSION, packageVersion());
    assert.equal(assets.checkAssets(), assets.ASSETS_DIR);
    const other = join(dir, "old-assets");
    cpSync(assets.ASSETS_DIR, other, { recursive: true });
    writeFileSync(join(other, "hwscope-assets.json"), '{"name":"hwscope-assets","version":"0.0.1"}\n');
    assert.throws(() => assets.checkAssets(other), new RegExp(`assets in .*old-assets are version 0\\.0\\.1, but this package \\(hwscope ${packageVersion().replace(/\./g, "\\.")}\\) needs`));
    assert.throws(() => assets.checkAssets(join(dir, "nowhere")), /the hwscope assets are missing: no .*nowhere\/www\/embed\/auto\.js/);
  });
});

describe("the package's README, as the registry shows it", () => {
  test("it names each tool's config, every import in it resolves, and its plain-HTML copy gives a site auto.js", () => {
    const readme = readFileSync(join(dir, "node_modules/hwscope/README.md"), "utf8");
    for (const line of [
      'themes: ["hwscope/docusaurus"]',
      "export default withHwscope(defineConfig(",
      "export default withHwscope(DefaultTheme);",
      "integrations: [starlight({",
      '<script type="module" src="/hwscope/www/embed/auto.js"></script>',
    ]) {
      assert.ok(readme.includes(line), `the README shows ${line}`);
    }
    const pkg = JSON.parse(readFileSync(join(dir, "node_modules/hwscope/package.json"), "utf8"));
    const specifiers = [...readme.matchAll(/(?:from |\[)"(hwscope\/[a-z/]+)"/g)].map((m) => m[1]);
    assert.ok(specifiers.length >= 5, `imports in the README: ${specifiers}`);
    for (const s of specifiers) assert.ok(pkg.exports[`.${s.slice("hwscope".length)}`], `${s} is one of the package's exports`);
    // The README's copy command, run in the author's folder: the script the page loads is there.
    const cp = /^cp -r (\S+) path\/to\/site\/hwscope$/m.exec(readme);
    assert.ok(cp, "the README says how to copy the assets");
    const site = join(dir, "site");
    mkdirSync(site, { recursive: true });
    assert.equal(run("cp", ["-r", cp[1], join(site, "hwscope")], { cwd: dir }).status, 0);
    assert.ok(readdirSync(join(site, "hwscope/www/embed")).includes("auto.js"));
    rmSync(site, { recursive: true, force: true });
    // The full reference it points to is in the package (it named only "hwscope's
    // docs/embedding.md", which an author without a checkout had to hunt for).
    const ref = /`node_modules\/hwscope\/(\S+)\/embedding\.\*\.md`/.exec(readme);
    assert.ok(ref, "the README says where in the package the full reference is");
    assert.ok(readdirSync(join(dir, "node_modules/hwscope", ref[1])).some((f) => /^embedding\.[0-9a-f]+\.md$/.test(f)), `docs/embedding.md in ${ref[1]}`);
  });
});

test("npm publish --dry-run accepts the tarball", () => {
  const r = run("npm", ["publish", "--dry-run", tgz], { cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout + r.stderr, new RegExp(`hwscope@${packageVersion().replace(/\./g, "\\.")}`));
});
