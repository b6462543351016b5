// The settings panel: a few common fields and the whole scenario JSON, kept
// in step both ways. Every edit is checked by the core's own validator; its
// "field: message" is shown next to that field (or under the JSON).

import { h } from "../core/dom.js";

const FIELDS = [
  [["title"], "Title", "text"],
  [["preset"], "Preset", "preset"],
  [["seed"], "Seed", "number", 1],
  [["replicas"], "Replicas", "number", 3],
  [["initial", "log_end_offset"], "Initial log end offset", "number", 0],
  [["network", "latency_ms"], "Link latency (ms)", "number", 1],
  [["stop_at_ms"], "Stop at (ms)", "number", 60000],
  [["config", "replica.fetch.wait.max.ms"], "replica.fetch.wait.max.ms", "number", 500],
  [["config", "replica.lag.time.max.ms"], "replica.lag.time.max.ms", "number", 30000],
  [["config", "min.insync.replicas"], "min.insync.replicas", "number", 1],
  [["config", "unclean.leader.election.enable"], "unclean.leader.election.enable", "checkbox"],
];

const read = (obj, path) => path.reduce((o, k) => (o == null ? undefined : o[k]), obj);

function write(obj, path, value) {
  let o = obj;
  for (const k of path.slice(0, -1)) o = o[k] && typeof o[k] === "object" ? o[k] : (o[k] = {});
  const key = path[path.length - 1];
  if (value === undefined) delete o[key];
  else o[key] = value;
}

/** "field: message" → [field, message]; errors about the whole text have no field. */
export function splitError(err) {
  const i = err.indexOf(": ");
  const field = i > 0 ? err.slice(0, i) : "";
  return /^[\w.[\]-]+$/.test(field) ? [field, err.slice(i + 2)] : ["", err];
}

export function createSettings(dialog, wasm, onRun) {
  const $ = (id) => dialog.querySelector(`#${id}`);
  const json = $("json");
  const jsonErr = $("json-err");
  const run = $("settings-run");
  const presetNames = wasm.presets().map((p) => p.name);
  let scenario = {};

  const inputs = FIELDS.map(([path, label, kind, fallback]) => {
    const id = `f-${path.join("-").replace(/\./g, "_")}`;
    const input = kind === "preset"
      ? h("select", { id }, presetNames.map((n) => h("option", { value: n }, n)))
      : h("input", { id, type: kind, placeholder: fallback === undefined ? null : `default ${fallback}`, ...(kind === "number" ? { inputmode: "numeric", step: 1 } : {}) });
    const err = h("output", { class: "err", for: id });
    input.setAttribute("aria-describedby", `${id}-err`);
    err.id = `${id}-err`;
    // Per-link latencies override the default one: say so beside it.
    const note = path.join(".") === "network.latency_ms" ? h("small", { class: "links-note", id: `${id}-links` }) : null;
    if (note) input.setAttribute("aria-describedby", `${id}-err ${id}-links`);
    $("fields").append(h("label", { class: `field ${kind}` }, h("span", {}, label), input, note, err));
    input.addEventListener("input", () => {
      const value = kind === "checkbox" ? input.checked : input.value.trim() === "" ? undefined : kind === "number" ? Number(input.value) : input.value;
      write(scenario, path, value);
      json.value = JSON.stringify(scenario, null, 2);
      check();
    });
    return { path, kind, input, err };
  });

  function fill() {
    const links = read(scenario, ["network", "links"]);
    const note = $("fields").querySelector(".links-note");
    if (note) {
      const end = (e) => (typeof e === "number" ? `broker ${e}` : e);
      note.textContent = Array.isArray(links) && links.length ? `except ${links.map((l) => `${end(l.from)} → ${end(l.to)}: ${l.latency_ms} ms`).join(", ")} (network.links in the JSON below)` : "";
    }
    for (const f of inputs) {
      const v = read(scenario, f.path);
      if (f.kind === "checkbox") f.input.checked = !!v;
      else f.input.value = v ?? (f.kind === "preset" ? "kafka-4.0" : "");
    }
  }

  /** Runs the core's validator and puts its message where it belongs. */
  function check() {
    const err = wasm.validateScenario(json.value);
    const [field, message] = err ? splitError(err) : ["", ""];
    const owner = field && inputs.find((f) => f.path.join(".") === field);
    for (const f of inputs) {
      f.err.textContent = f === owner ? message : "";
      f.input.toggleAttribute("aria-invalid", f === owner);
    }
    jsonErr.textContent = err && !owner ? err : "";
    json.toggleAttribute("aria-invalid", !!err && !owner);
    run.disabled = !!err;
    return !err;
  }

  json.addEventListener("input", () => {
    try {
      scenario = JSON.parse(json.value);
      fill();
    } catch {
      /* not JSON yet: the validator says where */
    }
    check();
  });
  run.addEventListener("click", () => {
    if (check()) {
      dialog.close();
      onRun(json.value);
    }
  });
  $("settings-cancel").addEventListener("click", () => dialog.close());
  // Enter in a field must not submit (and close) the dialog.
  $("settings-form").addEventListener("submit", (e) => e.preventDefault());

  return function open(currentJson) {
    scenario = JSON.parse(currentJson);
    json.value = JSON.stringify(scenario, null, 2);
    fill();
    check();
    dialog.showModal();
  };
}
