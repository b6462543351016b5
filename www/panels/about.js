// The scenario's name and description above the stage: the lesson, folded on a
// phone and in an embed. Written the same way for the first stage (main.js, from
// the build's record) and for the live run (app.js), so it never moves.

import { h } from "../core/dom.js";

/** Characters of a title shown on its line (the built-ins' longest is about 80). */
const LONG_TITLE = 140;

/** Open only where there is room for it and the stage's controls below it (a
 *  phone folds it, and so does a laptop's 800 px: the Intervene row stays in view).
 *  `extra` goes after the name (app.js's "modified by interventions" note). */
export function renderAbout(box, { title, description, embed, extra = null }) {
  // A title is a line, not a page: a link's title of thousands of characters pushed the
  // stage out of sight. Past LONG_TITLE it is cut at a word, and said whole in the fold.
  if (title && title.length > LONG_TITLE) {
    const cut = title.slice(0, LONG_TITLE).replace(/\s+\S*$/, "");
    description = [h("p", { class: "whole-title" }, title), ...(description ? [description] : [])];
    title = `${cut.length > LONG_TITLE / 2 ? cut : title.slice(0, LONG_TITLE)}…`;
  }
  const heading = h("b", {}, title || "Custom scenario");
  // An embed's one line cuts a long title short: there the mark comes first.
  const line = embed ? [extra, heading] : [heading, extra];
  box.replaceChildren(description
    ? h("details", { open: innerWidth > 640 && innerHeight >= 900 && !embed ? "" : null }, h("summary", {}, ...line), description)
    : h("p", {}, ...line));
}
