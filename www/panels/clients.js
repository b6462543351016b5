// The clients panel: what each producer has had acknowledged and what each
// consumer has read, and how far a follower's reader trails the leader's HW.

import { h } from "../core/dom.js";

/** How many records a producer's list holds in all (the lighter form keeps only its tail). */
const ackedCount = (p) => p.acked_count ?? p.acked.length;
const failedCount = (p) => p.failed_count ?? p.failed.length;

const last = (ids, n = 6) => (ids.length > n ? `…${ids.slice(-n).join(" ")}` : ids.join(" ") || "—");

/** The records of one client that were lost after it was told of them (rec.lost). */
function lostOf(lost, mine, what) {
  const ids = lost.filter(mine).map((l) => `${l.id} (step ${l.step})`);
  return ids.length ? h("small", { class: "lostids", "data-lost": ids.length }, `${what}: ${ids.join(" ")}`) : null;
}

/** The panel in `box`; returns render(rec), which redraws only what changed. */
export function createClients(box) {
  let drawn = "";
  return function render(rec) {
    const leader = rec.replicas.find((r) => r.role === "leader" && r.alive);
    // Rebuild only when a figure shown here changed (most steps change none).
    const lost = rec.lost ?? [];
    const key = [leader?.broker, leader?.hw, lost.length, ...rec.producers.map((p) => `${p.id}:${ackedCount(p)}/${p.pending.length}/${failedCount(p)}`), ...rec.consumers.map((c) => `${c.id}@${c.position}/${c.records_read}/${c.fetch_from}`)].join();
    if (key === drawn && box.firstChild) return;
    drawn = key;
    const producers = rec.producers.map((p) =>
      h("tr", {}, h("th", { scope: "row" }, p.id), h("td", {}, `acks=${p.acks}`),
        h("td", {}, `acked ${ackedCount(p)}`, h("small", {}, last(p.acked)), lostOf(lost, (l) => l.invariant === "acked-record-lost" && l.id.startsWith(`${p.id}-`), "acknowledged, then lost")),
        h("td", {}, `pending ${p.pending.length}`, failedCount(p) ? h("small", { class: "bad" }, `failed ${failedCount(p)}: ${last(p.failed)}`) : null)));
    const consumers = rec.consumers.map((c) => {
      const from = c.fetch_from ?? leader?.broker;
      const onFollower = c.fetch_from != null && c.fetch_from !== leader?.broker;
      const behind = leader ? leader.hw - c.position : 0;
      return h("tr", { "data-consumer": c.id, "data-position": c.position },
        h("th", { scope: "row" }, c.id),
        h("td", {}, `reads ${onFollower ? "follower" : "leader"} ${from ?? "?"}`),
        h("td", {}, `at ${c.position} · read ${c.records_read}`, h("small", {}, last(c.read)), lostOf(lost, (l) => l.invariant === "consumed-record-lost" && (l.consumer ?? l.text.split(" ")[0]) === c.id, "read, then lost")),
        h("td", { class: behind > 0 ? "behind" : "" }, behind > 0 ? `${behind} behind leader HW` : "caught up"));
    });
    box.replaceChildren(
      h("table", { class: "clients-t" },
        h("caption", { class: "sr-only" }, "Producers and consumers"),
        producers, consumers.length ? consumers : h("tr", {}, h("td", { colspan: 4 }, "No consumers. Add one on a follower below the stage."))));
  };
}
