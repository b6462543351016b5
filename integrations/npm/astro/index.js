// hwscope/astro: an Astro integration, for Starlight and plain Astro sites
// (docs/embedding.md, "Starlight / Astro").
//
//   // astro.config.mjs
//   import hwscope from "hwscope/astro";
//   integrations: [starlight({ … }), hwscope()],       // hwscope({ onError: "show" })
//
// A remark plugin draws each ```hwscope fence as its static figure (hwscope/render:
// the same code as the Rust command line). Being a remark plugin, it runs before
// Expressive Code (Starlight's code blocks are a rehype plugin), which so never sees
// the block. A broken block fails the build naming the Markdown file and line. The
// figure is followed by the module script <base>hwscope/www/embed/auto.js (only pages
// with a block have it); auto.js follows Starlight's data-theme and Astro's view
// transitions (which replace <body>). The assets are served from the package by the
// dev server and copied to the output after a build.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { checkAssets } from "../lib/assets.js";
import { figureHtml } from "../lib/render.js";
import { assetsMiddleware, copyAssets } from "../lib/serve.js";

/** Blocks that cannot be drawn, by `file:line`: Astro's content layer logs an error thrown
 *  while a page is rendered and builds on, so the integration fails the build at its end. */
const broken = new Map();

/** The remark plugin: code nodes in the hwscope language become the figure's HTML. */
export function remarkHwscope({ onError = "fail", root = process.cwd(), base = "/" } = {}) {
  const script = `<script type="module" src="${base.replace(/\/?$/, "/")}hwscope/www/embed/auto.js"></script>`;
  return (tree, vfile) => {
    const path = vfile?.path ?? vfile?.history?.[0] ?? "";
    const file = path ? relative(root, path).split("\\").join("/") : "";
    // Astro hands remark the page without its front matter: lines are counted from the file's top.
    const offset = path ? linesBefore(path, String(vfile.value ?? "")) : 0;
    let found = false;
    const walk = (node) => {
      if (!node.children) return;
      node.children = node.children.map((child) => {
        if (child.type === "code" && child.lang === "hwscope") {
          found = true;
          const line = child.position?.start?.line === undefined ? undefined : child.position.start.line + offset;
          let html;
          try {
            html = figureHtml(`${child.value}\n`, { file, line });
          } catch (e) {
            if (e.name !== "HwscopeBlockError") throw e;
            if (onError !== "show") broken.set(`${e.file}:${e.fileLine}`, e.message);
            html = e.errorBox;
          }
          return { type: "html", value: html };
        }
        walk(child);
        return child;
      });
    };
    walk(tree);
    if (found) tree.children.push({ type: "html", value: script });
  };
}

/** How many lines of the file come before `text`: its front matter, when Astro took it off. */
function linesBefore(path, text) {
  let disk;
  try {
    disk = readFileSync(path, "utf8");
  } catch {
    return 0;
  }
  const front = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/.exec(disk);
  if (!front || text.startsWith("---")) return 0;
  return front[0].split("\n").length - 1;
}

/** The integration. */
export default function hwscope({ onError = "fail" } = {}) {
  if (!["fail", "show"].includes(onError)) throw new Error(`hwscope/astro: onError must be "fail" or "show", got ${JSON.stringify(onError)}`);
  let base = "/";
  return {
    name: "hwscope",
    hooks: {
      "astro:config:setup": ({ config, updateConfig }) => {
        checkAssets(undefined, { who: "hwscope/astro" });
        base = config.base ?? "/";
        updateConfig({ markdown: { remarkPlugins: [[remarkHwscope, { onError, root: fileURLToPath(config.root), base }]] } });
      },
      "astro:server:setup": ({ server }) => {
        server.middlewares.use(assetsMiddleware(base));
      },
      "astro:build:done": ({ dir, logger }) => {
        if (broken.size) {
          for (const message of broken.values()) logger.error(message);
          throw new Error(`hwscope: ${broken.size} hwscope block${broken.size > 1 ? "s" : ""} cannot be drawn: ${[...broken.values()].join("; ")} (hwscope({ onError: "show" }) shows them in the page instead)`);
        }
        copyAssets(fileURLToPath(dir));
      },
    },
  };
}
