// The chart over time: the leader's HW, each follower's HW (while it follows)
// and each consumer's position, as step lines over simulated time, with a
// cursor at the shown time. Every HW change is a marker: pick one to see why
// it moved. Colours come from CSS classes (export.js inlines them).

import { el, set, text } from "../render/svg.js";

const nice = (span, count) => {
  const raw = Math.max(span / Math.max(1, count), 1e-9);
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
};
/** Tick labels in one unit for the whole axis: seconds once the axis passes 10 s. */
const fmtT = (v, seconds) => (seconds ? `${+(v / 1000).toFixed(2)} s` : `${v} ms`);
/** Focusable markers at most (the rest are still clickable). */
const FOCUSABLE = 60;

/** Points where the value changes: [[t, v|null]…]. */
function series(rows, valueOf) {
  const pts = [];
  let last;
  for (const r of rows) {
    const v = valueOf(r);
    if (v !== last) {
      pts.push([r.t, v ?? null]);
      last = v;
    }
  }
  return pts;
}

function stepPath(pts, X, Y, tEnd) {
  let d = "";
  let open = false;
  for (const [t, v] of pts) {
    const x = X(t).toFixed(1);
    if (v === null) {
      if (open) d += `H${x}`;
      open = false;
      continue;
    }
    const y = Y(v).toFixed(1);
    d += open ? `H${x}V${y}` : `M${x},${y}`;
    open = true;
  }
  if (open) d += `H${X(tEnd).toFixed(1)}`;
  return d;
}

export function createChart(box, { onPick, height = 240, title = "HW and consumer positions over time" } = {}) {
  const svg = el("svg", { class: "chart", role: "group", "aria-label": title }, box);
  let X = null;
  let area = null;
  let cur = null;

  function draw(trace, from, to) {
    const rows = trace.rows.slice(from - trace.first, to - trace.first + 1);
    svg.replaceChildren();
    const width = Math.max(280, Math.round(box.clientWidth || 600));
    const brokers = trace.row(from).hw.length;
    const consumers = [...new Set(rows.flatMap((r) => Object.keys(r.pos)))];
    const lines = [
      { cls: "lead", name: "leader HW", pts: series(rows, (r) => (r.leader === null ? null : r.hw[r.leader])) },
      ...Array.from({ length: brokers }, (_, b) => ({ cls: `f f${b % 6}`, name: `broker ${b} HW (follower)`, pts: series(rows, (r) => (r.role[b] === "follower" ? r.hw[b] : null)) })),
      ...consumers.map((id, i) => ({ cls: `c c${i % 4}`, name: `${id} position`, pts: series(rows, (r) => r.pos[id] ?? null) })),
    ].filter((l) => l.pts.some(([, v]) => v !== null));

    // Legend rows first: they decide where the plot starts.
    const legend = el("g", { class: "legend" }, svg);
    let lx = 44;
    let ly = 14;
    for (const l of lines) {
      const swatch = el("line", { class: `ln ${l.cls}`, x1: lx, y1: ly - 4, x2: lx + 20, y2: ly - 4 }, legend);
      const label = text(el("text", { x: lx + 24, y: ly }, legend), l.name);
      const w = 24 + (label.getComputedTextLength?.() || l.name.length * 7) + 14;
      if (lx + w > width - 8 && lx > 44) {
        lx = 44;
        ly += 16;
        set(swatch, { x1: lx, y1: ly - 4, x2: lx + 20, y2: ly - 4 });
        set(label, { x: lx + 24, y: ly });
      }
      lx += w;
    }
    const m = { l: 44, r: 12, t: ly + 20, b: 30 };
    const H = height + ly + 8;
    set(svg, { width, height: H, viewBox: `0 0 ${width} ${H}` });
    const t0 = rows[0].t;
    const t1 = Math.max(rows[rows.length - 1].t, t0 + 1);
    let lo = Infinity;
    let hi = -Infinity;
    for (const l of lines) for (const [, v] of l.pts) if (v !== null) (lo = Math.min(lo, v)), (hi = Math.max(hi, v));
    if (!(lo <= hi)) (lo = 0), (hi = 1);
    if (hi - lo < 2) (lo -= 1), (hi += 1);
    const w = width - m.l - m.r;
    const hgt = H - m.t - m.b;
    X = (t) => m.l + ((t - t0) / (t1 - t0)) * w;
    const Y = (v) => m.t + hgt - ((v - lo) / (hi - lo)) * hgt;
    area = { top: m.t, bottom: m.t + hgt };

    const grid = el("g", { class: "grid" }, svg);
    const ys = Math.max(1, nice(hi - lo, hgt / 28));
    for (let v = Math.ceil(lo / ys) * ys; v <= hi; v += ys) {
      el("line", { x1: m.l, x2: width - m.r, y1: Y(v), y2: Y(v) }, grid);
      text(el("text", { class: "yl", x: m.l - 4, y: Y(v) + 4 }, grid), Math.round(v));
    }
    const xs = nice(t1 - t0, w / 90);
    for (let v = Math.ceil(t0 / xs) * xs; v <= t1; v += xs) {
      el("line", { x1: X(v), x2: X(v), y1: m.t, y2: m.t + hgt }, grid);
      text(el("text", { class: "xl", x: X(v), y: m.t + hgt + 14 }, grid), fmtT(v, t1 >= 10000));
    }
    text(el("text", { class: "axis", x: width - m.r, y: H - 2 }, grid), "simulated time");
    text(el("text", { class: "axis y", transform: `translate(11,${(m.t + hgt / 2).toFixed(1)}) rotate(-90)` }, grid), "offset");

    for (const l of lines) el("path", { class: `ln ${l.cls}`, d: stepPath(l.pts, X, Y, t1) }, svg);

    const marks = el("g", { class: "marks" }, svg);
    trace.hwChanges(from + 1, to).forEach((c, i) => {
      // A 24 px target (WCAG 2.5.8) around a dot that stays small enough to read the lines.
      const what = `#${c.step} · ${c.t} ms: ${c.leader ? "leader" : "follower"} ${c.broker} HW ${c.from} → ${c.to} (why?)`;
      const mark = el("g", { class: `mk ${c.leader ? "lead" : `f f${c.broker % 6}`}`, "data-step": c.step, "data-broker": c.broker, role: "button", tabindex: i < FOCUSABLE ? 0 : null, "aria-label": what }, marks);
      el("circle", { class: "hit", cx: X(c.t), cy: Y(c.to), r: 12 }, mark);
      el("circle", { class: "dot", cx: X(c.t), cy: Y(c.to), r: c.leader ? 6 : 5 }, mark);
      text(el("title", {}, mark), what);
    });

    cur = el("g", { class: "cur" }, svg);
    cur.line = el("line", { y1: area.top, y2: area.bottom }, cur);
    cur.label = el("text", { y: area.top - 3 }, cur);
  }

  /** Moves the cursor to time t (cheap: one line and one label). */
  function cursor(t) {
    if (!cur) return;
    const x = X(t);
    set(cur.line, { x1: x, x2: x });
    text(cur.label, `t = ${t} ms`);
    // Right of the line, or left of it where the words would run off the chart (its end on a phone).
    const w = cur.label.getComputedTextLength?.() || String(t).length * 7 + 42;
    const right = x + 3 + w <= Number(svg.getAttribute("width")) - 2;
    set(cur.label, { x: right ? x + 3 : x - 3, "text-anchor": right ? "start" : "end" });
  }

  const pick = (e) => {
    const dot = e.target.closest?.(".mk");
    if (dot && onPick) onPick(Number(dot.dataset.step), Number(dot.dataset.broker));
  };
  svg.addEventListener("click", pick);
  svg.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      if (!e.target.closest?.(".mk")) return;
      e.preventDefault();
      e.stopPropagation();
      pick(e);
    }
  });

  return { svg, draw, cursor };
}
