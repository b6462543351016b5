// Wiring: pick a scenario and connect the player, the stage and the panels
// to the core. Nothing here computes protocol state: the page draws the step
// records the core returns.

import { Sim } from "./core/sim.js";
import { Player } from "./core/player.js";
import { Frontier, LOOKAHEAD } from "./core/frontier.js";
import { createStage } from "./render/stage.js";
import { createControls, applyControls } from "./panels/controls.js";
import { createStatus } from "./panels/status.js";
import { createMarks } from "./panels/marks.js";
import { createVerdicts } from "./panels/verdicts.js";
import { renderAbout } from "./panels/about.js";
import { fmt, h } from "./core/dom.js";
import { showError, clearError } from "./core/errors.js";
import { address, readLink, checkLink, createUrlSync, pageBase } from "./core/permalink.js";
import { createNotice, floatUnderHeader } from "./panels/notice.js";
import { onDemand, whenReady } from "./core/ondemand.js";
import { setTheme } from "./core/theme.js";
import { builtinLink, startCore } from "./core/first-view.js";
import { LINKS } from "./pkg/steps.js";

const $ = (id) => document.getElementById(id);
/** Computing that may hold up a frame before it goes on in slices (core/frontier.js). */
const SYNC_MS = 12;
/** How long a link or an embed's seek may compute its way to a far step. */
const FAR_MS = 5000;

/** In an embed: the step's sentence as the caption (and for screen readers), no other panel. */
function embedPanels(sim) {
  const live = $("live");
  return { show: (rec) => (live.textContent = said(rec, sim)), inspect() {}, interventions() {}, openSettings() {}, reset() {} };
}

/** In place of the link reader when the full core could not be downloaded. */
function unread() {
  throw new Error("the part of the simulation core that reads links could not be downloaded (try again in a moment)");
}

/** What the narration slot says of a step: its sentence, or, while the page runs on its
 *  first core (no narration: the full core is on its way), that the sentence is coming. */
export const LOADING = "Loading the narration…";
export function said(rec, sim) {
  return rec.text || (sim.full ? "" : LOADING);
}

/** `opts`: the page's options (core/options.js); `boot`: the stage and status line
 *  main.js drew the first stage with, taken over as they are, and the full page's
 *  panels module (panels/page.js; none in an embed, which shows only the stage). */
export function start(core, opts, boot = {}) {
  // The core's functions (a copy: when the full core takes over from the first one,
  // its functions replace these, and every part holding `wasm` sees them).
  const wasm = { ...core };
  // The page's first core writes no step records: it shows those the full core wrote at
  // build time (each built-in's step 0, the steps main.js drew, the built-in's steps file),
  // and a step past them waits for the full core (core/sim.js NeedsFull, player.wait).
  const sim = new Sim(wasm.Playground, { writes: false });
  for (const b of boot.builtins ?? []) if (b.record) sim.lend(b.json, [b.record]);
  if (boot.lend) sim.lend(boot.lend.json, boot.lend.records);
  let stepsFile = boot.lend?.file?.then((f) => f && sim.lend(boot.lend.json, f.records, f.end)) ?? null;
  // The built-ins: the full core has them all; with the first core, main.js's (every
  // title, the text of the one opened): another one's text waits for the full core.
  let scenarios = wasm.builtinScenarios?.() ?? boot.builtins ?? [];
  let selection = null;
  let shown = null;
  let json = "";

  const stage = boot.stage ?? createStage($("stage"), () => {});
  stage.onPick = (sel) => pick(sel);
  const status = boot.status ?? createStatus($("status"), $("violations"));
  const go = (n) => {
    player.pause();
    player.go(n);
  };
  const panels = boot.pagePanels ? boot.pagePanels.createPagePanels({ sim, wasm, go, intervene: (event) => intervene(event), load: (text) => choose(text), say: (text) => notice(text), ready: () => needFull() }) : embedPanels(sim);
  const player = new Player(sim, show, (t) => {
    stage.frame(t);
    status.time(t);
  }, (on) => {
    controls.playing(on);
    if (on) frontier.playing(player.step, player.to);
  }, { reduced: opts.reducedMotion || matchMedia("(prefers-reduced-motion: reduce)").matches });
  // A step the first core cannot show: the steps file first (if still on its way), then
  // the full core.
  player.onNeed = async () => {
    if (stepsFile) {
      const f = stepsFile;
      stepsFile = null;
      await f;
      return true;
    }
    return needFull();
  };
  const frontier = new Frontier(sim, (job) => controls.computing(job));
  const controls = createControls(document, player, sim, frontier, () => load(json));
  sim.listen(() => controls.update());
  const marks = createMarks(document, sim, player, { go, find: (test, label) => frontier.find(test, FAR_MS, label) });
  controls.jumps = marks;
  const verdicts = opts.embed ? { step() {}, reset() {} } : createVerdicts(document, sim, player, { go });
  const showNotice = createNotice($("notice"));
  /** What the notice says now (a later sentence about the same run is added to it). */
  let noticeText = "";
  const notice = (text, act) => showNotice((noticeText = text), act);
  floatUnderHeader($("banner"));
  // The tree of branches under the scrubber (the full page only): each is a share link.
  // A branch is known by its link's scenario part (the scenario and its interventions).
  const keyOf = (link) => new URLSearchParams(link).get("s") ?? link;
  // Every branch is a share link, which only the full core writes: the tree's module is
  // not in the first load but comes with the full core (fullParts; its box stays hidden
  // until a run has two branches). `tree(fn)` runs fn on the tree once it is here, in the
  // order asked (callbacks on the one pending import run in the order they were added).
  const branchesModule = opts.embed ? null : onDemand(() => import("./panels/branches.js"), "Branches", (text) => notice(text));
  let branches = null;
  const makeTree = (m) =>
    (branches ??= m?.createBranches($("branches"), {
      open: (link) => {
        branches.leave(sim.linkAt(player.step));
        location.hash = link;
      },
      compare: (a, b) => {
        const text = (n) => readLink(`#${n.link}`, wasm.decodeLink)?.scenario;
        const label = (n) => (n.parent ? `${n.label} @${n.at}` : "as loaded");
        openLearn().then((hub) => hub?.openView("compare", { pair: [{ label: label(a), json: text(a) }, { label: label(b), json: text(b) }] }));
      },
    }) ?? null);
  const tree = (fn) => {
    if (branches) return fn(branches);
    // Not loaded (the network dropped): what was asked is dropped, the next run asks again.
    branchesModule?.(true).then((m) => makeTree(m) && fn(branches));
  };
  /** The tree marks the run `here` (a link) as shown, or starts over from it. */
  const branchAt = (here) => tree((b) => b.shown(keyOf(here), here) || b.reset(keyOf(here), here));
  // main.js may have made room for it on the first stage (class pending: not shown yet).
  const verified = $("status").querySelector(".verified") ?? h("span", { class: "verified", hidden: "" }, "link reproduced exactly ✓");
  $("status").append(verified);
  let verifiedAt = -1;
  Object.assign(player, { from: opts.from, to: opts.to, loop: opts.loop });
  applyControls(document, opts.controls);
  // The postMessage API, only inside a frame; the host waits for its "ready".
  let api = { step() {}, reset() {}, ready() {} };
  const framed = parent !== window && import("./embed/api.js").then((m) => (api = m.createEmbedApi(opts.origin, player, (mode) => setTheme(mode, $("theme"), false), jump)));
  const full = (f) => ($("open-full").href = `${pageBase()}#${f}`);
  /** Without the full core (no link codec; the first core runs built-ins only): the
   *  built-in by name at the step, which the full playground opens as the same run. */
  const plain = (step) => {
    if (meta) $("open-full").href = `${pageBase()}?scenario=${encodeURIComponent(meta.name)}${step ? `#at=${step}` : ""}`;
  };
  // The address bar (an embed's "open full playground" link) follows the step shown.
  const sync = createUrlSync(sim, !opts.embed, full);
  let booted = false;
  /** A step range past the run's end (`from`, `to` after its last step) is named like any
   *  other parameter it cannot use, and clamped to the last step, once the end is known:
   *  once per run (`revision`). Returns whether it had something to say. */
  let range = { revision: -1, said: [] };
  function checkRange() {
    if (!sim.done || range.revision === sim.revision) return false;
    range = { revision: sim.revision, said: [] };
    const last = sim.known - 1;
    for (const [key, where] of [["from", "starting"], ["to", "ending"]]) {
      if (player[key] === Infinity || player[key] <= last) continue;
      range.said.push(`${key}=${player[key]} is after the run's last step, ${last}: ${where} there.`);
      player[key] = last;
    }
    return range.said.length > 0;
  }
  sim.listen(() => {
    // While a link opens, open() says it with the rest.
    if (booted && checkRange()) {
      notice([noticeText, ...range.said].filter(Boolean).join(" "));
      controls.update();
    }
  });
  const title = () => sim.scenario.title || $("scenario").selectedOptions[0]?.textContent || "Custom scenario";
  let share = null;
  const shareModule = onDemand(() => import("./panels/share.js"), "Share", (text) => notice(text));

  // Self-study (tours, quizzes, the views that explain) loads on first use: www/learn/.
  const learn = { wasm, sim, player, scenarios, load, watch: new Set(), get rec() { return shown; } };
  const learnModule = onDemand(() => import("./learn/learn.js"), "Learn", (text) => notice(text));
  const openLearn = async (query) => ((await needFull()) ? learnModule().then((m) => m?.open(learn, query) ?? null) : null);

  // The full core (narration, broker log, share links, settings, interventions): the
  // page starts on the first core (www/pkg/hwscope_first*, a smaller download) and takes
  // this one once idle, or at the first use of something only it does (Settings,
  // Share, Learn, Explore, an intervention, the broker log) or, in an embed, at the
  // first step shown whose sentence is not known. The run goes on where it was.
  const fullModule = onDemand(async () => {
    const parts = fullParts();
    const m = await import("./pkg/hwscope.js");
    await m.default({ module_or_path: new URL("./pkg/hwscope_bg.wasm", import.meta.url) });
    await parts;
    return m;
  }, "The narration (the simulation core's full part)", (text) => notice(text));
  /** The page's parts that show only what the full core computes (the branches, how far
   *  the run goes: panels/page.js), downloaded beside it, not in the first load, so that
   *  they are here when it takes over. Resolves when they are (or could not be: each then
   *  loads at its next use). */
  function fullParts() {
    return Promise.all([branchesModule?.(true).then(makeTree), panels.whenFull?.()]);
  }
  // A page that starts on the full core (a link with interventions) asks for them at once.
  if (sim.full) fullParts();
  /** Resolves to true once the full core runs the page (false if it could not load). */
  async function needFull(ahead = false) {
    if (sim.full) return true;
    const m = await fullModule(ahead);
    if (!m) return false;
    if (!sim.full) takeFull(m);
    return true;
  }
  function takeFull(m) {
    Object.assign(wasm, m);
    sim.swap(m.Playground);
    scenarios = wasm.builtinScenarios();
    learn.scenarios = scenarios;
    meta = meta && scenarios.find((s) => s.name === meta.name);
    performance.mark("hwscope-full-core");
    // The same step, now told: the narration and the broker log start over from it.
    panels.reset();
    if (player.rec) {
      const rec = sim.get(player.step);
      player.rec = rec;
      player.next = null;
      // The same step again, told: not a new step for an embed's host (no "step" event).
      retold = true;
      show(rec);
      retold = false;
    }
    // A link to a built-in opened on the first core: its state hash, compared now.
    if (unchecked?.revision === sim.revision) {
      const r = checkLink(unchecked, sim);
      if (r.message) notice(r.message);
      verified.hidden = !r.ok || player.step !== unchecked.at;
      verified.classList.remove("pending");
    }
    unchecked = null;
    if (booted) {
      const here = sim.linkAt(player.step);
      full(here);
      sync(player.step);
      branchAt(here);
    }
  }

  let fresh = true;
  let retold = false;
  function show(rec) {
    shown = rec;
    stage.step(rec, sim.initialEnd, fresh, fresh ? sim.room : undefined);
    fresh = false;
    status.step(rec);
    panels.show(rec, selection, player.playing);
    controls.update(rec.step);
    verdicts.step(rec.step);
    frontier.follow(rec.step, player.to);
    // "Reproduced exactly" is said of the link's step, not of the ones stepped to after.
    if (!verified.hidden && rec.step !== verifiedAt) verified.hidden = true;
    if (!retold) api.step(rec);
    for (const watch of learn.watch) watch(rec);
    if (booted && sim.full) sync(rec.step);
    else if (booted) plain(rec.step);
    // An embed asks for the full core when it shows a step it cannot tell.
    if (booted && !rec.text && !sim.full) needFull(true);
  }

  function pick(sel) {
    selection = sel;
    stage.select(sel);
    if (shown) panels.inspect(shown, sel);
  }
  $("insp-close").addEventListener("click", () => pick(null));

  async function intervene(event) {
    player.pause();
    if (!(await needFull())) return;
    frontier.reset();
    const at = player.step;
    const before = sim.linkAt(at);
    // Interventions later in the run than this one belong to the future it replaces.
    const dropped = sim.interventions.filter((k) => k > at);
    let rec;
    try {
      rec = sim.apply(at, event);
    } catch (e) {
      if (e.name === "CoreFailure") throw e;
      showError(`That intervention was refused: ${e.message}`);
      return;
    }
    player.showRecord(rec);
    clearError();
    if (branchesModule) {
      const link = sim.linkAt(player.step);
      tree((b) => b.fork(before, keyOf(link), link, event, rec.step));
    }
    // A "Jump to" result named a step of the run this one replaces.
    marks.reset();
    verdicts.reset();
    remember(before);
    if (dropped.length) {
      const which = dropped.length === 1 ? `The intervention at step ${dropped[0]} was` : `The interventions at steps ${dropped.join(", ")} were`;
      notice(`${which} after this step, in the future this one replaces, so ${dropped.length === 1 ? "it is" : "they are"} gone from this run; the run before is kept as a branch (Branches, under the scrubber). The browser's Back brings it back too.`);
    }
  }

  /** A change the user made (another scenario, an intervention) gets its own
   *  history entry: the browser's Back returns to the run before it. */
  function remember(before) {
    if (opts.embed || !booted || before == null) return;
    try {
      history.replaceState(history.state, "", address(before));
      history.pushState(null, "", address(sim.linkAt(player.step)));
    } catch {
      /* no history here (a sandboxed srcdoc frame) */
    }
  }

  /** Loads a scenario the user chose (the picker, Settings) as a new history entry.
   *  When only its preset changed, the run keeps the moment shown (the last step at
   *  or before the same simulated time) and offers both presets side by side. */
  function choose(text) {
    const before = booted ? sim.linkAt(player.step) : null;
    const linked = sim.full;
    const was = { json, t: shown?.time_ms ?? 0, step: shown?.step ?? 0, preset: sim.scenario?.preset ?? "kafka-4.0" };
    if (!load(text)) return false;
    if (linked) {
      const here = sim.linkAt(player.step);
      tree((b) => b.reset(keyOf(here), here));
    }
    const now = sim.scenario.preset ?? "kafka-4.0";
    if (was.json && now !== was.preset && samePresetAside(was.json, text)) {
      // Step 0 (the state before anything happens) is the same moment under any preset.
      player.go(was.step === 0 ? 0 : stepAtTime(was.t));
      const at = `${fmt(shown.time_ms)} ms`;
      notice(
        shown.step === was.step
          ? `Now under ${now}, at ${at} (step ${fmt(shown.step)}), as before.`
          : `Now under ${now}, at ${at} as before: step ${fmt(shown.step)} here, step ${fmt(was.step)} under ${was.preset}.`,
        {
          label: `${was.preset} and ${now} side by side`,
          run: () => openLearn().then((hub) => hub?.openView("compare", { setting: "preset", a: was.preset, value: now })),
        },
      );
    }
    remember(before);
    return true;
  }

  /** The two scenario texts differ at most in their preset. */
  function samePresetAside(a, b) {
    try {
      const x = JSON.parse(a);
      const y = JSON.parse(b);
      x.preset = y.preset = "kafka-4.0";
      return wasm.encodeLink(JSON.stringify(x)) === wasm.encodeLink(JSON.stringify(y));
    } catch {
      return false;
    }
  }

  /** `b` is the built-in `a` with consumers added after its own and/or a few settings
   *  changed (a tour's part, or Settings): {added: consumer ids, config: {key: value}},
   *  else null. More than three settings changed make the run the user's own. */
  function builtinVariant(a, b) {
    try {
      const x = JSON.parse(a);
      const y = JSON.parse(b);
      const mine = x.consumers ?? [];
      const added = (y.consumers ?? []).slice(mine.length).map((c) => c.id);
      y.consumers = (y.consumers ?? []).slice(0, mine.length);
      if (!y.consumers.length && !x.consumers) delete y.consumers;
      const config = {};
      for (const k of new Set([...Object.keys(x.config ?? {}), ...Object.keys(y.config ?? {})])) {
        if (JSON.stringify(x.config?.[k]) === JSON.stringify(y.config?.[k])) continue;
        config[k] = y.config?.[k];
        if (x.config?.[k] === undefined) delete y.config[k];
        else (y.config ??= {})[k] = x.config[k];
      }
      if (y.config && !Object.keys(y.config).length && !x.config) delete y.config;
      const changed = Object.keys(config).length;
      if ((!added.length && !changed) || changed > 3) return null;
      return samePresetAside(JSON.stringify(x), JSON.stringify(y)) ? { added: added.length ? added : null, config: changed ? config : null } : null;
    } catch {
      return null;
    }
  }

  /** A built-in's scenario in force under `preset`, every default written out as a link
   *  writes it, or null. */
  function inForce(json, preset) {
    if (!wasm.Playground) return null;
    const p = new wasm.Playground();
    try {
      p.configure(JSON.stringify({ ...JSON.parse(json), preset }));
      return p.scenario();
    } catch {
      return null;
    } finally {
      p.free?.();
    }
  }

  /** A scenario text without its `after_stop` (an intervention brings "settle"). */
  const unsettled = (t) => {
    const { after_stop: _settle, ...rest } = JSON.parse(t);
    return JSON.stringify(rest);
  };

  /** A variant's changes in words: "consumer c1", "min.insync.replicas = 1". */
  const variantChanges = (v) => [
    v.added ? `consumer${v.added.length === 1 ? "" : "s"} ${v.added.join(", ")}` : null,
    ...Object.entries(v.config ?? {}).map(([k, val]) => (val === undefined ? `${k} at its default` : `${k} = ${val}`)),
  ].filter(Boolean);

  /** What a variant adds to the built-in's name: " (under kafka-0.10, with consumer c1)". */
  const variantName = (v) => {
    if (!v) return "";
    const changes = variantChanges(v);
    const parts = [v.preset !== v.written ? `under ${v.preset}` : null, changes.length ? `with ${changes.join(", ")}` : null].filter(Boolean);
    return parts.length ? ` (${parts.join(", ")})` : "";
  };

  /** A link made after an intervention carries the scenario with every default written
   *  out (and `after_stop: settle`, which an intervention brings): the built-in it came from
   *  is the one with the same title whose scenario in force, under the link's preset, is
   *  the same once the interventions are set aside. {s, variant} or null. */
  function builtinOfLink() {
    if (!sim.interventions.length || !wasm.Playground) return null;
    const bare = (o) => {
      const { after_stop: _settle, ...rest } = o;
      return JSON.stringify({ ...rest, events: (rest.events ?? []).filter((e) => e.at_step == null) });
    };
    let mine;
    try {
      mine = bare(sim.settings);
    } catch {
      return null;
    }
    const preset = sim.scenario.preset ?? "kafka-4.0";
    for (const s of scenarios) {
      if (!s.json || (s.title ?? "") !== (sim.scenario.title ?? "")) continue;
      const obj = JSON.parse(s.json);
      const written = obj.preset ?? "kafka-4.0";
      obj.preset = preset;
      const p = new wasm.Playground();
      try {
        p.configure(JSON.stringify(obj));
        if (bare(JSON.parse(p.scenario())) === mine) return { s, variant: written === preset ? null : { written, preset } };
      } catch {
        /* not this one */
      } finally {
        p.free?.();
      }
    }
    return null;
  }

  /** The last step at or before simulated time t (computed on as far as needed, within the look-ahead). */
  function stepAtTime(t) {
    let best = 0;
    const CHUNK = 256;
    for (let from = 0; from < LOOKAHEAD; from += CHUNK) {
      let past = false;
      const more = sim.scan(from, from + CHUNK - 1, (rec) => {
        if (rec.time_ms <= t) best = rec.step;
        else past = true;
      });
      if (past || !more) break;
    }
    return best;
  }

  /** Shows step n (within the range); a step beyond what is computed is computed
   *  first, in slices with their progress shown (an embed's seek). */
  async function jump(n) {
    const target = Math.max(player.from, Math.min(player.to, n));
    player.pause();
    if (target >= sim.known && !sim.done && !sim.computeUntil(target, SYNC_MS)) {
      const token = ++jumping;
      await frontier.reach(target, FAR_MS, `Computing up to step ${fmt(target)}`);
      if (token !== jumping) return;
    }
    if (target >= sim.known) frontier.hold();
    player.go(Math.min(target, sim.known - 1));
  }
  let jumping = 0;

  function load(text) {
    player.pause();
    let first;
    try {
      first = sim.load(text);
    } catch (e) {
      if (e.name === "CoreFailure") throw e;
      showError(`This scenario was refused: ${e.message}`);
      return false;
    }
    json = text;
    frontier.reset();
    clearError();
    selection = null;
    stage.select(null);
    panels.reset();
    fresh = true;
    status.scenario(sim.scenario);
    // A built-in opened from a link arrives re-serialized, maybe with interventions:
    // compare canonical forms without them.
    const canonical = (t) => { try { return wasm.encodeLink(t); } catch { return null; } };
    const own = sim.interventions.length ? JSON.stringify({ ...sim.scenario, events: (sim.scenario.events ?? []).filter((e) => e.at_step == null) }) : text;
    const key = canonical(own);
    meta = scenarios.find((s) => s.json === own) ?? (key == null ? undefined : scenarios.find((s) => s.json && canonical(s.json) === key));
    // A built-in under another preset (Settings, a tour's part) keeps the built-in's name.
    variant = null;
    if (!meta) {
      const preset = sim.scenario.preset ?? "kafka-4.0";
      for (const s of scenarios) {
        if (!s.json) continue;
        const written = JSON.parse(s.json).preset ?? "kafka-4.0";
        if (written !== preset && samePresetAside(s.json, own)) {
          meta = s;
          variant = { written, preset };
          break;
        }
        // Only the built-in of the same title (each try compresses both texts); a link
        // (a reload, a shared page) carries the scenario with every default written out:
        // then the built-in's in force, under the link's preset.
        const changed = (s.title ?? "") === (sim.scenario.title ?? "") ? builtinVariant(s.json, own) ?? builtinVariant(inForce(s.json, preset), sim.interventions.length ? unsettled(own) : own) : null;
        if (changed) {
          meta = s;
          variant = { written, preset, ...changed };
          break;
        }
      }
    }
    if (!meta) {
      const found = builtinOfLink();
      if (found) ({ s: meta, variant } = found);
    }
    $("scenario").value = meta ? meta.name : "";
    // The description is the lesson; on a phone it folds away above the stage. A
    // built-in's text told of its own preset: under another one, or edited, it says so.
    let description = sim.scenario.description || meta?.description;
    const from = !meta && description && scenarios.find((s) => s.description === description);
    if (variant?.added || variant?.config) description = `${variant.written !== variant.preset ? `Written for ${variant.written}; this run is under ${variant.preset}, where it may go otherwise. ` : ""}This run changes the built-in (with ${variantChanges(variant).join(", ")}), so it may go otherwise than the text says. ${description}`;
    else if (variant) description = `Written for ${variant.written}; this run is under ${variant.preset}, where it may go otherwise. ${description}`;
    else if (from) description = `The description of “${from.title}”, which your edits changed: it may no longer hold. ${description}`;
    const name = `${sim.scenario.title || meta?.title || "Custom scenario"}${variantName(variant)}`;
    renderAbout($("about"), { title: name, description, embed: opts.embed, extra: modifiedNote });
    modified();
    document.title = `${name} · hwscope`;
    verified.hidden = true;
    notice("");
    api.reset();
    player.showRecord(first);
    if (player.from) player.go(player.from);
    if (!performance.getEntriesByName("hwscope-first-frame").length) performance.mark("hwscope-first-frame");
    if (!performance.getEntriesByName("hwscope-first-stage").length) performance.mark("hwscope-first-stage");
    // Most runs are short: learn their whole length now; the look-ahead goes on
    // in idle time, up to LOOKAHEAD steps past the one shown (core/frontier.js).
    sim.computeUntil(player.from + LOOKAHEAD, 8);
    controls.update();
    enable();
    return true;
  }

  /** After an intervention the run is no longer the built-in's: the picker and the
   *  heading say so (Reset drops the interventions). */
  let meta = null;
  /** {written, preset} when the run is a built-in under another preset than its own. */
  let variant = null;
  const modifiedNote = h("span", { class: "modified", hidden: "" });
  function modified() {
    const steps = sim.interventions;
    for (const s of scenarios) {
      const option = $("scenario").querySelector(`option[value="${s.name}"]`);
      const text = `${s.title || s.name}${s === meta ? variantName(variant) : ""}${steps.length && s === meta ? " (modified)" : ""}`;
      if (option && option.textContent !== text) option.textContent = text;
    }
    modifiedNote.hidden = !steps.length;
    // An embed has one line for the name: a short mark there, the whole of it on hover.
    modifiedNote.title = opts.embed && steps.length ? `modified by interventions at steps ${steps.join(", ")}` : "";
    if (opts.embed) modifiedNote.textContent = steps.length ? `modified (${steps.length}) · ` : "";
    else modifiedNote.textContent = steps.length ? ` · modified by ${steps.length === 1 ? "an intervention" : `${steps.length} interventions`} at step${steps.length === 1 ? "" : "s"} ${steps.join(", ")} (↺ Reset drops ${steps.length === 1 ? "it" : "them"})` : "";
  }
  let described = -1;
  sim.listen(() => {
    if (described === sim.revision) return;
    described = sim.revision;
    modified();
  });

  const picker = $("scenario");
  picker.replaceChildren(...scenarios.map((s) => h("option", { value: s.name }, s.title || s.name)), h("option", { value: "", disabled: "" }, "Custom (from Settings)"));
  picker.addEventListener("change", async () => {
    const name = picker.value;
    // Another built-in's text comes with the full core.
    const chosen = scenarios.find((x) => x.name === name);
    if (chosen && !(chosen.json && sim.canLoad(chosen.json)) && !(await needFull())) return;
    const s = scenarios.find((x) => x.name === name);
    if (s) choose(s.json);
  });
  // Each press below may wait for the full core: core/ondemand.js whenReady acts once it
  // is here and hands focus on (a dialog takes it; Learn's and Explore's panels are given it).
  const ready = () => needFull();
  // The header's buttons are marked busy ("…") while their part downloads (a slow link).
  const busy = (id) => ({ control: $(id) });
  $("settings-open").addEventListener("click", () => whenReady(ready, () => panels.openSettings(json), undefined, busy("settings-open")));
  $("share-open").addEventListener("click", () => whenReady(ready, async () => {
    const m = await shareModule();
    if (!m) return;
    share ??= m.createShare($("share"), () => ({
      fragment: sim.linkAt(player.step),
      title: title(),
      step: player.step,
      last: sim.known - 1,
      dims: { initialEnd: sim.initialEnd, ...sim.room, producers: shown.producers.length, consumersNow: shown.consumers.length },
    }));
    share();
  }, undefined, busy("share-open")));
  $("learn-open").addEventListener("click", () => whenReady(ready, () => openLearn(), (hub) => hub?.panel, busy("learn-open")));
  // Explore (www/explore/): a search in a Web Worker, loaded on first use.
  const exploreModule = onDemand(() => import("./explore/panel.js"), "Explore", (text) => notice(text));
  learn.explore = (wait) => whenReady(ready, () => exploreModule().then((m) => m?.open({ wasm, sim, scenarioText: () => json, openLink: (f) => (location.hash === `#${f}` ? open(location.hash) : (location.hash = f)) })), (panel) => panel?.section, wait);
  $("explore-open").addEventListener("click", () => learn.explore(busy("explore-open")));
  /** Controls are disabled until the core runs them (index.html): now they do. */
  function enable() {
    for (const el of document.querySelectorAll("[data-live]")) el.disabled = false;
    // What a step allows (Restart only a broker that is down…) is the step's to say.
    if (shown) panels.interventions(shown);
    if (!performance.getEntriesByName("hwscope-interactive").length) {
      performance.mark("hwscope-interactive");
      if (!opts.embed) idle(warm);
    }
    document.documentElement.dataset.boot = "live";
  }

  /** Settings, Share and the broker log load on first use (not in the first load): once
   *  the page is live and idle their modules are fetched, once, so that a first click
   *  does not wait on the network. Nothing after that: a paused page stays idle. */
  function warm() {
    needFull(true);
    shareModule(true);
    panels.warm?.();
  }
  function idle(f) {
    if (globalThis.requestIdleCallback) requestIdleCallback(f, { timeout: 3000 });
    else setTimeout(f, 1000);
  }

  /** The scenario named by ?scenario=, or the default one. */
  function builtin(say) {
    const wanted = opts.scenario;
    const s = builtinOf(wanted);
    // Known by name, its text not here: the full core, which has it, could not be downloaded.
    if (scenarios.some((x) => x.name === wanted && !x.json)) say.push(`The built-in scenario "${wanted}" could not be loaded (a download failed); showing "${s.name}".`);
    else if (wanted && s.name !== wanted) say.push(`There is no built-in scenario "${wanted}"; showing "${s.name}".`);
    load(s.json);
    return s;
  }
  /** The built-in named `wanted` (the default one when there is none, or its text is not here). */
  function builtinOf(wanted) {
    const s = scenarios.find((x) => x.name === wanted);
    return s?.json ? s : (scenarios.find((x) => x.name === "seed-walkthrough" && x.json) ?? scenarios.find((x) => x.json));
  }

  /** Opens the share link in a fragment (or the default scenario), replays to its
   *  step (a far one in slices, with progress and Stop) and says whether the
   *  state there is the one the link was made from. */
  let opening = 0;
  /** A link opened on the first core whose state hash the full core is to compare:
   *  {at, hash, revision}. */
  let unchecked = null;
  async function open(fragment) {
    const token = ++opening;
    frontier.stop();
    booted = false;
    const say = [...opts.problems];
    // A share link is read by the full core only (the first core has no link codec), and
    // a built-in whose text the page does not have yet comes with it.
    // A link to a built-in as it is (no interventions) runs on the first core: its text is
    // here (main.js fetched it for the first stage), and its state hash is compared when
    // the full core comes (takeFull). A link to another built-in pasted into the address
    // bar before the full core came (a hashchange) finds no text here: it waits for the
    // full core, which has every built-in's.
    const wanted = opts.scenario ?? "seed-walkthrough";
    const plainLink = sim.full ? null : builtinLink(fragment, LINKS);
    const plainText = plainLink && scenarios.find((s) => s.name === plainLink.name)?.json;
    if (!sim.full && !plainText && (plainLink || startCore(fragment, LINKS).glue === "full" || scenarios.some((s) => s.name === wanted && !s.json))) {
      await needFull();
      if (token !== opening) return;
    }
    unchecked = null;
    let link = plainText ? { scenario: plainText, at: plainLink.at } : readLink(fragment, wasm.decodeLink ?? unread);
    // The first core shows only runs whose step 0 was written at build time (sim.lend).
    const text = link?.error ? null : (link?.scenario ?? builtinOf(wanted).json);
    if (text && !sim.canLoad(text)) {
      await needFull();
      if (token !== opening) return;
      if (!plainText) link = readLink(fragment, wasm.decodeLink ?? unread);
    }
    if (link?.error || !(link?.scenario ? load(link.scenario) : builtin(say))) {
      const s = builtin(say);
      say.unshift(`This link could not be opened: ${link?.error ?? "its scenario was refused"}. Showing "${s.title || s.name}" instead.`);
    } else if (link) {
      const at = link.at;
      let outcome = "reached";
      if (at != null && at >= sim.known && !sim.done && !sim.computeUntil(at, SYNC_MS)) {
        outcome = await frontier.reach(at, FAR_MS, `Replaying this link to step ${fmt(at)}`);
        if (token !== opening) return;
      }
      const r = checkLink(link, sim, outcome);
      if (r.message) say.push(r.message);
      verifiedAt = r.step;
      if (plainText && plainLink.hash && r.step === plainLink.at) {
        // Its room kept on the status line (main.js made it), not shown, until the full core
        // has compared the state: nothing moves when it says.
        unchecked = { at: r.step, hash: plainLink.hash, revision: sim.revision };
        verified.hidden = false;
        verified.classList.add("pending");
        // The page asks for the full core once idle anyway; an embed asks for it to compare.
        idle(() => needFull(true));
      } else {
        verified.hidden = !r.ok;
        verified.classList.remove("pending");
      }
      // Short of the link's step: show the furthest reached and compute no further unasked.
      // (Reached, the look-ahead goes on past it as anywhere else.)
      if (at != null && r.step < at && r.step === sim.known - 1 && !sim.done) frontier.hold();
      player.go(r.step);
    }
    checkRange();
    if (range.revision === sim.revision) say.push(...range.said);
    notice(say.join(" "));
    if (sim.full) full(sim.linkAt(player.step));
    else plain(player.step);
    // A branch returned to (or Back/Forward to one): marked; any other run starts a new tree.
    if (sim.full) branchAt(sim.linkAt(player.step));
    booted = true;
    if (framed) framed.then(() => api.ready(player.rec, title()));
  }
  addEventListener("hashchange", () => open(location.hash));
  open(location.hash);
  if (opts.learn) openLearn(opts.learn);
}
