// A gauge per follower: how far its HW is behind the leader's, in offsets
// (leader HW − follower HW at the shown step) and in milliseconds (how long
// the leader's HW has been above the follower's, read back through the rows).

import { h } from "../core/dom.js";

/** [{broker, offsets, ms, since, role}] for the followers at step `rec`. */
export function lagsAt(trace, rec) {
  const leader = rec.replicas.find((r) => r.role === "leader" && r.alive && r.broker === rec.partition.leader);
  if (!leader) return [];
  return rec.replicas.filter((r) => r.broker !== leader.broker).map((r) => {
    const offsets = leader.hw - r.hw;
    let since = rec.step;
    let exact = true;
    if (offsets > 0) {
      // Walk back while this leader's HW was above the follower's HW of now.
      for (let n = rec.step; ; n--) {
        const row = trace.row(n - 1);
        if (!row) {
          exact = n - 1 < 0;
          break;
        }
        if (row.leader !== leader.broker || row.hw[leader.broker] <= r.hw) break;
        since = n - 1;
      }
    }
    const t0 = trace.row(since)?.t ?? rec.time_ms;
    return { broker: r.broker, offsets, ms: offsets > 0 ? rec.time_ms - t0 : 0, since, exact, role: r.alive ? r.role : "offline", leaderHw: leader.hw, hw: r.hw };
  });
}

/** Renders the gauges; `scale(ms)` fills the bar (replica.fetch.wait.max.ms fills it). */
export function createGauges(box) {
  const list = h("div", { class: "gauges", role: "list" });
  box.append(list);
  const rows = new Map();

  function row(b) {
    let r = rows.get(b);
    if (!r) {
      const fill = h("i");
      const value = h("span", { class: "g-val" });
      const g = h("div", { class: "gauge", role: "listitem", "data-broker": b }, h("span", { class: "g-name" }, `Follower ${b}`), h("span", { class: "g-bar", "aria-hidden": "true" }, fill), value);
      r = { g, fill, value };
      rows.set(b, r);
      list.append(g);
    }
    return r;
  }

  return function render(trace, rec) {
    const lags = lagsAt(trace, rec);
    const wait = trace.scenario.config?.["replica.fetch.wait.max.ms"] ?? 500;
    const seen = new Set();
    for (const l of lags) {
      seen.add(l.broker);
      const r = row(l.broker);
      const text = l.role === "offline" ? `offline · HW ${l.hw}`
        : l.offsets > 0 ? `${l.offsets} offset${l.offsets === 1 ? "" : "s"} · ${l.exact ? "" : "≥ "}${l.ms} ms behind (HW ${l.hw} vs ${l.leaderHw})`
        : l.offsets < 0 ? `${-l.offsets} ahead of the new leader's HW (${l.hw} vs ${l.leaderHw})`
        : `caught up (HW ${l.hw})`;
      if (r.value.textContent !== text) r.value.textContent = text;
      r.g.dataset.offsets = l.offsets;
      r.g.dataset.ms = l.ms;
      r.g.classList.toggle("lagging", l.offsets > 0);
      r.fill.style.width = `${Math.min(100, (100 * l.ms) / Math.max(wait, l.ms, 1))}%`;
    }
    for (const [b, r] of rows) {
      if (!seen.has(b)) {
        r.g.remove();
        rows.delete(b);
      }
    }
    if (!lags.length && !list.firstChild) list.append(h("p", { class: "muted" }, "No leader at this step."));
    else if (lags.length) list.querySelector("p")?.remove();
    // A list of no gauges is no list (axe: aria-required-children): the sentence alone.
    if (lags.length) list.setAttribute("role", "list");
    else list.removeAttribute("role");
  };
}
