// The controls an embed asks for (?controls=, core/options.js), shown or hidden
// before the first paint: a control never appears and then goes.

const PARTS = { play: "#play", step: "#back,#fwd", ends: "#first,#end", scrub: ".scrub", speed: ".speed", reset: "#reset", jumps: ".jumps" };

/** Hides the controls not asked for; `text` shows the step's sentence as a caption. */
export function applyControls(doc, controls) {
  for (const [name, sel] of Object.entries(PARTS)) for (const el of doc.querySelectorAll(sel)) el.classList.toggle("off", !controls.has(name));
  doc.getElementById("controls").classList.toggle("off", !Object.keys(PARTS).some((c) => controls.has(c)));
  const live = doc.getElementById("live");
  // Only an embed shows the caption: on the page #live is the narration's words for
  // screen readers alone, and Tab stopped on it, drawing no ring anyone could see.
  const caption = controls.has("text") && doc.documentElement.classList.contains("embed");
  live.classList.toggle("caption", caption);
  // A caption scrolls when the sentence is longer than its lines (360 px): the keyboard
  // can reach it to scroll it (axe: scrollable-region-focusable).
  if (caption) live.tabIndex = 0;
  else live.removeAttribute("tabindex");
}
