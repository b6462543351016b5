// hwscope figures in documentation pages, from one module script:
//
//   <script type="module" src="/hwscope/www/embed/auto.js"></script>
//
// It finds the ```hwscope blocks of the page: static figures drawn at build
// time (figure.hwscope-figure, from mdbook-hwscope or `hwscope render-docs`),
// and blocks no build step touched (pre > code.language-hwscope, pre.hwscope,
// div.hwscope, <hwscope-playground>). Each becomes the live playground when
// the reader scrolls it into view, points at it or clicks it (live.js, loaded
// then, with one WebAssembly module for every figure of the page), in the box
// the static figure reserved, so nothing below it moves. Until the reader
// does something (scrolls, moves the pointer over the page, presses a key, touches
// it, or moves focus into it), the page costs only its static figures and this
// script; from that first action, live.js and the core are fetched as soon as a
// figure is within two screen heights of the view (at once when one is), so that
// the figure the reader scrolls to is ready or nearly. Colours follow the site's theme:
// mdBook's classes, Docusaurus's and Starlight's data-theme, MkDocs Material's
// data-md-color-scheme, a class the site names (`auto.js?dark-class=dark`: VitePress
// marks only dark mode, with <html class="dark">), else prefers-color-scheme.
// Printing shows the static figure, in light colours. Pages that a single-page
// site swaps in (Docusaurus, VitePress, Material's instant loading, Astro's view
// transitions, which replace <body>) are scanned again. Every file comes from the
// folder this script is in; nothing is requested from another origin.

const BLOCKS = "figure.hwscope-figure, pre > code.language-hwscope, pre.hwscope, div.hwscope, hwscope-playground";
const PASSED = ["at", "from", "to", "controls", "theme", "height"];
const figures = new Set();
let live = null;
/** Figures in view; they wake at the reader's first action (scroll, pointer, key, touch, focus). */
const visible = new Set();
/** Figures within NEAR of the view: once the reader has acted, the live figure is fetched for them. */
const near = new Set();
const NEAR = "200% 0px";
let engaged = false;
/** The class that marks dark mode on <html>, when the site said (auto.js?dark-class=NAME). */
const DARK_CLASS = new URL(import.meta.url).searchParams.get("dark-class");

/** The site's colour mode: "dark" or "light". */
export function siteTheme() {
  const root = document.documentElement;
  if (DARK_CLASS) return root.classList.contains(DARK_CLASS) ? "dark" : "light";
  const md = document.body?.dataset.mdColorScheme ?? root.dataset.mdColorScheme;
  if (md) return md === "slate" ? "dark" : "light";
  for (const v of [root.dataset.theme, root.dataset.bsTheme, root.dataset.colorMode]) {
    if (v === "dark" || v === "light") return v;
  }
  if (/\b(dark|coal|navy|ayu)\b/.test(root.className)) return "dark";
  if (/\b(light|rust)\b/.test(root.className)) return "light";
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/** The block's own theme= wins over the site's. */
function themeOf(fig) {
  const own = fig.dataset.hwscopeTheme;
  return own === "light" || own === "dark" ? own : siteTheme();
}

function applyTheme(fig) {
  const theme = themeOf(fig);
  const img = fig.querySelector("img.hwscope-static");
  if (img) img.style.colorScheme = theme;
  fig.hwscope?.setTheme(theme);
}

/** A figure box for a block that no build step drew: the same box a static figure has. */
function boxFor(text, replaced) {
  const fig = document.createElement("figure");
  fig.className = "hwscope-figure";
  fig.dataset.hwscope = text;
  // Site styles for figure (MkDocs Material centres it at its content's width) must not size the box.
  Object.assign(fig.style, { display: "block", width: "auto", maxWidth: "none", margin: "1em 0", padding: "0" });
  const box = document.createElement("div");
  box.className = "hwscope-box";
  const h = Number(/(?:^|\s)height=(\d+)/.exec(text)?.[1]) || 380;
  // Room under the picture for the live figure's title, sentence and controls (src/cli/docfigure.rs, LIVE_ROOM).
  Object.assign(box.style, { position: "relative", width: "100%", aspectRatio: "800 / 520", minHeight: `${h}px`, boxSizing: "content-box", padding: "0 0 clamp(0px, calc((960px - 100%) * .75), 80px)" });
  // Until it is live, the box shows the block's text (as the Hugo module's render hook
  // does), not a blank hole the size of a figure.
  const pending = document.createElement("div");
  pending.className = "hwscope-pending";
  pending.textContent = text.trim();
  Object.assign(pending.style, {
    position: "absolute", inset: "0", boxSizing: "border-box", overflow: "hidden", padding: ".5em", whiteSpace: "pre-wrap",
    font: "12px/1.4 ui-monospace, monospace", opacity: ".6", outline: "1px dashed", outlineOffset: "-1px", borderRadius: "8px",
  });
  box.append(pending);
  fig.append(box);
  replaced.replaceWith(fig);
  return fig;
}

/** <hwscope-playground scenario=… at=…> as block text (embed.js handles the element when it is loaded). */
function textOf(el) {
  const scenario = (el.getAttribute("scenario") || "seed-walkthrough").trim();
  const words = [/(^|&)v=/.test(scenario) && !scenario.startsWith("#") ? `#${scenario}` : scenario];
  for (const k of PASSED) if (el.hasAttribute(k) && !(k === "at" && /(^|&)at=/.test(scenario))) words.push(`${k}=${el.getAttribute(k)}`);
  if (el.hasAttribute("loop") && el.getAttribute("loop") !== "false") words.push("loop");
  const label = el.getAttribute("label") || el.getAttribute("title");
  if (label) words.push(`title="${label.replaceAll('"', "'")}"`);
  return words.join(" ");
}

/** Print: the static figure (drawn at build time), in light colours, not the live one. */
function printStyle() {
  if (document.getElementById("hwscope-print")) return;
  const style = document.createElement("style");
  style.id = "hwscope-print";
  style.textContent =
    "@media print{.hwscope-figure .hwscope-live{display:none!important}.hwscope-figure img.hwscope-static{visibility:visible!important;color-scheme:light!important}}";
  document.head.append(style);
}

function find(root = document) {
  // Figures of a page the site has navigated away from.
  for (const fig of figures) {
    if (fig.isConnected) continue;
    figures.delete(fig);
    visible.delete(fig);
    near.delete(fig);
    seen.unobserve(fig);
    close.unobserve(fig);
  }
  for (const el of root.querySelectorAll(BLOCKS)) {
    if (el.closest("[data-hwscope-live], .hwscope-error")) continue;
    let fig;
    if (el.matches("figure.hwscope-figure")) fig = el;
    else if (el.localName === "hwscope-playground") {
      if (customElements.get("hwscope-playground") || el.querySelector(".hwscope-figure")) continue;
      const holder = document.createElement("div");
      for (const c of el.children) c.hidden = true;
      el.append(holder);
      fig = boxFor(textOf(el), holder);
    } else if (el.localName === "code") fig = boxFor(el.textContent, el.parentElement);
    else fig = boxFor(el.textContent, el);
    if (figures.has(fig)) continue;
    if (!figures.size) printStyle();
    figures.add(fig);
    fig.dataset.hwscopeLive = "waiting";
    const theme = /(?:^|\s)theme=(light|dark)\b/.exec(fig.dataset.hwscope)?.[1];
    if (theme) fig.dataset.hwscopeTheme = theme;
    applyTheme(fig);
    seen.observe(fig);
    close.observe(fig);
    for (const ev of ["click", "pointerenter", "focusin"]) fig.addEventListener(ev, () => wake(fig), { once: true });
  }
}

/** What live.js needs, fetched at once (not level by level down the module graph): the
 *  docs figures' first core, not the docs core, which live.js fetches once a figure is live. */
const PRELOAD = [
  ["modulepreload", new URL("./live.js", import.meta.url)],
  ["modulepreload", new URL("../pkg/hwscope_docs_first.js", import.meta.url)],
  ["preload", new URL("../pkg/hwscope_docs_first_bg.wasm", import.meta.url)],
  ["modulepreload", new URL("../core/sim.js", import.meta.url)],
  ["modulepreload", new URL("../core/player.js", import.meta.url)],
  ["modulepreload", new URL("../core/frontier.js", import.meta.url)],
  ["modulepreload", new URL("../render/stage.js", import.meta.url)],
  ["modulepreload", new URL("../render/svg.js", import.meta.url)],
  ["modulepreload", new URL("../render/layout.js", import.meta.url)],
  ["modulepreload", new URL("../render/brokers.js", import.meta.url)],
  ["modulepreload", new URL("../render/logs.js", import.meta.url)],
  ["modulepreload", new URL("../render/messages.js", import.meta.url)],
  ["modulepreload", new URL("../render/consumers.js", import.meta.url)],
  ["modulepreload", new URL("../render/board.js", import.meta.url)],
  ["modulepreload", new URL("../render/measure.js", import.meta.url)],
  ["modulepreload", new URL("../render/fit.js", import.meta.url)],
  ["modulepreload", new URL("../render/isr.js", import.meta.url)],
  ["modulepreload", new URL("../core/room.js", import.meta.url)],
  ["preload", new URL("../style.css", import.meta.url), "style"],
  ["preload", new URL("./figure.css", import.meta.url), "style"],
];

function preload() {
  for (const [rel, url, as] of PRELOAD) {
    const l = document.createElement("link");
    l.rel = rel;
    l.href = url.href;
    if (rel === "preload") {
      l.as = as ?? "fetch";
      if (!as) l.crossOrigin = "anonymous";
    }
    document.head.append(l);
  }
}

/** Fetches live.js and what it loads (the WebAssembly core first among them), once. */
function fetchLive() {
  if (live) return live;
  preload();
  live = import("./live.js");
  // A failure is told by the figure that waits for it (wake), not here.
  live.catch(() => {});
  return live;
}

/** Loads live.js (and with it the WebAssembly core) once, and makes the figure live. */
function wake(fig) {
  if (fig.dataset.hwscopeLive !== "waiting") return;
  fig.dataset.hwscopeLive = "loading";
  seen.unobserve(fig);
  visible.delete(fig);
  fetchLive()
    .then((m) => m.mount(fig, fig.dataset.hwscope, themeOf(fig)))
    .catch((e) => {
      fig.dataset.hwscopeLive = "failed";
      console.warn("hwscope: the live figure could not start:", e);
    });
}

const seen = new IntersectionObserver(
  (entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) visible.delete(e.target);
      else if (engaged) wake(e.target);
      else visible.add(e.target);
    }
  },
  { rootMargin: "100px 0px" },
);

const close = new IntersectionObserver(
  (entries) => {
    for (const e of entries) {
      if (e.isIntersecting) near.add(e.target);
      else near.delete(e.target);
    }
    if (engaged && near.size) fetchLive();
  },
  { rootMargin: NEAR },
);

/** The reader did something: a scroll of the page (not of a sidebar), a wheel, a key, a touch,
 *  a click, the pointer moved over the page, focus moved into it. */
function engage(e) {
  if (engaged || (e.type === "scroll" && e.target !== document)) return;
  engaged = true;
  for (const ev of ENGAGE) removeEventListener(ev, engage, true);
  if (near.size) fetchLive();
  for (const fig of [...visible]) wake(fig);
}
const ENGAGE = ["scroll", "wheel", "keydown", "touchstart", "pointerdown", "pointermove", "focusin"];
// Opened scrolled (a link to a section, a reload): the reader is already reading.
if (scrollY > 0) engaged = true;
for (const ev of ENGAGE) addEventListener(ev, engage, { capture: true, passive: true });

function themeChanged() {
  for (const fig of figures) applyTheme(fig);
}
matchMedia("(prefers-color-scheme: dark)").addEventListener("change", themeChanged);

/** For pages that add blocks later (a single-page docs site after navigation). */
export function scan(root = document) {
  find(root);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => find());
else find();
// One observer for every site: the theme attributes of <html> and <body> (a toggle
// re-themes the figures at once), and pages swapped in without a reload (Docusaurus,
// VitePress, MkDocs Material's instant loading; Astro's view transitions replace
// <body> itself, so the observer sits on <html>).
const THEME_ATTRIBUTES = ["class", "data-theme", "data-bs-theme", "data-color-mode", "data-md-color-scheme"];
let pending = 0;
new MutationObserver((records) => {
  let theme = false;
  let added = false;
  for (const r of records) {
    if (r.type === "attributes") theme ||= r.target === document.documentElement || r.target === document.body;
    else added ||= r.addedNodes.length > 0;
  }
  if (theme) themeChanged();
  if (added) {
    pending ||= requestAnimationFrame(() => {
      pending = 0;
      find();
      themeChanged();
    });
  }
}).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: THEME_ATTRIBUTES });
