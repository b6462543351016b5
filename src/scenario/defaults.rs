//! Kafka's defaults that changed across the versions the presets span, and the
//! settings a run has in force: the scenario's value, else its preset's default,
//! each with where it comes from (`hwscope config`, `hwscope presets --defaults`,
//! the page's Settings). A preset's defaults are data (`Defaults`, one per row
//! of `PRESETS`); the rules in `sim/` read the resolved [`Settings`].

use super::{Acks, BrokerLiveness, Scenario};

/// The Java client's `retries` default from 2.1 (`Integer.MAX_VALUE`).
pub const MAX_RETRIES: u64 = 2_147_483_647;
use crate::json::{json_record, Named, ToJson, Value};

/// The defaults that differ between presets. Every other setting has one
/// default for every preset (`Config`'s field list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defaults {
    /// 10 s before 2.5, 30 s from 2.5 (KIP-537, KAFKA-9102).
    pub replica_lag_time_max_ms: u64,
    /// true before 0.11, false from 0.11 (KIP-106, KAFKA-4623).
    pub unclean_leader_election_enable: bool,
    /// 6 s before 2.5, 18 s from 2.5 (KIP-537); None without ZooKeeper (KRaft).
    pub zookeeper_session_timeout_ms: Option<u64>,
    /// The Java producer's enable.idempotence: true from 3.0 (KIP-679).
    pub enable_idempotence: bool,
    /// How the Java producer squares enable.idempotence with acks, retries and
    /// max.in.flight.requests.per.connection (`ProducerSpec::settings`).
    pub idempotence: IdempotenceRules,
    /// The producer's retry.backoff.max.ms (exponential retry backoff, 3.7, KIP-580);
    /// None before: retries wait a fixed retry.backoff.ms.
    pub retry_backoff_max_ms: Option<u64>,
    /// The Java producer's `acks`: "1" before 3.0, "all" from 3.0 (KIP-679;
    /// `ProducerConfig` `ACKS_CONFIG` at 2.8.0 and 3.0.0).
    pub acks: Acks,
    /// The Java producer's `retries`: 0 before 2.1, `Integer.MAX_VALUE` from 2.1 (KIP-91;
    /// `ProducerConfig` `RETRIES_CONFIG` at 0.10.2.2, 0.11.0.3, 2.0.0 and 2.1.0).
    pub retries: u64,
    /// The Java producer's `delivery.timeout.ms`: 120 s from 2.1 (KIP-91); None before,
    /// when the setting does not exist and only `retries` bounds a batch's attempts.
    pub delivery_timeout_ms: Option<u64>,
    /// The Java consumer's `request.timeout.ms`: 305 s before 2.0 (chosen above
    /// max.poll.interval.ms, KIP-62), 30 s from 2.0 (KIP-266; `ConsumerConfig`).
    pub consumer_request_timeout_ms: u64,
}

/// 0.10: the ZooKeeper era before KIP-106.
pub const ZOOKEEPER_0_10_DEFAULTS: Defaults = Defaults {
    replica_lag_time_max_ms: 10_000,
    unclean_leader_election_enable: true,
    zookeeper_session_timeout_ms: Some(6_000),
    enable_idempotence: false,
    idempotence: IdempotenceRules::Absent,
    retry_backoff_max_ms: None,
    acks: Acks::One,
    retries: 0,
    delivery_timeout_ms: None,
    consumer_request_timeout_ms: 305_000,
};

/// 0.11 (KIP-106 turned unclean election off; KIP-98 brought the idempotent producer).
pub const ZOOKEEPER_0_11_DEFAULTS: Defaults =
    Defaults { unclean_leader_election_enable: false, idempotence: IdempotenceRules::SetOneInFlight, ..ZOOKEEPER_0_10_DEFAULTS };

/// 2.0 (KIP-266: the consumer's request.timeout.ms back to 30 s).
pub const KAFKA_2_0_DEFAULTS: Defaults =
    Defaults { consumer_request_timeout_ms: 30_000, idempotence: IdempotenceRules::Set, ..ZOOKEEPER_0_11_DEFAULTS };

/// 2.1–2.4 (KIP-91: the producer retries until delivery.timeout.ms).
pub const KAFKA_2_1_DEFAULTS: Defaults = Defaults { retries: MAX_RETRIES, delivery_timeout_ms: Some(120_000), ..KAFKA_2_0_DEFAULTS };

/// 2.5–2.8 (KIP-537 lengthened the lag time and the ZooKeeper session).
pub const KAFKA_2_5_DEFAULTS: Defaults =
    Defaults { replica_lag_time_max_ms: 30_000, zookeeper_session_timeout_ms: Some(18_000), ..KAFKA_2_1_DEFAULTS };

/// 3.7–3.9 (KRaft here): KIP-679 at 3.0, acks=all and idempotence by default.
pub const KAFKA_3_7_DEFAULTS: Defaults = Defaults {
    zookeeper_session_timeout_ms: None,
    enable_idempotence: true,
    idempotence: IdempotenceRules::DefaultOn,
    retry_backoff_max_ms: Some(1_000),
    acks: Acks::All,
    ..KAFKA_2_5_DEFAULTS
};

/// 4.0 and later, and `textbook`, which uses today's defaults.
pub const KAFKA_4_0_DEFAULTS: Defaults = Defaults { idempotence: IdempotenceRules::DefaultOnInFlightChecked, ..KAFKA_3_7_DEFAULTS };

/// The Java producer's rules for enable.idempotence against acks, retries and
/// max.in.flight.requests.per.connection, as each version applies them when it builds
/// its configuration. A rule Kafka enforces with a `ConfigException` is an error naming
/// the field; one it applies silently is applied the same way (`ProducerSpec::settings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdempotenceRules {
    /// 0.10: there is no idempotent producer (KIP-98 came in 0.11); `enable.idempotence`
    /// is not a known setting, and Kafka ignores it.
    Absent,
    /// 0.11.0 (`KafkaProducer.configureAcks`, `configureRetries`, `configureInflightRequests`
    /// at 0.11.0.2): on only when set true; then an unset acks becomes all, an unset retries
    /// `Integer.MAX_VALUE` and an unset max.in.flight 1, while a set acks other than all, a
    /// set retries of 0 or a set max.in.flight other than 1 is an error.
    SetOneInFlight,
    /// 1.0–2.8 (KAFKA-5494 allowed up to 5 in flight; the same checks moved to
    /// `ProducerConfig.maybeOverrideAcksAndRetries` at 2.8.0), and 3.0.0 and 3.1.0, whose
    /// `ProducerConfig.idempotenceEnabled` still asked whether the user set it, so the new
    /// default of true was not applied (KAFKA-13598, fixed in 3.0.1, 3.1.1 and 3.2.0): as
    /// above, but max.in.flight up to 5 is allowed and left as it is.
    Set,
    /// 3.0.1, 3.1.1 and 3.2–3.9 (KAFKA-13598, KAFKA-13673,
    /// `ProducerConfig.postProcessAndValidateIdempotenceConfigs` at 3.7.0 and 3.8.0): on
    /// unless set false; retries 0, an acks other than all or max.in.flight above 5 turn
    /// the default off silently, and are an error when idempotence is set true.
    DefaultOn,
    /// 4.0 (KAFKA-17927, the same method at 4.0.2): as `DefaultOn`, except that
    /// max.in.flight above 5 is an error whether idempotence was set or is on by default.
    DefaultOnInFlightChecked,
}

/// The ZooKeeper session timeout when a scenario picks ZooKeeper liveness under a
/// preset without ZooKeeper and sets no timeout: the last ZooKeeper default (2.5–3.x).
const LAST_ZOOKEEPER_SESSION_MS: u64 = 18_000;

/// The version-dependent settings as a run has them in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub replica_lag_time_max_ms: u64,
    pub unclean_leader_election_enable: bool,
    pub zookeeper_session_timeout_ms: u64,
}

/// Why a default is what it is, by key and value.
fn default_note(key: &str, value: &Value) -> &'static str {
    match (key, value) {
        ("replica.lag.time.max.ms", Value::UInt(10_000)) => "Kafka's default before 2.5 (KIP-537 raised it to 30000)",
        ("replica.lag.time.max.ms", _) => "Kafka 2.5+ default (KIP-537)",
        ("unclean.leader.election.enable", Value::Bool(true)) => "Kafka's default before 0.11 (KIP-106 turned it off)",
        ("unclean.leader.election.enable", _) => "Kafka 0.11+ default (KIP-106)",
        ("zookeeper.session.timeout.ms", Value::UInt(6_000)) => "Kafka's default before 2.5 (KIP-537 raised it to 18000)",
        ("zookeeper.session.timeout.ms", Value::UInt(_)) => "Kafka 2.5+ default (KIP-537)",
        ("zookeeper.session.timeout.ms", _) => "none: a KRaft cluster has no ZooKeeper",
        ("enable.idempotence", Value::Bool(true)) => "the Java producer's default from 3.0 (KIP-679)",
        ("enable.idempotence", _) => "the Java producer's default before 3.0",
        ("retry.backoff.max.ms", Value::UInt(_)) => "Kafka 3.7+ default (KIP-580, exponential backoff)",
        ("retry.backoff.max.ms", _) => "none before 3.7: retries wait retry.backoff.ms",
        ("acks", Value::String(_)) => "the Java producer's default from 3.0 (KIP-679)",
        ("acks", _) => "the Java producer's default before 3.0 (KIP-679 made it all)",
        ("retries", Value::UInt(0)) => "the Java producer's default before 2.1: a failed send is not retried (KIP-91)",
        ("retries", _) => "the Java producer's default from 2.1 (KIP-91): delivery.timeout.ms bounds retries",
        ("delivery.timeout.ms", Value::UInt(_)) => "the Java producer's default from 2.1 (KIP-91)",
        ("delivery.timeout.ms", _) => "none before 2.1: the setting does not exist (KIP-91 added it)",
        ("consumer.request.timeout.ms", Value::UInt(305_000)) => "the Java consumer's default before 2.0 (KIP-266 lowered it to 30000)",
        ("consumer.request.timeout.ms", _) => "the Java consumer's default from 2.0 (KIP-266)",
        _ => "Kafka's default (the same in every preset)",
    }
}

impl Defaults {
    /// The preset defaults by key, as `hwscope presets --defaults` lists them: the
    /// broker settings, then the producer's (`producers[].…`).
    pub fn listed(&self) -> Vec<(&'static str, Value)> {
        let ms = |v: Option<u64>| v.map_or(Value::Null, Value::UInt);
        vec![
            ("replica.lag.time.max.ms", Value::UInt(self.replica_lag_time_max_ms)),
            ("unclean.leader.election.enable", Value::Bool(self.unclean_leader_election_enable)),
            ("zookeeper.session.timeout.ms", ms(self.zookeeper_session_timeout_ms)),
            ("producers[].enable.idempotence", Value::Bool(self.enable_idempotence)),
            ("producers[].retry.backoff.max.ms", ms(self.retry_backoff_max_ms)),
            ("producers[].acks", acks_value(self.acks)),
            ("producers[].retries", Value::UInt(self.retries)),
            ("producers[].delivery.timeout.ms", ms(self.delivery_timeout_ms)),
            ("consumers[].request.timeout.ms", Value::UInt(self.consumer_request_timeout_ms)),
        ]
    }

    /// Why `key` (as [`Defaults::listed`] names it) defaults to `value` here.
    pub fn note(key: &str, value: &Value) -> &'static str {
        match key.strip_prefix("consumers[].") {
            Some(k) => default_note(&format!("consumer.{k}"), value),
            None => default_note(key.trim_start_matches("producers[]."), value),
        }
    }
}

/// `acks` as JSON writes it: `"all"`, or the number.
fn acks_value(acks: Acks) -> Value {
    match acks {
        Acks::All => Value::String("all".to_string()),
        Acks::One => Value::UInt(1),
        Acks::Zero => Value::UInt(0),
    }
}

/// Where a value in force comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The scenario sets it.
    Scenario,
    /// The preset's default (a Kafka default that changed across versions).
    Preset,
    /// Kafka's default, the same in every preset.
    Kafka,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Scenario => "scenario",
            Source::Preset => "preset",
            Source::Kafka => "default",
        }
    }
}

impl ToJson for Source {
    fn write_json(&self, out: &mut String) {
        self.name().write_json(out);
    }
}

json_record! {
    /// One setting as a run has it: its value, where the value comes from and why,
    /// and whether this preset's rules read it at all.
    #[derive(Debug, Clone, PartialEq)]
    pub struct InForce {
        pub key: String = "key", always;
        pub value: Value = "value", always;
        pub source: Source = "source", always;
        /// "set by the scenario", or the default's reason ("Kafka 2.5+ default (KIP-537)").
        pub note: String = "note", always;
        pub used: bool = "used", always;
    }
}

impl InForce {
    /// `30000 — Kafka 2.5+ default (KIP-537)`, `1 — set by the scenario`.
    pub fn line(&self) -> String {
        let unused = if self.used { "" } else { " (not used by this preset)" };
        format!("{} = {} — {}{unused}", self.key, self.value, self.note)
    }
}

impl Scenario {
    /// The version-dependent settings in force: the scenario's, else the preset's defaults.
    pub fn settings(&self) -> Settings {
        let d = self.preset.defaults();
        let c = &self.config;
        Settings {
            replica_lag_time_max_ms: c.replica_lag_time_max_ms.unwrap_or(d.replica_lag_time_max_ms),
            unclean_leader_election_enable: c.unclean_leader_election_enable.unwrap_or(d.unclean_leader_election_enable),
            zookeeper_session_timeout_ms: c
                .zookeeper_session_timeout_ms
                .or(d.zookeeper_session_timeout_ms)
                .unwrap_or(LAST_ZOOKEEPER_SESSION_MS),
        }
    }

    /// Every `config` setting with its value in force and where it comes from, in
    /// the field list's order. Keys whose rule this preset does not run (ZooKeeper's
    /// session under KRaft, heartbeats under ZooKeeper) say so.
    pub fn config_in_force(&self) -> Vec<InForce> {
        let written = match crate::json::parse(&crate::json::to_string(&self.config)) {
            Ok(Value::Object(map)) => map,
            _ => Vec::new(),
        };
        let standard = match crate::json::parse(&crate::json::to_string(&super::Config::default())) {
            Ok(Value::Object(map)) => map,
            _ => Vec::new(),
        };
        let defaults: Vec<(&str, Value)> = self.preset.defaults().listed();
        let zookeeper = self.behavior().broker_liveness == BrokerLiveness::ZookeeperSession;
        super::Config::KEYS
            .iter()
            .map(|&key| {
                let used = match key {
                    "zookeeper.session.timeout.ms" => zookeeper,
                    "broker.session.timeout.ms" | "broker.heartbeat.interval.ms" => !zookeeper,
                    _ => true,
                };
                let explicit = crate::json::lookup(&written, key).cloned();
                let preset_default = defaults.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone());
                let (value, source, note) = match (explicit, preset_default) {
                    (Some(v), Some(_)) => (v, Source::Scenario, "set by the scenario".to_string()),
                    (Some(v), None) if crate::json::lookup(&standard, key) != Some(&v) => {
                        (v, Source::Scenario, "set by the scenario".to_string())
                    }
                    (Some(v), None) => (v, Source::Kafka, default_note(key, &Value::Null).to_string()),
                    (None, Some(v)) => {
                        let note = default_note(key, &v).to_string();
                        (v, Source::Preset, note)
                    }
                    // An optional setting the scenario leaves out: the value the run uses.
                    (None, None) => (self.config_default(key), Source::Kafka, default_note(key, &Value::Null).to_string()),
                };
                InForce { key: key.to_string(), value, source, note, used }
            })
            .chain(self.clients_in_force())
            .collect()
    }

    /// The value in force of a `config` key left out of the scenario with no preset
    /// default: Kafka's, as the rules read it (`Config::broker_request_timeout_ms`, ...).
    fn config_default(&self, key: &str) -> Value {
        match key {
            "request.timeout.ms" => Value::UInt(self.config.broker_request_timeout_ms()),
            "replica.high.watermark.checkpoint.interval.ms" => Value::UInt(self.config.hw_checkpoint_interval_ms()),
            _ => Value::Null,
        }
    }

    /// Each producer's and consumer's settings in force (`producers[0].retries`, …): the
    /// scenario's value, else the preset's default (a default that changed across the
    /// presets' versions) or Kafka's, after the producer's cross-field rules
    /// (`ProducerSpec::settings`: idempotence off when acks is not all and it was not set).
    fn clients_in_force(&self) -> Vec<InForce> {
        let d = self.preset.defaults();
        let mut rows = Vec::new();
        let row = |key: String, value: Value, set: bool, varies: bool, note: Option<&str>, used: bool| {
            let (source, note) = match (set, varies) {
                (true, _) => (Source::Scenario, "set by the scenario".to_string()),
                (false, true) => (
                    Source::Preset,
                    note.unwrap_or_else(|| default_note(key.rsplit(']').next().unwrap_or("").trim_start_matches('.'), &value)).to_string(),
                ),
                (false, false) => (Source::Kafka, "Kafka's default (the same in every preset)".to_string()),
            };
            InForce { key, value, source, note, used }
        };
        // A setting whose default is Kafka's in every preset, used by every version.
        let everywhere = |key: String, value: Value, set: bool| row(key, value, set, false, None, true);
        for (i, p) in self.producers.iter().enumerate() {
            let field = format!("producers[{i}]");
            let Ok(s) = p.settings(self.preset, &field) else { continue };
            let k = |name: &str| format!("{field}.{name}");
            let ms = |v: Option<u64>| v.map_or(Value::Null, Value::UInt);
            let idempotence_note = if d.idempotence == IdempotenceRules::Absent {
                p.enable_idempotence.is_some().then_some("set, but the setting does not exist before 0.11 (KIP-98): Kafka ignores it")
            } else {
                (p.enable_idempotence.is_none() && s.idempotent != d.enable_idempotence).then_some(
                    "off: Kafka turns off the default idempotence when acks is not all, retries is 0 or more than 5 requests may be in flight",
                )
            };
            // Before 3.0 (and in 3.0.0, 3.1.0) an idempotent producer raises unset acks and retries.
            let raised = s.idempotent && !d.enable_idempotence;
            let acks_note = (raised && p.acks.is_none() && s.acks != d.acks)
                .then_some("all: the producer's own choice for an idempotent producer before 3.0 (the default was 1)");
            let retries_note = (raised && p.retries.is_none() && s.retries != d.retries)
                .then_some("the producer's own choice for an idempotent producer before 2.1 (the default was 0)");
            let in_flight_note = (raised && p.max_in_flight.is_none() && s.max_in_flight == 1)
                .then_some("1: the producer's own choice for an idempotent producer in 0.11 (up to 5 from 1.0, KAFKA-5494)");
            let set = |n: &Option<bool>| n.is_some() && d.idempotence != IdempotenceRules::Absent;
            rows.push(row(k("acks"), acks_value(s.acks), p.acks.is_some(), true, acks_note, true));
            rows.push(row(
                k("enable.idempotence"),
                Value::Bool(s.idempotent),
                set(&p.enable_idempotence),
                true,
                idempotence_note,
                d.idempotence != IdempotenceRules::Absent,
            ));
            rows.push(row(k("retries"), Value::UInt(s.retries), p.retries.is_some(), true, retries_note, true));
            let delivery_used = d.delivery_timeout_ms.is_some();
            let delivery = if delivery_used { ms(s.delivery_timeout_ms) } else { ms(p.delivery_timeout_ms) };
            let delivery_note = (!delivery_used && p.delivery_timeout_ms.is_some())
                .then_some("set, but the setting does not exist before 2.1 (KIP-91): Kafka ignores it");
            let delivery_set = p.delivery_timeout_ms.is_some() && delivery_used;
            rows.push(row(k("delivery.timeout.ms"), delivery, delivery_set, true, delivery_note, delivery_used));
            rows.push(row(k("request.timeout.ms"), Value::UInt(s.request_timeout_ms), p.request_timeout_ms != 30_000, false, None, true));
            rows.push(everywhere(k("retry.backoff.ms"), Value::UInt(s.retry_backoff_ms), p.retry_backoff_ms.is_some()));
            let max_set = p.retry_backoff_max_ms.is_some();
            let max = ms((max_set || d.retry_backoff_max_ms.is_some()).then_some(s.retry_backoff_max_ms));
            rows.push(row(k("retry.backoff.max.ms"), max, max_set, true, None, true));
            rows.push(match in_flight_note {
                Some(note) => row(k("max.in.flight.requests.per.connection"), Value::UInt(1), false, true, Some(note), true),
                None => everywhere(k("max.in.flight.requests.per.connection"), Value::UInt(s.max_in_flight), p.max_in_flight.is_some()),
            });
            rows.push(everywhere(k("metadata.max.age.ms"), Value::UInt(s.metadata_max_age_ms), p.metadata_max_age_ms.is_some()));
        }
        for (i, c) in self.consumers.iter().enumerate() {
            let field = format!("consumers[{i}]");
            let s = c.settings(self.preset);
            let k = |name: &str| format!("{field}.{name}");
            let timeout_note =
                (c.request_timeout_ms.is_none()).then(|| default_note("consumer.request.timeout.ms", &Value::UInt(s.request_timeout_ms)));
            rows.push(row(
                k("request.timeout.ms"),
                Value::UInt(s.request_timeout_ms),
                c.request_timeout_ms.is_some(),
                true,
                timeout_note,
                true,
            ));
            rows.push(everywhere(
                k("auto.offset.reset"),
                Value::String(s.auto_offset_reset.name().to_string()),
                c.auto_offset_reset.is_some(),
            ));
            rows.push(everywhere(k("retry.backoff.ms"), Value::UInt(s.retry_backoff_ms), c.retry_backoff_ms.is_some()));
            rows.push(everywhere(k("metadata.max.age.ms"), Value::UInt(s.metadata_max_age_ms), c.metadata_max_age_ms.is_some()));
        }
        rows
    }
}
