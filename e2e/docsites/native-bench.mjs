// docs-bench's figures for the packages built by scripts/packages/{pypi,crate,hugo}.mjs:
// the commands a docs author types from install to first figure (docs/embedding.md's
// sections for mdBook, MkDocs/Material/Zensical and Hugo) with the seconds the install
// of the packed artifact and the site's build took here, and the packages' sizes.
import { statSync } from "node:fs";
import { ARTIFACTS } from "./site.mjs";

/** What a docs author types, per tool: install, set up (config lines count as one). */
export const COMMANDS = {
  mdbook: ["cargo install mdbook-hwscope", "mdbook-hwscope install"],
  mkdocs: ["pip install mkdocs-hwscope", "plugins: [search, hwscope] in mkdocs.yml"],
  "mkdocs-material": ["pip install mkdocs-hwscope", "plugins: [search, hwscope] in mkdocs.yml"],
  zensical: ["pip install mkdocs-hwscope", "markdown_extensions: [mkdocs_hwscope] in zensical.yml"],
  hugo: ["the module import in hugo.toml", "hugo mod get", "(static figures: npm i hwscope once, npx hwscope render-docs public/ after each build)"],
};

const kb = (n) => `${(n / 1024).toFixed(0)} KB`;

/** Lines for one built site of these tools (nothing for the others). */
export function installLines(name, site) {
  const cmds = COMMANDS[name];
  if (!cmds || !site.seconds) return [];
  const typed = cmds.filter((c) => !c.startsWith("(")).length;
  const s = site.seconds;
  const what = { mdbook: "cargo install of the .crate + install", hugo: "module by path (no download)" }[name] ?? "fresh venv + pip install of the wheel";
  const render = s.render != null ? `, render-docs ${s.render.toFixed(1)} s` : "";
  return [`  install to first figure: ${typed} commands typed (${cmds.join("; ")}); ${what} ${s.install.toFixed(1)} s, build with static figures ${s.build.toFixed(1)} s${render}`];
}

/** The sizes of the wheel, the crates and the Hugo module's zip, when built. */
export function sizeLines() {
  const lines = [];
  for (const [what, file] of [["wheel", ARTIFACTS.wheel], ["crate mdbook-hwscope", ARTIFACTS.crate], ["crate hwscope", ARTIFACTS.hwscopeCrate]]) {
    try {
      lines.push(`${what}: ${file.replace(/.*\//, "")} ${kb(statSync(file).size)}`);
    } catch {
      lines.push(`${what}: not built (npm run packages)`);
    }
  }
  return lines;
}
