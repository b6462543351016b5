// Tour kip101: how a stale HW lost data under HW truncation and how leader
// epochs fixed it (kip101-data-loss under kafka-0.10, kafka-0.11 and kafka-4.0).

import { ev, both, hwMoved, any, set, WRONG, hwOf } from "./common.js";

/** The step at which restarted broker `b` takes a role again: the controller's
 *  answer to its registration (ZooKeeper era) or the metadata after it registered. */
const rejoins = (b) => (r) =>
  r.event?.to === b && ["broker_registration_response", "leader_and_isr", "broker_heartbeat_response"].includes(r.event.type) && ["become-follower", "become-leader"].includes(r.event.outcome);

/** How the dead leader's end is noticed, by era: ZooKeeper expires its session and
 *  the controller, itself a broker (the record's controller.broker_id), sees it gone;
 *  or (KRaft) the controller fences it once its heartbeats stop. */
export function sessionEnds(c) {
  const zk = c.cfg("zookeeper.session.timeout.ms");
  return zk != null
    ? `ZooKeeper expires broker ${c.e.broker}'s session after zookeeper.session.timeout.ms (${zk} ms); the controller (broker ${c.rec.controller.broker_id}) sees it gone`
    : `The controller fences broker ${c.e.broker} after broker.session.timeout.ms (${c.cfg("broker.session.timeout.ms")} ms)`;
}

export const kip101Old = [
  {
    id: "start",
    level: "junior",
    title: "Two replicas and the pre-KIP-101 rule",
    at: any,
    say: {
      junior: (c) => `Leader ${c.L} and follower 1 are at LEO ${c.lead.leo} and HW ${c.lead.hw}, ISR ${set(c.rec.partition.isr)}, under ${c.sc.preset}. A producer is about to write one record with acks=all. Then follower 1 restarts and leader ${c.L} crashes. Watch what follower 1's HW, one Fetch behind the leader's, does to that record.`,
    },
  },
  {
    id: "committed",
    level: "junior",
    title: "Committed, and acknowledged",
    at: both(ev("fetch_request"), hwMoved),
    quiz: hwOf(1, (c) => [{ value: c.rep(1).hw }, { value: c.e.hw_after, why: WRONG.together }],
      (c) => `Follower 1's Fetch at ${c.e.fetch_offset} moves the leader's HW to ${c.e.hw_after}, and the producer is acknowledged. What is follower 1's HW?`,
      (c) => `Follower 1's HW is ${c.rep(1).hw}: the answer that would tell it ${c.e.hw_after} has not reached it.`),
    say: {
      junior: (c) => `Record ${c.lead.log.find((x) => x.offset === c.e.hw_before)?.id ?? ""} is on leader ${c.L} and follower 1. Follower 1's Fetch at ${c.e.fetch_offset} tells the leader it has it: HW ${c.e.hw_before} → ${c.e.hw_after}, and the acks=all producer is acknowledged. Follower 1's HW is still ${c.rep(1).hw}.`,
    },
  },
  {
    id: "crash1",
    level: "junior",
    title: "The follower crashes",
    at: ev("crash", { broker: 1 }),
    say: {
      junior: (c) => `At ${c.t} ms follower 1 crashes with LEO ${c.rep(1).leo} and HW ${c.rep(1).hw}: no answer told it the HW had moved.`,
    },
  },
  {
    id: "crash0",
    level: "junior",
    title: "The leader crashes",
    at: ev("crash", { broker: 0 }),
    say: {
      junior: (c) => `In the same instant leader 0 crashes, while follower 1 (restarted, still in the ISR) asks to register. Follower 1 is still in the ISR ${set(c.rec.partition.isr)}.`,
    },
  },
  {
    id: "restart",
    level: "junior",
    title: "It restarts and truncates to its own HW",
    at: rejoins(1),
    quiz: {
      kind: "value",
      ask: (c) => `Follower 1 restarts with LEO ${c.was(1).leo} and HW ${c.was(1).hw} (its checkpoint). Under ${c.sc.preset}, what is its LEO once it follows the leader again?`,
      answer: (c) => ({ value: c.rep(1).leo, broker: 1, field: "leo" }),
      // The two rules, each a rebuttal when it is the other version's.
      choices: (c) => [
        { value: c.was(1).hw, why: "That was the rule before KIP-101: a broker that became a follower truncated its log to its own HW (ReplicaManager.makeFollowers, up to 0.10.2). Its HW was stale, so this dropped a committed record." },
        { value: c.was(1).leo, why: "That is the rule since KIP-101 (0.11): a follower keeps its log until the leader has said where its epoch ends, and since 2.8 it fetches from its LEO with its last fetched epoch. The HW is not used to truncate." },
      ],
      explain: (c) => `Under ${c.sc.preset} follower 1's LEO is ${c.rep(1).leo} after the restart${c.e.rule ? ` (rule: ${c.e.rule}, truncate to ${c.e.truncate_to})` : " (no truncation)"}.`,
    },
    say: {
      junior: (c) => `Follower 1 restarted with the HW of its last checkpoint and registered; the controller's answer makes it a follower. The pre-KIP-101 rule: a replica becoming a follower truncates its log to its own HW. Its HW was ${c.was(1).hw}, one round trip behind the leader's, so it drops the acknowledged record: LEO ${c.e.leo_before} → ${c.e.truncate_to}.`,
    },
  },
  {
    id: "elect",
    level: "junior",
    title: "The follower is elected",
    at: ev("leader_election"),
    say: {
      junior: (c) => `${sessionEnds(c)} and elects broker ${c.e.leader} from the ISR: leader epoch ${c.e.leader_epoch}.`,
    },
  },
  {
    id: "lost",
    level: "junior",
    title: "An acknowledged record is lost",
    at: (r) => r.violations.length > 0,
    say: {
      junior: (c) => `Broker ${c.L} leads with LEO ${c.lead.leo}. ${c.rec.violations.map((v) => `${v.invariant}: ${v.text}`).join(" ")}`,
      middle: () => "At no moment were both replicas down, which is what acks=all with two replicas promises to survive. The loss comes from trusting the follower's HW, which lags by design, as the end of committed data.",
    },
  },
  {
    id: "oor",
    level: "middle",
    title: "The old leader returns and truncates too",
    at: (r, p) => rejoins(0)(r, p) && r.event.truncate_to !== undefined,
    say: {
      middle: (c) => `Broker ${c.e.to} returns with the HW of its last checkpoint (replica.high.watermark.checkpoint.interval.ms), becomes a follower and, by the same rule, truncates to it: LEO ${c.e.leo_before} → ${c.e.truncate_to}. The replicas agree again, on a log without the acknowledged record.`,
    },
  },
];

export const kip101New = [
  {
    id: "restart",
    level: "middle",
    title: "kafka-0.11: the restart keeps the record",
    at: rejoins(1),
    quiz: kip101Old.find((b) => b.id === "restart").quiz,
    say: {
      middle: (c) => `Same events under ${c.sc.preset} (KIP-101). Follower 1 restarts with LEO ${c.rep(1).leo} and HW ${c.rep(1).hw} but does not truncate to its HW: before fetching it asks the leader where its last epoch ends (OffsetsForLeaderEpoch) and truncates only to that.`,
    },
  },
  {
    id: "leader",
    level: "middle",
    title: "Elected with the record",
    at: ev("leader_and_isr", { outcome: "become-leader" }),
    say: {
      middle: (c) => `Leader 0 crashed before it could answer, so broker ${c.L} still holds the record when it is elected: epoch ${c.rec.partition.leader_epoch} starts at offset ${c.lead.epoch_cache?.[c.lead.epoch_cache.length - 1]?.[1]}, and its HW ${c.was(c.L).hw} → ${c.lead.hw} (it is alone in the ISR). No violation.`,
    },
  },
  {
    id: "epoch",
    level: "senior",
    title: "The returning replica asks where the epoch ends",
    at: (r) => r.event?.type === "truncate" || (r.event?.type === "fetch_request" && r.event.last_fetched_epoch != null && r.event.from === 0),
    say: {
      senior: (c) => c.e.type === "truncate"
        ? `Broker ${c.e.to} returns and asks leader ${c.e.from} where epoch ${c.e.epoch} ends: at ${c.e.end_offset?.end_offset}. ${c.e.leo_before === c.e.truncate_to ? `Its log ends there too (LEO ${c.e.leo_before}): nothing to truncate.` : `It truncates to there: LEO ${c.e.leo_before} → ${c.e.truncate_to}.`}`
        : `Broker ${c.e.from} returns and fetches from its LEO ${c.e.fetch_offset} with last fetched epoch ${c.e.last_fetched_epoch}; the leader finds no divergence and nothing is truncated.`,
      principal: () => "One round of OffsetsForLeaderEpoch is not always enough: after fast leader changes the answer must carry the epoch too, and truncation repeats until the epochs match (KIP-279, 2.0; see kip279-fast-leader-change).",
    },
  },
];

export const kip101Latest = [
  {
    id: "restart",
    level: "senior",
    title: "kafka-4.0: fetch from the LEO with the last epoch",
    at: ev("restart", { broker: 1 }),
    say: {
      senior: (c) => `Under ${c.sc.preset} the restarted follower keeps its log (LEO ${c.rep(1).leo}) and fetches from its LEO with its last fetched epoch; had the logs diverged, the leader's answer would name the diverging epoch and the follower would truncate to it (since 2.8). Its stale HW (${c.rep(1).hw}) is never used to truncate.`,
    },
  },
  {
    id: "leader",
    level: "junior",
    title: "kafka-4.0: the same faults, and the record is kept",
    at: ev("leader_and_isr", { outcome: "become-leader" }),
    quiz: {
      kind: "value",
      ask: (c) => `The same faults at the same moments, under ${c.sc.preset}. Broker ${c.L} is about to lead. What will its LEO be: does it hold the acknowledged record?`,
      answer: (c) => ({ value: c.lead.leo, broker: c.L, field: "leo" }),
      choices: (c) => [
        { value: c.lead.leo },
        { value: c.lead.leo - 1, why: "That is what kafka-0.10 came to, by truncating the restarted follower to its stale HW. Since KIP-101 (0.11) no replica truncates to its own HW: only to where the leader's epoch ends." },
      ],
      explain: (c) => `Broker ${c.L} leads with LEO ${c.lead.leo}: the acknowledged record is still there.`,
    },
    say: {
      junior: (c) => `Same schedule under ${c.sc.preset}: broker ${c.L} is elected (epoch ${c.rec.partition.leader_epoch}) with LEO ${c.lead.leo} and HW ${c.lead.hw}. ${c.L === 1 ? "The restarted follower did not truncate to its own stale HW" : `Follower 1 restarted without truncating to its stale HW, and broker ${c.L}, which never lost the record, leads again`}: ${(c.rec.lost ?? []).some((l) => !l.allowed) ? "yet a record was lost." : "the acknowledged record is kept; nothing acknowledged is lost."}`,
      principal: (c) => `Broker ${c.L} leads epoch ${c.rec.partition.leader_epoch} with LEO ${c.lead.leo}; HW ${c.was(c.L).hw} → ${c.lead.hw}. A follower's HW lags the leader's by design (one Fetch later, or replica.fetch.wait.max.ms on an idle partition), so it cannot mark the end of committed data. Leader epochs record where each leader's writes begin, and truncation is decided from them. KIP-101 scenario 2 (kip101-divergence) shows the same fix for diverged logs.`,
    },
  },
  {
    id: "every-timing",
    level: "junior",
    title: "Fixed for every timing? Predict, then search",
    at: any,
    // The explorer's bounds, not the run's.
    claims: () => [3, 28],
    say: {
      junior: (c) => `This run shows one timing. Is ${c.sc.preset} safe for every timing of the same faults? The explorer (Explore, at the top) answers by search: starting from this scenario without its scripted crashes (two replicas, one acks=all write), it tries every order of the events due at one instant and every moment for up to 3 crashes, restarts or cuts, within 28 steps, and looks for an acknowledged record lost or replicas diverged.`,
    },
    explore: {
      ask: "Under kafka-4.0, within those bounds, will the search find a timing that loses the acknowledged record?",
      runs: [
        { preset: "kafka-4.0", label: "" },
        { preset: "kafka-0.10", label: "Now search the same under kafka-0.10" },
      ],
      options: { property: "any", max_depth: 28, faults: 3, drop_faults: true },
    },
  },
];
