// A tour beat that asks the learner to predict whether a configuration can
// lose data, then lets the explorer search every timing to reveal it
// (tour-player.js appends it to a beat with an `explore` definition). The
// answer is the search's own verdict, never written down in the tour.
//
// def: {ask, scenario?: JSON text, runs: [{preset, label}], options: {...}}

import { h } from "../core/dom.js";
import { search, progressLine, warm } from "./client.js";
import { loadCss } from "./panel.js";

const CHOICES = [
  { key: "counterexample", label: "Yes: some timing of crashes and restarts loses it" },
  { key: "none-within-bounds", label: "No: the search will find nothing within these bounds" },
];

let uid = 0;

/** The beat's widget: predict, search, reveal; `scenarioText` is the part's scenario. */
export function exploreBeat(def, scenarioText, openLink) {
  loadCss();
  // The explorer loads while the learner reads the question.
  warm();
  const name = `ex-beat-${++uid}`;
  const box = h("div", { class: "ex-beat", "data-state": "ask" });
  const msg = h("p", { class: "quiz-msg", role: "status" });
  const runs = def.runs;
  const form = h("form", { class: "quiz" },
    h("fieldset", {},
      h("legend", {}, h("b", {}, "Predict: "), def.ask),
      CHOICES.map((ch) => h("label", { class: "choice" }, h("input", { type: "radio", name, value: ch.key }), " ", ch.label))),
    h("div", { class: "row" },
      h("button", { type: "submit", class: "primary" }, "Search every timing"),
      h("button", { type: "button", class: "link", onclick: () => reveal(null) }, "Just search")),
    msg);
  const out = h("div", { class: "ex-beat-out" });
  box.append(form, out);

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const picked = form.querySelector("input:checked");
    if (!picked) {
      msg.textContent = "Pick an answer first (or “Just search”).";
      return;
    }
    reveal(picked.value);
  });

  /** Runs the beat's first search, then says whether the prediction was right. */
  function reveal(pick) {
    form.querySelector("button[type=submit]").disabled = true;
    box.dataset.state = "searching";
    runOne(runs[0], (result) => {
      const right = pick === result.verdict;
      box.dataset.state = "revealed";
      box.dataset.verdict = result.verdict;
      box.dataset.right = pick === null ? "" : String(right);
      const said = result.verdict === "counterexample" ? "some timing loses it." : "nothing within these bounds — which is not a proof.";
      out.prepend(h("p", { class: "ex-beat-answer" }, h("b", {}, pick === null ? "The search says: " : right ? "✓ Right: " : "✗ Not quite: "), said));
      for (const r of runs.slice(1)) {
        const more = h("button", { type: "button", onclick: () => {
          more.disabled = true;
          runOne(r);
        } }, r.label);
        out.append(h("p", {}, more));
      }
      // The verdict was under the window's edge at 1280 × 800 (only "✓ Right" showed).
      out.scrollIntoView({ block: "nearest" });
    });
  }

  /** One search with its progress, then its verdict and, for a counterexample, how to open it. */
  function runOne(run, done) {
    const bar = h("progress", { max: def.options.max_depth ?? 28, value: 0 });
    const line = h("small", { class: "muted" }, "Loading the explorer…");
    const row = h("div", { class: "row" }, h("span", {}, `${run.preset}: `), bar);
    const slot = h("div", { class: "ex-beat-run", "data-preset": run.preset }, row, line);
    out.append(slot);
    const obj = JSON.parse(scenarioText);
    obj.preset = run.preset;
    search(JSON.stringify(obj), def.options, (m) => {
      if (m.type === "progress") {
        bar.value = m.progress.depth;
        line.textContent = progressLine(m.progress, m.ms, m.wasmBytes, bar.max);
        return;
      }
      if (m.type === "bounds") {
        line.textContent = "Starting…";
        return;
      }
      if (m.type !== "done") {
        line.textContent = m.type === "error" ? `The search could not run: ${m.message}` : "Stopped at the memory bound before the end.";
        return;
      }
      const r = m.result;
      slot.dataset.verdict = r.verdict;
      bar.value = bar.max;
      line.replaceChildren(r.sentence, " ", h("span", { class: "muted" }, `(${r.bounds}; ${(m.ms / 1000).toFixed(2)} s)`));
      if (r.verdict === "counterexample") {
        const steps = r.why.filter((w) => w.injected).map((w) => `step ${w.step}`).reverse().join(", ");
        slot.append(h("p", {}, `The search injected its faults at ${steps}. `,
          h("button", { type: "button", onclick: () => openLink(r.link) }, `Open it as a run (step ${r.step})`)));
      }
      done?.(r);
    });
  }

  return box;
}
