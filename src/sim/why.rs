//! The reasons and kinds the typed events carry: why an HW moved, why a Fetch
//! was refused or answered, which rule truncated, why and from where the
//! controller elected a leader. Plain data, re-exported by `event.rs`.

/// Why the leader's HW moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HwCause {
    /// A follower's Fetch reported a higher LEO (or the ISR grew).
    Fetch,
    /// An append, when no follower holds the HW back.
    Produce,
    /// A committed ISR change.
    IsrChange,
    /// Becoming the leader.
    Election,
}

/// Why a follower's Fetch is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rejection {
    NotLeader,
    /// KIP-320: the Fetch carries an older leader epoch than the leader's.
    FencedEpoch {
        leader_epoch: i32,
    },
    /// KIP-320: the Fetch carries a newer leader epoch than the leader knows.
    UnknownEpoch {
        leader_epoch: i32,
    },
    /// The leader has no end for the follower's last fetched epoch.
    NoEpochEnd {
        epoch: i32,
    },
    /// The fetch offset is outside the leader's log [start, leo).
    OutOfRange {
        start: u64,
        leo: u64,
    },
}

/// What `DelayedFetch.tryComplete` found ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ready {
    /// The records past the fetch offset reach replica.fetch.min.bytes.
    Bytes,
    /// 2.4–2.5: the HW last sent to this follower is stale.
    HwStale,
}

/// Why a follower's Fetch is answered at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answered {
    /// `textbook`: no long-poll.
    NoLongPoll,
    /// replica.fetch.wait.max.ms is 0.
    NoWait,
    /// There are records to send.
    Data,
    /// replica.fetch.min.bytes is 0.
    MinBytesZero,
    /// 2.4–2.5: the HW this follower last heard is stale.
    StaleHw,
    /// 2.4–2.5: parked, and released at once by the HW this fetch moved (Case H).
    CaseH,
}

/// What released a parked follower fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Released {
    NewData,
    HwMoved,
}

/// How a consumer's fetch is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Served {
    /// Neither the leader nor the consumer's preferred replica.
    NotLeader,
    /// KIP-392: the leader names the preferred read replica (outside the ISR only
    /// before KAFKA-14372).
    Redirect { to: u32, in_isr: bool },
    /// The offset is outside the replica's log [start, leo).
    OutOfRange { start: u64, leo: u64 },
    /// Records below the replica's HW.
    Records,
    /// It waited fetch.max.wait.ms.
    Expired,
    /// Above the HW: `DelayedFetch` Case F answers at once, empty.
    AboveHw,
    /// At the HW with fetch.max.wait.ms 0.
    NoWait,
    /// KIP-320: the consumer's leader epoch is older than the replica's.
    FencedEpoch { leader_epoch: i32 },
    /// KIP-320: newer than the replica's.
    UnknownEpoch { leader_epoch: i32 },
}

/// The truncation rule that cut a log (the record's `rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TruncationRule {
    HighWatermark,
    EpochRequest,
    EpochRequestMultiRound,
    DivergingEpoch,
    OffsetOutOfRange,
}

impl TruncationRule {
    pub fn name(self) -> &'static str {
        match self {
            TruncationRule::HighWatermark => "high-watermark",
            TruncationRule::EpochRequest => "epoch-request",
            TruncationRule::EpochRequestMultiRound => "epoch-request-multi-round",
            TruncationRule::DivergingEpoch => "diverging-epoch",
            TruncationRule::OffsetOutOfRange => "offset-out-of-range",
        }
    }
}

/// Why the controller elects a leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElectionCause {
    /// The partition had no leader and this broker was unfenced (or, in the
    /// ZooKeeper era, came back).
    Unfenced { broker: u32 },
    /// The leader's process is gone: a new incarnation of it registered.
    LeaderShutdown { old: u32 },
    /// The leader's session expired.
    LeaderFenced { old: u32 },
    /// ZooKeeper era: the leader restarted and registered again; leadership moves in a new epoch.
    LeaderRestarted { old: u32 },
}

/// Where the controller found the new leader (`PartitionChangeBuilder.electAnyLeader`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElectedFrom {
    /// An ISR member: a clean election.
    Isr,
    /// 4.1 (KIP-966): the ISR is empty and an eligible leader replica takes over,
    /// cleanly: the HW never moved while the ISR was under min.insync.replicas.
    Elr,
    /// 4.1 (KIP-966): the ISR and the ELR are empty and the last leader comes back
    /// (`canElectLastKnownLeader`): unclean, its log is all there is.
    LastKnownLeader,
    /// unclean.leader.election.enable: any live replica.
    Unclean,
}

impl ElectedFrom {
    /// A clean election keeps every committed record.
    pub fn clean(self) -> bool {
        matches!(self, ElectedFrom::Isr | ElectedFrom::Elr)
    }
}
