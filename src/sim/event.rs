//! What happened, as data. A rule decides and says what happened as typed
//! [`Event`]s; `Sim::emit` applies each one where state changes (the one place
//! it does). The step record (`crate::record`), the narration
//! (`crate::narrate`) and the invariants read the events, never the other way
//! round: nothing here knows how it will be told or drawn.

use super::msg::{AlterPartitionError, KafkaError};
use super::vecmap::BrokerSet;
use crate::scenario::Acks;

pub use super::why::{Answered, ElectedFrom, ElectionCause, HwCause, Ready, Rejection, Released, Served, Session, TruncationRule};

/// What happened in a step, as data. Fields carry the values before and after
/// where a change matters, so that a reader needs nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    // ---- scenario actions and interventions
    Produced {
        producer: usize,
        first_n: u32,
        count: u32,
        leader: Option<u32>,
        msg: Option<u64>,
    },
    Crashed {
        broker: u32,
        unflushed: u64,
        leo: u64,
        kept: u64,
        dropped: usize,
        last_heartbeat: u64,
        fence_at: u64,
    },
    AlreadyDown {
        broker: u32,
    },
    Restarted {
        broker: u32,
        leo: u64,
        hw: u64,
        session: Session,
    },
    AlreadyRunning {
        broker: u32,
    },
    /// A restarted broker that cannot lead an offline partition waits for one that can.
    WaitsForLeader {
        broker: u32,
    },
    LinksCut {
        from: u32,
        to: u32,
        both_ways: bool,
    },
    LinksHealed {
        from: u32,
        to: u32,
        both_ways: bool,
    },
    ConsumerAdded {
        consumer: usize,
    },
    ConsumerExists,
    /// A message reaches a broker that is down.
    ReceiverDown {
        broker: u32,
    },

    // ---- the leader serving Fetches
    FetchRejected {
        leader: u32,
        follower: u32,
        error: KafkaError,
        why: Rejection,
        msg: u64,
    },
    DivergingAnswered {
        leader: u32,
        follower: u32,
        epoch: i32,
        end_offset: u64,
        msg: u64,
    },
    FollowerFetched {
        leader: u32,
        follower: u32,
        previous: Option<u64>,
        fetch_offset: u64,
    },
    FetchAnswered {
        leader: u32,
        follower: u32,
        fetch_offset: u64,
        records: usize,
        hw_before: u64,
        hw_sent: u64,
        hw: u64,
        why: Answered,
        msg: u64,
    },
    FetchParked {
        leader: u32,
        follower: u32,
        hw_before: u64,
        hw: u64,
        wait: u64,
        expire_ms: u64,
    },
    ParkedFetchExpired {
        leader: u32,
        follower: u32,
        fetch_offset: u64,
        records: usize,
        hw: u64,
        msg: u64,
    },
    FollowerFetchReleased {
        leader: u32,
        follower: u32,
        hw: u64,
        why: Released,
    },
    /// Under long-poll an HW move alone does not release a parked follower fetch.
    FollowerFetchStaysParked {
        leader: u32,
        follower: u32,
    },

    // ---- the leader's HW
    LeaderHwMoved {
        leader: u32,
        from: u64,
        to: u64,
        cause: HwCause,
    },
    HwStays {
        leader: u32,
        hw: u64,
        held: bool,
    },

    // ---- produce
    ProduceRefused {
        broker: u32,
        producer: usize,
        error: KafkaError,
        isr: BrokerSet,
        min_isr: u32,
        msg: u64,
    },
    Appended {
        leader: u32,
        producer: usize,
        first_offset: u64,
        count: usize,
        leo: u64,
        epoch: i32,
    },
    /// How the append is answered: acks=0 not at all, acks=1 now (`msg`), acks=all when the HW reaches `required_offset`.
    ProduceAnswer {
        leader: u32,
        producer: usize,
        acks: Acks,
        required_offset: u64,
        msg: Option<u64>,
    },
    ProduceCompleted {
        leader: u32,
        producer: usize,
        required_offset: u64,
        error: Option<KafkaError>,
        msg: u64,
    },
    DelayedProduceExpired {
        leader: u32,
        producer: usize,
        required_offset: u64,
        msg: u64,
    },
    ProduceResponseIgnored {
        producer: usize,
    },
    ProduceAcked {
        producer: usize,
        count: usize,
    },
    ProduceFailed {
        producer: usize,
        error: KafkaError,
    },
    ProduceTimedOut {
        producer: usize,
        count: usize,
    },

    // ---- the ISR
    /// `request`: the AlterPartition sent (2.7+); None when committed at once.
    IsrExpanded {
        leader: u32,
        follower: u32,
        before: BrokerSet,
        after: BrokerSet,
        request: Option<u64>,
    },
    IsrCheckNotLeader {
        broker: u32,
    },
    IsrCheckPending {
        leader: u32,
        period: u64,
    },
    IsrCheckNoChange {
        leader: u32,
        isr: BrokerSet,
    },
    IsrShrunk {
        leader: u32,
        before: BrokerSet,
        after: BrokerSet,
        out: BrokerSet,
        request: Option<u64>,
    },
    AlterPartitionCommitted {
        leader: u32,
        before: BrokerSet,
        after: BrokerSet,
    },
    AlterPartitionAnswered {
        leader: u32,
        error: Option<AlterPartitionError>,
        partition_epoch: u32,
        msg: u64,
    },
    AlterPartitionIgnored {
        broker: u32,
        leader_epoch: i32,
    },
    IsrChangeRefused {
        leader: u32,
        error: AlterPartitionError,
    },
    IsrApplied {
        leader: u32,
        before: BrokerSet,
        after: BrokerSet,
        partition_epoch: u32,
    },

    // ---- the controller and metadata
    SessionExpired {
        broker: u32,
        isr_before: BrokerSet,
        kept_last: bool,
    },
    /// The controller's ISR after a fenced follower left it (the partition epoch moves).
    ControllerIsrShrunk {
        before: BrokerSet,
        after: BrokerSet,
    },
    LeaderElected {
        leader: u32,
        epoch: i32,
        isr: BrokerSet,
        clean: bool,
        cause: ElectionCause,
        from: ElectedFrom,
    },
    /// The ZooKeeper-era controller removed a dead replica from the ISR and wrote a new
    /// leader epoch, the leader unchanged (`ReplicaStateMachine.doRemoveReplicasFromIsr`).
    LeaderEpochBumped {
        leader: u32,
        epoch: i32,
    },
    /// 4.1 (KIP-966): the controller's eligible leader replicas changed.
    ElrChanged {
        before: BrokerSet,
        after: BrokerSet,
    },
    /// 4.1 (KIP-966): the ISR became empty; the controller remembers its last leader
    /// (`maybeUpdateLastKnownLeader`).
    LastKnownLeaderRecorded {
        broker: u32,
    },
    PartitionOffline {
        old_leader: u32,
        epoch: i32,
        isr: BrokerSet,
    },
    MetadataStale {
        broker: u32,
        epoch: i32,
        own_epoch: i32,
    },
    LeaderIsrUpdated {
        broker: u32,
        before: BrokerSet,
        after: BrokerSet,
        partition_epoch: u32,
    },
    BecameLeader {
        broker: u32,
        epoch: i32,
        leo: u64,
        hw_before: u64,
        hw: u64,
        /// It led already: a new epoch from the same leader (the ZooKeeper-era bump).
        again: bool,
    },
    NothingChanges {
        broker: u32,
    },
    BecameFollower {
        broker: u32,
        leader: Option<u32>,
        stepped_down: bool,
    },

    // ---- the follower
    FetchSent {
        follower: u32,
        leader: Option<u32>,
        fetch_offset: u64,
        msg: Option<u64>,
    },
    FetcherNoLeader {
        broker: u32,
    },
    FetchRequestTimedOut {
        follower: u32,
    },
    /// `textbook`: nothing new, so the follower waits before polling again.
    FetcherWaits {
        follower: u32,
        ms: u64,
    },
    FetchResponseIgnored {
        follower: u32,
        leader: u32,
    },
    FetchFailed {
        follower: u32,
        leader: u32,
        error: KafkaError,
    },
    /// Up to 2.0: OFFSET_OUT_OF_RANGE from a leader whose log ends before the
    /// follower's, with unclean election off: the follower's broker exits (a `Crashed` follows).
    Halted {
        broker: u32,
        leader_leo: u64,
        leo: u64,
    },
    StaleFetchResponse {
        follower: u32,
    },
    FollowerAppended {
        follower: u32,
        leader: u32,
        records: usize,
        leo: u64,
        leader_hw: u64,
        hw_before: u64,
        hw: u64,
        log_start: Option<u64>,
    },
    Truncated {
        broker: u32,
        leo_before: u64,
        to: u64,
        rule: TruncationRule,
    },
    LogStartReset {
        broker: u32,
        start: u64,
    },
    EpochQuerySent {
        follower: u32,
        leader: u32,
        epoch: i32,
        msg: u64,
    },
    EpochEndAnswered {
        leader: u32,
        follower: u32,
        epoch: i32,
        answer: Option<(i32, u64)>,
        error: Option<KafkaError>,
        msg: u64,
    },
    EpochEndIgnored {
        follower: u32,
    },
    EpochQueryFailed {
        follower: u32,
        error: KafkaError,
    },

    // ---- consumers
    ConsumerFetchSent {
        consumer: usize,
        broker: u32,
        offset: u64,
        msg: u64,
    },
    ConsumerWaitsForLeader {
        consumer: usize,
    },
    ConsumerFetchAnswered {
        broker: u32,
        consumer: usize,
        leader: bool,
        offset: u64,
        records: usize,
        hw: u64,
        error: Option<KafkaError>,
        why: Served,
        msg: u64,
    },
    ConsumerFetchParked {
        broker: u32,
        consumer: usize,
        leader: bool,
        offset: u64,
        hw: u64,
        wait: u64,
        above: bool,
    },
    ConsumerFetchReleased {
        broker: u32,
        consumer: usize,
    },
    ConsumerResponseIgnored {
        consumer: usize,
    },
    ConsumerBackToLeader {
        consumer: usize,
        from: u32,
    },
    ConsumerOffsetReset {
        consumer: usize,
        from: u32,
        position: u64,
    },
    ConsumerFetchFailed {
        consumer: usize,
        error: KafkaError,
    },
    ConsumerRedirected {
        consumer: usize,
        to: u32,
    },
    ConsumerGotNothing {
        consumer: usize,
        from: u32,
        hw: u64,
    },
    ConsumerReceived {
        consumer: usize,
        from: u32,
        count: u64,
        position: u64,
    },
    ConsumerRetries {
        consumer: usize,
        after_backoff: bool,
    },
}
