// Boot: fetch the wasm core and the page's modules in parallel (the core
// compiles while the UI loads), then hand over to app.js. A core that fails
// to load leaves a page that says so instead of a blank one.

import { showError, catchAll } from "./core/errors.js";
import { readOptions } from "./core/options.js";
import { initTheme } from "./core/theme.js";

catchAll();
const opts = readOptions(location.search);
// ?embed=1: minimal chrome (style.css), set before the first paint of the stage.
document.documentElement.classList.toggle("embed", opts.embed);
document.documentElement.classList.toggle("fit", opts.fit);
initTheme(document.getElementById("theme"), opts);

async function loadCore() {
  const wasm = await import("./pkg/hwscope.js");
  await wasm.default();
  performance.mark("hwscope-core-ready");
  return wasm;
}

const app = import("./app.js");
loadCore().then(
  async (wasm) => (await app).start(wasm, opts),
  (e) => {
    document.getElementById("about").textContent = "The simulation could not start.";
    showError(`The simulation core (WebAssembly) could not be loaded: ${e.message}. If you are running from a checkout, run \`npm run build\` (or \`npm start\`) and reload.`, { fatal: true });
  },
);
