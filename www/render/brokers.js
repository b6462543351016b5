// Broker headers: name, role, leader epoch, ISR membership, LEO and HW, in as
// many words as the column has room for; with Eligible Leader Replicas on
// (kafka-4.1) a tag on the members of the ELR, or on the last known leader. The
// header group carries the values as data- attributes for tests and tools, and
// says them in full to screen readers.

import { el, set, text, Keyed } from "./svg.js";
import { isrChanges, membership as memberOf } from "./isr.js";
import { fit } from "./fit.js";
import { textWidth } from "./measure.js";

const SHORT = { "in ISR": "in ISR", "leaving ISR": "leaving", "joining ISR": "joining", "out of ISR": "out", "in ELR": "ELR", "fenced · ELR": "fenced" };

/** The ELR tag at a header's corner: a small filled label `width` px wide, or nothing. */
function drawTag(g, label, right, top, size, width) {
  const key = `${label} ${right} ${top}`;
  if (g.dataset.key === key) return;
  g.dataset.key = key;
  g.replaceChildren();
  if (!label) return;
  el("rect", { x: right - width, y: top, width, height: size + 5, rx: 3 }, g);
  const t = el("text", { x: right - width / 2, y: top + size, "text-anchor": "middle", "font-size": size }, g);
  t.textContent = label;
}

export function createBrokers(layer) {
  const keyed = new Keyed(layer, (r) => {
    const g = el("g", { class: "broker", tabindex: 0, role: "button", "data-broker": r.broker });
    return {
      g,
      box: el("rect", { rx: 6 }, g),
      lines: [el("text", { class: "name" }, g), el("text", {}, g), el("text", { class: "nums" }, g), el("text", { class: "nums" }, g)],
      tag: el("g", { class: "elr-tag" }, g),
    };
  });

  /** `board` (board.js) takes each header's box: nothing else is drawn over it. */
  return function render(rec, L, selected, board) {
    const { isr, elr = [], last_known_elr: lastKnown = [] } = rec.partition;
    const changes = isrChanges(rec);
    keyed.sync(rec.replicas, (r) => r.broker, (n, r) => {
      const col = L.cols[r.broker];
      const inIsr = isr.includes(r.broker);
      const inElr = (elr ?? []).includes(r.broker);
      // The leader of an ISR smaller than min.insync.replicas: acks=all is refused there.
      const underMin = rec.partition.under_min_isr != null && rec.partition.leader === r.broker;
      const tag = inElr ? "ELR" : (lastKnown ?? []).includes(r.broker) ? "last leader" : underMin ? `ISR < ${rec.partition.under_min_isr}` : "";
      const isrMembership = memberOf(rec, r.broker, changes);
      const membership = isrMembership === "out of ISR" && inElr ? "in ELR" : isrMembership;
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
        "data-under-min-isr": underMin ? rec.partition.under_min_isr : null,
      });
      n.tag.classList.toggle("under-min", underMin);
      set(n.box, { x, y: L.top, width: w, height: L.headH });
      board?.take({ x0: x, x1: x + w, y0: L.top, y1: L.top + L.headH });
      const room = w - 10;
      const f = L.font;
      // The tag: top right; in narrow columns on a line where the words leave room.
      const tagW = tag ? textWidth(tag, f, 700) + 8 : 0;
      // The tag shares one line: the first, or in narrow columns the last (HW); but
      // "ISR < n" there would leave room for the HW's number alone, so it shares the
      // epoch's line instead, whose "in ISR" it makes redundant (a leader is in its ISR).
      const tagLine = !tag ? -1 : !L.small ? 0 : underMin ? 1 : 3;
      const beside = (i) => (i === tagLine ? tagW + 4 : 0);
      const tagTop = L.small ? L.top + (tagLine + 1) * L.lh - f - 1 : L.top + 4;
      drawTag(n.tag, tag, x + w - 4, tagTop, f, tagW);
      const shown = state || (r.fenced ? (inElr ? "fenced · ELR" : "fenced") : membership);
      const lines = [
        zombie
          ? fit([`Broker ${r.broker} · leader? zombie`, `B${r.broker} · zombie`, `B${r.broker} zombie`, `B${r.broker}`], room - beside(0), f, 700)
          : fit([`Broker ${r.broker} · ${role}`, `B${r.broker} · ${role}`, `B${r.broker} ${role}`, `B${r.broker}`], room - beside(0), f, 700),
        fit([`e${r.leader_epoch} · ${shown}`, `e${r.leader_epoch} · ${SHORT[shown] ?? shown}`, tagLine === 1 ? `e${r.leader_epoch}` : SHORT[shown] ?? shown], room - beside(1), f),
        // Narrow columns put LEO and HW on lines of their own.
        L.small ? fit([`LEO ${r.leo}`, `${r.leo}`], room - beside(2), f) : fit([`LEO ${r.leo} · HW ${r.hw}`, `${r.leo} · ${r.hw}`], room - beside(2), f),
        L.small ? fit([`HW ${r.hw}`, `HW${r.hw}`, `${r.hw}`], room - beside(3), f) : "",
      ];
      // A trailing space keeps the lines apart in the text a screen reader (and axe) reads;
      // SVG does not draw it.
      lines.forEach((s, i) => {
        set(n.lines[i], { x: x + 6, y: L.top + 4 + (i + 1) * L.lh - 4 });
        // (The last line too: at 360 px the ELR tag's words follow it, on the HW line.)
        text(n.lines[i], s ? `${s} ` : s);
      });
      // The accessible name starts with the words drawn (WCAG 2.5.3), then says them in full.
      const drawn = [...lines.filter(Boolean), tag].filter(Boolean).join(", ");
      set(n.g, { "aria-label": `${drawn}: broker ${r.broker}, ${role}${zombie ? " in its own view (the controller elected another: a zombie)" : ""}${state ? `, ${state}` : ""}, leader epoch ${r.leader_epoch}, ${r.fenced ? "fenced, " : ""}${membership}${tag === "last leader" ? ", last known leader" : ""}${underMin ? `, ISR under min.insync.replicas ${rec.partition.under_min_isr}${rec.partition.hw_held ? ", HW held" : ""}` : ""}, LEO ${r.leo}, HW ${r.hw}` });
    });
  };
}
