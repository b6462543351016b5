//! Reading a scenario from JSON by hand: one pass over a parsed [`Value`]
//! that knows the path of every field, so each error names it
//! (`config.replica.fetch.wait.max.ms: must be a whole number, got -1`), unknown
//! keys are refused, and no deserializer is generated per type (the page's
//! WebAssembly stays small).

use super::*;
use crate::json::{lookup, Value};

/// An object's entries, as written.
type Obj = [(String, Value)];

fn err<T>(field: &str, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(field, message))
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A short rendering of a bad value for an error message.
fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

fn object<'a>(path: &str, v: &'a Value, allowed: &[&str]) -> Result<&'a Obj, ScenarioError> {
    let Value::Object(map) = v else {
        return err(path, format!("must be an object, got {}", shown(v)));
    };
    // Of several unknown keys, the first in sorted order is named.
    if let Some(key) = map.iter().map(|(k, _)| k).filter(|k| !allowed.contains(&k.as_str())).min() {
        return err(&join(path, key), format!("unknown field `{}`, expected one of {}", truncated(key), allowed.join(", ")));
    }
    Ok(map)
}

fn truncated(key: &str) -> String {
    if key.chars().count() > 40 {
        format!("{}…", key.chars().take(40).collect::<String>())
    } else {
        key.to_string()
    }
}

fn uint(path: &str, v: &Value) -> Result<u64, ScenarioError> {
    match v.as_u64() {
        Some(n) => Ok(n),
        None => err(path, format!("must be a whole number 0 or more, got {}", shown(v))),
    }
}

fn int(path: &str, v: &Value) -> Result<i64, ScenarioError> {
    match v.as_i64() {
        Some(n) => Ok(n),
        None => err(path, format!("must be a whole number, got {}", shown(v))),
    }
}

fn u32_of(path: &str, v: &Value) -> Result<u32, ScenarioError> {
    let n = uint(path, v)?;
    u32::try_from(n).or_else(|_| err(path, format!("must be at most {}, got {n}", u32::MAX)))
}

fn boolean(path: &str, v: &Value) -> Result<bool, ScenarioError> {
    v.as_bool().map_or_else(|| err(path, format!("must be true or false, got {}", shown(v))), Ok)
}

fn string(path: &str, v: &Value) -> Result<String, ScenarioError> {
    v.as_str().map_or_else(|| err(path, format!("must be a string, got {}", shown(v))), |s| Ok(s.to_string()))
}

fn array<'a>(path: &str, v: &'a Value) -> Result<&'a Vec<Value>, ScenarioError> {
    v.as_array().map_or_else(|| err(path, format!("must be a list, got {}", shown(v))), Ok)
}

/// Reads `key` from `map` with `read`, or returns `default` when it is absent.
fn get<T>(
    map: &Obj,
    path: &str,
    key: &str,
    default: T,
    read: impl Fn(&str, &Value) -> Result<T, ScenarioError>,
) -> Result<T, ScenarioError> {
    match lookup(map, key) {
        None => Ok(default),
        Some(v) => read(&join(path, key), v),
    }
}

fn required<'a>(map: &'a Obj, path: &str, key: &str) -> Result<&'a Value, ScenarioError> {
    lookup(map, key).map_or_else(|| err(path, format!("missing field `{key}`")), Ok)
}

/// A name from a fixed list (presets and behaviour switch values).
pub trait Named: Sized + Copy + PartialEq + 'static {
    const ALL_NAMED: &'static [(&'static str, Self)];

    /// The name a value is written with: its first in `ALL_NAMED`.
    fn name(self) -> &'static str {
        Self::ALL_NAMED.iter().find(|(_, v)| *v == self).map_or("", |(n, _)| n)
    }

    fn parse(path: &str, v: &Value) -> Result<Self, ScenarioError> {
        let name = v.as_str().unwrap_or("");
        match Self::ALL_NAMED.iter().find(|(n, _)| *n == name) {
            Some((_, value)) => Ok(*value),
            None => {
                let names: Vec<&str> = Self::ALL_NAMED.iter().map(|(n, _)| *n).collect();
                err(path, format!("must be one of {}, got {}", names.join(", "), shown(v)))
            }
        }
    }
}

pub(super) fn scenario(v: &Value) -> Result<Scenario, ScenarioError> {
    const KEYS: &[&str] = &[
        "format",
        "title",
        "description",
        "seed",
        "preset",
        "behavior",
        "replicas",
        "initial",
        "config",
        "record_bytes",
        "network",
        "producers",
        "consumers",
        "events",
        "stop_at_ms",
    ];
    let Value::Object(top) = v else {
        return err("", format!("a scenario is a JSON object, got {}", shown(v)));
    };
    if lookup(top, "format").is_none() {
        return err("", "missing field `format` (a scenario starts with {\"format\": 1})");
    }
    let m = object("", v, KEYS)?;
    let d = Config::default();
    let format = u32_of("format", required(m, "", "format")?)?;
    if format != 1 {
        return err("format", format!("must be 1, got {format} (made by a newer hwscope?)"));
    }
    Ok(Scenario {
        format,
        title: get(m, "", "title", String::new(), string)?,
        description: get(m, "", "description", String::new(), string)?,
        seed: get(m, "", "seed", 1, uint)?,
        preset: get(m, "", "preset", Preset::default(), Preset::parse)?,
        behavior: get(m, "", "behavior", BehaviorOverrides::default(), behavior)?,
        replicas: get(m, "", "replicas", 3, u32_of)?,
        initial: get(m, "", "initial", Initial::default(), |p, v| {
            let o = object(p, v, &["log_end_offset"])?;
            Ok(Initial { log_end_offset: get(o, p, "log_end_offset", 0, uint)? })
        })?,
        config: get(m, "", "config", d.clone(), config)?,
        record_bytes: get(m, "", "record_bytes", 100, uint)?,
        network: get(m, "", "network", Network::default(), network)?,
        producers: get(m, "", "producers", default_producers(), |p, v| {
            array(p, v)?.iter().enumerate().map(|(i, x)| producer(&format!("{p}[{i}]"), x)).collect()
        })?,
        consumers: get(m, "", "consumers", Vec::new(), |p, v| {
            array(p, v)?.iter().enumerate().map(|(i, x)| consumer(&format!("{p}[{i}]"), x)).collect()
        })?,
        events: get(m, "", "events", Vec::new(), |p, v| {
            array(p, v)?.iter().enumerate().map(|(i, x)| event(&format!("{p}[{i}]"), x)).collect()
        })?,
        stop_at_ms: get(m, "", "stop_at_ms", 60_000, uint)?,
    })
}

fn config(p: &str, v: &Value) -> Result<Config, ScenarioError> {
    const KEYS: &[&str] = &[
        "replica.fetch.wait.max.ms",
        "replica.fetch.min.bytes",
        "replica.fetch.max.bytes",
        "replica.lag.time.max.ms",
        "min.insync.replicas",
        "unclean.leader.election.enable",
        "broker.session.timeout.ms",
        "broker.heartbeat.interval.ms",
        "replica.socket.timeout.ms",
        "replica.fetch.backoff.ms",
    ];
    let o = object(p, v, KEYS)?;
    let d = Config::default();
    Ok(Config {
        replica_fetch_wait_max_ms: get(o, p, KEYS[0], d.replica_fetch_wait_max_ms, uint)?,
        replica_fetch_min_bytes: get(o, p, KEYS[1], d.replica_fetch_min_bytes, uint)?,
        replica_fetch_max_bytes: get(o, p, KEYS[2], d.replica_fetch_max_bytes, uint)?,
        replica_lag_time_max_ms: get(o, p, KEYS[3], d.replica_lag_time_max_ms, uint)?,
        min_insync_replicas: get(o, p, KEYS[4], d.min_insync_replicas, u32_of)?,
        unclean_leader_election_enable: get(o, p, KEYS[5], d.unclean_leader_election_enable, boolean)?,
        broker_session_timeout_ms: get(o, p, KEYS[6], d.broker_session_timeout_ms, uint)?,
        broker_heartbeat_interval_ms: get(o, p, KEYS[7], d.broker_heartbeat_interval_ms, uint)?,
        replica_socket_timeout_ms: get(o, p, KEYS[8], d.replica_socket_timeout_ms, uint)?,
        replica_fetch_backoff_ms: get(o, p, KEYS[9], d.replica_fetch_backoff_ms, uint)?,
    })
}

fn network(p: &str, v: &Value) -> Result<Network, ScenarioError> {
    let o = object(p, v, &["latency_ms", "jitter_ms", "links"])?;
    Ok(Network {
        latency_ms: get(o, p, "latency_ms", 1, uint)?,
        jitter_ms: get(o, p, "jitter_ms", 0, uint)?,
        links: get(o, p, "links", Vec::new(), |p, v| {
            array(p, v)?
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    let p = format!("{p}[{i}]");
                    let l = object(&p, x, &["from", "to", "latency_ms"])?;
                    Ok(LinkSpec {
                        from: u32_of(&join(&p, "from"), required(l, &p, "from")?)?,
                        to: u32_of(&join(&p, "to"), required(l, &p, "to")?)?,
                        latency_ms: u32_of(&join(&p, "latency_ms"), required(l, &p, "latency_ms")?)? as u64,
                    })
                })
                .collect()
        })?,
    })
}

fn acks(p: &str, v: &Value) -> Result<Acks, ScenarioError> {
    match (v.as_str(), v.as_i64()) {
        (Some("all"), _) | (_, Some(-1)) => Ok(Acks::All),
        (_, Some(0)) => Ok(Acks::Zero),
        (_, Some(1)) => Ok(Acks::One),
        _ => err(p, format!("must be 0, 1 or \"all\", got {}", shown(v))),
    }
}

fn producer(p: &str, v: &Value) -> Result<ProducerSpec, ScenarioError> {
    let o = object(p, v, &["id", "acks", "request.timeout.ms"])?;
    Ok(ProducerSpec {
        id: string(&join(p, "id"), required(o, p, "id")?)?,
        acks: get(o, p, "acks", Acks::All, acks)?,
        request_timeout_ms: get(o, p, "request.timeout.ms", 30_000, uint)?,
    })
}

pub(super) fn consumer(p: &str, v: &Value) -> Result<ConsumerSpec, ScenarioError> {
    let o = object(p, v, &["id", "fetch_from", "fetch.max.wait.ms", "position", "request.timeout.ms"])?;
    Ok(ConsumerSpec {
        id: string(&join(p, "id"), required(o, p, "id")?)?,
        fetch_from: get(o, p, "fetch_from", None, |p, v| if v.is_null() { Ok(None) } else { u32_of(p, v).map(Some) })?,
        fetch_max_wait_ms: get(o, p, "fetch.max.wait.ms", 500, uint)?,
        position: get(o, p, "position", None, |p, v| uint(p, v).map(Some))?,
        request_timeout_ms: get(o, p, "request.timeout.ms", 30_000, uint)?,
    })
}

fn broker_ref(p: &str, v: &Value) -> Result<BrokerRef, ScenarioError> {
    let o = object(p, v, &["broker"])?;
    Ok(BrokerRef { broker: u32_of(&join(p, "broker"), required(o, p, "broker")?)? })
}

fn link_cut(p: &str, v: &Value) -> Result<LinkCut, ScenarioError> {
    let o = object(p, v, &["between", "from", "to"])?;
    let between = get(o, p, "between", None, |p, v| {
        let a = array(p, v)?;
        if a.len() != 2 {
            return err(p, format!("needs exactly two brokers, got {}", a.len()));
        }
        Ok(Some([u32_of(&format!("{p}[0]"), &a[0])?, u32_of(&format!("{p}[1]"), &a[1])?]))
    })?;
    Ok(LinkCut {
        between,
        from: get(o, p, "from", None, |p, v| u32_of(p, v).map(Some))?,
        to: get(o, p, "to", None, |p, v| u32_of(p, v).map(Some))?,
    })
}

/// An event: `at_ms`, an optional `repeat`, and one action.
pub(super) fn event(p: &str, v: &Value) -> Result<EventSpec, ScenarioError> {
    let o = object(p, v, &["at_ms", "at_step", "repeat", "produce", "crash", "restart", "partition", "heal", "add_consumer"])?;
    Ok(EventSpec {
        at_ms: get(o, p, "at_ms", 0, int)?,
        at_step: get(o, p, "at_step", None, |p, v| uint(p, v).map(Some))?,
        repeat: get(o, p, "repeat", None, |p, v| {
            let r = object(p, v, &["count", "every_ms"])?;
            Ok(Some(Repeat {
                count: u32_of(&join(p, "count"), required(r, p, "count")?)?,
                every_ms: uint(&join(p, "every_ms"), required(r, p, "every_ms")?)?,
            }))
        })?,
        produce: get(o, p, "produce", None, |p, v| {
            let x = object(p, v, &["producer", "records"])?;
            Ok(Some(ProduceSpec {
                producer: string(&join(p, "producer"), required(x, p, "producer")?)?,
                records: get(x, p, "records", 1, u32_of)?,
            }))
        })?,
        crash: get(o, p, "crash", None, |p, v| {
            let x = object(p, v, &["broker", "unflushed"])?;
            Ok(Some(CrashSpec {
                broker: u32_of(&join(p, "broker"), required(x, p, "broker")?)?,
                unflushed: get(x, p, "unflushed", 0, uint)?,
            }))
        })?,
        restart: get(o, p, "restart", None, |p, v| broker_ref(p, v).map(Some))?,
        partition: get(o, p, "partition", None, |p, v| link_cut(p, v).map(Some))?,
        heal: get(o, p, "heal", None, |p, v| link_cut(p, v).map(Some))?,
        add_consumer: get(o, p, "add_consumer", None, |p, v| consumer(p, v).map(Some))?,
    })
}

fn behavior(p: &str, v: &Value) -> Result<BehaviorOverrides, ScenarioError> {
    const KEYS: &[&str] = &[
        "hw_counts",
        "hw_held_under_min_isr",
        "response_hw",
        "long_poll",
        "hw_move_completes_follower_fetch",
        "consumer_fetch_above_hw",
        "follower_hw_completes_consumer_fetch",
        "follower_fetching",
        "truncation",
        "leader_epoch_fencing",
        "isr_update",
    ];
    let o = object(p, v, KEYS)?;
    let flag = |k: &str| get(o, p, k, None, |p, v| boolean(p, v).map(Some));
    Ok(BehaviorOverrides {
        hw_counts: get(o, p, KEYS[0], None, |p, v| HwCounts::parse(p, v).map(Some))?,
        hw_held_under_min_isr: flag(KEYS[1])?,
        response_hw: get(o, p, KEYS[2], None, |p, v| ResponseHw::parse(p, v).map(Some))?,
        long_poll: flag(KEYS[3])?,
        hw_move_completes_follower_fetch: flag(KEYS[4])?,
        consumer_fetch_above_hw: get(o, p, KEYS[5], None, |p, v| AboveHw::parse(p, v).map(Some))?,
        follower_hw_completes_consumer_fetch: flag(KEYS[6])?,
        follower_fetching: flag(KEYS[7])?,
        truncation: get(o, p, KEYS[8], None, |p, v| Truncation::parse(p, v).map(Some))?,
        leader_epoch_fencing: flag(KEYS[9])?,
        isr_update: get(o, p, KEYS[10], None, |p, v| IsrUpdate::parse(p, v).map(Some))?,
    })
}

impl Named for Preset {
    const ALL_NAMED: &'static [(&'static str, Preset)] = &[
        ("textbook", Preset::Textbook),
        ("kafka-0.10", Preset::Kafka010),
        ("kafka-0.11", Preset::Kafka011),
        ("kafka-2.0", Preset::Kafka20),
        ("kafka-2.4", Preset::Kafka24),
        ("kafka-2.8", Preset::Kafka28),
        ("kafka-3.7", Preset::Kafka37),
        ("kafka-4.0", Preset::Kafka40),
        ("latest", Preset::Kafka40),
    ];
}

impl Named for HwCounts {
    const ALL_NAMED: &'static [(&'static str, HwCounts)] = &[
        ("isr", HwCounts::Isr),
        ("isr-or-caught-up", HwCounts::IsrOrCaughtUp),
        ("maximal-isr-or-caught-up", HwCounts::MaximalIsrOrCaughtUp),
        ("maximal-isr-or-caught-up-eligible", HwCounts::MaximalIsrOrCaughtUpEligible),
    ];
}

impl Named for ResponseHw {
    const ALL_NAMED: &'static [(&'static str, ResponseHw)] =
        &[("after-fetch", ResponseHw::AfterFetch), ("before-fetch", ResponseHw::BeforeFetch)];
}

impl Named for AboveHw {
    const ALL_NAMED: &'static [(&'static str, AboveHw)] = &[("park", AboveHw::Park), ("empty", AboveHw::Empty)];
}

impl Named for Truncation {
    const ALL_NAMED: &'static [(&'static str, Truncation)] = &[
        ("high-watermark", Truncation::HighWatermark),
        ("epoch-request", Truncation::EpochRequest),
        ("epoch-request-multi-round", Truncation::EpochRequestMultiRound),
        ("diverging-epoch", Truncation::DivergingEpoch),
    ];
}

impl Named for IsrUpdate {
    const ALL_NAMED: &'static [(&'static str, IsrUpdate)] =
        &[("immediate", IsrUpdate::Immediate), ("alter-partition", IsrUpdate::AlterPartition)];
}
