// Boot and wiring: load the wasm core, pick a scenario, and connect the
// player, the stage and the panels. Nothing here computes protocol state:
// the page draws the step records the core returns.

import { Sim } from "./sim.js";
import { Player } from "./player.js";
import { createStage } from "./render/stage.js";
import { createNarration } from "./narration.js";
import { createInspector } from "./inspector.js";
import { createControls } from "./controls.js";
import { createInterventions } from "./interventions.js";
import { createSettings } from "./settings.js";
import { createStatus } from "./status.js";
import { renderClients } from "./clients.js";
import { initTheme } from "./theme.js";
import { showError, clearError, catchAll } from "./errors.js";
import { h } from "./dom.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

async function loadCore() {
  const url = params.get("dev") === "fixture" ? "./dev/fixture.js" : "./pkg/hwscope.js";
  const wasm = await import(url);
  await wasm.default();
  return wasm;
}

async function boot() {
  catchAll();
  initTheme($("theme"));
  let wasm;
  try {
    wasm = await loadCore();
  } catch (e) {
    $("about").textContent = "The simulation could not start.";
    showError(`The simulation core (WebAssembly) could not be loaded: ${e.message}. If you are running from a checkout, run \`npm run build\` (or \`npm start\`) and reload.`, { fatal: true });
    return;
  }

  const sim = new Sim(wasm.Playground);
  const scenarios = wasm.builtinScenarios();
  let selection = null;
  let shown = null;
  let json = "";

  const stage = createStage($("stage"), (sel) => pick(sel));
  const status = createStatus($("status"), $("violations"));
  const narration = createNarration($("narration"), $("live"), sim, (n) => {
    player.pause();
    player.go(n);
  });
  const inspect = createInspector($("inspector"), $("insp-close"), (event) => intervene(event));
  const player = new Player(sim, show, (t) => {
    stage.frame(t);
    status.time(t);
  }, (on) => controls.playing(on));
  const controls = createControls(document, player, sim);
  const interventions = createInterventions($("intervene"), (event) => intervene(event));
  const openSettings = createSettings($("settings"), wasm, (text) => load(text));

  function show(rec) {
    shown = rec;
    stage.step(rec, sim.initialEnd);
    status.step(rec);
    narration.show(rec);
    inspect(rec, selection);
    renderClients($("clients"), rec);
    interventions(rec);
    controls.update(rec.step);
  }

  function pick(sel) {
    selection = sel;
    stage.select(sel);
    if (shown) inspect(shown, sel);
  }
  $("insp-close").addEventListener("click", () => pick(null));

  function intervene(event) {
    player.pause();
    try {
      player.showRecord(sim.apply(player.step, event));
      clearError();
      extendLater();
    } catch (e) {
      if (e.name === "CoreFailure") throw e;
      showError(`That intervention was refused: ${e.message}`);
    }
  }

  /** Learns the run's length in short slices when the browser is idle, so
   *  the scrubber spans the whole run without ever delaying a frame. */
  let extending = 0;
  function extendLater() {
    cancelIdleCallback(extending);
    if (sim.done) return;
    extending = requestIdleCallback((deadline) => {
      while (deadline.timeRemaining() > 3 && !sim.extend(100));
      controls.update(player.step);
      extendLater();
    }, { timeout: 2000 });
  }

  function load(text) {
    player.pause();
    let first;
    try {
      first = sim.load(text);
    } catch (e) {
      if (e.name === "CoreFailure") throw e;
      showError(`This scenario was refused: ${e.message}`);
      return false;
    }
    json = text;
    clearError();
    selection = null;
    stage.select(null);
    narration.reset();
    status.scenario(sim.scenario);
    const meta = scenarios.find((s) => s.json === text);
    $("about").replaceChildren(h("b", {}, sim.scenario.title || meta?.title || "Custom scenario"), meta?.description ? ` ${meta.description}` : "");
    player.showRecord(first);
    extendLater();
    return true;
  }

  const picker = $("scenario");
  picker.replaceChildren(...scenarios.map((s) => h("option", { value: s.name }, s.title || s.name)));
  picker.addEventListener("change", () => {
    const s = scenarios.find((x) => x.name === picker.value);
    if (s) load(s.json);
  });
  $("settings-open").addEventListener("click", () => openSettings(json));
  picker.disabled = false;
  $("settings-open").disabled = false;

  const wanted = params.get("scenario");
  const initial = scenarios.find((s) => s.name === wanted) ?? scenarios.find((s) => s.name === "seed-walkthrough") ?? scenarios[0];
  picker.value = initial.name;
  load(initial.json);
  if (wanted && initial.name !== wanted) showError(`There is no built-in scenario "${wanted}"; showing "${initial.name}".`);
  performance.mark("hwscope-first-frame");
}

boot();
