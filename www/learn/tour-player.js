// The tour card above the stage: the beat's title and text at the learner's
// level, its quiz, and the way through (previous, play to next, next). Beats
// are pinned on the tour's own Trace; the page's stage shows the same run
// (same scenario, same seed), loaded through the page's own `load`.

import { h } from "../core/dom.js";
import { LEVELS, TOURS } from "./tours/index.js";
import { Trace } from "./trace.js";
import { renderQuiz, renderResult } from "./quiz.js";
import { sentBy } from "./words.js";

// ---- progress: kept where storage is allowed, never needed ---------------------

const KEY = "hwscope-learn";
export function loadProgress() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) ?? {};
  } catch {
    return {};
  }
}
function saveProgress(p) {
  try {
    localStorage.setItem(KEY, JSON.stringify(p));
  } catch {
    /* no storage here (a sandboxed embed): progress lasts for this page */
  }
}

const rank = (level) => Math.max(0, LEVELS.indexOf(level));

/** A part's scenario: the built-in's JSON, with the part's preset if it has one, the
 *  consumers it adds (`consumers`, after the built-in's own) and the settings it changes
 *  (`config`): the page names the run as the built-in "with consumer c1". */
function partJson(api, part) {
  const s = api.scenarios.find((x) => x.name === part.scenario);
  if (!s) throw new Error(`tour: no built-in scenario ${part.scenario}`);
  const obj = JSON.parse(s.json);
  if ((!part.preset || obj.preset === part.preset) && !part.consumers && !part.config) return s.json;
  if (part.preset) obj.preset = part.preset;
  if (part.consumers) obj.consumers = [...(obj.consumers ?? []), ...part.consumers];
  if (part.config) obj.config = { ...obj.config, ...part.config };
  return JSON.stringify(obj);
}

/** Pins every beat of every part: [{part, def, step}] in tour order. */
export function pin(api, tour) {
  return tour.parts.map((part, i) => {
    const json = partJson(api, part);
    const trace = Trace.of(api.wasm, json, { tail: 8 });
    let from = -1;
    const beats = part.beats.map((def) => {
      const step = trace.find(def.at, from);
      if (step >= 0) from = step;
      return { def, step, part: i };
    });
    return { json, trace, beats, part, index: i };
  });
}

const settingsInForce = new WeakMap();

/** A trace's Kafka settings in force, by key, from the core (`configInForce`). */
function inForce(api, trace) {
  if (!settingsInForce.has(trace)) {
    const list = api.wasm.configInForce(JSON.stringify(trace.scenario));
    settingsInForce.set(trace, Object.fromEntries(list.map((s) => [s.key, s.value])));
  }
  return settingsInForce.get(trace);
}

/** Everything a beat's text and quiz may read, from the page's own records. */
export function context(api, part, step) {
  const rec = api.sim.get(step);
  part.trace.upTo(step + 1);
  const prev = step > 0 ? api.sim.get(step - 1) : null;
  const trace = part.trace;
  const rep = (b) => rec.replicas.find((r) => r.broker === b);
  const L = rec.partition.leader;
  const c = {
    step, rec, prev, trace,
    t: rec.time_ms,
    e: rec.event ?? {},
    L,
    lead: rep(L) ?? { followers: [], log: [] },
    rep,
    was: (b) => prev?.replicas.find((r) => r.broker === b) ?? rep(b),
    sc: trace.scenario,
    // The scenario's value, else the one in force (a setting whose default depends on the preset is left out of the scenario).
    cfg: (k) => trace.scenario.config?.[k] ?? inForce(api, trace)[k],
    out: (type, to) => rec.in_flight.find((m) => m.type === type && (to === undefined || String(m.to) === String(to))),
    /** The leader's HW change (at or before this step) that first reached `hw`. */
    leaderMoved(hw) {
      for (let n = step; n > trace.first; n--) {
        const a = trace.row(n - 1);
        const b = trace.row(n);
        if (b.leader !== null && b.hw[b.leader] >= hw && !(a.hw[b.leader] >= hw)) return { step: n, t: b.t };
      }
      return null;
    },
    /** What sent the message received at this step. */
    sentBy() {
      const m = trace.receivedAt(step);
      return m ? sentBy(trace, m) : null;
    },
    /** The last row before this step whose event satisfies `pred`. */
    lastEvent(pred) {
      for (let n = step - 1; n >= trace.first; n--) {
        const row = trace.row(n);
        if (row.ev && pred(row.ev)) return row;
      }
      return null;
    },
  };
  return c;
}

/** The address bar's query names the tour, beat and level shown (null: none), so that a
 *  reload, or the link copied from the bar, comes back to this beat (a tour picked in the
 *  Learn panel had none, and a reload dropped the tour; one opened by ?beat= went back to
 *  that beat). The fragment after it stays the step shown (core/permalink.js). */
function address(params) {
  try {
    const url = new URL(location.href);
    for (const [k, v] of Object.entries(params)) {
      if (v == null) url.searchParams.delete(k);
      else url.searchParams.set(k, v);
    }
    if (url.href !== location.href) history.replaceState(history.state, "", url);
  } catch {
    /* no history here (a sandboxed srcdoc frame) */
  }
}

export function createTourPlayer(hub, tourId, { level, beat } = {}) {
  const { api } = hub;
  const tour = TOURS.find((t) => t.id === tourId);
  if (!tour) return null;
  const progress = loadProgress();
  const mine = (progress.tours ??= {})[tour.id] ??= {};
  let lvl = LEVELS.includes(level) ? level : mine.level ?? progress.level ?? "junior";
  const parts = pin(api, tour);
  let shown = [];
  let k = 0;
  let loaded = null;
  const answers = new Map();
  let pending = null;

  const levelPick = h("select", { "aria-label": "Level" }, LEVELS.map((l) => h("option", { value: l }, l)));
  const nav = h("ol", { class: "beat-dots", "aria-label": "Beats" });
  const partLine = h("p", { class: "part" });
  const title = h("h3", { class: "beat-title", tabindex: -1 });
  const body = h("div", { class: "beat-body" });
  const prevB = h("button", { type: "button", title: "Previous beat (P)" }, "◀ Previous");
  const playB = h("button", { type: "button", title: "Play the animation up to the next beat" }, "▷ Play to next");
  const nextB = h("button", { type: "button", class: "primary", title: "Next beat (N)" }, "Next ▶");
  const linkOut = h("input", { readonly: "", class: "tour-link", "aria-label": "Link to this beat", hidden: "" });
  const card = h("section", { class: "tour panel", "aria-labelledby": "tour-h", "data-tour": tour.id },
    h("div", { class: "tour-head" },
      h("h2", { id: "tour-h" }, h("small", {}, "Tour · "), tour.title),
      h("label", { class: "lvl" }, "Level ", levelPick),
      h("button", { type: "button", class: "link", onclick: copyLink }, "Link to this beat"),
      h("button", { type: "button", class: "link close", "aria-label": "Close the tour", onclick: () => hub.closeTour() }, "✕")),
    linkOut, nav, partLine, title, body,
    h("div", { class: "tour-nav" }, prevB, playB, nextB));

  function visible() {
    return parts.flatMap((p) => p.beats.filter((b) => b.step >= 0 && rank(b.def.level) <= rank(lvl)));
  }

  function quizOf(b) {
    const q = b.def.quiz;
    return q && rank(q.level ?? b.def.level) <= rank(lvl) ? q : null;
  }

  /** Makes the page show this part's run (again, after a scenario change or an intervention). */
  function ensure(part) {
    if (loaded && loaded.part === part && loaded.revision === hub.revision()) return;
    api.load(part.json);
    loaded = { part, revision: hub.revision() };
    // The tour tells the story now: fold the scenario's own description.
    document.querySelector("#about details")?.removeAttribute("open");
  }

  function say(b, c) {
    const out = [];
    for (const l of LEVELS.slice(0, rank(lvl) + 1)) {
      const f = b.def.say?.[l];
      const text = typeof f === "function" ? f(c) : f;
      if (text) out.push(h("p", { "data-level": l }, l !== "junior" ? h("span", { class: "lvl-tag" }, l) : null, text));
    }
    if (b.def.action && rank(b.def.level) <= rank(lvl)) {
      const a = b.def.action;
      // `parts: [[i, label], …]`: two of this tour's runs side by side (Compare).
      const opts = a.parts ? { ...a, note: "Two runs of this tour, under one scrubber over simulated time.", pair: a.parts.map(([i, label]) => ({ label, json: parts[i].json })) } : a;
      out.push(h("p", {}, h("button", { type: "button", "data-action": a.view, onclick: () => hub.openView(a.view, opts) }, a.label)));
    }
    return out;
  }

  function render(b, state) {
    const part = parts[b.part];
    const c = context(api, part, b.step);
    const q = quizOf(b);
    body.replaceChildren();
    // On a phone the text scrolls: a new beat, or the answer to the question just asked
    // (its verdict first), is read from its top, not where the last one was left.
    body.scrollTop = 0;
    if (q && state === "ask") {
      const { form } = renderQuiz(q, c, (pick) => {
        answers.set(key(b), pick);
        const score = (mine.score ??= {});
        if (pick !== null) score[key(b)] = pick === form.dataset.expected;
        save();
        api.player.pause();
        hub.go(b.step);
        render(b, "reveal");
        title.focus({ preventScroll: true });
      });
      body.append(form);
    } else {
      if (q) body.append(renderResult(q, c, answers.get(key(b)) ?? null));
      body.append(...say(b, c));
      // Predict, then let the explorer search every timing (www/explore/beat.js).
      if (b.def.explore) {
        const slot = h("div");
        body.append(slot);
        import("../explore/beat.js").then((m) => slot.replaceWith(m.exploreBeat(b.def.explore, part.json, (f) => (location.hash = f))));
      }
      if (k === shown.length - 1) body.append(ending());
    }
    card.dataset.state = q && state === "ask" ? "ask" : "show";
    requestAnimationFrame(() => {
      keepStageAbove();
      reachable();
    });
  }

  /** On a phone the sheet's text scrolls when a beat says more than its lines: the
   *  keyboard can reach it then, to scroll it (axe: scrollable-region-focusable). */
  function reachable() {
    if (body.scrollHeight > body.clientHeight + 1) {
      body.tabIndex = 0;
      body.setAttribute("role", "region");
      body.setAttribute("aria-label", "The beat's text");
    } else {
      body.removeAttribute("tabindex");
      body.removeAttribute("role");
      body.removeAttribute("aria-label");
    }
  }
  addEventListener("resize", () => reachable());

  /** A phone: the card is a sheet at the bottom of the screen (style.css) and the stage it
   *  talks about is kept above it, scrolling the page as little as needed: unscrolled, the
   *  sheet covered the logs and their HW lines. The status line above the stage (the step
   *  and time the beat speaks of) stays in view. */
  function keepStageAbove() {
    const slot = card.closest(".tour-slot");
    const stage = document.querySelector(".stage-box");
    if (!slot || !stage) return;
    const top = (document.getElementById("status") ?? stage).getBoundingClientRect().top;
    if (getComputedStyle(slot).position !== "sticky") {
      // A wide screen: the card heads the side column. A tour started from the Learn
      // panel further down, or a beat reached with the page scrolled, left its title
      // and question above the view (only the answers and Next showed): the card's top
      // and the status line come back into view.
      const cardTop = card.getBoundingClientRect().top;
      if (cardTop < 0) scrollBy({ top: Math.floor(Math.min(cardTop, top) - 8), behavior: "instant" });
      return;
    }
    // Scrolled past the stage (a tour picked in the Learn panel, further down; the reader
    // went on reading below): the sheet sticks only to the bottom, so it was above the
    // view with the stage, and the learner saw neither. The status line comes back to
    // the top; the sheet then sticks below the stage.
    if (top < 0) scrollBy({ top: Math.floor(top - 4), behavior: "instant" });
    const now = (document.getElementById("status") ?? stage).getBoundingClientRect().top;
    const hidden = stage.getBoundingClientRect().bottom - card.getBoundingClientRect().top;
    if (hidden > 1) scrollBy({ top: Math.floor(Math.min(hidden, Math.max(0, now))), behavior: "instant" });
  }

  /** The last beat: say the tour is over, and how to go deeper (a level with more
   *  beats, else another tour). */
  function ending() {
    const next = LEVELS.slice(rank(lvl) + 1).find((l) => {
      const was = lvl;
      lvl = l;
      const more = visible().length > shown.length;
      lvl = was;
      return more;
    });
    const box = h("div", { class: "tour-end", role: "status" }, h("p", {}, h("b", {}, "End of the tour ✓ "), `You have seen all ${shown.length} beats at the ${lvl} level.`));
    if (next) {
      const was = lvl;
      lvl = next;
      const deeper = visible();
      lvl = was;
      // The first beat this level adds: what the learner has not seen yet.
      const first = deeper.findIndex((x) => !shown.includes(x));
      box.append(h("p", {}, h("button", { type: "button", class: "primary", "data-deeper": next, onclick: () => {
        lvl = next;
        goBeat(first);
      } }, `Go deeper: the ${next} level (${deeper.length - shown.length} more beat${deeper.length - shown.length === 1 ? "" : "s"})`)));
    } else {
      const others = TOURS.filter((t) => t.id !== tour.id).slice(0, 2);
      // One tour per line: a title that wraps as an inline button leaves its
      // separators stranded on lines of their own.
      box.append(h("p", {}, "That is the whole tour. Next, one of:"),
        h("ul", { class: "tour-next" }, ...others.map((t) => h("li", {}, h("button", { type: "button", class: "link", onclick: () => hub.startTour(t.id, { picked: true }) }, t.title)))));
    }
    return box;
  }

  const key = (b) => `${b.part}:${b.def.id}`;

  function save() {
    mine.beat = shown[k] ? key(shown[k]) : null;
    mine.level = lvl;
    mine.done = mine.done || k === shown.length - 1;
    progress.level = lvl;
    saveProgress(progress);
    address({ tour: tour.id, beat: String(k + 1), level: lvl });
  }

  /** Shows beat i: asks its question first (stage one step before) unless answered. */
  function goBeat(i, { play = false } = {}) {
    shown = visible();
    k = Math.max(0, Math.min(shown.length - 1, i));
    const b = shown[k];
    const part = parts[b.part];
    ensure(part);
    const ask = quizOf(b) && !answers.has(key(b));
    const target = ask ? Math.max(0, b.step - 1) : b.step;
    nav.replaceChildren(...shown.map((x, j) => h("li", {}, h("button", {
      type: "button", class: `dot${answers.has(key(x)) ? " done" : ""}${quizOf(x) ? " q" : ""}`,
      "aria-label": `Beat ${j + 1}: ${x.def.title}`, "aria-current": j === k ? "step" : null, title: x.def.title,
      onclick: () => goBeat(j),
    }, String(j + 1)))));
    const p = part.part;
    // Parts this level visits (junior may see only the first).
    const seen = [...new Set(shown.map((x) => x.part))];
    const added = `${p.consumers ? `, with consumer${p.consumers.length === 1 ? "" : "s"} ${p.consumers.map((x) => x.id).join(", ")}` : ""}${Object.entries(p.config ?? {}).map(([key, v]) => `, ${key} = ${v}`).join("")}`;
    partLine.textContent = seen.length > 1 ? `Part ${seen.indexOf(b.part) + 1} of ${seen.length} · ${p.scenario} under ${part.trace.scenario.preset}${added}` : `${p.scenario} · ${part.trace.scenario.preset}${added}`;
    title.textContent = `${k + 1}. ${b.def.title}`;
    card.dataset.scenario = p.scenario;
    card.dataset.preset = part.trace.scenario.preset;
    // What the part changes in the built-in (JSON), for a test to rebuild the run.
    if (p.consumers) card.dataset.consumers = JSON.stringify(p.consumers);
    else delete card.dataset.consumers;
    if (p.config) card.dataset.config = JSON.stringify(p.config);
    else delete card.dataset.config;
    card.dataset.beat = k + 1;
    card.dataset.beats = shown.length;
    card.dataset.step = b.step;
    card.dataset.level = lvl;
    levelPick.value = lvl;
    prevB.disabled = k === 0;
    nextB.disabled = playB.disabled = k === shown.length - 1;
    nextB.hidden = playB.hidden = k === shown.length - 1;
    const finish = () => render(b, ask ? "ask" : "show");
    if (play && hub.rec().step < target && loaded.part === part) {
      body.replaceChildren(h("p", { class: "muted" }, `Playing to step ${target}…`));
      pending = { step: target, from: hub.rec().step, done: finish };
      api.player.play();
    } else {
      pending = null;
      api.player.pause();
      hub.go(target);
      finish();
    }
    save();
  }

  /** Called on every step shown: ends a "play to next" at its beat. */
  function onStep(rec) {
    if (!pending) return;
    if (rec.step < pending.from) {
      pending = null;
      return;
    }
    if (rec.step >= pending.step) {
      const p = pending;
      pending = null;
      api.player.pause();
      if (rec.step !== p.step) hub.go(p.step);
      p.done();
    }
  }

  function copyLink() {
    const url = new URL(location.href);
    url.hash = "";
    for (const k2 of [...url.searchParams.keys()]) if (!["embed", "theme"].includes(k2)) url.searchParams.delete(k2);
    url.searchParams.set("tour", tour.id);
    url.searchParams.set("beat", String(k + 1));
    url.searchParams.set("level", lvl);
    linkOut.value = url.href;
    linkOut.hidden = false;
    linkOut.select();
    try {
      navigator.clipboard?.writeText(url.href).catch(() => {});
    } catch {
      /* no clipboard here: the link stays selected in the box */
    }
  }

  levelPick.addEventListener("change", () => {
    const here = shown[k];
    lvl = levelPick.value;
    const now = visible();
    // Stay on the same beat if this level shows it, else the nearest before it.
    let i = now.findIndex((x) => x === here);
    if (i < 0) i = Math.max(0, now.filter((x) => x.part < here.part || (x.part === here.part && x.step <= here.step)).length - 1);
    goBeat(i);
  });
  prevB.addEventListener("click", () => goBeat(k - 1));
  nextB.addEventListener("click", () => goBeat(k + 1));
  playB.addEventListener("click", () => goBeat(k + 1, { play: true }));

  function keys(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || document.querySelector("dialog[open]")) return;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName)) return;
    if (e.key === "n" || e.key === "N") goBeat(k + 1);
    else if (e.key === "p" || e.key === "P") goBeat(k - 1);
  }
  document.addEventListener("keydown", keys);

  // Where to start: the linked beat (a number, 1-based, or a beat id), else where the learner was.
  shown = visible();
  let start = 0;
  if (beat) {
    const n = Number(beat);
    start = Number.isInteger(n) && n > 0 ? n - 1 : Math.max(0, shown.findIndex((b) => b.def.id === beat));
  } else if (mine.beat && !mine.done) {
    start = Math.max(0, shown.findIndex((b) => key(b) === mine.beat));
  }

  return {
    card,
    tour,
    start: () => goBeat(start),
    onStep,
    close() {
      address({ tour: null, beat: null, level: null });
      document.removeEventListener("keydown", keys);
      for (const p of parts) p.trace.free();
      card.remove();
    },
    /** For tests and tools: every beat with its step and whether it was found. */
    pinned: () => parts.flatMap((p) => p.beats.map((b) => ({ part: p.index, id: b.def.id, level: b.def.level, step: b.step }))),
  };
}
