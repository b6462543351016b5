// A small Docusaurus site for the docs-site tests: the classic preset, and the hwscope
// package's theme for ```hwscope blocks (installed from the packed tarball).
module.exports = {
  title: "hwscope in Docusaurus",
  url: "http://localhost",
  baseUrl: "/",
  onBrokenLinks: "warn",
  presets: [["classic", { docs: { routeBasePath: "docs", sidebarPath: false }, blog: false }]],
  themes: ["hwscope/docusaurus"],
};
