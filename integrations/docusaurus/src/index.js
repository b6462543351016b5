// docusaurus-theme-hwscope: ```hwscope code blocks become hwscope figures.
// Wraps the site's CodeBlock (as @docusaurus/theme-live-codeblock does): a
// block in the `hwscope` language renders as a placeholder that hwscope's
// auto.js, loaded in the browser from the site's static files, makes live.
// Options: themeConfig.hwscope.assets, where the folder `npm run dist:docs`
// writes is served (default "/hwscope/", under baseUrl).
const path = require("node:path");

module.exports = function themeHwscope() {
  return {
    name: "docusaurus-theme-hwscope",
    getThemePath() {
      return path.resolve(__dirname, "theme");
    },
  };
};
