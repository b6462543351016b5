// The full page's panels, loaded only outside an embed (an embed shows the stage,
// its controls and a caption): the narration, the inspector, the interventions,
// the settings, the clients, what was lost, and how far the run goes.

import { createNarration } from "./narration.js";
import { createInspector } from "./inspector.js";
import { createInterventions } from "./interventions.js";
import { createSettings } from "./settings.js";
import { createClients } from "./clients.js";
import { createLost } from "./lost.js";
import { createFuture } from "./future.js";
import { createKafkaLog } from "./kafkalog.js";

const $ = (id) => document.getElementById(id);

/** `go(n)` shows step n; `intervene(event)` forks the run; `load(json)` runs a scenario. */
export function createPagePanels({ sim, wasm, go, intervene, load }) {
  const narration = createNarration($("narration"), $("live"), sim, go);
  const inspect = createInspector($("inspector"), $("insp-close"), intervene);
  const interventions = createInterventions($("intervene"), intervene);
  const openSettings = createSettings($("settings"), wasm, load);
  const clients = createClients($("clients"));
  const lost = createLost($("lost-panel"), $("lost"), go);
  const future = createFuture($("future"), sim);
  const kafkaLog = createKafkaLog($("kafka-log"), $("kafka-log-note"), sim, go);
  return {
    show(rec, selection, playing) {
      narration.show(rec);
      kafkaLog.show(rec);
      inspect(rec, selection);
      clients(rec);
      lost(rec);
      future(rec, playing);
      interventions(rec);
    },
    inspect,
    interventions,
    openSettings,
    reset: () => {
      narration.reset();
      kafkaLog.reset();
    },
  };
}
