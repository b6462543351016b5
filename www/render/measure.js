// Text widths for placing labels, measured with the page's own font (a canvas's
// measureText: no layout, no DOM), cached per string.

let ctx = null;
let family = "";
const cache = new Map();

/** The font's ascent and descent per px of size (the box a browser gives a line of text). */
let ascent = 0.93;
let descent = 0.24;

/** Measures in `el`'s font from now on: a docs figure (www/embed/live.js) draws in its
 *  shadow root's font, not the site's body font (a serif body made every label's box too short). */
export function measureIn(el) {
  const f = getComputedStyle(el).fontFamily;
  if (!f || f === family) return;
  ctx = null;
  cache.clear();
  context(f);
}

function context(font) {
  if (!ctx) {
    ctx = document.createElement("canvas").getContext("2d");
    family = font || getComputedStyle(document.body).fontFamily || "sans-serif";
    ctx.font = `400 100px ${family}`;
    const m = ctx.measureText("Hg");
    if (m.fontBoundingBoxAscent) {
      ascent = m.fontBoundingBoxAscent / 100;
      descent = m.fontBoundingBoxDescent / 100;
    }
  }
  return ctx;
}

/** Width in px of `s` at `size` px and `weight` (400, 600, 700) in the stage's font. */
export function textWidth(s, size, weight = 400) {
  const key = `${weight} ${size} ${s}`;
  let w = cache.get(key);
  if (w !== undefined) return w;
  const c = context();
  c.font = `${weight} ${size}px ${family}`;
  w = c.measureText(s).width;
  if (cache.size > 20000) cache.clear();
  cache.set(key, w);
  return w;
}

/** The box a line of SVG text covers: x, y is its anchor point on the baseline. */
export function textBox(s, x, y, size, { anchor = "start", weight = 400 } = {}) {
  const w = textWidth(s, size, weight);
  const x0 = anchor === "middle" ? x - w / 2 : anchor === "end" ? x - w : x;
  return { x0, x1: x0 + w, y0: y - ascent * size, y1: y + descent * size };
}
