// Clients on the stage: producers and the controller above the brokers,
// consumers below the replica they read from (their pills laid out in
// layout.js), and each consumer's position marked on that replica's log.

import { el, set, text, Keyed } from "./svg.js";
import { label } from "./logs.js";

function glyph(layer, cls) {
  return new Keyed(layer, () => {
    const g = el("g", { class: cls });
    return { g, box: el("rect", { rx: 9 }, g), label: el("text", {}, g) };
  });
}

/** Draws a pill from layout.js and takes its box on the board. */
function draw(n, p, font, board) {
  set(n.box, { x: p.x0.toFixed(1), y: p.y0, width: (p.x1 - p.x0).toFixed(1), height: p.y1 - p.y0 });
  set(n.label, { x: p.cx.toFixed(1), y: p.cy + font / 3 });
  text(n.label, p.label);
  board?.take({ x0: p.x0, x1: p.x1, y0: p.y0, y1: p.y1 });
}

export function createClients(layer, markLayer) {
  const producers = glyph(layer, "client producer");
  const controller = glyph(layer, "client controller");
  const zookeeper = glyph(layer, "client zookeeper");
  const consumers = glyph(layer, "client consumer");
  const errors = new Keyed(layer, () => {
    const g = el("g", { class: "perr" });
    return { g, label: el("text", {}, g) };
  });
  const marks = new Keyed(markLayer, () => {
    const g = el("g", { class: "cmark" });
    return { g, tip: el("path", {}, g), label: el("text", {}, g), title: el("title", {}, g) };
  });

  /** The pills: fixed, taken on the board before any label is placed. */
  function render(rec, L, board) {
    producers.sync(rec.producers, (p) => p.id, (n, p) => {
      draw(n, L.producers.get(p.id), L.font, board);
      // The batch being retried, if any (its attempt and error are in the pill's words: layout.js).
      const retrying = (p.batches ?? []).some((b) => b.attempts > 0);
      const refused = (p.batches ?? []).some((b) => b.attempts > 0 && b.error);
      const failed = (p.failed_count ?? p.failed?.length ?? 0) > 0;
      set(n.g, { class: `client producer${retrying ? " retrying" : ""}${refused || failed ? " refused" : ""}`, "data-producer": p.id, "data-retries": p.retries ?? 0, "data-failed": failed ? p.failed_count ?? p.failed.length : null });
    });
    controller.sync([0], () => 0, (n) => {
      draw(n, L.controller, L.font, board);
      const cid = rec.controller?.broker_id;
      set(n.g, { "aria-label": cid === undefined || cid === null ? null : `controller: broker ${cid}` });
    });
    // ZooKeeper, in a ZooKeeper-era run: brokers' sessions and the controller's watch.
    zookeeper.sync(L.zookeeper ? [0] : [], () => 0, (n) => {
      draw(n, L.zookeeper, L.font, board);
      const live = (rec.controller.zookeeper ?? []).filter((s) => s.session_expires_ms !== null).map((s) => s.broker);
      set(n.g, { "aria-label": `ZooKeeper: sessions live for broker${live.length === 1 ? "" : "s"} ${live.join(", ") || "none"}` });
    });
    consumers.sync(rec.consumers, (c) => c.id, (n, c) => {
      const p = L.consumers.get(c.id);
      draw(n, p, L.font, board);
      set(n.g, { "data-consumer": c.id, "data-position": c.position, tabindex: 0, role: "button", "aria-label": `${p.label}: consumer ${c.id} at offset ${c.position}, ${c.records_read} read` });
    });
    // A refused write and its error beside its producer, once every pill is on the board.
    const shown = [...(L.producerErrors ?? [])].map(([id, tries]) => [id, board ? board.place(tries) : tries[0]]).filter(([, b]) => b);
    errors.sync(shown, ([id]) => id, (n, [id, b]) => {
      set(n.label, { x: b.x0.toFixed(1), y: b.cy + L.font / 3 });
      text(n.label, b.label);
      set(n.g, { "data-producer": id });
    });
  }

  /** Each consumer's position on the log of the replica it reads from (one mark
   *  per offset and replica), left of the strip and of the leader's follower marks. */
  function place(rec, L, board) {
    const at = new Map();
    for (const c of rec.consumers) {
      const { col } = L.consumers.get(c.id);
      const key = `${col}@${c.position}`;
      at.set(key, { col, position: c.position, ids: [...(at.get(key)?.ids ?? []), c.id] });
    }
    marks.sync([...at.values()], (m) => `${m.col}@${m.position}`, (n, m) => {
      const lead = rec.replicas[m.col];
      // Left of the leader's marks for its followers at the same offset, if any.
      const taken = lead?.role === "leader" && lead.followers?.some((f) => f.fetch_offset === m.position);
      const x = L.cols[m.col].sx - 2 - (taken ? 16 : 0);
      const y = L.y(m.position);
      set(n.tip, { d: `M${x},${y}l-5,-4v8z` });
      board?.take({ x0: x - 5, x1: x, y0: y - 4, y1: y + 4 });
      const words = m.ids.join(",");
      const right = L.cols[m.col].sx + L.stripW + 4;
      label(n.label, board, L.font, 400, [[x - 6, y + L.font / 3, "end", words], [x - 6, y - 3, "end", words], [x - 6, y + L.font + 3, "end", words], [right + 2, y + L.font / 3, "start", words]]);
      text(n.title, `${m.ids.length > 1 ? "Consumers" : "Consumer"} ${m.ids.join(", ")} at offset ${m.position}`);
    });
  }

  return { render, place };
}
