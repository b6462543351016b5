//! Presets are data: each is a bundle of named behaviour switches, each
//! switch tied to the Kafka version, KIP or ticket that introduced it
//! (see docs/behaviors.md and kafka-replication-semantics.md).

use crate::json::{boolean, json_struct, write_str, Named, ToJson};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Preset {
    Textbook,
    Kafka010,
    Kafka011,
    Kafka20,
    Kafka24,
    Kafka28,
    Kafka37,
    #[default]
    Kafka40,
}

/// Which followers' LEOs bound the leader's HW (`Partition.maybeIncrementLeaderHW`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HwCounts {
    /// ≤0.10.1: the committed ISR only.
    Isr,
    /// 0.10.2 (KAFKA-4485): the ISR and any follower caught up within the lag time.
    IsrOrCaughtUp,
    /// 2.7 (KIP-497): the maximal ISR (pending expansion counted) and caught-up followers.
    MaximalIsrOrCaughtUp,
    /// 3.6 (KAFKA-15021): as above, but a caught-up non-ISR follower counts only if ISR-eligible (not fenced).
    MaximalIsrOrCaughtUpEligible,
}

/// Which HW a Fetch answered at once carries (`Partition.readRecords`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseHw {
    /// The HW as updated by this very fetch (the textbook story; 1.0–1.1 under KAFKA-5758).
    AfterFetch,
    /// The HW snapshot taken before this fetch updated it (`initialHighWatermark`, KAFKA-7104).
    BeforeFetch,
}

/// What a consumer fetch above the serving replica's HW (not above its LEO) gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AboveHw {
    /// Parked like a fetch at the HW (older `DelayedFetch`, segment comparison).
    Park,
    /// Answered at once with no records (`DelayedFetch` Case F; measured on 4.0, §11).
    Empty,
}

/// How a replica that becomes a follower finds where its log departs from the leader's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// ≤0.10.2: truncate to its own HW (`ReplicaManager.makeFollowers`).
    HighWatermark,
    /// 0.11 (KIP-101): one OffsetsForLeaderEpoch round; the leader answers an end offset only.
    EpochRequest,
    /// 2.0 (KIP-279): OffsetsForLeaderEpoch answers (epoch, end offset); repeat until the epochs match.
    EpochRequestMultiRound,
    /// 2.8 (KAFKA-10554, KAFKA-10487): the Fetch carries lastFetchedEpoch; the leader answers a diverging epoch.
    DivergingEpoch,
}

/// How an ISR change reaches the controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsrUpdate {
    /// Before 2.7 the leader wrote the ISR to ZooKeeper itself and applied it at once.
    Immediate,
    /// 2.7+ (KIP-497): AlterPartition to the controller; the leader tracks the pending (maximal) ISR meanwhile.
    AlterPartition,
}

/// Declares the switches once: [`Behavior`] (every switch set, what a preset is),
/// [`BehaviorOverrides`] (the scenario's `behavior` object, read and written by
/// its field list) and `apply`. A new switch is one line here, plus its value in
/// each preset below.
macro_rules! switches {
    ( $( $(#[$doc:meta])* $field:ident : $ty:ty = $key:literal, $read:expr; )* ) => {
        /// The switches. Every rule in `sim/` that differs between versions reads one of these.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct Behavior { $( $(#[$doc])* pub $field: $ty, )* }

        json_struct! {
            /// Single switches a scenario overrides in its `behavior` object.
            #[derive(Debug, Clone, PartialEq)]
            pub struct BehaviorOverrides: Default {
                $( pub $field: Option<$ty> = $key, opt($read), opt; )*
            }
        }

        impl BehaviorOverrides {
            /// The switches of `b`, with these overrides.
            pub fn apply(&self, mut b: Behavior) -> Behavior {
                $( if let Some(v) = self.$field { b.$field = v; } )*
                b
            }
        }
    };
}

switches! {
    hw_counts: HwCounts = "hw_counts", HwCounts::parse;
    /// 3.7 (KAFKA-15583): the HW does not advance while the ISR is under min.insync.replicas.
    hw_held_under_min_isr: bool = "hw_held_under_min_isr", boolean;
    response_hw: ResponseHw = "response_hw", ResponseHw::parse;
    /// A caught-up Fetch is parked up to replica.fetch.wait.max.ms. Off in `textbook`:
    /// the leader answers at once, and an idle follower waits replica.fetch.wait.max.ms
    /// before fetching again, so it does not spin.
    long_poll: bool = "long_poll", boolean;
    /// 2.4–2.5 (KIP-392, KAFKA-8443; removed by KAFKA-9952 in 2.6): a follower whose last
    /// sent HW is stale is answered at once, and an HW move releases parked follower fetches.
    hw_move_completes_follower_fetch: bool = "hw_move_completes_follower_fetch", boolean;
    consumer_fetch_above_hw: AboveHw = "consumer_fetch_above_hw", AboveHw::parse;
    /// 3.4 (KAFKA-14334): a follower releases consumer fetches parked on it when its HW moves.
    follower_hw_completes_consumer_fetch: bool = "follower_hw_completes_consumer_fetch", boolean;
    /// 2.4 (KIP-392): consumers may read from followers. Before, `fetch_from` is ignored.
    follower_fetching: bool = "follower_fetching", boolean;
    truncation: Truncation = "truncation", Truncation::parse;
    /// 2.1 (KIP-320): requests carry the current leader epoch; an older one is fenced.
    leader_epoch_fencing: bool = "leader_epoch_fencing", boolean;
    isr_update: IsrUpdate = "isr_update", IsrUpdate::parse;
}

impl BehaviorOverrides {
    pub fn is_empty(&self) -> bool {
        *self == BehaviorOverrides::default()
    }
}

/// Presets and switch values are written by name.
macro_rules! json_by_name {
    ($($t:ty),*) => {
        $(impl ToJson for $t {
            fn write_json(&self, out: &mut String) {
                write_str(out, self.name());
            }
        })*
    };
}

json_by_name!(Preset, HwCounts, ResponseHw, AboveHw, Truncation, IsrUpdate);

/// Today's behaviour, from which the older presets differ.
const KAFKA_4_0: Behavior = Behavior {
    hw_counts: HwCounts::MaximalIsrOrCaughtUpEligible,
    hw_held_under_min_isr: true,
    response_hw: ResponseHw::BeforeFetch,
    long_poll: true,
    hw_move_completes_follower_fetch: false,
    consumer_fetch_above_hw: AboveHw::Empty,
    follower_hw_completes_consumer_fetch: true,
    follower_fetching: true,
    truncation: Truncation::DivergingEpoch,
    leader_epoch_fencing: true,
    isr_update: IsrUpdate::AlterPartition,
};

const KAFKA_2_8: Behavior = Behavior {
    hw_counts: HwCounts::MaximalIsrOrCaughtUp,
    hw_held_under_min_isr: false,
    consumer_fetch_above_hw: AboveHw::Park,
    follower_hw_completes_consumer_fetch: false,
    ..KAFKA_4_0
};

const KAFKA_2_4: Behavior = Behavior {
    hw_counts: HwCounts::IsrOrCaughtUp,
    hw_move_completes_follower_fetch: true,
    truncation: Truncation::EpochRequestMultiRound,
    isr_update: IsrUpdate::Immediate,
    ..KAFKA_2_8
};

const KAFKA_2_0: Behavior =
    Behavior { hw_move_completes_follower_fetch: false, follower_fetching: false, leader_epoch_fencing: false, ..KAFKA_2_4 };

const KAFKA_0_11: Behavior = Behavior { truncation: Truncation::EpochRequest, ..KAFKA_2_0 };

const KAFKA_0_10: Behavior = Behavior { truncation: Truncation::HighWatermark, ..KAFKA_0_11 };

const TEXTBOOK: Behavior = Behavior {
    hw_counts: HwCounts::Isr,
    hw_held_under_min_isr: false,
    response_hw: ResponseHw::AfterFetch,
    long_poll: false,
    hw_move_completes_follower_fetch: false,
    consumer_fetch_above_hw: AboveHw::Park,
    follower_hw_completes_consumer_fetch: true,
    follower_fetching: true,
    truncation: Truncation::HighWatermark,
    leader_epoch_fencing: false,
    isr_update: IsrUpdate::Immediate,
};

impl Preset {
    pub const ALL: [Preset; 8] = [
        Preset::Textbook,
        Preset::Kafka010,
        Preset::Kafka011,
        Preset::Kafka20,
        Preset::Kafka24,
        Preset::Kafka28,
        Preset::Kafka37,
        Preset::Kafka40,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Textbook => "textbook",
            Preset::Kafka010 => "kafka-0.10",
            Preset::Kafka011 => "kafka-0.11",
            Preset::Kafka20 => "kafka-2.0",
            Preset::Kafka24 => "kafka-2.4",
            Preset::Kafka28 => "kafka-2.8",
            Preset::Kafka37 => "kafka-3.7",
            Preset::Kafka40 => "kafka-4.0",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Preset::Textbook => "The simplified model taught in interviews: a fetch is answered at once and carries the HW updated by that very fetch; no long-poll.",
            Preset::Kafka010 => "HW-based truncation: a replica that becomes a follower truncates to its own HW (the KIP-101 data-loss and divergence bugs).",
            Preset::Kafka011 => "KIP-101: truncation by OffsetsForLeaderEpoch, one round.",
            Preset::Kafka20 => "KIP-279: OffsetsForLeaderEpoch answers an epoch too; truncation repeats until the epochs match.",
            Preset::Kafka24 => "KIP-392 follower fetching; the leader answers or releases a follower's fetch when the HW it last sent is stale.",
            Preset::Kafka28 => "Truncation by the diverging epoch in the Fetch response; AlterPartition and the maximal ISR.",
            Preset::Kafka37 => "The HW is held while the ISR is under min.insync.replicas (KAFKA-15583).",
            Preset::Kafka40 => "Today's behaviour (the default; `latest` is an alias).",
        }
    }

    pub fn behavior(self) -> Behavior {
        match self {
            Preset::Textbook => TEXTBOOK,
            Preset::Kafka010 => KAFKA_0_10,
            Preset::Kafka011 => KAFKA_0_11,
            Preset::Kafka20 => KAFKA_2_0,
            Preset::Kafka24 => KAFKA_2_4,
            Preset::Kafka28 => KAFKA_2_8,
            // 3.7 differs from 4.0 in ELR defaults and code paths this model does not draw.
            Preset::Kafka37 | Preset::Kafka40 => KAFKA_4_0,
        }
    }
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
