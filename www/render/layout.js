// Geometry of the stage: one column per broker, one offset ruler shared by
// every log, the clients' pills, and the point each party's messages leave
// from and arrive at (on the edge of its box, so an arrow head never crosses
// the words in it). Text is 12 px at every width.

import { textWidth } from "./measure.js";

/** Offsets shown on the ruler at most; older ones scroll off the bottom. */
export const ROWS = 16;
/** The stage's text size in px (never smaller: issue 13, phones included). */
export const FONT = 12;
/** A pill (producer, controller, consumer) is this high. */
const PILL = FONT + 10;

/** Rows the ruler needs for this record: it grows with the log up to ROWS. With
 *  `room` (Sim.room: the records the scenario will produce) it is the run's
 *  whole need from its first step. */
export function rowsFor(rec, initialEnd, room = null) {
  let need = 1;
  for (const r of rec.replicas) need = Math.max(need, r.leo + 1);
  if (room) need = Math.max(need, initialEnd + room.produced + 1);
  return Math.max(8, Math.min(ROWS, need - Math.max(0, initialEnd - 3) + 2));
}

/** The text in a client's pill. */
export function pillText(kind, c, small) {
  if (kind === "producer") {
    // The batch being retried, if any: its attempt and the error that caused it.
    const retrying = (c.batches ?? []).find((b) => b.attempts > 0);
    // (The error it answers is in the producer's panel and the narration: the pill stays short.)
    const retry = retrying ? ` · retry ${retrying.attempts}` : "";
    // …but a write refused for too small an ISR, or given up, is said on it.
    const refused = !small && retrying?.error?.startsWith("NOT_ENOUGH_REPLICAS") ? " (ISR too small)" : "";
    const failed = c.failed_count ?? c.failed?.length ?? 0;
    return `${c.id} acks=${c.acks}${!small && c.pending.length ? ` · ${c.pending.length} pending` : ""}${retry}${refused}${failed ? ` · ${failed} failed` : ""}`;
  }
  if (kind === "consumer") return small ? `${c.id} @${c.position}` : `${c.id} · at ${c.position} · read ${c.records_read}`;
  if (kind === "producer-error") {
    // The write a producer must send again, and the error that refused it (the latest try's).
    const first = (c.batches ?? []).find((b) => b.attempts > 0 && b.error);
    if (!first) return null;
    const records = (c.batches ?? []).filter((b) => b.attempts > 0 && b.error === first.error).flatMap((b) => b.records ?? []);
    // On a phone several records are counted: the error's name takes most of the width.
    const which = records.length === 1 ? records[0] : small ? `${records.length} records` : records.length > 2 ? `${records[0]} … ${records.at(-1)}` : records.join(", ");
    return `${which} ✗ ${first.error}`;
  }
  return "controller";
}

/** A pill's box around its text: left at x0 (or centred on cx), centred on y. */
function pill(label, y, { x0, cx, right }) {
  const w = textWidth(label, FONT) + 14;
  const left = x0 ?? (right !== undefined ? right - w : cx - w / 2);
  return { label, x0: left, x1: left + w, y0: y - PILL / 2, y1: y + PILL / 2, cx: left + w / 2, cy: y };
}

/** The stage's vertical geometry at a width, with `producers` pills stacked
 *  above the brokers (shared with www/embed/size.js, which sizes an embed from it). */
export function geometry(width, producers) {
  const small = width < 560;
  const lh = FONT + 4;
  const clientsBottom = 16 + Math.max(0, producers - 1) * (PILL + 4) + PILL / 2;
  const top = Math.max(small ? 84 : 100, clientsBottom + 40);
  const headH = (small ? 4 : 3) * lh + 8;
  /** Two rows of requests parked at a broker, under its header. */
  const parkH = FONT + 6;
  const stripTop = top + headH + 2 * parkH + 10;
  return { small, lh, top, headH, parkH, stripTop, cell: small ? 16 : 18, consumersGap: small ? 40 : 48 };
}

/** The stage's height: `stacked` rows of consumer pills under the strips (0: none). */
export function stageHeight(g, rows, stacked) {
  const stripBottom = g.stripTop + rows * g.cell;
  return stacked > 0 ? stripBottom + g.consumersGap + (stacked - 1) * (PILL + 4) + PILL / 2 + 8 : stripBottom + 24;
}

/** `rows` only grows within a run (see stage.js), so the page does not jump
 *  up and down while it plays; `room` reserves the consumers the run will add. */
export function layout(width, rec, initialEnd, rows = ROWS, room = null) {
  const n = rec.replicas.length;
  const g = geometry(width, rec.producers.length);
  const { small, lh, top, headH, parkH, stripTop, cell } = g;

  // The window ends one row above the highest offset anything points at; it
  // scrolls in steps of four so the ruler does not shift on every record.
  let need = 1;
  for (const r of rec.replicas) need = Math.max(need, r.leo + 1);
  for (const c of rec.consumers) need = Math.max(need, c.position + 1);
  // Records a truncation removed stay in view while their ghosts are drawn.
  for (const r of rec.replicas) for (const g of r.lost ?? []) need = Math.max(need, g.offset + 1);
  let lo = Math.max(0, initialEnd - 3);
  if (need - lo > rows) lo = Math.ceil((need - rows) / 4) * 4;
  const hi = lo + rows;

  const ruler = Math.max(small ? 20 : 30, Math.ceil(textWidth(String(hi), FONT)) + 8);
  const colW = (width - ruler) / n;
  const left = small ? 14 : 28;
  const right = small ? 62 : 70;
  const stripW = Math.max(24, Math.min(110, colW - left - right - 4));

  // Producers stack down the left, the controller sits on the right, above the brokers;
  // in a ZooKeeper-era run (the record lists ZooKeeper's sessions) ZooKeeper sits left of it.
  const producers = new Map(rec.producers.map((p, i) => [p.id, pill(pillText("producer", p, small), 16 + i * (PILL + 4), { x0: 4 })]));
  // A producer's refused write, with its error: right of its pill, else in the band under
  // the last pill (clients.render places the first that is free on the board).
  const bandY = 16 + rec.producers.length * (PILL + 4);
  const producerErrors = new Map();
  for (const p of rec.producers) {
    const label = pillText("producer-error", p, small);
    if (!label) continue;
    const at = producers.get(p.id);
    const w = textWidth(label, FONT);
    const box = (x0, cy) => ({ label, x0, x1: x0 + w, y0: cy - PILL / 2 + 2, y1: cy + PILL / 2 - 2, cy });
    producerErrors.set(p.id, [box(at.x1 + 8, at.cy), box(4, bandY), box(4, bandY + PILL)]);
  }
  // The ZooKeeper era's controller is a broker (the record's controller.broker_id). On a
  // narrow stage the pill keeps to "controller" (its broker is in its aria-label): with
  // ZooKeeper's pill beside it, the longer words covered a retrying producer's pill at 360 px.
  const cid = rec.controller?.broker_id;
  const controller = pill(cid === undefined || cid === null || small ? "controller" : `controller · broker ${cid}`, 16, { right: width - 4 });
  const zookeeper = rec.controller?.zookeeper ? pill("ZooKeeper", 16, { right: controller.x0 - (small ? 6 : 12) }) : null;
  const stripBottom = stripTop + rows * cell;
  const consumersY = stripBottom + g.consumersGap;

  const cols = rec.replicas.map((_, i) => {
    const x0 = ruler + i * colW;
    // On a narrow stage the strip keeps to the left of its column: its HW and LEO
    // labels then have the whole right margin, the last column's too.
    const sx = x0 + (small ? left : Math.max(left, (colW - stripW - left - right) / 2 + left));
    return { x0, w: colW, sx, cx: sx + stripW / 2 };
  });

  // Consumers under the replica they read from, one row per consumer of that
  // replica; a pill that would touch its neighbour's moves aside, or a row down.
  const stack = new Map();
  const consumers = new Map();
  const placed = [];
  const clash = (p) => placed.some((q) => q.cy === p.cy && p.x0 < q.x1 + 4 && q.x0 < p.x1 + 4);
  let rowsUsed = 1;
  for (const c of rec.consumers) {
    const col = Math.min(n - 1, c.fetch_from ?? rec.partition.leader ?? 0);
    let k = stack.get(col) ?? 0;
    stack.set(col, k + 1);
    const label = pillText("consumer", c, small);
    let p = null;
    for (let rounds = 0; ; k++, rounds++) {
      const y = consumersY + k * (PILL + 4);
      const centred = pill(label, y, { cx: cols[col].cx });
      // Kept on the stage: a long name under the first or last column moves inwards.
      const shift = Math.max(0, 4 - centred.x0) - Math.max(0, centred.x1 - (width - 4));
      const tries = [pill(label, y, { x0: centred.x0 + shift })];
      for (const q of placed.filter((q) => q.cy === y)) tries.push(pill(label, y, { x0: q.x1 + 6 }), pill(label, y, { right: q.x0 - 6 }));
      p = tries.find((t) => t.x0 >= 4 && t.x1 <= width - 4 && !clash(t));
      // A name wider than the stage itself gets a row of its own.
      if (!p && rounds > 16) p = tries[0];
      if (p) break;
    }
    placed.push(p);
    rowsUsed = Math.max(rowsUsed, k + 1);
    consumers.set(c.id, { ...p, col, x: p.cx, y: p.cy });
  }
  const stacked = Math.max(rowsUsed, room?.consumers ?? 0, ...stack.values());

  /** Where a message to or from `name` (talking to `other`) meets its box. */
  function point(name, other) {
    if (typeof name === "number") {
      const c = cols[name] ?? cols[0];
      return consumers.has(other) ? { x: c.cx, y: stripBottom + 2 } : { x: c.cx, y: top - 1 };
    }
    const p = name === "controller" ? controller : name === "zookeeper" && zookeeper ? zookeeper : producers.get(name) ?? consumers.get(name) ?? controller;
    if (consumers.has(name)) return { x: p.cx, y: p.y0 - 2 };
    // ZooKeeper and the controller talk side by side: the facing ends of their pills.
    if (name === "zookeeper" && other === "controller") return { x: p.x1 + 2, y: p.cy };
    if (name === "controller" && other === "zookeeper") return { x: p.x0 - 2, y: p.cy };
    // Producers, the controller and ZooKeeper: the side facing the brokers, under the pill's words.
    return name === "controller" || name === "zookeeper" ? { x: p.x0 + 8, y: p.y1 + 2 } : { x: p.x1 - 8, y: p.y1 + 2 };
  }

  /** A quadratic curve from sender to receiver. Broker links arc over the
   *  headers (rightward higher than leftward, so a request and its answer do
   *  not overlap); other links bow to the sender's left. */
  function edge(from, to) {
    const a = point(from, to);
    const b = point(to, from);
    let c;
    if (typeof from === "number" && typeof to === "number") {
      const h = Math.min(top - 26, 14 + Math.abs(a.x - b.x) * 0.2) * (from < to ? 1 : 0.55);
      c = { x: (a.x + b.x) / 2, y: top - 2 * h };
    } else {
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const len = Math.hypot(dx, dy) || 1;
      c = { x: (a.x + b.x) / 2 + (dy / len) * 16, y: (a.y + b.y) / 2 - (dx / len) * 16 };
    }
    return { a, b, c };
  }

  return {
    width, small, cell, ruler, cols, stripW, top, headH, lh, parkH, stripTop, stripBottom,
    consumersY, consumers, producers, producerErrors, controller, zookeeper, lo, hi, rows, initialEnd,
    height: stageHeight(g, rows, rec.consumers.length || room?.consumers ? stacked : 0),
    font: FONT,
    /** y of the boundary below offset o (clamped to the window). */
    y: (o) => stripBottom - (Math.max(lo, Math.min(hi, o)) - lo) * cell,
    edge,
  };
}

/** The point at fraction f along a quadratic edge. */
export function along({ a, b, c }, f) {
  const g = 1 - f;
  return { x: g * g * a.x + 2 * g * f * c.x + f * f * b.x, y: g * g * a.y + 2 * g * f * c.y + f * f * b.y };
}

export function pathOf({ a, b, c }) {
  return `M${a.x.toFixed(1)},${a.y.toFixed(1)}Q${c.x.toFixed(1)},${c.y.toFixed(1)} ${b.x.toFixed(1)},${b.y.toFixed(1)}`;
}
