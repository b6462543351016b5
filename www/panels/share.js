// The Share dialog: a link to this moment, an iframe snippet and a Markdown
// snippet. Where copying is refused the text is selected for the reader.

import { pageBase } from "../core/permalink.js";
import { embedHeight } from "../embed/size.js";
import { readOptions } from "../core/options.js";

/** Steps either side of the one shown that a locked embed offers at first. */
const RANGE = 10;

const attr = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** `current()` gives {fragment, title, step, dims} for the moment shown (dims: what
 *  the embed's height depends on, embed/size.js). */
export function createShare(dialog, current) {
  const $ = (id) => dialog.querySelector(`#${id}`);
  dialog.addEventListener("click", async (e) => {
    const id = e.target.dataset.copy;
    if (!id) return;
    try {
      await navigator.clipboard.writeText($(id).value);
      $("share-msg").textContent = "Copied ✓";
    } catch {
      $(id).select();
      $("share-msg").textContent = "Copying was refused here: the text is selected, press Ctrl+C (⌘C).";
    }
  });
  // The embed's range: off, or around the step shown (its step ± RANGE, within the run).
  const lock = $("share-lock");
  const from = $("share-from");
  const to = $("share-to");
  const loop = $("share-loop");
  let shown = null;
  for (const el of [lock, from, to, loop]) el.addEventListener(el.type === "checkbox" ? "change" : "input", () => write());

  function write() {
    const { fragment, title, step, dims } = shown;
    for (const el of [from, to, loop]) el.disabled = !lock.checked;
    // Tall enough at any width up to its max-width: the embed is never clipped.
    const compact = readOptions("?embed=1").controls;
    const height = Math.max(embedHeight(360, compact, dims), embedHeight(800, compact, dims));
    const base = pageBase();
    const link = `${base}#${fragment}`;
    let range = "";
    if (lock.checked) {
      let a = Math.max(0, Math.floor(Number(from.value) || 0));
      let b = Math.max(0, Math.floor(Number(to.value) || 0));
      if (b < a) [a, b] = [b, a];
      range = `&from=${a}&to=${b}${loop.checked ? "&loop=1" : ""}`;
    }
    $("share-link").value = link;
    $("share-iframe").value = `<iframe src="${attr(`${base}?embed=1&fit=1&theme=auto${range}#${fragment}`)}" title="${attr(`hwscope: ${title} (interactive Kafka replication playground)`)}" width="100%" height="${height}" style="border:0;max-width:800px" loading="lazy" sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox"></iframe>`;
    $("share-md").value = `[${`hwscope: ${title}, step ${step}`.replace(/[\\[\]<>*_`]/g, "\\$&")}](${link})`;
    $("share-msg").textContent = link.length > 2000 ? `This link is ${link.length} characters: some chat apps cut links over 2,000.` : "";
  }

  return () => {
    shown = current();
    const { step, last } = shown;
    from.max = to.max = String(last);
    from.value = String(Math.max(0, step - RANGE));
    to.value = String(Math.min(last, step + RANGE));
    write();
    dialog.showModal();
  };
}
