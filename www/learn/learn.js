// Self-study, loaded on first use (the Learn button, or ?tour= / ?view= in
// the address): guided tours and the views that explain — why the HW moved,
// each follower's lag, the chart over time, the sequence diagram, and two
// runs compared. Each view's module is imported when it is first opened.
//
//   ?tour=hw-lag&beat=3&level=middle   a tour at a beat (composable with embed=1)
//   ?view=chart,diagram,why,gauges,compare
//
// app.js hands over {wasm, sim, player, scenarios, load, watch, rec}; nothing
// here computes protocol state: every figure is read from step records.

import { h } from "../core/dom.js";
import { TOURS, LEVELS } from "./tours/index.js";
import { Trace } from "./trace.js";
import { exportButtons } from "./export.js";

const VIEWS = {
  gauges: { title: "Follower lag", module: () => import("./gauges.js") },
  why: { title: "Why did the HW move?", module: () => import("./why.js") },
  chart: { title: "HW and positions over time", module: () => import("./chart.js"), export: "hwscope-chart" },
  diagram: { title: "Sequence diagram", module: () => import("./spacetime.js"), export: "hwscope-sequence" },
  compare: { title: "Compare two runs", module: () => import("./compare.js") },
};

let hub = null;

/** Esc with the focus inside `el` does what its ✕ does, unless something in it took the
 *  key first (or a dialog is open). A tour keeps Esc: closing it drops the answers given. */
function escCloses(el, close) {
  el.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || e.defaultPrevented || document.querySelector("dialog[open]")) return;
    e.preventDefault();
    close();
  });
}

export async function open(api, params = new URLSearchParams()) {
  if (!hub) hub = await createHub(api);
  hub.panel.hidden = false;
  // Opened from its button: bring it into view (on a phone it sits under the interventions);
  // app.js hands it the focus (core/ondemand.js whenReady).
  if (!params.has("tour") && !params.has("view")) hub.panel.scrollIntoView({ block: "nearest" });
  // A tour, view or level the address names that does not exist is said in the panel
  // (the rest of the address still applies), not dropped without a word.
  const problems = [];
  const tour = params.get("tour");
  const level = params.get("level");
  if (level && !LEVELS.includes(level)) problems.push(`level=${level.slice(0, 30)} is not a level (${LEVELS.join(", ")}).`);
  if (tour && !(await hub.startTour(tour, { beat: params.get("beat"), level }))) problems.push(`There is no tour "${tour.slice(0, 40)}": the tours are listed here.`);
  for (const v of (params.get("view") ?? "").split(",").map((s) => s.trim()).filter(Boolean)) {
    if (!VIEWS[v]) problems.push(`There is no view "${v.slice(0, 30)}": the views are ${Object.keys(VIEWS).join(", ")}.`);
    else await hub.openView(v);
  }
  hub.problem.textContent = problems.join(" ");
  return hub;
}

function loadCss() {
  if (document.querySelector("link[data-learn]")) return Promise.resolve();
  const link = h("link", { rel: "stylesheet", href: new URL("./learn.css", import.meta.url).href, "data-learn": "" });
  const done = new Promise((resolve) => {
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve);
  });
  document.head.append(link);
  return done;
}

async function createHub(api) {
  await loadCss();
  const embed = document.documentElement.classList.contains("embed");

  // Interventions and new scenarios start a new run (sim.revision): rows read
  // from an older one are stale.
  let trace = null;
  /** The page's run, read on the page's own Sim (interventions included). */
  function mainTrace() {
    if (trace?.revision !== api.sim.revision) trace = new Trace(api.sim);
    return trace;
  }

  const views = new Map();
  const toggles = new Map();
  let tour = null;

  const tourList = h("ul", { class: "tour-list" });
  // The list folds away while a tour runs; its summary names the tour.
  const toursSummary = h("summary", {}, "Guided tours");
  const tours = h("details", { class: "tours", open: "" }, toursSummary, tourList);
  const viewBar = h("div", { class: "view-bar", role: "group", "aria-label": "Views" });
  // Under the stage's controls, where no h2 comes before (Intervene's moved beside the
  // narration): the views' h3s come under this one, said only while a view is open.
  const viewsBox = h("div", { class: "views" }, h("h2", { class: "sr-only views-h" }, "Views that explain"));
  /** What the address asked for and Learn does not have (open: a tour or view unknown). */
  const problem = h("p", { class: "learn-problem", role: "status" });
  const panel = h("section", { class: "learn panel", id: "learn", "aria-labelledby": "learn-h", tabindex: -1 },
    h("div", { class: "learn-head" }, h("h2", { id: "learn-h" }, "Learn"),
      h("button", { type: "button", class: "link", "aria-label": "Close Learn", onclick: () => {
        panel.hidden = true;
        // The button pressed is gone with the panel: the keyboard goes back to Learn.
        document.getElementById("learn-open")?.focus();
      } }, "✕")),
    problem,
    tours,
    h("h3", {}, "Views that explain"), viewBar);
  // Beside the narration (under the controls on a phone); the views under the stage's
  // controls, so opening them never pushes the controls away (index.html's slots).
  document.getElementById("learn-slot").append(panel);
  escCloses(panel, () => panel.querySelector(".learn-head button").click());
  document.getElementById("views-slot").append(viewsBox);
  if (embed) panel.classList.add("in-embed");

  function listTours() {
    let progress = {};
    try {
      progress = JSON.parse(localStorage.getItem("hwscope-learn"))?.tours ?? {};
    } catch {
      /* storage blocked */
    }
    toursSummary.textContent = tour ? `Guided tours (now: ${tour.tour.title})` : "Guided tours";
    tourList.replaceChildren(...TOURS.map((t) => h("li", {},
      h("button", { type: "button", class: `tour-pick${tour?.tour === t ? " on" : ""}`, "data-tour": t.id, onclick: () => self.startTour(t.id, { picked: true }) }, t.title),
      progress[t.id]?.done ? h("span", { class: "done", title: "You reached the end of this tour" }, " ✓") : null)));
  }

  for (const [name, v] of Object.entries(VIEWS)) {
    const b = h("button", { type: "button", "aria-pressed": "false", "data-view": name, onclick: () => (views.has(name) ? closeView(name) : self.openView(name)) }, v.title);
    toggles.set(name, b);
    viewBar.append(b);
  }

  const go = (n) => {
    api.player.pause();
    api.player.go(n);
  };

  function closeView(name) {
    const v = views.get(name);
    if (!v) return;
    const had = v.box.contains(document.activeElement);
    v.close?.();
    v.box.remove();
    views.delete(name);
    toggles.get(name).setAttribute("aria-pressed", "false");
    if (had) refocus(toggles.get(name));
  }

  /** Focus was in what just closed (its ✕, Esc): to `el` if shown, else to Learn. */
  function refocus(el) {
    (el && !panel.hidden ? el : document.getElementById("learn-open"))?.focus({ preventScroll: !panel.hidden });
  }

  const self = {
    problem,
    api,
    panel,
    go,
    revision: () => api.sim.revision,
    trace: mainTrace,
    rec: () => api.rec,
    /** Reads the page's run around the shown step. */
    coverShown(ahead = 50) {
      const n = api.rec.step;
      return mainTrace().cover(Math.max(0, n - 600), n + ahead);
    },

    async startTour(id, opts = {}) {
      if (!TOURS.some((t) => t.id === id)) {
        panel.hidden = false;
        return null;
      }
      const { createTourPlayer } = await import("./tour-player.js");
      // Picked from the list: the list is redrawn and folds away, which drops the focus
      // on the button pressed; the keyboard goes on at the beat's title instead.
      tour?.close();
      tour = createTourPlayer(self, id, { level: LEVELS.includes(opts.level) ? opts.level : undefined, beat: opts.beat });
      document.getElementById("tour-slot").append(tour.card);
      tours.open = false;
      listTours();
      tour.start();
      if (opts.picked) tour.card.querySelector(".beat-title")?.focus({ preventScroll: true });
      if (!embed && !views.size) {
        await self.openView("gauges");
        await self.openView("diagram");
      }
      return tour;
    },
    closeTour() {
      const had = tour?.card.contains(document.activeElement);
      const id = tour?.tour.id;
      tour?.close();
      tour = null;
      listTours();
      // The list folded away while the tour ran: it opens again, at the tour just closed.
      if (had && !panel.hidden) tours.open = true;
      if (had) refocus(tourList.querySelector(`button[data-tour="${id}"]`));
    },
    get tour() {
      return tour;
    },

    /** Opens a view (or returns it when open); `opts` goes to compare. */
    async openView(name, opts = {}) {
      const spec = VIEWS[name];
      if (!spec) return null;
      if (views.has(name)) {
        if (name === "compare" && (opts.setting || opts.pair)) closeView(name);
        else return views.get(name);
      }
      const mod = await spec.module();
      const body = h("div", { class: "view-body" });
      const head = h("div", { class: "view-head" }, h("h3", {}, spec.title));
      const box = h("section", { class: `view panel view-${name}`, "data-view": name, "aria-label": spec.title }, head, body);
      viewsBox.append(box);
      let v;
      if (name === "gauges") {
        const render = mod.createGauges(body);
        v = { step: (rec) => render(self.coverShown(0), rec) };
      } else if (name === "why") {
        v = mod.createWhy(body, self);
      } else if (name === "chart") {
        v = chartView(mod, body);
      } else if (name === "diagram") {
        const st = mod.createSpacetime(body, { onPick: go });
        v = { step: (rec) => st.step(self.coverShown(mod.WINDOW), rec.step), svg: () => st.svg };
      } else {
        v = mod.createCompare(body, self, opts);
      }
      if (spec.export) head.append(exportButtons(h, v.svg, spec.export, () => `${spec.title} · ${api.sim.scenario?.title ?? ""} · step ${api.rec.step}`));
      head.append(h("button", { type: "button", class: "link", "aria-label": `Close ${spec.title}`, onclick: () => closeView(name) }, "✕"));
      escCloses(box, () => closeView(name));
      v.box = box;
      views.set(name, v);
      toggles.get(name).setAttribute("aria-pressed", "true");
      v.step?.(api.rec);
      return v;
    },
    views,
  };

  function chartView(mod, body) {
    let range = null;
    let rev = -1;
    const chart = mod.createChart(body, {
      onPick: async (step, broker) => (await self.openView("why")).explain(step, broker),
    });
    function step(rec) {
      const n = rec.step;
      const tr = self.coverShown(600);
      const whole = tr.done && tr.first === 0;
      // Redraw when the run changed or the shown step nears an edge the run goes beyond.
      const nearStart = n < range?.[0] + 100 && range[0] > 0;
      const nearEnd = n > range?.[1] - 100 && !(tr.done && range[1] === tr.last);
      const stale = !range || rev !== api.sim.revision || n < range[0] || n > range[1] || (!whole && (nearStart || nearEnd));
      if (stale) {
        range = whole ? [0, tr.last] : [Math.max(tr.first, n - 600), Math.min(tr.last, n + 600)];
        rev = api.sim.revision;
        chart.draw(tr, range[0], range[1]);
      }
      chart.cursor(rec.time_ms);
    }
    return { step, svg: () => chart.svg };
  }

  // Every step the page shows reaches the tour and the open views.
  api.watch.add((rec) => {
    tour?.onStep(rec);
    for (const [name, v] of views) {
      if (name === "why" && v.rev !== api.sim.revision) {
        v.rev = api.sim.revision;
        v.reset?.();
      }
      v.step?.(rec);
    }
  });

  listTours();
  hub = self;
  return self;
}
