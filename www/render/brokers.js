// Broker headers: name, role, leader epoch, ISR membership, LEO and HW; with
// Eligible Leader Replicas on (kafka-4.1) a tag on the members of the ELR, or
// on the last known leader. The header group carries the values as data-
// attributes for tests and tools.

import { el, set, text, Keyed } from "./svg.js";

/** The ELR tag in a header's top right corner: a small filled label, or nothing. */
function drawTag(g, label, right, top, font) {
  if (g.dataset.label === label) return;
  g.dataset.label = label;
  g.replaceChildren();
  if (!label) return;
  const size = Math.max(9, font - 3);
  const width = label.length * size * 0.62 + 8;
  el("rect", { x: right - width, y: top, width, height: size + 5, rx: 3 }, g);
  const t = el("text", { x: right - width / 2, y: top + size + 1, "text-anchor": "middle", "font-size": size }, g);
  t.textContent = label;
}

export function createBrokers(layer) {
  const keyed = new Keyed(layer, (r) => {
    const g = el("g", { class: "broker", tabindex: 0, role: "button", "data-broker": r.broker });
    return {
      g,
      box: el("rect", { rx: 6 }, g),
      name: el("text", { class: "name" }, g),
      line2: el("text", {}, g),
      line3: el("text", { class: "nums" }, g),
      line4: el("text", { class: "nums" }, g),
      tag: el("g", { class: "elr-tag" }, g),
    };
  });

  return function render(rec, L, selected) {
    const { isr, maximal_isr: maximal = isr, elr = [], last_known_elr: lastKnown = [] } = rec.partition;
    keyed.sync(rec.replicas, (r) => r.broker, (n, r) => {
      const col = L.cols[r.broker];
      const inIsr = isr.includes(r.broker);
      const inElr = elr.includes(r.broker);
      const tag = inElr ? "ELR" : lastKnown.includes(r.broker) ? "last leader" : "";
      const membership = inIsr ? "in ISR" : maximal.includes(r.broker) ? "joining ISR" : inElr ? "in ELR" : "out of ISR";
      const role = r.alive ? r.role : "offline";
      // A zombie: it leads in its own view, the controller has elected another.
      const zombie = r.alive && r.role === "leader" && rec.partition.leader !== r.broker;
      // A restarted broker not yet registered or not yet unfenced (KRaft).
      const state = r.alive && (r.state === "starting" || r.state === "recovery") ? r.state : "";
      const x = col.x0 + 3;
      const w = col.w - 6;
      set(n.g, {
        class: `broker ${role}${zombie ? " zombie" : ""}${inIsr ? " isr" : ""}${inElr ? " elr" : ""}${r.fenced ? " fenced" : ""}${selected === r.broker ? " sel" : ""}`,
        "data-leo": r.leo,
        "data-hw": r.hw,
        "data-role": role,
        "data-alive": r.alive,
        "data-epoch": r.leader_epoch,
        "data-elr": tag || null,
        "data-zombie": zombie || null,
        "data-state": r.state ?? null,
        "aria-label": `Broker ${r.broker}, ${role}${zombie ? " in its own view (the controller elected another: a zombie)" : ""}${state ? `, ${state}` : ""}, leader epoch ${r.leader_epoch}, ${membership}${tag === "last leader" ? ", last known leader" : ""}, LEO ${r.leo}, HW ${r.hw}`,
      });
      set(n.box, { x, y: L.top, width: w, height: L.headH });
      const lh = L.font + 4;
      const tx = x + 6;
      set(n.name, { x: tx, y: L.top + lh });
      set(n.line2, { x: tx, y: L.top + 2 * lh });
      set(n.line3, { x: tx, y: L.top + 3 * lh });
      set(n.line4, { x: tx, y: L.top + 4 * lh });
      text(n.name, `${L.small ? "B" : "Broker "}${r.broker} · ${zombie ? (L.small ? "zombie" : "leader? zombie") : role}`);
      text(n.line2, `e${r.leader_epoch} · ${state || (r.fenced ? (inElr ? "fenced · ELR" : "fenced") : membership)}`);
      // Top right; in narrow columns bottom right, where LEO and HW leave room.
      const tagSize = Math.max(9, L.font - 3);
      drawTag(n.tag, tag, x + w - 4, L.small ? L.top + L.headH - tagSize - 9 : L.top + 4, L.font);
      // Narrow columns put LEO and HW on lines of their own.
      text(n.line3, L.small ? `LEO ${r.leo}` : `LEO ${r.leo} · HW ${r.hw}`);
      text(n.line4, L.small ? `HW ${r.hw}` : "");
    });
  };
}
