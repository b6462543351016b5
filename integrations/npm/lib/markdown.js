// hwscope/markdown: the ```hwscope fences of a Markdown text, with their lines, for
// the adapters that see a page's source (the Docusaurus loader): the same rules as
// the Rust side's `docfigure::rewrite_markdown` (a fence of three or more ` or ~,
// closed by the same character at least as long; other fenced code, such as a
// Markdown example showing a hwscope block, is left alone).
import { renderBlock } from "./render.js";

/** Every hwscope fence: { line (1-based, of the opening fence), text, info, open (the opening line's text) }. */
export function findFences(md) {
  const lines = md.split("\n");
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "");
    const body = line.trimStart();
    const indent = line.length - body.length;
    const fc = body[0];
    if (fc !== "`" && fc !== "~") continue;
    let len = 0;
    while (body[len] === fc) len++;
    if (len < 3) continue;
    const info = body.slice(len).trim();
    let end = lines.length;
    for (let k = i + 1; k < lines.length; k++) {
      const t = lines[k].trim();
      if (t.length >= len && [...t].every((c) => c === fc)) {
        end = k;
        break;
      }
    }
    const lang = info.split(/[\s,{]/)[0];
    if (lang === "hwscope") {
      const text = lines
        .slice(i + 1, end)
        .map((l) => {
          const strip = l.length - l.trimStart().length;
          return `${l.slice(Math.min(strip, indent))}\n`;
        })
        .join("");
      found.push({ line: i + 1, text, info });
    }
    i = end;
  }
  return found;
}

/**
 * Checks every hwscope block of a Markdown file (`file`: the name errors give) and
 * marks each fence with where it is (` source=FILE:LINE` after `hwscope`, on the same
 * line, so line numbers stay). A broken block throws HwscopeBlockError naming
 * `file:line`, unless onError is "show" (the page then shows the error box).
 */
export function checkAndMark(md, file, { onError = "fail" } = {}) {
  const fences = findFences(md);
  if (!fences.length) return md;
  const lines = md.split("\n");
  for (const f of fences) {
    try {
      renderBlock(f.text, { file, line: f.line });
    } catch (e) {
      if (onError !== "show" || e.name !== "HwscopeBlockError") throw e;
    }
    lines[f.line - 1] = lines[f.line - 1].replace(/hwscope/, `hwscope source=${file}:${f.line}`);
  }
  return lines.join("\n");
}
