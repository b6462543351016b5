//! The input: a scenario in format 1 (CONTRACT.md §2), its defaults and its
//! validation. Every error names the field it is about.

mod parse;
mod presets;
mod validate;

pub use parse::Named;

pub use presets::{AboveHw, Behavior, BehaviorOverrides, HwCounts, IsrUpdate, Preset, ResponseHw, Truncation};

use crate::json::{self, Obj, ToJson};
use std::fmt;

/// The largest cluster the playground draws.
pub const MAX_REPLICAS: u32 = 7;
/// The most records a scenario may produce in all (events × records × repeats).
pub const MAX_PRODUCED: u64 = 1_000_000;
/// A day of simulated time is far more than any lesson needs.
pub const MAX_TIME_MS: u64 = 86_400_000;

/// A bad scenario: which field, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { field: field.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub format: u32,
    pub title: String,
    pub description: String,
    pub seed: u64,
    pub preset: Preset,
    pub behavior: BehaviorOverrides,
    pub replicas: u32,
    pub initial: Initial,
    pub config: Config,
    pub record_bytes: u64,
    pub network: Network,
    pub producers: Vec<ProducerSpec>,
    pub consumers: Vec<ConsumerSpec>,
    pub events: Vec<EventSpec>,
    pub stop_at_ms: u64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Initial {
    pub log_end_offset: u64,
}

/// Kafka's own configuration names and defaults. The first seven are the
/// contract's; the rest are documented extensions with Kafka's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub replica_fetch_wait_max_ms: u64,
    pub replica_fetch_min_bytes: u64,
    pub replica_fetch_max_bytes: u64,
    pub replica_lag_time_max_ms: u64,
    pub min_insync_replicas: u32,
    pub unclean_leader_election_enable: bool,
    pub broker_session_timeout_ms: u64,
    pub broker_heartbeat_interval_ms: u64,
    pub replica_socket_timeout_ms: u64,
    pub replica_fetch_backoff_ms: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            replica_fetch_wait_max_ms: 500,
            replica_fetch_min_bytes: 1,
            replica_fetch_max_bytes: 1_048_576,
            replica_lag_time_max_ms: 30_000,
            min_insync_replicas: 1,
            unclean_leader_election_enable: false,
            broker_session_timeout_ms: 9_000,
            broker_heartbeat_interval_ms: 2_000,
            replica_socket_timeout_ms: 30_000,
            replica_fetch_backoff_ms: 1_000,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Network {
    pub latency_ms: u64,
    /// Extra latency drawn from the seed, 0..=jitter_ms, per message.
    pub jitter_ms: u64,
    pub links: Vec<LinkSpec>,
}

impl Default for Network {
    fn default() -> Self {
        Network { latency_ms: default_latency(), jitter_ms: 0, links: Vec::new() }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LinkSpec {
    pub from: u32,
    pub to: u32,
    pub latency_ms: u64,
}

/// `acks`: 0, 1 or "all" (-1 is accepted as Kafka's spelling of all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acks {
    Zero,
    One,
    All,
}

impl Acks {
    /// As written in JSON and on the page: `0`, `1` or `all`.
    pub fn name(self) -> &'static str {
        match self {
            Acks::Zero => "0",
            Acks::One => "1",
            Acks::All => "all",
        }
    }
}

/// 0 and 1 as numbers, "all" as a string.
impl ToJson for Acks {
    fn write_json(&self, out: &mut String) {
        match self {
            Acks::All => json::write_str(out, self.name()),
            _ => out.push_str(self.name()),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProducerSpec {
    pub id: String,
    pub acks: Acks,
    pub request_timeout_ms: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerSpec {
    pub id: String,
    pub fetch_from: Option<u32>,
    pub fetch_max_wait_ms: u64,
    /// Where the consumer starts; by default the end of the initial log
    /// (auto.offset.reset=latest on an idle partition).
    pub position: Option<u64>,
    pub request_timeout_ms: u64,
}

/// One scheduled happening. Exactly one of the action fields is set; an
/// intervention (`Playground.apply`) has the same shape, without `at_ms`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventSpec {
    pub at_ms: i64,
    /// An intervention recorded in a share link: applied as step `at_step` (at
    /// `at_ms`), exactly where it was made, instead of being scheduled by time.
    pub at_step: Option<u64>,
    /// Repeats the action `count` times in all, `every_ms` apart (an extension).
    pub repeat: Option<Repeat>,
    pub produce: Option<ProduceSpec>,
    pub crash: Option<CrashSpec>,
    pub restart: Option<BrokerRef>,
    pub partition: Option<LinkCut>,
    pub heal: Option<LinkCut>,
    pub add_consumer: Option<ConsumerSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Repeat {
    pub count: u32,
    pub every_ms: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProduceSpec {
    pub producer: String,
    pub records: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CrashSpec {
    pub broker: u32,
    pub unflushed: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BrokerRef {
    pub broker: u32,
}

/// `{"between":[a,b]}` (both directions) or `{"from":a,"to":b}` (one).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkCut {
    pub between: Option<[u32; 2]>,
    pub from: Option<u32>,
    pub to: Option<u32>,
}

impl LinkCut {
    /// The directed links this cut names, once validated.
    pub fn directions(&self) -> Vec<(u32, u32)> {
        match (self.between, self.from, self.to) {
            (Some([a, b]), _, _) => vec![(a, b), (b, a)],
            (None, Some(a), Some(b)) => vec![(a, b)],
            _ => Vec::new(),
        }
    }
}

// The JSON form: fields in declaration order; empty and `None` fields as noted.

impl ToJson for Scenario {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("format", &self.format)
            .field_if(!self.title.is_empty(), "title", &self.title)
            .field_if(!self.description.is_empty(), "description", &self.description)
            .field("seed", &self.seed)
            .field("preset", &self.preset)
            .field_if(!self.behavior.is_empty(), "behavior", &self.behavior)
            .field("replicas", &self.replicas)
            .field("initial", &self.initial)
            .field("config", &self.config)
            .field("record_bytes", &self.record_bytes)
            .field("network", &self.network)
            .field("producers", &self.producers)
            .field("consumers", &self.consumers)
            .field("events", &self.events)
            .field("stop_at_ms", &self.stop_at_ms)
            .end();
    }
}

impl ToJson for Initial {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("log_end_offset", &self.log_end_offset).end();
    }
}

impl ToJson for Config {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("replica.fetch.wait.max.ms", &self.replica_fetch_wait_max_ms)
            .field("replica.fetch.min.bytes", &self.replica_fetch_min_bytes)
            .field("replica.fetch.max.bytes", &self.replica_fetch_max_bytes)
            .field("replica.lag.time.max.ms", &self.replica_lag_time_max_ms)
            .field("min.insync.replicas", &self.min_insync_replicas)
            .field("unclean.leader.election.enable", &self.unclean_leader_election_enable)
            .field("broker.session.timeout.ms", &self.broker_session_timeout_ms)
            .field("broker.heartbeat.interval.ms", &self.broker_heartbeat_interval_ms)
            .field("replica.socket.timeout.ms", &self.replica_socket_timeout_ms)
            .field("replica.fetch.backoff.ms", &self.replica_fetch_backoff_ms)
            .end();
    }
}

impl ToJson for Network {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("latency_ms", &self.latency_ms)
            .field_if(self.jitter_ms != 0, "jitter_ms", &self.jitter_ms)
            .field_if(!self.links.is_empty(), "links", &self.links)
            .end();
    }
}

impl ToJson for LinkSpec {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("from", &self.from).field("to", &self.to).field("latency_ms", &self.latency_ms).end();
    }
}

impl ToJson for ProducerSpec {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("id", &self.id).field("acks", &self.acks).field("request.timeout.ms", &self.request_timeout_ms).end();
    }
}

impl ToJson for ConsumerSpec {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("id", &self.id)
            .opt("fetch_from", &self.fetch_from)
            .field("fetch.max.wait.ms", &self.fetch_max_wait_ms)
            .opt("position", &self.position)
            .field("request.timeout.ms", &self.request_timeout_ms)
            .end();
    }
}

impl ToJson for EventSpec {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("at_ms", &self.at_ms)
            .opt("at_step", &self.at_step)
            .opt("repeat", &self.repeat)
            .opt("produce", &self.produce)
            .opt("crash", &self.crash)
            .opt("restart", &self.restart)
            .opt("partition", &self.partition)
            .opt("heal", &self.heal)
            .opt("add_consumer", &self.add_consumer)
            .end();
    }
}

impl ToJson for Repeat {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("count", &self.count).field("every_ms", &self.every_ms).end();
    }
}

impl ToJson for ProduceSpec {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("producer", &self.producer).field("records", &self.records).end();
    }
}

impl ToJson for CrashSpec {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("broker", &self.broker).field_if(self.unflushed != 0, "unflushed", &self.unflushed).end();
    }
}

impl ToJson for BrokerRef {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("broker", &self.broker).end();
    }
}

impl ToJson for LinkCut {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).opt("between", &self.between).opt("from", &self.from).opt("to", &self.to).end();
    }
}

/// A validated action, as the simulation consumes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Produce { producer: usize, records: u32 },
    Crash { broker: u32, unflushed: u64 },
    Restart { broker: u32 },
    Partition { links: Vec<(u32, u32)> },
    Heal { links: Vec<(u32, u32)> },
    AddConsumer(Box<ConsumerSpec>),
}

fn default_latency() -> u64 {
    1
}
fn default_request_timeout() -> u64 {
    30_000
}
fn default_producers() -> Vec<ProducerSpec> {
    vec![ProducerSpec { id: "p1".into(), acks: Acks::All, request_timeout_ms: default_request_timeout() }]
}

impl Scenario {
    /// Parses and validates a scenario from JSON text.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let value = json::parse(text).map_err(|e| ScenarioError::new("", format!("not valid JSON: {e}")))?;
        let scenario = parse::scenario(&value)?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Parses one event or intervention (`{"crash":{"broker":1}}`), not yet validated.
    pub fn event_from_json(text: &str) -> Result<EventSpec, ScenarioError> {
        let value = json::parse(text).map_err(|e| ScenarioError::new("event", format!("not valid JSON: {e}")))?;
        parse::event("event", &value)
    }

    /// Compact JSON with every field (defaults included), in format 1's order.
    pub fn to_json(&self) -> String {
        json::to_string(self)
    }

    /// The behaviour switches in force: the preset's, with the scenario's overrides.
    pub fn behavior(&self) -> Behavior {
        self.behavior.apply(self.preset.behavior())
    }

    pub fn producer_index(&self, id: &str) -> Option<usize> {
        self.producers.iter().position(|p| p.id == id)
    }
}
