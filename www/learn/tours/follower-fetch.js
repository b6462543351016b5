// Tour follower-fetch: a consumer reading from a follower, KIP-392
// (follower-fetch-consumer).

import { ev, both, hwMoved, count, withRecords, any, list } from "./common.js";

export const follower = [
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
    // A contrast: the error is named, not shown in this run.
    claims: () => ["OFFSET_OUT_OF_RANGE"],
    level: "senior",
    // Not "one round trip": the follower hears the HW with the next record's answer, so the
    // lag is the gap to the leader's next append plus a round trip (semantics §11).
    title: "Under traffic the lag is the gap to the next record",
    at: both(ev("consumer_fetch_response"), withRecords, (r) => r.consumers.some((x) => x.id === r.event.to && x.fetch_from != null)),
    say: {
      senior: (c) => {
        const id = c.e.records[0];
        const p = c.lastEvent((e) => e.type === "produce" && e.records?.includes(id));
        const f = c.rec.consumers.find((x) => x.id === c.e.to)?.fetch_from;
        // The answer that moved the follower's HW, and the new record it brought along.
        const moved = c.lastEvent((e) => e.type === "fetch_response" && e.to === f && e.hw_after > e.hw_before);
        const nextId = moved?.ev.ids?.[0];
        const next = nextId && c.lastEvent((e) => e.type === "produce" && e.records?.includes(nextId));
        const why = next
          ? `Follower ${f} heard the HW that covers it only when the next record, ${nextId}, produced at ${next.t} ms, released its parked Fetch: that answer carried the newer HW.`
          : "New records released the follower's parked Fetch, and that answer carried the newer HW.";
        return `${id}${p ? `, produced at ${p.t} ms,` : ""} reaches ${c.e.to} at ${c.t} ms${p ? `, ${c.t - p.t} ms later` : ""}. ${why} Under traffic a follower's HW trails the leader's by the gap to the leader's next append plus one round trip: about one round trip only when records come more often than that. On an idle partition, by up to replica.fetch.wait.max.ms.`;
      },
      principal: () => "A consumer fetching beyond the follower's LEO gets OFFSET_OUT_OF_RANGE, clears its preferred read replica and goes back to the leader (no offset reset). After a failover the new leader's HW can be lower than the old one's for a while: consumers wait rather than fail (see temporary-hw-drop).",
    },
  },
];
