// The full page's panels, loaded only outside an embed (an embed shows the stage,
// its controls and a caption): the narration, the inspector, the interventions,
// the clients, what was lost, and how far the run goes. Three load on first use,
// as the page's other dialogs and Learn do: "How to read this" (its lines, when it is
// first opened), the settings (their module and style
// sheet, when Settings is first pressed) and the broker log (when its panel, closed
// at first, is first opened; it then reads the lines of the steps before the one
// shown back from the core, as after a jump). How far the run goes (future.js) says
// nothing until the full core runs the page (the first core knows no pending timers):
// its module loads then, not in the first load; its line keeps its room meanwhile.

import { createNarration } from "./narration.js";
import { createInspector } from "./inspector.js";
import { createInterventions } from "./interventions.js";
import { createClients } from "./clients.js";
import { createLost } from "./lost.js";
import { onDemand } from "../core/ondemand.js";

const $ = (id) => document.getElementById(id);

/** `go(n)` shows step n; `intervene(event)` forks the run; `load(json)` runs a scenario;
 *  `say(text)` shows a notice (a part that could not be loaded). */
export function createPagePanels({ sim, wasm, go, intervene, load, say, ready = async () => true }) {
  const narration = createNarration($("narration"), $("live"), sim, go);
  const inspect = createInspector($("inspector"), $("insp-close"), intervene);
  const interventions = createInterventions($("intervene"), intervene, ready);
  const clients = createClients($("clients"));
  const lost = createLost($("lost-panel"), $("lost"), go);
  // How far the run goes: the full core's to say (sim.futureAt is null before it runs), so
  // its module comes with the full core (whenFull), or at the first step shown after.
  const futureModule = onDemand(() => import("./future.js"), "How far the run goes", say);
  let future = null;
  const loadFuture = () => futureModule(true).then((m) => (future ??= m?.createFuture($("future"), sim) ?? null));
  let told = null;
  const tellFuture = (rec, playing) => {
    if (future) return future(rec, playing);
    told = [rec, playing];
    // Silent on a failure (nothing was asked for): the next step shown asks again.
    if (sim.full)
      loadFuture().then(() => {
        if (!future || !told) return;
        const [shown, on] = told;
        told = null;
        future(shown, on);
      });
  };

  const settingsModule = onDemand(() => import("./settings.js"), "Settings", say);
  let settings = null;
  const openSettings = async (json) => {
    const m = await settingsModule();
    if (!m) return;
    settings ??= m.createSettings($("settings"), wasm, load);
    settings(json);
  };

  // The broker log: nothing until its panel is first opened. Its note (a preset with no
  // broker log) is said here, so it is there the moment the panel opens.
  const klog = $("kafka-log").closest("details");
  const klogNote = $("kafka-log-note");
  const logModule = onDemand(() => import("./kafkalog.js"), "The broker log", say);
  let kafkaLog = null;
  let shown = null;
  const openLog = async () => {
    if (!klog.open || kafkaLog) return;
    // Its lines are the full core's (the first core writes none): app.js swaps it in.
    if (!(await ready())) return;
    const m = await logModule();
    if (!m || kafkaLog) return;
    kafkaLog = m.createKafkaLog($("kafka-log"), sim, go);
    if (shown) kafkaLog.show(shown, true);
  };
  klog.addEventListener("toggle", openLog);
  openLog();

  // "How to read this": its lines when it is first opened, or once the page is idle (warm).
  const legend = $("legend-list");
  const legendModule = onDemand(() => import("./legend.js"), "How to read this", say);
  const fillLegend = (ahead) =>
    legendModule(ahead).then((m) => {
      if (m && !legend.firstChild) legend.innerHTML = m.LEGEND.join("");
    });
  legend.closest("details").addEventListener("toggle", (e) => e.target.open && fillLegend(false));

  return {
    show(rec, selection, playing) {
      shown = rec;
      narration.show(rec);
      klogNote.textContent = (sim.scenario?.preset ?? "kafka-4.0") === "textbook" ? "The textbook preset models no Kafka version: it has no broker log." : "";
      kafkaLog?.show(rec);
      inspect(rec, selection);
      clients(rec);
      lost(rec);
      tellFuture(rec, playing);
      interventions(rec);
    },
    inspect,
    interventions,
    openSettings,
    /** Downloads what shows only the full core's results (app.js: beside the full core). */
    whenFull: loadFuture,
    /** Fetches what loads on first use, before it is used (app.js: once the page is idle). */
    warm: () => {
      settingsModule(true);
      logModule(true);
      fillLegend(true);
    },
    reset: () => {
      narration.reset();
      kafkaLog?.reset();
    },
  };
}
