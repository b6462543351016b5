// A live docs figure (www/embed/live.js) draws the page's stage with the page's own
// style sheet inside a shadow root, where :root's custom properties do not reach:
// figure.css repeats the palette on :host. Every colour the page defines must be there,
// or what uses it falls back to black (the follower's "lag N" was black on the dark
// figure: --warn was missing, and --elr, the ELR tag's fill).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const read = (p) => readFileSync(new URL(`../../${p}`, import.meta.url), "utf8");
/** The custom properties a block defines: {name: value}. */
function defined(css, selector) {
  const at = css.indexOf(`${selector} {`);
  assert.ok(at >= 0, `${selector} in the style sheet`);
  const block = css.slice(at, css.indexOf("}", at));
  return Object.fromEntries([...block.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]));
}

test("the live figure's :host defines every colour of the page's :root, with the same value", () => {
  const page = defined(read("www/style.css"), ":root");
  const figure = defined(read("www/embed/figure.css"), ":host");
  assert.ok(Object.keys(page).length > 10);
  for (const [name, value] of Object.entries(page)) assert.equal(figure[name], value, `${name} in www/embed/figure.css's :host`);
});
