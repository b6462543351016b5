// Tour slow-follower: the slow follower and the ISR, replica.lag.time.max.ms
// (slow-follower-isr).

import { ev, both, hwMoved, count, withRecords, list, plural, set, WRONG } from "./common.js";

export const slow = [
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
      junior: (c) => `At ${c.t} ms the link heals. Follower ${slowOf(c)}'s last Fetch was not lost: TCP holds it and sends it again at its next retransmission (200 ms after the send, doubling each time, so seconds later after a long cut). It arrives then, unless the broker's request.timeout.ms (${c.cfg("request.timeout.ms") ?? 30000} ms, Kafka's default when unset) ran out first.`,
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
