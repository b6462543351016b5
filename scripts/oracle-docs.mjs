// Writes the table of docs/exactness.md from a suite run (scripts/oracle-suite.mjs
// --write-docs): one row per scenario, real against simulated, with the Kafka version,
// the machine, the date, the tolerance and whether the broker log (the simulator's
// kafka-log lines against the real server.log, oracle/lib/kafkalog.mjs) is the same.
// A run of some entries (--small, --only) rewrites their rows and keeps the others, each
// row saying when it ran. Only the part between the markers is rewritten; the findings
// around it are prose kept by hand.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const START = "<!-- oracle-table:start (written by npm run oracle:exactness) -->";
const END = "<!-- oracle-table:end -->";

const esc = (s) => String(s ?? "").replace(/\|/g, "\\|");

function keyFigures(rows) {
  const out = [];
  for (const r of rows.filter((x) => x.kind === "lag"))
    out.push(`${r.consumer}: ${r.real?.median ?? "—"} ms real / ${r.sim?.median ?? "n.m."} ms sim (median)`);
  for (const r of rows.filter((x) => x.kind === "fence"))
    out.push(`fenced ${r.real?.after ?? "—"} ms after last heartbeat real / ${r.sim === undefined ? "n.m." : (r.sim?.after ?? "—")} ms sim`);
  const acks = rows.filter((x) => x.kind === "ack");
  if (acks.length) {
    const st = (side) => {
      const c = new Map();
      for (const r of acks) {
        const s = r[side]?.status;
        if (s) c.set(s, (c.get(s) ?? 0) + 1);
      }
      return [...c].map(([k, n]) => `${n} ${k}`).join(", ") || "n.m.";
    };
    out.push(`records: ${st("real")} real / ${st("sim")} sim`);
  }
  const states = (side) => rows.filter((x) => x.kind === "partition" && x[side]).length;
  if (rows.some((x) => x.kind === "partition")) out.push(`controller states: ${states("real")} real / ${rows.some((x) => x.sim) ? states("sim") : "n.m."} sim`);
  for (const name of ["lost", "duplicated"]) {
    const r = rows.find((x) => x.kind === "set" && x.id === name);
    if (r && (r.real.ids.length || r.sim?.ids?.length)) out.push(`${name}: {${r.real.ids.join(", ")}} real / ${r.sim ? `{${r.sim.ids.join(", ")}}` : "n.m."} sim`);
  }
  return out.join("; ");
}

function tolerances(run) {
  const out = [];
  for (const r of run.rows.filter((x) => (x.kind === "lag" || x.kind === "fence") && x.tol !== undefined)) out.push(`${r.kind} ±${r.tol} ms`);
  if (run.noise?.n) out.push(`no-timer durations +${Math.max(40, run.noise.p90)} ms noise`);
  out.push("statuses, states, sets exact");
  return out.join("; ");
}

/** The broker-log cell: the same sequence, or what differs (kinds and values, never times). */
export function brokerLogCell(run) {
  const k = run?.kafka_log;
  if (!k) return "n.m.";
  const raced = k.raced ? `; ${k.raced} ISR update${k.raced > 1 ? "s" : ""} the real leader took from metadata first` : "";
  if (k.same) return `same (${k.compared} entries${raced})`;
  const shown = k.diffs.length > 4 ? [...k.diffs.slice(0, 4), `… ${k.diffs.length - 4} more`] : k.diffs;
  return `**differs**: ${shown.join("; ")}${raced}`;
}

const HEADER = "| scenario | Kafka | run (UTC; load) | verdict | compared | figures (real / simulated) | tolerance of those figures | differs | broker log (kinds and values) |";

/** One row per entry of this run. */
function rowsOf(summary) {
  const rows = new Map();
  for (const s of summary) {
    const name = `\`${s.entry.scenario}\``;
    const push = (line) => rows.set(name, line);
    if (s.entry.unrunnable || s.code === 2) {
      push(`| ${name} | — | — | cannot run on a real cluster | — | ${esc(s.reason?.replace(/^oracle: cannot run on a real cluster: /, "") ?? s.entry.unrunnable)} | — | — | — |`);
      continue;
    }
    if (!s.result) {
      push(`| ${name} | — | — | run failed (exit ${s.code}) | — | — | — | — | — |`);
      continue;
    }
    const run = s.result.runs[0];
    const compared = run.rows.filter((r) => r.verdict);
    const ok = compared.filter((r) => r.verdict === "ok").length;
    const differs = compared
      .filter((r) => r.verdict !== "ok")
      .map((r) => `${r.kind} ${r.consumer ? `${r.consumer} ` : ""}${r.id}${r.known ? ` (${r.known})` : ""}`);
    const shown = differs.length > 6 ? [...differs.slice(0, 6), `… ${differs.length - 6} more`] : differs;
    const verdict = run.verdict === "not modelled yet" ? "Kafka only (n.m.)" : run.verdict === "agree" ? "agree" : s.pass && s.timing_not_judged ? `differ (timing only, not judged: ${s.timing_not_judged})` : s.pass ? "differ (known)" : "**differ**";
    const kafka = `${s.result.kafka_version}${s.entry.kafka ? ` (as ${s.entry.kafka})` : ""}`;
    const when = `${s.result.date.slice(0, 16).replace("T", " ")}; ${s.result.machine.load[0]}`;
    push(
      `| ${name} | ${kafka} | ${when} | ${verdict}${s.retried ? " (2nd run)" : ""} | ${compared.length ? `${ok}/${compared.length}` : "—"} | ${esc(keyFigures(run.rows))} | ${esc(tolerances(run))} | ${esc(shown.join("; ") || "—")} | ${esc(brokerLogCell(run))} |`,
    );
  }
  return rows;
}

/** The rows of the table now in the file, by scenario cell; a row written before the
 *  broker-log column gets that cell as "not compared (run before this column)". */
export function existingRows(tableText) {
  const rows = new Map();
  for (const line of tableText.split("\n")) {
    const m = /^\| (`[^`]+`) \|/.exec(line);
    if (!m) continue;
    const cells = line.split(/(?<!\\)\|/).length - 2;
    rows.set(m[1], cells >= 9 ? line : `${line} not compared (run before this column) |`);
  }
  return rows;
}

/** The 1-minute load average (/proc/loadavg) at the end of this run's rows: " (load a–b)". */
function loadRange(summary) {
  const loads = summary.map((s) => s.result?.machine?.load?.[0]).filter((x) => typeof x === "number");
  if (!loads.length) return "";
  const [lo, hi] = [Math.min(...loads), Math.max(...loads)];
  return ` (load ${lo === hi ? lo : `${lo}–${hi}`} on the machine's cores, 1-minute average at the end of each row)`;
}

/** The table: this run's rows, then (with `previous`, the table now in the file) the rows
 *  of entries it did not run, as they were, in the manifest's order when given. */
export function renderTable(summary, totalSeconds, { previous = "", order = [] } = {}) {
  const lines = [];
  const any = summary.find((s) => s.result)?.result;
  const m = any?.machine;
  const mine = rowsOf(summary);
  const rows = new Map([...existingRows(previous), ...mine]);
  const names = [...order.map((n) => `\`${n}\``).filter((n) => rows.has(n)), ...[...rows.keys()].filter((n) => !order.includes(n.slice(1, -1)))];
  const kept = names.length - mine.size;
  lines.push(START);
  lines.push("");
  lines.push(
    `Last written ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC${loadRange(summary)} by \`scripts/oracle-suite.mjs --write-docs\`: ${mine.size} row${mine.size === 1 ? "" : "s"} from a run of ${Math.round(totalSeconds / 60)} min` +
      (m ? ` on ${m.cpu}, ${m.cores} cores, Linux ${m.kernel}` : "") +
      (kept > 0 ? `; ${kept} kept from earlier runs (their run column says when)` : "") +
      ". Tolerance: statuses, sets and sequences exact; a duration within max(5 ms, 5% of the simulated duration) plus the measured noise of its kind (see *Noise*). n.m. = not modelled yet by the simulator. *Broker log*: the simulator's kafka-log lines against the real brokers' and controller's server.log after time zero, by kind and values in order (ISR shrinks, expansions and updates, truncations, leader and follower starts, fencing, registration), never by time.",
  );
  lines.push("");
  lines.push(HEADER);
  lines.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const n of names) lines.push(rows.get(n));
  lines.push("");
  lines.push(END);
  return lines.join("\n");
}

export function writeExactnessTable(root, summary, totalSeconds, order = []) {
  const file = join(root, "docs", "exactness.md");
  const text = readFileSync(file, "utf8");
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < 0) throw new Error(`${file}: the table markers are missing`);
  const previous = text.slice(a, b);
  writeFileSync(file, text.slice(0, a) + renderTable(summary, totalSeconds, { previous, order }) + text.slice(b + END.length));
  return file;
}
