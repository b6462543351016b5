// Who is joining and who is leaving the ISR at a step, read from the record:
// `partition.isr` is what the controller has committed, `maximal_isr` what the
// leader counts (KIP-497: a pending expansion is counted at once, a pending
// shrink only once committed), `followers[].in_isr` the leader's view of the
// committed ISR, and an AlterPartition on the wire is a change asked for.
//
// - leaving: in the committed ISR but dropped by an AlterPartition on the wire
//   (a shrink proposed, not yet committed), or dropped by the controller while
//   the leader still counts it (committed, not yet applied by the leader);
// - joining: counted by the leader but not committed (an expansion pending).

/** {leaving: Set, joining: Set, proposed: number[]|null} for a step record. */
export function isrChanges(rec) {
  const { isr, maximal_isr: maximal = isr } = rec.partition;
  const leader = rec.replicas.find((r) => r.broker === rec.partition.leader);
  const view = new Map((leader?.followers ?? []).map((f) => [f.broker, f.in_isr]));
  const asked = rec.in_flight.find((m) => (m.type === "alter_partition" || m.type === "alter_partition_response") && Array.isArray(m.isr));
  const proposed = asked ? asked.isr : null;
  const leaving = new Set();
  const joining = new Set();
  for (const b of new Set([...isr, ...maximal])) {
    const committed = isr.includes(b);
    const counted = maximal.includes(b);
    if (committed && proposed && !proposed.includes(b)) leaving.add(b);
    else if (!committed && counted) (view.get(b) === true ? leaving : joining).add(b);
  }
  return { leaving, joining, proposed };
}

/** "in ISR", "leaving ISR", "joining ISR" or "out of ISR" for broker b. */
export function membership(rec, b, changes = isrChanges(rec)) {
  if (changes.leaving.has(b)) return "leaving ISR";
  if (changes.joining.has(b)) return "joining ISR";
  return rec.partition.isr.includes(b) ? "in ISR" : "out of ISR";
}

/** The ISR as the status line says it: "ISR {0, 1, 2} · shrinking: 2 leaving". */
export function isrText(rec, changes = isrChanges(rec)) {
  const set = (xs) => `{${[...xs].join(", ")}}`;
  const parts = [`ISR ${set(rec.partition.isr)}`];
  if (changes.leaving.size) parts.push(`shrinking: ${[...changes.leaving].join(", ")} leaving`);
  if (changes.joining.size) parts.push(`expanding: ${[...changes.joining].join(", ")} joining`);
  return parts.join(" · ");
}
