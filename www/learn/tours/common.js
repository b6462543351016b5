// What the tours share: predicates over a step record (where a beat is
// pinned), a few words, the classic wrong answers and the value quiz.

import { count } from "../words.js";

export { count };

// ---- predicates over a step record -----------------------------------------

export const ev = (type, fields = {}) => (r) =>
  r.event?.type === type && Object.entries(fields).every(([k, v]) => (typeof v === "function" ? v(r.event[k], r) : r.event[k] === v));
export const both = (...ps) => (r, p) => ps.every((f) => f(r, p));
export const hwMoved = (r) => r.event && r.event.hw_after > r.event.hw_before;
export const withRecords = (r) => count(r.event?.records) > 0;
export const any = () => true;

// ---- words -----------------------------------------------------------------

export const list = (xs) => (xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`);
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
export const set = (xs) => `{${(xs ?? []).join(", ")}}`;

/** The classic wrong answers, as rebuttals shown when one is picked. */
export const WRONG = {
  together: "The follower's HW does not move together with the leader's: at the instant the leader's HW moves, nothing has been sent to the follower. It learns the new HW only from the answer to one of its Fetches.",
  push: "The leader never pushes data or the HW to a follower: everything a follower receives is an answer to its own Fetch. Replication is pull.",
  noLeo: "The follower does report its LEO: the fetch offset of every Fetch is the follower's LEO, and the leader records it as that follower's LEO (Partition.updateFollowerFetchState). That is the only way the leader learns it.",
  misconfig: "Nothing is misconfigured. The delay comes from the pull protocol: a follower hears the HW only in a Fetch answer, and a caught-up follower's Fetch waits at the leader until new records arrive or replica.fetch.wait.max.ms expires.",
  ownLeo: "Having a record is not knowing it is committed. A follower takes the HW from the leader's answer: HW = min(the HW in the answer, its own LEO).",
  majority: "Kafka does not commit on a majority: the HW waits for every member of the ISR, and a slow member holds it until it is removed from the ISR.",
};

// ---- quizzes -----------------------------------------------------------------

/** A value quiz: "what is X's <field> now?"; the answer is read at the beat's step. */
export const hwOf = (broker, choices, ask, explain) => ({
  kind: "value",
  ask,
  answer: (c) => ({ value: c.rep(broker).hw, broker, field: "hw" }),
  choices,
  explain,
});

/** The key a long-poll question expects: what sent the answer that carried the HW. */
export function longPollKey(c) {
  const s = c.sentBy();
  if (!s) return "misconfig";
  if (s.ev?.type === "timeout" && s.ev.timer === "fetch-expiry") return "protocol-wait";
  return "round-trip";
}
