// The oracle's own logic, without a Kafka cluster: how a scenario becomes a real-cluster
// plan (and what it refuses), how Kafka's tool output is read back, and how real and
// simulated observations are judged. The real-cluster runs are scripts/oracle-suite.mjs.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compare, realObservations, verdictOf } from "../../oracle/lib/compare.mjs";
import {
  Unrunnable,
  parseDataDump,
  parseFenceChecks,
  parseHeartbeats,
  parseKafkaVersion,
  parseMetadataDump,
  splitDumpByFile,
} from "../../oracle/lib/kafka.mjs";
import { Netfilter } from "../../oracle/lib/netfilter.mjs";
import { fenceCheckPhase, heartbeatPhases } from "../../oracle/lib/phases.mjs";
import { kafkaLineForPreset, planFor } from "../../oracle/lib/scenario.mjs";
import { judge } from "../../scripts/oracle-suite.mjs";

test("record ids count per producer in time order, a repeat keeping its place", () => {
  const plan = planFor({
    format: 1,
    producers: [{ id: "a", acks: "all" }, { id: "b", acks: 1 }],
    events: [
      { at_ms: 100, produce: { producer: "a", records: 1 }, repeat: { count: 3, every_ms: 100 } },
      { at_ms: 200, produce: { producer: "b", records: 2 } },
      { at_ms: 200, produce: { producer: "a", records: 1 } },
    ],
  });
  assert.deepEqual(plan.recordIds, ["a-1", "a-2", "a-3", "a-4", "b-1", "b-2"]);
  assert.deepEqual(plan.producers[0].events, [
    { at_ms: 100, ids: ["a-1"] },
    { at_ms: 200, ids: ["a-2"] },
    { at_ms: 200, ids: ["a-3"] },
    { at_ms: 300, ids: ["a-4"] },
  ]);
  assert.equal(plan.series.get("a-4"), "events[0]");
  assert.equal(plan.series.has("a-3"), false);
  assert.equal(plan.producers[1].config.acks, "1");
});

test("settings go where Kafka reads them: topic, brokers, controller, clients", () => {
  const plan = planFor({
    format: 1,
    config: { "min.insync.replicas": 2, "replica.fetch.wait.max.ms": 100, "broker.session.timeout.ms": 6000 },
    producers: [{ id: "p1", acks: "all", "enable.idempotence": false }],
    consumers: [{ id: "c1", fetch_from: 2, "fetch.max.wait.ms": 100 }],
  });
  assert.deepEqual(plan.topicConfig, { "min.insync.replicas": 2 });
  assert.equal(plan.brokerConfig["replica.fetch.wait.max.ms"], 100);
  assert.equal(plan.producers[0].config["enable.idempotence"], false);
  assert.deepEqual(plan.consumers[0], { id: "c1", fetch_from: 2, position: 0, config: { "fetch.max.wait.ms": 100 } });
});

test("presets map to Kafka lines; what a real cluster cannot do is refused, named", () => {
  assert.equal(kafkaLineForPreset(undefined), "4.0");
  assert.equal(kafkaLineForPreset("latest"), "4.0");
  assert.equal(kafkaLineForPreset("kafka-4.1"), "4.1");
  assert.throws(() => kafkaLineForPreset("kafka-3.7"), (e) => e instanceof Unrunnable && /4\.x only/.test(e.message));
  assert.throws(() => kafkaLineForPreset("textbook"), /no Kafka release behaves like it/);
  assert.throws(() => parseKafkaVersion("3.9.1"), /4\.x only/);
  assert.deepEqual(parseKafkaVersion("4.0"), { line: "4.0", exact: null });
  const refused = [
    [{ network: { latency_ms: 1, links: [{ from: 1, to: 0, latency_ms: 20 }] } }, /^network:/],
    [{ network: { latency_ms: 1, jitter_ms: 3 } }, /jitter_ms/],
    [{ behavior: { long_poll: false } }, /^behavior: long_poll/],
    [{ events: [{ at_ms: 1, add_consumer: { id: "c9" } }] }, /add_consumer/],
    [{ events: [{ at_ms: 1, partition: { between: [0, "nobody"] } }] }, /unknown endpoint "nobody"/],
    [{ events: [{ at_ms: 1, restart: { broker: 5 } }] }, /no broker 5/],
  ];
  for (const [extra, re] of refused) assert.throws(() => planFor({ format: 1, ...extra }), (e) => e instanceof Unrunnable && re.test(e.message), JSON.stringify(extra));
  // crash.unflushed runs: the oracle cuts the log back once the process is gone (unflushed.mjs).
  const unflushed = planFor({ format: 1, events: [{ at_ms: 1, crash: { broker: 0, unflushed: 2 } }] });
  assert.deepEqual(unflushed.faults.map((f) => [f.kind, f.broker, f.unflushed]), [["crash", 0, 2]]);
  // The same scenario as 4.0 on request: the preset is not consulted.
  assert.equal(planFor({ format: 1, preset: "kafka-0.10" }, { kafkaOverride: "4.0" }).kafkaLine, "4.0");
});

test("partitions name directed cuts between brokers, the controller and clients", () => {
  const plan = planFor({
    format: 1,
    producers: [{ id: "p1", acks: "all" }],
    events: [
      { at_ms: 1, partition: { between: [0, "controller"] } },
      { at_ms: 2, partition: { from: 0, to: "p1" } },
      { at_ms: 3, heal: { between: [1, 2] } },
    ],
  });
  assert.deepEqual(
    plan.faults.map((f) => f.dirs),
    [
      [["b0", "controller"], ["controller", "b0"]],
      [["b0", "client:p1"]],
      [["b1", "b2"], ["b2", "b1"]],
    ],
  );
  const net = new Netfilter("t", new Map([["b0", { uid: 19501, ports: [19501] }], ["client:p1", { uid: 19510, ports: [] }]]));
  // b0 → p1: the client has no listener; what b0 sends p1 are answers on connections p1 opened.
  assert.deepEqual(net.elements("b0", "client:p1"), { request: [], answer: ["19510 . 19501"] });
  assert.deepEqual(net.elements("client:p1", "b0"), { request: ["19510 . 19501"], answer: [] });
});

test("a cut of one broker→controller connection: planned with its channel, refused elsewhere, one nft element on the flagged mark", () => {
  const plan = planFor({
    format: 1,
    replicas: 2,
    events: [
      { at_ms: 1, partition: { from: 0, to: "controller", channel: "alter_partition" } },
      { at_ms: 2, heal: { from: 0, to: "controller", channel: "alter_partition" } },
    ],
  });
  assert.deepEqual(plan.faults.map((f) => [f.dirs, f.channel]), [
    [[["b0", "controller"]], "alter_partition"],
    [[["b0", "controller"]], "alter_partition"],
  ]);
  assert.throws(() => planFor({ format: 1, events: [{ at_ms: 1, partition: { between: [0, 1], channel: "heartbeat" } }] }), /events\[0\]\.partition\.channel/);
  assert.throws(() => planFor({ format: 1, events: [{ at_ms: 1, partition: { from: 0, to: "controller", channel: "fetch" } }] }), /must be one of alter_partition, heartbeat, metadata/);
  const nodes = new Map([["controller", { uid: 19500, ports: [19500] }], ["b0", { uid: 19501, ports: [19501] }]]);
  const net = new Netfilter("t", nodes, { controllerPort: 19500, brokerUids: [19501] });
  // The AlterPartition connection alone: broker 0's requests on the connection flagged 0x10000000.
  assert.deepEqual(net.elements("b0", "controller", "alter_partition").request, [`${19501 | 0x10000000} . 19500`]);
  // Its answers, for a cut the other way, on the same flagged connection.
  assert.deepEqual(net.elements("controller", "b0", "heartbeat").answer, [`${19501 | 0x20000000} . 19500`]);
  // A whole-link cut in such a run lists every flagged connection too.
  assert.equal(net.elements("b0", "controller").request.length, 4);
  // The rules that flag a connection match the API key at payload offset 4, only bare uids.
  assert.match(net.channelRules(), /tcp dport 19500 ct mark \{ 19501 \} @ih,32,16 56 ct mark set ct mark \| 0x10000000/);
  // Without channel rules, a channel cut is refused rather than silently cutting nothing.
  assert.throws(() => new Netfilter("t", nodes).elements("b0", "controller", "metadata"), /needs the channel rules/);
  // Broker 0's heartbeats are not stopped by a cut of its AlterPartition connection: its phase
  // is read before its crash (34501), not before the cut (at 5000).
  const p2 = planFor({
    format: 1,
    replicas: 2,
    events: [
      { at_ms: 5000, partition: { from: 0, to: "controller", channel: "alter_partition" } },
      { at_ms: 36000, crash: { broker: 0 } },
      { at_ms: 37000, crash: { broker: 1 } },
    ],
    stop_at_ms: 40000,
  });
  const beats = [{ broker: 0, t: 4221 }, { broker: 0, t: 34501 }, { broker: 1, t: 36151 }];
  assert.deepEqual(heartbeatPhases(beats, p2).heartbeat_ms, [500, 150]);
});

const DATA_DUMP = `Dumping /x/b0/hwscope-0/00000000000000000000.log
Log starting offset: 0
baseOffset: 100 lastOffset: 100 count: 1 baseSequence: 0 lastSequence: 0 producerId: 1 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 1489 CreateTime: 1796283325767 size: 170 magic: 2 compresscodec: none crc: 2899459035 isvalid: true
| offset: 100 CreateTime: 1796283325767 keySize: -1 valueSize: 100 sequence: 0 headerKeys: [] payload: p1-1|.....
baseOffset: 101 lastOffset: 102 count: 2 baseSequence: 1 lastSequence: 2 producerId: 1 producerEpoch: 0 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 1659 CreateTime: 1796283327273 size: 170 magic: 2 compresscodec: none crc: 1 isvalid: true
| offset: 101 CreateTime: 1796283327273 keySize: -1 valueSize: 4 sequence: 1 headerKeys: [] payload: p1-2
| offset: 102 CreateTime: 1796283327273 keySize: -1 valueSize: 4 sequence: 2 headerKeys: [] payload: p1-2
Dumping /x/b1/hwscope-0/00000000000000000000.log
Log starting offset: 0
`;

test("DumpLogSegments output: records with their leader epoch, split per file", () => {
  const files = splitDumpByFile(DATA_DUMP);
  assert.deepEqual([...files.keys()], ["/x/b0/hwscope-0/00000000000000000000.log", "/x/b1/hwscope-0/00000000000000000000.log"]);
  assert.deepEqual(parseDataDump(files.get("/x/b0/hwscope-0/00000000000000000000.log")), [
    { offset: 100, epoch: 0, value: "p1-1|....." },
    { offset: 101, epoch: 3, value: "p1-2" },
    { offset: 102, epoch: 3, value: "p1-2" },
  ]);
  assert.deepEqual(parseDataDump(files.get("/x/b1/hwscope-0/00000000000000000000.log")), []);
});

const META = (payload, t) =>
  `baseOffset: 1 lastOffset: 1 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 1 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: ${t} size: 87 magic: 2 compresscodec: none crc: 1 isvalid: true
| offset: 1 CreateTime: ${t} keySize: -1 valueSize: 19 sequence: -1 headerKeys: [] payload: ${JSON.stringify(payload)}`;

test("the controller's metadata log: the leader epoch moves with the leader field only", () => {
  const topicId = "H53qeSOkRNiXOIMngqDKYQ";
  const text = [
    META({ type: "TOPIC_RECORD", version: 0, data: { name: "hwscope", topicId } }, 1000),
    META({ type: "PARTITION_RECORD", version: 2, data: { partitionId: 0, topicId, replicas: [0, 1, 2], isr: [0, 1, 2], leader: 0, leaderEpoch: 0, partitionEpoch: 0 } }, 1000),
    META({ type: "PARTITION_RECORD", version: 2, data: { partitionId: 0, topicId: "other", isr: [1], leader: 1, leaderEpoch: 0, partitionEpoch: 0 } }, 1000),
    META({ type: "BROKER_REGISTRATION_CHANGE_RECORD", version: 0, data: { brokerId: 2, brokerEpoch: 19, fenced: 1 } }, 5000),
    META({ type: "PARTITION_CHANGE_RECORD", version: 0, data: { partitionId: 0, topicId, isr: [1, 0] } }, 5000),
    META({ type: "PARTITION_CHANGE_RECORD", version: 0, data: { partitionId: 0, topicId, leader: 1, isr: [1] } }, 7000),
  ].join("\n");
  const ev = parseMetadataDump(text, "hwscope");
  const parts = ev.filter((e) => e.kind === "partition").map(({ epoch_ms, leader, leader_epoch, partition_epoch, isr }) => ({ epoch_ms, leader, leader_epoch, partition_epoch, isr }));
  assert.deepEqual(parts, [
    { epoch_ms: 1000, leader: 0, leader_epoch: 0, partition_epoch: 0, isr: [0, 1, 2] },
    { epoch_ms: 5000, leader: 0, leader_epoch: 0, partition_epoch: 1, isr: [0, 1] },
    { epoch_ms: 7000, leader: 1, leader_epoch: 1, partition_epoch: 2, isr: [1] },
  ]);
  assert.deepEqual(ev.filter((e) => e.kind === "broker").map((e) => [e.broker, e.fenced]), [[2, 1]]);
});

test("the controller's request log: heartbeat arrival times, registrations, fencing checks", () => {
  const log = [
    `1796283331000 Completed request:{"requestHeader":{"requestApiKeyName":"BROKER_HEARTBEAT"},"request":{"brokerId":2,"brokerEpoch":13},"response":{},"totalTimeMs":1.5}`,
    `1796283331200 Completed request:{"requestHeader":{"requestApiKeyName":"BROKER_REGISTRATION"},"request":{"brokerId":0,"clusterId":"x"},"totalTimeMs":3}`,
    `1796283331733 No stale brokers found.`,
    `1796283335113 Fencing broker 2 at epoch 13 because its session has timed out.`,
  ].join("\n");
  assert.deepEqual(parseHeartbeats(log), [{ broker: 2, epoch_ms: 1796283330998.5 }]);
  assert.deepEqual(parseHeartbeats(log, "BROKER_REGISTRATION"), [{ broker: 0, epoch_ms: 1796283331197 }]);
  assert.deepEqual(parseFenceChecks(log), [
    { epoch_ms: 1796283331733, fenced: null },
    { epoch_ms: 1796283335113, fenced: 2 },
  ]);
});

test("the real stale-broker check grid becomes phases.fence_check_ms: the last check before the first fence", () => {
  const checks = [
    { t: -500, fenced: null },
    { t: 640.2, fenced: null },
    { t: 1765.9, fenced: null },
    { t: 2891.4, fenced: null },
    { t: 3301, fenced: 2 },
    { t: 3311, fenced: null },
  ];
  // 2891.4 → 2891, period 9000 / 8 = 1125: phase 641.
  assert.deepEqual(fenceCheckPhase(checks, {}), { phase_ms: 641, period_ms: 1125, from_t: 2891.4 });
  assert.equal(fenceCheckPhase(checks, { "broker.session.timeout.ms": 18000 }).phase_ms, 2891 % 2250);
  // No fence: the last check; no checks: nothing to pin.
  assert.equal(fenceCheckPhase(checks.slice(0, 3), {}).from_t, 1765.9);
  assert.equal(fenceCheckPhase([], {}), null);
  assert.equal(fenceCheckPhase(undefined, {}), null);
});

test("every broker's real heartbeats become phases.heartbeat_ms, read before the fault that stops each", () => {
  const plan = planFor({
    format: 1,
    replicas: 3,
    events: [
      { at_ms: 3000, crash: { broker: 1 } },
      { at_ms: 5000, partition: { between: [2, "controller"] } },
    ],
    stop_at_ms: 9000,
  });
  // Arrivals drift a few ms per beat; each broker is read at its own fault (b0: the first fault).
  const hb = (broker, ...ts) => ts.map((t) => ({ broker, t }));
  const heartbeats = [...hb(0, -1500, 501, 2504, 4508), ...hb(1, -700.4, 1302, 3306), ...hb(2, -90, 1913, 3917, 5921)];
  assert.deepEqual(heartbeatPhases(heartbeats, plan), { heartbeat_ms: [503, 1301, 1916], interval_ms: 2000 });
  // A broker never heard: nothing to pin.
  assert.equal(heartbeatPhases(hb(0, 501), plan), null);
});

// A small run on both sides, built by hand.
function fixture({ realAckMs = 6, realStates = null, dup = false } = {}) {
  const plan = planFor({
    format: 1,
    replicas: 2,
    producers: [{ id: "p1", acks: "all" }],
    consumers: [{ id: "c-leader" }, { id: "c-follower", fetch_from: 1 }],
    events: [
      { at_ms: 1000, produce: { producer: "p1", records: 1 } },
      { at_ms: 3000, crash: { broker: 1 } },
    ],
    stop_at_ms: 20000,
  });
  const real = {
    producers: { p1: [{ kind: "send", id: "p1-1", t: 1000.2 }, { kind: "ack", id: "p1-1", offset: 0, t: 1000.2 + realAckMs }] },
    consumers: {
      "c-leader": [{ kind: "recv", id: "p1-1", offset: 0, t: 1008 }],
      "c-follower": [{ kind: "recv", id: "p1-1", offset: 0, t: 1510 }],
    },
    metadata: (realStates ?? [
      [-5000, 0, 0, [0, 1]],
      [12000, 0, 0, [0]],
    ]).map(([t, leader, leader_epoch, isr]) => ({ kind: "partition", t, leader, leader_epoch, isr, elr: [] })),
    logs: { 0: [{ offset: 0, epoch: 0, value: "p1-1" }, ...(dup ? [{ offset: 1, epoch: 0, value: "p1-1" }] : [])], 1: [] },
    heartbeats: [],
  };
  const sim = {
    sends: new Map([["p1-1", 1000]]),
    acks: new Map([["p1-1", { t: 1004 }]]),
    failed: new Map(),
    pending: new Set(),
    reads: new Map([
      ["c-leader", [{ id: "p1-1", t: 1004 }]],
      ["c-follower", [{ id: "p1-1", t: 1505 }]],
    ]),
    partition: [
      { t: 0, leader: 0, leader_epoch: 0, isr: [0, 1] },
      { t: 12000, leader: 0, leader_epoch: 0, isr: [0] },
    ],
    finalLeader: 0,
    logs: { 0: [{ offset: 0, epoch: 0, id: "p1-1" }], 1: [] },
    heartbeats: [],
  };
  return { plan, real, sim };
}

test("agreement within tolerance; each kind of difference is caught", () => {
  let { plan, real, sim } = fixture();
  let rows = compare(plan, realObservations(real, plan), sim);
  assert.equal(verdictOf(rows, true), "agree", JSON.stringify(rows.filter((r) => r.verdict !== "ok")));
  const lag = rows.find((r) => r.kind === "lag");
  assert.equal(lag.real.median, 502);
  assert.equal(lag.sim.median, 501);

  // An acknowledgement 500 ms late: a timer the model lacks, far outside the noise.
  ({ plan, real, sim } = fixture({ realAckMs: 500 }));
  rows = compare(plan, realObservations(real, plan), sim);
  assert.equal(rows.find((r) => r.kind === "ack").verdict, "differs");

  // A controller state the model does not have: sequences must be equal.
  ({ plan, real, sim } = fixture({ realStates: [[-5000, 0, 0, [0, 1]], [9000, 1, 1, [1]], [12000, 1, 1, [0, 1]]] }));
  rows = compare(plan, realObservations(real, plan), sim);
  assert.deepEqual(rows.filter((r) => r.kind === "partition").map((r) => r.verdict), ["ok", "differs", "differs"]);

  // The same state 800 ms later than the model, 9 s after the crash: 5% is 450 ms.
  ({ plan, real, sim } = fixture({ realStates: [[-5000, 0, 0, [0, 1]], [12800, 0, 0, [0]]] }));
  rows = compare(plan, realObservations(real, plan), sim);
  const late = rows.find((r) => r.kind === "partition" && r.id === "state 1");
  assert.equal(late.tol, 450);
  assert.equal(late.verdict, "differs");

  // A duplicate in the final log.
  ({ plan, real, sim } = fixture({ dup: true }));
  rows = compare(plan, realObservations(real, plan), sim);
  assert.deepEqual(rows.find((r) => r.kind === "set" && r.id === "duplicated").real.ids, ["p1-1"]);
  assert.equal(verdictOf(rows, true), "differ");
});

test("without the simulator (not modelled yet) Kafka's side is reported, judged by the manifest", () => {
  const { plan, real } = fixture({ dup: true });
  const rows = compare(plan, realObservations(real, plan), null);
  assert.equal(verdictOf(rows, false), "not modelled yet");
  assert.ok(rows.every((r) => r.verdict === undefined && r.sim === undefined));
  const result = { sim: { not_modelled: "x" }, runs: [{ rows }] };
  assert.equal(judge({ not_modelled: true, expect_real: [{ set: "duplicated", includes: ["p1-1"] }] }, 0, result).pass, true);
  const j = judge({ not_modelled: true, expect_real: [{ set: "lost", nonempty: true }] }, 0, result);
  assert.equal(j.pass, false);
  assert.match(j.problems[0], /expected some lost records/);
  // A scenario that should have run on the simulator but did not.
  assert.equal(judge({}, 0, result).pass, false);
});

test("the suite accepts only the disagreements its manifest names", () => {
  const { plan, real, sim } = fixture({ realStates: [[-5000, 0, 0, [0, 1]], [12800, 0, 0, [0]]] });
  const rows = compare(plan, realObservations(real, plan), sim);
  const result = { sim: {}, runs: [{ rows }] };
  assert.equal(judge({}, 1, result).pass, false);
  assert.equal(judge({ known: [{ kind: "partition", id: "state 1", finding: "F1" }] }, 1, result).pass, true);
  assert.equal(judge({ unrunnable: "why" }, 2, null).pass, true);
  assert.equal(judge({ unrunnable: "why" }, 0, result).pass, false);
});

test("on a machine busier than its cores, timing alone is reported but not failed; what happened always is", () => {
  const late = { kind: "ack", id: "p1-1", real: { status: "acked", ms: 60 }, sim: { status: "acked", ms: 4 }, tol: 45, verdict: "differs" };
  const failed = { kind: "ack", id: "p1-2", real: { status: "failed", ms: 60 }, sim: { status: "acked", ms: 4 }, tol: 45, verdict: "differs" };
  const otherState = { kind: "partition", id: "state 1", real: { state: "leader 1 epoch 1 ISR [1,2]", t: 18000 }, sim: { state: "leader 1 epoch 1 ISR [0,1,2]", t: 10000 }, tol: 500, verdict: "differs" };
  const busy = { cores: 2, load: [9.5, 7, 3] };
  const quiet = { cores: 2, load: [0.4, 0.3, 0.2] };
  const run = (rows, machine) => ({ sim: {}, machine, runs: [{ rows }] });
  const j = judge({}, 1, run([late], busy));
  assert.equal(j.pass, true);
  assert.match(j.notes[0], /not judged on a busy machine \(load 9.5 on 2 cores\)/);
  assert.equal(judge({}, 1, run([late], quiet)).pass, false);
  assert.equal(judge({}, 1, run([late], busy), { strictTiming: true }).pass, false);
  assert.equal(judge({}, 1, run([late, failed], busy)).pass, false);
  assert.equal(judge({}, 1, run([otherState], busy)).pass, false);
});

test("a partition left without a leader: what survives is what the last ISR holds", () => {
  const { plan, real, sim } = fixture({ realStates: [[-5000, 0, 0, [0, 1]], [12000, -1, 1, [0]]] });
  real.logs = { 0: [], 1: [{ offset: 0, epoch: 0, value: "p1-1" }] };
  let rows = compare(plan, realObservations(real, plan), sim);
  // Broker 1 holds p1-1, but only broker 0 (the last ISR) can lead again: p1-1 is lost.
  assert.deepEqual(rows.find((r) => r.kind === "set" && r.id === "lost").real.ids, ["p1-1"]);
  real.logs = { 0: [{ offset: 0, epoch: 0, value: "p1-1" }], 1: [] };
  rows = compare(plan, realObservations(real, plan), sim);
  assert.deepEqual(rows.find((r) => r.kind === "set" && r.id === "lost").real.ids, []);
});

test("differences only in no-timer durations are flagged for one more run, others are not", () => {
  let { plan, real, sim } = fixture({ realAckMs: 90 });
  let rows = compare(plan, realObservations(real, plan), sim);
  const ack = rows.find((r) => r.kind === "ack");
  assert.equal(ack.verdict, "differs");
  assert.equal(ack.no_timer, true);
  let j = judge({}, 1, { sim: {}, runs: [{ rows }] });
  assert.equal(j.pass, false);
  assert.equal(j.noise_only, true);
  ({ plan, real, sim } = fixture({ realStates: [[-5000, 0, 0, [0, 1]], [12800, 0, 0, [0]]] }));
  rows = compare(plan, realObservations(real, plan), sim);
  j = judge({}, 1, { sim: {}, runs: [{ rows }] });
  assert.equal(j.noise_only, false);
});

test("the exactness table has one row per scenario with version, run, verdict and tolerance", async () => {
  const { renderTable } = await import("../../scripts/oracle-docs.mjs");
  const { plan, real, sim } = fixture();
  const rows = compare(plan, realObservations(real, plan), sim);
  const result = { kafka_version: "4.0.2", date: "2026-12-03T09:00:00.000Z", machine: { cpu: "X", cores: 2, kernel: "k", load: [3.5] }, runs: [{ rows, verdict: "agree", noise: { n: 10, p90: 52, median: 20 } }] };
  const table = renderTable(
    [
      { entry: { scenario: "a.json" }, result, pass: true, code: 0 },
      { entry: { scenario: "b.json", unrunnable: "why" }, code: 2, reason: "oracle: cannot run on a real cluster: network: no" },
    ],
    600,
  );
  const lines = table.split("\n").filter((l) => l.startsWith("| `"));
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^\| `a\.json` \| 4\.0\.2 \| 2026-12-03 09:00; 3\.5 \| agree \| \d+\/\d+ \|.*c-follower − c-leader: 502 ms real \/ 501 ms sim.*fenced — ms after last heartbeat real \/ — ms sim.*\| lag ±35\.1 ms; no-timer durations \+52 ms noise; statuses, states, sets exact \| — \| n\.m\. \|$/);
  assert.match(lines[1], /cannot run on a real cluster \| — \| network: no \| — \| — \| — \|$/);
});

test("the exactness table: the broker-log column, and a run of some entries keeps the other rows", async () => {
  const { renderTable } = await import("../../scripts/oracle-docs.mjs");
  const { plan, real, sim } = fixture();
  const rows = compare(plan, realObservations(real, plan), sim);
  const base = { kafka_version: "4.0.2", date: "2026-12-06T05:00:00.000Z", machine: { cpu: "X", cores: 2, kernel: "k", load: [9] } };
  const same = { ...base, runs: [{ rows, verdict: "agree", kafka_log: { same: true, compared: 6, diffs: [] } }] };
  const differs = { ...base, runs: [{ rows, verdict: "agree", kafka_log: { same: false, compared: 5, diffs: ['controller fence #1: only the simulator logs {"broker":2}'] } }] };
  const previous = [
    "| `old.json` | 4.0.2 | 2026-12-03 09:00; 12 | agree | 8/8 | f | t | — |",
    "| `b.json` | 4.0.2 | 2026-12-03 09:00; 12 | agree | 8/8 | f | t | — |",
  ].join("\n");
  const table = renderTable(
    [
      { entry: { scenario: "a.json" }, result: same, pass: true, code: 0 },
      { entry: { scenario: "b.json" }, result: differs, pass: true, code: 0 },
    ],
    300,
    { previous, order: ["old.json", "a.json", "b.json"] },
  );
  const lines = table.split("\n").filter((l) => l.startsWith("| `"));
  assert.deepEqual(lines.map((l) => l.split(" | ")[0]), ["| `old.json`", "| `a.json`", "| `b.json`"], "the manifest's order; b's old row replaced");
  assert.match(lines[0], /\| — \| not compared \(run before this column\) \|$/);
  assert.match(lines[1], /\| same \(6 entries\) \|$/);
  assert.match(lines[2], /\| \*\*differs\*\*: controller fence #1: only the simulator logs \{"broker":2\} \|$/);
  assert.match(table, /2 rows from a run of 5 min.*; 1 kept from earlier runs/);
});

// ---- the broker log (issue 29): the simulator's lines against server.log ------------------

import { compareKafkaLogs, parseLine, parseServerLog, lineTime } from "../../oracle/lib/kafkalog.mjs";

test("the broker log: 4.0's fencing line with the broker epoch parses; lines before time zero are left out", () => {
  assert.deepEqual(parseLine("1796531693120 [QuorumController id=100] Fencing broker 2 at epoch 12 because its session has timed out.", "controller"), { kind: "fence", node: "controller", values: { broker: 2 } });
  assert.deepEqual(parseLine("controller | [QuorumController id=c] Fencing broker 2 at epoch 3 because its session has timed out."), { kind: "fence", node: "controller", values: { broker: 2 } });
  const t0 = new Date(2026, 11, 6, 4, 34, 43, 217).getTime();
  assert.equal(lineTime("04:34:25.602 INFO  [logger] x", t0), t0 - 17615);
  assert.equal(lineTime("1796531693120 Fencing", t0), 1796531693120);
  const log = [
    "04:34:25.602 INFO  [logger] [Broker id=0] Leader hwscope-0 with topic id Some(x) starts at leader epoch 0 from offset 0 with partition epoch 0, high watermark 0, ISR [0,1,2], adding replicas [] and removing replicas [] . Previous leader None and previous leader epoch was -1.",
    "04:34:53.100 INFO  [Partition] [Partition hwscope-0 broker=0] ISR updated to 0,1  and version updated to 1",
  ].join("\n");
  assert.deepEqual(parseServerLog(log, "b0", "hwscope", t0).map((e) => e.kind), ["isr-updated"], "topic creation precedes the run");
  assert.equal(parseServerLog(log, "b0", "hwscope").length, 2, "without a time zero every line counts");
});

test("the broker log: the simulator's lines and a real server.log compare by kinds and values", () => {
  const sim = [
    "broker 0 | [Partition t-0 broker=0] Shrinking ISR from 0,1,2 to 0,1. Leader: (highWatermark: 101, endOffset: 104). Out of sync replicas: (brokerId: 2, endOffset: 101, lastCaughtUpTimeMs: 505).",
    "broker 0 | [Partition t-0 broker=0] ISR updated to 0,1  and version updated to 1",
    "controller | [QuorumController id=c] Fencing broker 2 because its session has timed out.",
    "broker 2 | [UnifiedLog partition=t-0, dir=/tmp/kafka-logs] Truncating to offset 101",
  ].map((l) => parseLine(l));
  const b0 = [
    "12:00:01.000 INFO  [Partition] [Partition hwscope-0 broker=0] Shrinking ISR from 0,1,2 to 0,1. Leader: (highWatermark: 101, endOffset: 104). Out of sync replicas: (brokerId: 2, endOffset: 101, lastCaughtUpTimeMs: 1733480000505).",
    "12:00:01.010 INFO  [Partition] [Partition __consumer_offsets-3 broker=0] ISR updated to 0  and version updated to 7",
    "12:00:01.020 INFO  [Partition] [Partition hwscope-0 broker=0] ISR updated to 0,1  and version updated to 1",
  ].join("\n");
  const b2 = "12:00:09.000 INFO  [UnifiedLog] [UnifiedLog partition=hwscope-0, dir=/dev/shm/x/b2/data] Truncating to offset 101";
  const ctl = "1733480009000 Fencing broker 2 because its session has timed out.";
  const real = [...parseServerLog(b0, "b0", "hwscope"), ...parseServerLog(b2, "b2", "hwscope"), ...parseServerLog(ctl, "controller", "hwscope")];
  assert.equal(real.length, 4, "another partition's lines are left out");
  const same = compareKafkaLogs(sim, real);
  assert.equal(same.same, true, same.diffs.join("; "));
  // A truncation to another offset, and a shrink only one side logs, are reported.
  const other = parseServerLog(b2.replace("offset 101", "offset 100"), "b2", "hwscope");
  const d = compareKafkaLogs(sim, [...real.filter((e) => e.kind !== "truncate" && e.kind !== "isr-shrink"), ...other]);
  assert.equal(d.same, false);
  assert.deepEqual(d.diffs, [
    'b0 isr-shrink #1: only the simulator logs {"from":"0,1,2","to":"0,1"}',
    'b2 truncate #1: simulator {"to":101}, Kafka {"to":100}',
  ]);
});

test("the broker log: a refused ISR change, the leader's line and the controller's, by kind and values", () => {
  const leader =
    "12:38:40.869 INFO  [Partition] [Partition hwscope-0 broker=0] Failed to alter partition to PendingExpandIsr(newInSyncReplicaId=1, sentLeaderAndIsr=LeaderAndIsr(leader=0, leaderEpoch=0, isrWithBrokerEpoch=[BrokerState(brokerId=0, brokerEpoch=14), BrokerState(brokerId=1, brokerEpoch=12)], leaderRecoveryState=RECOVERED, partitionEpoch=1), leaderRecoveryState=RECOVERED, lastCommittedState=CommittedPartitionState(isr=Set(0), leaderRecoveryState=RECOVERED)) since the controller rejected the request with INELIGIBLE_REPLICA. Partition state has been reset to the latest committed state CommittedPartitionState(isr=Set(0), leaderRecoveryState=RECOVERED).";
  const controller =
    "1796560720837 [QuorumController id=100] Rejecting AlterPartition request from node 0 for hwscope-0 because it specified ineligible replicas [1 (broker epoch mismatch: requested=12 VS expected=102)] in the new ISR [BrokerState(brokerId=0, brokerEpoch=14), BrokerState(brokerId=1, brokerEpoch=12)].";
  assert.deepEqual(parseLine(leader, "b0"), { kind: "isr-refused", node: "b0", values: { proposed: "expand", added: 1, error: "INELIGIBLE_REPLICA" } });
  assert.deepEqual(parseLine(controller, "controller"), { kind: "isr-ineligible", node: "controller", values: { leader: 0, broker: 1, reason: "broker epoch mismatch" } });
  // The simulator's lines (epochs differ: metadata offsets there, registration counts here) compare the same.
  const sim = [
    "controller | [QuorumController id=c] Rejecting AlterPartition request from node 0 for t-0 because it specified ineligible replicas [1 (broker epoch mismatch: requested=1 VS expected=2)] in the new ISR […].",
    "broker 0 | [Partition t-0 broker=0] Failed to alter partition to PendingExpandIsr(newInSyncReplicaId=1, …) since the controller rejected the request with INELIGIBLE_REPLICA. Partition state has been reset to the latest committed state CommittedPartitionState(isr=Set(0), leaderRecoveryState=RECOVERED).",
  ].map((l) => parseLine(l));
  assert.equal(compareKafkaLogs(sim, [parseLine(controller, "controller"), parseLine(leader, "b0")]).same, true);
});

test("the broker log: an ISR update the real leader took from metadata first is a race, not a difference", () => {
  const sim = ["broker 1 | [Partition t-0 broker=1] ISR updated to 1,0  and version updated to 3"].map((l) => parseLine(l));
  const skipped =
    "12:00:20.100 INFO  [logger] [Broker id=1] Skipped the become-leader state change for hwscope-0 with topic id Some(x) and partition state LeaderAndIsrPartitionState(topicName='hwscope', partitionIndex=0, controllerEpoch=-1, leader=1, leaderEpoch=1, isr=[1, 0], partitionEpoch=3, replicas=[0, 1], addingReplicas=[], removingReplicas=[], isNew=false, leaderRecoveryState=0) since it is already the leader with leader epoch 1. Current high watermark 103, ISR [1,0], adding replicas [] and removing replicas [].";
  const real = parseServerLog(skipped, "b1", "hwscope");
  assert.deepEqual(real, [{ kind: "leader-isr-metadata", node: "b1", values: { isr: "1,0" } }]);
  const r = compareKafkaLogs(sim, real);
  assert.equal(r.same, true, r.diffs.join("; "));
  assert.equal(r.raced, 1);
  // Another ISR in the metadata does not excuse it; a real "ISR updated" still matches as before.
  const other = parseServerLog(skipped.replace("isr=[1, 0]", "isr=[1]"), "b1", "hwscope");
  assert.deepEqual(compareKafkaLogs(sim, other).diffs, ['b1 isr-updated #1: only the simulator logs {"isr":"1,0"}']);
  const both = [...parseServerLog("12:00:20.099 INFO  [Partition] [Partition hwscope-0 broker=1] ISR updated to 1,0  and version updated to 3", "b1", "hwscope"), ...real];
  const b = compareKafkaLogs(sim, both);
  assert.equal(b.same, true, b.diffs.join("; "));
  assert.equal(b.raced, 0);
});

import { batchesOf, dropUnflushed } from "../../oracle/lib/unflushed.mjs";
import { mkdtempSync, writeFileSync as writeFile, readdirSync as readDir, readFileSync as readFile } from "node:fs";
import { tmpdir } from "node:os";
import { join as joinPath } from "node:path";

test("crash.unflushed on a real broker: the segment is cut at the batch of the last records, its indexes rebuilt", () => {
  // Three v2 batches: offsets 0–1 (two records), 2, 3; each 12 bytes of header + a body whose
  // lastOffsetDelta sits 11 bytes in.
  const batch = (base, delta, bodyLength = 61) => {
    const b = Buffer.alloc(12 + bodyLength);
    b.writeBigInt64BE(BigInt(base), 0);
    b.writeInt32BE(bodyLength, 8);
    b.writeInt32BE(delta, 12 + 11);
    return b;
  };
  const log = Buffer.concat([batch(0, 1), batch(2, 0), batch(3, 0)]);
  assert.deepEqual(batchesOf(log).map((b) => [b.position, b.base, b.last]), [[0, 0, 1], [73, 2, 2], [146, 3, 3]]);
  const dir = mkdtempSync(joinPath(tmpdir(), "unflushed-"));
  for (const f of ["00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex", "00000000000000000002.snapshot", "00000000000000000004.snapshot", "leader-epoch-checkpoint"])
    writeFile(joinPath(dir, f), f.endsWith(".log") ? log : "x");
  assert.deepEqual(dropUnflushed(dir, 2), { leo_before: 4, leo_after: 2 });
  assert.equal(readFile(joinPath(dir, "00000000000000000000.log")).length, 73);
  assert.deepEqual(readDir(dir).sort(), ["00000000000000000000.log", "00000000000000000002.snapshot", "leader-epoch-checkpoint"]);
  // A batch holding more records than are lost goes whole: more is lost, and it says so.
  assert.deepEqual(dropUnflushed(dir, 1), { leo_before: 2, leo_after: 0 });
});
