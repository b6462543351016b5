// The scenario's name and description above the stage: the lesson, folded on a
// phone and in an embed. Written the same way for the first stage (main.js, from
// the build's record) and for the live run (app.js), so it never moves.

import { h } from "../core/dom.js";

/** `extra` goes after the name (app.js's "modified by interventions" note). */
export function renderAbout(box, { title, description, embed, extra = null }) {
  const heading = h("b", {}, title || "Custom scenario");
  box.replaceChildren(description
    ? h("details", { open: innerWidth > 640 && !embed ? "" : null }, h("summary", {}, heading, extra), description)
    : h("p", {}, heading, extra));
}
