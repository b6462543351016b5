// Broker headers: name, role, leader epoch, ISR membership, LEO and HW.
// The header group carries the values as data- attributes for tests and tools.

import { el, set, text, Keyed } from "./svg.js";
import { isrChanges, membership as memberOf } from "./isr.js";

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
    };
  });

  return function render(rec, L, selected) {
    const { isr } = rec.partition;
    const changes = isrChanges(rec);
    keyed.sync(rec.replicas, (r) => r.broker, (n, r) => {
      const col = L.cols[r.broker];
      const inIsr = isr.includes(r.broker);
      const membership = memberOf(rec, r.broker, changes);
      const role = r.alive ? r.role : "offline";
      const x = col.x0 + 3;
      const w = col.w - 6;
      set(n.g, {
        class: `broker ${role}${inIsr ? " isr" : ""}${r.fenced ? " fenced" : ""}${selected === r.broker ? " sel" : ""}`,
        "data-leo": r.leo,
        "data-hw": r.hw,
        "data-role": role,
        "data-alive": r.alive,
        "data-epoch": r.leader_epoch,
      });
      set(n.box, { x, y: L.top, width: w, height: L.headH });
      const lh = L.font + 4;
      const tx = x + 6;
      set(n.name, { x: tx, y: L.top + lh });
      set(n.line2, { x: tx, y: L.top + 2 * lh });
      set(n.line3, { x: tx, y: L.top + 3 * lh });
      set(n.line4, { x: tx, y: L.top + 4 * lh });
      const lines = [
        `${L.small ? "B" : "Broker "}${r.broker} · ${role}`,
        `e${r.leader_epoch} · ${r.fenced ? "fenced" : membership}`,
        // Narrow columns put LEO and HW on lines of their own.
        L.small ? `LEO ${r.leo}` : `LEO ${r.leo} · HW ${r.hw}`,
        L.small ? `HW ${r.hw}` : "",
      ];
      // A trailing space keeps the lines apart in the text a screen reader (and axe) reads;
      // SVG does not draw it.
      text(n.name, `${lines[0]} `);
      text(n.line2, `${lines[1]} `);
      text(n.line3, `${lines[2]} `);
      text(n.line4, lines[3]);
      // The accessible name starts with the words drawn (WCAG 2.5.3), then says them in full.
      set(n.g, { "aria-label": `${lines.filter(Boolean).join(", ")}: broker ${r.broker}, ${role}, leader epoch ${r.leader_epoch}, ${r.fenced ? "fenced, " : ""}${membership}, LEO ${r.leo}, HW ${r.hw}` });
    });
  };
}
