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
    // A permitted loss found while a replica still held the record (a zombie's acks=1
    // write) happens when that replica truncates it: dated then, by the ghost it left.
    const removed = new Map();
    for (const r of rec.replicas) for (const g of r.lost ?? []) removed.set(g.id, Math.max(removed.get(g.id) ?? 0, g.step));
    const lost = (rec.lost ?? []).map((l) => {
      const at = removed.get(l.id);
      // (A broken promise stays dated when it was found: the leader lacked a committed record.)
      return l.allowed && at > l.step ? { ...l, at, found: l.step } : { ...l, at: l.step };
    });
    const key = lost.map((l) => `${l.at}:${l.id}:${l.invariant}`).join();
    if (key === drawn) return;
    drawn = key;
    panel.hidden = !lost.length;
    list.replaceChildren(...lost.map((l) => h("li", { class: l.allowed ? "allowed" : null, "data-id": l.id, "data-step": l.at, "data-found": l.found ?? null },
      h("button", { type: "button", "data-step": l.at, title: `Show step ${l.at}` },
        h("b", {}, `${l.id} at offset ${l.offset}`), ` · ${l.allowed ? "lost, as the configuration permits" : WHAT[l.invariant] ?? l.invariant} · step ${l.at}${l.found != null ? ` (truncated; on no leader since step ${l.found})` : ""}`),
      h("small", { class: "why" }, ` ${l.text}`))));
  };
}
