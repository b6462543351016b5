//! The input: a scenario in format 1 (docs/format.md). This file: its types,
//! each a field list that gives the JSON key, the default, how the field is
//! read and when it is written (a new field is one line); `validate.rs`: the
//! checks a JSON type cannot make; `switches.rs`: the behaviour switches;
//! `presets.rs`: the presets as data; `defaults.rs`: the defaults that changed
//! between versions, and the settings in force.
//! Every error names the field it is about.

mod clients;
mod defaults;
mod presets;
mod switches;
mod validate;

pub use crate::json::Named;
pub use clients::{ConsumerSettings, ProducerSettings, MAX_RETRIES};
pub use defaults::{Defaults, InForce, Settings, Source};
pub use presets::{defaults_table, DefaultRow, Preset, PresetInfo, PRESETS};
pub use switches::{AboveHw, Behavior, BehaviorOverrides, BrokerLiveness, ConnectionSetup, HwCounts, IsrUpdate, ResponseHw, Truncation};

use crate::json::{self, boolean, err, int, json_by_name, json_struct, shown, string, u32_as_u64, u32_of, uint, Read, ToJson, Value};

/// The largest cluster the playground draws.
pub const MAX_REPLICAS: u32 = 7;
/// The most records a scenario may produce in all (events × records × repeats).
pub const MAX_PRODUCED: u64 = 1_000_000;
/// A day of simulated time is far more than any lesson needs.
pub const MAX_TIME_MS: u64 = 86_400_000;

/// A bad scenario: which field, and what is wrong with it.
pub use crate::json::FieldError as ScenarioError;

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Scenario {
        pub format: u32 = "format", required(format_version), always;
        pub title: String = "title", or(String::new(), string), nonempty;
        pub description: String = "description", or(String::new(), string), nonempty;
        pub seed: u64 = "seed", or(1, uint), always;
        pub preset: Preset = "preset", or(Preset::default(), Preset::parse), always;
        pub behavior: BehaviorOverrides = "behavior", or(BehaviorOverrides::default(), BehaviorOverrides::read), nonempty;
        pub replicas: u32 = "replicas", or(3, u32_of), always;
        pub initial: Initial = "initial", or(Initial::default(), Initial::read), always;
        pub config: Config = "config", or(Config::default(), Config::read), always;
        pub record_bytes: u64 = "record_bytes", or(100, uint), always;
        pub network: Network = "network", or(Network::default(), Network::read), always;
        pub producers: Vec<ProducerSpec> = "producers", or(default_producers(), list(ProducerSpec::read)), always;
        pub consumers: Vec<ConsumerSpec> = "consumers", or(Vec::new(), list(ConsumerSpec::read)), always;
        pub events: Vec<EventSpec> = "events", or(Vec::new(), list(EventSpec::read)), always;
        /// Written by the explorer (`hwscope check`): where a run takes another of
        /// the events due at one instant than the default order's first.
        pub schedule: Vec<Pick> = "schedule", or(Vec::new(), list(Pick::read)), nonempty;
        /// Written by the oracle: timer phases lined up with a real cluster's.
        pub phases: Phases = "phases", or(Phases::default(), Phases::read), nondefault;
        pub stop_at_ms: u64 = "stop_at_ms", or(60_000, uint), always;
        pub after_stop: AfterStop = "after_stop", or(AfterStop::Stop, AfterStop::parse), nondefault;
    }
}

/// What a run does after `stop_at_ms`, the end of its scripted part (issue 13):
/// stop there, or go on until the consequences settle (`sim/settle.rs`). An
/// intervention, or Play at the end of the run, sets `settle`; a link carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AfterStop {
    #[default]
    Stop,
    Settle,
}

impl Named for AfterStop {
    const ALL_NAMED: &'static [(&'static str, AfterStop)] = &[("stop", AfterStop::Stop), ("settle", AfterStop::Settle)];
}

json_by_name!(AfterStop);

json_struct! {
    /// Timer phases the seed would otherwise draw, pinned so that a run lines up with a
    /// real cluster's (the oracle measures them there and writes them here).
    #[derive(Debug, Clone, PartialEq)]
    pub struct Phases: Default {
        /// Where the controller's stale-broker check grid sits: a check runs at this time
        /// and every `broker.session.timeout.ms / 8` after (KRaft presets).
        pub fence_check_ms: Option<u64> = "fence_check_ms", opt(uint), opt;
        /// When each broker sends its heartbeats (KRaft presets): broker i at
        /// `heartbeat_ms[i]` and every `broker.heartbeat.interval.ms` after.
        pub heartbeat_ms: Vec<u64> = "heartbeat_ms", or(Vec::new(), list(uint)), nonempty;
    }
}

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Initial: Default {
        pub log_end_offset: u64 = "log_end_offset", or(0, uint), always;
    }
}

json_struct! {
    /// Kafka's own configuration names and defaults. The first seven are the
    /// contract's; the rest are documented extensions with Kafka's defaults.
    /// A setting whose default changed between versions is None when the scenario
    /// leaves it out: the preset's default applies (`Scenario::settings`,
    /// `defaults.rs`), and the scenario's JSON leaves it out too.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Config: Default {
        pub replica_fetch_wait_max_ms: u64 = "replica.fetch.wait.max.ms", or(500, uint), always;
        pub replica_fetch_min_bytes: u64 = "replica.fetch.min.bytes", or(1, uint), always;
        pub replica_fetch_max_bytes: u64 = "replica.fetch.max.bytes", or(1_048_576, uint), always;
        pub replica_lag_time_max_ms: Option<u64> = "replica.lag.time.max.ms", opt(uint), opt;
        pub min_insync_replicas: u32 = "min.insync.replicas", or(1, u32_of), always;
        pub unclean_leader_election_enable: Option<bool> = "unclean.leader.election.enable", opt(boolean), opt;
        pub zookeeper_session_timeout_ms: Option<u64> = "zookeeper.session.timeout.ms", opt(uint), opt;
        pub broker_session_timeout_ms: u64 = "broker.session.timeout.ms", or(9_000, uint), always;
        pub broker_heartbeat_interval_ms: u64 = "broker.heartbeat.interval.ms", or(2_000, uint), always;
        pub replica_socket_timeout_ms: u64 = "replica.socket.timeout.ms", or(30_000, uint), always;
        pub replica_fetch_backoff_ms: u64 = "replica.fetch.backoff.ms", or(1_000, uint), always;
        /// The broker's own request timeout: a follower's unanswered Fetch gives up after it
        /// (`BrokerBlockingSender`'s NetworkClient); written only when set.
        pub request_timeout_ms: Option<u64> = "request.timeout.ms", opt(uint), opt;
        /// How often a broker writes its HW to `replication-offset-checkpoint`; a restarted
        /// broker starts from the last checkpoint. Written only when set.
        pub replica_high_watermark_checkpoint_interval_ms: Option<u64> = "replica.high.watermark.checkpoint.interval.ms", opt(uint), opt;
    }
}

impl Config {
    /// The broker's `request.timeout.ms` (30 s).
    pub fn broker_request_timeout_ms(&self) -> u64 {
        self.request_timeout_ms.unwrap_or(30_000)
    }

    /// `replica.high.watermark.checkpoint.interval.ms` (5 s).
    pub fn hw_checkpoint_interval_ms(&self) -> u64 {
        self.replica_high_watermark_checkpoint_interval_ms.unwrap_or(5_000)
    }
}

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Network: Default {
        pub latency_ms: u64 = "latency_ms", or(1, uint), always;
        /// Extra latency drawn from the seed, 0..=jitter_ms, per message.
        pub jitter_ms: u64 = "jitter_ms", or(0, uint), nonzero;
        pub links: Vec<LinkSpec> = "links", or(Vec::new(), list(LinkSpec::read)), nonempty;
    }
}

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct LinkSpec {
        pub from: Endpoint = "from", required(Endpoint::read), always;
        pub to: Endpoint = "to", required(Endpoint::read), always;
        pub latency_ms: u64 = "latency_ms", required(u32_as_u64), always;
    }
}

/// A node on the network as a scenario names it: a broker number, `"controller"`,
/// `"zookeeper"` (the ZooKeeper-era presets), or a producer's or consumer's id
/// (docs/format.md).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Endpoint {
    Broker(u32),
    Controller,
    ZooKeeper,
    Client(String),
}

impl Endpoint {
    fn read(path: &str, v: &Value) -> Read<Endpoint> {
        match (v.as_str(), v.as_u64()) {
            (Some("controller"), _) => Ok(Endpoint::Controller),
            (Some("zookeeper"), _) => Ok(Endpoint::ZooKeeper),
            (Some(id), _) if !id.is_empty() => Ok(Endpoint::Client(id.to_string())),
            (_, Some(_)) => u32_of(path, v).map(Endpoint::Broker),
            _ => err(path, error_text!("must be a broker number, \"controller\" or a client id, got {}", shown(v))),
        }
    }
}

/// Brokers as numbers, the controller and clients by name.
impl ToJson for Endpoint {
    fn write_json(&self, out: &mut String) {
        match self {
            Endpoint::Broker(b) => b.write_json(out),
            Endpoint::Controller => json::write_str(out, "controller"),
            Endpoint::ZooKeeper => json::write_str(out, "zookeeper"),
            Endpoint::Client(id) => json::write_str(out, id),
        }
    }
}

/// A validated endpoint, as the simulation consumes it: producers by index,
/// consumers by id (a consumer may join later, with `add_consumer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    Broker(u32),
    Controller,
    ZooKeeper,
    Producer(usize),
    Consumer(String),
}

/// `acks`: 0, 1 or "all" (-1 is accepted as Kafka's spelling of all).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

    fn read(path: &str, v: &Value) -> Read<Acks> {
        match (v.as_str(), v.as_i64()) {
            (Some("all"), _) | (_, Some(-1)) => Ok(Acks::All),
            (_, Some(0)) => Ok(Acks::Zero),
            (_, Some(1)) => Ok(Acks::One),
            _ => err(path, error_text!("must be 0, 1 or \"all\", got {}", shown(v))),
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

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ProducerSpec {
        pub id: String = "id", required(string), always;
        /// Unset: the preset's default ("1" before 3.0, "all" from 3.0; `ProducerSpec::settings`).
        pub acks: Option<Acks> = "acks", opt(Acks::read), opt;
        pub request_timeout_ms: u64 = "request.timeout.ms", or(30_000, uint), always;
        /// The Java producer's settings (docs/format.md), written only when set: unset
        /// takes Kafka's default for the preset (`ProducerSpec::settings`).
        pub enable_idempotence: Option<bool> = "enable.idempotence", opt(boolean), opt;
        pub retries: Option<u64> = "retries", opt(uint), opt;
        pub delivery_timeout_ms: Option<u64> = "delivery.timeout.ms", opt(uint), opt;
        pub retry_backoff_ms: Option<u64> = "retry.backoff.ms", opt(uint), opt;
        pub retry_backoff_max_ms: Option<u64> = "retry.backoff.max.ms", opt(uint), opt;
        pub metadata_max_age_ms: Option<u64> = "metadata.max.age.ms", opt(uint), opt;
        pub max_in_flight: Option<u64> = "max.in.flight.requests.per.connection", opt(uint), opt;
    }
}

/// `auto.offset.reset`: where a consumer goes when its position is out of range
/// (or, from KIP-320, when it detects truncation): the log end, the log start, or
/// nowhere (the consumer stops with an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetReset {
    Latest,
    Earliest,
    None,
}

impl Named for OffsetReset {
    const ALL_NAMED: &'static [(&'static str, OffsetReset)] =
        &[("latest", OffsetReset::Latest), ("earliest", OffsetReset::Earliest), ("none", OffsetReset::None)];
}

json_by_name!(OffsetReset);

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ConsumerSpec {
        pub id: String = "id", required(string), always;
        pub fetch_from: Option<u32> = "fetch_from", or(None, nullable(u32_of)), opt;
        pub fetch_max_wait_ms: u64 = "fetch.max.wait.ms", or(500, uint), always;
        /// Where the consumer starts; by default the end of the initial log
        /// (auto.offset.reset=latest on an idle partition).
        pub position: Option<u64> = "position", opt(uint), opt;
        /// Unset: the preset's default (305 s before 2.0, 30 s from 2.0).
        pub request_timeout_ms: Option<u64> = "request.timeout.ms", opt(uint), opt;
        /// The consumer's settings (docs/format.md), written only when set.
        pub metadata_max_age_ms: Option<u64> = "metadata.max.age.ms", opt(uint), opt;
        pub retry_backoff_ms: Option<u64> = "retry.backoff.ms", opt(uint), opt;
        pub auto_offset_reset: Option<OffsetReset> = "auto.offset.reset", opt(OffsetReset::parse), opt;
    }
}

json_struct! {
    /// One scheduled happening. Exactly one of the action fields is set; an
    /// intervention (`Playground.apply`) has the same shape, without `at_ms`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct EventSpec: Default {
        pub at_ms: i64 = "at_ms", or(0, int), always;
        /// An intervention recorded in a share link: applied as step `at_step` (at
        /// `at_ms`), exactly where it was made, instead of being scheduled by time.
        pub at_step: Option<u64> = "at_step", opt(uint), opt;
        /// Repeats the action `count` times in all, `every_ms` apart (an extension).
        pub repeat: Option<Repeat> = "repeat", opt(Repeat::read), opt;
        pub produce: Option<ProduceSpec> = "produce", opt(ProduceSpec::read), opt;
        pub crash: Option<CrashSpec> = "crash", opt(CrashSpec::read), opt;
        pub restart: Option<BrokerRef> = "restart", opt(BrokerRef::read), opt;
        pub partition: Option<LinkCut> = "partition", opt(LinkCut::read), opt;
        pub heal: Option<LinkCut> = "heal", opt(LinkCut::read), opt;
        pub add_consumer: Option<ConsumerSpec> = "add_consumer", opt(ConsumerSpec::read), opt;
    }
}

json_struct! {
    /// Step `at_step` runs the event at index `pick` among those due at that
    /// instant, in the default order (0 is the default's own choice).
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Pick {
        pub at_step: u64 = "at_step", required(uint), always;
        pub pick: u32 = "pick", required(u32_of), always;
    }
}

json_struct! {
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Repeat {
        pub count: u32 = "count", required(u32_of), always;
        pub every_ms: u64 = "every_ms", required(uint), always;
    }
}

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ProduceSpec {
        pub producer: String = "producer", required(string), always;
        pub records: u32 = "records", or(1, u32_of), always;
    }
}

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct CrashSpec {
        pub broker: u32 = "broker", required(u32_of), always;
        pub unflushed: u64 = "unflushed", or(0, uint), nonzero;
        /// The host vanishes (power or network gone) instead of the process being
        /// killed: no connection resets, so peers notice only by their timeouts.
        pub silent: bool = "silent", or(false, boolean), nonfalse;
    }
}

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct BrokerRef {
        pub broker: u32 = "broker", required(u32_of), always;
    }
}

json_struct! {
    /// `{"between":[a,b]}` (both directions) or `{"from":a,"to":b}` (one).
    #[derive(Debug, Clone, PartialEq)]
    pub struct LinkCut {
        pub between: Option<[Endpoint; 2]> = "between", opt(two_endpoints), opt;
        pub from: Option<Endpoint> = "from", opt(Endpoint::read), opt;
        pub to: Option<Endpoint> = "to", opt(Endpoint::read), opt;
        /// A partition only: messages already on the wire across it that it catches
        /// (by the record's `in_flight[].id`), instead of letting them arrive. Written
        /// by the explorer; TCP resends a caught data message after the heal, a caught
        /// controller message is lost.
        pub catch: Vec<u64> = "catch", or(Vec::new(), list(uint)), nonempty;
        /// A link between a broker and the controller (KRaft presets) only: cut or heal one of
        /// the broker's connections to the controller and leave the others alone.
        pub channel: Option<Channel> = "channel", opt(Channel::parse), opt;
    }
}

/// One of a KRaft broker's connections to the controller. Each is its own TCP
/// connection: `BrokerLifecycleManager`'s channel (registration and heartbeats),
/// `AlterPartitionManager`'s (AlterPartition), each a `NodeToControllerChannelManagerImpl`
/// with its own `NetworkClient`, and the metadata log's Fetch (`KafkaRaftClient`, through
/// the raft manager's own client).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Channel {
    AlterPartition,
    Heartbeat,
    Metadata,
}

impl Named for Channel {
    const ALL_NAMED: &'static [(&'static str, Channel)] =
        &[("alter_partition", Channel::AlterPartition), ("heartbeat", Channel::Heartbeat), ("metadata", Channel::Metadata)];
}

json_by_name!(Channel);

/// `format`: 1 is the only version this build reads.
fn format_version(path: &str, v: &Value) -> Read<u32> {
    match u32_of(path, v)? {
        1 => Ok(1),
        format => err(path, error_text!("must be 1, got {format} (made by a newer hwscope?)")),
    }
}

/// `[a, b]`: two endpoints.
fn two_endpoints(path: &str, v: &Value) -> Read<[Endpoint; 2]> {
    let a = json::array(path, v)?;
    if a.len() != 2 {
        return err(path, error_text!("needs exactly two endpoints, got {}", a.len()));
    }
    Ok([Endpoint::read(&error_text!("{path}[0]"), &a[0])?, Endpoint::read(&error_text!("{path}[1]"), &a[1])?])
}

/// A validated action, as the simulation consumes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Produce {
        producer: usize,
        records: u32,
    },
    Crash {
        broker: u32,
        unflushed: u64,
        silent: bool,
    },
    Restart {
        broker: u32,
    },
    /// Directed links, both ways for `between`; `catch`: ids of messages on the
    /// wire across them that the cut catches.
    /// `channel`: only that connection of a broker to the controller.
    Partition {
        links: Vec<(Peer, Peer)>,
        catch: Vec<u64>,
        channel: Option<Channel>,
    },
    Heal {
        links: Vec<(Peer, Peer)>,
        channel: Option<Channel>,
    },
    AddConsumer(Box<ConsumerSpec>),
}

fn default_producers() -> Vec<ProducerSpec> {
    vec![ProducerSpec::new("p1", Acks::All)]
}

impl Scenario {
    /// Parses and validates a scenario from JSON text.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let value = json::parse(text).map_err(|e| ScenarioError::new("", error_text!("not valid JSON: {e}")))?;
        let Value::Object(top) = &value else {
            return err("", error_text!("a scenario is a JSON object, got {}", shown(&value)));
        };
        if json::lookup(top, "format").is_none() {
            return err("", "missing field `format` (a scenario starts with {\"format\": 1})");
        }
        let scenario = Scenario::read("", &value)?;
        // The page's first core (feature `first`) reads only the built-ins' own texts,
        // which the full core validates in every test and build (scripts/first-frame.mjs
        // runs each): it goes without the checks and their messages (~2 KB gzipped). The
        // docs figures' first core (`first` with `docs`) reads the blocks' scenarios: it checks.
        if !cfg!(feature = "first") || cfg!(feature = "docs") {
            scenario.validate()?;
        }
        Ok(scenario)
    }

    /// Parses one event or intervention (`{"crash":{"broker":1}}`), not yet validated.
    pub fn event_from_json(text: &str) -> Result<EventSpec, ScenarioError> {
        let value = json::parse(text).map_err(|e| ScenarioError::new("event", error_text!("not valid JSON: {e}")))?;
        EventSpec::read("event", &value)
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
