// The Share dialog: a link to this moment, an iframe snippet and a Markdown
// snippet. Where copying is refused the text is selected for the reader.

import { pageBase } from "../core/permalink.js";
import { embedHeight } from "../embed/size.js";
import { readOptions } from "../core/options.js";

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
  return () => {
    const { fragment, title, step, dims } = current();
    // Tall enough at any width up to its max-width: the embed is never clipped.
    const compact = readOptions("?embed=1").controls;
    const height = Math.max(embedHeight(360, compact, dims), embedHeight(800, compact, dims));
    const base = pageBase();
    const link = `${base}#${fragment}`;
    $("share-link").value = link;
    $("share-iframe").value = `<iframe src="${attr(`${base}?embed=1&fit=1&theme=auto#${fragment}`)}" title="${attr(`hwscope: ${title} (interactive Kafka replication playground)`)}" width="100%" height="${height}" style="border:0;max-width:800px" loading="lazy" sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox"></iframe>`;
    $("share-md").value = `[${`hwscope: ${title}, step ${step}`.replace(/[\\[\]<>*_`]/g, "\\$&")}](${link})`;
    $("share-msg").textContent = link.length > 2000 ? `This link is ${link.length} characters: some chat apps cut links over 2,000.` : "";
    dialog.showModal();
  };
}
