// The scenario's name and description above the stage: the lesson, folded on a
// phone and in an embed. Written the same way for the first stage (main.js, from
// the build's record) and for the live run (app.js), so it never moves.

import { h } from "../core/dom.js";

/** Open only where there is room for it and the stage's controls below it (a
 *  phone folds it, and so does a laptop's 800 px: the Intervene row stays in view).
 *  `extra` goes after the name (app.js's "modified by interventions" note). */
export function renderAbout(box, { title, description, embed, extra = null }) {
  const heading = h("b", {}, title || "Custom scenario");
  // An embed's one line cuts a long title short: there the mark comes first.
  const line = embed ? [extra, heading] : [heading, extra];
  box.replaceChildren(description
    ? h("details", { open: innerWidth > 640 && innerHeight >= 900 && !embed ? "" : null }, h("summary", {}, ...line), description)
    : h("p", {}, ...line));
}
