// A format-1 scenario (docs/format.md, docs/extensions.md) as a real cluster runs it:
// which Kafka version, which settings go where, what each client does and when, and
// what cannot be done on a real cluster (the oracle then exits 2 naming it).

import { Unrunnable, TOPIC_KEYS } from "./kafka.mjs";

/** Preset -> Kafka release line. Only 4.x presets have a real counterpart here. */
export function kafkaLineForPreset(preset) {
  const p = preset ?? "kafka-4.0";
  if (p === "latest" || p === "kafka-4.0") return "4.0";
  const m = /^kafka-(\d+)\.(\d+)$/.exec(p);
  if (m && Number(m[1]) >= 4) return `${m[1]}.${m[2]}`;
  if (p === "textbook")
    throw new Unrunnable(
      `preset textbook: no Kafka release behaves like it (a fetch answered at once with the HW it ` +
        `just moved); run it as 4.0 with --kafka 4.0 (the simulator then uses kafka-4.0 too)`,
    );
  throw new Unrunnable(
    `preset ${p}: the oracle runs Kafka 4.x only (KRaft, the 4.x tools); Maven Central's older ` +
      `kafka_2.13 jars need ZooKeeper or other tools. Run it as 4.0 with --kafka 4.0 ` +
      `(the simulator then uses kafka-4.0 too)`,
  );
}

/** A KRaft broker's connections to the controller that a cut can name alone (docs/format.md). */
const CHANNELS = ["alter_partition", "heartbeat", "metadata"];

const CLIENT_BASE_KEYS = new Set(["id", "acks"]);
const CONSUMER_OWN_KEYS = new Set(["id", "fetch_from", "position"]);

function endpoint(x, where, scenario) {
  if (typeof x === "number") {
    if (!(x >= 0 && x < scenario.replicas)) throw new Unrunnable(`${where}: no broker ${x}`);
    return `b${x}`;
  }
  if (x === "controller") return "controller";
  const clients = [...scenario.producers.map((p) => p.id), ...scenario.consumers.map((c) => c.id)];
  if (clients.includes(x)) return `client:${x}`;
  throw new Unrunnable(`${where}: unknown endpoint ${JSON.stringify(x)}`);
}

/** Pairs of directed cuts an event names: [[from, to], ...]. */
function directions(spec, where, scenario) {
  if (spec.between) {
    const [a, b] = spec.between.map((x, i) => endpoint(x, `${where}.between[${i}]`, scenario));
    return [
      [a, b],
      [b, a],
    ];
  }
  return [[endpoint(spec.from, `${where}.from`, scenario), endpoint(spec.to, `${where}.to`, scenario)]];
}

/**
 * Normalise a scenario and turn it into what the real cluster needs. Throws Unrunnable
 * (exit 2) for anything a real cluster cannot do.
 */
export function planFor(raw, { kafkaOverride = null } = {}) {
  if (raw.format !== 1) throw new Unrunnable(`format: the oracle reads format 1, got ${raw.format}`);
  const s = {
    preset: raw.preset ?? "kafka-4.0",
    replicas: raw.replicas ?? 3,
    initial: raw.initial?.log_end_offset ?? 0,
    config: raw.config ?? {},
    record_bytes: raw.record_bytes ?? 100,
    network: raw.network ?? {},
    producers: raw.producers ?? [{ id: "p1", acks: "all" }],
    consumers: raw.consumers ?? [],
    events: raw.events ?? [],
    stop_at_ms: raw.stop_at_ms ?? 60000,
  };
  const line = kafkaOverride ? null : kafkaLineForPreset(s.preset);
  if (raw.behavior && Object.keys(raw.behavior).length)
    throw new Unrunnable(
      `behavior: ${Object.keys(raw.behavior).join(", ")}: a real cluster has the behaviour of its ` +
        `release only; single switches cannot be overridden`,
    );
  const latency = s.network.latency_ms ?? 1;
  if (latency !== 1 || (s.network.links ?? []).length)
    throw new Unrunnable(
      `network: latency other than the default 1 ms (${latency} ms${(s.network.links ?? []).length ? `, ${s.network.links.length} per-link override(s)` : ""}) ` +
        `is not emulated on the real cluster yet (it would need a netem qdisc on the shared loopback ` +
        `device); the default 1 ms is compared against plain loopback`,
    );
  if (s.network.jitter_ms)
    throw new Unrunnable(`network.jitter_ms: the simulator's seeded jitter has no real counterpart`);
  if (s.initial > 100000) throw new Unrunnable(`initial.log_end_offset: ${s.initial} records take too long to write`);

  const brokerConfig = {};
  const topicConfig = {};
  for (const [k, v] of Object.entries(s.config)) {
    if (TOPIC_KEYS.has(k)) topicConfig[k] = v;
    brokerConfig[k] = v;
  }

  // Producers and consumers: Kafka's own config names pass through.
  const producers = s.producers.map((p) => {
    const config = {};
    for (const [k, v] of Object.entries(p)) if (!CLIENT_BASE_KEYS.has(k)) config[k] = v;
    config.acks = String(p.acks ?? "all");
    return { id: p.id, acks: config.acks, config, events: [] };
  });
  const consumers = s.consumers.map((c) => {
    const config = {};
    for (const [k, v] of Object.entries(c)) if (!CONSUMER_OWN_KEYS.has(k)) config[k] = v;
    return {
      id: c.id,
      fetch_from: c.fetch_from ?? null,
      position: c.position ?? s.initial,
      config,
    };
  });
  const byProducer = new Map(producers.map((p) => [p.id, p]));

  // Scenario events in time order (same instant: scenario order; a repeat keeps its place).
  const occurrences = [];
  s.events.forEach((ev, index) => {
    const where = `events[${index}]`;
    const kinds = Object.keys(ev).filter((k) => !["at_ms", "at_step", "repeat"].includes(k));
    if (kinds.length !== 1) throw new Unrunnable(`${where}: expected one action, got ${kinds.join(", ") || "none"}`);
    const kind = kinds[0];
    const count = ev.repeat?.count ?? 1;
    const every = ev.repeat?.every_ms ?? 0;
    for (let k = 0; k < count; k++) occurrences.push({ at_ms: (ev.at_ms ?? 0) + k * every, index, kind, spec: ev[kind], where });
  });
  occurrences.sort((a, b) => a.at_ms - b.at_ms || a.index - b.index);

  const counters = new Map();
  const series = new Map(); // record id -> "events[i]" of its repeated event
  const faults = [];
  for (const o of occurrences) {
    switch (o.kind) {
      case "produce": {
        const p = byProducer.get(o.spec.producer);
        if (!p) throw new Unrunnable(`${o.where}.produce.producer: unknown producer ${o.spec.producer}`);
        const n = o.spec.records ?? 1;
        const ids = [];
        for (let i = 0; i < n; i++) {
          const c = (counters.get(p.id) ?? 0) + 1;
          counters.set(p.id, c);
          ids.push(`${p.id}-${c}`);
        }
        p.events.push({ at_ms: o.at_ms, ids });
        // Records of one repeated event form a series: their timings are judged by the
        // series' median (one stalled record on a busy machine is noise, not semantics).
        if ((s.events[o.index].repeat?.count ?? 1) > 1) for (const id of ids) series.set(id, `events[${o.index}]`);
        break;
      }
      case "crash":
        // A killed process leaves its writes in the page cache: the oracle cuts the log back
        // itself once the process is gone (unflushed.mjs), as a power cut would have.
        faults.push({ at_ms: o.at_ms, kind: "crash", broker: o.spec.broker, where: o.where, ...(o.spec.unflushed ? { unflushed: o.spec.unflushed } : {}) });
        break;
      case "restart":
      case "pause":
      case "resume":
        faults.push({ at_ms: o.at_ms, kind: o.kind, broker: o.spec.broker, where: o.where });
        break;
      case "partition":
      case "heal":
      {
        const dirs = directions(o.spec, `${o.where}.${o.kind}`, s);
        const channel = o.spec.channel ?? null;
        if (channel !== null) {
          if (!CHANNELS.includes(channel))
            throw new Unrunnable(`${o.where}.${o.kind}.channel: must be one of ${CHANNELS.join(", ")}, got ${JSON.stringify(channel)}`);
          if (!dirs.every(([a, b]) => (a === "controller") !== (b === "controller") && /^b\d+$/.test(a === "controller" ? b : a)))
            throw new Unrunnable(`${o.where}.${o.kind}.channel: a channel is one of a broker's connections to the controller`);
        }
        faults.push({ at_ms: o.at_ms, kind: o.kind, dirs, channel, where: o.where, spec: o.spec });
      }
        break;
      case "add_consumer":
        throw new Unrunnable(`${o.where}.add_consumer: a consumer joining mid-run is not supported by the oracle yet`);
      default:
        throw new Unrunnable(`${o.where}.${o.kind}: the oracle has no real-cluster counterpart for this event`);
    }
  }
  for (const f of faults)
    if (f.broker !== undefined && !(f.broker >= 0 && f.broker < s.replicas))
      throw new Unrunnable(`${f.where}.${f.kind}.broker: no broker ${f.broker}`);

  return {
    scenario: s,
    kafkaLine: kafkaOverride ?? line,
    brokerConfig,
    topicConfig,
    producers,
    consumers,
    faults,
    recordIds: producers.flatMap((p) => p.events.flatMap((e) => e.ids)),
    series,
  };
}

/** The last scripted event at or before t (the anchor of a timer-decided duration). */
export function anchorBefore(plan, t) {
  let best = 0;
  for (const p of plan.producers) for (const e of p.events) if (e.at_ms <= t && e.at_ms > best) best = e.at_ms;
  for (const f of plan.faults) if (f.at_ms <= t && f.at_ms > best) best = f.at_ms;
  return best;
}
