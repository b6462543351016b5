//! What each participant holds: brokers (with their leader state while they
//! lead), the controller, producers and consumers. Plain data; the rules that
//! change it are in the role files.

use super::log::{Log, RecordId};
use super::msg::FetchRequest;
use super::pvec::PVec;
use super::scheduler::Key;
use super::vecmap::{VecMap, VecSet};
use crate::scenario::ConsumerSpec;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Leader,
    Follower,
}

/// The leader's record of one follower (`Replica.ReplicaState`).
#[derive(Debug, Clone, Copy)]
pub struct FollowerView {
    /// The fetch offset of its last Fetch; None until it fetches after an election.
    pub leo: Option<u64>,
    pub log_start_offset: u64,
    pub last_fetch_leader_leo: u64,
    pub last_fetch_ms: Option<u64>,
    /// None: never caught up in this leader's term (Kafka's 0, "long ago").
    pub last_caught_up_ms: Option<u64>,
    pub last_sent_hw: u64,
}

#[derive(Debug, Clone)]
pub enum PendingIsr {
    Expand(u32),
    Shrink(Vec<u32>),
}

/// A follower's Fetch waiting in the leader's fetch purgatory (`DelayedFetch`).
#[derive(Debug, Clone)]
pub struct ParkedFetch {
    pub follower: u32,
    pub request: u64,
    pub req: FetchRequest,
    pub expire_ms: u64,
    pub timer: Key,
}

/// An acks=all write waiting for the HW (`DelayedProduce`).
#[derive(Debug, Clone)]
pub struct DelayedProduce {
    pub producer: usize,
    pub request: u64,
    pub ids: Vec<RecordId>,
    pub required_offset: u64,
    pub expire_ms: u64,
    pub timer: Key,
}

/// A consumer's fetch waiting for the serving replica's HW to move.
#[derive(Debug, Clone)]
pub struct ParkedConsumerFetch {
    pub consumer: usize,
    pub request: u64,
    pub offset: u64,
    pub expire_ms: u64,
    pub timer: Key,
}

/// What a broker holds while it leads the partition (`Partition` on the leader).
#[derive(Debug, Clone)]
pub struct LeaderState {
    pub epoch_start_offset: u64,
    /// The committed ISR.
    pub isr: Vec<u32>,
    pub pending: Option<PendingIsr>,
    pub partition_epoch: u32,
    pub followers: VecMap<u32, FollowerView>,
    /// Brokers the leader has learned are fenced (not ISR-eligible).
    pub fenced: VecSet<u32>,
    pub parked_fetches: Vec<ParkedFetch>,
    pub delayed_produces: Vec<DelayedProduce>,
    pub isr_timer: Option<Key>,
}

impl LeaderState {
    /// Whether `id` is in the maximal ISR (without building it).
    pub fn in_maximal_isr(&self, id: u32) -> bool {
        self.isr.contains(&id) || matches!(self.pending, Some(PendingIsr::Expand(e)) if e == id)
    }

    /// The ISR the HW must respect while a change is in flight (`maximalIsr`).
    pub fn maximal_isr(&self) -> Vec<u32> {
        let mut isr = self.isr.clone();
        if let Some(PendingIsr::Expand(id)) = self.pending {
            if !isr.contains(&id) {
                isr.push(id);
                isr.sort_unstable();
            }
        }
        isr
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetcherState {
    /// Not following anyone (a leader, a crashed broker, or no leader known).
    Idle,
    /// A Fetch is in flight.
    Fetching { request: u64, timeout: Key },
    /// Waiting to send the next Fetch (idle poll or backoff).
    Waiting { timer: Key },
    /// An OffsetsForLeaderEpoch request is in flight (0.11–2.7).
    Truncating { request: u64, timeout: Key },
}

#[derive(Debug, Clone)]
pub struct Broker {
    pub id: u32,
    pub alive: bool,
    pub log: Log,
    pub hw: u64,
    /// The leader epoch in which this replica's HW was last set (for the follower-HW invariant).
    pub hw_epoch: i32,
    pub leader_epoch: i32,
    pub leader: Option<u32>,
    pub role: Role,
    pub lead: Option<LeaderState>,
    pub fetcher: FetcherState,
    /// Set after becoming a follower under epoch truncation until the first round completes.
    pub needs_truncation: bool,
    pub parked_consumers: Vec<ParkedConsumerFetch>,
}

#[derive(Debug, Clone)]
pub struct Controller {
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub isr: Vec<u32>,
    pub partition_epoch: u32,
    /// 4.1 (KIP-966): replicas that left the ISR while it was under min.insync.replicas
    /// and may still be elected when the ISR is empty (always empty without ELR).
    pub elr: Vec<u32>,
    /// 4.1 (KIP-966): the last leader, remembered when the ISR became empty.
    pub last_known_elr: Vec<u32>,
    pub fenced: VecSet<u32>,
    pub session_timers: VecMap<u32, Key>,
    /// Each broker's heartbeat phase in 0..interval, drawn from the seed.
    pub heartbeat_phase: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct Producer {
    pub next_n: u32,
    pub acked: PVec<RecordId>,
    pub failed: PVec<RecordId>,
    pub pending: Vec<RecordId>,
    /// Requests in flight or awaiting an answer: request id → (records, timeout timer).
    pub requests: VecMap<u64, (Vec<RecordId>, Key)>,
}

/// Where a consumer's next fetch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsumerFetch {
    /// A fetch to `broker` is in flight (request id) with its timeout.
    InFlight { broker: u32, request: u64, timeout: Key },
    /// Waiting out retry.backoff.ms before fetching again.
    Backoff { timer: Key },
}

#[derive(Debug, Clone)]
pub struct Consumer {
    pub spec: ConsumerSpec,
    pub position: u64,
    pub records_read: u64,
    pub read: PVec<(u64, RecordId)>,
    pub fetch: Option<ConsumerFetch>,
    /// After OFFSET_OUT_OF_RANGE from a follower, fetch from the leader until it redirects.
    pub use_leader: bool,
}
