// A dismissable notice about the link that was opened (errors.js is for the page's own failures),
// maybe with one action (a button after the text).

export function createNotice(box) {
  box.lastChild.addEventListener("click", () => (box.hidden = true));
  const action = document.createElement("button");
  action.type = "button";
  action.className = "notice-action";
  floatUnderHeader(box);
  // Esc puts it away from anywhere (the notice is last in the page: from the keyboard its ✕
  // was the far end of the Tab order), unless Esc did something else first (stopped a
  // computation) or belongs to an open dialog or a field.
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || box.hidden || e.defaultPrevented || document.querySelector("dialog[open]")) return;
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
    box.hidden = true;
  });
  return (text, act = null) => {
    box.firstChild.textContent = text;
    if (act) {
      action.textContent = act.label;
      action.onclick = () => {
        box.hidden = true;
        act.run();
      };
      box.firstChild.after(action);
    } else action.remove();
    box.hidden = !text;
  };
}

/** Keeps a floating message (the notice, the error banner: position fixed, so the stage
 *  never moves) below the header and the status line while they are in view: at 1280 px
 *  it sat over the picker, Learn and Explore until dismissed, and a click there landed on
 *  it; then over the run's title and status line (time, step, preset), which a notice
 *  about the run is read beside. Placed whenever it is shown, and again on scroll and
 *  resize while it is. */
export function floatUnderHeader(box) {
  const over = ["header.bar", "#about", "#status"].map((sel) => document.querySelector(sel)).filter(Boolean);
  if (!over.length) return;
  const place = () => {
    if (box.hidden) return;
    let bottom = 0;
    for (const e of over) {
      const r = e.getBoundingClientRect();
      if (r.height && r.bottom > 0) bottom = Math.max(bottom, r.bottom);
    }
    box.style.top = `${Math.max(8, Math.ceil(bottom) + 6)}px`;
    // Over the stage's column, not the panels beside it.
    const stage = document.getElementById("stage")?.getBoundingClientRect();
    const wide = stage && stage.width >= 320;
    box.style.left = wide ? `${Math.round(stage.left + stage.width / 2)}px` : "";
    box.style.maxWidth = wide ? `${Math.floor(Math.min(760, stage.width))}px` : "";
  };
  new MutationObserver(place).observe(box, { attributes: true, attributeFilter: ["hidden"] });
  addEventListener("scroll", place, { passive: true });
  addEventListener("resize", place);
  place();
}
