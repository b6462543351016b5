// What was lost in the run, kept beside the narration (the core lists it in
// every record from the step it was found on: `lost`): each record acknowledged
// or read and then lost, or only permitted to be lost (`allowed`), with the step
// that found it; a click shows that step.

import { h } from "../core/dom.js";

const WHAT = {
  "acked-record-lost": "acknowledged (acks=all), then lost",
  "consumed-record-lost": "read by a consumer, then lost",
};

export function createLost(panel, list, jump) {
  let drawn = "";
  list.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-step]");
    if (b) jump(Number(b.dataset.step));
  });
  return function render(rec) {
    const lost = rec.lost ?? [];
    const key = lost.map((l) => `${l.step}:${l.id}:${l.invariant}`).join();
    if (key === drawn) return;
    drawn = key;
    panel.hidden = !lost.length;
    list.replaceChildren(...lost.map((l) => h("li", { class: l.allowed ? "allowed" : null, "data-id": l.id, "data-step": l.step },
      h("button", { type: "button", "data-step": l.step, title: `Show step ${l.step}` },
        h("b", {}, `${l.id} at offset ${l.offset}`), ` · ${l.allowed ? "lost, as the configuration permits" : WHAT[l.invariant] ?? l.invariant} · step ${l.step}`),
      h("small", { class: "why" }, ` ${l.text}`))));
  };
}
