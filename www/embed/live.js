// A documentation figure made live: the page's stage, player and look-ahead
// (www/render/, core/player.js, core/sim.js, core/frontier.js) with compact controls and the step's sentence, drawn in
// a shadow root inside the box the static figure reserved (the site's styles
// stay out, and nothing on the page moves). Every figure of the page shares
// one WebAssembly instance; each has its own Playground.

import init, { Playground, parseDocBlock } from "../pkg/hwscope_docs_first.js";
import { Sim } from "../core/sim.js";
import { Player } from "../core/player.js";
import { Frontier } from "../core/frontier.js";
import { createStage } from "../render/stage.js";
import { measureIn } from "../render/measure.js";

// Two cores, as the page has (docs/performance.md, issue 28's ninth pass): the figures
// start on the docs figures' first core (the page's first core plus the block parser:
// no narration, ~144 KB gzipped), and once the first figure is live the docs core (the
// page's full core plus the block parser, ~205 KB) is fetched and every figure swaps to
// it (Sim.swap: the same run, the cursor where it was, now with its sentences).
const core = init({ module_or_path: new URL("../pkg/hwscope_docs_first_bg.wasm", import.meta.url) });
const LOADING = "Loading the narration…";
/** The figures made live, each swapped to the docs core when it comes. */
const figures = new Set();
let docs = null;
/** The docs core's Playground once it has come (figures made live after it start on it). */
let Full = null;
/** The docs core's block reader once it has come (it has the messages the first core has not). */
let readBlock = null;
function loadDocs() {
  docs ??= import("../pkg/hwscope.js")
    .then(async (m) => {
      await m.default({ module_or_path: new URL("../pkg/hwscope_docs_bg.wasm", import.meta.url) });
      Full = m.Playground;
      readBlock = m.parseDocBlock;
      for (const f of figures) f.swap(Full);
    })
    // Not fatal: the figures go on without their sentences; the next figure asks again.
    .catch((e) => {
      docs = null;
      console.warn("hwscope: the narration could not be loaded:", e);
    });
  return docs;
}
const STYLES = [new URL("../style.css", import.meta.url), new URL("./figure.css", import.meta.url)];
const HOME = new URL("../../index.html", import.meta.url);
const SETS = { none: [], play: ["play"], compact: ["play", "step", "scrub", "text"] };
SETS.full = [...SETS.compact, "ends", "speed"];

function controlsOf(spec) {
  const on = new Set();
  for (const w of spec.split(",")) (SETS[w] ?? [w]).forEach((c) => on.add(c));
  return on;
}

function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...kids);
  return el;
}

/** The block cannot be shown: say why in the page, where the figure was. */
export function showError(fig, text, message) {
  const box = h(
    "div",
    { class: "hwscope-error", role: "alert", "data-hwscope-error": "" },
    h("strong", {}, "This hwscope figure cannot be drawn: "),
    message,
    h("pre", {}, text.trim()),
  );
  Object.assign(box.style, { margin: "1em 0", padding: ".6em .9em", border: "2px solid #c62828", borderRadius: "6px", background: "#fff5f5", color: "#8e1b1b", font: "14px/1.45 system-ui, sans-serif" });
  Object.assign(box.lastChild.style, { margin: ".5em 0 0", padding: ".4em .6em", background: "#fff", color: "#333", whiteSpace: "pre-wrap", font: "12px/1.4 ui-monospace, monospace" });
  fig.replaceWith(box);
  return null;
}

const statusOf = (rec) =>
  `step ${rec.step} · t = ${rec.time_ms} ms · leader ${rec.partition.leader ?? "none"} · epoch ${rec.partition.leader_epoch} · ISR {${rec.partition.isr.join(", ")}}`;

/** Why a block cannot be drawn, in the words of the docs core: the first core keeps none
 *  of its messages (~2 KB gzipped of its download), so a block it refuses is read again
 *  by the docs core, which says what `hwscope render-docs` says at build time. */
async function whyNot(text, first) {
  await loadDocs();
  try {
    readBlock?.(text);
  } catch (e) {
    return e.message;
  }
  // The docs core could not be loaded (or, not expected, read the block): the first core's words.
  return first.message;
}

export async function mount(fig, text, theme) {
  await core;
  let block;
  try {
    block = (readBlock ?? parseDocBlock)(text);
  } catch (e) {
    const message = readBlock ? e.message : await whyNot(text, e);
    fig.dataset.hwscopeLive = "error";
    return showError(fig, text, message);
  }
  const box = fig.querySelector(".hwscope-box");
  const host = h("div", { class: "hwscope-live" });
  Object.assign(host.style, { position: "absolute", inset: "0" });
  const root = host.attachShadow({ mode: "open" });
  const sheets = STYLES.map((href) => h("link", { rel: "stylesheet", href }));
  const loaded = Promise.all(
    sheets.map((l) => new Promise((ok) => {
      l.addEventListener("load", ok, { once: true });
      l.addEventListener("error", ok, { once: true });
    })),
  );
  const on = controlsOf(block.controls);
  const label = `${block.title} (interactive figure)`;
  const stageSvg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  stageSvg.setAttribute("class", "stage");
  stageSvg.setAttribute("role", "img");
  stageSvg.setAttribute("aria-label", "Brokers, their logs and the messages between them");
  const status = h("span", { class: "hs-status" });
  const caption = h("p", { class: "hs-caption", "aria-live": "polite" });
  const play = h("button", { type: "button", class: "primary hs-play" }, "Play");
  const btn = (cls, sign, name) => h("button", { type: "button", class: cls, "aria-label": name, title: name }, sign);
  const first = btn("hs-first", "«", "First step");
  const back = btn("hs-back", "◀", "Step back");
  const fwd = btn("hs-fwd", "▶", "Step forward");
  const end = btn("hs-end", "»", "Last step");
  const scrub = h("input", { type: "range", class: "hs-scrub", "aria-label": "Step", min: 0, max: 0, value: 0 });
  const count = h("output", { class: "hs-count" });
  const speed = h("select", { class: "hs-speed", "aria-label": "Speed" }, ...["0.5", "1", "2", "4"].map((s) => h("option", s === "1" ? { value: s, selected: "" } : { value: s }, `×${s}`)));
  const open = h("a", { class: "hs-open", target: "_blank", rel: "noopener", href: HOME.href }, "open full playground ↗");
  const bar = h("div", { class: "hs-bar" });
  if (on.has("play")) bar.append(play);
  if (on.has("ends")) bar.append(first);
  if (on.has("step")) bar.append(back, fwd);
  if (on.has("ends")) bar.append(end);
  if (on.has("scrub")) bar.append(scrub, count);
  if (on.has("speed")) bar.append(speed);
  bar.append(open);
  const figure = h(
    "div",
    // tabindex -1: a click on the picture or the sentence focuses the figure (out of the
    // Tab order; its controls are in it), so its keys (Space, ←, →) work from there.
    { class: "hs", role: "group", "aria-label": label, tabindex: "-1" },
    h("div", { class: "hs-head" }, h("span", { class: "hs-title", title: block.title }, block.title), " ", status),
    stageSvg,
    caption,
    bar,
  );
  if (!on.has("text")) caption.classList.add("hs-sr");
  root.append(...sheets, figure);

  const sim = new Sim(Full ?? Playground);
  const stage = createStage(stageSvg, () => {});
  let fresh = true;
  const last = () => Math.min(player.to, sim.known - 1);
  /** The scrubber and count: the range, as far as it is computed. */
  const scrubbed = () => {
    const rec = player.rec;
    if (!rec) return;
    scrub.min = player.from;
    scrub.max = Math.max(player.from, last());
    scrub.value = rec.step;
    count.textContent = `${rec.step} / ${last()}${sim.done || last() === player.to ? "" : "+"}`;
  };
  const show = (rec) => {
    stage.step(rec, sim.initialEnd, fresh);
    fresh = false;
    status.textContent = statusOf(rec);
    caption.textContent = rec.text || (sim.full ? "" : LOADING);
    fig.dataset.hwscopeStep = rec.step;
    scrubbed();
    // Computes ahead of the step shown in idle time, boundedly, as the page does.
    frontier.follow(rec.step, player.to);
  };
  const reduced = matchMedia("(prefers-reduced-motion: reduce)").matches;
  const player = new Player(sim, show, (t) => stage.frame(t), (playing) => {
    play.textContent = playing ? "Pause" : "Play";
    play.setAttribute("aria-pressed", playing);
    if (playing) frontier.playing(player.step, player.to);
  }, { reduced });
  Object.assign(player, { from: block.from ?? 0, to: block.to ?? Infinity, loop: block.loop });
  const frontier = new Frontier(sim);
  sim.load(block.scenario);
  sim.listen(scrubbed);
  const go = (n) => {
    player.pause();
    player.go(n);
  };
  play.addEventListener("click", () => player.toggle());
  first.addEventListener("click", () => go(player.from));
  back.addEventListener("click", () => go(player.step - 1));
  fwd.addEventListener("click", () => go(player.step + 1));
  end.addEventListener("click", () => go(last()));
  scrub.addEventListener("input", () => go(Number(scrub.value)));
  speed.addEventListener("change", () => (player.speed = Number(speed.value)));
  const fullLink = () => {
    const url = new URL(HOME);
    if (block.builtin && block.source === "builtin" && !/preset=/.test(text)) {
      url.search = `?scenario=${block.builtin}`;
      url.hash = `at=${player.step}`;
    } else {
      // A share link needs the docs core; until it has come, the playground's home.
      const link = sim.linkAt(player.step);
      if (!link) return void (open.href = HOME.href);
      url.hash = link;
    }
    open.href = url.href;
  };
  open.addEventListener("pointerenter", fullLink);
  open.addEventListener("focus", fullLink);
  open.addEventListener("click", fullLink);
  figure.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || ["INPUT", "SELECT"].includes(e.target.tagName)) return;
    const act = { " ": () => player.toggle(), ArrowLeft: () => go(player.step - 1), ArrowRight: () => go(player.step + 1) }[e.key];
    if (act && !(e.key === " " && e.target.tagName === "BUTTON")) {
      e.preventDefault();
      act();
    }
  });
  // Off-screen figures do not play.
  new IntersectionObserver((es) => es.forEach((e) => e.isIntersecting || player.pause())).observe(fig);

  // Style sheets load once the shadow root is in the document: show it when they have.
  const setTheme = (t) => host.classList.toggle("dark", t === "dark");
  setTheme(theme);
  host.style.visibility = "hidden";
  box.append(host);
  await loaded;
  // Labels are measured in the figure's font (its style sheets have come), not the site's.
  measureIn(figure);
  player.go(block.at);
  host.style.visibility = "";
  const img = box.querySelector("img.hwscope-static, .hwscope-pending");
  if (img) img.style.visibility = "hidden";
  fig.dataset.hwscopeLive = "live";
  if (block.autoplay && !player.reduced) player.play();
  fig.hwscope = { setTheme, player, sim };
  figures.add({
    swap(P) {
      // A figure of a page the site has navigated away from is let go.
      if (!fig.isConnected) return void figures.delete(this);
      if (sim.full) return;
      sim.swap(P);
      // The same step again, now told.
      if (player.rec) {
        player.rec = sim.get(player.step);
        player.next = null;
        show(player.rec);
      }
      fig.dataset.hwscopeCore = "docs";
    },
  });
  if (!sim.full) loadDocs();
  else fig.dataset.hwscopeCore = "docs";
  fig.dispatchEvent(new CustomEvent("hwscope:live", { bubbles: true, detail: { at: player.step } }));
  return fig.hwscope;
}
