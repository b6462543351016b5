// Messages in flight and requests parked at a broker. A message's place is
// computed from its sent_ms and arrive_ms alone: at display time t it is at
// (t - sent) / (arrive - sent) along its edge. Parked requests count down to
// their expiry.

import { el, set, text, Keyed } from "./svg.js";
import { along, pathOf } from "./layout.js";

const failed = (m) => (m.error && m.error !== "none" ? m.error : null);

/** The short label a message carries on the stage: the core writes it into the step record. */
export function labelOf(m) {
  return m.label ?? m.type;
}

function waitLabel(p, small) {
  const who = typeof p.from === "number" ? `${small ? "" : "fetch "}${p.from}` : p.from;
  return p.kind === "produce" ? `‖ ${who} ack@${p.offset}` : `‖ ${who}@${p.offset}`;
}

const ms = (v) => (v >= 10000 ? `${Math.round(v / 1000)} s` : `${Math.round(v)} ms`);

export function createMessages(trailLayer, layer, parkLayer) {
  let edges = new Map();
  let width = 0;
  let font = 11;
  const msgs = new Keyed(layer, (m) => {
    const g = el("g", { class: "msg", tabindex: 0, role: "button", "data-msg": m.id });
    const trail = el("path", { class: "trail" });
    trailLayer.appendChild(trail);
    const drop = () => { trail.remove(); g.remove(); };
    return { g, trail, drop, dot: el("circle", { r: 5 }, g), label: el("text", { y: -8 }, g), m };
  });
  const parked = new Keyed(parkLayer, () => {
    const g = el("g", { class: "parked" });
    return { g, box: el("rect", { rx: 7 }, g), label: el("text", {}, g), left: el("text", { class: "left" }, g), p: null };
  });

  function step(rec, L, sel) {
    width = L.width;
    font = L.font;
    edges = new Map();
    msgs.sync(rec.in_flight, (m) => m.id, (n, m) => {
      const edge = L.edge(m.from, m.to);
      edges.set(m.id, edge);
      n.m = m;
      const label = labelOf(m);
      set(n.g, {
        class: `msg ${m.type}${failed(m) ? " err" : ""}${sel === m.id ? " sel" : ""}`,
        "aria-label": `${m.type.replace(/_/g, " ")} from ${m.from} to ${m.to}: ${label}`,
      });
      set(n.trail, { d: pathOf(edge), class: `trail ${m.type}` });
      text(n.label, label);
      n.half = label.length * L.font * 0.3 + 2;
      // On a near-vertical edge (a consumer under its broker) the label goes beside the dot.
      n.beside = Math.abs(edge.b.x - edge.a.x) < Math.abs(edge.b.y - edge.a.y);
      set(n.label, { class: n.beside ? "beside" : null });
    });

    // Requests waiting at a broker, two rows under its header at most.
    const waiting = [];
    for (const r of rec.replicas) {
      const list = r.parked ?? [];
      list.slice(0, 2).forEach((p, i) => waiting.push({ r, p, i, more: i === 1 ? list.length - 2 : 0 }));
    }
    parked.sync(waiting, (w) => `${w.r.broker}/${w.i}`, (n, w) => {
      const col = L.cols[w.r.broker];
      const y = L.top + L.headH + 3 + w.i * (L.font + 6);
      n.p = w.p;
      set(n.g, { class: `parked ${w.p.kind}` });
      set(n.box, { x: col.x0 + 4, y, width: col.w - 8, height: L.font + 4 });
      set(n.label, { x: col.x0 + 9, y: y + L.font + 1 });
      set(n.left, { x: col.x0 + col.w - 9, y: y + L.font + 1 });
      text(n.label, waitLabel(w.p, L.small) + (w.more > 0 ? ` +${w.more}` : ""));
    });
  }

  function frame(t) {
    const placed = [];
    for (const [id, n] of msgs.nodes) {
      const { sent_ms: s, arrive_ms: a } = n.m;
      const f = a > s ? Math.max(0, Math.min(1, (t - s) / (a - s))) : 1;
      const p = along(edges.get(id), f);
      set(n.g, { transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})` });
      // Keep the label on the stage and off the labels placed before it
      // (a request and its answer often leave one broker at the same instant).
      let x = n.beside ? p.x + 9 + n.half : Math.max(n.half, Math.min(width - n.half, p.x));
      let y = n.beside ? p.y + 4 : p.y < 24 ? p.y + 16 : p.y - 8;
      for (let tries = 0; tries < 4 && placed.some((q) => Math.abs(q.x - x) < q.half + n.half && Math.abs(q.y - y) < font + 2); tries++) y -= font + 3;
      placed.push({ x, y, half: n.half });
      set(n.label, { x: ((n.beside ? x - n.half : x) - p.x).toFixed(1), y: (y - p.y).toFixed(1) });
    }
    for (const n of parked.nodes.values()) text(n.left, ms(Math.max(0, n.p.expire_ms - t)));
  }

  return { step, frame };
}
