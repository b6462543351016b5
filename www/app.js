// Wiring: pick a scenario and connect the player, the stage and the panels
// to the core. Nothing here computes protocol state: the page draws the step
// records the core returns.

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
import { h } from "./dom.js";
import { showError, clearError } from "./errors.js";

const $ = (id) => document.getElementById(id);

export function start(wasm) {
  const params = new URLSearchParams(location.search);
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
  const controls = createControls(document, player, sim, () => load(json));
  const interventions = createInterventions($("intervene"), (event) => intervene(event));
  const openSettings = createSettings($("settings"), wasm, (text) => load(text));

  let fresh = true;
  function show(rec) {
    shown = rec;
    stage.step(rec, sim.initialEnd, fresh);
    fresh = false;
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
      if (document.hidden) return;
      while (deadline.timeRemaining() > 4 && !sim.extend(10));
      controls.update(player.step);
      extendLater();
    }, { timeout: 2000 });
  }
  document.addEventListener("visibilitychange", () => document.hidden || extendLater());

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
    fresh = true;
    status.scenario(sim.scenario);
    const meta = scenarios.find((s) => s.json === text);
    $("scenario").value = meta ? meta.name : "";
    // The description is the lesson; on a phone it folds away above the stage.
    const description = sim.scenario.description || meta?.description;
    const title = h("b", {}, sim.scenario.title || meta?.title || "Custom scenario");
    $("about").replaceChildren(description ? h("details", { open: innerWidth > 640 ? "" : null }, h("summary", {}, title), description) : title);
    player.showRecord(first);
    if (!performance.getEntriesByName("hwscope-first-frame").length) performance.mark("hwscope-first-frame");
    // Most runs are short: learn their whole length now, the rest when idle.
    const started = performance.now();
    while (performance.now() - started < 8 && !sim.extend(50));
    controls.update(first.step);
    extendLater();
    return true;
  }

  const picker = $("scenario");
  picker.replaceChildren(...scenarios.map((s) => h("option", { value: s.name }, s.title || s.name)), h("option", { value: "", disabled: "" }, "Custom (from Settings)"));
  picker.addEventListener("change", () => {
    const s = scenarios.find((x) => x.name === picker.value);
    if (s) load(s.json);
  });
  $("settings-open").addEventListener("click", () => openSettings(json));
  picker.disabled = false;
  $("settings-open").disabled = false;

  const wanted = params.get("scenario");
  const initial = scenarios.find((s) => s.name === wanted) ?? scenarios.find((s) => s.name === "seed-walkthrough") ?? scenarios[0];
  load(initial.json);
  if (wanted && initial.name !== wanted) showError(`There is no built-in scenario "${wanted}"; showing "${initial.name}".`);
}
