// The status line (seed, simulated time, step, leader, ISR) and the list of
// invariants the shown step broke.

import { h } from "../core/dom.js";
import { isrText } from "../render/isr.js";

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
      // The box has a fixed width (nothing moves while playing): past 1,000 s, seconds.
      const s = t < 1e6 ? `t = ${t.toFixed(1)} ms` : `t = ${(t / 1000).toFixed(t < 1e8 ? 2 : 1)} s`;
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
      const cut = p.cut_links?.length ? ` · cut ${p.cut_links.map(([a, b]) => `${a}→${b}`).join(" ")}` : "";
      // KIP-966 (kafka-4.1): the eligible leader replicas beside the ISR.
      const elr = p.elr ? ` · ELR {${p.elr.join(", ")}}${p.last_known_elr?.length ? ` · last known leader ${p.last_known_elr.join(", ")}` : ""}` : "";
      parts.part.textContent = `leader ${p.leader ?? "none"} · epoch ${p.leader_epoch} · ${isrText(rec)}${elr}${cut}`;
      violations.replaceChildren(...rec.violations.map((v) => h("li", {}, h("b", {}, v.invariant), ` ${v.text}`)));
    },
  };
}
