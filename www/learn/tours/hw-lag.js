// Tour hw-lag: why a follower's HW lags the leader's, first in the textbook
// model, then in Kafka 4.0 (seed-walkthrough under both presets).

import { ev, both, hwMoved, count, withRecords, any, plural, WRONG, hwOf, longPollKey } from "./common.js";

export const seedTextbook = [
  {
    id: "start",
    level: "junior",
    title: "Two replicas and one committed boundary",
    at: any,
    say: {
      junior: (c) => {
        const f = c.rec.replicas.find((r) => r.role === "follower");
        return `Leader ${c.L} and follower ${f.broker} both have LEO ${c.lead.leo} and HW ${c.lead.hw}. The LEO (log end offset) is the next offset a replica will write; the HW (high watermark) is the committed boundary: offsets below it are on every ISR member and consumers may read them. The follower keeps asking the leader for more with Fetch requests. Kafka replication is pull: the leader only answers.`;
      },
      middle: (c) => {
        const m = c.out("fetch_request");
        return m ? `A Fetch takes ${m.arrive_ms - m.sent_ms} ms to reach the leader here, and its answer as long to come back: one Fetch round trip is the unit of the story.` : "";
      },
      senior: (c) => `This part runs the ${c.sc.preset} preset: a Fetch is answered at once, the answer carries the HW as updated by that very Fetch, and there is no long-poll. The second part replays the same records under kafka-4.0.`,
    },
  },
  {
    id: "append",
    level: "junior",
    title: "The leader appends; its HW stays",
    at: ev("produce_request", { outcome: "appended" }),
    say: {
      junior: (c) => `Producer ${c.e.from} writes ${plural(count(c.e.records), "record")} with acks=${c.e.acks}. Leader ${c.L} appends them at offsets ${c.e.first_offset}–${c.e.leo_after - 1}: LEO ${c.e.first_offset} → ${c.e.leo_after}. Its HW stays ${c.lead.hw}: a record is committed only once every ISR member has it, and the leader learns what a follower has only from that follower's next Fetch.`,
      middle: (c) => `With acks=all the producer's answer waits at the leader (DelayedProduce) until the HW reaches ${c.e.leo_after}.`,
    },
  },
  {
    id: "fetch1",
    level: "junior",
    title: "Fetch #1 says where the follower's log ends",
    at: ev("fetch_request", { from: 1 }),
    quiz: {
      kind: "claim",
      claim: "reports-leo",
      ask: (c) => `Fetch #1 from follower ${c.e.from} reaches leader ${c.L}. Does it tell the leader how much of the log follower ${c.e.from} has?`,
      choices: () => [
        { key: "yes", label: "Yes: the fetch offset is the follower's LEO" },
        { key: "no", label: "No: the leader keeps track of what it has sent, or asks separately", why: WRONG.noLeo },
      ],
      answer: (c) => ({ key: c.e.fetch_offset === c.rep(c.e.from).leo ? "yes" : "no", broker: c.e.from }),
      explain: (c) => `Fetch #1 asks from offset ${c.e.fetch_offset}, and follower ${c.e.from}'s LEO is ${c.rep(c.e.from).leo}: they are the same number. The leader now knows follower ${c.e.from} has everything below ${c.e.fetch_offset}.`,
    },
    say: {
      junior: (c) => {
        const r = c.out("fetch_response", c.e.from);
        return `Follower ${c.e.from} asks for records from offset ${c.e.fetch_offset}, its own LEO. That is how the leader learns the follower's LEO, so the HW stays ${c.e.hw_after}.${r ? ` The answer carries ${plural(count(r.records), "record")} from ${r.first_offset ?? c.e.fetch_offset} and, as every Fetch answer does, the leader's HW: ${r.hw}.` : ""}`;
      },
      middle: () => "Note what the leader does not do: send anything on its own. It answers Fetches.",
      senior: () => "In Kafka the leader stores the fetch offset as the follower's LEO (Partition.updateFollowerFetchState) and tries to move the HW only when that LEO changed.",
    },
  },
  {
    id: "answer1",
    level: "junior",
    title: "Answer #1: the records, but not the HW",
    at: both(ev("fetch_response", { to: 1 }), withRecords),
    quiz: hwOf(1, (c) => [
      { value: c.rep(1).hw },
      { value: c.rep(1).leo, why: WRONG.ownLeo },
      { value: c.rep(c.L).hw },
    ], (c) => `Answer #1 is arriving at follower 1 with ${plural(count(c.e.records), "record")}. What is follower 1's HW once it has appended them?`,
    (c) => `The answer carried HW ${c.e.hw}; the follower's HW becomes min(${c.e.hw}, its LEO ${c.rep(1).leo}) = ${c.rep(1).hw}. It now has offsets up to ${c.rep(1).leo - 1} but does not know yet that they are committed.`),
    say: {
      junior: (c) => {
        const f = c.out("fetch_request", c.L);
        return `Follower 1 appends the records: LEO ${c.was(1).leo} → ${c.rep(1).leo}. Its HW stays ${c.rep(1).hw}, because the answer carried the leader's HW, ${c.e.hw}.${f ? ` It sends Fetch #2 at once, at offset ${f.fetch_offset}.` : ""}`;
      },
      senior: () => "Kafka's follower does exactly this (ReplicaFetcherThread.processPartitionData): append, then HW = min(the leader's HW in the answer, its own LEO).",
    },
  },
  {
    id: "fetch2",
    level: "junior",
    title: "Fetch #2 moves the leader's HW",
    at: both(ev("fetch_request", { from: 1 }), hwMoved),
    quiz: hwOf(1, (c) => [
      { value: c.rep(1).hw },
      { value: c.e.hw_after, why: WRONG.together },
    ], (c) => `Fetch #2, at offset ${c.e.fetch_offset}, reaches leader ${c.L}, and the leader's HW moves to ${c.e.hw_after}. At this instant, what is follower 1's HW?`,
    (c) => `Follower 1's HW is still ${c.rep(1).hw}. The leader's HW moved at ${c.t} ms, at the leader; the follower hears of it only when an answer reaches it.`),
    say: {
      junior: (c) => `Fetch #2 asks from ${c.e.fetch_offset}: follower 1's LEO is now ${c.e.fetch_offset}. Every ISR member has the records, so leader ${c.L} moves its HW ${c.e.hw_before} → ${c.e.hw_after}, and the producer's acks=all write is done. Follower 1's HW is still ${c.rep(1).hw}.`,
      middle: (c) => `The HW is the smallest LEO among the ISR members as the leader knows them: leader ${c.L} at ${c.lead.leo}${c.lead.followers.map((f) => `, follower ${f.broker} at ${f.fetch_offset}`).join("")}.`,
      senior: (c) => {
        const r = c.out("fetch_response", 1);
        return `Kafka's rule (Partition.maybeIncrementLeaderHW) also counts caught-up followers outside the ISR and, since 2.7, a follower whose addition to the ISR is pending; since 3.7 the HW does not move while the ISR is under min.insync.replicas.${r ? ` In this textbook preset the answer to Fetch #2 already carries the new HW, ${r.hw}.` : ""}`;
      },
    },
  },
  {
    id: "acked",
    level: "middle",
    title: "The producer is acknowledged first",
    at: ev("produce_response"),
    say: {
      middle: (c) => `Producer ${c.e.to} is acknowledged at ${c.t} ms. Follower 1's HW is still ${c.rep(1).hw}: acks=all means every ISR member has the records, not that every replica knows they are committed.`,
    },
  },
  {
    id: "answer2",
    level: "junior",
    title: "Answer #2 brings the new HW",
    at: both(ev("fetch_response", { to: 1 }), hwMoved),
    quiz: {
      kind: "claim",
      claim: "pull",
      ask: (c) => `Leader ${c.L}'s HW is ${c.lead.hw}. How does follower 1 learn it?`,
      choices: () => [
        { key: "push", label: "The leader pushes the new HW to it as soon as it moves", why: WRONG.push },
        { key: "response", label: "In the answer to its own next Fetch" },
        { key: "self", label: "It works it out from its own LEO", why: WRONG.ownLeo },
      ],
      answer: (c) => ({ key: c.e.type === "fetch_response" && c.e.to === 1 ? "response" : "push", broker: 1 }),
      explain: (c) => {
        const s = c.sentBy();
        const l = c.leaderMoved(c.rep(1).hw);
        return `Step ${c.step}: the answer to Fetch #2${s ? `, sent at ${s.t} ms,` : ""} arrives at ${c.t} ms carrying HW ${c.e.hw}: follower 1's HW ${c.e.hw_before} → ${c.e.hw_after}${l ? `, ${c.t - l.t} ms after the leader's` : ""}.`;
      },
    },
    say: {
      junior: (c) => {
        const l = c.leaderMoved(c.rep(1).hw);
        return `Only the answer to Fetch #2 tells follower 1 the new HW: ${c.e.hw_before} → ${c.e.hw_after}.${l ? ` The leader's HW moved at ${l.t} ms, the follower's at ${c.t} ms: a follower's HW trails the leader's by one Fetch round trip.` : ""}`;
      },
      middle: () => "Two fetches: the first brings the records, the second reports them and its answer brings the HW. That is the whole HW propagation story, and why a follower's HW always lags.",
    },
  },
  {
    id: "textbook-gap",
    level: "senior",
    title: "What the textbook leaves out",
    at: ev("timeout", { timer: "fetcher-retry" }),
    say: {
      senior: (c) => `Here the idle follower waits replica.fetch.wait.max.ms (${c.cfg("replica.fetch.wait.max.ms")} ms) before its next Fetch: the textbook preset moves the wait to the follower. Real Kafka differs twice. A Fetch that finds nothing new waits at the leader (DelayedFetch) for up to replica.fetch.wait.max.ms. And an answer given at once carries the HW from before that Fetch was counted (Partition.readRecords takes the snapshot first; KAFKA-7104). Next: the same records under kafka-4.0.`,
    },
  },
];

export const seedKafka = [
  {
    id: "parked",
    level: "middle",
    title: "kafka-4.0: Fetch #2 waits at the leader",
    at: both(ev("fetch_request", { from: 1 }), hwMoved),
    say: {
      middle: (c) => {
        const p = c.lead.parked?.find((x) => x.kind === "fetch" && x.from === 1);
        return `Same records under ${c.sc.preset}. Fetch #2 (offset ${c.e.fetch_offset}) still moves the HW ${c.e.hw_before} → ${c.e.hw_after}, and the producer is acknowledged. But there is nothing new to send, so the Fetch ${c.e.outcome === "parked" ? "waits at the leader" : "is answered"}${p ? ` for up to replica.fetch.wait.max.ms = ${c.cfg("replica.fetch.wait.max.ms")} ms, until ${p.expire_ms} ms` : ""}.`;
      },
      senior: () => "The HW moving does not release it: a follower's parked Fetch counts the bytes it could receive up to the leader's LEO (DelayedFetch.tryComplete, FetchIsolation.LOG_END), and a caught-up follower has none.",
    },
  },
  {
    id: "expiry",
    level: "middle",
    title: "The parked Fetch expires",
    at: ev("timeout", { timer: "fetch-expiry" }),
    say: {
      middle: (c) => `At ${c.t} ms the Fetch has waited replica.fetch.wait.max.ms: leader ${c.L} answers it with no records and the HW as it is now, ${c.e.hw}.`,
    },
  },
  {
    id: "late",
    level: "middle",
    title: "The follower learns the HW one wait later",
    at: both(ev("fetch_response", { to: 1 }), hwMoved),
    quiz: {
      kind: "claim",
      claim: "long-poll",
      ask: (c) => {
        const l = c.leaderMoved(c.e.hw_after);
        return `Under ${c.sc.preset}, leader ${c.L}'s HW moved to ${c.e.hw_after}${l ? ` at ${l.t} ms` : ""}. When does follower 1 learn it?`;
      },
      choices: (c) => [
        { key: "round-trip", label: "One Fetch round trip after the leader, as in the textbook" },
        { key: "protocol-wait", label: `When its parked Fetch is answered: up to replica.fetch.wait.max.ms (${c.cfg("replica.fetch.wait.max.ms")} ms) later` },
        { key: "misconfig", label: "That depends on a misconfiguration; a healthy cluster tells it at once", why: WRONG.misconfig },
      ],
      answer: (c) => ({ key: longPollKey(c), broker: 1 }),
      explain: (c) => {
        const s = c.sentBy();
        const l = c.leaderMoved(c.e.hw_after);
        return `The answer carrying HW ${c.e.hw} was sent at ${s?.t} ms (${s?.how}) and arrived at ${c.t} ms${l ? `, ${c.t - l.t} ms after the leader's HW moved` : ""}.`;
      },
    },
    say: {
      middle: (c) => {
        const l = c.leaderMoved(c.e.hw_after);
        return `Follower 1's HW ${c.e.hw_before} → ${c.e.hw_after} at ${c.t} ms${l ? `, ${c.t - l.t} ms after the leader's` : ""}. On an idle partition a follower's HW trails the leader's by up to replica.fetch.wait.max.ms; under traffic the next record releases the parked Fetch, and the lag is the gap to that record plus one round trip.`;
      },
      senior: (c) => `Had follower 1 become leader before this answer, it would have led with HW ${c.e.hw_before}: consumers wait until its followers report in (see temporary-hw-drop). A stale follower HW is harmless as long as nothing trusts it to truncate, which is what Kafka did before KIP-101.`,
      principal: () => "Kafka 2.4–2.5 did answer a parked Fetch when the HW it last sent was stale (KIP-392, KAFKA-8443, \"Case H\"); KAFKA-9952 removed that in 2.6 because it raised the follower fetch rate: \"users can use the max wait time in order to control the worst-case latency\". KIP-1166 (4.1) adds a HighWatermark field to Fetch v18 so that the KRaft metadata-log leader can complete the parked Fetches of replicas whose HW is behind.",
    },
  },
  {
    id: "truncation",
    level: "principal",
    title: "Why the lag mattered: truncating to the HW",
    at: ev("fetch_request"),
    say: {
      principal: () => "Before Kafka 0.11 a replica that became a follower truncated its log to its own HW (ReplicaManager.makeFollowers). Because that HW lags, it could drop a record the leader had already acknowledged and then be elected (KIP-101 scenario 1). KIP-101 replaced it with asking the leader where its epoch ends (OffsetsForLeaderEpoch); KIP-279 (2.0) made that answer carry the epoch too; since 2.8 the follower just fetches from its LEO with its last fetched epoch and the leader answers with the diverging epoch. The HW is never used to truncate. Take the KIP-101 tour to see the loss and the fix.",
    },
  },
];
