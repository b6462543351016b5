// The settings panel: a few common fields and the whole scenario JSON, kept
// in step both ways. Every edit is checked by the core's own validator; its
// "field: message" is shown next to that field (or under the JSON). The preset
// picker says what changed at each version; each Kafka setting shows the value
// in force and where it comes from (the scenario, or the preset's default and
// why), read from the core (`configInForce`).

import { h } from "../core/dom.js";

const FIELDS = [
  [["title"], "Title", "text"],
  [["preset"], "Preset", "preset"],
  [["seed"], "Seed", "number", 1],
  [["replicas"], "Replicas", "number", 3],
  [["initial", "log_end_offset"], "Initial log end offset", "number", 0],
  [["network", "latency_ms"], "Link latency (ms)", "number", 1],
  [["stop_at_ms"], "Stop at (ms)", "number", 60000],
  [["config", "replica.fetch.wait.max.ms"], "replica.fetch.wait.max.ms", "number"],
  [["config", "replica.lag.time.max.ms"], "replica.lag.time.max.ms", "number"],
  [["config", "min.insync.replicas"], "min.insync.replicas", "number"],
  [["config", "unclean.leader.election.enable"], "unclean.leader.election.enable", "tristate"],
  [["config", "zookeeper.session.timeout.ms"], "zookeeper.session.timeout.ms", "number"],
  [["config", "broker.session.timeout.ms"], "broker.session.timeout.ms", "number"],
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

/** "30000 — Kafka 2.5+ default (KIP-537)", "1 — set by the scenario". */
export function sourceText(s) {
  // "none: a KRaft cluster has no ZooKeeper" says it already: not "none — none: …".
  if (s.value === null && /^none\b/.test(s.note)) return `${s.note}${s.used ? "" : " (not used by this preset)"}`;
  const value = s.value === null ? "none" : String(s.value);
  return `${value} — ${s.note}${s.used ? "" : " (not used by this preset)"}`;
}

export function createSettings(dialog, wasm, onRun) {
  const $ = (id) => dialog.querySelector(`#${id}`);
  const json = $("json");
  const jsonErr = $("json-err");
  const run = $("settings-run");
  const presets = wasm.presets();
  let scenario = {};

  const inputs = FIELDS.map(([path, label, kind, fallback]) => {
    const id = `f-${path.join("-").replace(/\./g, "_")}`;
    let input;
    if (kind === "preset") {
      input = h("select", { id }, presets.map((p) => h("option", { value: p.name, title: p.description }, p.name)));
    } else if (kind === "tristate") {
      input = h("select", { id }, [h("option", { value: "" }, "preset's default"), h("option", { value: "true" }, "true"), h("option", { value: "false" }, "false")]);
    } else {
      input = h("input", { id, type: kind, placeholder: fallback === undefined ? null : `default ${fallback}`, ...(kind === "number" ? { inputmode: "numeric", step: 1 } : {}) });
    }
    const err = h("output", { class: "err", for: id });
    // The preset's summary, or a setting's value in force and its source.
    const note = h("small", { class: "src", id: `${id}-src` });
    input.setAttribute("aria-describedby", `${id}-err ${id}-src`);
    err.id = `${id}-err`;
    // Per-link latencies override the default one: say so beside it.
    const links = path.join(".") === "network.latency_ms" ? h("small", { class: "links-note", id: `${id}-links` }) : null;
    if (links) input.setAttribute("aria-describedby", `${id}-err ${id}-src ${id}-links`);
    $("fields").append(h("label", { class: `field ${kind}`, "data-key": path.join(".") }, h("span", {}, label), input, note, links, err));
    input.addEventListener(kind === "preset" || kind === "tristate" ? "change" : "input", () => {
      const raw = input.value.trim();
      const value = raw === "" ? undefined : kind === "number" ? Number(raw) : kind === "tristate" ? raw === "true" : raw;
      write(scenario, path, value);
      json.value = JSON.stringify(scenario, null, 2);
      check();
    });
    return { path, kind, input, note, err };
  });

  // Every Kafka setting in force, and every preset with what changed at that version.
  const inForce = h("table", { class: "fields in-force" });
  $("fields").after(h("details", { class: "in-force-box" }, h("summary", {}, "All settings in force"), inForce));
  const list = h("dl", { class: "preset-list" }, presets.flatMap((p) => [h("dt", {}, p.name), h("dd", {}, p.description)]));
  $("fields").after(h("details", { class: "presets-about" }, h("summary", {}, "What changed at each version"), list));

  function fill() {
    const links = read(scenario, ["network", "links"]);
    const note = $("fields").querySelector(".links-note");
    if (note) {
      const end = (e) => (typeof e === "number" ? `broker ${e}` : e);
      note.textContent = Array.isArray(links) && links.length ? `except ${links.map((l) => `${end(l.from)} → ${end(l.to)}: ${l.latency_ms} ms`).join(", ")} (network.links in the JSON below)` : "";
    }
    for (const f of inputs) {
      const v = read(scenario, f.path);
      if (f.kind === "tristate") f.input.value = v === undefined ? "" : String(v);
      else f.input.value = v ?? (f.kind === "preset" ? "kafka-4.0" : "");
    }
  }

  /** The preset's summary and each setting's value in force, from the core. */
  function explain() {
    const preset = inputs.find((f) => f.kind === "preset");
    const p = presets.find((x) => x.name === preset.input.value);
    preset.note.textContent = p ? p.description : "";
    let settings;
    try {
      settings = wasm.configInForce(json.value);
    } catch {
      return; // not a valid scenario yet: the validator says why
    }
    const byKey = new Map(settings.map((s) => [s.key, s]));
    for (const f of inputs.filter((f) => f.path[0] === "config")) {
      const s = byKey.get(f.path[1]);
      if (!s) continue;
      f.note.textContent = sourceText(s);
      f.note.dataset.source = s.source;
      f.input.closest(".field").classList.toggle("unused", !s.used);
      if (f.kind === "number") f.input.placeholder = s.value === null ? "" : String(s.value);
      if (f.kind === "tristate") f.input.options[0].textContent = s.source === "scenario" ? "preset's default" : `preset's default (${s.value})`;
    }
    inForce.replaceChildren(
      h("tr", {}, h("th", {}, "setting"), h("th", {}, "in force"), h("th", {}, "from")),
      ...settings.map((s) =>
        h("tr", { class: s.used ? null : "unused", "data-source": s.source }, h("td", {}, s.key), h("td", {}, s.value === null ? "none" : String(s.value)), h("td", {}, `${s.note}${s.used ? "" : " (not used by this preset)"}`)),
      ),
    );
  }

  /** Runs the core's validator and puts its message where it belongs. */
  function check() {
    // A number box holding what is not a number ("1e", "--2") reads as empty: the
    // scenario would run with the default. Say so instead, on that box.
    const bad = inputs.find((f) => f.kind === "number" && f.input.validity.badInput);
    const err = bad ? `${bad.path.join(".")}: not a number (digits only, for example 3)` : wasm.validateScenario(json.value);
    const [field, message] = err ? splitError(err) : ["", ""];
    const owner = bad ?? (field && inputs.find((f) => f.path.join(".") === field));
    for (const f of inputs) {
      f.err.textContent = f === owner ? message : "";
      f.input.toggleAttribute("aria-invalid", f === owner);
    }
    jsonErr.textContent = err && !owner ? err : "";
    json.toggleAttribute("aria-invalid", !!err && !owner);
    run.disabled = !!err;
    if (!err) explain();
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
  // Escape (or a click that closes the dialog by accident) keeps the edits not yet run: the
  // next Settings for the same run restores them. Cancel and Run let them go.
  let base = "";
  let pristine = "";
  let draft = null;
  const draftNote = h("p", { class: "draft-note", hidden: "" }, "Your edits from before, not yet run, are back. ",
    h("button", { type: "button", id: "settings-discard" }, "Discard them"));
  $("fields").before(draftNote);
  draftNote.querySelector("button").addEventListener("click", () => {
    draft = null;
    draftNote.hidden = true;
    show(base);
    json.focus();
  });
  dialog.addEventListener("cancel", () => {
    draft = json.value !== pristine ? { base, text: json.value } : null;
  });
  run.addEventListener("click", () => {
    if (check()) {
      draft = null;
      dialog.close();
      onRun(json.value);
    }
  });
  $("settings-cancel").addEventListener("click", () => {
    draft = null;
    dialog.close();
  });
  // Enter in a field must not submit (and close) the dialog.
  $("settings-form").addEventListener("submit", (e) => e.preventDefault());

  /** The editor on `text` (the run's scenario, or a draft that may not parse yet). */
  function show(text, parsed = true) {
    try {
      scenario = JSON.parse(text);
      json.value = parsed ? JSON.stringify(scenario, null, 2) : text;
      fill();
    } catch {
      json.value = text;
    }
    check();
  }

  return function open(currentJson) {
    base = currentJson;
    pristine = JSON.stringify(JSON.parse(currentJson), null, 2);
    const restore = draft?.base === currentJson;
    if (!restore) draft = null;
    draftNote.hidden = !restore;
    show(restore ? draft.text : currentJson, !restore);
    dialog.showModal();
    // The dialog focuses the title, its caret where setting the value left it, at the
    // end: a long title showed its last words only ("…l on an idle partition: the…").
    const first = document.activeElement;
    if (first?.id === "f-title") {
      first.setSelectionRange(0, 0);
      first.scrollLeft = 0;
    }
  };
}
