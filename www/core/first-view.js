// What the first stage shows, read from the address before the core has loaded:
// the built-in and the step the live page will show there (app.js: open, load), or
// null when only the core can tell (a scenario of a link that is not a built-in
// unchanged, a damaged link, an unknown ?scenario=). The step is #at=N, a share
// link's at=, or ?from=, held inside ?from=..?to= as the player holds it.

/** A short key for a share link's `s=` part (FNV-1a, 32 bits, hex): first.js keeps
 *  each built-in's, so a link to one is known without decoding it. */
export function linkKey(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

const STEP = /^\d{1,15}$/;

/** `opts` from core/options.js, `fragment` location.hash, `links` each built-in's
 *  link key (pkg/steps.js LINKS), `fallback` the default built-in:
 *  {name, steps: [from?, step]} (the steps the live page shows after step 0, in
 *  order), or null. `s` is the link's scenario part, when there is one; `hash`,
 *  whether it carries a state hash (the live page then says "link reproduced exactly"). */
export function firstView(opts, fragment, links, fallback) {
  const raw = fragment.replace(/^#/, "");
  let name = opts.scenario ?? fallback;
  if (!links[name]) return null;
  let at = null;
  let s = null;
  let hash = false;
  // As permalink.js readLink reads it: nothing, an anchor, `at=N` alone, or a link.
  if (raw && !(raw.length <= 64 && !raw.includes("="))) {
    const parts = new URLSearchParams(raw);
    if (raw.length < 99 && !/(^|&)[vs]=/.test(raw) && parts.get("at")) {
      if (!STEP.test(parts.get("at"))) return null;
      at = Number(parts.get("at"));
    } else {
      s = parts.get("s");
      if (parts.get("v") !== "1" || !s) return null;
      const key = linkKey(s);
      name = Object.keys(links).find((n) => links[n] === key);
      if (!name) return null;
      hash = parts.has("h");
      if (parts.has("at")) {
        if (!STEP.test(parts.get("at"))) return null;
        at = Number(parts.get("at"));
      }
    }
  }
  const clamp = (n) => Math.max(opts.from, Math.min(opts.to, n));
  const steps = [];
  if (opts.from) steps.push(opts.from);
  if (at != null && clamp(at) !== opts.from) steps.push(clamp(at));
  return { name, steps, s, hash };
}

/** The built-in's steps file when the view needs a step past 0: a promise of
 *  {s, end, records} or null. Fetched once, by whichever of www/prefetch.js and
 *  main.js runs first; `urls` is pkg/steps.js STEPS. */
export function fetchSteps(view, urls) {
  return view?.steps.length ? fetchOnce("hwscopeSteps", String(urls[view.name]())) : null;
}

/** The built-in's step 0 and what the status line says of it ({title, description,
 *  preset, seed, initialEnd, room, record}), when it is not the default built-in
 *  (pkg/first.js has that one): a promise of it or null, fetched once as fetchSteps;
 *  `urls` is pkg/steps.js FIRSTS. */
export function fetchFirst(view, urls, fallback) {
  return view && view.name !== fallback ? fetchOnce("hwscopeFirst", String(urls[view.name]())) : null;
}

function fetchOnce(key, url) {
  const held = globalThis[key];
  if (held?.url === url) return held.file;
  const file = fetch(url)
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null);
  globalThis[key] = { url, file };
  return file;
}

/** A share link to a built-in as it is (no interventions, no edits: its `s=` part is the
 *  built-in's own, known by its key in `links`), read without the full core:
 *  {name, at, hash} (at and hash null when the link has none), or null. The page runs
 *  it on the first core and compares the state hash once the full core has come. */
export function builtinLink(fragment, links) {
  const raw = fragment.replace(/^#/, "");
  if (!raw || (raw.length <= 64 && !raw.includes("=")) || !/(^|&)[vs]=/.test(raw)) return null;
  const parts = new URLSearchParams(raw);
  const s = parts.get("s");
  if (parts.get("v") !== "1" || !s) return null;
  const key = linkKey(s);
  const name = Object.keys(links).find((n) => links[n] === key);
  const at = parts.get("at");
  const hash = parts.get("h");
  // What the core would refuse (a damaged at= or h=) is the core's to say.
  if (!name || (at != null && !STEP.test(at)) || (hash != null && !/^[0-9a-fA-F]{16}$/.test(hash))) return null;
  return { name, at: at == null ? null : Number(at), hash: hash?.toLowerCase() ?? null };
}

/** Which core the page starts with (docs/performance.md, "Two cores"): the first core
 *  (www/pkg/hwscope_first*: no narration, no share-link codec, no step records), which
 *  the page plays with while the full one comes at idle, or the full core at once when
 *  the address is a share link that only the full core reads (permalink.js readLink
 *  decodes it): one with interventions or edits; or a step past the steps files'. A link
 *  to a built-in as it is (builtinLink, `links` is pkg/steps.js LINKS) starts on the
 *  first core. */
export function startCore(fragment, links) {
  const raw = fragment.replace(/^#/, "");
  const link = raw && !(raw.length <= 64 && !raw.includes("=")) && !(raw.length < 99 && !/(^|&)[vs]=/.test(raw) && new URLSearchParams(raw).get("at"));
  // The first core writes no step records: it shows steps 0..LAST_STEP (their records
  // written at build time); a link or #at= past them starts on the full core.
  const far = raw.includes("=") && Number(new URLSearchParams(raw).get("at")) > LAST_STEP;
  return (link && !builtinLink(fragment, links)) || far ? { glue: "full", wasm: "hwscope_bg.wasm" } : { glue: "first", wasm: "hwscope_first_bg.wasm" };
}

/** The last step of a built-in's steps file (scripts/first-frame.mjs STEPS_LAST). */
export const LAST_STEP = 64;
