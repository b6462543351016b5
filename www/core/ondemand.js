// The parts of the page that load on first use (Learn, Explore, Share, Settings, the
// broker log). A part that does not arrive — the network dropped after the page loaded,
// or the server is gone — is said in words, and the next use asks for it again: a failed
// download never leaves a button that silently does nothing, nor an error over the page.

/** `load` imports the module; `what` names the part for the sentence; `say` shows it.
 *  The function returned resolves to the module, or to null when it could not load; called
 *  with `true` (a fetch ahead of use, when the page is idle) it says nothing on a failure. */
export function onDemand(load, what, say) {
  let pending = null;
  return (ahead = false) =>
    (pending ??= load().catch((err) => {
      pending = null;
      if (!ahead) say(`${what} could not be loaded: its download failed (${err?.name ?? "Error"}). The rest of the page works; try again in a moment.`);
      return null;
    }));
}

/** How long a press may wait before the page says that it is waiting (a quicker answer
 *  would only flash the words). */
const WAIT_SHOWN_MS = 150;

/** The one way the page acts on a press that may have to wait for the full core
 *  (app.js needFull: Settings, Share, Learn, Explore, an intervention): waits for
 *  `ready()` (resolving false when it could not be had: nothing is done, its failure is
 *  said there), runs `act()`, then gives focus to `target(result)` when there is one
 *  (null: `act` placed it, as a modal dialog does). Focus moves only when it is still
 *  where the press left it (the control pressed, or nowhere): a user who went on
 *  to something else while it waited is not pulled back. Resolves to act's result. */
export async function whenReady(ready, act, target = () => null, wait = null) {
  const from = document.activeElement;
  // A press that has to wait is seen to wait: after a moment (none when the core and the
  // part are here), `wait.control` is marked busy until the part has done its work (the
  // full core, then the part's own download: Explore's, Learn's), and `wait.say(true)`
  // says what is coming while the core is awaited; `wait.say(false)` once it is here or
  // could not be (that failure is said elsewhere).
  let coming = true;
  let said = false;
  const timer = wait && setTimeout(() => {
    wait.control?.setAttribute("aria-busy", "true");
    if (coming && wait.say) {
      said = true;
      wait.say(true);
    }
  }, WAIT_SHOWN_MS);
  const here = () => {
    coming = false;
    if (said) wait.say(false);
    said = false;
  };
  let ok;
  let result;
  try {
    ok = await ready();
    here();
    if (!ok) return null;
    result = await act();
  } finally {
    here();
    clearTimeout(timer);
    wait?.control?.removeAttribute("aria-busy");
  }
  const to = target(result);
  const now = document.activeElement;
  if (to && to !== now && (now === from || now === document.body || now == null)) to.focus({ preventScroll: true });
  return result;
}
