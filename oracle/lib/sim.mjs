// The simulator's side, through its public CLI only (docs/format.md, docs/cli.md, docs/extensions.md):
//   cargo run --release --bin hwscope -- run FILE --format jsonl [--preset P] [--log-tail N]
// The step records are read as a stream and reduced to what a user of a real cluster
// could observe: send/ack/failure times per record, what each consumer received and
// when, the controller's (leader, epoch, ISR) over time, and the final logs.

import { parseLine } from "./kafkalog.mjs";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * Run the simulator. Resolves { ok: true, obs } or { ok: false, error } when the simulator
 * refuses the scenario (exit 2: a field it does not know yet = "not modelled yet").
 */
export function runSimulator(root, scenarioFile, { preset = null, logTail = 64 } = {}) {
  const args = ["run", "--release", "--quiet", "--bin", "hwscope", "--", "run", scenarioFile, "--format", "jsonl", "--log-tail", String(logTail)];
  if (preset) args.push("--preset", preset);
  return new Promise((resolve, reject) => {
    const child = spawn("cargo", args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CARGO_TERM_COLOR: "never" } });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const r = new Reducer();
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.trim()) r.step(JSON.parse(line));
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve({ ok: true, obs: r.finish() });
      else {
        const lines = stderr.trim().split("\n").filter((l) => !/^\s*(Compiling|Finished|Running|Blocking|warning)/.test(l));
        resolve({ ok: false, code, error: lines.at(-1) ?? `exit ${code}` });
      }
    });
  });
}

class Reducer {
  constructor() {
    this.sends = new Map(); // id -> t
    this.acks = new Map(); // id -> { t, error? }
    this.failed = new Map();
    this.reads = new Map(); // consumer -> [{ id, t, from }]
    this.partition = []; // [{ t, leader, leader_epoch, isr }]
    this.violations = [];
    this.heartbeats = []; // { broker, t, last_heartbeat, fence_at }: per crash, then per broker
    this.arrivals = new Map(); // broker -> times its heartbeats reached the controller
    this.fences = []; // { broker, t }
    this.crashes = []; // { broker, t }
    this.isrChecks = []; // { broker, t }: the leader's lag checks (timer isr-expiration)
    this.last = null;
    this.steps = 0;
  }

  step(s) {
    this.steps++;
    // What each broker's and the controller's log would say (src/kafka_log.rs), by kind and values.
    for (const line of s.kafka_log ?? []) {
      const e = parseLine(line);
      if (e) (this.kafkaLog ??= []).push(e);
    }
    const t = s.time_ms;
    const e = s.event ?? {};
    const p = s.partition;
    // No leader is null in the step record and -1 (NO_LEADER) in Kafka's metadata.
    const leader = p.leader ?? -1;
    const key = `${leader}|${p.leader_epoch}|${p.isr.join(",")}`;
    if (this.partition.at(-1)?.key !== key) this.partition.push({ key, t, leader, leader_epoch: p.leader_epoch, isr: [...p.isr] });
    // Heartbeats are messages (issue 11): the step that delivers one to the controller is
    // its arrival, which is what the controller's session counts from; a fence is the
    // controller's stale-broker check (timer fence-check) naming the broker.
    if (e.type === "broker_heartbeat" && e.to === "controller") {
      if (!this.arrivals.has(e.from)) this.arrivals.set(e.from, []);
      this.arrivals.get(e.from).push(t);
    }
    if (e.timer === "fence-check" && e.broker !== undefined) this.fences.push({ broker: e.broker, t });
    // A new incarnation registered after the old session expired: the controller removes
    // the old one as an unclean shutdown, which is its fence when no check came first.
    if (e.to === "controller" && e.outcome === "registered" && !this.fences.some((f) => f.broker === e.from && f.t > (this.crashes.findLast((c) => c.broker === e.from)?.t ?? -1)))
      this.fences.push({ broker: e.from, t });
    if (e.type === "crash") this.crashes.push({ broker: e.broker, t });
    if (e.timer === "isr-expiration" && e.broker !== undefined) this.isrChecks.push({ broker: e.broker, t });
    if (e.type === "produce") for (const id of e.records ?? []) if (!this.sends.has(id)) this.sends.set(id, t);
    if (e.type === "consumer_fetch_response" && e.outcome !== "ignored" && !e.error && (e.records ?? []).length) {
      if (!this.reads.has(e.to)) this.reads.set(e.to, []);
      for (const id of e.records) this.reads.get(e.to).push({ id, t, from: e.from });
    }
    for (const pr of s.producers ?? []) {
      for (const id of pr.acked ?? []) if (!this.acks.has(id)) this.acks.set(id, { t });
      for (const id of pr.failed ?? [])
        if (!this.failed.has(id)) this.failed.set(id, { t, error: e.type === "produce_response" && e.to === pr.id ? (e.error ?? null) : (e.timer ?? e.error ?? null) });
    }
    for (const v of s.violations ?? []) this.violations.push({ t, ...v });
    this.last = s;
  }

  /** The last heartbeat that reached the controller from `broker` at or before `t`
   *  (or before time zero: one interval before its first), and the fence after it. */
  heartbeatAt(broker, t, interval) {
    const times = this.arrivals.get(broker) ?? [];
    if (times.length >= 2) interval = times[1] - times[0];
    const before = times.filter((x) => x <= t);
    // None yet (a crash before the first heartbeat): the broker's grid (every incarnation
    // heartbeats on the same phase), one step at or before t.
    const phase = times.length ? times[0] % interval : 0;
    const last = before.length ? before.at(-1) : t - ((((t - phase) % interval) + interval) % interval);
    const fence = this.fences.find((f) => f.broker === broker && f.t > t);
    return { broker, t, last_heartbeat: last, fence_at: fence ? fence.t : Infinity };
  }

  finish(interval = 2000) {
    // A crashed broker's last heartbeat and fence; then every broker's phase (a cut from the
    // controller is lined up by it too).
    this.heartbeats = this.crashes.map((c) => this.heartbeatAt(c.broker, c.t, interval));
    for (const b of this.arrivals.keys()) this.heartbeats.push(this.heartbeatAt(b, -1, interval));
    const s = this.last;
    return {
      kafkaLog: this.kafkaLog ?? [],
      steps: this.steps,
      end_ms: s?.time_ms ?? 0,
      sends: this.sends,
      acks: this.acks,
      failed: this.failed,
      pending: new Set((s?.producers ?? []).flatMap((p) => p.pending ?? [])),
      reads: this.reads,
      consumersFinal: (s?.consumers ?? []).map((c) => ({ id: c.id, position: c.position, records_read: c.records_read })),
      partition: this.partition.map(({ key, ...rest }) => rest),
      replicas: (s?.replicas ?? []).map((r) => ({ broker: r.broker, alive: r.alive, role: r.role, leo: r.leo, hw: r.hw, log: r.log })),
      logTail: s?.log_tail ?? null,
      violations: this.violations,
      heartbeats: this.heartbeats,
      isrChecks: this.isrChecks,
    };
  }
}
