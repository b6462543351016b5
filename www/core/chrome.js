// The controls an embed asks for (?controls=, core/options.js), shown or hidden
// before the first paint: a control never appears and then goes.

const PARTS = { play: "#play", step: "#back,#fwd", ends: "#first,#end", scrub: ".scrub", speed: ".speed", reset: "#reset", jumps: ".jumps" };

/** Hides the controls not asked for; `text` shows the step's sentence as a caption. */
export function applyControls(doc, controls) {
  for (const [name, sel] of Object.entries(PARTS)) for (const el of doc.querySelectorAll(sel)) el.classList.toggle("off", !controls.has(name));
  doc.getElementById("controls").classList.toggle("off", !Object.keys(PARTS).some((c) => controls.has(c)));
  doc.getElementById("live").classList.toggle("caption", controls.has("text"));
}
