// The status line (seed, simulated time, step, leader, ISR) and the list of
// invariants the shown step broke.

import { h } from "../core/dom.js";
import { isrText } from "../render/isr.js";

/** The box has a fixed width (nothing moves while playing), wide enough for 13
 *  characters: past 100 s the time is in seconds, to the millisecond while it fits. */
export function timeText(t) {
  if (t < 1e5) return `t = ${t.toFixed(1)} ms`;
  const s = t / 1000;
  return `t = ${s.toFixed(s < 1e3 ? 3 : s < 1e4 ? 2 : s < 1e5 ? 1 : 0)} s`;
}

export function createStatus(line, violations) {
  const parts = {};
  for (const key of ["seed", "time", "step", "part"]) {
    parts[key] = h("span", { class: key });
    line.append(parts[key]);
  }
  let seed = 1;

  return {
    scenario(s) {
      seed = s.seed ?? 1;
      parts.seed.textContent = `seed ${seed} · ${s.preset ?? "kafka-4.0"}`;
    },
    time(t) {
      const s = timeText(t);
      if (parts.time.textContent !== s) parts.time.textContent = s;
    },
    /** `live`: the run is the core's (the first stage, drawn before it, is not: tools
     *  and tests read data-step as "the page is running"). */
    step(rec, live = true) {
      const p = rec.partition;
      if (live) {
        line.dataset.step = rec.step;
        line.dataset.time = rec.time_ms;
      }
      parts.step.textContent = `step ${rec.step}`;
      const links = [...(p.cut_links ?? []).map(([a, b]) => `${a}→${b}`), ...(p.cut_channels ?? []).map((c) => `${c.from}→${c.to} (${c.channel} only)`)];
      const cut = links.length ? ` · cut ${links.join(" ")}` : "";
      // KIP-966 (kafka-4.1): the eligible leader replicas beside the ISR.
      const elr = p.elr ? ` · ELR {${p.elr.join(", ")}}${p.last_known_elr?.length ? ` · last known leader ${p.last_known_elr.join(", ")}` : ""}` : "";
      // Under min.insync.replicas: acks=all is refused, and from 3.7 the HW is held.
      const min = p.under_min_isr != null ? ` < min.insync ${p.under_min_isr}${p.hw_held ? " (HW held)" : ""}` : "";
      parts.part.textContent = `leader ${p.leader ?? "none"} · epoch ${p.leader_epoch} · ${isrText(rec)}${min}${elr}${cut}`;
      violations.replaceChildren(...rec.violations.map((v) => h("li", {}, h("b", {}, v.invariant), ` ${v.text}`)));
    },
  };
}
