// The pictures an embed shows when the playground cannot start (issue 18): every
// built-in at steps 0, 4, 8, … 64, drawn by `hwscope svg` into www/pkg/stills/
// (NAME-STEP.svg). www/boot.js shows the one at or before the step the embed asks
// for, under its message; `npm run dist` publishes the folder as it is (~9 KB a
// file, fetched only by an embed that failed). Run by scripts/build-wasm.sh.
//
//   node scripts/stills.mjs [www/pkg]
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const STILL_EVERY = 4;
export const STILL_LAST = 64;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dir = join(resolve(process.argv[2] ?? join(ROOT, "www/pkg")), "stills");
const targetDir = resolve(ROOT, process.env.CARGO_TARGET_DIR ?? "target");
// The CLI's debug build, or the profile HWSCOPE_CLI_PROFILE names: scripts/test.sh names
// `ci-test`, the profile its cargo test builds the CLI with, so this costs nothing in CI.
const profile = process.env.HWSCOPE_CLI_PROFILE || "dev";
execFileSync("cargo", ["build", "--quiet", "--profile", profile, "--bin", "hwscope"], { cwd: ROOT, stdio: "inherit" });
const cli = join(targetDir, profile === "dev" ? "debug" : profile, "hwscope");
const names = execFileSync(cli, ["scenarios"], { encoding: "utf8" }).split("\n").map((l) => l.split(/\s+/)[0]).filter(Boolean);

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
let files = 0;
let bytes = 0;
for (const name of names) {
  for (let step = 0; step <= STILL_LAST; step += STILL_EVERY) {
    const svg = execFileSync(cli, ["svg", "--builtin", name, "--at", String(step)], { encoding: "utf8", maxBuffer: 1 << 24 });
    // Past the run's end the CLI draws its last step: no picture under a wrong number.
    if (!svg.includes(`step ${step} ·`)) break;
    writeFileSync(join(dir, `${name}-${step}.svg`), svg);
    files++;
    bytes += svg.length;
  }
}
console.log(`stills: ${files} pictures of ${names.length} built-ins in ${dir} (${(bytes / 1024).toFixed(0)} KiB)`);
