// The guided tours: each is one or more parts (a built-in scenario, maybe
// under another preset) and an ordered list of beats. A beat is pinned to the
// first step after the previous beat where its predicate holds, so beats
// survive changes to the model; its text and quiz read every number from the
// step records (`c`, built by tour-player.js), never from constants here.
//
// Levels: a beat shows from its level up; a text has one paragraph per level
// and a learner reads the paragraphs up to theirs.

export const LEVELS = ["junior", "middle", "senior", "principal"];

// ---- predicates over a step record -----------------------------------------

const ev = (type, fields = {}) => (r) =>
  r.event?.type === type && Object.entries(fields).every(([k, v]) => (typeof v === "function" ? v(r.event[k], r) : r.event[k] === v));
const both = (...ps) => (r, p) => ps.every((f) => f(r, p));
const hwMoved = (r) => r.event && r.event.hw_after > r.event.hw_before;
const count = (v) => (Array.isArray(v) ? v.length : v ?? 0);
const withRecords = (r) => count(r.event?.records) > 0;
const any = () => true;

// ---- words -----------------------------------------------------------------

const list = (xs) => (xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const set = (xs) => `{${(xs ?? []).join(", ")}}`;

/** The classic wrong answers, as rebuttals shown when one is picked. */
const WRONG = {
  together: "The follower's HW does not move together with the leader's: at the instant the leader's HW moves, nothing has been sent to the follower. It learns the new HW only from the answer to one of its Fetches.",
  push: "The leader never pushes data or the HW to a follower: everything a follower receives is an answer to its own Fetch. Replication is pull.",
  noLeo: "The follower does report its LEO: the fetch offset of every Fetch is the follower's LEO, and the leader records it as that follower's LEO (Partition.updateFollowerFetchState). That is the only way the leader learns it.",
  misconfig: "Nothing is misconfigured. The delay comes from the pull protocol: a follower hears the HW only in a Fetch answer, and a caught-up follower's Fetch waits at the leader until new records arrive or replica.fetch.wait.max.ms expires.",
  ownLeo: "Having a record is not knowing it is committed. A follower takes the HW from the leader's answer: HW = min(the HW in the answer, its own LEO).",
  majority: "Kafka does not commit on a majority: the HW waits for every member of the ISR, and a slow member holds it until it is removed from the ISR.",
};

// ---- quizzes -----------------------------------------------------------------

/** A value quiz: "what is X's <field> now?"; the answer is read at the beat's step. */
const hwOf = (broker, choices, ask, explain) => ({
  kind: "value",
  ask,
  answer: (c) => ({ value: c.rep(broker).hw, broker, field: "hw" }),
  choices,
  explain,
});

// ---- the tours -----------------------------------------------------------------

const seedTextbook = [
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

const seedKafka = [
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
        return `Follower 1's HW ${c.e.hw_before} → ${c.e.hw_after} at ${c.t} ms${l ? `, ${c.t - l.t} ms after the leader's` : ""}. On an idle partition a follower's HW trails the leader's by up to replica.fetch.wait.max.ms; under steady traffic new records release the parked Fetch and the lag is about one round trip.`;
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

/** The key a long-poll question expects: what sent the answer that carried the HW. */
function longPollKey(c) {
  const s = c.sentBy();
  if (!s) return "misconfig";
  if (s.ev?.type === "timeout" && s.ev.timer === "fetch-expiry") return "protocol-wait";
  return "round-trip";
}

const idle = [
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

const slow = [
  {
    id: "normal",
    level: "junior",
    title: "Normal operation",
    at: ev("produce_response"),
    say: {
      junior: (c) => `Three replicas, all in the ISR ${set(c.rec.partition.isr)}. The first record is committed once both followers have reported it, and the producer is acknowledged at ${c.t} ms.`,
    },
  },
  {
    id: "cut",
    level: "junior",
    title: "A follower is cut off",
    at: ev("partition"),
    say: {
      junior: (c) => `At ${c.t} ms the network between brokers ${list([...new Set(c.e.links.flat())].map(String))} is cut both ways. Follower ${slowOf(c)} can no longer fetch; leader ${c.L} has no way to notice except that the Fetches stop.`,
    },
  },
  {
    id: "held",
    level: "junior",
    title: "Two of three have it; the HW waits",
    at: both(ev("fetch_request"), (r) => r.event.fetch_offset > r.event.hw_before && r.event.hw_after === r.event.hw_before),
    quiz: {
      kind: "value",
      ask: (c) => `Follower ${c.e.from} reports LEO ${c.e.fetch_offset}; the leader's LEO is ${c.lead.leo}. Two of three replicas have the new record. What is the leader's HW now?`,
      answer: (c) => ({ value: c.lead.hw, broker: c.L, field: "hw" }),
      choices: (c) => [{ value: c.lead.hw }, { value: c.e.fetch_offset, why: WRONG.majority }],
      explain: (c) => {
        const s = c.lead.followers.find((f) => f.broker === slowOf(c));
        return `The HW stays ${c.lead.hw}: follower ${slowOf(c)} is still in the ISR and the leader last heard it was at ${s?.fetch_offset}.`;
      },
    },
    say: {
      junior: (c) => `Every ISR member must have a record before it is committed, and follower ${slowOf(c)} is still in the ISR. The acks=all write waits with it.`,
    },
  },
  {
    id: "check",
    level: "middle",
    title: "The ISR check: not yet",
    at: ev("timeout", { timer: "isr-expiration" }),
    say: {
      middle: (c) => {
        const s = c.lead.followers.find((f) => f.broker === slowOf(c));
        return `Every replica.lag.time.max.ms / 2 = ${c.cfg("replica.lag.time.max.ms") / 2} ms the leader checks the ISR. Follower ${slowOf(c)} last caught up at ${s?.last_caught_up_ms} ms, less than replica.lag.time.max.ms (${c.cfg("replica.lag.time.max.ms")} ms) ago: no change.`;
      },
    },
  },
  {
    id: "socket",
    level: "senior",
    title: "The lost Fetch times out",
    at: ev("timeout", { timer: "fetch-request-timeout" }),
    say: {
      senior: (c) => `Follower ${c.e.broker}'s Fetch has had no answer for replica.socket.timeout.ms (${c.cfg("replica.socket.timeout.ms")} ms): it gives up and tries again after replica.fetch.backoff.ms (${c.cfg("replica.fetch.backoff.ms")} ms), into the same cut link.`,
    },
  },
  {
    id: "shrink",
    level: "junior",
    title: "The leader asks to shrink the ISR",
    at: ev("timeout", { timer: "isr-expiration", outcome: "shrink-proposed" }),
    quiz: {
      kind: "value",
      level: "middle",
      ask: (c) => `Leader ${c.L} has just asked the controller to drop follower ${slowOf(c)} from the ISR. What is the leader's HW at this instant?`,
      answer: (c) => ({ value: c.lead.hw, broker: c.L, field: "hw" }),
      choices: (c) => [{ value: c.lead.hw }, { value: c.lead.leo, why: "Not until the shrink is committed: while the AlterPartition is pending the leader keeps counting the old ISR (the maximal ISR), because the change might fail." }],
      explain: (c) => `Still ${c.lead.hw}: the proposal is not committed yet, and until it is, the HW still waits for the old ISR ${set(c.rec.partition.maximal_isr ?? c.rec.partition.isr)}.`,
    },
    say: {
      junior: (c) => {
        const s = c.lead.followers.find((f) => f.broker === slowOf(c));
        return `At ${c.t} ms follower ${slowOf(c)} has not caught up for more than replica.lag.time.max.ms (${c.cfg("replica.lag.time.max.ms")} ms; it last caught up at ${s?.last_caught_up_ms} ms). Leader ${c.L} asks the controller to make the ISR ${set(c.e.isr)} (AlterPartition).`;
      },
      middle: () => "The check runs every replica.lag.time.max.ms / 2, so a stuck follower can hold the HW for up to 1.5 × replica.lag.time.max.ms after it last caught up.",
    },
  },
  {
    id: "committed",
    level: "junior",
    title: "The shrink is committed; the HW jumps",
    at: both(ev("isr_change"), hwMoved),
    say: {
      junior: (c) => `The controller commits the ISR ${set(c.e.isr)}; leader ${c.L} applies it and its HW jumps ${c.e.hw_before} → ${c.e.hw_after}, releasing the acks=all writes that waited.`,
      senior: () => "The leader's HW moves on a follower Fetch that changes that follower's LEO, on a leader append, on a committed ISR change, or when a replica becomes leader; never on a timer.",
    },
  },
  {
    id: "heal",
    level: "junior",
    title: "The link heals",
    at: ev("heal"),
    say: {
      junior: (c) => `At ${c.t} ms the link heals. Follower ${slowOf(c)}'s last Fetch was lost, so it notices only when that request times out (replica.socket.timeout.ms), then fetches again after the backoff.`,
    },
  },
  {
    id: "catchup",
    level: "junior",
    title: "One Fetch to catch up",
    at: (r, p) => both(ev("fetch_response"), withRecords)(r, p) && r.event.to === slowFrom(r),
    say: {
      junior: (c) => `Follower ${c.e.to} fetches from ${c.e.first_offset} and catches up in one answer: ${plural(count(c.e.records), "record")}, LEO ${c.e.leo_after}, HW ${c.e.hw_before} → ${c.e.hw_after}.`,
    },
  },
  {
    id: "rejoin",
    level: "middle",
    title: "Back in the ISR",
    at: (r) => r.event?.type === "isr_change" && r.event.isr.length > r.event.isr_before.length,
    say: {
      middle: (c) => `Its Fetch reported a LEO at or above the leader's HW (and past the start of the leader's epoch): that is the whole condition to rejoin; there is no time condition. The leader counted it at once (the maximal ISR) and the controller has committed the ISR ${set(c.e.isr)}.`,
      principal: () => "Since 3.6 a caught-up replica outside the ISR holds back the HW only if it is ISR-eligible (not fenced or shutting down; KAFKA-15021), and since 3.7 the HW does not move while the ISR is under min.insync.replicas (KAFKA-15583, part of KIP-966). The acks-and-min-isr scenario shows the second.",
    },
  },
];

/** The follower cut off from the leader, read from the partition's cut links. */
function slowOf(c) {
  return slowFrom(c.rec) ?? "?";
}
function slowFrom(rec) {
  const cut = (rec.partition.cut_links ?? []).flat().find((b) => b !== rec.partition.leader);
  if (cut !== undefined) return cut;
  // After the heal the cut is gone: the follower outside the ISR.
  return rec.replicas.find((x) => !rec.partition.isr.includes(x.broker))?.broker ?? null;
}

const follower = [
  {
    id: "start",
    level: "junior",
    title: "One consumer on the leader, one on a follower",
    at: any,
    say: {
      junior: (c) => `${list(c.rec.consumers.map((x) => `${x.id} reads from ${x.fetch_from == null ? `leader ${c.L}` : `follower ${x.fetch_from}`}`))} (KIP-392). A consumer reads only below the HW of the replica it reads from.`,
    },
  },
  {
    id: "hw",
    level: "junior",
    title: "The leader's HW moves",
    at: both(ev("fetch_request"), hwMoved),
    say: {
      junior: (c) => `Both followers have reported the record: the leader's HW moves ${c.e.hw_before} → ${c.e.hw_after}. Followers' HW: ${list(c.rec.replicas.filter((r) => r.role === "follower").map((r) => `follower ${r.broker} at ${r.hw}`))}.`,
    },
  },
  {
    id: "leader-read",
    level: "junior",
    title: "The leader's consumer reads it at once",
    at: both(ev("consumer_fetch_response"), withRecords),
    say: {
      junior: (c) => `${c.e.to} gets ${list(c.e.records.map(String))} at ${c.t} ms, right after the leader's HW moved.`,
    },
  },
  {
    id: "waits",
    level: "junior",
    title: "The follower has the record but may not serve it",
    at: (r) => r.event?.type === "timeout" && r.event.timer === "consumer-fetch-expiry" && r.event.broker !== r.partition.leader,
    quiz: {
      kind: "claim",
      claim: "hw-not-data",
      ask: (c) => {
        const f = c.rep(c.e.broker);
        return `Follower ${c.e.broker} already has the record (LEO ${f.leo}). Why doesn't its consumer get it?`;
      },
      choices: () => [
        { key: "hw", label: "The follower serves only below its own HW, which has not moved yet" },
        { key: "nodata", label: "The follower does not have the record yet", why: "It does: its LEO is past the record. What it lacks is the news that the record is committed." },
        { key: "leader", label: "Consumers of a follower need the leader's permission per record", why: "No such thing: the follower decides alone, by its own HW." },
      ],
      answer: (c) => {
        const f = c.rep(c.e.broker);
        const me = c.rec.consumers.find((x) => x.fetch_from === c.e.broker);
        return { key: me && f.leo > me.position && f.hw <= me.position ? "hw" : "nodata", broker: c.e.broker };
      },
      explain: (c) => {
        const f = c.rep(c.e.broker);
        const me = c.rec.consumers.find((x) => x.fetch_from === c.e.broker);
        return `Follower ${c.e.broker} has LEO ${f.leo} but HW ${f.hw}; ${me?.id} wants offset ${me?.position}, at or above that HW, so it gets nothing yet.`;
      },
    },
    say: {
      junior: (c) => `The consumer's Fetch has waited at follower ${c.e.broker} and is answered empty: the follower's HW is still ${c.rep(c.e.broker).hw}, though the leader's is ${c.lead.hw}.`,
    },
  },
  {
    id: "follower-hw",
    level: "junior",
    title: "The follower's HW moves",
    at: both(ev("fetch_response"), hwMoved),
    quiz: {
      kind: "value",
      ask: (c) => `Follower ${c.e.to}'s waiting Fetch is answered at last. What is its HW after this answer?`,
      answer: (c) => ({ value: c.rep(c.e.to).hw, broker: c.e.to, field: "hw" }),
      choices: (c) => [{ value: c.rep(c.e.to).hw }, { value: c.e.hw_before, why: "The answer carries the leader's HW, and the follower takes min(that HW, its LEO)." }],
      explain: (c) => `The answer carried HW ${c.e.hw}; min(${c.e.hw}, LEO ${c.rep(c.e.to).leo}) = ${c.rep(c.e.to).hw}.`,
    },
    say: {
      junior: (c) => {
        const l = c.leaderMoved(c.e.hw_after);
        return `At ${c.t} ms the answer to follower ${c.e.to}'s waiting Fetch carries HW ${c.e.hw}: its HW ${c.e.hw_before} → ${c.e.hw_after}${l ? `, ${c.t - l.t} ms after the leader's` : ""}.`;
      },
    },
  },
  {
    id: "follower-read",
    level: "junior",
    title: "Now the follower's consumer reads it",
    at: both(ev("consumer_fetch_response"), withRecords, (r) => r.consumers.some((x) => x.id === r.event.to && x.fetch_from != null)),
    say: {
      junior: (c) => {
        const other = c.lastEvent((e) => e.type === "consumer_fetch_response" && e.to !== c.e.to && count(e.records) > 0);
        return `${c.e.to} gets ${list(c.e.records.map(String))} at ${c.t} ms${other ? `, ${c.t - other.t} ms after ${other.ev.to}` : ""}.`;
      },
      senior: (c) => {
        const s = c.sentBy();
        return s?.ev?.type === "fetch_response"
          ? `Its Fetch was answered in the very step the follower's HW moved: since 3.4 a follower completes consumer Fetches parked on it when its HW moves (KAFKA-14334), instead of leaving them to fetch.max.wait.ms.`
          : `Its answer was sent at ${s?.t} ms (${s?.how}).`;
      },
    },
  },
  {
    id: "traffic",
    level: "senior",
    title: "Under traffic the lag is one round trip",
    at: both(ev("consumer_fetch_response"), withRecords, (r) => r.consumers.some((x) => x.id === r.event.to && x.fetch_from != null)),
    say: {
      senior: (c) => {
        const id = c.e.records[0];
        const p = c.lastEvent((e) => e.type === "produce" && e.records?.includes(id));
        return `${id}${p ? `, produced at ${p.t} ms,` : ""} reaches ${c.e.to} at ${c.t} ms. New records released the follower's parked Fetch, and that answer carried the newer HW. Under steady traffic a follower's HW trails the leader's by about one round trip; on an idle partition by up to replica.fetch.wait.max.ms.`;
      },
      principal: () => "A consumer fetching beyond the follower's LEO gets OFFSET_OUT_OF_RANGE, clears its preferred read replica and goes back to the leader (no offset reset). After a failover the new leader's HW can be lower than the old one's for a while: consumers wait rather than fail (see temporary-hw-drop).",
    },
  },
];

const kip101Old = [
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
    id: "restart",
    level: "junior",
    title: "It restarts and truncates to its own HW",
    at: ev("restart", { broker: 1 }),
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
      junior: (c) => `The pre-KIP-101 rule: a replica becoming a follower truncates its log to its own HW. Its HW was ${c.was(1).hw}, one round trip behind the leader's, so it drops the acknowledged record: LEO ${c.e.leo_before} → ${c.e.truncate_to}.`,
    },
  },
  {
    id: "crash0",
    level: "junior",
    title: "The leader crashes",
    at: ev("crash", { broker: 0 }),
    say: {
      junior: (c) => `In the same instant leader 0 crashes. Follower 1 is still in the ISR ${set(c.rec.partition.isr)}.`,
    },
  },
  {
    id: "elect",
    level: "junior",
    title: "The follower is elected",
    at: ev("leader_election"),
    say: {
      junior: (c) => `The controller fences broker ${c.e.broker} after broker.session.timeout.ms (${c.cfg("broker.session.timeout.ms")} ms) and elects broker ${c.e.leader} from the ISR: leader epoch ${c.e.leader_epoch}.`,
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
    at: both(ev("fetch_response"), (r) => r.event.error === "OFFSET_OUT_OF_RANGE"),
    say: {
      middle: (c) => `Broker ${c.e.to} returns as a follower, fetches at ${c.e.leo_before}, beyond leader ${c.e.from}'s log, gets OFFSET_OUT_OF_RANGE and truncates to the leader's LEO (${c.e.truncate_to}). The replicas agree again, on a log without the acknowledged record.`,
    },
  },
];

const kip101New = [
  {
    id: "restart",
    level: "middle",
    title: "kafka-0.11: the restart keeps the record",
    at: ev("restart", { broker: 1 }),
    quiz: kip101Old[2].quiz,
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

const kip101Latest = [
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
    level: "principal",
    title: "The lesson",
    at: ev("leader_and_isr", { outcome: "become-leader" }),
    say: {
      principal: (c) => `Broker ${c.L} leads epoch ${c.rec.partition.leader_epoch} with LEO ${c.lead.leo}; HW ${c.was(c.L).hw} → ${c.lead.hw}. A follower's HW lags the leader's by design (one Fetch later, or replica.fetch.wait.max.ms on an idle partition), so it cannot mark the end of committed data. Leader epochs record where each leader's writes begin, and truncation is decided from them. KIP-101 scenario 2 (kip101-divergence) shows the same fix for diverged logs.`,
    },
  },
];

export const TOURS = [
  {
    id: "hw-lag",
    title: "Why a follower's HW lags the leader's",
    parts: [
      { scenario: "seed-walkthrough", preset: "textbook", beats: seedTextbook },
      { scenario: "seed-walkthrough", preset: "kafka-4.0", beats: seedKafka },
    ],
  },
  {
    id: "long-poll",
    title: "Long-poll: replica.fetch.wait.max.ms and an idle partition",
    parts: [{ scenario: "idle-partition-lag", beats: idle }],
  },
  {
    id: "slow-follower",
    title: "The slow follower and the ISR (replica.lag.time.max.ms)",
    parts: [{ scenario: "slow-follower-isr", beats: slow }],
  },
  {
    id: "follower-fetch",
    title: "Reading from a follower (KIP-392)",
    parts: [{ scenario: "follower-fetch-consumer", beats: follower }],
  },
  {
    id: "kip101",
    title: "How a stale HW lost data, and how leader epochs fixed it (KIP-101)",
    parts: [
      { scenario: "kip101-data-loss", preset: "kafka-0.10", beats: kip101Old },
      { scenario: "kip101-data-loss", preset: "kafka-0.11", beats: kip101New },
      { scenario: "kip101-data-loss", preset: "kafka-4.0", beats: kip101Latest },
    ],
  },
];
