// The questions people bring from their own clusters (issue 29), each answered
// by a run: why a follower's consumer is about a second behind; what acks=all
// waits for when the ISR is the leader alone; what moves the LEO and the HW;
// whether a record acknowledged just before the leader dies survives.
// Every number is read from the step records at the beat (`c`); the deeper levels
// of the first show a preferred read replica that leaves the ISR (KAFKA-14372).

import { ev, both, hwMoved, withRecords, any, list, set, plural, count, WRONG, hwOf } from "./common.js";
import { sessionEnds } from "./kip101.js";
import { sentBy } from "../words.js";

/** A consumer's setting as the run has it (the core fills in the defaults). */
const cset = (c, id, key) => c.sc.consumers?.find((x) => x.id === id)?.[key];
const followerConsumer = (c) => c.rec.consumers.find((x) => x.fetch_from != null);
/** A follower's HW moved at this step (an answer to its Fetch carried it). */
const followerHwMoved = (r) => r.event?.type === "fetch_response" && r.event.hw_after > r.event.hw_before;

// ---- "Why is my follower-fetch consumer about a second behind?" ---------------

const lagBeats = [
  {
    id: "start",
    level: "junior",
    title: "Two consumers, one on a follower",
    at: any,
    say: {
      junior: (c) => `Under ${c.sc.preset}: ${list(c.rec.consumers.map((x) => `${x.id} reads from ${x.fetch_from == null ? `leader ${c.L}` : `follower ${x.fetch_from}`}`))}. A consumer may read only below the HW of the replica it reads from, and a follower hears the HW only in the answer to its own Fetch.`,
      middle: (c) => `Two waits decide how late the follower's consumer is: the follower's Fetch parked at the leader (replica.fetch.wait.max.ms = ${c.cfg("replica.fetch.wait.max.ms")} ms) and the consumer's own fetch parked at the follower (fetch.max.wait.ms = ${cset(c, followerConsumer(c)?.id, "fetch.max.wait.ms")} ms).`,
    },
  },
  {
    id: "leader-hw",
    level: "junior",
    title: "Committed on the leader",
    at: both(ev("fetch_request"), hwMoved),
    say: {
      junior: (c) => `At ${c.t} ms the last follower's Fetch reports the record: the leader's HW moves ${c.e.hw_before} → ${c.e.hw_after}. The leader's consumer can read it now; follower ${followerConsumer(c)?.fetch_from}'s HW is still ${c.rep(followerConsumer(c)?.fetch_from)?.hw}.`,
    },
  },
  {
    id: "follower-hw",
    level: "junior",
    title: "The follower learns the HW",
    at: (r) => {
      const f = r.consumers.find((x) => x.fetch_from != null)?.fetch_from;
      return followerHwMoved(r) && r.event.to === f;
    },
    quiz: {
      kind: "value",
      ask: (c) => `The answer to follower ${c.e.to}'s Fetch arrives at ${c.t} ms carrying the leader's HW. What is follower ${c.e.to}'s HW once it is read?`,
      answer: (c) => ({ value: c.rep(c.e.to).hw, broker: c.e.to, field: "hw" }),
      choices: (c) => [{ value: c.was(c.e.to).hw, why: "The answer carries the leader's HW; the follower takes min(that HW, its own LEO) at once." }],
      explain: (c) => `Follower ${c.e.to}'s HW is ${c.rep(c.e.to).hw}, ${c.t - (c.leaderMoved(c.rep(c.e.to).hw)?.t ?? c.t)} ms after the leader's.`,
    },
    say: {
      junior: (c) => `Follower ${c.e.to} learns HW ${c.e.hw_after} at ${c.t} ms, ${c.t - (c.leaderMoved(c.e.hw_after)?.t ?? c.t)} ms after the leader. ${c.sentBy()?.ev?.type === "timeout" ? `Its Fetch had been parked at the leader until replica.fetch.wait.max.ms (${c.cfg("replica.fetch.wait.max.ms")} ms) ran out: nothing new arrived, and a change of the HW alone does not complete a follower's Fetch in this version.` : "Its Fetch was answered as soon as the HW moved: this version completes a follower's parked Fetch when the HW changes (2.4 and 2.5 only)."}`,
      senior: () => "Only 2.4 and 2.5 completed a follower's parked Fetch on an HW change (KIP-392 brought it, and it was taken out again for its cost); before and after, a caught-up follower hears the new HW with the next record or when its Fetch expires.",
    },
  },
  {
    id: "consumer-read",
    level: "junior",
    title: "The follower's consumer reads it",
    at: (r) => r.event?.type === "consumer_fetch_response" && r.event.records?.length > 0 && r.consumers.find((x) => x.id === r.event.to)?.fetch_from != null,
    say: {
      junior: (c) => {
        const { leader, follower, f } = waits(c);
        const head = `${c.e.to} gets ${list(c.e.records.map(String))} at ${c.t} ms, ${c.t - leader} ms after the leader's HW moved: ${follower - leader} ms for follower ${f} to hear the HW (${follower - leader >= c.cfg("replica.fetch.wait.max.ms") ? "its Fetch parked at the leader until replica.fetch.wait.max.ms ran out" : "the HW change answered its Fetch parked at the leader"}), then ${c.t - follower} ms`;
        const by = c.sentBy()?.ev;
        if (by?.timer === "consumer-fetch-expiry") {
          return `${head} for the consumer's own fetch, parked on the follower until fetch.max.wait.ms ran out: under ${c.sc.preset} an HW move on the follower does not answer the fetches parked on it.${follower - leader >= c.cfg("replica.fetch.wait.max.ms") ? " The two waits add up: with the defaults, about a second." : ""}`;
        }
        // Answered on arrival: the time after the follower heard the HW went on the consumer's
        // way to the follower, not on a fetch parked there (kafka-2.4: the leader held its
        // answer naming the preferred read replica until fetch.max.wait.ms, before KAFKA-13767).
        if (by?.type === "consumer_fetch_request") return `${head} before its fetch reached follower ${f} at all: ${toFollower(c, f)} Follower ${f} answered it at once, everything below its HW.`;
        return `${head}: under ${c.sc.preset} the follower answers the consumer's fetch parked on it as soon as its HW moves (from 3.4, KAFKA-14334), so only the follower's own wait is left.`;
      },
      middle: (c) => `The consumer's fetch sat on the follower for up to fetch.max.wait.ms (${cset(c, c.e.to, "fetch.max.wait.ms")} ms); the follower's Fetch sat on the leader for up to replica.fetch.wait.max.ms (${c.cfg("replica.fetch.wait.max.ms")} ms). On an idle partition, before 3.4, the consumer waits for both, one after the other; each new record releases the parked Fetches sooner.`,
    },
  },
];

/** Why the follower's consumer reached follower f only now: the answer that sent it there. */
function toFollower(c, f) {
  const id = c.e.to;
  const named = c.lastEvent((ev) => ev.type === "consumer_fetch_response" && ev.to === id && ev.preferred_read_replica === f);
  if (!named) return `${id} was still on its way to it.`;
  const why = c.trace.receivedAt(named.step) && sentBy(c.trace, c.trace.receivedAt(named.step));
  const held = why?.ev?.type === "timeout" && why.ev.timer === "consumer-fetch-expiry";
  return held
    ? `${id}'s first fetch went to leader ${c.L}, which names follower ${f} as its preferred read replica, but under ${c.sc.preset} that answer waited in the leader's purgatory until fetch.max.wait.ms ran out (before 3.2, KAFKA-13767), so ${id} was sent to follower ${f} only when that wait was over.`
    : `${id} was sent there late, by leader ${c.L}'s answer naming follower ${f} its preferred read replica.`;
}

/** When the leader's HW and then follower f's reached the HW the follower's consumer reads below. */
function waits(c) {
  const f = followerConsumer(c).fetch_from;
  const hw = c.rep(f).hw;
  const moved = c.lastEvent((ev) => ev.type === "fetch_response" && ev.to === f && ev.hw_after >= hw && ev.hw_before < hw);
  return { f, leader: c.leaderMoved(hw)?.t ?? c.t, follower: moved?.t ?? c.t };
}

/** The question's first part runs a version before KAFKA-14334 (3.4), where the consumer's
 *  wait adds to the follower's: about a second. Then the same run today, then 2.4–2.5. */
const lagParts = (preset) => {
  if (preset === "kafka-2.8") return lagBeats;
  const level = preset === "kafka-4.0" ? { "consumer-read": "junior" } : { "follower-hw": "senior", "consumer-read": "senior" };
  return lagBeats.filter((b) => level[b.id]).map((b) => ({
    ...b,
    level: level[b.id],
    quiz: undefined,
    title: b.id === "consumer-read" ? (preset === "kafka-4.0" ? "From 3.4 the consumer's wait goes" : "2.4 and 2.5: the follower hears at once") : b.title,
    say: b.id === "consumer-read" && preset === "kafka-4.0"
      ? { ...b.say, principal: () => "To shorten it: keep traffic flowing (each new record releases the parked Fetches), lower replica.fetch.wait.max.ms (more idle Fetches on the leader), or read from the leader. A consumer on a follower that left the ISR keeps reading it until its metadata refresh (metadata.max.age.ms) or an error; from 3.3.2 and 3.4.0 (KAFKA-14372) the leader names only ISR members as a preferred read replica." }
      : b.say,
  }));
};

// The deeper levels: a preferred read replica that leaves the ISR (KAFKA-14372), per preset.
const cFollower = (r) => r.consumers.find((x) => x.id === "c-follower");
const outOfIsr = (r) => !r.partition.isr.includes(cFollower(r)?.fetch_from);

const staleBeats = (fixed) => [
  {
    id: "left-isr",
    level: "senior",
    title: fixed ? "The follower leaves the ISR; its consumer stays" : "Before KAFKA-14372: the same cut",
    at: both(ev("isr_change"), outOfIsr),
    say: {
      senior: (c) => {
        const f = cFollower(c.rec);
        return `Under ${c.sc.preset} follower ${f.fetch_from} has been cut off from leader ${c.L} since ${c.sc.events.find((e) => e.partition)?.at_ms} ms. At ${c.t} ms the leader applies ISR ${set(c.e.isr)} without it, and its HW, held by follower ${f.fetch_from} until now, moves ${c.e.hw_before} → ${c.e.hw_after}. Follower ${f.fetch_from}'s HW stays ${c.rep(f.fetch_from).hw}. ${f.id} still reads from follower ${f.fetch_from}, the preferred read replica the leader named: it is at offset ${f.position} and gets nothing more there. Nothing tells a consumer that its replica left the ISR.`;
      },
    },
  },
  {
    id: "refresh",
    level: "senior",
    title: fixed ? "At its metadata refresh it asks the leader" : "Sent back to the lagging follower",
    at: (r) => r.event?.type === "consumer_fetch_response" && r.event.to === "c-follower" && r.event.from === r.partition.leader && outOfIsr(r),
    say: {
      senior: (c) => {
        const f = cFollower(c.rec);
        const age = cset(c, f.id, "metadata.max.age.ms");
        const head = `At ${c.t} ms ${f.id}'s metadata refresh is due (metadata.max.age.ms = ${age} ms here, 5 minutes by default) and it fetches from leader ${c.L} again at offset ${c.e.offset}.`;
        return fixed
          ? `${head} Under ${c.sc.preset} the leader names only ISR members as a preferred read replica (KAFKA-14372, from 3.3.2 and 3.4.0): follower ${f.fetch_from} is not one, so leader ${c.L} serves ${f.id} itself, ${plural(count(c.e.records), "record")} up to its HW ${c.e.hw}.`
          : `${head} Under ${c.sc.preset} the leader names any replica that has the offset (before 3.3.2 and 3.4.0, KAFKA-14372): it sends ${f.id} back to follower ${c.e.preferred_read_replica}, whose HW is still ${c.rep(f.fetch_from).hw}, with no records. It will do so at every refresh for as long as the follower lags.`;
      },
      principal: () => "Watch the consumer's lag (records-lag): it is measured against the HW of the replica it reads from, so a consumer on a lagging follower reports little lag while it falls behind the leader. Before KAFKA-14372 it ends only when the follower catches up, at an error, or when the consumer restarts.",
    },
  },
  {
    id: "after",
    level: "senior",
    title: fixed ? "It reads from the leader until the follower is back" : "It moves on only when the follower does",
    at: fixed
      ? (r) => r.event?.type === "isr_change" && !outOfIsr(r) && r.time_ms > 10000
      : (r) => r.event?.type === "consumer_fetch_response" && r.event.to === "c-follower" && r.event.from === cFollower(r)?.fetch_from && count(r.event.records) > 0 && r.time_ms > 10000,
    say: {
      senior: (c) => {
        const f = cFollower(c.rec);
        const leader = c.rec.consumers.find((x) => x.id !== f.id);
        return fixed
          ? `The link heals at ${c.sc.events.find((e) => e.heal)?.at_ms} ms; follower ${f.fetch_from} catches up and rejoins the ISR ${set(c.e.isr)} at ${c.t} ms. By then ${f.id} has read up to offset ${f.position} from the leader, as far as ${leader.id} (${leader.position}). Once the follower is back in the ISR the leader may name it again.`
          : `The link heals at ${c.sc.events.find((e) => e.heal)?.at_ms} ms and follower ${f.fetch_from} catches up. Only at ${c.t} ms does ${f.id} get records again: ${plural(count(c.e.records), "record")} from offset ${c.e.offset}. Under ${c.sc.preset} it had been held at offset ${c.e.offset} since the cut, while ${leader.id} read on.`;
      },
    },
  },
];

// ---- "acks=all waits for the ISR — which may be just the leader" ----------------

const minIsrBeats = [
  {
    id: "start",
    level: "junior",
    title: "Three replicas, min.insync.replicas = 2",
    at: any,
    say: {
      junior: (c) => `${c.rec.replicas.length} replicas, ISR ${set(c.rec.partition.isr)}, min.insync.replicas = ${c.cfg("min.insync.replicas")}. acks=all means: acknowledged once every member of the ISR has the record. The ISR can shrink, so min.insync.replicas sets how small it may be for an acks=all write to be taken.`,
      middle: (c) => `With ${c.rec.replicas.length} replicas and min.insync.replicas = ${c.cfg("min.insync.replicas")}, acks=all writes go on through ${c.rec.replicas.length - c.cfg("min.insync.replicas")} failure${c.rec.replicas.length - c.cfg("min.insync.replicas") === 1 ? "" : "s"} (replicas − min.insync); one more and they are refused rather than kept on fewer copies.`,
    },
  },
  {
    id: "crash",
    level: "junior",
    title: "Both followers crash",
    at: ev("crash", { broker: 2 }),
    say: {
      junior: (c) => `At ${c.t} ms both followers are down, but the ISR is still ${set(c.rec.partition.isr)}: the controller has not noticed yet. An acks=all write now waits, because the HW cannot pass what the dead followers have.`,
    },
  },
  {
    id: "shrink",
    // A contrast: the error is named, not shown in this run.
    claims: () => ["NOT_ENOUGH_REPLICAS_AFTER_APPEND"],
    level: "junior",
    title: "The ISR is the leader alone",
    at: (r) => r.event?.type === "leader_and_isr" && r.event.outcome === "isr-update" && r.event.isr?.length === 1,
    quiz: hwOf(0, (c) => [{ value: c.lead.leo, why: "The leader alone is the whole ISR, but it is below min.insync.replicas: since 3.7 (KAFKA-15583) the HW is held rather than moved to the leader's LEO." }],
      (c) => `The leader learns ISR ${set(c.e.isr)}: itself alone, under min.insync.replicas. Its LEO is ${c.lead.leo}. What is its HW now?`,
      (c) => `HW ${c.lead.hw}: held while the ISR is under min.insync.replicas (${c.cfg("min.insync.replicas")}).`),
    say: {
      junior: (c) => `${sessionEnds({ ...c, e: { broker: 2 } })}; the ISR is now ${set(c.e.isr)}. The leader alone is fewer than min.insync.replicas (${c.cfg("min.insync.replicas")}): the stage marks the partition under min ISR, and the HW stays ${c.lead.hw} although the leader's LEO is ${c.lead.leo}.`,
      senior: () => "Before 3.7 the HW moved to the leader's LEO here (the leader alone was the ISR), and an acks=all write already appended completed with NOT_ENOUGH_REPLICAS_AFTER_APPEND: appended, then told it is not safe. Holding the HW (KAFKA-15583) keeps such records invisible to consumers until the ISR is large enough again.",
    },
  },
  {
    id: "refused",
    // A contrast: the error is named, not shown in this run.
    claims: () => ["NOT_ENOUGH_REPLICAS_AFTER_APPEND"],
    level: "junior",
    title: "A new acks=all write is refused",
    at: (r) => r.event?.type === "produce_request" && r.event.error === "NOT_ENOUGH_REPLICAS",
    say: {
      junior: (c) => `${c.e.from}'s acks=all write arrives at ${c.t} ms and is refused with NOT_ENOUGH_REPLICAS: ISR ${set(c.rec.partition.isr)} has ${plural(c.rec.partition.isr.length, "member")}, fewer than ${c.cfg("min.insync.replicas")}. Nothing is appended; the producer retries until delivery.timeout.ms.`,
      middle: () => "NOT_ENOUGH_REPLICAS is checked before the append; NOT_ENOUGH_REPLICAS_AFTER_APPEND is the answer to a write appended while the ISR was large enough that then shrank below min.insync.replicas while it waited.",
    },
  },
  {
    id: "acks1",
    level: "middle",
    title: "acks=1 is taken, but not readable",
    at: both(ev("produce_request", { acks: 1 }), (r) => r.event.outcome === "appended"),
    say: {
      middle: (c) => `${c.e.from} writes with acks=1: min.insync.replicas does not apply, so leader ${c.L} appends ${list(c.e.records.map(String))} at ${c.e.first_offset} and acknowledges. Its HW stays ${c.lead.hw}: the record is acknowledged but no consumer can read it.`,
    },
  },
  {
    id: "rejoin",
    level: "junior",
    title: "A follower returns: the HW moves",
    at: both(ev("isr_change"), hwMoved),
    say: {
      junior: (c) => `${list((c.e.isr ?? []).filter((b) => !(c.e.isr_before ?? []).includes(b)).map((b) => `Follower ${b}`))} is back in the ISR ${set(c.e.isr)}, enough for min.insync.replicas again: the HW moves ${c.e.hw_before} → ${c.e.hw_after} and the writes that waited are acknowledged.`,
      principal: (c) => `Replication factor ${c.rec.replicas.length} with min.insync.replicas ${c.cfg("min.insync.replicas")}: acks=all writes survive any ${c.rec.replicas.length - c.cfg("min.insync.replicas")} lost replica${c.rec.replicas.length - c.cfg("min.insync.replicas") === 1 ? "" : "s"} without a loss, and stop (rather than risk one) at the next. Next, the same crashes with min.insync.replicas set to 1.`,
    },
  },
];

// The same crashes with min.insync.replicas = 1: the ISR may be the leader alone, and
// acks=all then means one copy.
/** The error an acks=all write waiting on the leader is answered with, and why not the others. */
const AFTER_APPEND_CHOICES = [
  { key: "ack", label: "An acknowledgement: the HW passed it", why: "The HW passing a write is not enough: when the ISR is under min.insync.replicas as the write completes, the leader answers an error instead of the acknowledgement." },
  { key: "NOT_ENOUGH_REPLICAS", label: "NOT_ENOUGH_REPLICAS", why: "NOT_ENOUGH_REPLICAS answers a write that arrives while the ISR is too small: it is checked before the append. This write was appended while the ISR was large enough." },
  { key: "NOT_ENOUGH_REPLICAS_AFTER_APPEND", label: "NOT_ENOUGH_REPLICAS_AFTER_APPEND" },
  { key: "REQUEST_TIMED_OUT", label: "REQUEST_TIMED_OUT", why: "It does not wait for its timeout: the ISR change completes it at once." },
];

/** Before 3.7 (KAFKA-15583) the HW is not held under min ISR: what the waiting write is told. */
const minIsrOldBeats = [
  {
    id: "after-append",
    level: "junior",
    title: "Before 3.7: appended, then told it is not safe",
    at: (r) => r.event?.type === "produce_response" && r.event.error === "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
    claims: () => ["NOT_ENOUGH_REPLICAS", "REQUEST_TIMED_OUT"],
    quiz: {
      kind: "claim",
      claim: "after-append",
      ask: (c) => {
        const bump = c.lastEvent((e) => e.type === "leader_and_isr" && e.outcome === "become-leader");
        return `The same crashes under ${c.sc.preset}. ${c.e.to}'s acks=all write ${list((c.e.records ?? []).map(String))} was appended while the ISR was larger, and waits. At ${bump?.t} ms the controller's LeaderAndIsr leaves leader ${c.L} alone in ISR ${set(c.rec.partition.isr)}, one fewer than min.insync.replicas = ${c.cfg("min.insync.replicas")}, and its HW moves to ${c.lead.hw}. What is ${c.e.to} told?`;
      },
      answer: (c) => ({ key: c.e.error ?? "ack" }),
      choices: () => AFTER_APPEND_CHOICES,
      explain: (c) => `At ${c.t} ms leader ${c.L} answers ${c.e.to} ${c.e.error} for ${list((c.e.records ?? []).map(String))}: the record is in its log, below its HW ${c.lead.hw}, but the ISR ${set(c.rec.partition.isr)} is under min.insync.replicas. The stage marks the write beside ${c.e.to}'s pill, with the error.`,
    },
    say: {
      junior: (c) => `${c.e.to} is told ${c.e.error}: its write was appended, but when it completed the ISR was ${set(c.rec.partition.isr)}, under min.insync.replicas (${c.cfg("min.insync.replicas")}). It will send it again${c.e.backoff_ms != null ? ` in ${c.e.backoff_ms} ms` : ""}; the first copy stays in the log.`,
      middle: (c) => `Under ${c.sc.preset} the HW is not held under min ISR: the leader alone is the whole ISR, so its HW moves to its LEO ${c.lead.leo} and consumers may read the record${c.rec.consumers.length ? ` (${list(c.rec.consumers.map((x) => `${x.id} is at ${x.position}`))})` : ""}, while the producer is told it failed.`,
      senior: () => "Without enable.idempotence the retry is appended a second time once the ISR is large enough again: the narration names that duplicate, and why it was sent again. From 3.7 (KAFKA-15583) the HW is held instead, so a write appended under min ISR stays unreadable until it is safe.",
      principal: () => "NOT_ENOUGH_REPLICAS_AFTER_APPEND is retriable, but it does not say the write is lost: it says the write is on fewer replicas than asked. Only an idempotent producer turns the retry into exactly one copy.",
    },
  },
];

const minIsrOneBeats = [
  {
    id: "alone-enough",
    level: "junior",
    title: "min.insync.replicas = 1: the leader alone is enough",
    at: (r) => r.event?.type === "leader_and_isr" && r.event.outcome === "isr-update" && r.event.isr?.length === 1,
    quiz: hwOf(0, (c) => [{ value: c.was(0).hw, why: "With min.insync.replicas = 1 nothing holds the HW: the leader alone is a large enough ISR." }],
      (c) => `The same crashes, now with min.insync.replicas = ${c.cfg("min.insync.replicas")}. The leader learns ISR ${set(c.e.isr)}; its LEO is ${c.lead.leo}. What is its HW now?`,
      (c) => `HW ${c.lead.hw}: the leader alone is the whole ISR, and it is enough.`),
    say: {
      junior: (c) => `With min.insync.replicas = ${c.cfg("min.insync.replicas")} the same fencing leaves ISR ${set(c.e.isr)}, and the leader alone is enough: the HW moves ${c.e.hw_before} → ${c.e.hw_after} at once, and the acks=all write that waited is acknowledged.`,
    },
  },
  {
    id: "one-copy",
    level: "junior",
    title: "acks=all, acknowledged with one copy",
    action: { label: "Compare min.insync.replicas 2 and 1 side by side", view: "compare", parts: [[0, "min.insync.replicas = 2"], [1, "min.insync.replicas = 1"]] },
    at: (r) => r.event?.type === "produce_response" && r.event.to === "p-all" && !r.event.error && r.partition.isr.length === 1,
    say: {
      junior: (c) => `${c.e.to} gets its acknowledgement for ${list((c.e.records ?? []).map(String))} at ${c.t} ms. acks=all waited for the whole ISR, ${set(c.rec.partition.isr)}: leader ${c.L} is the only broker that has ${(c.e.records ?? []).length === 1 ? "it" : "them"}.`,
      principal: (c) => {
        const rf = c.rec.replicas.length;
        const m = c.cfg("min.insync.replicas");
        return `Replication factor ${rf} with min.insync.replicas = ${m}: writes go on through ${rf - m} lost replicas, but a write acknowledged meanwhile is on leader ${c.L} alone. If that broker's disk is lost before a follower copies it, so is the record; no clean election can bring it back. replicas − min.insync is how many failures writes go on through; min.insync is how many copies each acknowledged write has.`;
      },
    },
  },
];

// ---- "LEO vs HW: what moves each, and when?" -------------------------------------

const leoHwBeats = [
  {
    id: "start",
    level: "junior",
    title: "Two numbers per replica",
    at: any,
    say: {
      junior: (c) => `Every replica has a LEO (the next offset it will write) and an HW (everything below it is committed). Now all are at LEO ${c.lead.leo}, HW ${c.lead.hw}.`,
    },
  },
  {
    id: "append",
    level: "junior",
    title: "An append moves the leader's LEO only",
    at: both(ev("produce_request"), (r) => r.event.outcome === "appended"),
    quiz: hwOf(0, (c) => [{ value: c.lead.leo, why: "Appending is not committing: the HW moves only when every ISR member has reported the records." }],
      (c) => `Leader 0 appends ${plural(count(c.e.records), "record")}: its LEO becomes ${c.e.leo_after}. What is its HW?`,
      (c) => `HW ${c.lead.hw}: nothing has reached a follower yet.`),
    say: {
      junior: (c) => `LEO ${c.was(0).leo} → ${c.lead.leo} on the leader; its HW stays ${c.lead.hw}.`,
    },
  },
  {
    id: "follower-leo",
    level: "junior",
    title: "A Fetch answer moves the follower's LEO",
    at: both(ev("fetch_response"), withRecords),
    say: {
      junior: (c) => `The answer brings ${plural(count(c.e.records), "record")} to follower ${c.e.to}: its LEO ${c.was(c.e.to).leo} → ${c.rep(c.e.to).leo}. Its HW is ${c.rep(c.e.to).hw}, the HW the answer carried.`,
    },
  },
  {
    id: "leader-hw",
    level: "junior",
    title: "The follower's next Fetch moves the leader's HW",
    at: both(ev("fetch_request"), hwMoved),
    say: {
      junior: (c) => `Follower ${c.e.from}'s Fetch at ${c.e.fetch_offset} tells the leader its LEO. The HW is the lowest LEO in the ISR: ${c.e.hw_before} → ${c.e.hw_after}.`,
      middle: () => WRONG.noLeo,
    },
  },
  {
    id: "follower-hw",
    level: "junior",
    title: "The answer after that moves the follower's HW",
    at: followerHwMoved,
    say: {
      junior: (c) => `Only the answer to a later Fetch tells follower ${c.e.to} the new HW: ${c.e.hw_before} → ${c.e.hw_after} at ${c.t} ms. So a follower's LEO leads its HW by one round trip, and its HW trails the leader's.`,
      senior: () => "A follower's HW = min(the HW in the answer, its own LEO). On a restart it reads its HW from a checkpoint (replica.high.watermark.checkpoint.interval.ms), which can be older still.",
    },
  },
  {
    id: "views",
    level: "senior",
    title: "Who knows which LEO",
    at: any,
    say: {
      senior: (c) => `The leader keeps its own view of each follower's LEO, the fetch offset of the follower's last Fetch: ${list((c.lead.followers ?? []).map((f) => `follower ${f.broker} at ${f.fetch_offset}`))}. The markers left of its log show them. Its HW (${c.lead.hw}) is the lowest of those and its own LEO (${c.lead.leo}) among the ISR ${set(c.rec.partition.isr)}.`,
      principal: () => "Both numbers are per replica and only the leader's HW is authoritative; a consumer reading from a follower reads up to that follower's HW (KIP-392), and a follower never serves above it.",
    },
  },
];

// ---- "The leader dies before the followers learn the new HW" ---------------------

/** KRaft: the bounced follower was fenced out of the ISR while its new incarnation waited
 *  for its old session to end; when the leader's session ends too, the ISR holds only the
 *  dead leader and nobody can be elected (ReplicationControlManager, unclean election off). */
const noLeader = (c) => `But it does not take over: there is no leader. The ISR is ${set(c.rec.partition.isr)}, the dead leader alone: follower 1's restart came inside its old session, so the controller refused it until that session ran out, then fenced it and took it out of the ISR. When leader 0's session ran out as well, no replica in the ISR could lead, and a replica outside it is not elected while unclean.leader.election.enable is false.`;

const rejoins = (b) => (r) =>
  r.event?.to === b && ["broker_registration_response", "leader_and_isr", "broker_heartbeat_response"].includes(r.event.type) && ["become-follower", "become-leader"].includes(r.event.outcome);

const deathBeats = (old) => [
  {
    id: "acked",
    level: "junior",
    title: old ? "Acknowledged; the follower does not know yet" : "kafka-4.0: the same schedule",
    at: both(ev("fetch_request"), hwMoved),
    say: {
      junior: (c) => `Under ${c.sc.preset} the leader's HW moves ${c.e.hw_before} → ${c.e.hw_after} and the acks=all write is acknowledged. Follower 1's HW is ${c.rep(1).hw}: the answer that would tell it has not left the leader.`,
    },
  },
  {
    id: "rejoin",
    level: "junior",
    // Not "takes over": under kafka-4.0 the follower is not elected at all (see `noLeader`).
    title: "The follower comes back",
    at: rejoins(1),
    quiz: {
      kind: "value",
      ask: (c) => `Leader 0 is dead; follower 1 (LEO ${c.was(1).leo}, HW ${c.was(1).hw}) has restarted and is made a follower again. Under ${c.sc.preset}, what is its LEO then?`,
      answer: (c) => ({ value: c.rep(1).leo, broker: 1, field: "leo" }),
      choices: (c) => [
        { value: c.was(1).hw, why: "Truncating to its own HW was the rule before KIP-101 (0.11)." },
        { value: c.was(1).leo, why: "Keeping the log is the rule since KIP-101: truncation is decided by leader epochs, not by the follower's HW." },
      ],
      explain: (c) => `Under ${c.sc.preset} follower 1's LEO is ${c.rep(1).leo}.`,
    },
    say: {
      junior: (c) => `Under ${c.sc.preset} follower 1 ${c.rep(1).leo < c.was(1).leo ? `truncates to its own HW: LEO ${c.was(1).leo} → ${c.rep(1).leo}, and the acknowledged record is gone from it` : `keeps its log (LEO ${c.rep(1).leo}): its stale HW ${c.rep(1).hw} is not used to truncate`}.${c.L == null ? ` ${noLeader(c)}` : ""}`,
    },
  },
  {
    id: "outcome",
    level: "junior",
    title: old ? "Lost" : "Kept",
    at: ev("leader_and_isr", { outcome: "become-leader" }),
    ...(old ? {} : { action: { label: "Compare kafka-0.10 and kafka-4.0 side by side", view: "compare", parts: [[0, "kafka-0.10"], [1, "kafka-4.0"]] } }),
    say: {
      junior: (c) => {
        const lost = (c.rec.lost ?? []).filter((l) => !l.allowed);
        const back = c.sc.events.find((e) => e.restart?.broker === c.L)?.at_ms;
        const old = c.L === 0 && back != null ? ` It is the old leader, back since ${back} ms: follower 1 was never elected.` : "";
        return `Broker ${c.L} leads epoch ${c.rec.partition.leader_epoch} with LEO ${c.lead.leo}.${old} ${lost.length ? `It does not have ${list(lost.map((l) => l.id))}, acknowledged at offset ${lost[0].offset}: lost, under HW truncation.` : `The acknowledged record is there: nothing acknowledged is lost under ${c.sc.preset}.`}`;
      },
      // The same schedule; under a KRaft preset it also ends differently: the bounced
      // follower is out of the ISR when the leader goes, so it is not elected.
      middle: (c) => c.L === 1
        ? "The schedule is the same in both runs; only the rule a returning follower follows differs. That is KIP-101."
        : `The schedule is the same in both runs, and under ${c.sc.preset} two things differ. Follower 1 keeps the record (KIP-101: no truncation to a stale HW). And it is not the one elected: its restart came inside its old session, so the controller fenced it and took it out of the ISR before leader 0's session ran out; with only leader 0 left in the ISR, and unclean.leader.election.enable false, the partition had no leader until broker 0 came back.`,
    },
  },
  {
    id: "epochs",
    level: old ? "senior" : "principal",
    title: old ? "Why the follower's HW could not be trusted" : "What leader epochs record",
    at: any,
    say: {
      senior: old ? (c) => `A follower's HW trails the leader's by one Fetch answer at least (and its checkpoint by replica.high.watermark.checkpoint.interval.ms more). Under ${c.sc.preset} it was the truncation point, so a record committed on the leader one round trip earlier was cut.` : undefined,
      principal: (c) => `Leader ${c.L}'s epoch cache: ${list((c.lead.epoch_cache ?? []).map(([e, o]) => `epoch ${e} from offset ${o}`))}. A returning replica asks where its last epoch ends (OffsetsForLeaderEpoch, or since 2.8 the diverging epoch in the Fetch answer) and truncates only past that: a record the leader has is never cut for a stale HW.`,
    },
  },
];

// ---- "What does an unclean election lose, and how does a consumer notice?" -------

const uncleanBeats = (old) => [
  {
    id: "alone",
    level: "junior",
    title: "The follower drops out; the leader goes on alone",
    at: both(ev("isr_change"), (r) => r.event.isr?.length === 1),
    say: {
      junior: (c) => `Under ${c.sc.preset} follower 1 is cut off and leaves the ISR: ISR ${set(c.e.isr)}, HW ${c.e.hw_before} → ${c.e.hw_after}. From now on acks=all writes are acknowledged by leader 0 alone (min.insync.replicas ${c.cfg("min.insync.replicas")}).`,
    },
  },
  {
    id: "unclean",
    level: "junior",
    title: "An unclean election",
    at: both(ev("leader_election"), (r) => r.event.clean === false),
    say: {
      junior: (c) => `Leader 0 crashed; the ISR ${set(c.e.isr_before)} has no live member. With unclean.leader.election.enable = ${c.cfg("unclean.leader.election.enable")} the controller elects broker ${c.e.leader}, which was out of the ISR: epoch ${c.e.leader_epoch}.`,
    },
  },
  {
    id: "lost",
    level: "junior",
    title: "What it loses",
    at: ev("leader_and_isr", { outcome: "become-leader" }),
    quiz: {
      kind: "value",
      ask: (c) => `Broker ${c.L} becomes the leader. The old leader's HW was ${c.lastEvent((e) => e.type === "isr_change")?.ev.hw_after ?? "above it"}. What is the new leader's HW?`,
      answer: (c) => ({ value: c.lead.hw, broker: c.L, field: "hw" }),
      choices: (c) => [{ value: c.lead.leo + 2, why: "A new leader cannot have a HW above its own log: everything it lacks is gone, whatever was acknowledged." }],
      explain: (c) => `HW ${c.lead.hw}: the new leader's log ends at ${c.lead.leo}.`,
    },
    say: {
      junior: (c) => {
        const lost = [...new Set((c.rec.lost ?? []).filter((l) => l.invariant === "acked-record-lost").map((l) => l.id))];
        return `Broker ${c.L} leads with LEO ${c.lead.leo}: ${lost.length ? `${list(lost)}, acknowledged with acks=all, ${lost.length === 1 ? "is" : "are"} lost` : "nothing acknowledged is lost"}, in every version: that is what an unclean election permits.`;
      },
    },
  },
  {
    id: "notice",
    level: "junior",
    title: old ? "The consumer is told only that its offset is gone" : "The consumer checks its position (KIP-320)",
    ...(old ? {} : { action: { label: "Compare kafka-0.10 and kafka-4.0 side by side", view: "compare", parts: [[0, "kafka-0.10"], [1, "kafka-4.0"]] } }),
    at: old
      ? (r) => r.event?.type === "consumer_fetch_response" && r.event.error === "OFFSET_OUT_OF_RANGE"
      : (r) => r.event?.type === "offsets_for_leader_epoch_response" && typeof r.event.to === "string",
    say: {
      junior: (c) => {
        const now = c.rec.consumers.find((x) => x.id === c.e.to);
        const was = c.prev?.consumers.find((x) => x.id === c.e.to) ?? now;
        return old
          ? `${now.id} had read ${list(now.read)} from leader 0. Under ${c.sc.preset} it asks the new leader ${c.e.from} for offset ${c.e.offset} and is told OFFSET_OUT_OF_RANGE (the new leader's log ends at ${c.rep(c.e.from).leo}); auto.offset.reset moves it to ${now.position}. Nothing tells it that records it read are gone: it learns of a problem only because the new log is shorter, and had leader ${c.e.from} already written past ${c.e.offset} it would read on from there.`
          : `${now.id} had read ${list(now.read)} from leader 0. Under ${c.sc.preset}, seeing a new leader epoch, it first asks leader ${c.e.from} where epoch ${c.e.epoch} (that of its last record) ends: at ${c.e.end_offset?.end_offset}, below its position ${was.position}. ${c.e.outcome === "truncation-detected" ? `It detects the truncation (KIP-320, from 2.1) and moves back to ${now.position}, the first offset known to diverge, instead of reading on; with auto.offset.reset=none it stops with LogTruncationException.` : `Its position is valid: it reads on.`}`;
      },
    },
  },
  {
    id: "returns",
    level: "middle",
    title: old ? "The old leader returns: diverged logs" : "The old leader returns and truncates",
    at: (r) => r.event?.type === "fetch_response" && r.event.to === 0 && r.event.truncate_to !== undefined,
    say: {
      middle: (c) => c.e.rule === "diverging-epoch"
        ? `Broker 0 fetches with its last epoch; the answer names the diverging epoch ${c.e.diverging_epoch?.epoch}, ending at ${c.e.diverging_epoch?.end_offset}: it truncates ${c.e.leo_before} → ${c.e.truncate_to} and copies leader ${c.e.from}'s log from there.`
        : `Broker 0 is told OFFSET_OUT_OF_RANGE and truncates only to the new leader's log end: ${c.e.leo_before} → ${c.e.truncate_to}. It keeps its own record at an offset where the new leader wrote another: the logs diverge (before KIP-101).`,
      senior: () => "A consumer that had read the lost records is now past the new leader's log. From 2.1 (KIP-320) a consumer validates its position after a leader change (OffsetsForLeaderEpoch for its last fetched epoch): it learns its records were truncated (LogTruncationException, or a reset by auto.offset.reset). Before 2.1 it simply goes on from its offset, which may now hold different records.",
      principal: () => "unclean.leader.election.enable trades acknowledged records for availability. Under KIP-966 (4.1 ELR) an eligible leader replica, one that left the ISR while it was under min.insync.replicas, can still be elected cleanly before an unclean one is considered.",
    },
  },
];

export const QUESTION_TOURS = [
  {
    id: "follower-lag",
    title: "Why is my follower-fetch consumer about a second behind?",
    parts: [
      { scenario: "follower-fetch-consumer", preset: "kafka-2.8", beats: lagParts("kafka-2.8") },
      { scenario: "follower-fetch-consumer", preset: "kafka-4.0", beats: lagParts("kafka-4.0") },
      { scenario: "follower-fetch-consumer", preset: "kafka-2.4", beats: lagParts("kafka-2.4") },
      { scenario: "lagging-read-replica", preset: "kafka-4.0", beats: staleBeats(true) },
      { scenario: "lagging-read-replica", preset: "kafka-2.8", beats: staleBeats(false) },
    ],
  },
  {
    id: "min-insync",
    title: "acks=all waits for the ISR — which may be just the leader",
    parts: [
      { scenario: "acks-and-min-isr", beats: minIsrBeats },
      { scenario: "acks-and-min-isr", config: { "min.insync.replicas": 1 }, beats: minIsrOneBeats },
      { scenario: "acks-and-min-isr", preset: "kafka-2.8", beats: minIsrOldBeats },
    ],
  },
  {
    id: "leo-hw",
    title: "LEO vs HW: what moves each, and when?",
    parts: [{ scenario: "seed-walkthrough", preset: "kafka-4.0", beats: leoHwBeats }],
  },
  {
    id: "unclean",
    title: "What does an unclean election lose, and how does a consumer notice?",
    parts: [
      { scenario: "unclean-election", preset: "kafka-0.10", consumers: [{ id: "c1" }], beats: uncleanBeats(true) },
      { scenario: "unclean-election", preset: "kafka-4.0", consumers: [{ id: "c1" }], beats: uncleanBeats(false).filter((b) => b.id !== "alone") },
    ],
  },
  {
    id: "leader-dies",
    title: "The leader dies before the followers learn the new HW: is the acknowledged record lost?",
    parts: [
      { scenario: "kip101-data-loss", preset: "kafka-0.10", beats: deathBeats(true) },
      { scenario: "kip101-data-loss", preset: "kafka-4.0", beats: deathBeats(false) },
    ],
  },
];
