// <hwscope-playground>: the playground in any web page, from one script.
//
//   <hwscope-playground scenario="seed-walkthrough" at="3" from="2" to="9" loop controls="compact">
//     <a href="https://…/">Open the hwscope playground</a>   ← shown without JavaScript
//   </hwscope-playground>
//   <script type="module" src="https://…/www/embed/embed.js"></script>
//
// It becomes an iframe of the playground (?embed=1) two folders up from this
// script (www/embed/embed.js is in the playground's own tree), sized
// by the playground's resize messages and themed like the host page. Its
// children stay in the DOM, unrendered: the no-JS fallback. Methods play(),
// pause(), step(), back(), seek(n), setTheme(t) and events "hwscope:ready",
// "hwscope:step", "hwscope:hw-changed"… follow docs/embedding.md.

import { message, nameOf, VERSION } from "./protocol.js";
import { readOptions } from "../core/options.js";
import { embedHeight } from "./size.js";
import SIZES from "../pkg/sizes.js";

/** What a scenario given as a share link (read only by the core) is sized as until it says. */
const UNKNOWN = { initialEnd: 0, produced: 6, consumers: 0, producers: 1, consumersNow: 0 };

const HOME = new URL("../../", import.meta.url);
const PASSED = ["from", "to", "controls", "motion"];

/** The host page's theme: Docusaurus/Starlight data-theme, Bootstrap
 *  data-bs-theme, `dark`/`light` classes, mdBook's classes; else auto. */
function hostTheme() {
  const root = document.documentElement;
  const said = `${root.dataset.theme ?? ""} ${root.dataset.bsTheme ?? ""} ${root.dataset.colorMode ?? ""} ${root.className}`;
  if (/\b(dark|coal|navy|ayu)\b/.test(said)) return "dark";
  if (/\b(light|rust)\b/.test(said)) return "light";
  return "auto";
}

class HwscopePlayground extends HTMLElement {
  connectedCallback() {
    if (this.frame) return;
    const a = (name) => this.getAttribute(name);
    const home = new URL(a("src") || HOME, location.href);
    const q = new URLSearchParams({ embed: "1" });
    for (const k of PASSED) if (a(k) !== null) q.set(k, a(k));
    if (a("loop") !== null && a("loop") !== "false") q.set("loop", "1");
    this.follows = !["light", "dark", "auto"].includes(a("theme"));
    q.set("theme", this.follows ? hostTheme() : a("theme"));
    if (location.origin !== "null") q.set("origin", location.origin);
    // A share-link fragment as it is, or a built-in scenario by name.
    const scenario = (a("scenario") ?? "").replace(/^#/, "");
    let fragment = scenario;
    if (!/(^|&)v=/.test(scenario)) {
      if (scenario) q.set("scenario", scenario);
      fragment = a("at") !== null ? `at=${a("at")}` : "";
    }
    home.search = q;
    home.hash = fragment;

    const frame = (this.frame = document.createElement("iframe"));
    this.sandboxed = a("sandbox") !== null;
    if (this.sandboxed) frame.sandbox = "allow-scripts allow-popups allow-popups-to-escape-sandbox";
    frame.src = home.href;
    frame.title = a("label") || a("title") || "hwscope: Kafka partition replication, interactive";
    frame.loading = "lazy";
    frame.allow = "clipboard-write; fullscreen";
    // CSSOM, not style attributes: allowed under a host's strict style-src. The height
    // is the embed's own from the start (size.js): the host page does not move when
    // the playground loads (a `height` attribute wins).
    this.style.display = "block";
    this.controls = readOptions(`?embed=1${a("controls") !== null ? `&controls=${encodeURIComponent(a("controls"))}` : ""}`).controls;
    this.dims = /(^|&)v=/.test(scenario) ? UNKNOWN : SIZES[scenario || "seed-walkthrough"] ?? UNKNOWN;
    this.fixed = Number(a("height")) || 0;
    Object.assign(frame.style, { display: "block", width: "100%", border: "0", height: `${this.fixed || this.sized()}px` });
    this.onResize = new ResizeObserver(() => {
      if (!this.fixed && !this.told) frame.style.height = `${this.sized()}px`;
    });
    this.onResize.observe(this);
    this.origin = home.origin;
    this.ready = false;
    this.queue = [];
    // A shadow root without a slot: the iframe shows, the fallback children stay put.
    (this.shadowRoot ?? this.attachShadow({ mode: "open" })).append(frame);

    this.onMessage = (e) => this.receive(e);
    addEventListener("message", this.onMessage);
    if (this.follows) {
      this.watch = new MutationObserver(() => this.setTheme(hostTheme()));
      this.watch.observe(document.documentElement, { attributes: true, attributeFilter: ["class", "data-theme", "data-bs-theme", "data-color-mode"] });
    }
  }

  /** The embed's height at the element's width (before the playground says it). */
  sized() {
    return embedHeight(this.clientWidth || 800, this.controls, this.dims);
  }

  disconnectedCallback() {
    this.onResize?.disconnect();
    removeEventListener("message", this.onMessage);
    this.watch?.disconnect();
    this.frame?.remove();
    this.frame = null;
  }

  /** Only our own iframe, from the playground's origin ("null" when sandboxed). */
  receive(e) {
    if (!this.frame || e.source !== this.frame.contentWindow) return;
    if (e.origin !== this.origin && !(this.sandboxed && e.origin === "null")) return;
    const name = nameOf(e.data);
    if (!name || e.data.v !== VERSION) return;
    if (name === "resize" && e.data.height > 0) {
      this.told = true;
      this.frame.style.height = `${Math.min(4000, Math.ceil(e.data.height))}px`;
    }
    if (name === "ready") {
      this.ready = true;
      this.queue.splice(0).forEach((m) => this.post(m));
    }
    this.dispatchEvent(new CustomEvent(`hwscope:${name}`, { detail: e.data }));
  }

  post(m) {
    if (!this.ready) return this.queue.push(m);
    this.frame?.contentWindow?.postMessage(m, this.sandboxed ? "*" : this.origin);
  }

  send(name, fields) {
    this.post(message(name, fields));
  }
  play() { this.send("play"); }
  pause() { this.send("pause"); }
  step() { this.send("step"); }
  back() { this.send("back"); }
  seek(at) { this.send("seek", { at }); }
  setTheme(theme) { this.send("theme", { theme }); }
}

if (!customElements.get("hwscope-playground")) customElements.define("hwscope-playground", HwscopePlayground);
