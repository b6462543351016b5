// The side-by-side report the oracle prints.

import { stats } from "./compare.mjs";

const PER_RECORD_LIMIT = 12;

function pad(s, n) {
  s = String(s ?? "");
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

function cell(kind, side) {
  if (side === undefined) return "not modelled yet";
  if (side === null) return "—";
  switch (kind) {
    case "ack":
      return side.status === "acked" || side.status === "failed" ? `${side.status}${side.error ? ` ${side.error}` : ""} ${side.ms} ms` : side.status;
    case "visible":
      return side.seen ? `${side.ms} ms` : "not received";
    case "lag":
    case "series":
      return `${side.median} (${side.min}–${side.max}) ms`;
    case "partition":
      return `${side.state} @${side.t}`;
    case "fence":
      return side.fenced === null ? `not fenced (last heartbeat @${side.last_heartbeat})` : `heartbeat @${side.last_heartbeat} → fenced @${side.fenced}: ${side.after} ms`;
    case "set":
      return side.ids.length ? `{${side.ids.join(", ")}}` : "{}";
    default:
      return JSON.stringify(side);
  }
}

function label(r) {
  switch (r.kind) {
    case "ack":
      return ["ack (send→ack)", r.id];
    case "visible":
      return [`visible to ${r.consumer}`, r.id];
    case "lag":
      return [`lag ${r.consumer}`, r.id];
    case "series":
      return [`median ${r.of === "ack" ? "send→ack" : `visible to ${r.consumer}`}`, r.id];
    case "partition":
      return ["controller", r.id];
    case "set":
      return ["set", r.id];
    case "fence":
      return ["fenced by controller", r.id];
    default:
      return [r.kind, r.id];
  }
}

/** Many records: one row per observable with median (min–max) on each side. */
function aggregate(rows) {
  const out = [];
  const groups = new Map();
  for (const r of rows) {
    if ((r.kind === "ack" || r.kind === "visible") && r.real) {
      const k = `${r.kind}|${r.consumer ?? ""}`;
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(r);
    } else out.push(r);
  }
  const agg = [];
  for (const [k, rs] of groups) {
    const [kind, consumer] = k.split("|");
    const realMs = rs.map((r) => r.real.ms).filter((x) => x !== null);
    const simMs = rs.map((r) => r.sim?.ms).filter((x) => x !== null && x !== undefined);
    const ok = rs.filter((r) => r.verdict === "ok" || (!r.verdict && r.series)).length;
    const statuses = (side) => {
      const m = new Map();
      for (const r of rs) {
        const s = side === "real" ? r.real : r.sim;
        if (!s) continue;
        const key = kind === "ack" ? s.status : s.seen ? "received" : "not received";
        m.set(key, (m.get(key) ?? 0) + 1);
      }
      return [...m].map(([k2, n]) => `${n} ${k2}`).join(", ");
    };
    const sr = stats(realMs);
    const ss = stats(simMs);
    agg.push({
      kind: "agg",
      label: kind === "ack" ? "ack (send→ack)" : `visible to ${consumer}`,
      id: `${rs.length} records`,
      realText: `${statuses("real")}${sr ? `; ${sr.median} (${sr.min}–${sr.max}) ms` : ""}`,
      simText: rs[0].sim === undefined ? "not modelled yet" : `${statuses("sim")}${ss ? `; ${ss.median} (${ss.min}–${ss.max}) ms` : ""}`,
      tol: rs[0].sim === undefined ? "" : rs.some((r) => r.series) ? `${ok}/${rs.length} same status; timing by series median` : `${ok}/${rs.length} within`,
      verdict: rs[0].sim === undefined ? "" : ok === rs.length ? "ok" : "differs",
      bad: rs.filter((r) => r.verdict && r.verdict !== "ok").slice(0, 5),
    });
  }
  return [...agg, ...out];
}

export function renderReport(result, plan) {
  const lines = [];
  const m = result.machine;
  lines.push(`hwscope oracle: ${result.scenario}${result.title ? ` — ${result.title}` : ""}`);
  lines.push(
    `Kafka ${result.kafka_version} (Maven Central, KRaft: 1 controller + ${plan.scenario.replicas} brokers on 127.0.0.1) vs simulator preset ${result.sim_preset}` +
      `${result.sim.not_modelled ? ` (not modelled yet: ${result.sim.not_modelled})` : ""}`,
  );
  lines.push(`machine: ${m.cpu}, ${m.cores} cores, Linux ${m.kernel}, load ${m.load.join(" ")}; ${result.date}`);
  lines.push(
    `time zero aligned (wall clock); durations from the record's send (acks, receipts) or the last scripted event (controller states);` +
      ` tolerance max(5 ms, 5% of the simulated duration) + noise (per record: ${Object.entries(result.noise_ms).map(([k, v]) => `${k} ${v}`).join(", ")} ms;` +
      ` series medians: ${Object.entries(result.noise_median_ms ?? {}).map(([k, v]) => `${k} ${v}`).join(", ")} ms); statuses, sets and sequences exact`,
  );
  result.runs.forEach((run, i) => {
    lines.push("");
    if (result.runs.length > 1) lines.push(`run ${i + 1}/${result.runs.length}`);
    const faults = run.faults.map((f) => `${f.kind}${f.broker !== undefined ? ` b${f.broker}` : ""}${f.dirs ? ` ${f.dirs.map((d) => d.join("→")).join(" ")}` : ""}${f.channel ? ` (${f.channel} only)` : ""} @${f.at_ms} (applied ${f.t}–${f.done_t})${f.note ? ` ${f.note}` : ""}`);
    if (faults.length) lines.push(`faults: ${faults.join("; ")}`);
    if (run.fence_check_phase)
      lines.push(
        `stale-broker checks: the real controller checked at ${run.fence_check_phase.from_t} ms (every ${run.fence_check_phase.period_ms} ms)` +
          ` — the simulator's grid pinned there (phases.fence_check_ms ${run.fence_check_phase.phase_ms})`,
      );
    if (run.heartbeat_phases)
      lines.push(`heartbeats: every broker's lined up with the real ones (phases.heartbeat_ms [${run.heartbeat_phases.heartbeat_ms.join(", ")}])`);
    if (run.restart_shift)
      lines.push(
        `restarts: ${run.restart_shift.restarts.map((r) => `b${r.broker} scripted @${r.at_ms}, its new JVM asked to register @${r.up_t}`).join("; ")}` +
          ` — the simulator's restart moved there, both sides compared until ${run.restart_shift.stop_at_ms} ms`,
      );
    if (run.noise?.n)
      lines.push(`this run's noise: warm-up send→ack (acks as configured, no timer) median ${run.noise.median} ms, p90 ${run.noise.p90} ms over ${run.noise.n} writes just before T0`);
    const many = plan.recordIds.length > PER_RECORD_LIMIT;
    const rows = many ? aggregate(run.rows) : run.rows;
    const table = [["observable", "which", "real (Kafka)", "simulated", "tolerance", "verdict"]];
    for (const r of rows) {
      if (r.kind === "agg") {
        table.push([r.label, r.id, r.realText, r.simText, r.tol, r.verdict]);
        for (const b of r.bad) table.push(["  differs:", `${b.consumer ? `${b.consumer} ` : ""}${b.id}`, cell(b.kind, b.real), cell(b.kind, b.sim), b.tol !== undefined ? `±${b.tol}` : "", b.verdict]);
        continue;
      }
      const [a, b] = label(r);
      table.push([a, b, cell(r.kind, r.real), cell(r.kind, r.sim), r.tol !== undefined ? `±${r.tol}${r.per_record_within !== undefined ? ` (${r.per_record_within} rec. within)` : ""}` : "", r.verdict ?? ""]);
    }
    const widths = table[0].map((_, c) => Math.min(60, Math.max(...table.map((row) => String(row[c]).length))));
    for (const row of table) lines.push(row.map((x, c) => pad(x, widths[c])).join("  ").trimEnd());
    const n = run.rows.filter((r) => r.verdict).length;
    const ok = run.rows.filter((r) => r.verdict === "ok").length;
    lines.push("");
    if (run.verdict === "inconclusive")
      lines.push(
        run.overload.late_restart
          ? `a restarted broker's new JVM did not ask to register in time (${run.overload.late_restart.map((r) => `b${r.broker} scripted @${r.at_ms}, asked ${r.asked_t === null ? "never" : `@${r.asked_t}`}`).join("; ")}) — this run measured the machine, not Kafka`
          : `the real cluster did not keep up: acknowledgements the model makes in a few ms took ${run.overload.median_ms} ms (median of ${run.overload.n}) — this run measured the machine, not Kafka`,
      );
    lines.push(
      `verdict: ${run.verdict}${run.verdict === "not modelled yet" ? " (Kafka's side recorded; nothing comparable)" : ` (${ok}/${n} observables within tolerance)`}; ` +
        `real run ${run.wall_s} s (format ${run.timings.format_s} s, cluster up ${run.timings.cluster_up_s} s, clients ready ${run.timings.clients_ready_s} s, collect ${run.timings.collect_s} s)`,
    );
  });
  return lines.join("\n") + "\n";
}
