// hwscope/render: a ```hwscope block's text drawn as a static figure, in Node, by the
// same WebAssembly core the browser runs and with the same code as the Rust command
// line (`hwscope figure`, `hwscope render-docs`): the SVG is byte for byte the one
// `hwscope svg` prints. Reference: docs/api.md ("Node: hwscope/render").
//
//   import { renderBlock } from "hwscope/render";
//   const { svg, alt, html } = renderBlock("seed-walkthrough at=3");
import { core } from "./core.js";
import { VERSION } from "./version.js";

export { VERSION };

/** A block that cannot be drawn: `message`, `line` (of the block, 1-based; 0 = the whole
 *  block), and where it is when the caller said (`file`, `fileLine`). */
export class HwscopeBlockError extends Error {
  constructor(found, where = {}) {
    const fileLine = where.line ? where.line + found.line : undefined;
    const place = where.file ? `${where.file}${fileLine ? `:${fileLine}` : ""}: ` : "";
    super(`${place}hwscope block: ${found.message}`);
    this.name = "HwscopeBlockError";
    this.line = found.line;
    this.reason = found.message;
    this.file = where.file;
    this.fileLine = fileLine;
    /** The error box a page shows in place of the figure ("show the error in the page"). */
    this.errorBox = found.error_box;
  }
}

/**
 * Draws a block's text as its first step.
 * `where` = { file, line } names the block in errors: `line` is the line of the opening
 * fence (```hwscope), so the block's first line is line + 1.
 * Returns { svg, alt, html, title, step, height, minHeight, warning }:
 *   svg  the step as a standalone SVG (800 px wide, `height` high), as `hwscope svg` prints it
 *   alt  the title, the step and its sentence: the figure's text alternative
 *   html the static figure (<figure class="hwscope-figure">) auto.js makes live
 *   warning  a share link whose state this version no longer reproduces, else null
 * Throws HwscopeBlockError for a block that cannot be drawn.
 */
export function renderBlock(text, where = {}) {
  const r = JSON.parse(core().renderBlock(String(text)));
  if (!r.ok) throw new HwscopeBlockError(r, where);
  return { svg: r.svg, alt: r.alt, html: r.html, title: r.title, step: r.step, height: r.height, minHeight: r.min_height, warning: r.warning };
}

/** The figure's HTML, or (with onError "show") the error box in its place; errors are thrown otherwise. */
export function figureHtml(text, { file, line, onError = "fail" } = {}) {
  try {
    return renderBlock(text, { file, line }).html;
  } catch (e) {
    if (onError === "show" && e instanceof HwscopeBlockError) return e.errorBox;
    throw e;
  }
}
