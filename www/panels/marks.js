// Key moments on the scrubber and the way to them: the core notes, as it
// computes the run, the steps that moved an HW, changed the ISR, elected a
// leader, truncated a log, broke an invariant, or were an intervention or a
// scripted fault (src/marks.rs). Here they are ticks under the scrubber, one
// colour per kind, and a jump to the next or previous one of a kind (buttons,
// ] and [, or the kind's letter; Shift goes back). A jump past what is computed
// computes on, in slices, until one is found or the run ends.

import { fmt } from "../core/dom.js";

const KINDS = { hw: 1, isr: 2, election: 4, truncation: 8, loss: 16, intervention: 32, fault: 64 };
/** Drawn last wins: the rarer, the more important. */
const ORDER = ["hw", "fault", "intervention", "isr", "truncation", "election", "loss"];
const KEYS = { h: "hw", i: "isr", e: "election", t: "truncation", l: "loss", v: "intervention", f: "fault" };
const WORDS = { hw: "HW move", isr: "ISR change", election: "election", truncation: "truncation", loss: "loss or broken invariant", intervention: "intervention of yours", fault: "scripted fault" };
const NS = "http://www.w3.org/2000/svg";
/** The range input's thumb: ticks line up with where the thumb's centre would be. */
const THUMB = 16;

/** `go(n)` shows step n; `find(test, label)` computes on until test() holds
 *  (resolves "reached", "timeout" or "stopped"). */
export function createMarks(doc, sim, player, { go, find }) {
  const $ = (id) => doc.getElementById(id);
  const svg = $("marks");
  const kind = $("jump-kind");
  const msg = $("jump-msg");
  const paths = new Map(ORDER.map((k) => {
    const p = doc.createElementNS(NS, "path");
    p.setAttribute("class", `k-${k}`);
    svg.append(p);
    return [k, p];
  }));

  let drawn = "";
  let timer = 0;
  /** Redraws the ticks for the run as far as it is computed (at most every 200 ms). */
  function draw() {
    if (timer) return;
    timer = setTimeout(() => {
      timer = 0;
      const width = Math.round(svg.clientWidth);
      const from = player.from;
      const to = Math.min(player.to, sim.known - 1);
      const key = `${sim.revision}:${from}:${to}:${width}`;
      if (!width || key === drawn) return;
      drawn = key;
      const span = Math.max(1, width - THUMB);
      const buckets = sim.markBuckets(from, to, span);
      const d = Object.fromEntries(ORDER.map((k) => [k, []]));
      buckets.forEach((bits, i) => {
        if (!bits) return;
        const x = (THUMB / 2 + ((i + 0.5) / buckets.length) * span).toFixed(1);
        for (const k of ORDER) if (bits & KINDS[k]) d[k].push(`M${x},${k === "hw" ? 6 : 0}v${k === "hw" ? 6 : 12}`);
      });
      for (const k of ORDER) paths.get(k).setAttribute("d", d[k].join(""));
    }, drawn ? 200 : 0);
  }
  sim.listen(draw);
  new ResizeObserver(draw).observe(svg);

  let jumping = 0;
  /** Shows the next (or previous) step of `which` kind after the one shown. */
  async function jump(which, forward) {
    kind.value = which;
    const mask = KINDS[which];
    const here = player.step;
    const token = ++jumping;
    let n = sim.nextMark(here, mask, forward);
    if (n < 0 && forward && !sim.done && sim.known - 1 < player.to) {
      msg.textContent = "";
      await find(() => sim.nextMark(here, mask, true) >= 0, `Looking for the next ${WORDS[which]}`);
      if (token !== jumping) return;
      n = sim.nextMark(here, mask, true);
    }
    if (n >= 0 && n >= player.from && n <= player.to) {
      msg.textContent = `${WORDS[which][0].toUpperCase()}${WORDS[which].slice(1)} at step ${fmt(n)}`;
      go(n);
      return;
    }
    const where = forward ? `after step ${fmt(here)}` : `before step ${fmt(here)}`;
    msg.textContent = forward && !sim.done ? `No ${WORDS[which]} ${where} in the ${fmt(sim.known)} steps computed so far` : `No ${WORDS[which]} ${where}`;
  }

  $("jump-prev").addEventListener("click", () => jump(kind.value, false));
  $("jump-next").addEventListener("click", () => jump(kind.value, true));

  return {
    draw,
    /** A key press: true if it was a jump. */
    key(e) {
      if (e.key === "]" || e.key === "[") {
        jump(kind.value, e.key === "]");
        return true;
      }
      const which = KEYS[e.key.toLowerCase()];
      if (!which || e.key.length !== 1) return false;
      jump(which, !e.shiftKey);
      return true;
    },
    reset() {
      msg.textContent = "";
      drawn = "";
      draw();
    },
  };
}
