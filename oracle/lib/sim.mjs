// The simulator's side, through its public CLI only (CONTRACT §3/§4, docs/extensions.md):
//   cargo run --release --bin hwscope -- run FILE --format jsonl [--preset P] [--log-tail N]
// The step records are read as a stream and reduced to what a user of a real cluster
// could observe: send/ack/failure times per record, what each consumer received and
// when, the controller's (leader, epoch, ISR) over time, and the final logs.

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
    this.heartbeats = []; // { broker, t, last_heartbeat, fence_at } from crash narration
    this.isrChecks = []; // { broker, t }: the leader's lag checks (timer isr-expiration)
    this.last = null;
    this.steps = 0;
  }

  step(s) {
    this.steps++;
    const t = s.time_ms;
    const e = s.event ?? {};
    const p = s.partition;
    // No leader is null in the step record and -1 (NO_LEADER) in Kafka's metadata.
    const leader = p.leader ?? -1;
    const key = `${leader}|${p.leader_epoch}|${p.isr.join(",")}`;
    if (this.partition.at(-1)?.key !== key) this.partition.push({ key, t, leader, leader_epoch: p.leader_epoch, isr: [...p.isr] });
    if (e.type === "crash") {
      // The narration names the last heartbeat the controller had (the phase is drawn from
      // the seed); the oracle lines the real broker's heartbeat phase up with it.
      const m = /last heartbeat reached the controller at (\d+) ms; the controller will fence it at (\d+) ms/.exec(s.text ?? "");
      if (m) this.heartbeats.push({ broker: e.broker, t, last_heartbeat: Number(m[1]), fence_at: Number(m[2]) });
    }
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

  finish() {
    const s = this.last;
    return {
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
