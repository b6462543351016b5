// Wiring: pick a scenario and connect the player, the stage and the panels
// to the core. Nothing here computes protocol state: the page draws the step
// records the core returns.

import { Sim } from "./core/sim.js";
import { Player } from "./core/player.js";
import { Frontier, LOOKAHEAD } from "./core/frontier.js";
import { createStage } from "./render/stage.js";
import { createNarration } from "./panels/narration.js";
import { createInspector } from "./panels/inspector.js";
import { createControls, applyControls } from "./panels/controls.js";
import { createInterventions } from "./panels/interventions.js";
import { createSettings } from "./panels/settings.js";
import { createStatus } from "./panels/status.js";
import { createClients } from "./panels/clients.js";
import { h } from "./core/dom.js";
import { showError, clearError } from "./core/errors.js";
import { readLink, checkLink, createUrlSync, pageBase } from "./core/permalink.js";
import { createNotice } from "./panels/notice.js";
import { setTheme } from "./core/theme.js";

const $ = (id) => document.getElementById(id);
const fmt = (n) => n.toLocaleString("en");
/** Computing that may hold up a frame before it goes on in slices (core/frontier.js). */
const SYNC_MS = 12;
/** How long a link or an embed's seek may compute its way to a far step. */
const FAR_MS = 5000;

/** `opts`: the page's options (core/options.js). */
export function start(wasm, opts) {
  const sim = new Sim(wasm.Playground);
  const scenarios = wasm.builtinScenarios();
  let selection = null;
  let shown = null;
  let json = "";

  const stage = createStage($("stage"), (sel) => pick(sel));
  const status = createStatus($("status"), $("violations"));
  const narration = createNarration($("narration"), $("live"), sim, (n) => {
    player.pause();
    player.go(n);
  });
  const inspect = createInspector($("inspector"), $("insp-close"), (event) => intervene(event));
  const player = new Player(sim, show, (t) => {
    stage.frame(t);
    status.time(t);
  }, (on) => {
    controls.playing(on);
    if (on) frontier.playing(player.step, player.to);
  }, { reduced: opts.reducedMotion || matchMedia("(prefers-reduced-motion: reduce)").matches });
  const frontier = new Frontier(sim, (job) => controls.computing(job));
  const controls = createControls(document, player, sim, frontier, () => load(json));
  sim.listen(() => controls.update());
  const interventions = createInterventions($("intervene"), (event) => intervene(event));
  const openSettings = createSettings($("settings"), wasm, (text) => load(text));
  const notice = createNotice($("notice"));
  const renderClients = createClients($("clients"));
  const verified = h("span", { class: "verified", hidden: "" }, "link reproduced exactly ✓");
  $("status").append(verified);
  Object.assign(player, { from: opts.from, to: opts.to, loop: opts.loop });
  applyControls(document, opts.controls);
  // The postMessage API, only inside a frame; the host waits for its "ready".
  let api = { step() {}, reset() {}, ready() {} };
  const framed = parent !== window && import("./embed/api.js").then((m) => (api = m.createEmbedApi(opts.origin, player, (mode) => setTheme(mode, $("theme"), false), jump)));
  const full = (f) => ($("open-full").href = `${pageBase()}#${f}`);
  // The address bar (an embed's "open full playground" link) follows the step shown.
  const sync = createUrlSync(sim, !opts.embed, full);
  let booted = false;
  const title = () => sim.scenario.title || $("scenario").selectedOptions[0]?.textContent || "Custom scenario";
  let share = null;

  // Self-study (tours, quizzes, the views that explain) loads on first use: www/learn/.
  const learn = { wasm, sim, player, scenarios, load, watch: new Set(), get rec() { return shown; } };
  const openLearn = (query) => import("./learn/learn.js").then((m) => m.open(learn, query));

  let fresh = true;
  function show(rec) {
    shown = rec;
    stage.step(rec, sim.initialEnd, fresh);
    fresh = false;
    status.step(rec);
    narration.show(rec);
    inspect(rec, selection);
    renderClients(rec);
    interventions(rec);
    controls.update(rec.step);
    frontier.follow(rec.step, player.to);
    api.step(rec);
    for (const watch of learn.watch) watch(rec);
    if (booted) sync(rec.step);
  }

  function pick(sel) {
    selection = sel;
    stage.select(sel);
    if (shown) inspect(shown, sel);
  }
  $("insp-close").addEventListener("click", () => pick(null));

  function intervene(event) {
    player.pause();
    frontier.reset();
    try {
      player.showRecord(sim.apply(player.step, event));
      clearError();
    } catch (e) {
      if (e.name === "CoreFailure") throw e;
      showError(`That intervention was refused: ${e.message}`);
    }
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
    narration.reset();
    fresh = true;
    status.scenario(sim.scenario);
    // A built-in opened from a link arrives re-serialized: compare canonical forms.
    const canonical = (t) => { try { return wasm.encodeLink(t); } catch { return null; } };
    const meta = scenarios.find((s) => s.json === text) ?? scenarios.find((s) => canonical(s.json) === canonical(text));
    $("scenario").value = meta ? meta.name : "";
    // The description is the lesson; on a phone it folds away above the stage.
    const description = sim.scenario.description || meta?.description;
    const name = sim.scenario.title || meta?.title || "Custom scenario";
    const heading = h("b", {}, name);
    $("about").replaceChildren(description ? h("details", { open: innerWidth > 640 && !opts.embed ? "" : null }, h("summary", {}, heading), description) : heading);
    document.title = `${name} · hwscope`;
    verified.hidden = true;
    notice("");
    api.reset();
    player.showRecord(first);
    if (player.from) player.go(player.from);
    if (!performance.getEntriesByName("hwscope-first-frame").length) performance.mark("hwscope-first-frame");
    // Most runs are short: learn their whole length now; the look-ahead goes on
    // in idle time, up to LOOKAHEAD steps past the one shown (core/frontier.js).
    sim.computeUntil(player.from + LOOKAHEAD, 8);
    controls.update();
    return true;
  }

  const picker = $("scenario");
  picker.replaceChildren(...scenarios.map((s) => h("option", { value: s.name }, s.title || s.name)), h("option", { value: "", disabled: "" }, "Custom (from Settings)"));
  picker.addEventListener("change", () => {
    const s = scenarios.find((x) => x.name === picker.value);
    if (s) load(s.json);
  });
  $("settings-open").addEventListener("click", () => openSettings(json));
  $("share-open").addEventListener("click", async () => {
    share ??= (await import("./panels/share.js")).createShare($("share"), () => ({ fragment: sim.linkAt(player.step), title: title(), step: player.step }));
    share();
  });
  $("learn-open").addEventListener("click", () => openLearn());
  // Explore (www/explore/): a search in a Web Worker, loaded on first use.
  learn.explore = () => import("./explore/panel.js").then((m) => m.open({ wasm, sim, scenarioText: () => json, openLink: (f) => (location.hash === `#${f}` ? open(location.hash) : (location.hash = f)) }));
  $("explore-open").addEventListener("click", () => learn.explore());
  for (const id of ["scenario", "settings-open", "share-open", "learn-open", "explore-open"]) $(id).disabled = false;

  /** The scenario named by ?scenario=, or the default one. */
  function builtin(say) {
    const wanted = opts.scenario;
    const s = scenarios.find((x) => x.name === wanted) ?? scenarios.find((x) => x.name === "seed-walkthrough") ?? scenarios[0];
    load(s.json);
    if (wanted && s.name !== wanted) say.push(`There is no built-in scenario "${wanted}"; showing "${s.name}".`);
    return s;
  }

  /** Opens the share link in a fragment (or the default scenario), replays to its
   *  step (a far one in slices, with progress and Stop) and says whether the
   *  state there is the one the link was made from. */
  let opening = 0;
  async function open(fragment) {
    const token = ++opening;
    frontier.stop();
    booted = false;
    const say = opts.problems.map((p) => `Ignored ${p}.`);
    const link = readLink(fragment, wasm.decodeLink);
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
      verified.hidden = !r.ok;
      // Short of the link's step: show the furthest reached and compute no further unasked.
      if (r.step === sim.known - 1 && !sim.done) frontier.hold();
      player.go(r.step);
    }
    notice(say.join(" "));
    full(sim.linkAt(player.step));
    booted = true;
    if (framed) framed.then(() => api.ready(player.rec, title()));
  }
  addEventListener("hashchange", () => open(location.hash));
  open(location.hash);
  if (opts.learn) openLearn(opts.learn);
}
