//! Presets are data: each is one row of [`PRESETS`], a value for every behaviour
//! switch (`switches.rs`) and the Kafka defaults of the settings whose default
//! changed across these versions (`defaults.rs`), with a line saying what changed
//! at that version. Adding a version is a row here (and a name); no rule in
//! `sim/` names a preset. See docs/behaviors.md and kafka-replication-semantics.md §12.

use super::defaults::{
    Defaults, KAFKA_2_0_DEFAULTS, KAFKA_2_1_DEFAULTS, KAFKA_2_5_DEFAULTS, KAFKA_3_7_DEFAULTS, KAFKA_4_0_DEFAULTS, ZOOKEEPER_0_10_DEFAULTS,
    ZOOKEEPER_0_11_DEFAULTS,
};
use super::switches::{AboveHw, Behavior, BrokerLiveness, ConnectionSetup, HwCounts, IsrUpdate, ResponseHw, Truncation};
use crate::json::{json_by_name, Named, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Preset {
    Textbook,
    Kafka010,
    Kafka011,
    Kafka20,
    Kafka21,
    Kafka24,
    Kafka28,
    Kafka37,
    Kafka38,
    /// The default, and what `latest` names (docs/format.md): scenarios and links that
    /// name no preset keep their behaviour.
    #[default]
    Kafka40,
    Kafka41,
}

json_by_name!(Preset);

/// One preset: its name, what changed at that version, its switches and defaults.
#[derive(Debug, Clone, Copy)]
pub struct PresetInfo {
    pub preset: Preset,
    pub name: &'static str,
    /// One line: what changed at this version (what the preset before it lacks).
    pub summary: &'static str,
    pub behavior: Behavior,
    pub defaults: Defaults,
}

/// Kafka 4.0's behaviour, from which the others differ.
const KAFKA_4_0: Behavior = Behavior {
    hw_counts: HwCounts::MaximalIsrOrCaughtUpEligible,
    hw_held_under_min_isr: true,
    response_hw: ResponseHw::BeforeFetch,
    long_poll: true,
    hw_move_completes_follower_fetch: false,
    consumer_fetch_above_hw: AboveHw::Empty,
    follower_hw_completes_consumer_fetch: true,
    follower_fetching: true,
    preferred_read_replica_in_isr: true,
    preferred_read_replica_answers_at_once: true,
    fetch_error_forgets_preferred_replica: true,
    truncation: Truncation::DivergingEpoch,
    leader_epoch_fencing: true,
    consumer_leader_epoch: true,
    isr_update: IsrUpdate::AlterPartition,
    isr_expansion_needs_epoch_start: true,
    out_of_range_halts: false,
    broker_liveness: BrokerLiveness::BrokerHeartbeat,
    controller_isr_removal_bumps_epoch: false,
    alter_partition_checks_broker_epochs: true,
    eligible_leader_replicas: false,
    fenced_broker_keeps_session: true,
    registration_cleans_unclean_shutdown: true,
    restart_inside_zookeeper_session_fails: true,
    heartbeat_timeout_is_interval: true,
    controller_detects_bounced_brokers: true,
    produce_response_names_leader: true,
    producer_state_keeps_5_batches: true,
    retry_skips_backoff_for_new_leader: true,
    connection_setup: ConnectionSetup::SetupTimeoutCapped,
};

const KAFKA_4_1: Behavior = Behavior { eligible_leader_replicas: true, ..KAFKA_4_0 };

/// 3.8 (and 3.9): a fenced broker has no session, re-registration cleans nothing up, and
/// an unanswered heartbeat waits half the session and is retried with a backoff.
const KAFKA_3_8: Behavior = Behavior {
    fenced_broker_keeps_session: false,
    registration_cleans_unclean_shutdown: false,
    heartbeat_timeout_is_interval: false,
    ..KAFKA_4_0
};

const KAFKA_3_7: Behavior = Behavior { consumer_fetch_above_hw: AboveHw::Park, ..KAFKA_3_8 };

/// 2.8 as a ZooKeeper cluster (KRaft was an early-access preview in 2.8); KAFKA-14372
/// (ISR-only preferred read replicas) and KAFKA-14379 came in 3.3.2/3.4.0, KAFKA-13767 in 3.2.
const KAFKA_2_8: Behavior = Behavior {
    hw_counts: HwCounts::MaximalIsrOrCaughtUp,
    preferred_read_replica_in_isr: false,
    preferred_read_replica_answers_at_once: false,
    fetch_error_forgets_preferred_replica: false,
    hw_held_under_min_isr: false,
    follower_hw_completes_consumer_fetch: false,
    broker_liveness: BrokerLiveness::ZookeeperSession,
    controller_isr_removal_bumps_epoch: true,
    alter_partition_checks_broker_epochs: false,
    produce_response_names_leader: false,
    retry_skips_backoff_for_new_leader: false,
    connection_setup: ConnectionSetup::SetupTimeout,
    ..KAFKA_3_7
};

const KAFKA_2_4: Behavior = Behavior {
    hw_counts: HwCounts::IsrOrCaughtUp,
    hw_move_completes_follower_fetch: true,
    truncation: Truncation::EpochRequestMultiRound,
    isr_update: IsrUpdate::Immediate,
    connection_setup: ConnectionSetup::Kernel,
    ..KAFKA_2_8
};

/// 2.1: no KIP-380 (2.2): the controller compares broker ids only; no consumer side of
/// KIP-320 (2.3).
const KAFKA_2_1: Behavior = Behavior {
    hw_move_completes_follower_fetch: false,
    follower_fetching: false,
    controller_detects_bounced_brokers: false,
    consumer_leader_epoch: false,
    ..KAFKA_2_4
};

const KAFKA_2_0: Behavior =
    Behavior { leader_epoch_fencing: false, isr_expansion_needs_epoch_start: false, out_of_range_halts: true, ..KAFKA_2_1 };

const KAFKA_0_11: Behavior = Behavior { truncation: Truncation::EpochRequest, producer_state_keeps_5_batches: false, ..KAFKA_2_0 };

const KAFKA_0_10: Behavior = Behavior { truncation: Truncation::HighWatermark, ..KAFKA_0_11 };

/// The story taught in interviews, not a Kafka version; today's defaults and controller.
const TEXTBOOK: Behavior = Behavior {
    hw_counts: HwCounts::Isr,
    hw_held_under_min_isr: false,
    response_hw: ResponseHw::AfterFetch,
    long_poll: false,
    hw_move_completes_follower_fetch: false,
    consumer_fetch_above_hw: AboveHw::Park,
    follower_hw_completes_consumer_fetch: true,
    follower_fetching: true,
    preferred_read_replica_in_isr: true,
    preferred_read_replica_answers_at_once: true,
    fetch_error_forgets_preferred_replica: true,
    truncation: Truncation::HighWatermark,
    leader_epoch_fencing: false,
    consumer_leader_epoch: false,
    isr_update: IsrUpdate::Immediate,
    isr_expansion_needs_epoch_start: true,
    out_of_range_halts: false,
    broker_liveness: BrokerLiveness::BrokerHeartbeat,
    controller_isr_removal_bumps_epoch: false,
    alter_partition_checks_broker_epochs: true,
    eligible_leader_replicas: false,
    fenced_broker_keeps_session: true,
    registration_cleans_unclean_shutdown: true,
    restart_inside_zookeeper_session_fails: true,
    heartbeat_timeout_is_interval: true,
    controller_detects_bounced_brokers: true,
    produce_response_names_leader: true,
    producer_state_keeps_5_batches: true,
    retry_skips_backoff_for_new_leader: true,
    connection_setup: ConnectionSetup::SetupTimeoutCapped,
};

/// Every preset, oldest first (`textbook` is not a version and comes first).
/// A preset's one-line summary; empty in the page's first core (feature `first`), which
/// never shows one (the full core, fetched once the page is idle, does: Settings).
const fn words(text: &'static str) -> &'static str {
    if cfg!(feature = "first") {
        ""
    } else {
        text
    }
}

pub const PRESETS: [PresetInfo; 11] = [
    PresetInfo {
        preset: Preset::Textbook,
        name: "textbook",
        summary: words("The simplified story taught in interviews: a fetch is answered at once and carries the HW updated by that very fetch; no long-poll; today's defaults."),
        behavior: TEXTBOOK,
        defaults: KAFKA_4_0_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka010,
        name: "kafka-0.10",
        summary: words("HW-based truncation: a new follower truncates to its own HW (the KIP-101 loss and divergence); ZooKeeper controller; unclean election on by default."),
        behavior: KAFKA_0_10,
        defaults: ZOOKEEPER_0_10_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka011,
        name: "kafka-0.11",
        summary: words("KIP-101: truncation by OffsetsForLeaderEpoch, one round; unclean.leader.election.enable off by default (KIP-106)."),
        behavior: KAFKA_0_11,
        defaults: ZOOKEEPER_0_11_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka20,
        name: "kafka-2.0",
        summary: words("KIP-279: OffsetsForLeaderEpoch answers an epoch too; truncation repeats until the epochs match. The consumer's request.timeout.ms is 30 s (KIP-266)."),
        behavior: KAFKA_2_0,
        defaults: KAFKA_2_0_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka21,
        name: "kafka-2.1",
        summary: words("KAFKA-7128: joining the ISR needs the leader epoch's start offset; KAFKA-7414: out of range no longer halts a follower; KIP-320 epoch fencing; KIP-91: the producer retries (retries was 0) until delivery.timeout.ms, 120 s."),
        behavior: KAFKA_2_1,
        defaults: KAFKA_2_1_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka24,
        name: "kafka-2.4",
        summary: words("KIP-392 follower fetching; KIP-320's consumer side (2.3): the consumer validates its position after a leader change; the leader answers or releases a follower's fetch when the HW it last sent is stale; KIP-380 (2.2): the ZooKeeper controller sees a broker that bounced between its watch and its read (broker epochs)."),
        behavior: KAFKA_2_4,
        defaults: KAFKA_2_1_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka28,
        name: "kafka-2.8",
        summary: words("Truncation by the diverging epoch in the Fetch response; AlterPartition and the maximal ISR; 2.5's longer defaults (KIP-537: lag 30 s, ZooKeeper session 18 s)."),
        behavior: KAFKA_2_8,
        defaults: KAFKA_2_5_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka37,
        name: "kafka-3.7",
        summary: words("KRaft: heartbeats and fencing, no epoch bump on ISR shrink; the HW is held while the ISR is under min.insync.replicas (KAFKA-15583); the producer defaults to acks=all and idempotence (3.0, KIP-679); only ISR members are named as preferred read replicas (KAFKA-14372, 3.3.2); a write refused with NOT_LEADER_OR_FOLLOWER names the leader (KIP-951)."),
        behavior: KAFKA_3_7,
        defaults: KAFKA_3_7_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka38,
        name: "kafka-3.8",
        summary: words("KAFKA-16452: a consumer fetch above the serving replica's HW is answered at once, empty (DelayedFetch Case F), not parked."),
        behavior: KAFKA_3_8,
        defaults: KAFKA_3_7_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka40,
        name: "kafka-4.0",
        summary: words("ZooKeeper removed; a fenced broker's session counts and a re-registration cleans up the unclean shutdown (KAFKA-17793, BrokerUncleanShutdownHandler); replication as in 3.8 (the default preset, also `latest`; ELR exists but is off by default)."),
        behavior: KAFKA_4_0,
        defaults: KAFKA_4_0_DEFAULTS,
    },
    PresetInfo {
        preset: Preset::Kafka41,
        name: "kafka-4.1",
        summary: words("KIP-966 Eligible Leader Replicas on for new clusters: the ISR may empty, replicas that left it under min ISR stay electable."),
        behavior: KAFKA_4_1,
        defaults: KAFKA_4_0_DEFAULTS,
    },
];

impl Preset {
    pub const ALL: [Preset; 11] = [
        Preset::Textbook,
        Preset::Kafka010,
        Preset::Kafka011,
        Preset::Kafka20,
        Preset::Kafka21,
        Preset::Kafka24,
        Preset::Kafka28,
        Preset::Kafka37,
        Preset::Kafka38,
        Preset::Kafka40,
        Preset::Kafka41,
    ];

    /// Its row in [`PRESETS`].
    pub fn info(self) -> &'static PresetInfo {
        // ALL and PRESETS list the presets in the same order (a test checks it).
        &PRESETS[Preset::ALL.iter().position(|&p| p == self).unwrap_or(0)]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// What changed at this version, in one line.
    pub fn description(self) -> &'static str {
        self.info().summary
    }

    pub fn behavior(self) -> Behavior {
        self.info().behavior
    }

    pub fn defaults(self) -> Defaults {
        self.info().defaults
    }
}

impl Named for Preset {
    const ALL_NAMED: &'static [(&'static str, Preset)] = &[
        ("textbook", Preset::Textbook),
        ("kafka-0.10", Preset::Kafka010),
        ("kafka-0.11", Preset::Kafka011),
        ("kafka-2.0", Preset::Kafka20),
        ("kafka-2.1", Preset::Kafka21),
        ("kafka-2.4", Preset::Kafka24),
        ("kafka-2.8", Preset::Kafka28),
        ("kafka-3.7", Preset::Kafka37),
        ("kafka-3.8", Preset::Kafka38),
        ("kafka-4.0", Preset::Kafka40),
        ("kafka-4.1", Preset::Kafka41),
        ("latest", Preset::Kafka40),
    ];
}

/// A preset default: the setting, its value (null: none), and why.
pub type DefaultRow = (&'static str, Value, &'static str);

/// The defaults of every preset, one line per setting: what `hwscope presets --defaults` prints.
pub fn defaults_table() -> Vec<(Preset, Vec<DefaultRow>)> {
    Preset::ALL
        .iter()
        .map(|&p| {
            let rows = p.defaults().listed().into_iter().map(|(k, v)| (k, v.clone(), Defaults::note(k, &v))).collect();
            (p, rows)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_preset_in_order_under_its_name() {
        for (i, p) in Preset::ALL.iter().enumerate() {
            assert_eq!(PRESETS[i].preset, *p);
            assert_eq!(Preset::ALL_NAMED[i], (PRESETS[i].name, *p));
        }
    }
}
