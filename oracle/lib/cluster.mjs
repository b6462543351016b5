// One run of a scenario on a real KRaft cluster on 127.0.0.1: one controller, one broker
// per replica (each in its own rack), Kafka's own Java clients, faults by SIGKILL and
// nftables; every process in its own group, all stopped at the end or on any failure.

import { parseServerLog } from "./kafkalog.mjs";
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import {
  LOG4J2,
  brokerProps,
  clusterId,
  controllerProps,
  dumpLogSegments,
  parseDataDump,
  parseFenceChecks,
  parseHeartbeats,
  parseIsrChecks,
  parseMetadataDump,
  segmentFiles,
  splitDumpByFile,
} from "./kafka.mjs";
import { Netfilter } from "./netfilter.mjs";
import { dropUnflushed } from "./unflushed.mjs";
import { killGroup, onCleanup, reniceAll, start } from "./procs.mjs";

const BROKER_JVM = ["-Xms384m", "-Xmx384m", "-XX:+UseG1GC", "-XX:-UsePerfData", "-Djava.awt.headless=true"];
const CLIENT_JVM = ["-Xms128m", "-Xmx128m", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Djava.awt.headless=true"];
const CONTROLLER_ID = 100;
export const RESTART_ALLOWANCE_MS = 15000;

const epochMicros = () => Math.round((performance.timeOrigin + performance.now()) * 1000);
const epochMs = () => performance.timeOrigin + performance.now();

function chownR(path, uid) {
  chownSync(path, uid, uid);
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    if (e.isDirectory()) chownR(p, uid);
    else chownSync(p, uid, uid);
  }
}

function asUid(uid, cmd, args) {
  return ["setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", cmd, ...args]];
}

/** A kept client's log4j2 configuration: the network layer at DEBUG, the rest at WARN. */
const CLIENT_LOG4J2 = (file) => `status = error
appender.f.type = File
appender.f.name = F
appender.f.fileName = ${file}
appender.f.layout.type = PatternLayout
appender.f.layout.pattern = %d{UNIX_MILLIS} %-5p [%c{1}] %m%n
rootLogger.level = WARN
rootLogger.appenderRef.f.ref = F
logger.net.name = org.apache.kafka.clients.NetworkClient
logger.net.level = DEBUG
logger.sel.name = org.apache.kafka.common.network.Selector
logger.sel.level = DEBUG
logger.sender.name = org.apache.kafka.clients.producer.internals.Sender
logger.sender.level = DEBUG
`;

/** A client harness process: JSON lines out, "go"/"stop" in. */
class Client {
  constructor(name, uid, runDir, kafka, harnessDir, plan, log, keep = false) {
    this.name = name;
    this.lines = [];
    this.waiters = [];
    this.exited = false;
    const dir = join(runDir, name.replace(/[^\w.-]/g, "_"));
    mkdirSync(dir, { recursive: true });
    const planFile = join(dir, "plan.json");
    writeFileSync(planFile, JSON.stringify(plan, null, 1));
    // A kept run also keeps each client's own log: its NetworkClient at DEBUG says when it
    // connected, gave a connection up, timed a request out and reconnected (F9).
    const logConf = keep ? [`-Dlog4j2.configurationFile=${join(dir, "log4j2.properties")}`] : [];
    if (keep) writeFileSync(join(dir, "log4j2.properties"), CLIENT_LOG4J2(join(dir, "client.log")));
    chownR(dir, uid);
    const err = openSync(join(dir, "stderr.log"), "a");
    const [cmd, args] = asUid(uid, "java", [...CLIENT_JVM, ...logConf, "-cp", `${harnessDir}:${kafka.classpath}`, "OracleClient", planFile]);
    this.child = start(cmd, args, { cwd: dir, env: { ...process.env, HOME: dir }, stdio: ["pipe", "pipe", err], label: name });
    closeSync(err);
    this.child.stdin.on("error", () => {});
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      let o;
      try {
        o = JSON.parse(line);
      } catch {
        return;
      }
      this.lines.push(o);
      if (o.kind === "fatal") log(`${name}: ${o.error}: ${o.message}`);
      this.waiters = this.waiters.filter((w) => !w(o));
    });
    this.child.on("exit", (code) => {
      this.exited = true;
      this.code = code;
      for (const w of this.waiters) w(null);
      this.waiters = [];
    });
  }

  /** Wait for a line of this kind (or the process's end). */
  waitFor(kind, timeoutMs) {
    const have = this.lines.find((l) => l.kind === kind);
    if (have) return Promise.resolve(have);
    if (this.exited) return Promise.reject(new Error(`${this.name} exited (${this.code}) before "${kind}"`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: no "${kind}" within ${timeoutMs / 1000} s`)), timeoutMs);
      this.waiters.push((o) => {
        if (o === null) {
          clearTimeout(timer);
          reject(new Error(`${this.name} exited (${this.code}) before "${kind}"`));
          return true;
        }
        if (o.kind === kind) {
          clearTimeout(timer);
          resolve(o);
          return true;
        }
        return false;
      });
    });
  }

  send(line) {
    if (!this.exited) this.child.stdin.write(line + "\n");
  }

  async finish(timeoutMs) {
    this.send("stop");
    try {
      await this.waitFor("end", timeoutMs);
    } catch {
      // report what we have
    }
    killGroup(this.child.pid);
  }
}

export async function runOnKafka(plan, kafka, harnessDir, opts) {
  const { portBase, keep, log, workRoot, nice = 0 } = opts;
  let niceNow = 0;
  const s = plan.scenario;
  const runDir = join(workRoot, `run-${portBase}-${process.pid}-${Date.now()}`);
  mkdirSync(runDir, { recursive: true });
  const timings = {};
  const t = (k, since) => (timings[k] = Math.round((Date.now() - since) / 100) / 10);

  // Nodes: uid = port (controller and brokers), clients get their own uids above.
  const controller = { name: "controller", id: CONTROLLER_ID, uid: portBase, port: portBase };
  const brokers = Array.from({ length: s.replicas }, (_, b) => ({ name: `b${b}`, id: b, uid: portBase + 1 + b, port: portBase + 1 + b }));
  const clientNames = [...plan.producers.map((p) => p.id), ...plan.consumers.map((c) => c.id)];
  const clientUid = new Map(clientNames.map((n, i) => [n, portBase + 10 + i]));
  const adminUid = portBase + 30;
  const setupUid = portBase + 31;
  const bootstrap = brokers.map((b) => `127.0.0.1:${b.port}`).join(",");

  const netNodes = new Map([
    ["controller", { uid: controller.uid, ports: [controller.port] }],
    ...brokers.map((b) => [b.name, { uid: b.uid, ports: [b.port] }]),
    ...clientNames.map((n) => [`client:${n}`, { uid: clientUid.get(n), ports: [] }]),
  ]);
  // Cuts of one connection between a broker and the controller (`channel`) classify those
  // connections by the requests they carry (netfilter.mjs); only runs that need it do.
  const channels = plan.faults.some((f) => f.channel)
    ? { controllerPort: controller.port, brokerUids: brokers.map((b) => b.uid) }
    : null;
  const net = new Netfilter(`hwscope_oracle_${portBase}`, netNodes, channels);
  net.create();
  onCleanup(() => net.destroy());
  if (!keep) onCleanup(() => rmSync(runDir, { recursive: true, force: true }));

  // Storage and configs.
  let since = Date.now();
  const cid = clusterId();
  const nodeDir = (n) => join(runDir, n.name);
  const propsFile = (n) => join(nodeDir(n), "server.properties");
  const dataDir = (n) => join(nodeDir(n), "data");
  const requestsLog = join(nodeDir(controller), "requests.log");
  const align = opts.alignment ?? null;
  const timersLog = (b) => join(nodeDir(b), "timers.log");
  for (const n of [controller, ...brokers]) {
    mkdirSync(dataDir(n), { recursive: true });
    const timers = align?.kind === "isr-expiration" && n.name === `b${align.broker}` ? timersLog(n) : null;
    writeFileSync(join(nodeDir(n), "log4j2.properties"), LOG4J2(join(nodeDir(n), "server.log"), n === controller ? requestsLog : null, timers));
  }
  const heartbeats = () => (existsSync(requestsLog) ? parseHeartbeats(readFileSync(requestsLog, "utf8")) : []);
  writeFileSync(propsFile(controller), controllerProps({ id: controller.id, port: controller.port, dir: dataDir(controller), config: plan.brokerConfig }));
  for (const b of brokers)
    writeFileSync(
      propsFile(b),
      brokerProps({ id: b.id, port: b.port, controllerId: controller.id, controllerPort: controller.port, dir: dataDir(b), config: plan.brokerConfig }),
    );
  await Promise.all(
    [controller, ...brokers].map(
      (n) =>
        new Promise((resolve, reject) => {
          const p = start("java", ["-Xmx256m", "-XX:-UsePerfData", "-XX:TieredStopAtLevel=1", "-cp", kafka.classpath, "kafka.tools.StorageTool", "format", "-t", cid, "-c", propsFile(n)], {
            stdio: ["ignore", "ignore", "pipe"],
            label: `format ${n.name}`,
          });
          let err = "";
          p.stderr.on("data", (d) => (err += d));
          p.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`StorageTool format ${n.name}: ${err.trim()}`))));
        }),
    ),
  );
  for (const n of [controller, ...brokers]) chownR(nodeDir(n), n.uid);
  t("format_s", since);

  // Start the nodes.
  since = Date.now();
  const procs = new Map();
  const launch = (n) => {
    const out = openSync(join(nodeDir(n), "stdout.log"), "a");
    const [cmd0, args0] = asUid(n.uid, "java", [
      ...BROKER_JVM,
      `-Dlog4j2.configurationFile=${join(nodeDir(n), "log4j2.properties")}`,
      `-Djava.io.tmpdir=${nodeDir(n)}`,
      "-cp",
      kafka.classpath,
      "kafka.Kafka",
      propsFile(n),
    ]);
    // A broker restarted during the measured window gets the window's priority from the start.
    const [cmd, args] = niceNow ? ["nice", ["-n", String(niceNow), cmd0, ...args0]] : [cmd0, args0];
    const child = start(cmd, args, { cwd: nodeDir(n), env: { ...process.env, HOME: nodeDir(n) }, stdio: ["ignore", out, out], label: n.name });
    closeSync(out);
    procs.set(n.name, child);
    return child;
  };
  launch(controller);
  for (const b of brokers) launch(b);

  const clients = [];
  const mkClient = (name, uid, p) => {
    const c = new Client(name, uid, runDir, kafka, harnessDir, { topic: "hwscope", bootstrap, ...p }, log, keep);
    clients.push(c);
    return c;
  };
  try {
    const setup = mkClient("setup", setupUid, {
      role: "setup",
      replicas: s.replicas,
      topic_config: plan.topicConfig,
      initial_records: s.initial,
    });
    await setup.waitFor("setup_done", 180_000);
    t("cluster_up_s", since);
    since = Date.now();

    const admin = mkClient("admin", adminUid, { role: "admin", poll_ms: 25 });
    const producers = plan.producers.map((p) =>
      mkClient(p.id, clientUid.get(p.id), { role: "producer", id: p.id, config: p.config, events: p.events, record_bytes: s.record_bytes }),
    );
    const consumers = plan.consumers.map((c) =>
      mkClient(c.id, clientUid.get(c.id), {
        role: "consumer",
        id: c.id,
        config: c.config,
        fetch_from: c.fetch_from,
        position: c.position,
        initial_records: s.initial,
      }),
    );
    const readies = await Promise.all([admin, ...producers, ...consumers].map((c) => c.waitFor("ready", 120_000)));
    t("clients_ready_s", since);
    const followerReads = plan.consumers
      .map((c, i) => ({ c, r: readies[1 + producers.length + i] }))
      .filter(({ c }) => c.fetch_from !== null)
      .map(({ c, r }) => ({ id: c.id, want: c.fetch_from, got: r.preferred_read_replica ?? null }));
    for (const f of followerReads)
      if (f.got !== f.want) log(`warning: consumer ${f.id} asked to read from broker ${f.want}, its preferred read replica is ${f.got}`);

    if (nice) {
      niceNow = nice;
      timings.reniced_threads = reniceAll(nice);
    }
    timings.nice = nice;

    // Time zero: about a second from now, on the wall clock every process shares. When the
    // run's timing hangs on one broker's session (a crash or a pause), T0 is placed so that
    // this broker's heartbeats fall where the simulator's do (the phase its seed drew), so
    // that "fenced 9 s after its last heartbeat" lands at the same scenario time.
    //
    // Likewise a run that hangs on the leader's lag check (a follower cut off) is placed so
    // that the leader's isr-expiration task (every replica.lag.time.max.ms / 2 from the
    // broker's start) runs when the simulator's does.
    let t0 = epochMs() + 1000;
    if (align) {
      let times = [];
      const deadline = Date.now() + (align.kind === "heartbeat" ? 8000 : align.period_ms * 2 + 2000);
      const observe = () =>
        align.kind === "heartbeat"
          ? heartbeats().filter((h) => h.broker === align.broker).map((h) => h.epoch_ms)
          : existsSync(timersLog(brokers[align.broker])) ? parseIsrChecks(readFileSync(timersLog(brokers[align.broker]), "utf8")) : [];
      while (Date.now() < deadline) {
        times = observe();
        if (times.length >= (align.kind === "heartbeat" ? 4 : 2)) break;
        await sleep(250);
      }
      if (times.length >= 2) {
        const recent = times.slice(-5);
        const diffs = recent.slice(1).map((x, i) => x - recent[i]).sort((a, b) => a - b);
        // Heartbeats are sent an interval after the last answer, so their period drifts by the
        // round trip: measure it. The lag check runs at a fixed rate: use its configured period.
        const period = align.kind === "heartbeat" ? diffs[diffs.length >> 1] : align.period_ms;
        const base = recent.at(-1) - align.phase_ms;
        t0 = base + Math.ceil((epochMs() + 1000 - base) / period) * period;
        timings.alignment = { kind: align.kind, broker: align.broker, phase_ms: align.phase_ms, period_ms: Math.round(period * 10) / 10 };
      } else log(`warning: no ${align.kind} times of broker ${align.broker} observed: T0 not aligned`);
    }
    const t0us = Math.round(t0 * 1000);
    t0 = t0us / 1000;
    log(`time zero: ${new Date(t0).toISOString()}`);
    for (const c of [admin, ...producers, ...consumers]) c.send(`go ${t0us}`);

    // Faults, each at T0 + at_ms (sleep, then a short spin for the last 2 ms).
    const applied = [];
    const down = new Map(); // broker name -> promise of its killed process's exit
    const exited = (child) =>
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((res) => child.once("exit", res));
    const waitUntil = async (atMs) => {
      const target = t0 + atMs;
      const left = target - epochMs();
      if (left > 3) await sleep(left - 2);
      while (epochMs() < target) {
        // spin
      }
    };
    // A cut scripted at time zero goes in 150 ms early: applying one takes 10–50 ms (an nft
    // call), and the simulator cuts before it sends anything scripted at the same instant
    // (scenario order). Applied at T0, a write sent at 0 reached the follower first
    // (kip279-fast-leader-change as 4.0: broker 1 had p1-1, so its broker-log offsets were
    // one higher than the simulator's).
    const early = (f) => f.at_ms === 0 && f.kind === "partition";
    // A crash scripted less than 20 ms after a write waits (at most 250 ms) until that write
    // was answered: the simulator's write at 0 is acknowledged at 2 ms, before a crash at 2 ms
    // (kip279-fast-leader-change), while a real producer under load had not even reached the
    // leader by then and its write went to the next leader instead.
    const answered = (name, id) => producers.find((c) => c.name === name)?.lines.some((l) => l.kind === "ack" && l.id === id) ?? true;
    const writesJustBefore = (atMs) =>
      plan.producers.flatMap((p) => p.events.filter((e) => e.at_ms < atMs && atMs - e.at_ms < 20).flatMap((e) => e.ids.map((id) => [p.id, id])));
    for (const f of plan.faults) {
      await waitUntil(early(f) ? -150 : f.at_ms);
      if (f.kind === "crash") {
        const writes = writesJustBefore(f.at_ms);
        const until = epochMs() + 250;
        while (writes.some(([p, id]) => !answered(p, id)) && epochMs() < until) await sleep(1);
      }
      const started = epochMs() - t0;
      const rec = { ...f, t: Math.round(started * 1000) / 1000 };
      if (f.kind === "crash") {
        const b = brokers[f.broker];
        if (down.has(b.name)) rec.note = "already down";
        else {
          killGroup(procs.get(b.name).pid);
          const gone = exited(procs.get(b.name));
          // crash.unflushed: once the process is gone, its last records go as in a power cut.
          down.set(b.name, f.unflushed ? gone.then(() => (rec.unflushed = dropUnflushed(join(dataDir(b), "hwscope-0"), f.unflushed))) : gone);
        }
      } else if (f.kind === "restart") {
        const b = brokers[f.broker];
        if (!down.has(b.name)) rec.note = "still running: not restarted";
        else {
          // The killed JVM must be gone (its data directory lock released) before the new one starts.
          await down.get(b.name);
          down.delete(b.name);
          launch(b);
        }
      } else if (f.kind === "pause" || f.kind === "resume") {
        const b = brokers[f.broker];
        if (down.has(b.name)) rec.note = "not running";
        else killGroup(procs.get(b.name).pid, f.kind === "pause" ? "SIGSTOP" : "SIGCONT");
      } else if (f.kind === "partition") {
        for (const [a, b] of f.dirs) net.cut(a, b, f.channel);
      } else if (f.kind === "heal") {
        for (const [a, b] of f.dirs) net.heal(a, b, f.channel);
      }
      rec.done_t = Math.round((epochMs() - t0) * 1000) / 1000;
      delete rec.where;
      applied.push(rec);
    }
    // A restarted broker is a new JVM: it takes seconds before it even asks to register.
    // The run goes on that much longer, and the simulator's restart is later moved to the
    // moment the real broker asked (driver.mjs), so both sides see the same timeline.
    const restarted = applied.filter((f) => f.kind === "restart" && !f.note);
    let extra = 0;
    await waitUntil(s.stop_at_ms + 300);
    if (restarted.length) {
      // Go on until every restarted broker has asked to register (at most the allowance),
      // then as long again as the latest of them was late.
      const asked = () => {
        const regs = existsSync(requestsLog) ? parseHeartbeats(readFileSync(requestsLog, "utf8"), "BROKER_REGISTRATION") : [];
        return restarted.map((f) => regs.find((r) => r.broker === f.broker && r.epoch_ms - t0 > f.t)?.epoch_ms - t0 - f.at_ms);
      };
      let lates = asked();
      while (lates.some((x) => Number.isNaN(x)) && epochMs() < t0 + s.stop_at_ms + RESTART_ALLOWANCE_MS) {
        await sleep(250);
        lates = asked();
      }
      extra = lates.some((x) => Number.isNaN(x)) ? RESTART_ALLOWANCE_MS : Math.ceil(Math.max(...lates));
      await waitUntil(s.stop_at_ms + extra + 300);
    }
    since = Date.now();
    await Promise.all([admin, ...producers, ...consumers].map((c) => c.finish(8000)));

    // Stop the cluster where it stands (no controlled shutdown: it would move leaders)
    // and read the logs back with Kafka's own tool.
    for (const child of procs.values()) killGroup(child.pid);
    await sleep(300);
    const partitionDir = (b) => join(dataDir(b), "hwscope-0");
    const logs = {};
    // Two JVMs, not one per file: the metadata log, then every broker's segments at once.
    const [metaDump, dataDump] = await Promise.all([
      dumpLogSegments(kafka, segmentFiles(join(dataDir(controller), "__cluster_metadata-0")), ["--cluster-metadata-decoder"]),
      dumpLogSegments(kafka, brokers.flatMap((b) => segmentFiles(partitionDir(b))), ["--print-data-log"]),
    ]);
    const metadata = parseMetadataDump(metaDump, "hwscope").map((e) => ({ ...e, t: e.epoch_ms - t0 }));
    const perFile = splitDumpByFile(dataDump);
    for (const b of brokers) {
      logs[b.id] = segmentFiles(partitionDir(b)).flatMap((f) => parseDataDump(perFile.get(f) ?? ""));
    }
    t("collect_s", since);

    const registrations = existsSync(requestsLog) ? parseHeartbeats(readFileSync(requestsLog, "utf8"), "BROKER_REGISTRATION") : [];
    const restarts = applied
      .filter((f) => f.kind === "restart" && !f.note)
      .map((f) => {
        const first = registrations.find((r) => r.broker === f.broker && r.epoch_ms - t0 > f.t);
        const up = first ? Math.round((first.epoch_ms - t0) * 10) / 10 : null;
        // Asked only after the run was over: it did not come back within the allowance.
        return { broker: f.broker, at_ms: f.at_ms, up_t: up !== null && up <= s.stop_at_ms + extra ? up : null, asked_t: up };
      });
    const warmup = producers.flatMap((c) => c.lines.find((l) => l.kind === "ready")?.warmup_ack_ms ?? []);
    const out = {
      kafka_version: kafka.version,
      restarts,
      warmup_ack_ms: warmup,
      stop_ms: s.stop_at_ms + extra,
      t0_epoch_ms: t0,
      run_dir: keep ? runDir : null,
      faults: applied,
      follower_reads: followerReads,
      producers: Object.fromEntries(producers.map((c) => [c.name, c.lines])),
      consumers: Object.fromEntries(consumers.map((c) => [c.name, c.lines])),
      admin: admin.lines,
      metadata,
      heartbeats: heartbeats().map((h) => ({ broker: h.broker, t: Math.round((h.epoch_ms - t0) * 10) / 10 })),
      fence_checks: existsSync(requestsLog)
        ? parseFenceChecks(readFileSync(requestsLog, "utf8"))
            .map((c) => ({ ...c, t: Math.round((c.epoch_ms - t0) * 10) / 10 }))
            .filter((c) => c.t > -3000)
        : [],
      logs,
      // Each node's server.log, by kind and values (kafkalog.mjs): compared with the simulator's.
      kafka_log: [controller, ...brokers].flatMap((n) => {
        // The controller's ReplicationControlManager (fencing) writes to requests.log here.
        // Lines before time zero (topic creation, warm-up) precede the simulated run.
        const files = [join(nodeDir(n), "server.log"), ...(n === controller ? [requestsLog] : [])];
        return files.flatMap((f) => (existsSync(f) ? parseServerLog(readFileSync(f, "utf8"), n.name, "hwscope", t0) : []));
      }),
      initial: s.initial,
      timings,
    };
    if (keep) writeFileSync(join(runDir, "real.json"), JSON.stringify(out, null, 1));
    return out;
  } finally {
    for (const c of clients) killGroup(c.child.pid);
    for (const child of procs.values()) killGroup(child.pid);
    if (keep) log(`kept the run's files in ${runDir}`);
  }
}

/**
 * Where a run keeps its nodes' data and logs: in memory (/dev/shm) when there is one, so
 * that a broker's log appends never wait on disk writeback caused by other work on the
 * machine (the real cluster measures Kafka, not the disk); else under .tools/.
 */
export function defaultWorkRoot(root) {
  const shm = "/dev/shm";
  const dir = existsSync(shm) ? join(shm, "hwscope-oracle") : join(root, ".tools", "oracle-runs");
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o755 });
  return dir;
}
