//! Kafka's defaults that changed across the versions the presets span, and the
//! settings a run has in force: the scenario's value, else its preset's default,
//! each with where it comes from (`hwscope config`, `hwscope presets --defaults`,
//! the page's Settings). A preset's defaults are data (`Defaults`, one per row
//! of `PRESETS`); the rules in `sim/` read the resolved [`Settings`].

use super::{BrokerLiveness, Scenario};
use crate::json::{json_record, ToJson, Value};

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
    /// The producer's retry.backoff.max.ms (exponential retry backoff, 3.7, KIP-580);
    /// None before: retries wait a fixed retry.backoff.ms.
    pub retry_backoff_max_ms: Option<u64>,
}

/// 0.10: the ZooKeeper era before KIP-106.
pub const ZOOKEEPER_0_10_DEFAULTS: Defaults = Defaults {
    replica_lag_time_max_ms: 10_000,
    unclean_leader_election_enable: true,
    zookeeper_session_timeout_ms: Some(6_000),
    enable_idempotence: false,
    retry_backoff_max_ms: None,
};

/// 0.11–2.4.
pub const ZOOKEEPER_0_11_DEFAULTS: Defaults = Defaults { unclean_leader_election_enable: false, ..ZOOKEEPER_0_10_DEFAULTS };

/// 2.5–2.8 (KIP-537 lengthened the lag time and the ZooKeeper session).
pub const KAFKA_2_5_DEFAULTS: Defaults =
    Defaults { replica_lag_time_max_ms: 30_000, zookeeper_session_timeout_ms: Some(18_000), ..ZOOKEEPER_0_11_DEFAULTS };

/// 3.7 and later (KRaft here), and `textbook`, which uses today's defaults.
pub const KAFKA_3_7_DEFAULTS: Defaults =
    Defaults { zookeeper_session_timeout_ms: None, enable_idempotence: true, retry_backoff_max_ms: Some(1_000), ..KAFKA_2_5_DEFAULTS };

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
        ]
    }

    /// Why `key` (as [`Defaults::listed`] names it) defaults to `value` here.
    pub fn note(key: &str, value: &Value) -> &'static str {
        default_note(key.trim_start_matches("producers[]."), value)
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
        pub key: &'static str = "key", always;
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
                    (None, None) => (Value::Null, Source::Kafka, default_note(key, &Value::Null).to_string()),
                };
                InForce { key, value, source, note, used }
            })
            .collect()
    }
}
