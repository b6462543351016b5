// Every option the page reads from its query (docs/format.md, docs/embedding.md),
// read once at boot: embed, fit, theme, motion, the step range (from, to, loop),
// controls, the host's origin, the built-in scenario, and Learn's tour/view.
// Values that make no sense are named in `problems` (sentences for the page's notice) and
// left at their default; a range given backwards is turned round, and said.

const SETS = { none: [], play: ["play"], compact: ["play", "step", "scrub", "text"] };
SETS.full = [...SETS.compact, "ends", "speed", "reset", "jumps"];

export function readOptions(search) {
  const q = new URLSearchParams(search);
  const problems = [];
  const ignored = (what) => problems.push(`Ignored ${what}.`);
  const embed = q.get("embed") === "1";
  const step = (key, fallback) => {
    const v = q.get(key) ?? String(fallback);
    if (/^(\d{1,9}|Infinity)$/.test(v)) return Number(v);
    ignored(`${key}=${v.slice(0, 20)} is not a step number`);
    return fallback;
  };
  let from = step("from", 0);
  let to = step("to", Infinity);
  if (to < from) {
    problems.push(`from=${from} is after to=${to}: showing steps ${to} to ${from}.`);
    [from, to] = [to, from];
  }
  const controls = new Set();
  for (const w of (q.get("controls") ?? (embed ? "compact" : "full")).split(",")) {
    const set = SETS[w] ?? (SETS.full.includes(w) ? [w] : null);
    if (set) set.forEach((c) => controls.add(c));
    else ignored(`controls=${w.slice(0, 20)} is not a control`);
  }
  const theme = q.get("theme");
  if (theme !== null && !["light", "dark", "auto"].includes(theme)) ignored(`theme=${theme.slice(0, 20)} is not light, dark or auto`);
  if (q.has("motion") && q.get("motion") !== "reduce") ignored(`motion=${q.get("motion").slice(0, 20)} is not reduce`);
  let origin = null;
  try {
    origin = q.has("origin") ? new URL(q.get("origin")).origin : null;
    if (origin === "null") throw origin;
  } catch {
    origin = null;
    ignored("origin= is not an origin");
  }
  return {
    embed,
    /** ?fit=1 (the Share dialog's iframe snippet): fill the frame, whatever height it was given. */
    fit: q.get("fit") === "1",
    /** light, dark, auto, or null (the saved choice; an embed follows its host). */
    theme: q.get("theme"),
    reducedMotion: q.get("motion") === "reduce",
    from,
    to,
    loop: q.get("loop") === "1",
    controls,
    origin,
    /** A built-in scenario's name, or null. */
    scenario: q.get("scenario"),
    /** The query when it asks Learn for a tour or views, else null. */
    learn: q.has("tour") || q.has("view") ? q : null,
    problems,
  };
}
