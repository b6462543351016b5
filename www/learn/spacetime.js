// The space-time (sequence) diagram: one lane per broker, the controller and
// each client; one row per step, time growing downwards. Each message is an
// arrow from the row that sent it to the row that received it (✕ where it was
// lost); each event is a dot on its lane, and a moved HW is written beside
// it, so the leader's and the followers' HW can be read off at every row.
// The row of the shown step is highlighted; a click on a row shows that step.

import { el, set, text } from "../render/svg.js";
import { labelOf } from "../render/messages.js";
import { actorOf, eventLabel } from "./words.js";

const ROW = 22;
const TOP = 40;
/** Rows drawn around the shown step. */
export const WINDOW = 60;

let uid = 0;

export function createSpacetime(box, { onPick } = {}) {
  const id = `st${++uid}`;
  const wrap = document.createElement("div");
  wrap.className = "st-scroll";
  box.append(wrap);
  const svg = el("svg", { class: "spacetime", role: "group", "aria-label": "Sequence diagram: one lane per broker and client, one row per step" }, wrap);
  let from = 0;
  let to = -1;
  let rowsG = null;
  let nowBand = null;
  let key = "";
  let drawnFor = null;

  function lanesOf(trace, rows, msgs) {
    const brokers = rows[0].hw.map((_, b) => b);
    const names = new Set();
    for (const m of msgs) for (const end of [m.from, m.to]) if (typeof end !== "number") names.add(end);
    for (const r of rows) {
      for (const c of Object.keys(r.pos)) names.add(c);
      const a = actorOf(r.ev);
      if (a !== null && typeof a !== "number") names.add(a);
    }
    const producers = (trace.scenario.producers ?? []).map((p) => p.id);
    const order = (n) => (n === "controller" ? 0 : producers.includes(n) ? 1 : 2);
    return [...brokers, ...[...names].sort((a, b) => order(a) - order(b) || String(a).localeCompare(String(b)))];
  }

  function draw(trace, a, b, now) {
    from = a;
    to = b;
    drawnFor = trace;
    const rows = trace.rows.slice(from - trace.first, to - trace.first + 1);
    const msgs = [...trace.msgs.values()].filter((m) => m.sentStep <= to && (m.endStep ?? Infinity) >= from);
    const lanes = lanesOf(trace, rows, msgs);
    // A narrow screen gets a narrower gutter and lanes; the box scrolls sideways if it must.
    const room = box.clientWidth || 600;
    const LEFT = room < 480 ? 62 : 86;
    const laneW = Math.max(room < 480 ? 52 : 64, Math.min(220, (room - LEFT - 10) / lanes.length));
    const width = Math.max(Math.round(LEFT + laneW * lanes.length + 10), Math.floor(room) - 2);
    const height = TOP + rows.length * ROW + 12;
    const X = new Map(lanes.map((l, i) => [String(l), LEFT + laneW * (i + 0.5)]));
    const x = (l) => X.get(String(l)) ?? LEFT;
    const y = (n) => TOP + (n - from) * ROW + ROW / 2;
    svg.replaceChildren();
    set(svg, { width, height, viewBox: `0 0 ${width} ${height}` });
    const defs = el("defs", {}, svg);
    const arrow = el("marker", { id: `${id}-arrow`, viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 8, markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0L8,4L0,8z", class: "head" }, arrow);

    rowsG = el("g", { class: "rows" }, svg);
    nowBand = el("rect", { class: "now", x: 0, width, height: ROW }, rowsG);
    rows.forEach((r) => {
      // Rows are buttons with one tab stop (the shown step's row): ↑ ↓ move between them.
      const g = el("g", { class: "row", "data-step": r.step, role: "button", tabindex: -1, "aria-label": `Show step ${r.step}, ${r.t} ms: ${eventLabel(r.ev)}` }, rowsG);
      el("rect", { class: "hit", x: 0, y: y(r.step) - ROW / 2, width, height: ROW }, g);
      text(el("text", { class: "when", x: 4, y: y(r.step) + 4 }, g), LEFT < 80 ? `#${r.step} ${r.t}` : `#${r.step} ${r.t} ms`);
      text(el("title", {}, g), `step ${r.step} at ${r.t} ms: ${eventLabel(r.ev)}`);
    });

    const head = el("g", { class: "lanes" }, svg);
    const last = rows[Math.min(rows.length - 1, Math.max(0, now - from))];
    for (const l of lanes) {
      el("line", { class: typeof l === "number" ? "lane broker" : "lane client", x1: x(l), x2: x(l), y1: TOP - 6, y2: height - 6 }, head);
      const role = typeof l === "number" ? last.role[l] : "";
      const t = el("text", { class: `lh ${role}`, x: x(l), y: 14 }, head);
      text(t, typeof l === "number" ? `broker ${l}` : String(l));
      if (role) text(el("text", { class: "lr", x: x(l), y: 28 }, head), role);
    }

    const arrows = el("g", { class: "arrows" }, svg);
    for (const m of msgs) {
      const y1 = m.sentStep < from || m.early ? TOP - 4 : y(m.sentStep);
      const ends = m.endStep !== null && m.endStep <= to;
      const y2 = ends ? y(m.endStep) : height - 6;
      const x1 = x(m.from);
      const x2 = x(m.to);
      const g = el("g", { class: `msg-a ${m.type}${m.error && m.error !== "none" ? " err" : ""}${ends && !m.delivered ? " lost" : ""}`, "data-msg": m.id, "data-from": m.sentStep, "data-to": m.endStep ?? "" }, arrows);
      el("line", { x1, y1, x2, y2, "marker-end": ends && m.delivered ? `url(#${id}-arrow)` : null }, g);
      if (ends && !m.delivered) text(el("text", { class: "x", x: x2, y: y2 + 4 }, g), "✕");
      const label = labelOf(m);
      if (Math.abs(x2 - x1) > 30) {
        const f = 0.5;
        text(el("text", { class: "ml", x: x1 + (x2 - x1) * f, y: y1 + (y2 - y1) * f - 3 }, g), label);
      }
      text(el("title", {}, g), `${m.type.replace(/_/g, " ")} #${m.id}: ${label}, sent ${m.sent_ms} ms, arrives ${m.arrive_ms} ms`);
    }

    const events = el("g", { class: "events" }, svg);
    rows.forEach((r, i) => {
      const actor = actorOf(r.ev);
      if (r.ev?.type === "partition" || r.ev?.type === "heal") {
        el("line", { class: `cutline ${r.ev.type}`, x1: LEFT, x2: width - 10, y1: y(r.step), y2: y(r.step) }, events);
        text(el("text", { class: "ev", x: LEFT + 4, y: y(r.step) - 3 }, events), eventLabel(r.ev));
      } else if (actor !== null) {
        el("circle", { class: `dot ${r.ev.type}`, cx: x(actor), cy: y(r.step), r: 3.5 }, events);
      }
      const prev = i > 0 ? rows[i - 1] : trace.row(r.step - 1);
      if (!prev) return;
      r.hw.forEach((v, b) => {
        if (prev.hw[b] === undefined || prev.hw[b] === v) return;
        el("circle", { class: "hwring", cx: x(b), cy: y(r.step), r: 6.5 }, events);
        text(el("text", { class: "hwl", x: x(b) + 9, y: y(r.step) + 4, "data-step": r.step, "data-broker": b }, events), `HW ${v}`);
      });
    });
    current(now);
  }

  /** Highlights the shown step's row and the messages in flight at it. */
  function current(now) {
    if (!nowBand) return;
    const inside = now >= from && now <= to;
    set(nowBand, { y: TOP + (now - from) * ROW, visibility: inside ? null : "hidden" });
    for (const g of svg.querySelectorAll(".msg-a")) {
      const a = Number(g.dataset.from);
      const b = g.dataset.to === "" ? Infinity : Number(g.dataset.to);
      g.classList.toggle("live", a <= now && now < b);
    }
    svg.dataset.step = now;
    // The roving tab stop: the shown step's row, else the first row drawn.
    const rows = rowsG.children;
    let stop = null;
    for (const g of rows) {
      if (!g.classList.contains("row")) continue;
      if (Number(g.dataset.step) === now || (!stop && !inside)) stop = g;
    }
    for (const g of rows) if (g.classList.contains("row")) set(g, { tabindex: g === stop ? 0 : -1 });
    if (inside) {
      // Keep the row in view inside the diagram's own scroll box.
      const top = TOP + (now - from) * ROW;
      if (top < wrap.scrollTop + TOP || top + ROW > wrap.scrollTop + wrap.clientHeight) wrap.scrollTop = Math.max(0, top - wrap.clientHeight / 2);
    }
  }

  /** Redraws when the shown step nears the window's edge (or the run changed). */
  function step(trace, now) {
    const k = `${trace.first}:${trace.done}`;
    const near = now < from + 5 || now > to - 5;
    const atEdges = (now < from + 5 && from === trace.first) || (now > to - 5 && trace.done && to === trace.last);
    if (trace !== drawnFor || k !== key || (near && !atEdges)) {
      key = k;
      const a = Math.max(0, now - WINDOW / 2);
      trace.cover(a, a + WINDOW);
      const start = Math.max(trace.first, Math.min(a, trace.last - WINDOW));
      const focused = svg.contains(document.activeElement);
      draw(trace, start, Math.min(trace.last, start + WINDOW), now);
      key = `${trace.first}:${trace.done}`;
      // Redrawn under the keyboard: focus stays on the shown step's row.
      if (focused) svg.querySelector('.row[tabindex="0"]')?.focus({ preventScroll: true });
      return;
    }
    current(now);
  }

  svg.addEventListener("click", (e) => {
    const row = e.target.closest?.(".row");
    if (row && onPick) onPick(Number(row.dataset.step));
  });
  svg.addEventListener("keydown", (e) => {
    const row = e.target.closest?.(".row");
    if (!row) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation();
      if (onPick) onPick(Number(row.dataset.step));
    } else if (e.key === "ArrowUp" || e.key === "ArrowDown") {
      e.preventDefault();
      let next = e.key === "ArrowUp" ? row.previousElementSibling : row.nextElementSibling;
      while (next && !next.classList.contains("row")) next = e.key === "ArrowUp" ? next.previousElementSibling : next.nextElementSibling;
      if (next) {
        set(row, { tabindex: -1 });
        set(next, { tabindex: 0 });
        next.focus();
      }
    }
  });

  return { svg, step, redraw: () => (drawnFor = null) };
}
