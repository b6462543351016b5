// Each property's verdict along the run, under the scrubber (issue 27): one thin
// row per property in the scrubber's track (holds: faint; permitted by the
// configuration: amber; broken: red), a cursor at the step shown, a one-line
// verdict at that step, and (opened from it) the properties broken somewhere in
// the run computed so far, each naming its witness (record, replica, offset,
// leader epoch) with a button that shows the step where it broke. index.html
// reserves their room, so nothing moves when they are drawn. The verdicts come from the core (src/verdict.rs, through
// Playground.verdicts()); nothing here decides whether a property holds.

import { fmt, h } from "../core/dom.js";

const NS = "http://www.w3.org/2000/svg";
/** The range input's thumb: rows line up with where the thumb's centre would be. */
const THUMB = 16;
const WORD = { holds: "holds", allowed: "broken, permitted by the configuration", fails: "broken" };
const MARK = { holds: "✓", allowed: "!", fails: "✗" };

/** The verdict of one property's segments at step n. */
function at(segments, n) {
  let v = "holds";
  for (const s of segments) {
    if (s.from > n) break;
    v = s.verdict;
  }
  return v;
}

/** The witness in words: record p1-1 · offset 1 · replica 0 (and 1) · epoch 2. */
function witness(s) {
  const parts = [];
  if (s.record !== undefined) parts.push(`record ${s.record}`);
  if (s.offset !== undefined) parts.push(`offset ${fmt(s.offset)}`);
  if (s.replica !== undefined) parts.push(s.other !== undefined ? `replicas ${s.replica} and ${s.other}` : `replica ${s.replica}`);
  if (s.epoch !== undefined) parts.push(`leader epoch ${s.epoch}`);
  return parts.join(" · ");
}

/** `go(n)` shows step n. */
export function createVerdicts(doc, sim, player, { go }) {
  const root = doc.getElementById("verdicts");
  const svg = doc.getElementById("vstrip");
  if (!root || !svg) return { step() {}, reset() {} };
  const cursor = doc.createElementNS(NS, "line");
  cursor.setAttribute("class", "v-cursor");
  const summary = root.querySelector(".v-summary");
  const list = root.querySelector(".v-list");

  let data = null;
  let drawn = "";
  let timer = 0;
  let step = 0;
  const rows = new Map();

  function x(n, from, to, span) {
    return THUMB / 2 + ((n - from) / Math.max(1, to - from)) * span;
  }

  /** Redraws for the run as far as it is computed (at most every 200 ms). */
  function draw() {
    if (timer) return;
    timer = setTimeout(() => {
      timer = 0;
      const width = Math.round(svg.clientWidth);
      const from = player.from;
      const to = Math.min(player.to, sim.known - 1);
      const key = `${sim.revision}:${sim.known}:${from}:${to}:${width}`;
      if (!width || key === drawn) return;
      drawn = key;
      data = sim.verdicts();
      if (!data) return;
      const span = Math.max(1, width - THUMB);
      const props = data.properties;
      const ROW = Math.max(1, (svg.clientHeight || 44) / props.length);
      const GAP = 0;
      props.forEach((p, i) => {
        let g = rows.get(p.name);
        if (!g) {
          g = doc.createElementNS(NS, "g");
          const title = doc.createElementNS(NS, "title");
          g.append(title);
          svg.append(g);
          rows.set(p.name, g);
        }
        g.firstChild.textContent = p.name;
        const y = i * (ROW + GAP);
        const rects = [];
        p.segments.forEach((s, k) => {
          const end = k + 1 < p.segments.length ? p.segments[k + 1].from : to + 1;
          if (end <= from || s.from > to) return;
          const a = x(Math.max(s.from, from), from, to + 1, span);
          const b = x(Math.min(end, to + 1), from, to + 1, span);
          rects.push([a, Math.max(1.5, b - a), s.verdict]);
        });
        while (g.childNodes.length - 1 > rects.length) g.lastChild.remove();
        rects.forEach(([a, w, v], k) => {
          let r = g.childNodes[k + 1];
          if (!r) {
            r = doc.createElementNS(NS, "rect");
            g.append(r);
          }
          r.setAttribute("x", a.toFixed(1));
          r.setAttribute("y", y.toFixed(2));
          r.setAttribute("width", w.toFixed(1));
          // A 1 px gap between rows where they are tall enough to afford it (2 px and up).
          r.setAttribute("height", (ROW >= 2 ? ROW - 1 : ROW).toFixed(2));
          r.setAttribute("class", `v-${v}`);
        });
      });
      svg.append(cursor);
      cursor.setAttribute("y1", "0");
      cursor.setAttribute("y2", (props.length * (ROW + GAP)).toFixed(2));
      list.replaceChildren(...props.flatMap((p) => {
        const broken = p.segments.find((s) => s.verdict !== "holds");
        if (!broken) return [];
        const name = p.tla ? `${p.name} (${p.tla})` : p.name;
        const li = h("li", { "data-property": p.name },
          h("span", { class: "v-mark" }, ""),
          h("button", { type: "button", class: "link", onclick: () => go(broken.from), title: `Show step ${broken.from}` }, `step ${fmt(broken.from)}`),
          " ", h("strong", {}, name), " ",
          h("span", { class: "v-when" }, ""),
          h("span", { class: "v-witness" }, witness(broken) ? ` — ${witness(broken)}.` : ""),
          " ", h("span", { class: "v-text" }, broken.text));
        li.dataset.first = broken.from;
        return [li];
      }));
      paint();
    }, drawn ? 200 : 0);
  }

  /** The cursor and the verdicts at the step shown. */
  function paint() {
    if (!data) return;
    const from = player.from;
    const to = Math.min(player.to, sim.known - 1);
    const span = Math.max(1, Math.round(svg.clientWidth) - THUMB);
    const cx = x(Math.min(Math.max(step, from), to + 1), from, to + 1, span).toFixed(1);
    cursor.setAttribute("x1", cx);
    cursor.setAttribute("x2", cx);
    const now = data.properties.map((p) => [p, at(p.segments, step)]);
    const broken = now.filter(([, v]) => v !== "holds");
    const ever = list.childElementCount;
    summary.textContent = broken.length === 0
      ? `Step ${fmt(step)}: all ${now.length} properties hold${ever ? ` (${ever} broken elsewhere in the run: open for the witnesses)` : ` in the ${fmt(sim.known)} steps computed`}.`
      : `Step ${fmt(step)}: ${broken.map(([p, v]) => `${p.name} ${WORD[v]}`).join("; ")}; ${now.length - broken.length} hold. Open for the witnesses.`;
    for (const li of list.children) {
      const p = data.properties.find((q) => q.name === li.dataset.property);
      const v = at(p.segments, step);
      li.className = `v-${v}`;
      li.querySelector(".v-mark").textContent = MARK[v];
      li.querySelector(".v-when").textContent = v === "holds" ? `(holds here; broken from step ${fmt(Number(li.dataset.first))})` : `(${WORD[v]} here)`;
    }
  }

  sim.listen(draw);
  new ResizeObserver(() => {
    drawn = "";
    draw();
  }).observe(svg);

  return {
    /** The step shown changed. */
    step(n) {
      step = n;
      paint();
    },
    reset() {
      drawn = "";
      draw();
    },
  };
}
