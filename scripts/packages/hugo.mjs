// Hugo: the hwscope module (packages/hugo/: go.mod, module config, the ```hwscope render
// hook) with hwscope's browser assets under static/hwscope/, written to
// dist-packages/hugo-hwscope/ (the module as a site imports it), and as a Go module
// proxy folder, dist-packages/goproxy/ (<module>/@v/v<version>.{info,mod,zip}, list),
// so `hugo mod get` can fetch it by its path before it is published (Hugo sets Go's
// GOPROXY from its own setting, so the proxy is named to Hugo):
//   HUGO_MODULE_PROXY=file://$PWD/dist-packages/goproxy HUGO_MODULE_NOSUMDB='*' hugo mod get <module>@v<version>
// Without Go, HUGO_MODULE_REPLACEMENTS="<module> -> /abs/dist-packages/hugo-hwscope" imports it.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./version.mjs";
import { assets, copyAssets, sh } from "./native.mjs";

export const MODULE_DIR = "hugo-hwscope";

/** The module path, from packages/hugo/go.mod. */
export function modulePath() {
  const mod = readFileSync(join(ROOT, "packages/hugo/go.mod"), "utf8");
  const m = /^module\s+(\S+)/m.exec(mod);
  if (!m) throw new Error("packages/hugo/go.mod: no module line");
  return m[1];
}

export async function build({ out, version }) {
  const dir = join(out, MODULE_DIR);
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(ROOT, "packages/hugo"), dir, { recursive: true });
  copyAssets(await assets({ out, version }), join(dir, "static/hwscope"));
  // The Go module proxy layout (the zip holds <module>@v<version>/… , as Go writes it).
  const path = modulePath();
  const v = `v${version}`;
  const proxy = join(out, "goproxy", path, "@v");
  rmSync(join(out, "goproxy"), { recursive: true, force: true });
  mkdirSync(proxy, { recursive: true });
  writeFileSync(join(proxy, "list"), `${v}\n`);
  writeFileSync(join(proxy, `${v}.info`), JSON.stringify({ Version: v, Time: "2020-01-01T00:00:00Z" }));
  writeFileSync(join(proxy, `${v}.mod`), readFileSync(join(dir, "go.mod")));
  const staging = join(out, "goproxy-staging");
  rmSync(staging, { recursive: true, force: true });
  cpSync(dir, join(staging, `${path}@${v}`), { recursive: true });
  sh("python3", ["-c", ZIP, join(proxy, `${v}.zip`), staging]);
  rmSync(staging, { recursive: true, force: true });
  return [dir, join(proxy, `${v}.zip`)];
}

// A zip of a folder's contents with fixed timestamps (Python's zipfile: no zip tool needed).
const ZIP = `
import os, sys, zipfile
out, root = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            full = os.path.join(d, f)
            zi = zipfile.ZipInfo(os.path.relpath(full, root).replace(os.sep, "/"), (2020, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, open(full, "rb").read(), zipfile.ZIP_DEFLATED)
`;
