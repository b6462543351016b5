// Compare: two runs of the shown scenario side by side that differ in one
// setting (the preset, the producers' acks, or replica.fetch.wait.max.ms),
// under one scrubber over simulated time. For presets, both sides pick theirs:
// any two presets on the same scenario (a kafka-4.1 scenario, such as the elr
// built-in, opens as kafka-4.0 against kafka-4.1). Each side shows its last step at or
// before that time, its messages placed at that very time, its followers' lag
// and its chart. Each run is its own Playground; the page's run is untouched.

import { h } from "../core/dom.js";
import { createStage } from "../render/stage.js";
import { isrText } from "../render/isr.js";
import { Trace } from "./trace.js";
import { createChart } from "./chart.js";
import { createGauges } from "./gauges.js";

/** Steps read per run: enough for every built-in but steady-load. */
const LIMIT = 1500;

export const SETTINGS = {
  preset: {
    label: "preset",
    get: (s) => s.preset ?? "kafka-4.0",
    set: (s, v) => (s.preset = v),
  },
  acks: {
    label: "acks",
    get: (s) => String(s.producers?.[0]?.acks ?? "all"),
    set: (s, v) => s.producers?.forEach((p) => (p.acks = v === "all" ? "all" : Number(v))),
  },
  wait: {
    label: "replica.fetch.wait.max.ms",
    get: (s) => String(s.config?.["replica.fetch.wait.max.ms"] ?? 500),
    set: (s, v) => ((s.config ??= {})["replica.fetch.wait.max.ms"] = Number(v)),
  },
};

function side(name) {
  const head = h("h4", {}, name);
  const status = h("p", { class: "cmp-status" });
  const stageBox = h("div", { class: "cmp-stagebox" });
  const text = h("p", { class: "cmp-text" });
  const gauges = h("div");
  const chartBox = h("div", { class: "cmp-chart" });
  const box = h("section", { class: "cmp-side", "data-side": name }, head, status, stageBox, text, gauges, chartBox);
  return { name, head, status, stageBox, text, gauges, chartBox, box };
}

export function createCompare(box, hub, preset = {}) {
  const { wasm } = hub.api;
  const base = structuredClone(hub.api.sim.settings);
  const which = h("select", { "aria-label": "Setting that differs" }, Object.entries(SETTINGS).map(([k, s]) => h("option", { value: k }, s.label)));
  const valueBox = h("span", { class: "cmp-value" });
  // A's preset, when the presets differ.
  const aBox = h("span", { class: "cmp-a" });
  let aValue = null;
  const scrub = h("input", { type: "range", min: 0, max: 0, step: 1, value: 0, "aria-label": "Simulated time, both runs", class: "cmp-scrub" });
  const out = h("output", { class: "cmp-t" });
  const prev = h("button", { type: "button", "aria-label": "Previous event in either run", title: "Previous event in either run" }, "◀");
  const next = h("button", { type: "button", "aria-label": "Next event in either run", title: "Next event in either run" }, "▶");
  const note = h("p", { class: "muted cmp-note" });
  const sides = [side("A"), side("B")];
  box.append(
    h("div", { class: "row", hidden: preset.pair ? "" : null }, h("label", {}, "B differs in ", which), valueBox, aBox),
    h("div", { class: "cmp-scrubrow" }, prev, scrub, next, out),
    note,
    h("div", { class: "cmp-sides" }, sides.map((s) => s.box)));

  let value = null;
  let runs = [];
  let t = 0;

  function valueControl() {
    const s = SETTINGS[which.value];
    const current = s.get(base);
    let input;
    aBox.replaceChildren();
    aValue = null;
    if (which.value === "preset") {
      const options = () => wasm.presets().map((p) => h("option", { value: p.name, title: p.description }, p.name));
      input = h("select", { "aria-label": "B's preset" }, options());
      aValue = h("select", { "aria-label": "A's preset" }, options());
      // The version before ELR against the one with it; else today's behaviour
      // against the loaded one, or the textbook against today's.
      const [a, b] = current === "kafka-4.1" ? ["kafka-4.0", "kafka-4.1"] : [current === "latest" ? "kafka-4.0" : current, current === "kafka-4.0" || current === "latest" ? "textbook" : "kafka-4.0"];
      aValue.value = a;
      input.value = b;
      aValue.addEventListener("change", () => run(value.value));
      aBox.replaceChildren(h("label", {}, "; A runs ", aValue));
    } else if (which.value === "acks") {
      input = h("select", { "aria-label": "B's acks" }, ["all", "1", "0"].map((v) => h("option", { value: v }, v)));
      input.value = current === "all" ? "1" : "all";
    } else {
      input = h("input", { type: "number", min: 0, max: 60000, step: 50, "aria-label": "B's replica.fetch.wait.max.ms", value: Number(current) > 100 ? 100 : 500 });
    }
    input.addEventListener("change", () => run(input.value));
    valueBox.replaceChildren(input);
    value = input;
  }

  function run(v) {
    for (const r of runs) r.trace.free();
    const s = SETTINGS[which.value];
    const a = structuredClone(base);
    if (aValue) s.set(a, aValue.value);
    const b = structuredClone(base);
    s.set(b, v);
    // Two given runs (two branches of the page's run), else the base with one setting changed.
    const jsons = preset.pair ? preset.pair.map((p) => p.json) : [JSON.stringify(a), JSON.stringify(b)];
    const err = wasm.validateScenario(jsons[1]);
    if (err) {
      note.textContent = `B cannot run: ${err}`;
      return;
    }
    runs = jsons.map((json, i) => {
      const trace = Trace.of(wasm, json, { tail: 16 }).upTo(LIMIT - 1);
      const sd = sides[i];
      sd.head.textContent = preset.pair ? `${sd.name} · ${preset.pair[i].label}` : `${sd.name} · ${s.label} ${s.get(JSON.parse(json))}`;
      // A new SVG per run: the stage keeps its own listeners on it.
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      svg.setAttribute("class", "stage cmp-stage");
      svg.setAttribute("aria-label", `Run ${sd.name}: brokers and messages`);
      sd.stageBox.replaceChildren(svg);
      const stage = createStage(svg, () => {});
      sd.gauges.replaceChildren();
      const gauges = createGauges(sd.gauges);
      sd.chartBox.replaceChildren();
      const chart = createChart(sd.chartBox, { height: 150, title: `Run ${sd.name}: HW and consumer positions over time` });
      chart.draw(trace, trace.first, trace.last);
      return { trace, stage, gauges, chart, side: sd, fresh: true, shown: -1 };
    });
    const end = Math.max(...runs.map((r) => r.trace.row(r.trace.last).t));
    scrub.max = end;
    const cut = runs.some((r) => !r.trace.done);
    const what = aValue ? `A runs it under ${aValue.value}, B under ${v}` : `B changes ${s.label} only`;
    note.textContent = preset.pair
      ? `${preset.note ?? "Two branches of the page's run, each with its own interventions."}${cut ? ` Long run: the first ${LIMIT} steps of each.` : ""}`
      : `A is the scenario as loaded (without your interventions); ${what}.${cut ? ` Long run: the first ${LIMIT} steps of each.` : ""}`;
    box.dataset.setting = which.value;
    box.dataset.value = v;
    go(Math.min(t || hub.rec().time_ms, end));
  }

  /** Shows both runs at simulated time `ms`. */
  function go(ms) {
    t = Math.max(0, Math.min(Number(scrub.max), Math.round(ms)));
    scrub.value = t;
    out.textContent = `t = ${t} ms`;
    box.dataset.time = t;
    for (const r of runs) {
      const n = r.trace.atTime(t);
      const rec = r.trace.record(n);
      if (n !== r.shown) {
        r.stage.step(rec, r.trace.scenario.initial?.log_end_offset ?? 0, r.fresh);
        r.fresh = false;
        r.shown = n;
        const p = rec.partition;
        const elr = p.elr ? ` · ELR {${p.elr.join(", ")}}` : "";
        r.side.status.textContent = `step ${n} · ${rec.time_ms} ms · leader ${p.leader ?? "none"} · ${isrText(rec)}${elr}`;
        r.side.text.textContent = rec.text;
        r.gauges(r.trace, rec);
      }
      r.stage.frame(t);
      r.chart.cursor(t);
      r.side.box.dataset.step = n;
      r.side.box.dataset.time = rec.time_ms;
    }
  }

  function hop(dir) {
    const times = runs.map((r) => {
      const n = r.trace.atTime(t);
      const row = dir > 0 ? r.trace.row(n + 1) : r.trace.row(r.trace.row(n).t < t ? n : n - 1);
      return row ? row.t : null;
    }).filter((v) => v !== null);
    if (times.length) go(dir > 0 ? Math.min(...times) : Math.max(...times));
  }

  scrub.addEventListener("input", () => go(Number(scrub.value)));
  prev.addEventListener("click", () => hop(-1));
  next.addEventListener("click", () => hop(1));
  which.addEventListener("change", () => {
    valueControl();
    run(value.value);
  });

  which.value = preset.setting && SETTINGS[preset.setting] ? preset.setting : "preset";
  valueControl();
  if (preset.value !== undefined) value.value = String(preset.value);
  if (preset.a !== undefined && aValue) aValue.value = String(preset.a);
  run(value.value);

  return {
    step() {},
    reset() {},
    close() {
      for (const r of runs) r.trace.free();
      runs = [];
    },
    go,
  };
}
