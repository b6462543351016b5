// Log strips on the shared offset ruler: records coloured by leader epoch,
// solid below the replica's HW and dashed above it; the LEO and HW marks; the
// band a follower still lags behind the leader's HW; and, on the leader, its
// view of each follower's fetch offset. Every word goes on the board (board.js):
// where a label has no room it says less, or nothing (the header says it too).

import { el, set, text, Keyed } from "./svg.js";
import { ROWS } from "./layout.js";
import { textBox, textWidth } from "./measure.js";
import { fit } from "./fit.js";

/** Places one line of text on the board at the first free candidate [x, y, anchor,
 *  words]; an empty text when none is free. */
export function label(node, board, size, weight, candidates) {
  for (const [x, y, anchor, words] of candidates) {
    if (!words) continue;
    const box = textBox(words, x, y, size, { anchor, weight });
    if (!board || board.fits(box)) {
      board?.take(box);
      set(node, { x: x.toFixed(1), y: y.toFixed(1), "text-anchor": anchor });
      return text(node, words);
    }
  }
  return text(node, "");
}

export function createLogs(rulerLayer, layer, wordLayer = layer) {
  const rows = [];
  for (let i = 0; i < ROWS; i++) rows.push(el("text", { class: "ofs" }, rulerLayer));

  const strips = new Keyed(layer, (r) => {
    const g = el("g", { class: "log", "data-broker": r.broker });
    // The words beside the strip and the leader's fetch marks are drawn over the
    // messages: a dot passing under a log does not hide its HW, LEO or lag.
    const words = el("g", { class: "log-words", "data-broker": r.broker }, wordLayer);
    const n = {
      g,
      words,
      drop: () => {
        g.remove();
        words.remove();
      },
      bg: el("rect", { class: "strip" }, g),
      init: el("rect", { class: "init" }, g),
      initLabel: el("text", { class: "initl" }, g),
      cells: new Keyed(el("g", {}, g), () => {
        const c = el("g", {});
        return { g: c, rect: el("rect", {}, c), label: el("text", {}, c), title: el("title", {}, c) };
      }),
      band: el("rect", { class: "lag" }, g),
      hw: el("line", { class: "hwl" }, g),
      leo: el("line", { class: "leol" }, g),
      hwLabel: el("text", { class: "hwt" }, words),
      lagLabel: el("text", { class: "lagt" }, words),
      leoLabel: el("text", { class: "leot" }, words),
      // Records this log lost: a dashed ghost where the offset is empty now, a
      // tag beside the strip where another record stands there.
      ghosts: new Keyed(el("g", { class: "ghosts" }, g), () => {
        const c = el("g", {});
        return { g: c, rect: el("rect", {}, c), label: el("text", {}, c), title: el("title", {}, c) };
      }),
      marks: new Keyed(el("g", { class: "fmarks" }, words), () => {
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

  /** The strips, records and their numbers (taken on `board` first: they are fixed). */
  function render(rec, L, board) {
    if (drawn.step !== rec.step) {
      prev = drawn.step === rec.step - 1 ? drawn.hw : null;
      drawn = { step: rec.step, hw: new Map(rec.replicas.map((r) => [r.broker, r.hw])) };
    }
    const fs = L.font;
    for (let i = 0; i < ROWS; i++) {
      const y = L.y(L.lo + i) - L.cell / 2 + fs / 2.8;
      set(rows[i], { x: L.ruler - 4, y });
      text(rows[i], i < L.rows ? L.lo + i : "");
      // With a gap after it: a fetch mark's follower ("1 ▸") set close after "105" read as "1051".
      if (i < L.rows) board?.take(textBox(`${L.lo + i}\u2003`, L.ruler - 4 + fs, y, fs, { anchor: "end" }));
    }
    const leader = rec.replicas.find((r) => r.role === "leader" && r.alive);
    // Each record's whole id in its cell, or, where one in view has no room at the stage's
    // type (never under 12 px: e2e/stage.test.mjs), no id in any cell: ids in some cells
    // and not in others read as a pattern, and the number alone ("p1-12" → "12") beside
    // the offset ruler read as an offset, one off from the ruler's ("1" for p1-1 and p2-1
    // alike). Each cell's title names it; so does the inspector.
    const inView = (r) => r.log.slice(Math.max(0, L.lo - (r.log[0]?.offset ?? 0)), Math.max(0, L.hi - (r.log[0]?.offset ?? 0)));
    const widest = rec.replicas.flatMap(inView).reduce((a, e) => (e.id.length > a.length ? e.id : a), "");
    const named = textWidth(widest, fs) <= L.stripW - 4;
    strips.sync(rec.replicas, (r) => r.broker, (n, r) => {
      const { sx } = L.cols[r.broker];
      const w = L.stripW;
      const right = sx + w + 4;
      set(n.g, { class: `log${r.alive ? "" : " down"}` });
      set(n.words, { class: `log-words${r.alive ? "" : " down"}` });
      set(n.bg, { x: sx, y: L.stripTop, width: w, height: L.stripBottom - L.stripTop });

      // Records older than the scenario's log are one plain committed block.
      const initTop = Math.min(L.initialEnd, r.leo);
      const initBottom = Math.max(r.log_start_offset, L.lo);
      const showInit = initTop > initBottom;
      set(n.init, { x: sx, width: w, y: L.y(initTop), height: showInit ? L.y(initBottom) - L.y(initTop) : 0 });
      const initWords = showInit && L.y(initBottom) - L.y(initTop) >= fs + 2 ? fit([`${r.log_start_offset}–${initTop - 1}`], w - 4, fs) : "";
      set(n.initLabel, { x: sx + w / 2, y: (L.y(initTop) + L.y(initBottom)) / 2 + fs / 3, "text-anchor": "middle" });
      text(n.initLabel, initWords);

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
        set(c.label, { x: sx + w / 2, y: y + L.cell / 2 + fs / 3, "text-anchor": "middle" });
        text(c.label, again.has(e.offset) ? fit(named ? [`${e.id} ×2`, e.id, "×2"] : ["×2"], w - 4, fs) : named ? e.id : "");
        text(c.title, `${e.id} at offset ${e.offset}, epoch ${e.epoch}${e.offset < r.hw ? ", committed" : ", not committed yet"}${again.has(e.offset) ? " (appended twice)" : ""}`);
      });

      // Ghosts in empty offsets are drawn in the strip now; the others get a tag below.
      const inWindow = (r.lost ?? []).filter((gh) => gh.offset >= L.lo && gh.offset < L.hi);
      n.ghosts.sync(inWindow, (gh) => gh.offset, (c, gh) => {
        const y = L.y(gh.offset + 1);
        const empty = gh.offset >= r.leo;
        set(c.g, { class: `ghost${empty ? "" : " under"}`, "data-id": gh.id, "data-step": gh.step, "data-offset": gh.offset });
        set(c.rect, { x: sx + 1, y: y + 1, width: empty ? w - 2 : 0, height: L.cell - 2, rx: 2 });
        text(c.title, `${gh.id} was at offset ${gh.offset} (epoch ${gh.epoch}) until step ${gh.step} removed it from broker ${r.broker}'s log`);
        c.empty = empty;
        c.gh = gh;
        if (empty) {
          // In its cell, as long as it fits there and nothing is drawn there yet (a pill,
          // the ghost of the next offset): else the cell's outline and title say it.
          const words = fit([`✕ ${gh.id} #${gh.step}`, `✕ ${gh.id}`, `✕${gh.id.replace(/^.*-/, "")}`, "✕"], w - 4, fs);
          label(c.label, board, fs, 400, [[sx + w / 2, y + L.cell / 2 + fs / 3, "middle", words]]);
        }
      });
    });

    // Nothing is written over a strip and its records (taken before any label is
    // placed: a strip drawn later would cover a word placed next to it). The empty
    // part above a log is taken too, but its own HW and LEO may go there when the
    // gap beside it is too narrow (five brokers at 360 px): every log says both.
    const empty = new Map();
    for (const r of rec.replicas) {
      const { sx } = L.cols[r.broker];
      let top = Math.max(r.leo, leader && r !== leader && r.alive ? leader.hw : 0);
      for (const gh of r.lost ?? []) top = Math.max(top, gh.offset + 1);
      const yTop = L.y(top);
      board?.take({ x0: sx, x1: sx + L.stripW, y0: yTop, y1: L.stripBottom });
      empty.set(r.broker, { yTop, box: board?.take({ x0: sx, x1: sx + L.stripW, y0: L.stripTop, y1: yTop }) });
    }

    strips.sync(rec.replicas, (r) => r.broker, (n, r) => {
      const { sx } = L.cols[r.broker];
      const w = L.stripW;
      const right = sx + w + 4;

      // The lag band: committed on the leader, not yet below this follower's HW.
      const lag = leader && r !== leader && r.alive ? leader.hw - r.hw : 0;
      set(n.band, { x: sx - 4, width: w + 8, y: L.y(leader ? leader.hw : 0), height: lag > 0 ? L.y(r.hw) - L.y(leader.hw) : 0 });

      const yHw = L.y(r.hw);
      const yLeo = L.y(r.leo);
      set(n.hw, { x1: sx - 4, x2: right, y1: yHw, y2: yHw });
      set(n.leo, { x1: sx - 4, x2: right, y1: yLeo, y2: yLeo });
      const was = prev?.get(r.broker);
      const moved = was !== undefined && was !== r.hw;
      // The leader's HW held while its ISR is under min.insync.replicas (3.7+).
      const held = rec.partition.hw_held && r.broker === rec.partition.leader && r.role === "leader";
      set(n.hw, { class: held ? "hwl held" : "hwl" });
      set(n.hwLabel, { class: moved ? "hwt moved" : held ? "hwt held" : "hwt" });
      // HW first: it matters most; then LEO, then the lag.
      // Right of the strip, else left of it (the last column of a narrow stage), else
      // from the strip's empty part above the log, LEO's over HW's.
      const own = empty.get(r.broker);
      if (board && own.box) board.boxes = board.boxes.filter((b) => b !== own.box);
      const above = (words, lines) => [sx + 2, own.yTop - 3 - lines * (fs + 4), "start", words];
      const hwAt = (words) => [[right + 2, yHw + fs + 1, "start", words], [sx - 8, yHw + fs + 1, "end", words]];
      const hwWords = moved ? [`HW ${was}→${r.hw}`, `HW↑${r.hw}`, `↑${r.hw}`] : held ? [`HW ${r.hw} held`, `HW ${r.hw}`] : [`HW ${r.hw}`];
      const hwSize = moved ? fs + 1 : fs;
      label(n.hwLabel, board, hwSize, 700, hwWords.flatMap(hwAt));
      const leo = `LEO ${r.leo}`;
      label(n.leoLabel, board, fs, 400, [[right + 2, yLeo - 3, "start", leo], [sx - 8, yLeo - 3, "end", leo], above(leo, 0), above(leo, 1)]);
      // (Above the log, the HW goes over the LEO: "HW" says which line it is.)
      if (!n.hwLabel.textContent) label(n.hwLabel, board, hwSize, 700, hwWords.filter((w) => w.startsWith("HW")).flatMap((w) => [above(w, 0), above(w, 1), above(w, 2)]));
      if (board && own.box) board.take(own.box);
      label(n.lagLabel, board, fs, 700, [[right + 2, yHw + 2 * fs + 5, "start", lag > 0 ? `lag ${lag}` : ""]]);
      // A record lost where another stands now: "✕ p1-1 #8" beside that row.
      for (const c of n.ghosts.nodes.values()) {
        if (c.empty) continue;
        const { gh } = c;
        const y = L.y(gh.offset + 1) + L.cell / 2 + fs / 3;
        label(c.label, board, fs, 600, [[right + 2, y, "start", `✕ ${gh.id} #${gh.step}`], [sx - 8, y, "end", `✕ ${gh.id} #${gh.step}`], [right + 2, y, "start", `✕ ${gh.id}`], [sx - 8, y, "end", `✕ ${gh.id}`]]);
      }
    });
  }

  /** The leader's view of each follower: where it last asked to fetch from (one
   *  mark per offset, naming every follower there). Placed after the fixed words. */
  function marks(rec, L, board) {
    const fs = L.font;
    for (const r of rec.replicas) {
      const n = strips.nodes.get(r.broker);
      const followers = r.role === "leader" && r.followers ? r.followers.filter((f) => f.fetch_offset !== null && f.fetch_offset !== undefined) : [];
      const at = new Map();
      for (const f of followers) at.set(f.fetch_offset, [...(at.get(f.fetch_offset) ?? []), f]);
      const { sx } = L.cols[r.broker];
      n.marks.sync([...at], ([o]) => o, (m, [o, fs2]) => {
        const x = sx - 2;
        const y = L.y(o);
        set(m.g, { class: fs2.every((f) => f.in_isr === false) ? "fmark out" : "fmark" });
        set(m.tip, { d: `M${x},${y}l-5,-4v8z` });
        // Two followers at one offset read as two ("1 & 2"), not as a number ("1,2");
        // where the whole list has no room, a run of brokers as "1–4" (as hwscope svg).
        const spots = (names) => [[x - 6, y + fs / 3, "end", names], [x - 6, y - 4, "end", names], [x - 6, y + fs + 2, "end", names]];
        label(m.label, board, fs, 600, [...spots(fs2.map((f) => f.broker).join(" & ")), ...spots(runs(fs2.map((f) => f.broker)))]);
        text(m.title, fs2.map((f) => `Leader's view of follower ${f.broker}: fetch offset ${f.fetch_offset}`).join("; "));
      });
    }
  }

  return { render, marks };
}

/** Brokers in words, runs of three or more as a range: [1, 2, 3, 4, 6] → "1–4 & 6". */
function runs(ids) {
  const sorted = [...ids].sort((a, b) => a - b);
  const out = [];
  for (const id of sorted) {
    const last = out[out.length - 1];
    if (last && last[1] + 1 === id) last[1] = id;
    else out.push([id, id]);
  }
  return out.map(([a, b]) => (a === b ? `${a}` : b === a + 1 ? `${a} & ${b}` : `${a}–${b}`)).join(" & ");
}
