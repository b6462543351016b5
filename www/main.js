// Boot: fetch the wasm core and the page's modules in parallel (the core
// compiles while the UI loads), then hand over to app.js. A core that fails
// to load leaves a page that says so instead of a blank one.

import { showError, catchAll } from "./errors.js";
import { initTheme } from "./theme.js";

catchAll();
// ?embed=1: minimal chrome (style.css), set before the first paint of the stage.
const q = new URLSearchParams(location.search);
document.documentElement.classList.toggle("embed", q.get("embed") === "1");
// ?fit=1 (the Share dialog's iframe snippet): fill the frame, whatever height it was given.
document.documentElement.classList.toggle("fit", q.get("fit") === "1");
initTheme(document.getElementById("theme"));

async function loadCore() {
  const wasm = await import("./pkg/hwscope.js");
  await wasm.default();
  performance.mark("hwscope-core-ready");
  return wasm;
}

const app = import("./app.js");
loadCore().then(
  async (wasm) => (await app).start(wasm),
  (e) => {
    document.getElementById("about").textContent = "The simulation could not start.";
    showError(`The simulation core (WebAssembly) could not be loaded: ${e.message}. If you are running from a checkout, run \`npm run build\` (or \`npm start\`) and reload.`, { fatal: true });
  },
);
