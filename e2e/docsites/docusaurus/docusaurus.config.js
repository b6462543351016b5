// A small Docusaurus site for the docs-site tests: the classic preset, and
// docusaurus-theme-hwscope for ```hwscope blocks. hwscope's `npm run dist:docs`
// folder is copied to static/hwscope/ before the build.
module.exports = {
  title: "hwscope in Docusaurus",
  url: "http://localhost",
  baseUrl: "/",
  onBrokenLinks: "warn",
  presets: [["classic", { docs: { routeBasePath: "docs", sidebarPath: false }, blog: false }]],
  themes: ["docusaurus-theme-hwscope"],
  themeConfig: { hwscope: { assets: "/hwscope/" } },
};
