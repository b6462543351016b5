// Kafka itself: jars from Maven Central (cached), the client harness, node configs,
// and reading logs back with Kafka's own DumpLogSegments.

import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { runSync } from "./procs.mjs";

export class Unrunnable extends Error {}

const LOG4J = "2.24.3";

function cmpVersion(a, b) {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** "4.0" -> [4,0]; "4.0.2" -> exact. Only 4.x: the cluster is KRaft with the 4.x tools. */
export function parseKafkaVersion(v) {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(v);
  if (!m) throw new Unrunnable(`--kafka: expected a version like 4.0 or 4.0.2, got ${v}`);
  const major = Number(m[1]);
  if (major < 4)
    throw new Unrunnable(
      `Kafka ${v}: the oracle runs Kafka 4.x only (a KRaft cluster without ZooKeeper, started ` +
        `with the 4.x classes kafka.Kafka and kafka.tools.StorageTool); older versions need ` +
        `ZooKeeper or other tools`,
    );
  return { line: `${m[1]}.${m[2]}`, exact: m[3] === undefined ? null : v };
}

function pom(range) {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>hwscope.oracle</groupId>
  <artifactId>kafka-jars</artifactId>
  <version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>${range}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>${LOG4J}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>${LOG4J}</version></dependency>
  </dependencies>
</project>
`;
}

/**
 * The jars of one Kafka version, in `.tools/kafka/<version>/lib`, resolved with mvn
 * (dependency:copy-dependencies) when absent. A line ("4.0") means the newest 4.0.x that
 * Maven Central serves; a version already in the cache is used without asking again
 * (pass refresh to ask).
 */
export function resolveKafka(root, wanted, { refresh = false, log = () => {} } = {}) {
  const { line, exact } = parseKafkaVersion(wanted);
  const cache = join(root, ".tools", "kafka");
  mkdirSync(cache, { recursive: true });
  const complete = (v) => existsSync(join(cache, v, ".complete"));
  if (exact && complete(exact)) return kafkaDir(cache, exact);
  if (!exact && !refresh) {
    const have = readdirSync(cache)
      .filter((d) => d.startsWith(`${line}.`) && /^\d+\.\d+\.\d+$/.test(d) && complete(d))
      .sort(cmpVersion);
    if (have.length) return kafkaDir(cache, have.at(-1));
  }
  const [maj, min] = line.split(".").map(Number);
  const range = exact ?? `[${maj}.${min}.0,${maj}.${min + 1}.0)`;
  const tmp = join(cache, `.resolve-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, "pom.xml"), pom(range));
  log(`resolving org.apache.kafka:kafka_2.13:${range} with mvn (first time only) ...`);
  const t = Date.now();
  try {
    runSync(
      "mvn",
      [
        "-B",
        "-q",
        "-f",
        join(tmp, "pom.xml"),
        "dependency:copy-dependencies",
        `-DoutputDirectory=${join(tmp, "lib")}`,
        "-DincludeScope=runtime",
      ],
      { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 },
    );
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    const out = `${e.stdout ?? ""}${e.stderr ?? ""}`;
    if (/No versions available|Could not find artifact|could not resolve|Failed to collect/i.test(out))
      throw new Unrunnable(`Maven Central serves no org.apache.kafka:kafka_2.13 in ${range}`);
    throw new Error(`mvn failed:\n${out.split("\n").slice(-20).join("\n")}`);
  }
  const core = readdirSync(join(tmp, "lib")).find((f) => /^kafka_2\.13-[\d.]+\.jar$/.test(f));
  if (!core) throw new Error("mvn resolved no kafka_2.13 jar");
  const version = /^kafka_2\.13-([\d.]+)\.jar$/.exec(core)[1];
  writeFileSync(
    join(tmp, ".complete"),
    JSON.stringify({ version, range, resolved: new Date().toISOString(), seconds: (Date.now() - t) / 1000 }) + "\n",
  );
  const dest = join(cache, version);
  if (complete(version)) rmSync(tmp, { recursive: true, force: true });
  else {
    rmSync(dest, { recursive: true, force: true });
    renameSync(tmp, dest);
  }
  log(`Kafka ${version}: jars in ${dest}/lib (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  return kafkaDir(cache, version);
}

function kafkaDir(cache, version) {
  const dir = join(cache, version);
  return { version, dir, lib: join(dir, "lib"), classpath: `${join(dir, "lib")}/*` };
}

/** javac the client harness against this version's kafka-clients, when its source changed. */
export function compileHarness(kafka, sourceFile) {
  const src = readFileSync(sourceFile);
  const stamp = createHash("sha256").update(src).digest("hex").slice(0, 16);
  const out = join(kafka.dir, "harness", stamp);
  // One folder per source version (a few KB each): a run in progress keeps its classes
  // even when another run compiles a newer harness.
  if (!existsSync(join(out, "OracleClient.class"))) {
    const tmp = `${out}.tmp-${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    runSync("javac", ["-nowarn", "-d", tmp, "-cp", kafka.classpath, sourceFile]);
    rmSync(out, { recursive: true, force: true });
    renameSync(tmp, out);
  }
  return out;
}

/**
 * Every node of the cluster runs as its own unprivileged uid, so the jars and the harness
 * classes must be readable by any user. They are not when .tools/ lies under a private home
 * (a clean clone in CI links .tools/ to ~/.cache/hwscope/tools, and /root is mode 700): then
 * they are copied once to a world-readable folder (HWSCOPE_ORACLE_SHARED, default
 * /var/tmp/hwscope-oracle), keyed by Kafka version and harness stamp, and used from there.
 */
export function shareWithNodeUsers(kafka, harnessDir, { log = () => {}, readableByAll = readableByAnyUser } = {}) {
  const probe = [join(kafka.lib, readdirSync(kafka.lib).find((f) => f.endsWith(".jar")) ?? ""), join(harnessDir, "OracleClient.class")];
  if (probe.every(readableByAll)) return { kafka, harnessDir };
  const shared = process.env.HWSCOPE_ORACLE_SHARED || "/var/tmp/hwscope-oracle";
  const dir = join(shared, kafka.version);
  const harness = join(dir, "harness", harnessDir.split("/").at(-1));
  if (!existsSync(join(dir, ".complete"))) {
    log(`the jars under ${kafka.dir} are not readable by the nodes' users: copying them to ${dir}`);
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true, mode: 0o755 });
    cpSync(kafka.lib, join(tmp, "lib"), { recursive: true });
    writeFileSync(join(tmp, ".complete"), "");
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  }
  if (!existsSync(join(harness, "OracleClient.class"))) {
    const tmp = `${harness}.tmp-${process.pid}`;
    cpSync(harnessDir, tmp, { recursive: true });
    rmSync(harness, { recursive: true, force: true });
    renameSync(tmp, harness);
  }
  chmodAll(shared);
  return { kafka: { ...kafka, dir, lib: join(dir, "lib"), classpath: `${join(dir, "lib")}/*` }, harnessDir: harness };
}

/** Whether an unprivileged user (nobody) can read this file: every folder above it included. */
function readableByAnyUser(file) {
  try {
    runSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "test", "-r", file]);
    return true;
  } catch {
    return false;
  }
}

function chmodAll(path) {
  chmodSync(path, 0o755);
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    if (e.isDirectory()) chmodAll(p);
    else chmodSync(p, 0o644);
  }
}

export const TOPIC_KEYS = new Set(["min.insync.replicas", "unclean.leader.election.enable"]);
export const CONTROLLER_KEYS = new Set(["broker.session.timeout.ms", "broker.heartbeat.interval.ms"]);

function props(obj) {
  return (
    Object.entries(obj)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n") + "\n"
  );
}

export function controllerProps({ id, port, dir, config }) {
  const own = Object.fromEntries(Object.entries(config).filter(([k]) => CONTROLLER_KEYS.has(k)));
  return props({
    "process.roles": "controller",
    "node.id": id,
    "controller.quorum.voters": `${id}@127.0.0.1:${port}`,
    listeners: `CONTROLLER://127.0.0.1:${port}`,
    "controller.listener.names": "CONTROLLER",
    "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
    "log.dirs": dir,
    "num.network.threads": 2,
    "num.io.threads": 2,
    ...own,
  });
}

export function brokerProps({ id, port, controllerId, controllerPort, dir, config }) {
  return props({
    "process.roles": "broker",
    "node.id": id,
    "controller.quorum.voters": `${controllerId}@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port}`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${port}`,
    "inter.broker.listener.name": "PLAINTEXT",
    "controller.listener.names": "CONTROLLER",
    "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
    "log.dirs": dir,
    "broker.rack": `r${id}`,
    "replica.selector.class": "org.apache.kafka.common.replica.RackAwareReplicaSelector",
    "num.network.threads": 2,
    "num.io.threads": 2,
    "num.partitions": 1,
    "auto.create.topics.enable": false,
    // The model has no preferred-leader rebalancing; keep leadership where failover put it.
    "auto.leader.rebalance.enable": false,
    "offsets.topic.replication.factor": 1,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "share.coordinator.state.topic.replication.factor": 1,
    "share.coordinator.state.topic.min.isr": 1,
    "group.initial.rebalance.delay.ms": 0,
    ...config,
  });
}

export const LOG4J2 = (file, requestsFile = null, timersFile = null) => `status = error
appender.f.type = File
appender.f.name = F
appender.f.fileName = ${file}
appender.f.layout.type = PatternLayout
appender.f.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%c{1}] %m%n
rootLogger.level = WARN
rootLogger.appenderRef.f.ref = F
logger.partition.name = kafka.cluster.Partition
logger.partition.level = INFO
logger.state.name = state.change.logger
logger.state.level = INFO
logger.controller.name = org.apache.kafka.controller
logger.controller.level = INFO
logger.server.name = kafka.server
logger.server.level = INFO
logger.raft.name = org.apache.kafka.raft
logger.raft.level = WARN
logger.fetcher.name = kafka.server.ReplicaFetcherThread
logger.fetcher.level = INFO
logger.unifiedlog.name = kafka.log.UnifiedLog
logger.unifiedlog.level = INFO
${
  requestsFile
    ? `appender.r.type = File
appender.r.name = R
appender.r.fileName = ${requestsFile}
appender.r.layout.type = PatternLayout
appender.r.layout.pattern = %d{UNIX_MILLIS} %m%n
logger.req.name = kafka.request.logger
logger.req.level = DEBUG
logger.req.additivity = false
logger.req.appenderRef.r.ref = R
logger.repl.name = org.apache.kafka.controller.ReplicationControlManager
logger.repl.level = DEBUG
logger.repl.additivity = false
logger.repl.appenderRef.r.ref = R
`
    : ""
}${
  timersFile
    ? `appender.t.type = File
appender.t.name = T
appender.t.fileName = ${timersFile}
appender.t.layout.type = PatternLayout
appender.t.layout.pattern = %d{UNIX_MILLIS} %m%n
logger.rm.name = kafka.server.ReplicaManager
logger.rm.level = TRACE
logger.rm.additivity = false
logger.rm.appenderRef.t.ref = T
`
    : ""
}`;

/**
 * Runs of a broker's isr-expiration task (ReplicaManager.maybeShrinkIsr, scheduled at startup
 * every replica.lag.time.max.ms / 2; it logs "Evaluating ISR list ..." at TRACE) as epoch ms.
 */
export function parseIsrChecks(text) {
  const out = [];
  for (const line of text.split("\n")) {
    if (!line.includes("Evaluating ISR list")) continue;
    const t = /^(\d+) /.exec(line);
    if (t) out.push(Number(t[1]));
  }
  return out;
}

/**
 * The controller's periodic stale-broker checks (QuorumController's maybeFenceStaleBroker
 * task, every broker.session.timeout.ms / 8; ReplicationControlManager.maybeFenceOneStaleBroker
 * logs "No stale brokers found." at DEBUG or "Fencing broker N ...") as epoch ms.
 */
export function parseFenceChecks(text) {
  const out = [];
  for (const line of text.split("\n")) {
    const t = /^(\d+) /.exec(line);
    if (!t) continue;
    if (line.includes("No stale brokers found")) out.push({ epoch_ms: Number(t[1]), fenced: null });
    const f = /Fencing broker (\d+) at epoch/.exec(line);
    if (f) out.push({ epoch_ms: Number(t[1]), fenced: Number(f[1]) });
  }
  return out;
}

/**
 * Heartbeats the controller received, from its request log (kafka.request.logger at
 * DEBUG, one line per completed request): [{ broker, epoch_ms }] where epoch_ms is when
 * the request arrived (completion time minus totalTimeMs).
 */
export function parseHeartbeats(text, api = "BROKER_HEARTBEAT") {
  const out = [];
  for (const line of text.split("\n")) {
    if (!line.includes(`"${api}"`)) continue;
    const t = /^(\d+) /.exec(line);
    const b = /"request":\{"brokerId":(\d+)/.exec(line);
    const total = /"totalTimeMs":([\d.]+)/.exec(line);
    if (t && b) out.push({ broker: Number(b[1]), epoch_ms: Number(t[1]) - (total ? Number(total[1]) : 0) });
  }
  return out;
}

/** A random cluster id in Kafka's Uuid form (22 characters of URL-safe base64). */
export function clusterId() {
  let id;
  do {
    id = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
  } while (id.startsWith("-") || id.startsWith("_"));
  return id;
}

/** Kafka's DumpLogSegments over some segment files; resolves to its stdout. */
export function dumpLogSegments(kafka, files, extra = []) {
  if (!files.length) return Promise.resolve("");
  return new Promise((resolve, reject) => {
    execFile(
      "java",
      ["-Xmx256m", "-XX:-UsePerfData", "-XX:TieredStopAtLevel=1", "-cp", kafka.classpath, "kafka.tools.DumpLogSegments", "--files", files.join(","), ...extra],
      { encoding: "utf8", maxBuffer: 256 << 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`DumpLogSegments: ${stderr || err.message}`)) : resolve(stdout)),
    );
  });
}

export function segmentFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .sort()
    .map((f) => join(dir, f));
}

/** DumpLogSegments over several files prints "Dumping FILE" before each: split on it. */
export function splitDumpByFile(text) {
  const out = new Map();
  let cur = null;
  for (const line of text.split("\n")) {
    const m = /^Dumping (.*)$/.exec(line);
    if (m) {
      cur = m[1].trim();
      out.set(cur, []);
    } else if (cur) out.get(cur).push(line);
  }
  return new Map([...out].map(([k, v]) => [k, v.join("\n")]));
}

/** Records of a data log dump: [{offset, epoch, value}] in file order. */
export function parseDataDump(text) {
  const out = [];
  let epoch = null;
  for (const line of text.split("\n")) {
    const b = /^baseOffset: \d+ .*partitionLeaderEpoch: (-?\d+)/.exec(line);
    if (b) {
      epoch = Number(b[1]);
      continue;
    }
    const r = /^\| offset: (\d+) .* payload: (.*)$/.exec(line);
    if (r) out.push({ offset: Number(r[1]), epoch, value: r[2] });
  }
  return out;
}

/**
 * The partition's history from the controller's metadata log: every PartitionRecord and
 * PartitionChangeRecord of the topic, with the batch's append time (controller clock, ms)
 * and the leader epoch they imply (PartitionRegistration.merge: +1 when `leader` is set).
 * Also broker registrations and fencing, for the report.
 */
export function parseMetadataDump(text, topic) {
  const events = [];
  let batchTime = null;
  let topicId = null;
  let state = null;
  for (const line of text.split("\n")) {
    const b = /^baseOffset: \d+ .*CreateTime: (\d+)/.exec(line);
    if (b) {
      batchTime = Number(b[1]);
      continue;
    }
    const r = /^\| offset: (\d+) (?:CreateTime: (\d+) )?.* payload: (\{.*\})\s*$/.exec(line);
    if (!r) continue;
    // The record's own append time when printed, else its batch's.
    if (r[2]) batchTime = Number(r[2]);
    let rec;
    try {
      rec = JSON.parse(r[3]);
    } catch {
      continue;
    }
    const d = rec.data ?? {};
    switch (rec.type) {
      case "TOPIC_RECORD":
        if (d.name === topic) topicId = d.topicId;
        break;
      case "PARTITION_RECORD":
        if (d.topicId === topicId && d.partitionId === 0) {
          state = {
            leader: d.leader,
            leader_epoch: d.leaderEpoch,
            partition_epoch: d.partitionEpoch,
            isr: [...d.isr].sort((x, y) => x - y),
            elr: [...(d.eligibleLeaderReplicas ?? [])].sort((x, y) => x - y),
          };
          events.push({ kind: "partition", epoch_ms: batchTime, offset: Number(r[1]), ...state, record: "PartitionRecord" });
        }
        break;
      case "PARTITION_CHANGE_RECORD":
        if (d.topicId === topicId && d.partitionId === 0 && state) {
          state = { ...state, partition_epoch: state.partition_epoch + 1 };
          if (d.leader !== undefined && d.leader !== -2) {
            state.leader = d.leader;
            state.leader_epoch += 1;
          }
          if (d.isr) state.isr = [...d.isr].sort((x, y) => x - y);
          if (d.eligibleLeaderReplicas) state.elr = [...d.eligibleLeaderReplicas].sort((x, y) => x - y);
          events.push({ kind: "partition", epoch_ms: batchTime, offset: Number(r[1]), ...state, record: "PartitionChangeRecord", change: d });
        }
        break;
      case "BROKER_REGISTRATION_CHANGE_RECORD":
      case "FENCE_BROKER_RECORD":
      case "UNFENCE_BROKER_RECORD":
      case "REGISTER_BROKER_RECORD":
        events.push({ kind: "broker", epoch_ms: batchTime, type: rec.type, broker: d.brokerId ?? d.id, fenced: d.fenced, epoch: d.brokerEpoch ?? d.epoch });
        break;
      default:
    }
  }
  return events;
}
