// hwscope figures in documentation pages, from one module script:
//
//   <script type="module" src="/hwscope/www/embed/auto.js"></script>
//
// It finds the ```hwscope blocks of the page: static figures drawn at build
// time (figure.hwscope-figure, from mdbook-hwscope or `hwscope render-docs`),
// and blocks no build step touched (pre > code.language-hwscope, pre.hwscope,
// div.hwscope, <hwscope-playground>). Each becomes the live playground when
// it is scrolled into view or clicked (live.js, loaded then, with one
// WebAssembly module for every figure of the page), in the box the static
// figure reserved, so nothing below it moves. Colours follow the site's theme:
// mdBook's classes, Docusaurus's data-theme, MkDocs Material's
// data-md-color-scheme, else prefers-color-scheme. Every file comes from the
// folder this script is in; nothing is requested from another origin.

const BLOCKS = "figure.hwscope-figure, pre > code.language-hwscope, pre.hwscope, div.hwscope, hwscope-playground";
const PASSED = ["at", "from", "to", "controls", "theme", "height"];
const figures = new Set();
let live = null;

/** The site's colour mode: "dark" or "light". */
export function siteTheme() {
  const root = document.documentElement;
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
  Object.assign(fig.style, { margin: "1em 0", padding: "0" });
  const box = document.createElement("div");
  box.className = "hwscope-box";
  const h = Number(/(?:^|\s)height=(\d+)/.exec(text)?.[1]) || 380;
  Object.assign(box.style, { position: "relative", width: "100%", aspectRatio: "800 / 520", minHeight: `${h}px` });
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

function find(root = document) {
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
    figures.add(fig);
    fig.dataset.hwscopeLive = "waiting";
    const theme = /(?:^|\s)theme=(light|dark)\b/.exec(fig.dataset.hwscope)?.[1];
    if (theme) fig.dataset.hwscopeTheme = theme;
    applyTheme(fig);
    seen.observe(fig);
    fig.addEventListener("click", () => wake(fig), { once: true });
  }
}

/** Loads live.js (and with it the WebAssembly core) once, and makes the figure live. */
function wake(fig) {
  if (fig.dataset.hwscopeLive !== "waiting") return;
  fig.dataset.hwscopeLive = "loading";
  seen.unobserve(fig);
  live ??= import("./live.js");
  live
    .then((m) => m.mount(fig, fig.dataset.hwscope, themeOf(fig)))
    .catch((e) => {
      fig.dataset.hwscopeLive = "failed";
      console.warn("hwscope: the live figure could not start:", e);
    });
}

const seen = new IntersectionObserver(
  (entries) => {
    for (const e of entries) if (e.isIntersecting) wake(e.target);
  },
  { rootMargin: "200px 0px" },
);

function themeChanged() {
  for (const fig of figures) applyTheme(fig);
}
const watch = new MutationObserver(themeChanged);
watch.observe(document.documentElement, { attributes: true, attributeFilter: ["class", "data-theme", "data-bs-theme", "data-color-mode", "data-md-color-scheme"] });
if (document.body) watch.observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
matchMedia("(prefers-color-scheme: dark)").addEventListener("change", themeChanged);

/** For pages that add blocks later (a single-page docs site after navigation). */
export function scan(root = document) {
  find(root);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => find());
else find();
// Sites that swap pages without reloading (Docusaurus, MkDocs Material's instant loading).
let pending = 0;
new MutationObserver(() => {
  pending ||= requestAnimationFrame(() => {
    pending = 0;
    find();
  });
}).observe(document.body ?? document.documentElement, { childList: true, subtree: true });
