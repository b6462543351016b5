// Share links in the URL fragment (docs/format.md, share links; the codec is src/link.rs): read
// one, check it reproduces the state it was made from, keep it on the step shown.

/** null (no link, or an anchor), {scenario?, at?, hash?}, or {error}. */
export function readLink(fragment, decodeLink) {
  const raw = fragment.replace(/^#/, "");
  if (!raw || (raw.length <= 64 && !raw.includes("="))) return null;
  // `#at=N` alone: step N of the ?scenario= one (embed.js writes these).
  const at = raw.length < 99 && !/(^|&)[vs]=/.test(raw) && new URLSearchParams(raw).get("at");
  if (at) return /^\d{1,15}$/.test(at) ? { at: Number(at) } : { error: `the link's \`at\` part is damaged: "${at.slice(0, 20)}" is not a step number` };
  try {
    return decodeLink(raw);
  } catch (e) {
    return { error: e.message };
  }
}

/** Compares the state at the link's step with its hash, once the run is
 *  computed up to it (`outcome` of that: "reached", "timeout" or "stopped"):
 *  {step, ok, message}. */
export function checkLink({ at, hash }, sim, outcome = "reached") {
  if (at == null) return { step: 0 };
  if (at >= sim.known && !sim.done) {
    const why = outcome === "stopped" ? "replaying was stopped" : "replaying that far takes too long here";
    return { step: sim.known - 1, message: `This link points at step ${at}; ${why}, so this shows step ${sim.known - 1}, the furthest reached.` };
  }
  const last = sim.known - 1;
  // A link without a state hash (`#at=N` written by hand, an embed's) has nothing to compare:
  // past the end it is only a step number too far.
  if (at > last && !hash) return { step: last, message: `This link points at step ${at}, but this run ends at step ${last}: showing step ${last}, the last.` };
  if (at > last) return { step: last, message: `This link points at step ${at}, but this run ends at step ${last}, so this shows step ${last}. Either the step in the link was changed by hand, or it was made with different behaviour (another version of hwscope's model).` };
  const here = hash && sim.hashAt(at);
  if (here !== hash) return { step: at, message: `Step ${at} here is not the state this link was made from (state ${here}, the link says ${hash}). Either the step in the link was changed by hand, or hwscope's model has changed since it was made; you are seeing today's.` };
  return { step: at, ok: !!hash };
}

/** Calls onLink with the fragment for the step shown, at most every 500 ms;
 *  `write` also puts it in the address bar. */
export function createUrlSync(sim, write, onLink) {
  let timer = 0;
  let due = 0;
  return (step) => {
    due = step;
    timer ||= setTimeout(() => {
      timer = 0;
      const fragment = sim.linkAt(due);
      try {
        if (write) history.replaceState(history.state, "", address(fragment));
      } catch {
        /* no history here (a sandboxed srcdoc frame) */
      }
      onLink(fragment);
    }, 500);
  };
}

/** The address bar for a share link's fragment: the query as it is but for
 *  ?scenario=, which the fragment replaces (it holds the whole scenario), so the
 *  address never names one scenario while showing another. */
export function address(fragment) {
  const q = new URLSearchParams(location.search);
  q.delete("scenario");
  const query = q.toString();
  return `${location.pathname}${query ? `?${query}` : ""}#${fragment}`;
}

/** This page's address without query or fragment. */
export const pageBase = () => location.href.replace(/[?#].*$/s, "");
