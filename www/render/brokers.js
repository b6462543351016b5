// Broker headers: name, role, leader epoch, ISR membership, LEO and HW, in as
// many words as the column has room for. The header group carries the values as
// data- attributes for tests and tools, and says them in full to screen readers.

import { el, set, text, Keyed } from "./svg.js";
import { isrChanges, membership as memberOf } from "./isr.js";
import { fit } from "./fit.js";

const SHORT = { "in ISR": "in ISR", "leaving ISR": "leaving", "joining ISR": "joining", "out of ISR": "out" };

export function createBrokers(layer) {
  const keyed = new Keyed(layer, (r) => {
    const g = el("g", { class: "broker", tabindex: 0, role: "button", "data-broker": r.broker });
    return {
      g,
      box: el("rect", { rx: 6 }, g),
      lines: [el("text", { class: "name" }, g), el("text", {}, g), el("text", { class: "nums" }, g), el("text", { class: "nums" }, g)],
    };
  });

  /** `board` (board.js) takes each header's box: nothing else is drawn over it. */
  return function render(rec, L, selected, board) {
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
      board?.take({ x0: x, x1: x + w, y0: L.top, y1: L.top + L.headH });
      const room = w - 10;
      const f = L.font;
      const state = r.fenced ? "fenced" : membership;
      const lines = [
        fit([`Broker ${r.broker} · ${role}`, `B${r.broker} · ${role}`, `B${r.broker} ${role}`, `B${r.broker}`], room, f, 700),
        fit([`e${r.leader_epoch} · ${state}`, `e${r.leader_epoch} · ${SHORT[state] ?? state}`, SHORT[state] ?? state], room, f),
        // Narrow columns put LEO and HW on lines of their own.
        L.small ? fit([`LEO ${r.leo}`, `${r.leo}`], room, f) : fit([`LEO ${r.leo} · HW ${r.hw}`, `${r.leo} · ${r.hw}`], room, f),
        L.small ? fit([`HW ${r.hw}`, `${r.hw}`], room, f) : "",
      ];
      // A trailing space keeps the lines apart in the text a screen reader (and axe) reads;
      // SVG does not draw it.
      lines.forEach((s, i) => {
        set(n.lines[i], { x: x + 6, y: L.top + 4 + (i + 1) * L.lh - 4 });
        text(n.lines[i], i < 3 && s ? `${s} ` : s);
      });
      // The accessible name starts with the words drawn (WCAG 2.5.3), then says them in full.
      set(n.g, { "aria-label": `${lines.filter(Boolean).join(", ")}: broker ${r.broker}, ${role}, leader epoch ${r.leader_epoch}, ${r.fenced ? "fenced, " : ""}${membership}, LEO ${r.leo}, HW ${r.hw}` });
    });
  };
}
