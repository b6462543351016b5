// hwscope/vitepress: VitePress 1 (docs/embedding.md, "VitePress").
//
//   // .vitepress/config.mjs
//   import { withHwscope } from "hwscope/vitepress";
//   export default withHwscope(defineConfig({ … }));            // { onError: "show" } as 2nd argument
//   // .vitepress/theme/index.js
//   import DefaultTheme from "vitepress/theme";
//   import { withHwscope } from "hwscope/vitepress/client";
//   export default withHwscope(DefaultTheme);
//
// At build time a markdown-it rule draws each ```hwscope fence as its static figure
// (hwscope/render: the same code as the Rust command line); a broken block fails the
// build naming the file and line. The assets are served from the package by the dev
// server and copied to <outDir>/hwscope/ after a build. The client part loads auto.js
// only on pages that have a figure, after each route change too.
import { figureHtml } from "../lib/render.js";
import { checkAssets } from "../lib/assets.js";
import { assetsMiddleware, copyAssets } from "../lib/serve.js";

/** The markdown-it plugin: ```hwscope fences become static figures. */
export function hwscopeMarkdownIt(md, { onError = "fail" } = {}) {
  const fence = md.renderer.rules.fence;
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    const lang = token.info.trim().split(/[\s{,]/)[0];
    if (lang !== "hwscope") return fence(tokens, idx, options, env, self);
    const file = env?.relativePath ?? env?.path ?? "";
    // v-pre: the figure is HTML, not a Vue template (a block may hold {{ }}).
    return `<div class="hwscope-vitepress" v-pre>${figureHtml(token.content, { file, line: token.map ? token.map[0] + 1 : undefined, onError })}</div>\n`;
  };
}

/** The VitePress config with hwscope's markdown rule, dev-server assets and post-build copy. */
export function withHwscope(config = {}, { onError = "fail" } = {}) {
  if (!["fail", "show"].includes(onError)) throw new Error(`hwscope/vitepress: onError must be "fail" or "show", got ${JSON.stringify(onError)}`);
  checkAssets(undefined, { who: "hwscope/vitepress" });
  const markdown = config.markdown ?? {};
  const vite = config.vite ?? {};
  return {
    ...config,
    markdown: {
      ...markdown,
      config(md) {
        markdown.config?.(md);
        md.use(hwscopeMarkdownIt, { onError });
      },
    },
    vite: {
      ...vite,
      plugins: [
        ...(vite.plugins ?? []),
        {
          name: "hwscope-assets",
          configureServer(server) {
            server.middlewares.use(assetsMiddleware(config.base ?? "/"));
          },
        },
      ],
    },
    async buildEnd(site) {
      await config.buildEnd?.(site);
      copyAssets(site.outDir);
    },
  };
}

export default withHwscope;
