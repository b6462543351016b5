// Clients on the stage: producers and the controller above the brokers,
// consumers below the replica they read from, each consumer's position
// marked on that replica's log.

import { el, set, text, Keyed } from "./svg.js";

function glyph(layer, cls) {
  return new Keyed(layer, () => {
    const g = el("g", { class: cls });
    return { g, box: el("rect", { rx: 9 }, g), label: el("text", {}, g) };
  });
}

/** A rounded label centred on p, or starting just left of it. */
function place(n, p, label, font, start) {
  const w = label.length * font * 0.6 + 12;
  const x = start ? p.x - 10 : p.x - w / 2;
  set(n.box, { x, y: p.y - font / 2 - 5, width: w, height: font + 10 });
  set(n.label, { x: x + w / 2, y: p.y + font / 3 });
  text(n.label, label);
}

export function createClients(layer, markLayer) {
  const producers = glyph(layer, "client producer");
  const controller = glyph(layer, "client controller");
  const consumers = glyph(layer, "client consumer");
  const marks = new Keyed(markLayer, () => {
    const g = el("g", { class: "cmark" });
    return { g, tip: el("path", {}, g), label: el("text", {}, g) };
  });

  return function render(rec, L) {
    producers.sync(rec.producers, (p) => p.id, (n, p) => {
      const pending = p.pending.length ? ` · ${p.pending.length} pending` : "";
      // The batch being retried, if any: its attempt and the error that caused it.
      const retrying = (p.batches ?? []).find((b) => b.attempts > 0);
      const retry = retrying ? ` · retry ${retrying.attempts}${retrying.error && !L.small ? ` (${retrying.error})` : ""}` : "";
      place(n, L.producers.get(p.id), `${p.id} acks=${p.acks}${L.small ? "" : pending}${retry}`, L.font, true);
      set(n.g, { class: `client producer${retrying ? " retrying" : ""}`, "data-producer": p.id, "data-retries": p.retries ?? 0 });
    });
    controller.sync([0], () => 0, (n) => place(n, L.controller, "controller", L.font));

    consumers.sync(rec.consumers, (c) => c.id, (n, c) => {
      const p = L.consumers.get(c.id);
      place(n, p, L.small ? `${c.id} @${c.position}` : `${c.id} · at ${c.position} · read ${c.records_read}`, L.font);
      set(n.g, { "data-consumer": c.id, "data-position": c.position, tabindex: 0, role: "button", "aria-label": `Consumer ${c.id} at offset ${c.position}, ${c.records_read} read` });
    });

    // A consumer's position on the log of the replica it reads from; on the
    // leader, left of the followers' fetch-offset marks.
    marks.sync(rec.consumers, (c) => c.id, (n, c) => {
      const { col } = L.consumers.get(c.id);
      const lead = rec.replicas[col];
      const shift = lead?.role === "leader" ? 13 * (lead.followers?.length ?? 0) + 4 : 0;
      const x = L.cols[col].sx - 2 - shift;
      const y = L.y(c.position);
      set(n.tip, { d: `M${x},${y}l-5,-4v8z` });
      set(n.label, { x: x - 6, y: y + L.font / 3 });
      text(n.label, c.id);
    });
  };
}
