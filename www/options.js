// Presentation options from the query (CONTRACT §6, docs/embedding.md): embed,
// the step range (from, to, loop), controls, and the host's origin.

const SETS = { none: [], play: ["play"], compact: ["play", "step", "scrub", "text"] };
SETS.full = [...SETS.compact, "ends", "speed", "reset"];
const PARTS = { play: "#play", step: "#back,#fwd", ends: "#first,#end", scrub: ".scrub", speed: ".speed", reset: "#reset" };

export function readOptions(search) {
  const q = new URLSearchParams(search);
  const problems = [];
  const embed = q.get("embed") === "1";
  const step = (key, fallback) => {
    const v = q.get(key) ?? String(fallback);
    if (/^(\d{1,9}|Infinity)$/.test(v)) return Number(v);
    problems.push(`${key}=${v.slice(0, 20)} is not a step number`);
    return fallback;
  };
  let from = step("from", 0);
  let to = step("to", Infinity);
  if (to < from) [from, to] = [to, from];
  const controls = new Set();
  for (const w of (q.get("controls") ?? (embed ? "compact" : "full")).split(",")) {
    const set = SETS[w] ?? (SETS.full.includes(w) ? [w] : null);
    if (set) set.forEach((c) => controls.add(c));
    else problems.push(`controls=${w.slice(0, 20)} is not a control`);
  }
  let origin = null;
  try {
    origin = q.has("origin") ? new URL(q.get("origin")).origin : null;
    if (origin === "null") throw origin;
  } catch {
    origin = null;
    problems.push("origin= is not an origin");
  }
  return { embed, from, to, loop: q.get("loop") === "1", controls, origin, problems };
}

/** Hides the controls not asked for; `text` shows the step's sentence as a caption. */
export function applyControls(doc, controls) {
  for (const [name, sel] of Object.entries(PARTS)) for (const el of doc.querySelectorAll(sel)) el.classList.toggle("off", !controls.has(name));
  doc.getElementById("controls").classList.toggle("off", !Object.keys(PARTS).some((c) => controls.has(c)));
  doc.getElementById("live").classList.toggle("caption", controls.has("text"));
}
