// Tour long-poll: replica.fetch.wait.max.ms and an idle partition
// (idle-partition-lag).

import { ev, both, hwMoved, count, withRecords, list, WRONG, longPollKey } from "./common.js";

export const idle = [
  {
    id: "parked",
    level: "junior",
    title: "An idle follower's Fetch waits at the leader",
    at: ev("fetch_request", { outcome: "parked" }),
    say: {
      junior: (c) => `Nothing is being written. Follower ${c.e.from}'s Fetch at ${c.e.fetch_offset} finds nothing new, so leader ${c.L} keeps it (DelayedFetch, the fetch purgatory) for up to replica.fetch.wait.max.ms = ${c.cfg("replica.fetch.wait.max.ms")} ms.`,
      middle: (c) => `This is long-poll: an idle follower sends about one Fetch per ${c.cfg("replica.fetch.wait.max.ms")} ms instead of spinning, and new records are answered the moment they arrive.`,
    },
  },
  {
    id: "expiry",
    level: "middle",
    title: "The wait expires; the follower asks again",
    at: ev("timeout", { timer: "fetch-expiry" }),
    say: {
      middle: (c) => `At ${c.t} ms the wait is over: leader ${c.L} answers follower ${c.e.to} with no records and its HW (${c.e.hw}); the follower fetches again at once.`,
    },
  },
  {
    id: "append",
    level: "junior",
    title: "A record releases the waiting Fetches",
    at: ev("produce_request", { outcome: "appended" }),
    say: {
      junior: (c) => {
        const rs = c.rec.in_flight.filter((m) => m.type === "fetch_response");
        return `At ${c.t} ms a record arrives: LEO ${c.e.first_offset} → ${c.e.leo_after}. New data completes the parked Fetches at once (replica.fetch.min.bytes = ${c.cfg("replica.fetch.min.bytes")}).${rs.length ? ` Their answers carry the record and HW ${list([...new Set(rs.map((m) => m.hw))].map(String))}.` : ""}`;
      },
    },
  },
  {
    id: "hw",
    level: "junior",
    title: "The leader's HW moves; the followers' do not",
    at: both(ev("fetch_request"), hwMoved),
    quiz: {
      kind: "value",
      ask: (c) => `Follower ${c.e.from}'s next Fetch, at ${c.e.fetch_offset}, reaches the leader, and the leader's HW moves to ${c.e.hw_after}. What is follower ${c.e.from}'s HW now?`,
      answer: (c) => ({ value: c.rep(c.e.from).hw, broker: c.e.from, field: "hw" }),
      choices: (c) => [{ value: c.rep(c.e.from).hw }, { value: c.e.hw_after, why: WRONG.together }],
      explain: (c) => `Follower ${c.e.from}'s HW is ${c.rep(c.e.from).hw}: it has reported the record but has not been told it is committed.`,
    },
    say: {
      junior: (c) => `Follower ${c.e.from} reports ${c.e.fetch_offset}. Now every ISR member has the record: HW ${c.e.hw_before} → ${c.e.hw_after}, and the producer is acknowledged (acks=all, min.insync.replicas = ${c.cfg("min.insync.replicas")}). Both Fetches find nothing new and wait again; the new HW travels only with their answers.`,
    },
  },
  {
    id: "acked",
    level: "middle",
    title: "acks=all: acknowledged in milliseconds",
    at: ev("produce_response"),
    say: {
      middle: (c) => {
        const p = c.lastEvent((e) => e.type === "produce");
        return `The producer has its acknowledgement at ${c.t} ms${p ? `, ${c.t - p.t} ms after sending` : ""}. Followers' HW: ${list(c.rec.replicas.filter((r) => r.role === "follower").map((r) => `follower ${r.broker} at ${r.hw}`))}.`;
      },
    },
  },
  {
    id: "late",
    level: "junior",
    title: "The followers learn the HW one wait later",
    at: both(ev("fetch_response"), hwMoved),
    quiz: {
      kind: "claim",
      claim: "long-poll",
      ask: (c) => {
        const l = c.leaderMoved(c.e.hw_after);
        return `The leader's HW moved to ${c.e.hw_after}${l ? ` at ${l.t} ms` : ""}. When does follower ${c.e.to} learn it?`;
      },
      choices: (c) => [
        { key: "round-trip", label: "About one network round trip later" },
        { key: "protocol-wait", label: `When its waiting Fetch is answered, up to replica.fetch.wait.max.ms (${c.cfg("replica.fetch.wait.max.ms")} ms) later` },
        { key: "misconfig", label: "Late, because the cluster is misconfigured", why: WRONG.misconfig },
      ],
      answer: (c) => ({ key: longPollKey(c), broker: c.e.to }),
      explain: (c) => {
        const s = c.sentBy();
        const l = c.leaderMoved(c.e.hw_after);
        return `The answer carrying HW ${c.e.hw} was sent at ${s?.t} ms because ${s?.how}; it arrived at ${c.t} ms${l ? `, ${c.t - l.t} ms after the leader's HW moved` : ""}.`;
      },
    },
    say: {
      junior: (c) => {
        const l = c.leaderMoved(c.e.hw_after);
        return `At ${c.t} ms follower ${c.e.to}'s waiting Fetch is answered with HW ${c.e.hw}: its HW ${c.e.hw_before} → ${c.e.hw_after}${l ? `, ${c.t - l.t} ms after the leader's` : ""}. That is replica.fetch.wait.max.ms, not the network: the pull protocol plus long-poll.`;
      },
    },
  },
  {
    id: "consumer",
    level: "middle",
    title: "A consumer on a follower sees it late too",
    at: both(ev("consumer_fetch_response"), withRecords, (r) => r.consumers.some((x) => x.id === r.event.to && x.fetch_from != null && x.fetch_from !== r.partition.leader)),
    say: {
      middle: (c) => {
        const me = c.rec.consumers.find((x) => x.id === c.e.to);
        const other = c.lastEvent((e) => e.type === "consumer_fetch_response" && e.to !== c.e.to && count(e.records) > 0);
        return `Consumer ${c.e.to} reads from follower ${me.fetch_from}, which serves records only below its own HW. It gets ${list(c.e.records.map(String))} at ${c.t} ms${other ? `, ${c.t - other.t} ms after ${other.ev.to} got it from the leader` : ""}.`;
      },
    },
  },
  {
    id: "tradeoff",
    level: "senior",
    title: "The knob and its price",
    at: ev("fetch_request"),
    action: { label: "Compare with replica.fetch.wait.max.ms = 100", view: "compare", setting: "wait", value: 100 },
    say: {
      senior: (c) => `Lowering replica.fetch.wait.max.ms (${c.cfg("replica.fetch.wait.max.ms")} ms here) shortens this lag on idle partitions but multiplies idle Fetches: one per follower per wait. The docs say it should always be less than replica.lag.time.max.ms (${c.cfg("replica.lag.time.max.ms")} ms).`,
      principal: () => "Kafka 2.4–2.5 answered a parked Fetch when the HW it last sent was stale (KIP-392, KAFKA-8443, \"Case H\"); KAFKA-9952 removed it in 2.6 because it raised the follower fetch rate. KIP-1166 (4.1) lets the KRaft metadata-log leader complete parked Fetches of replicas whose HW is behind, through a HighWatermark field in Fetch v18.",
    },
  },
];
