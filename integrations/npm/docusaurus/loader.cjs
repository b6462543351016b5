// Runs before Docusaurus's MDX loader on every .md/.mdx file: checks each ```hwscope
// block (a broken one fails the build naming the file and line) and marks its fence
// with the file and line, which the page's figure carries (data-hwscope-source) so
// the static figures drawn after the build name the Markdown too.
const path = require("node:path");

module.exports = function hwscopeLoader(source) {
  const done = this.async();
  if (!source.includes("hwscope")) return done(null, source);
  const { siteDir, onError } = this.getOptions();
  const file = path.relative(siteDir, this.resourcePath).split(path.sep).join("/");
  import("../lib/markdown.js").then(
    ({ checkAndMark }) => {
      try {
        done(null, checkAndMark(source, file, { onError }));
      } catch (e) {
        // A plain Error: webpack's cache can store it (it has no serializer for ours).
        done(e.name === "HwscopeBlockError" ? new Error(e.message) : e);
      }
    },
    (e) => done(e),
  );
};
