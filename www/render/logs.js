// Log strips on the shared offset ruler: records coloured by leader epoch,
// solid below the replica's HW and dashed above it; the LEO and HW marks; the
// band a follower still lags behind the leader's HW; and, on the leader, its
// view of each follower's fetch offset.

import { el, set, text, Keyed } from "./svg.js";
import { ROWS } from "./layout.js";

export function createLogs(rulerLayer, layer) {
  const rows = [];
  for (let i = 0; i < ROWS; i++) rows.push(el("text", { class: "ofs" }, rulerLayer));

  const strips = new Keyed(layer, (r) => {
    const g = el("g", { class: "log", "data-broker": r.broker });
    const n = {
      g,
      bg: el("rect", { class: "strip" }, g),
      init: el("rect", { class: "init" }, g),
      initLabel: el("text", { class: "initl" }, g),
      cells: new Keyed(el("g", {}, g), () => {
        const c = el("g", {});
        return { g: c, rect: el("rect", {}, c), label: el("text", {}, c) };
      }),
      band: el("rect", { class: "lag" }, g),
      hw: el("line", { class: "hwl" }, g),
      leo: el("line", { class: "leol" }, g),
      hwLabel: el("text", { class: "hwt" }, g),
      lagLabel: el("text", { class: "lagt" }, g),
      leoLabel: el("text", { class: "leot" }, g),
      marks: new Keyed(el("g", { class: "fmarks" }, g), () => {
        const m = el("g", {});
        return { g: m, tip: el("path", {}, m), label: el("text", {}, m), title: el("title", {}, m) };
      }),
    };
    return n;
  });

  // Each broker's HW at the step drawn last and at the one before it, to show
  // "HW 100→105" on the step that moved it.
  let drawn = { step: -2, hw: null };
  let prev = null;

  return function render(rec, L) {
    if (drawn.step !== rec.step) {
      prev = drawn.step === rec.step - 1 ? drawn.hw : null;
      drawn = { step: rec.step, hw: new Map(rec.replicas.map((r) => [r.broker, r.hw])) };
    }
    for (let i = 0; i < ROWS; i++) {
      set(rows[i], { x: L.ruler - 4, y: L.y(L.lo + i) - L.cell / 2 + L.font / 2.8 });
      text(rows[i], i < L.rows ? L.lo + i : "");
    }
    const leader = rec.replicas.find((r) => r.role === "leader" && r.alive);
    const fs = L.font;
    strips.sync(rec.replicas, (r) => r.broker, (n, r) => {
      const { sx } = L.cols[r.broker];
      const w = L.stripW;
      const right = sx + w + 4;
      set(n.g, { class: `log${r.alive ? "" : " down"}` });
      set(n.bg, { x: sx, y: L.stripTop, width: w, height: L.stripBottom - L.stripTop });

      // Records older than the scenario's log are one plain committed block.
      const initTop = Math.min(L.initialEnd, r.leo);
      const initBottom = Math.max(r.log_start_offset, L.lo);
      const showInit = initTop > initBottom;
      set(n.init, { x: sx, width: w, y: L.y(initTop), height: showInit ? L.y(initBottom) - L.y(initTop) : 0 });
      set(n.initLabel, { x: sx + w / 2, y: (L.y(initTop) + L.y(initBottom)) / 2 + fs / 3 });
      text(n.initLabel, showInit && L.y(initBottom) - L.y(initTop) >= fs ? `${r.log_start_offset}–${initTop - 1}` : "");

      // Offsets in a log are consecutive, so the window is a slice, not a scan.
      const base = r.log.length ? r.log[0].offset : 0;
      const visible = r.log.slice(Math.max(0, L.lo - base), Math.max(0, L.hi - base));
      // A record already in the log under the same id (a retry appended again).
      const ids = new Set();
      const again = new Set();
      for (const e of r.log) {
        if (ids.has(e.id)) again.add(e.offset);
        ids.add(e.id);
      }
      n.cells.sync(visible, (e) => e.offset, (c, e) => {
        const y = L.y(e.offset + 1);
        set(c.g, { class: `rec ep${e.epoch % 6} ${e.offset < r.hw ? "c" : "u"}${again.has(e.offset) ? " dup" : ""}` });
        set(c.rect, { x: sx + 1, y: y + 1, width: w - 2, height: L.cell - 2, rx: 2 });
        set(c.label, { x: sx + w / 2, y: y + L.cell / 2 + fs / 3 });
        text(c.label, again.has(e.offset) ? `${e.id} ×2` : e.id);
      });

      // The lag band: committed on the leader, not yet below this follower's HW.
      const lag = leader && r !== leader && r.alive ? leader.hw - r.hw : 0;
      set(n.band, { x: sx - 4, width: w + 8, y: L.y(leader ? leader.hw : 0), height: lag > 0 ? L.y(r.hw) - L.y(leader.hw) : 0 });

      const yHw = L.y(r.hw);
      const yLeo = L.y(r.leo);
      set(n.hw, { x1: sx - 4, x2: right, y1: yHw, y2: yHw });
      set(n.leo, { x1: sx - 4, x2: right, y1: yLeo, y2: yLeo });
      set(n.leoLabel, { x: right + 2, y: yLeo - 3 });
      set(n.hwLabel, { x: right + 2, y: yHw + fs + 1 });
      set(n.lagLabel, { x: right + 2, y: yHw + 2 * fs + 3 });
      text(n.leoLabel, `LEO ${r.leo}`);
      const was = prev?.get(r.broker);
      const moved = was !== undefined && was !== r.hw;
      set(n.hwLabel, { class: moved ? "hwt moved" : "hwt" });
      text(n.hwLabel, moved ? (L.small ? `HW↑${r.hw}` : `HW ${was}→${r.hw}`) : `HW ${r.hw}`);
      text(n.lagLabel, lag > 0 ? `lag ${lag}` : "");

      // The leader's view of each follower: where it last asked to fetch from.
      const followers = r.role === "leader" && r.followers ? r.followers.filter((f) => f.fetch_offset !== null && f.fetch_offset !== undefined) : [];
      const seen = new Map();
      n.marks.sync(followers, (f) => f.broker, (m, f) => {
        const k = seen.get(f.fetch_offset) ?? 0;
        seen.set(f.fetch_offset, k + 1);
        const x = sx - 2 - k * 13;
        const y = L.y(f.fetch_offset);
        set(m.g, { class: f.in_isr === false ? "fmark out" : "fmark" });
        set(m.tip, { d: `M${x},${y}l-5,-4v8z` });
        set(m.label, { x: x - 6, y: y + fs / 3 });
        text(m.label, f.broker);
        text(m.title, `Leader's view of follower ${f.broker}: fetch offset ${f.fetch_offset}`);
      });
    });
  };
}
