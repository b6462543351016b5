// The stage: one SVG, layered back to front, sized to its container. It draws
// a step record (step) and moves what travels between steps (frame).

import { el, set } from "./svg.js";
import { layout } from "./layout.js";
import { createBrokers } from "./brokers.js";
import { createLogs } from "./logs.js";
import { createMessages } from "./messages.js";
import { createClients } from "./consumers.js";

export function createStage(svg, onPick) {
  const defs = el("defs", {}, svg);
  const arrow = el("marker", { id: "arrow", viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" }, defs);
  el("path", { d: "M0,0L8,4L0,8z", class: "arrowhead" }, arrow);
  const layer = (cls) => el("g", { class: cls }, svg);
  const ruler = layer("ruler");
  const logsLayer = layer("logs");
  const marks = layer("cmarks");
  const heads = layer("heads");
  const clientsLayer = layer("clients");
  const parkLayer = layer("parks");
  const trails = layer("trails");
  const msgLayer = layer("msgs");

  const renderBrokers = createBrokers(heads);
  const renderLogs = createLogs(ruler, logsLayer);
  const renderClients = createClients(clientsLayer, marks);
  const messages = createMessages(trails, msgLayer, parkLayer);

  let rec = null;
  let initialEnd = 0;
  let selection = null;
  let width = svg.clientWidth || 600;
  let t = 0;

  function step(next, initial = initialEnd) {
    rec = next;
    initialEnd = initial;
    const L = layout(width, rec, initialEnd);
    set(svg, { viewBox: `0 0 ${width} ${L.height}`, height: L.height, "font-size": L.font });
    renderLogs(rec, L);
    renderBrokers(rec, L, selection?.kind === "broker" ? selection.id : null);
    renderClients(rec, L);
    messages.step(rec, L, selection?.kind === "msg" ? selection.id : null);
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
    onPick(msg ? { kind: "msg", id: Number(msg) } : broker ? { kind: "broker", id: Number(broker) } : { kind: "consumer", id: consumer });
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
    select(sel) {
      selection = sel;
      if (rec) step(rec);
    },
  };
}
