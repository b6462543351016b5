// Geometry of the stage: one column per broker, one offset ruler shared by
// every log, and the point each party's messages leave from and arrive at.

/** Offsets shown on the ruler at most; older ones scroll off the bottom. */
export const ROWS = 16;

/** Rows the ruler needs for this record: it grows with the log up to ROWS. With
 *  `room` (Sim.room: the records the scenario will produce) it is the run's
 *  whole need from its first step. */
export function rowsFor(rec, initialEnd, room = null) {
  let need = 1;
  for (const r of rec.replicas) need = Math.max(need, r.leo + 1);
  if (room) need = Math.max(need, initialEnd + room.produced + 1);
  return Math.max(8, Math.min(ROWS, need - Math.max(0, initialEnd - 3) + 2));
}

/** `rows` only grows within a run (see stage.js), so the page does not jump
 *  up and down while it plays. */
export function layout(width, rec, initialEnd, rows = ROWS, room = null) {
  const small = width < 560;
  const n = rec.replicas.length;
  const ruler = small ? 22 : 34;
  const colW = (width - ruler) / n;
  const left = small ? 16 : 28;
  const right = small ? 46 : 64;
  const stripW = Math.max(24, Math.min(110, colW - left - right - 4));
  const cell = small ? 16 : 18;
  const top = small ? 84 : 100;
  const headH = small ? 56 : 50;
  const stripTop = top + headH + (small ? 30 : 34);
  const stripBottom = stripTop + rows * cell;
  const consumersY = stripBottom + (small ? 44 : 52);

  const cols = rec.replicas.map((_, i) => {
    const x0 = ruler + i * colW;
    const sx = x0 + Math.max(left, (colW - stripW - left - right) / 2 + left);
    return { x0, w: colW, sx, cx: sx + stripW / 2 };
  });

  // The window ends one row above the highest offset anything points at; it
  // scrolls in steps of four so the ruler does not shift on every record.
  let need = 1;
  for (const r of rec.replicas) need = Math.max(need, r.leo + 1);
  for (const c of rec.consumers) need = Math.max(need, c.position + 1);
  let lo = Math.max(0, initialEnd - 3);
  if (need - lo > rows) lo = Math.ceil((need - rows) / 4) * 4;
  const hi = lo + rows;

  const stack = new Map();
  const consumers = new Map();
  for (const c of rec.consumers) {
    const col = Math.min(n - 1, c.fetch_from ?? rec.partition.leader ?? 0);
    const k = stack.get(col) ?? 0;
    stack.set(col, k + 1);
    consumers.set(c.id, { x: cols[col].cx + (k % 2 ? 1 : -1) * (k ? 4 : 0), y: consumersY + k * 26, col });
  }
  const stacked = Math.max(1, room?.consumers ?? 0, ...stack.values());
  const producers = new Map(rec.producers.map((p, i) => [p.id, { x: small ? 22 : 30, y: 18 + i * 24 }]));
  const controller = { x: width - (small ? 40 : 56), y: 18 };

  function point(name, other) {
    if (typeof name === "number") {
      const c = cols[name] ?? cols[0];
      return consumers.has(other) ? { x: c.cx, y: stripBottom } : { x: c.cx, y: top };
    }
    if (name === "controller") return controller;
    return producers.get(name) ?? consumers.get(name) ?? controller;
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
    width, small, cell, ruler, cols, stripW, top, headH, stripTop, stripBottom,
    consumersY, consumers, producers, controller, lo, hi, rows, initialEnd,
    height: rec.consumers.length || room?.consumers ? consumersY + stacked * 26 + 8 : stripBottom + 24,
    font: small ? 9 : 11,
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
