// Messages in flight and requests parked at a broker. A message's place is
// computed from its sent_ms and arrive_ms alone: at display time t it is at
// (t - sent) / (arrive - sent) along its edge. Its label goes to the first free
// place around it on the board (above, below, beside, a line further), or is
// left out for that frame: the dot, its colour and its inspector stay. Parked
// requests count down to their expiry.

import { el, set, text, Keyed } from "./svg.js";
import { along, pathOf } from "./layout.js";
import { textBox, textWidth } from "./measure.js";
import { fit } from "./fit.js";

const failed = (m) => (m.error && m.error !== "none" ? m.error : null);

/** The short label a message carries on the stage: the core writes it into the step record. */
export function labelOf(m) {
  return m.label ?? m.type;
}

function waitLabels(p) {
  const who = p.from;
  return p.kind === "produce" ? [`‖ ${who} ack@${p.offset}`, `‖ ack@${p.offset}`, "‖"] : [`‖ fetch ${who}@${p.offset}`, `‖ ${who}@${p.offset}`, `‖ @${p.offset}`, "‖"];
}

const ms = (v) => (v >= 10000 ? `${Math.round(v / 1000)} s` : `${Math.round(v)} ms`);

export function createMessages(trailLayer, layer, parkLayer, wordLayer = layer) {
  let edges = new Map();
  let board = null;
  let font = 12;
  const msgs = new Keyed(layer, (m) => {
    const g = el("g", { class: "msg", tabindex: 0, role: "button", "data-msg": m.id });
    const trail = el("path", { class: "trail" });
    trailLayer.appendChild(trail);
    // The label is drawn over every dot (a dot passing by does not hide it); a
    // click on it picks its message as a click on the dot does.
    const label = el("text", { class: "msgl", "data-msg": m.id, "aria-hidden": "true" }, wordLayer);
    const drop = () => { trail.remove(); g.remove(); label.remove(); };
    return { g, trail, drop, dot: el("circle", { r: 5 }, g), label, m };
  });
  const parked = new Keyed(parkLayer, () => {
    const g = el("g", { class: "parked" });
    return { g, box: el("rect", { rx: 7 }, g), label: el("text", {}, g), left: el("text", { class: "left" }, g), p: null };
  });

  /** The step's messages and parked requests; `static_` is the board with every
   *  fixed word on it, which each frame's labels are placed around. */
  function step(rec, L, sel, staticBoard) {
    font = L.font;
    edges = new Map();
    msgs.sync(rec.in_flight, (m) => m.id, (n, m) => {
      const edge = L.edge(m.from, m.to);
      edges.set(m.id, edge);
      n.m = m;
      n.words = labelOf(m);
      set(n.label, { class: `msgl ${m.type}${failed(m) ? " err" : ""}` });
      set(n.g, {
        class: `msg ${m.type}${failed(m) ? " err" : ""}${sel === m.id ? " sel" : ""}`,
        "aria-label": `${n.words}: ${m.type.replace(/_/g, " ")} from ${m.from} to ${m.to}`,
      });
      set(n.trail, { d: pathOf(edge), class: `trail ${m.type}` });
      // On a near-vertical edge (a consumer under its broker) the label goes beside the dot first.
      n.beside = Math.abs(edge.b.x - edge.a.x) < Math.abs(edge.b.y - edge.a.y);
    });

    // Requests waiting at a broker, two rows under its header at most; the
    // countdown on the right has its room kept, the words fit what is left.
    const waiting = [];
    for (const r of rec.replicas) {
      const list = r.parked ?? [];
      list.slice(0, 2).forEach((p, i) => waiting.push({ r, p, i, more: i === 1 ? list.length - 2 : 0 }));
    }
    parked.sync(waiting, (w) => `${w.r.broker}/${w.i}`, (n, w) => {
      const col = L.cols[w.r.broker];
      const y = L.top + L.headH + 3 + w.i * L.parkH;
      n.p = w.p;
      set(n.g, { class: `parked ${w.p.kind}` });
      set(n.box, { x: col.x0 + 4, y, width: col.w - 8, height: L.font + 4 });
      staticBoard?.take({ x0: col.x0 + 4, x1: col.x0 + col.w - 4, y0: y, y1: y + L.font + 4 });
      set(n.label, { x: col.x0 + 9, y: y + L.font + 1 });
      set(n.left, { x: col.x0 + col.w - 9, y: y + L.font + 1 });
      const more = w.more > 0 ? ` +${w.more}` : "";
      // The countdown's widest form is its first; it has its room when the words
      // still say who waits and where, else the words have the whole box.
      const clock = textWidth(ms(Math.max(0, w.p.expire_ms - rec.time_ms)), L.font) + 6;
      const variants = waitLabels(w.p).map((s) => s + more);
      const words = fit(variants.slice(0, -1), col.w - 18 - clock, L.font);
      n.showClock = !!words;
      text(n.label, words || fit(variants, col.w - 18, L.font));
    });
    board = staticBoard;
  }

  /** Places every message at display time t, and its label where it is free. */
  function frame(t) {
    const b = board?.fork();
    for (const [id, n] of msgs.nodes) {
      const { sent_ms: s, arrive_ms: a } = n.m;
      const f = a > s ? Math.max(0, Math.min(1, (t - s) / (a - s))) : 1;
      const p = along(edges.get(id), f);
      set(n.g, { transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})` });
      const w = n.words;
      const line = font + 3;
      const above = [p.x, p.y - 8, "middle", w];
      const below = [p.x, p.y + font + 6, "middle", w];
      const right = [p.x + 9, p.y + font / 3, "start", w];
      const leftOf = [p.x - 9, p.y + font / 3, "end", w];
      const order = n.beside ? [right, leftOf, above, below] : [above, below, right, leftOf];
      const candidates = [...order, [p.x, p.y - 8 - line, "middle", w], [p.x, p.y + font + 6 + line, "middle", w]];
      let placed = null;
      for (const [x, y, anchor] of candidates) {
        // Kept on the stage: a label near an edge slides inwards.
        const box0 = textBox(w, x, y, font, { anchor, weight: 600 });
        const dx = Math.max(0, 1 - box0.x0) - Math.max(0, box0.x1 - (b?.width ?? Infinity) + 1);
        const box = { x0: box0.x0 + dx, x1: box0.x1 + dx, y0: box0.y0, y1: box0.y1 };
        if (!b || b.fits(box)) {
          b?.take(box);
          placed = { x: x + dx, y, anchor };
          break;
        }
      }
      if (placed) {
        set(n.label, { x: placed.x.toFixed(1), y: placed.y.toFixed(1), "text-anchor": placed.anchor });
        text(n.label, w);
      } else {
        text(n.label, "");
      }
    }
    for (const n of parked.nodes.values()) text(n.left, n.showClock ? ms(Math.max(0, n.p.expire_ms - t)) : "");
  }

  return { step, frame };
}
