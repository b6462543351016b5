// Short words for a step's event and the party that handled it, shared by the
// sequence diagram and the cause chain. Read from the event's own fields.

/** A list of record ids, or their count (events carry ids when narrated), as a number. */
export const count = (v) => (Array.isArray(v) ? v.length : v ?? 0);

export const who = (x) => (typeof x === "number" ? `broker ${x}` : x === "controller" ? "the controller" : String(x));

/** The lane (broker id, client id or "controller") where an event happens. */
export function actorOf(ev) {
  if (!ev) return null;
  switch (ev.type) {
    case "produce": return ev.producer;
    case "timeout": return ev.broker;
    case "crash":
    case "restart": return ev.broker;
    case "leader_election": return "controller";
    case "isr_change": return ev.to ?? "controller";
    case "partition":
    case "heal": return null;
    default: return ev.to ?? ev.broker ?? null;
  }
}

/** A few words for an event, e.g. "Fetch @105 answered", "timeout fetch-expiry". */
export function eventLabel(ev) {
  if (!ev) return "start";
  switch (ev.type) {
    case "produce": return `${ev.producer} sends ${count(ev.records)}`;
    case "produce_request": return `Produce ${ev.outcome ?? ev.error ?? ""}`.trim();
    case "produce_response": return ev.error && ev.error !== "none" ? `ack ${ev.error}` : "acked";
    case "fetch_request": return `Fetch @${ev.fetch_offset} ${ev.outcome ?? ""}`.trim();
    case "fetch_response": return ev.error && ev.error !== "none" ? `FetchResp ${ev.error}` : `${count(ev.records)} rec · HW ${ev.hw}`;
    case "consumer_fetch_request": return `CFetch @${ev.offset} ${ev.outcome ?? ""}`.trim();
    case "consumer_fetch_response": return `${count(ev.records)} rec`;
    case "timeout": return ev.timer;
    case "isr_change": return `ISR {${ev.isr}}`;
    case "alter_partition": return `AlterPartition ${ev.outcome ?? ""}`.trim();
    case "leader_election": return `elect ${ev.leader} e${ev.leader_epoch}`;
    case "leader_and_isr": return `${ev.outcome ?? "LeaderAndIsr"}`;
    case "truncate": return `truncate → ${ev.truncate_to}`;
    case "partition": return `cut ${ev.links?.map(([a, b]) => `${a}→${b}`).join(" ") ?? ""}`;
    case "heal": return "heal";
    default: return ev.type.replace(/_/g, " ");
  }
}

/** What put message `m` on the wire, in words: {step, t, how, ev}. */
export function sentBy(trace, m) {
  if (m.early) return { step: m.sentStep, t: m.sent_ms, how: "sent before the steps read here" };
  const ev = trace.row(m.sentStep)?.ev;
  let how = eventLabel(ev);
  if (ev?.type === "timeout" && ev.timer === "fetch-expiry") how = "the parked Fetch expired after replica.fetch.wait.max.ms";
  else if (ev?.type === "fetch_request") how = `the Fetch @${ev.fetch_offset} was answered at once`;
  else if (ev?.type === "produce_request") how = "new records released the parked Fetch";
  else if (ev?.type === "fetch_response") how = `the follower had just processed an answer (LEO ${ev.leo_after ?? "?"}, HW ${ev.hw_after ?? "?"})`;
  else if (ev?.type === "timeout" && ev.timer === "fetcher-retry") how = "the follower's wait before polling again was over";
  return { step: m.sentStep, t: m.sent_ms, how, ev };
}
