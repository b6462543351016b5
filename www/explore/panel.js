// Explore: can this configuration lose an acknowledged record, or let its
// replicas diverge, under some timing of crashes, restarts and cuts? A
// bounded breadth-first search over every choice the engine exposes (the core's
// src/check/), run in a Web Worker (worker.js) so the page never waits. The
// shortest counterexample opens as a normal run at its violation, with the
// chain of steps that caused it; nothing found is stated with its exact
// bounds and counts, never as a proof.
//
// app.js hands over {wasm, sim, scenarioText, go, openLink}; loaded on first use.

import { h } from "../core/dom.js";
import { search, progressLine, warm } from "./client.js";

let panel = null;

export async function open(api) {
  panel ??= await create(api);
  warm();
  panel.section.hidden = false;
  panel.section.scrollIntoView({ block: "nearest" });
  // Focus is the caller's to give (app.js, core/ondemand.js whenReady: not when the user
  // went on to something else while the full core was on its way).
  return panel;
}

export function loadCss() {
  if (document.querySelector("link[data-explore]")) return Promise.resolve();
  const link = h("link", { rel: "stylesheet", href: new URL("./explore.css", import.meta.url).href, "data-explore": "" });
  const done = new Promise((resolve) => {
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve);
  });
  document.head.append(link);
  return done;
}

const PROPERTIES = [
  ["any", "any of the three"],
  ["acked-record-lost", "an acknowledged record lost (acked-record-lost)"],
  ["replicas-diverged", "replicas diverged (replicas-diverged)"],
  ["consumed-record-lost", "a consumed record lost (consumed-record-lost)"],
];

const fmt = (n) => Math.round(Number(n)).toLocaleString("en");

/** A number field: label, input, hint. */
function number(name, label, value, min, max, hint) {
  const input = h("input", { type: "number", name, value, min, max, step: 1, inputmode: "numeric" });
  return { input, row: h("label", { class: "ex-field" }, h("span", {}, label), input, hint ? h("small", {}, hint) : null) };
}

/** The memory bound's default, and why: an eighth of what the device says it has
 *  (navigator.deviceMemory, in GB, which Chromium rounds and caps at 8) within 256–1024 MiB;
 *  without it, 256 MiB on a touch screen or in a narrow window (a phone's tab is closed
 *  well before 1 GB), else 1024 MiB. */
export function memoryDefault(nav = navigator, small = matchMedia("(pointer: coarse), (max-width: 600px)").matches) {
  const gb = Number(nav.deviceMemory);
  if (gb > 0) return { mb: Math.max(256, Math.min(1024, Math.round(gb * 128))), why: `this device has ${gb} GB` };
  return small ? { mb: 256, why: "a phone-sized screen" } : { mb: 1024, why: "" };
}

/** The fragment of a counterexample's link at another step (no state hash: that is the violation's). */
export const linkAt = (fragment, step) => fragment.replace(/(^|&)at=\d+/, `$1at=${step}`).replace(/&h=[^&]*/, "");

async function create(api) {
  await loadCss();
  const presets = api.wasm.presets();
  const property = h("select", { name: "property" }, PROPERTIES.map(([v, t]) => h("option", { value: v }, t)));
  const allowed = h("input", { type: "checkbox", name: "allowed" });
  const preset = h("select", { name: "preset" });
  const start = h("select", { name: "start" },
    h("option", { value: "drop" }, "its setup, without its scripted crashes and cuts"),
    h("option", { value: "keep" }, "the scenario as scripted"));
  const depth = number("max_depth", "Steps", 28, 1, 200, "from the start, the search's own moves included");
  const faults = number("faults", "Faults", 3, 0, 20, "crashes, restarts, cuts and heals on one path");
  const records = number("records", "Extra records", 0, 0, 20, "writes the search may add, one record each");
  const unflushed = number("unflushed", "Unflushed", 0, 0, 5, "records a crash may lose from a log's tail");
  const time = number("max_time_ms", "Time (ms)", "", 0, 86400000, "simulated; empty: the scenario's end");
  const mem = memoryDefault();
  const memory = number("memory_mb", "Memory (MiB)", mem.mb, 16, 3072, `the search stops, with a message, at this${mem.why ? ` (${fmt(mem.mb)} by default: ${mem.why})` : ""}`);
  memory.row.classList.add("ex-memory");
  const cuts = h("input", { type: "checkbox", name: "cuts", checked: "" });
  const oneWay = h("input", { type: "checkbox", name: "one_way" });
  const controllerCuts = h("input", { type: "checkbox", name: "controller_cuts" });
  const clientCuts = h("input", { type: "checkbox", name: "client_cuts" });
  const caught = number("catch", "Caught", 0, 0, 4, "messages on the wire a cut may catch (of the first 16)");
  const method = h("select", { name: "method" },
    h("option", { value: "search" }, "every timing, breadth-first (exhaustive within the bounds)"),
    h("option", { value: "simulate" }, "random walks from a seed (for bounds too big to exhaust)"));
  const seed = number("seed", "Seed", 1, 0, 2 ** 52, "walk i uses seed + i: a walk's seed alone walks it again");
  const walks = number("walks", "Walks", 10000, 1, 1e9, "at most; Stop ends it sooner");
  const simFields = h("div", { class: "ex-sim", hidden: "" }, seed.row, walks.row);
  const tooBig = h("p", { class: "ex-hint", hidden: "" });
  const NO_CONSUMER = "This scenario has no consumer: no record is ever consumed, so this property cannot fail here. Add one (Intervene now: Add consumer), or pick a built-in with one.";
  const noConsumer = h("p", { class: "ex-hint ex-no-consumer", hidden: "" }, NO_CONSUMER);
  const runB = h("button", { type: "submit", class: "primary" }, "Run");
  const stopB = h("button", { type: "button", disabled: "" }, "Stop");
  const bar = h("progress", { max: 12, value: 0, "aria-label": "Search progress (levels)" });
  const line = h("p", { class: "ex-progress muted", "aria-live": "off" }, "");
  const verdict = h("div", { class: "ex-verdict", role: "status", "aria-live": "polite" });
  const form = h("form", { class: "ex-form" },
    h("fieldset", {}, h("legend", {}, "Look for"),
      h("label", { class: "ex-field wide" }, h("span", {}, "Property"), property),
      h("label", { class: "ex-check" }, allowed, " also losses the configuration permits (acks=0/1…)"), noConsumer),
    h("fieldset", {}, h("legend", {}, "How"),
      h("label", { class: "ex-field wide" }, h("span", {}, "Method"), method),
      simFields, tooBig),
    h("fieldset", {}, h("legend", {}, "Start from"),
      h("label", { class: "ex-field wide" }, h("span", {}, "Scenario"), start),
      h("label", { class: "ex-field wide" }, h("span", {}, "Preset"), preset)),
    h("fieldset", { class: "ex-bounds" }, h("legend", {}, "Bounds"),
      depth.row, faults.row, records.row, unflushed.row, caught.row, time.row, memory.row,
      h("label", { class: "ex-check" }, cuts, " cuts and heals between brokers"),
      h("label", { class: "ex-check" }, controllerCuts, " … between the controller and a broker"),
      h("label", { class: "ex-check" }, clientCuts, " … between a client and a broker"),
      h("label", { class: "ex-check" }, oneWay, " one-way cuts too")),
    h("div", { class: "ex-run" }, runB, stopB, bar),
    line);
  const INTRO = {
    search: "Searches every timing: which due event runs first, and when a fault from the budget strikes. Breadth-first, so a counterexample is a shortest one. It runs in the background; the page stays yours.",
    simulate: "Walks at random from a seed: each walk picks which due event runs first, and when a fault from its budget strikes. A counterexample is shrunk, not a shortest one; nothing found is a sample, not every timing. It runs in the background; the page stays yours.",
  };
  const intro = h("p", { class: "ex-intro" }, INTRO.search);
  const section = h("section", { class: "explore panel", id: "explore", "aria-labelledby": "explore-h", tabindex: -1 },
    h("div", { class: "ex-head" },
      h("h2", { id: "explore-h" }, "Explore: can this lose data?"),
      h("button", { type: "button", class: "link", "aria-label": "Close Explore", onclick: () => {
        section.hidden = true;
        // The button pressed is gone with the panel: the keyboard goes back to Explore.
        document.getElementById("explore-open")?.focus();
      } }, "✕")),
    intro,
    form, verdict);
  document.getElementById("controls").after(section);
  // Esc inside the panel does what its ✕ does (a search goes on in its worker), as in Learn.
  section.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || e.defaultPrevented || document.querySelector("dialog[open]")) return;
    e.preventDefault();
    section.querySelector(".ex-head button").click();
  });

  /** The scenario the page shows (the core's copy: it changes before the page's text does). */
  function shown() {
    if (api.sim.scenario) return api.sim.scenario;
    try {
      return JSON.parse(api.scenarioText());
    } catch {
      return null; /* no scenario yet */
    }
  }

  function fillPresets() {
    const own = shown()?.preset ?? "kafka-4.0";
    const was = preset.value;
    preset.replaceChildren(h("option", { value: "" }, `as the scenario says (${own})`), ...presets.map((p) => h("option", { value: p.name }, `${p.name}${p.name === own ? " (the scenario's)" : ""}`)));
    if (presets.some((p) => p.name === was)) preset.value = was;
  }
  fillPresets();
  // Another scenario opened (the picker, Back, a link, Settings) while the panel is
  // there: its preset is the one "as the scenario says" names (each load is a revision).
  let revision = api.sim.revision;
  api.sim.listen((sim) => {
    if (sim.revision === revision) return;
    revision = sim.revision;
    fillPresets();
    offer();
  });

  // Random walks are offered when an exhaustive search would be too big for a tab:
  // many steps or faults, or three replicas and more.
  const simulating = () => method.value === "simulate";
  /** Whether a scenario has a consumer (declared, or one that joins). */
  const consumes = (sc) => !!(sc?.consumers?.length || (sc?.events ?? []).some((e) => e.add_consumer));
  /** A search for a consumed record lost where nothing is consumed finds nothing, vacuously. */
  const vacuous = (sc) => property.value === "consumed-record-lost" && !!sc && !consumes(sc);

  function offer() {
    simFields.hidden = !simulating();
    noConsumer.hidden = !vacuous(shown());
    intro.textContent = INTRO[method.value] ?? INTRO.search;
    const replicas = shown() ? (shown().replicas ?? 3) : 2;
    const big = Number(depth.input.value) > 60 || Number(faults.input.value) > 4 || replicas >= 3 || controllerCuts.checked || clientCuts.checked;
    tooBig.hidden = simulating() || !big;
    tooBig.replaceChildren(big && !simulating() ? h("span", {}, "These bounds may be too big to search exhaustively in a tab. ",
      h("button", { type: "button", class: "link", onclick: () => { method.value = "simulate"; depth.input.value = Math.max(Number(depth.input.value), 200); faults.input.value = Math.max(Number(faults.input.value), 8); offer(); } }, "Use random walks instead"),
      " (200 steps, 8 faults; each walk draws its own depth, budget and mix of faults).") : "");
  }
  // Random walks want wider bounds than a breadth-first search: the BFS defaults become the simulation's.
  method.addEventListener("change", () => {
    if (!simulating()) return;
    if (depth.input.value === "28") depth.input.value = "200";
    if (faults.input.value === "3") faults.input.value = "8";
    if (records.input.value === "0") records.input.value = "3";
  });
  form.addEventListener("input", offer);
  form.addEventListener("change", offer);
  offer();

  let running = null;
  const setRunning = (on) => {
    // A disabled button drops the focus to <body>: a keyboard user who pressed Run (or
    // Stop) keeps it on the button that now does something, Stop (or Run).
    const keep = document.activeElement === runB || document.activeElement === stopB;
    runB.disabled = on;
    stopB.disabled = !on;
    if (keep) (on ? stopB : runB).focus();
    section.dataset.state = on ? "running" : section.dataset.state === "running" ? "idle" : section.dataset.state ?? "idle";
  };

  function options() {
    const int = (i) => (i.value === "" ? null : Math.max(Number(i.min), Math.min(Number(i.max), Math.round(Number(i.value)))));
    return {
      property: property.value,
      allowed: allowed.checked,
      max_depth: int(depth.input) ?? 28,
      faults: int(faults.input) ?? 3,
      records: int(records.input) ?? 0,
      unflushed: int(unflushed.input) ?? 0,
      cuts: cuts.checked,
      one_way: oneWay.checked,
      controller_cuts: controllerCuts.checked,
      client_cuts: clientCuts.checked,
      catch: int(caught.input) ?? 0,
      max_time_ms: int(time.input),
      memory_mb: int(memory.input) ?? mem.mb,
      drop_faults: start.value === "drop",
      ...(simulating() ? { seed: int(seed.input) ?? 1, walks: int(walks.input) } : {}),
    };
  }

  function scenario() {
    const obj = JSON.parse(api.scenarioText());
    if (preset.value) obj.preset = preset.value;
    return JSON.stringify(obj);
  }

  /** Opens a counterexample (at one of its steps) as the page's run, and shows the stage
   *  it is drawn on when it is out of view. The run's title heads the stage in both layouts
   *  (below 900 px .stage-col is `display: contents`, with no box to scroll to). */
  function openRun(link) {
    api.openLink(link);
    const stage = document.getElementById("stage")?.getBoundingClientRect();
    if (!stage || (stage.top >= 0 && stage.bottom <= innerHeight)) return;
    (document.getElementById("about") ?? document.querySelector(".stage-col"))?.scrollIntoView({ block: "start" });
  }

  /** The scenario the running (or last) search was given, and its title. */
  let searched = null;

  function showResult(m) {
    const r = m.result;
    section.dataset.state = r.verdict;
    const secs = (m.ms / 1000).toFixed(m.ms < 10000 ? 2 : 1);
    const head = r.verdict === "counterexample" ? (r.allowed ? "Found a loss the configuration permits" : "Counterexample found") : r.verdict === "none-within-bounds" ? "No counterexample within these bounds" : r.verdict === "none-found" ? "No counterexample in these walks" : "Stopped before the end";
    const counts = r.mode === "simulate"
      ? `${fmt(r.walks)} walks, ${fmt(r.steps)} steps in ${secs} s (${fmt((r.walks * 1000) / Math.max(1, m.ms))} walks/s).${r.walk_seed !== undefined ? ` Walk seed ${r.walk_seed}: ${fmt(r.walked)} steps, shrunk to ${fmt(r.step)}.` : ""}`
      : `${fmt(r.distinct)} distinct states in ${secs} s (${fmt((r.distinct * 1000) / Math.max(1, m.ms))} states/s), about ${fmt(r.bytes_per_state)} bytes each at the peak.`;
    const parts = [
      h("h3", {}, head),
      h("p", { class: "ex-sentence" }, r.sentence),
      h("p", { class: "muted ex-bounds-said" }, `Bounds: ${r.bounds}. ${counts}`),
    ];
    // Another scenario opened while it ran (the picker, Back): the verdict is not about it.
    if (searched && searched.text !== api.scenarioText()) parts.splice(1, 0, h("p", { class: "warn ex-other" }, `This searched “${searched.title}”, not the scenario shown now.`));
    if (searched?.vacuous && r.verdict !== "counterexample") parts.splice(1, 0, h("p", { class: "warn ex-no-consumer" }, NO_CONSUMER));
    if (r.allowed_seen) parts.push(h("p", { class: "muted" }, `Seen on the way, permitted by the configuration (not a counterexample): ${r.allowed_seen}`));
    if (r.verdict === "counterexample") {
      const openB = h("button", { type: "button", class: "primary", onclick: () => openRun(r.link) }, `Open it as a run (step ${r.step})`);
      const copyB = h("button", { type: "button", onclick: () => copy(`${location.href.replace(/[?#].*$/s, "")}#${r.link}`, copyB) }, "Share: copy its link");
      parts.push(h("div", { class: "ex-actions" }, openB, copyB));
      parts.push(h("h4", {}, "Why: the steps that led there, newest first"));
      parts.push(h("ol", { class: "ex-why", reversed: "" }, r.why.map((w) => h("li", { class: w.injected ? "injected" : null },
        h("button", { type: "button", class: "link", onclick: () => openRun(linkAt(r.link, w.step)), title: `Show step ${w.step}` }, `step ${w.step}`),
        h("span", { class: "t" }, ` ${fmt(w.time_ms)} ms `),
        w.injected ? h("span", { class: "tag" }, "injected") : null,
        " ", w.text))));
      if (!r.replays) parts.push(h("p", { class: "warn" }, "This counterexample did not replay to the same violation: a bug in hwscope; please report it with its link."));
    }
    verdict.replaceChildren(...parts);
    // The verdict sits under the form: bring its head into view (at 1280 × 800 it was below the fold).
    verdict.scrollIntoView({ block: "nearest" });
  }

  async function copy(text, button) {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied ✓";
    } catch {
      prompt("Copy this link:", text);
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (running) return;
    const opts = options();
    let text;
    try {
      text = scenario();
    } catch {
      verdict.replaceChildren(h("p", { class: "warn" }, "No scenario to explore yet."));
      return;
    }
    const sim = simulating();
    // What was searched, to say so if the page shows another scenario when the verdict comes.
    searched = { text: api.scenarioText(), title: shown()?.title || "its scenario", vacuous: vacuous(shown()) };
    bar.max = sim ? (opts.walks ?? 10000) : opts.max_depth;
    bar.value = 0;
    bar.setAttribute("aria-label", sim ? "Simulation progress (walks)" : "Search progress (levels)");
    // The worker says "bounds" once the explorer is loaded (at once when the panel's
    // opening loaded it; on a slow link the first Run may still wait for it).
    line.textContent = "Loading the explorer…";
    verdict.replaceChildren();
    setRunning(true);
    let frame = 0;
    let latest = null;
    const paint = () => {
      frame = 0;
      if (!latest) return;
      bar.value = sim ? latest.progress.walks : Math.min(opts.max_depth, latest.progress.depth);
      line.textContent = progressLine(latest.progress, latest.ms, latest.wasmBytes, opts.max_depth);
    };
    running = search(text, opts, (m) => {
      if (m.type === "progress") {
        latest = m;
        frame ||= requestAnimationFrame(paint);
        return;
      }
      if (m.type === "bounds") {
        if (!latest) line.textContent = sim ? "Starting the walks…" : "Starting the search…";
        return;
      }
      cancelAnimationFrame(frame);
      running = null;
      setRunning(false);
      if (m.type === "error") {
        section.dataset.state = "error";
        line.textContent = "";
        verdict.replaceChildren(h("p", { class: "warn" }, `The search could not start: ${m.message}`));
      } else if (m.type === "stopped") {
        latest = m;
        paint();
        section.dataset.state = "stopped-memory";
        verdict.replaceChildren(h("h3", {}, "Stopped: the memory bound"), h("p", {}, `The search reached its ${fmt(opts.memory_mb)} MiB memory bound (it held ${(m.wasmBytes / 2 ** 20).toFixed(1)} MiB) after ${fmt(m.progress.distinct)} distinct states, before it was done: no counterexample among those, but the bounds were not exhausted. Tighten the bounds (fewer steps or faults) or raise the memory bound.`));
      } else {
        bar.value = bar.max;
        line.textContent = progressLine(m.progress, m.ms, m.wasmBytes, opts.max_depth);
        showResult(m);
      }
    }, { memoryBytes: opts.memory_mb * 2 ** 20, mode: sim ? "simulate" : "search" });
  });

  stopB.addEventListener("click", () => {
    if (!running?.stop()) return;
    running = null;
    setRunning(false);
    section.dataset.state = "cancelled";
    verdict.replaceChildren(h("p", {}, `Stopped by you: ${line.textContent || "before any progress"}. Nothing found so far; that says nothing about the ${simulating() ? "walks not taken" : "states not explored"}.`));
  });

  return {
    section,
    form,
    focus: () => section.focus({ preventScroll: true }),
    /** Sets fields for a caller (the tour, tests): {property, allowed, max_depth, faults, records, preset, start}. */
    set(values) {
      fillPresets();
      const fields = { property, preset, start, method, seed: seed.input, walks: walks.input, max_depth: depth.input, faults: faults.input, records: records.input, unflushed: unflushed.input, catch: caught.input, max_time_ms: time.input, memory_mb: memory.input };
      for (const [k, v] of Object.entries(values)) {
        if (k === "allowed") allowed.checked = !!v;
        else if (k === "cuts") cuts.checked = !!v;
        else if (k === "one_way") oneWay.checked = !!v;
        else if (k === "controller_cuts") controllerCuts.checked = !!v;
        else if (k === "client_cuts") clientCuts.checked = !!v;
        else if (fields[k]) fields[k].value = String(v);
      }
      offer();
    },
    run: () => form.requestSubmit(),
    refresh: fillPresets,
  };
}
