// Boot. First the stage: the step of the built-in the page opens with, as the
// core computed it at build time (step 0 in www/pkg/first.js, a later one, for a
// share link or #at=, in www/pkg/steps/NAME.json), drawn by the page's own
// renderer before any WebAssembly has arrived (index.html holds the first paint
// for this script and what it imports, and nothing else). Then the core and
// the rest of the page, fetched together; app.js takes over the same stage and
// redraws the same record, so nothing moves. A core that fails to load leaves a
// page that says so instead of a blank one: www/boot.js (a classic script)
// explains what failed, why, and what the host can do.
//
// In a document with an opaque origin (<iframe sandbox="allow-scripts">) on a
// host without CORS headers this module cannot load: boot.js then runs the
// classic bundle (www/pkg/standalone.js, this same code with the core inside
// it), which needs none. The bundle marks itself with globalThis.hwscopeInlineCore
// (www/embed/inline-core.js) and loads no .wasm.

import { showError, catchAll } from "./core/errors.js";
import { h } from "./core/dom.js";
import { readOptions } from "./core/options.js";
import { initTheme } from "./core/theme.js";
import { applyControls } from "./core/chrome.js";
import { createStage } from "./render/stage.js";
import { createStatus } from "./panels/status.js";
import { renderAbout } from "./panels/about.js";
import { fetchFirst, fetchSteps, firstView, startCore } from "./core/first-view.js";
import FIRST, { DEFAULT, TITLES } from "./pkg/first.js";
import { FIRSTS, LINKS, STEPS } from "./pkg/steps.js";

const inline = globalThis.hwscopeInlineCore;
/** How long the page stays unshown while a file the first stage needs is on its way. */
const HOLD_MS = 1500;
run();

function run() {
  document.documentElement.dataset.boot = "running";
  catchAll();
  const opts = readOptions(location.search);
  // ?embed=1: minimal chrome (style.css), set before the first paint of the stage.
  document.documentElement.classList.toggle("embed", opts.embed);
  document.documentElement.classList.toggle("fit", opts.fit);
  initTheme(document.getElementById("theme"), opts);
  applyControls(document, opts.controls);

  // The built-in and step this address opens with, when the page can tell without the
  // core (core/first-view.js): step 0 of the default built-in is in first.js, another's
  // in its own small file; a later step (a share link, #at=, ?from=) is in the
  // built-in's steps file; both asked for before anything else (by www/prefetch.js, as
  // a rule, which arrives first). The classic bundle has every built-in's step 0 in
  // first.js (scripts/standalone.mjs) and fetches nothing.
  const view = firstView(opts, location.hash, LINKS, DEFAULT);
  const known = view && FIRST[view.name];
  const firstFile = view && !inline && !known ? fetchFirst(view, FIRSTS, DEFAULT) : null;
  const stepsFile = view && !inline ? fetchSteps(view, STEPS) : null;

  // The core and the page's modules start loading now, in parallel with drawing;
  // the wasm itself too, while its glue module is on its way.
  // The first core (no narration: the full one follows once the page is idle, app.js),
  // or the full core for a share link, which only it reads (core/first-view.js).
  const which = startCore(location.hash, LINKS).glue;
  const wasmUrl = inline ? null : which === "first" ? new URL("./pkg/hwscope_first_bg.wasm", import.meta.url) : new URL("./pkg/hwscope_bg.wasm", import.meta.url);
  // A status other than 200 is named (boot.js says which file and what to fix).
  // www/start.js or www/prefetch.js may have asked for it already.
  const early = wasmUrl && globalThis.hwscopeCore?.url === wasmUrl.href ? globalThis.hwscopeCore.response : null;
  const bytes = inline ? null : (early ?? fetch(wasmUrl)).then((r) => {
    if (!r.ok) throw Object.assign(new Error(`${r.status} ${r.statusText} for ${r.url}`), { name: "HttpError", status: r.status, url: r.url });
    return r;
  });
  // Awaited only once hwscope.js has arrived: until then a 404 is not an unhandled rejection.
  bytes?.catch(() => {});
  async function loadCore() {
    if (inline) {
      const wasm = await inline();
      performance.mark("hwscope-core-ready");
      return wasm;
    }
    const wasm = which === "first" ? await import("./pkg/hwscope_first.js") : await import("./pkg/hwscope.js");
    await wasm.default({ module_or_path: bytes });
    performance.mark("hwscope-core-ready");
    return wasm;
  }
  const app = import("./app.js");
  const core = loadCore();
  // The full page's panels; an embed shows only the stage and loads none of them.
  const pagePanels = opts.embed ? Promise.resolve(null) : import("./panels/page.js");

  // The stage sees the records the live page will show, in the same order (step 0,
  // ?from=, the step asked for), so what it draws is what stays.
  const boot = { stage: createStage(document.getElementById("stage"), () => {}), status: createStatus(document.getElementById("status"), document.getElementById("violations")) };
  let taken = false;
  let drawn = null;
  function draw(first, later = [], file = null) {
    if (taken) return;
    // The records the first core does not write (it writes none): of the steps drawn, and
    // of every step in the steps file (app.js lends them to the run: sim.js lend).
    drawn = { json: first.json, records: [first.record, ...later, ...(file?.records ?? [])], end: file?.end };
    renderAbout(document.getElementById("about"), { title: first.title, description: first.description, embed: opts.embed });
    boot.status.scenario({ seed: first.seed, preset: first.preset });
    boot.stage.step(first.record, first.initialEnd, true, first.room);
    for (const rec of later) boot.stage.step(rec);
    const shown = later.at(-1) ?? first.record;
    boot.status.step(shown, false);
    boot.status.time(shown.time_ms);
    boot.stage.frame(shown.time_ms);
    document.getElementById("live").textContent = shown.text;
    // Room for what the live page will say of a link with a state hash (app.js takes this
    // span over), so the status line does not wrap under the stage when it comes.
    if (view.hash) document.getElementById("status").append(h("span", { class: "verified pending" }, "link reproduced exactly ✓"));
    performance.mark("hwscope-first-stage");
    document.documentElement.dataset.boot = "drawn";
  }
  document.documentElement.dataset.boot = "started";
  if (view && !view.steps.length && known) draw(known);
  else if (inline) {
    // The classic bundle (a sandboxed frame) has its core with it but no steps files (they
    // would be cross-origin fetches): the page stays unshown until the core draws the
    // step asked for, a moment away, instead of showing an empty stage that then fills
    // (boot.js shows the step's picture meanwhile, where there is one).
    document.documentElement.dataset.boot = "waiting";
  }
  if (firstFile || stepsFile) {
    // Meanwhile the page is not shown (style.css: data-boot="waiting"), so the stage is
    // not drawn into a page already on screen: nothing moves when it comes.
    document.documentElement.dataset.boot = "waiting";
    const show = () => {
      if (document.documentElement.dataset.boot === "waiting") document.documentElement.dataset.boot = "started";
    };
    setTimeout(show, HOLD_MS);
    Promise.all([firstFile ?? known, stepsFile])
      .then(([first, file]) => {
        // Once the page is shown (HOLD_MS passed), drawing into it would move it: the core draws.
        if (!first || document.documentElement.dataset.boot !== "waiting") return;
        if (!view.steps.length) return draw(first);
        if (!file || (view.s && file.s !== view.s)) return;
        const last = file.records.length - 1;
        // Past a short run's end the live page shows its last step; past the file's, only the core knows.
        const later = view.steps.map((n) => (n <= last ? file.records[n] : file.end ? file.records[last] : null));
        if (!later.includes(null)) draw(first, later, file);
      })
      .catch(() => {})
      .finally(show);
  }

  // The core, or a module of the page, that does not load: boot.js shows what failed,
  // the likely cause and the fix in the page (with a picture of the step asked for);
  // without boot.js, the banner says it.
  const failed = (what) => (e) => {
    // boot.js (loaded async) may not have run yet: it reads hwscopeFailed when it does.
    globalThis.hwscopeFailed = [what, e, wasmUrl?.href];
    const guard = globalThis.hwscopeBoot;
    if (guard) return guard.fail(what, e, wasmUrl?.href);
    document.getElementById("about").textContent = "The simulation could not start.";
    showError(`The simulation core (WebAssembly) could not be loaded: ${e.message}. If you are running from a checkout, run \`npm run build\` (or \`npm start\`) and reload.`, { fatal: true });
  };
  // The built-ins as far as the page knows them without the full core: every one's
  // title, and the text of the one opened (first.js, or its first/NAME.json).
  const builtins = (fetched) => {
    const data = { ...FIRST, ...(fetched && view ? { [view.name]: fetched } : {}) };
    return Object.entries(TITLES).map(([name, title]) => ({ name, title, ...(data[name]?.json && { json: data[name].json, description: data[name].description, record: data[name].record }) }));
  };
  core.then(
    (wasm) => Promise.all([app, pagePanels, firstFile]).then(
      ([m, panels, fetched]) => {
        taken = true;
        // The records of the steps drawn (written at build time), and the rest of the
        // built-in's steps 0..64: the first core writes none (app.js lends them to the
        // run). Its steps file, when the first stage did not need it, is asked for now (a
        // few KB, after the core: the first load is not held up by it).
        const json = (fetched ?? known)?.json;
        const file = inline || which !== "first" || !view || !json ? null : (stepsFile ?? fetchSteps({ ...view, steps: [1] }, STEPS));
        const lend = json ? { json, records: drawn?.json === json ? drawn.records : [], file } : null;
        m.start(wasm, opts, { ...boot, pagePanels: panels, lend, builtins: builtins(fetched) });
      },
      failed("module"),
    ),
    failed("core"),
  );
}
