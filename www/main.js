// Boot. First the stage: step 0 of the built-in the page opens with, as the
// core computed it at build time (www/pkg/first.js), drawn by the page's own
// renderer before any WebAssembly has arrived (index.html holds the first paint
// for this script and what it imports, and nothing else). Then the core and
// the rest of the page, fetched together; app.js takes over the same stage and
// redraws the same record, so nothing moves. A core that fails to load leaves a
// page that says so instead of a blank one.

import { showError, catchAll } from "./core/errors.js";
import { readOptions } from "./core/options.js";
import { initTheme } from "./core/theme.js";
import { applyControls } from "./core/chrome.js";
import { createStage } from "./render/stage.js";
import { createStatus } from "./panels/status.js";
import { renderAbout } from "./panels/about.js";
import FIRST, { DEFAULT } from "./pkg/first.js";

catchAll();
const opts = readOptions(location.search);
// ?embed=1: minimal chrome (style.css), set before the first paint of the stage.
document.documentElement.classList.toggle("embed", opts.embed);
document.documentElement.classList.toggle("fit", opts.fit);
initTheme(document.getElementById("theme"), opts);
applyControls(document, opts.controls);

// The core and the page's modules start loading now, in parallel with drawing;
// the wasm itself too, while its glue module is on its way.
const bytes = fetch(new URL("./pkg/hwscope_bg.wasm", import.meta.url));
async function loadCore() {
  const wasm = await import("./pkg/hwscope.js");
  await wasm.default({ module_or_path: bytes });
  performance.mark("hwscope-core-ready");
  return wasm;
}
const app = import("./app.js");
const core = loadCore();
// The full page's panels; an embed shows only the stage and loads none of them.
const pagePanels = opts.embed ? Promise.resolve(null) : import("./panels/page.js");

/** The built-in this address opens with, if the page can draw it before the core: a
 *  share link (`#v=…`) carries a scenario only the core can read. */
function firstBuiltin() {
  if (/(^#|&)v=/.test(location.hash)) return null;
  return FIRST[opts.scenario] ?? (opts.scenario ? null : FIRST[DEFAULT]);
}

const boot = { stage: createStage(document.getElementById("stage"), () => {}), status: createStatus(document.getElementById("status"), document.getElementById("violations")) };
const first = firstBuiltin();
if (first) {
  renderAbout(document.getElementById("about"), { title: first.title, description: first.description, embed: opts.embed });
  boot.status.scenario({ seed: first.seed, preset: first.preset });
  boot.status.step(first.record, false);
  boot.status.time(first.record.time_ms);
  boot.stage.step(first.record, first.initialEnd, true, first.room);
  boot.stage.frame(first.record.time_ms);
  document.getElementById("live").textContent = first.record.text;
  performance.mark("hwscope-first-stage");
}

core.then(
  async (wasm) => (await app).start(wasm, opts, { ...boot, pagePanels: await pagePanels }),
  (e) => {
    document.getElementById("about").textContent = "The simulation could not start.";
    showError(`The simulation core (WebAssembly) could not be loaded: ${e.message}. If you are running from a checkout, run \`npm run build\` (or \`npm start\`) and reload.`, { fatal: true });
  },
);
