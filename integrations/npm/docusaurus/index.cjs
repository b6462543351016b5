// hwscope/docusaurus: the Docusaurus 3 theme (docs/embedding.md, "Docusaurus").
//
//   themes: ["hwscope/docusaurus"]          // docusaurus.config.js; that is all
//   themes: [["hwscope/docusaurus", { onError: "show" }]]   // a broken block as a box in the page
//
// - ```hwscope code blocks render as hwscope figures (theme/CodeBlock wraps the site's own).
// - Each block is checked when its Markdown file is compiled (loader.cjs): a broken one
//   fails the build naming the file and line.
// - After the build, every block is drawn as a static figure (the same code as
//   `hwscope render-docs`, in Node's WebAssembly) and the browser assets are copied to
//   <outDir>/hwscope/ (the package's static/ folder is one of the site's static
//   directories, so `docusaurus start` serves them too; nothing is copied into the site).
// - In the browser, a page with a block loads <baseUrl>hwscope/www/embed/auto.js, which
//   makes figures live when scrolled to, follows the colour mode (<html data-theme>)
//   and finds the figures of pages reached by client-side navigation.
const path = require("node:path");

const STATIC = path.join(__dirname, "..", "static");

module.exports = function hwscopeTheme(context, options = {}) {
  const onError = options.onError ?? "fail";
  if (!["fail", "show"].includes(onError)) throw new Error(`hwscope/docusaurus: onError must be "fail" or "show", got ${JSON.stringify(onError)}`);
  // The assets at <baseUrl>hwscope/, in `docusaurus build` (copied with the site's own
  // static files) and `docusaurus start` (served from here).
  const dirs = context.siteConfig.staticDirectories;
  if (!dirs.includes(STATIC)) dirs.push(STATIC);
  return {
    name: "hwscope-docusaurus",
    getThemePath() {
      return path.join(__dirname, "theme");
    },
    configureWebpack() {
      // Both bundles: the server's renders the pages' HTML (with data-hwscope-source).
      return {
        module: {
          // `test` is a function: Docusaurus's fallback MDX rule collects the `include` of
          // every rule whose test is a RegExp matching .mdx, and this one has none.
          rules: [{ test: (file) => /\.mdx?$/i.test(file), enforce: "pre", use: [{ loader: path.join(__dirname, "loader.cjs"), options: { siteDir: context.siteDir, onError } }] }],
        },
      };
    },
    async loadContent() {
      const { checkAssets } = await import("../lib/assets.js");
      checkAssets(undefined, { who: "hwscope/docusaurus" });
      return null;
    },
    async postBuild({ outDir }) {
      const { runCli } = await import("../lib/cli.js");
      const args = ["render-docs", outDir];
      if (onError === "show") args.push("--allow-errors");
      const status = runCli(args);
      if (status !== 0) throw new Error(`hwscope/docusaurus: hwscope blocks cannot be drawn (see above)`);
    },
  };
};
