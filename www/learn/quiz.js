// Predict, then reveal. A quiz is asked while the stage shows the step just
// before its beat; its expected answer is read from the simulation at the
// beat's step (the tour's `answer(c)`), never written down. The learner picks
// an answer; the page shows the beat's step and the simulator's own value,
// explains it, and answers the classic wrong idea if that was the pick.

import { h } from "../core/dom.js";

/** The choices of a quiz as [{key, label, why}], the expected key among them. */
export function choicesOf(quiz, c) {
  const expected = quiz.answer(c);
  if (quiz.kind === "value") {
    const byValue = new Map();
    for (const ch of [...quiz.choices(c), { value: expected.value }]) {
      if (ch.value === undefined || ch.value === null) continue;
      const had = byValue.get(ch.value);
      byValue.set(ch.value, { key: String(ch.value), label: String(ch.value), why: had?.why ?? ch.why });
    }
    return { expected: String(expected.value), info: expected, choices: [...byValue.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v) };
  }
  return { expected: expected.key, info: expected, choices: quiz.choices(c) };
}

let uid = 0;

/** The question; `reveal(pick)` is called with the picked key, or null to skip. */
export function renderQuiz(quiz, c, reveal) {
  const { expected, info, choices } = choicesOf(quiz, c);
  const name = `quiz-${++uid}`;
  const msg = h("p", { class: "quiz-msg", role: "status" });
  const form = h("form", { class: "quiz", "data-kind": quiz.kind, "data-claim": quiz.claim ?? null, "data-step": c.step, "data-broker": info.broker ?? null, "data-field": info.field ?? null, "data-expected": expected },
    h("fieldset", {},
      h("legend", {}, h("b", {}, "Predict: "), quiz.ask(c)),
      choices.map((ch) => h("label", { class: "choice" }, h("input", { type: "radio", name, value: ch.key }), " ", ch.label))),
    h("div", { class: "row" },
      h("button", { type: "submit", class: "primary" }, "Check"),
      h("button", { type: "button", class: "link", onclick: () => reveal(null) }, "Just show me")),
    msg);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const picked = form.querySelector("input:checked");
    if (!picked) {
      msg.textContent = "Pick an answer first (or “Just show me”).";
      return;
    }
    reveal(picked.value);
  });
  return { form, expected, choices };
}

/** The outcome after the reveal: right or not, the simulator's value, why. */
export function renderResult(quiz, c, pick) {
  const { expected, choices } = choicesOf(quiz, c);
  const right = pick === expected;
  const label = (k) => choices.find((x) => x.key === k)?.label ?? k;
  const wrong = pick !== null && !right ? choices.find((x) => x.key === pick)?.why : null;
  return h("div", { class: `quiz-result ${pick === null ? "skipped" : right ? "right" : "wrong"}`, "data-expected": expected, "data-picked": pick ?? "", "data-right": pick === null ? "" : String(right), role: "status" },
    h("p", {}, h("b", {}, pick === null ? "The answer: " : right ? "✓ Right. " : "✗ Not quite. "),
      quiz.kind === "value" ? `The simulator says ${expected}` : `“${label(expected)}”`,
      pick !== null && !right ? ` (you said ${quiz.kind === "value" ? pick : `“${label(pick)}”`}).` : "."),
    h("p", {}, quiz.explain(c)),
    wrong ? h("p", { class: "why-wrong" }, wrong) : null);
}
