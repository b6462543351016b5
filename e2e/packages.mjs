// The packed npm package for the tests that install it (e2e/npm-package.test.mjs,
// e2e/docsites.test.mjs): dist-packages/hwscope-X.Y.Z.tgz as `npm run packages` wrote
// it (scripts/test.sh runs that first), rebuilt here only when it is missing or older
// than what it is made of. A PATH without cargo, for installing and building as a
// docs author would.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { ROOT } from "./helpers.mjs";
import { packageVersion } from "../scripts/packages/version.mjs";

const newest = (path) => {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((n) => newest(join(path, n))));
};

/** The npm tarball's path, built if missing or stale. */
export function npmTarball() {
  const tgz = join(ROOT, "dist-packages", `hwscope-${packageVersion()}.tgz`);
  const sources = ["integrations/npm", "www/embed", "www/pkg/hwscope_bg.wasm", "src/cli", "src/wasm_node.rs", "scripts/packages"].map((p) => join(ROOT, p)).filter(existsSync);
  if (!existsSync(tgz) || Math.max(...sources.map(newest)) > statSync(tgz).mtimeMs) {
    execFileSync(process.execPath, [join(ROOT, "scripts/packages.mjs"), "npm"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  }
  return tgz;
}

/** The environment a docs author without Rust has: PATH without any folder holding cargo or rustc. */
export function envWithoutRust(extra = {}) {
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((d) => d && !existsSync(join(d, "cargo")) && !existsSync(join(d, "rustc")) && !d.includes(".cargo"))
    .join(delimiter);
  return { ...process.env, PATH: path, ...extra };
}

/**
 * A docs tool's node_modules, installed once per machine from its fixture's lockfile
 * (e2e/docsites/<tool>/package-lock.json) into .tools/sites/<tool>-<hash of the lockfile>/,
 * and reused while the lockfile is unchanged. Returns the node_modules path.
 */
export function siteModules(tool) {
  const fixture = join(ROOT, "e2e/docsites", tool);
  const lock = readFileSync(join(fixture, "package-lock.json"));
  const key = createHash("sha256").update(lock).digest("hex").slice(0, 12);
  const home = join(ROOT, ".tools/sites", `${tool}-${key}`);
  const modules = join(home, "node_modules");
  if (!existsSync(join(home, "installed"))) {
    rmSync(home, { recursive: true, force: true });
    mkdirSync(home, { recursive: true });
    cpSync(join(fixture, "package.json"), join(home, "package.json"));
    writeFileSync(join(home, "package-lock.json"), lock);
    const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: home, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    if (r.status !== 0) throw new Error(`npm ci for the ${tool} fixture failed:\n${r.stderr}`);
    writeFileSync(join(home, "installed"), `${new Date().toISOString()}\n`);
  }
  return modules;
}

/**
 * A fresh site in a temp folder: the fixture's files, the cached node_modules (hard links),
 * and the packed hwscope tarball installed with `npm install` on a PATH without cargo.
 */
export function freshSite(tool, { files = {} } = {}) {
  const fixture = join(ROOT, "e2e/docsites", tool);
  const dir = mkdtempSync(join(tmpdir(), `hwscope-${tool}-`));
  cpSync(fixture, dir, { recursive: true, filter: (p) => !/[/\\](node_modules|build|dist|\.docusaurus|\.astro|cache)$/.test(p) });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  // The cached node_modules, hard-linked (seconds, no copy of the bytes; npm replaces
  // files rather than writing into them, so the cache is not changed): npm then only
  // adds hwscope. (A symbolic link is not enough: npm replaces it with a full install.)
  const cp = spawnSync("cp", ["-al", siteModules(tool), join(dir, "node_modules")], { encoding: "utf8" });
  if (cp.status !== 0) throw new Error(`cp -al of the ${tool} fixture's node_modules failed: ${cp.stderr}`);
  // npm rewrites its hidden lockfile in place, which would change the cache's through the
  // hard link: this copy goes without it (npm reads the tree instead).
  rmSync(join(dir, "node_modules/.package-lock.json"), { force: true });
  const env = envWithoutRust();
  const started = Date.now();
  const r = spawnSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--offline", "--ignore-scripts", npmTarball()], { cwd: dir, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm install of the hwscope tarball into the ${tool} site failed:\n${r.stderr}`);
  return { dir, env, installSeconds: (Date.now() - started) / 1000 };
}

/** Whether a fixture's node_modules are in .tools/sites for its current lockfile. */
export function siteInstalled(tool) {
  const lock = readFileSync(join(ROOT, "e2e/docsites", tool, "package-lock.json"));
  const key = createHash("sha256").update(lock).digest("hex").slice(0, 12);
  return existsSync(join(ROOT, ".tools/sites", `${tool}-${key}`, "installed"));
}
