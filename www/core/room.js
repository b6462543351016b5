// What the stage makes room for from a run's first step, read from its scenario:
// the records it will produce and the most consumers any replica will serve (its
// own and those its events add). The stage then keeps one height for the whole
// run, so nothing under it moves while it plays (render/layout.js). Shared by the
// page (core/sim.js) and the build (scripts/first-frame.mjs).

/** {produced, consumers} for a scenario object (format 1). */
export function roomOf(s = {}) {
  let produced = 0;
  const readers = new Map();
  const reader = (c) => readers.set(c.fetch_from ?? "leader", (readers.get(c.fetch_from ?? "leader") ?? 0) + 1);
  (s.consumers ?? []).forEach(reader);
  for (const e of s.events ?? []) {
    const times = e.repeat?.count ?? 1;
    if (e.produce) produced += (e.produce.records ?? 1) * times;
    if (e.add_consumer) reader(e.add_consumer);
  }
  return { produced, consumers: Math.max(0, ...readers.values()) };
}
