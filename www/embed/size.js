// How tall an embed is (?embed=1), from what it shows: the stage for its scenario
// at its width (render/layout.js's geometry) and the controls it was asked for.
// The element (embed.js) gives its iframe this height from the start, so the host
// page never moves when the playground loads, and the Share dialog writes it into
// its iframe snippet. The embed's chrome keeps one height at any width
// (style.css), measured here per part; e2e/playground.test.mjs checks the sum
// against the embed as Chromium lays it out, at several widths.

import { geometry, stageHeight, ROWS } from "../render/layout.js";

/** px: the page's padding, the name, the status line, the violation line, the foot. */
const BASE = 88.25;
/** px the row of buttons adds (Play, ◀ ▶, « », reset); the speed's own row. */
const BUTTONS = 40;
const SPEED = 26;
/** px the scrubber with its marks adds; the key-moment jumps; the caption (text). */
const SCRUB = 36;
const JUMPS = 36;
const CAPTION = 57.2;
/** A caption after a row of controls keeps its own margin. */
const CAPTION_AFTER_CONTROLS = 2;
/** The embed's stage is this much narrower than its frame (the page's padding). */
const PADDING = 16;

/** The stage's rows and consumer rows for a scenario's `dims` (www/pkg/sizes.js, or
 *  Sim.room with the scenario's numbers): the page's rowsFor() at its first step. */
function stageOf(width, d) {
  const need = d.initialEnd + d.produced + 1;
  const rows = Math.max(8, Math.min(ROWS, need - Math.max(0, d.initialEnd - 3) + 2));
  const stacked = Math.max(d.consumers, d.consumersNow ? 1 : 0);
  return stageHeight(geometry(width - PADDING, d.producers), rows, stacked);
}

/** The height of an embed `width` px wide showing `controls` (a Set, core/options.js). */
export function embedHeight(width, controls, dims) {
  const has = (c) => controls.has(c);
  const buttons = ["play", "step", "ends", "reset"].some(has);
  let h = BASE + stageOf(width, dims);
  if (buttons) h += BUTTONS;
  if (has("speed")) h += buttons ? SPEED : BUTTONS;
  if (has("scrub")) h += SCRUB;
  if (has("jumps")) h += JUMPS;
  if (has("text")) h += CAPTION + (buttons || has("speed") || has("scrub") || has("jumps") ? CAPTION_AFTER_CONTROLS : 0);
  return Math.ceil(h);
}
