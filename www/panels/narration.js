// The narration log: each step's sentence, up to the step shown, newest at
// the bottom; a click jumps to that step. The shown step's sentence also
// goes to an aria-live region for screen readers.

const WINDOW = 100;
/** The slot of a sentence the page's first core cannot say (the full core is on its way:
 *  app.js). The same words as app.js's LOADING (this module is loaded apart from it). */
const LOADING = "Loading the narration…";
/** Steps of history filled in after a jump, once the user stops scrubbing. */
const HISTORY = 30;

export function createNarration(list, live, sim, jump) {
  let first = 0;
  let last = -1;
  let filling = 0;

  function entry({ step, time, text }) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.step = step;
    const t = document.createElement("span");
    t.className = "t";
    t.textContent = `#${step} · ${time} ms`;
    b.append(t, " ", text || (sim.full ? "(no narration)" : LOADING));
    li.append(b);
    return li;
  }

  list.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-step]");
    if (b) jump(Number(b.dataset.step));
  });

  function reset() {
    clearTimeout(filling);
    first = 0;
    last = -1;
    list.replaceChildren();
  }

  function show(rec) {
    const n = rec.step;
    if (n === last + 1 && last >= 0) {
      list.append(entry({ step: n, time: rec.time_ms, text: rec.text }));
    } else if (n > last && last >= 0 && n - last <= HISTORY) {
      // Fast play passes several steps per frame: their sentences are cached.
      list.append(...sim.narration(last + 1, n).map(entry));
    } else if (n <= last && n >= first) {
      while (last > n) {
        list.lastElementChild.remove();
        last--;
      }
    } else {
      // A jump: show this step now and its history when the scrubbing stops,
      // so a drag across a long run never walks the core through it.
      first = n;
      list.replaceChildren(entry({ step: n, time: rec.time_ms, text: rec.text }));
      clearTimeout(filling);
      filling = setTimeout(() => {
        if (last !== n || first !== n || n === 0) return;
        first = Math.max(0, n - HISTORY);
        list.prepend(...sim.narration(first, n - 1).map(entry));
      }, 150);
    }
    last = n;
    while (last - first >= WINDOW) {
      list.firstElementChild.remove();
      first++;
    }
    list.querySelector("[aria-current]")?.removeAttribute("aria-current");
    list.lastElementChild?.firstChild.setAttribute("aria-current", "step");
    live.textContent = rec.text || (sim.full ? "" : LOADING);
  }

  return { show, reset };
}
