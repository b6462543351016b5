// The playground's side of the postMessage API (protocol.js): commands
// only from the parent page (and from ?origin= when given), events out to it.

import { COMMANDS, VERSION, message, nameOf } from "./protocol.js";

/** `seek(n)` shows step n, computing up to it first when it lies beyond what is known. */
export function createEmbedApi(origin, player, setTheme, seek) {
  const parent = window.parent;
  const post = (name, fields) => parent !== window && parent.postMessage(message(name, fields), origin || "*");
  const go = (n) => {
    player.pause();
    player.go(n);
  };
  const run = {
    play: () => player.play(),
    pause: () => player.pause(),
    step: () => go(player.step + 1),
    back: () => go(player.step - 1),
    seek: (m) => seek(m.at),
    theme: (m) => setTheme(m.theme),
    ping: () => post("ready", info),
  };
  let info = null;
  let hw = null;
  const waiting = [];

  addEventListener("message", (e) => {
    const name = nameOf(e.data);
    if (!name || e.source !== parent || parent === window || (origin && e.origin !== origin)) return;
    const m = e.data;
    const why = m.v !== VERSION ? `this playground speaks protocol v${VERSION}`
      : !COMMANDS.includes(name) ? `commands are ${COMMANDS.join(", ")}`
      : name === "seek" && !(Number.isSafeInteger(m.at) && m.at >= 0) ? "seek needs at: a step number"
      : name === "theme" && !["light", "dark", "auto"].includes(m.theme) ? "theme is light, dark or auto" : "";
    if (why) post("error", { command: name, message: why });
    else if (info) run[name](m);
    else waiting.push(() => run[name](m));
  });

  let height = 0;
  new ResizeObserver(() => {
    const h = Math.ceil(document.body.getBoundingClientRect().height);
    if (h !== height) post("resize", { height: (height = h) });
  }).observe(document.body);

  const hws = (rec) => new Map(rec.replicas.map((r) => [r.broker, r.hw]));
  return {
    ready(rec, title) {
      info = { at: rec.step, title };
      hw = hws(rec);
      post("ready", info);
      waiting.splice(0).forEach((f) => f());
    },
    /** A step is shown: say so, and name each broker whose HW moved since the last one. */
    step(rec) {
      if (!info) return;
      info.at = rec.step;
      post("step", { at: rec.step, time_ms: rec.time_ms, text: rec.text });
      for (const r of rec.replicas) {
        const was = hw?.get(r.broker);
        if (was !== undefined && was !== r.hw) post("hw-changed", { broker: r.broker, from: was, to: r.hw, at: rec.step });
      }
      hw = hws(rec);
    },
    reset() {
      hw = null;
    },
  };
}
