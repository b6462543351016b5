// The stage: one SVG, layered back to front, sized to its container. It draws
// a step record (step) and moves what travels between steps (frame). Every
// word on it goes through one board (board.js): fixed words first (headers,
// pills, the ruler, records, HW and LEO), then marks, then, each frame, the
// labels of the messages in flight; no word is drawn over another. The dots
// move: the words beside the logs and the messages' labels are drawn after them
// (the "words" layer), so a dot passing by goes under a word, never over it.

import { el, set, text, Keyed } from "./svg.js";
import { layout, rowsFor, along, pathOf } from "./layout.js";
import { Board } from "./board.js";
import { textBox } from "./measure.js";
import { createBrokers } from "./brokers.js";
import { createLogs } from "./logs.js";
import { createMessages } from "./messages.js";
import { createClients } from "./consumers.js";

/** Where along a cut link its cross may go, preferred first (hwscope svg uses the same: src/cli/svg/mod.rs). */
const CUT_MARK_AT = [0.5, 0.4, 0.6, 0.3, 0.7, 0.25, 0.75];

export function createStage(svg, onPick) {
  let pickHandler = onPick;
  const defs = el("defs", {}, svg);
  const arrow = el("marker", { id: "arrow", viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" }, defs);
  el("path", { d: "M0,0L8,4L0,8z", class: "arrowhead" }, arrow);
  const layer = (cls) => el("g", { class: cls }, svg);
  const ruler = layer("ruler");
  const logsLayer = layer("logs");
  const heads = layer("heads");
  const clientsLayer = layer("clients");
  const parkLayer = layer("parks");
  const cutLayer = layer("cuts");
  const trails = layer("trails");
  const msgLayer = layer("msgs");
  // Last, over the messages: the words beside the logs, the consumers' marks and
  // the messages' labels (placed apart on the board, so none covers another).
  const words = layer("words");
  const marks = el("g", { class: "cmarks" }, words);

  const renderBrokers = createBrokers(heads);
  const logs = createLogs(ruler, logsLayer, words);
  const clients = createClients(clientsLayer, marks);
  const messages = createMessages(trails, msgLayer, parkLayer, words);
  const cuts = new Keyed(cutLayer, () => {
    const g = el("g", { class: "cut" });
    return { g, path: el("path", {}, g), mark: el("text", {}, g) };
  });

  let rec = null;
  let initialEnd = 0;
  let selection = null;
  let width = svg.clientWidth || 600;
  let t = 0;
  let rows = 0;
  let room = null;
  let board = null;

  /** Draws a record; `fresh` starts a new run (the ruler may shrink again), whose
   *  `plan` (Sim.room) says what to make room for from its first step. */
  function step(next, initial = initialEnd, fresh = false, plan = room) {
    rec = next;
    initialEnd = initial;
    if (fresh) room = plan;
    rows = Math.max(fresh ? 0 : rows, rowsFor(rec, initialEnd, room));
    const L = layout(width, rec, initialEnd, rows, room);
    set(svg, { viewBox: `0 0 ${width} ${L.height}`, height: L.height, "font-size": L.font });
    board = new Board(width, L.height);
    renderBrokers(rec, L, selection?.kind === "broker" ? selection.id : null, board);
    clients.render(rec, L, board);
    // A cut link: its arc in red with a cross where messages are lost.
    cuts.sync(rec.partition.cut_links ?? [], ([a, b]) => `${a}>${b}`, (n, [a, b]) => {
      const edge = L.edge(a, b);
      // The cross at the middle of the arc, or the nearest free point along it (two
      // cut links can share a middle; a pill can sit on it).
      const at = (t) => along(edge, t);
      const box = (p) => textBox("✕", p.x, p.y + 5, 14, { anchor: "middle", weight: 700 });
      // When no point is free, the red arc alone says it.
      const mid = CUT_MARK_AT.map(at).find((p) => board.fits(box(p)));
      set(n.path, { d: pathOf(edge) });
      if (mid) set(n.mark, { x: mid.x, y: mid.y + 5 });
      text(n.mark, mid ? "✕" : "");
      if (mid) board.take(box(mid));
    });
    messages.step(rec, L, selection?.kind === "msg" ? selection.id : null, board);
    logs.render(rec, L, board);
    logs.marks(rec, L, board);
    clients.place(rec, L, board);
  }

  function frame(time) {
    t = time;
    messages.frame(time);
  }

  // Re-lay out when the container changes size (rotation, side panel, zoom).
  new ResizeObserver(() => {
    const w = Math.round(svg.clientWidth);
    if (w && w !== width && rec) {
      width = w;
      step(rec);
      frame(t);
    }
  }).observe(svg);

  function pick(e) {
    const target = e.target.closest("[data-msg],[data-broker],[data-consumer]");
    if (!target) return;
    const { msg, broker, consumer } = target.dataset;
    pickHandler(msg ? { kind: "msg", id: Number(msg) } : broker ? { kind: "broker", id: Number(broker) } : { kind: "consumer", id: consumer });
  }
  svg.addEventListener("click", pick);
  svg.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation();
      pick(e);
    }
  });

  return {
    step,
    frame,
    /** Who hears a click on a broker, a message or a consumer (app.js, once it runs). */
    set onPick(fn) {
      pickHandler = fn;
    },
    select(sel) {
      selection = sel;
      if (rec) {
        step(rec);
        frame(t);
      }
    },
  };
}
