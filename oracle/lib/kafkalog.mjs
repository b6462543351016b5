// The broker log, compared (issue 29): what the simulator says each broker and the
// controller would log (`kafka_log` in its step records, src/kafka_log.rs) against
// what the real cluster's server.log files say, as a sequence of kinds and values
// (never timestamps): ISR shrinks, expansions and updates, truncations, leader and
// follower transitions, fencing and registration.

/** One line → {kind, node, values} or null (a line of no kind compared here). `node`
 *  is whose log it is ("b0".."bN", "controller"), given for server.log lines. */
export function parseLine(line, node = null) {
  let who = node;
  let text = line;
  const sim = /^(broker (\d+)|controller) \| (.*)$/.exec(line);
  if (sim) {
    who = sim[2] !== undefined ? `b${sim[2]}` : "controller";
    text = sim[3];
  }
  let m;
  if ((m = /Shrinking ISR (?:for partition \S+ )?from ([\d,]+) to ([\d,]+)/.exec(text))) return { kind: "isr-shrink", node: who, values: { from: m[1], to: m[2] } };
  if ((m = /Expanding ISR (?:for partition \S+ )?from ([\d,]+) to ([\d,]+)/.exec(text))) return { kind: "isr-expand", node: who, values: { from: m[1], to: m[2] } };
  if ((m = /ISR updated to ([\d,]+)/.exec(text))) return { kind: "isr-updated", node: who, values: { isr: m[1] } };
  if ((m = /Truncating (?:log \S+ )?to offset (\d+)/.exec(text))) return { kind: "truncate", node: who, values: { to: Number(m[1]) } };
  if ((m = /Leader \S+ (?:with topic id \S+ )?starts at leader epoch (\d+) from offset (\d+)/.exec(text))) return { kind: "leader-start", node: who, values: { epoch: Number(m[1]), offset: Number(m[2]) } };
  if ((m = /Follower \S+ starts at leader epoch (\d+) from offset (\d+).*Current leader is (\d+)/.exec(text))) return { kind: "follower-start", node: who, values: { epoch: Number(m[1]), offset: Number(m[2]), leader: Number(m[3]) } };
  // The leader replaying a committed ISR it already leads with (`Partition.makeLeader`'s
  // "Skipped the become-leader state change … isr=[1, 2, 0] … since it is already the leader").
  if ((m = /Skipped the become-leader state change .*\bisr=\[([\d, ]*)\]/.exec(text)))
    return { kind: "leader-isr-metadata", node: who, values: { isr: m[1].replace(/\s+/g, "") } };
  // A refused ISR change, as the leader tells it (`Partition.handleAlterPartitionError`): what it
  // proposed (an expansion names the follower) and the controller's error.
  if ((m = /Failed to alter partition to Pending(Expand|Shrink)Isr\((?:newInSyncReplicaId=(\d+))?.*since the controller rejected the request with (\w+)/.exec(text)))
    return { kind: "isr-refused", node: who, values: { proposed: m[1].toLowerCase(), ...(m[2] !== undefined ? { added: Number(m[2]) } : {}), error: m[3] } };
  // The controller's side (`ReplicationControlManager.alterPartition`): the member refused and why;
  // the broker epochs themselves are metadata offsets, not compared.
  if ((m = /Rejecting AlterPartition request from node (\d+) for \S+ because it specified ineligible replicas \[(\d+) \(([a-z ]+)/.exec(text)))
    return { kind: "isr-ineligible", node: "controller", values: { leader: Number(m[1]), broker: Number(m[2]), reason: m[3].trim() } };
  // 4.0 adds the broker epoch ("at epoch 12"): a metadata offset, not compared.
  if ((m = /Fencing broker (\d+) (?:at epoch \d+ )?because its session has timed out/.exec(text))) return { kind: "fence", node: "controller", values: { broker: Number(m[1]) } };
  if ((m = /RegisterBrokerRecord establishing a new incarnation of broker (\d+)/.exec(text))) return { kind: "register", node: "controller", values: { broker: Number(m[1]) } };
  return null;
}

/** When a log line was written, in epoch ms: requests.log lines start with it
 *  (`%d{UNIX_MILLIS}`), server.log lines with the local time of day (`%d{HH:mm:ss.SSS}`),
 *  read as the day of `near` (the run's time zero) in this machine's time zone. */
export function lineTime(line, near) {
  let m = /^(\d{12,})\s/.exec(line);
  if (m) return Number(m[1]);
  m = /^(\d\d):(\d\d):(\d\d)\.(\d{3})\s/.exec(line);
  if (!m || near === undefined) return null;
  const d = new Date(near);
  d.setHours(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]));
  const day = 24 * 3600 * 1000;
  let t = d.getTime();
  if (t - near > day / 2) t -= day;
  else if (near - t > day / 2) t += day;
  return t;
}

/** server.log text of one node → its entries, only those about `topic`'s partition 0
 *  (controller lines name no partition and are all kept). With `since` (the run's time
 *  zero, epoch ms), lines written before it are left out: topic creation and warm-up,
 *  which the simulator's run starts after. */
export function parseServerLog(text, node, topic, since) {
  const out = [];
  for (const line of text.split("\n")) {
    if (node !== "controller" && !line.includes(`${topic}-0`) && !line.includes(`[${topic},0]`)) continue;
    if (since !== undefined) {
      const t = lineTime(line, since);
      if (t !== null && t < since) continue;
    }
    const e = parseLine(line, node);
    if (e) out.push(e);
  }
  return out;
}

const key = (e) => `${e.node} ${e.kind} ${JSON.stringify(e.values)}`;

/** The two sequences, per node and kind in order: the entries only one side has, and
 *  the ones whose values differ, as lines for the report. Kinds the real cluster never
 *  logs at INFO in this setup (leader/follower starts go to state-change.log) are
 *  compared only when the real side has any. */
export function compareKafkaLogs(simEntries, realEntries) {
  // A race Kafka does not decide: the leader's AlterPartition answer and the metadata record
  // carrying the same ISR leave the controller within a millisecond. If the answer is handled
  // first the leader logs "ISR updated to …" (`Partition.handleAlterPartitionUpdate`); if the
  // metadata is replayed first, the partition state is no longer the proposal and the answer is
  // ignored (`partitionState != proposedIsrState`, at DEBUG), so the only line is makeLeader's
  // "Skipped the become-leader state change … isr=[…]". Both orders were seen in real runs
  // (fault-zombie-leader: the answer 1 ms first; unclean-election as 4.0: the metadata first).
  // A simulated ISR update the real leader took from metadata instead is counted as raced.
  const realUpdated = realEntries.filter((e) => e.kind === "isr-updated");
  const viaMetadata = realEntries.filter((e) => e.kind === "leader-isr-metadata");
  let raced = 0;
  simEntries = simEntries.filter((e) => {
    if (e.kind !== "isr-updated") return true;
    const same = (r) => r.node === e.node && r.values.isr === e.values.isr;
    const i = realUpdated.findIndex(same);
    if (i >= 0) return realUpdated.splice(i, 1) && true;
    const j = viaMetadata.findIndex(same);
    if (j < 0) return true;
    viaMetadata.splice(j, 1);
    raced++;
    return false;
  });
  realEntries = realEntries.filter((e) => e.kind !== "leader-isr-metadata");
  const groups = new Map();
  for (const [side, list] of [["sim", simEntries], ["real", realEntries]]) {
    for (const e of list) {
      const g = `${e.node} ${e.kind}`;
      if (!groups.has(g)) groups.set(g, { sim: [], real: [] });
      groups.get(g)[side].push(e);
    }
  }
  const diffs = [];
  for (const [g, { sim, real }] of groups) {
    const kind = g.split(" ")[1];
    if ((kind === "leader-start" || kind === "follower-start") && !realEntries.some((e) => e.kind === kind)) continue;
    const n = Math.max(sim.length, real.length);
    for (let i = 0; i < n; i++) {
      const a = sim[i];
      const b = real[i];
      if (a && b && key(a) === key(b)) continue;
      diffs.push(a && b ? `${g} #${i + 1}: simulator ${JSON.stringify(a.values)}, Kafka ${JSON.stringify(b.values)}` : a ? `${g} #${i + 1}: only the simulator logs ${JSON.stringify(a.values)}` : `${g} #${i + 1}: only Kafka logs ${JSON.stringify(b.values)}`);
    }
  }
  return { same: diffs.length === 0, compared: simEntries.length + realEntries.length, diffs, raced };
}
