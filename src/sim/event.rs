//! What happened, as data. A rule decides and says what happened as typed
//! [`Event`]s; `Sim::emit` applies each one where state changes (the one place
//! it does). The step record (`crate::record`), the narration
//! (`crate::narrate`) and the invariants read the events, never the other way
//! round: nothing here knows how it will be told or drawn.

use super::isr_list::IsrList;
use super::msg::{AlterPartitionError, KafkaError, Node};
use super::vecmap::BrokerSet;
use crate::scenario::{Acks, Channel};

pub use super::why::{Answered, ElectedFrom, ElectionCause, HwCause, Ready, Rejection, Released, Served, TruncationRule};

/// What happened in a step, as data. Fields carry the values before and after
/// where a change matters, so that a reader needs nothing else.
// One variant a line where it fits: rustfmt would expand every variant of the
// enum as soon as one needs several lines.
#[rustfmt::skip]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    // ---- scenario actions and interventions
    /// The records join the producer's accumulator as one batch.
    Produced { producer: usize, first_n: u32, count: u32 },
    /// `silent`: The host vanished: no connection resets.
    /// `resets`: Peers told of the reset (waiting on it).
    /// `last_heartbeat`: Its last heartbeat's arrival, if after the start.
    /// `deadline`: When its session expires at the controller.
    Crashed {
        broker: u32,
        unflushed: u64,
        leo: u64,
        kept: u64,
        dropped: usize,
        silent: bool,
        resets: usize,
        last_heartbeat: Option<u64>,
        deadline: u64,
    },
    AlreadyDown { broker: u32 },
    /// A new incarnation starts from its flushed log and its HW checkpoint.
    Restarted { broker: u32, leo: u64, hw: u64, hw_before: u64, incarnation: u32 },
    AlreadyRunning { broker: u32 },
    /// `channel`: only that connection of a broker to the controller.
    LinksCut { from: Node, to: Node, both_ways: bool, channel: Option<Channel> },
    LinksHealed { from: Node, to: Node, both_ways: bool, channel: Option<Channel> },
    /// A cut or heal names a consumer that has not joined yet.
    LinkEndpointMissing,
    /// Messages TCP held in the healed link go out at their next retransmission.
    /// `handshakes` of them were connection attempts (SYNs), the rest data; `late` more
    /// wait on an attempt whose next SYN comes after its limit (`connect.rs`);
    /// `orphans_gone`: requests of closed connections whose orphan gave up before its next
    /// retransmission (`connect::orphan_gives_up_at`).
    HeldReleased { count: usize, handshakes: usize, late: usize, orphans_gone: usize },
    /// A request whose client had closed its connection arrives all the same, sent by the
    /// kernel's orphaned socket (`connect::drop_unsent_on`); `sent_ms`: its first send.
    OrphanArrived { client: Node, broker: u32, sent_ms: u64 },
    ConsumerAdded { consumer: usize },
    ConsumerExists,
    /// A message reaches a broker that is down.
    ReceiverDown { broker: u32 },

    // ---- the leader serving Fetches
    FetchRejected { leader: u32, follower: u32, error: KafkaError, why: Rejection, msg: u64 },
    DivergingAnswered { leader: u32, follower: u32, epoch: i32, end_offset: u64, msg: u64 },
    FollowerFetched { leader: u32, follower: u32, previous: Option<u64>, fetch_offset: u64 },
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
    FetchParked { leader: u32, follower: u32, hw_before: u64, hw: u64, wait: u64, expire_ms: u64 },
    ParkedFetchExpired { leader: u32, follower: u32, fetch_offset: u64, records: usize, hw: u64, msg: u64 },
    FollowerFetchReleased { leader: u32, follower: u32, hw: u64, why: Released },
    /// Under long-poll an HW move alone does not release a parked follower fetch.
    FollowerFetchStaysParked { leader: u32, follower: u32 },

    // ---- the leader's HW
    LeaderHwMoved { leader: u32, from: u64, to: u64, cause: HwCause },
    HwStays { leader: u32, hw: u64, held: bool },

    // ---- produce
    /// `named_leader`: the leader the answer names (KIP-951, `current_leader_named`);
    /// `closed`: an acks=0 write, refused by closing the connection (`msg` is the reset).
    ProduceRefused {
        broker: u32,
        producer: usize,
        error: KafkaError,
        isr: BrokerSet,
        min_isr: u32,
        named_leader: Option<u32>,
        closed: bool,
        msg: u64,
    },
    /// `again`: Records the log already has (a retry without idempotence): duplicates.
    Appended { leader: u32, producer: usize, first_offset: u64, count: usize, leo: u64, epoch: i32, again: bool },
    /// An idempotent retry of records already in the log: not appended again.
    DuplicateBatch { leader: u32, producer: usize, first_n: u32, count: usize, last_offset: u64 },
    /// How the append is answered: acks=0 not at all, acks=1 now (`msg`), acks=all when the HW reaches `required_offset`.
    ProduceAnswer { leader: u32, producer: usize, acks: Acks, required_offset: u64, msg: Option<u64> },
    ProduceCompleted { leader: u32, producer: usize, required_offset: u64, error: Option<KafkaError>, msg: u64 },
    DelayedProduceExpired { leader: u32, producer: usize, required_offset: u64, msg: u64 },
    ProduceResponseIgnored { producer: usize },
    /// `duplicate`: Answered from the leader's producer state (an idempotent retry).
    ProduceAcked { producer: usize, count: usize, duplicate: bool },
    /// The producer gives the batch up (not retriable, or out of retries); an
    /// idempotent producer bumps its epoch.
    ProduceFailed { producer: usize, error: KafkaError, count: usize, bumped: bool },
    /// A request timed out: the connection to `broker` is closed; `requests` fail with it.
    ProduceTimedOut { producer: usize, broker: u32, requests: usize },
    /// The sender sends a batch (again, if `retry`).
    ProduceSent { producer: usize, broker: u32, first_n: u32, count: usize, retry: bool, msg: u64 },
    /// No leader known: the batch waits for metadata.
    ProducerAwaitsLeader { producer: usize },
    /// A retriable error: the batch goes back to the accumulator for `backoff` ms.
    ProduceWillRetry { producer: usize, error: KafkaError, count: usize, attempts: u32, backoff: u64 },
    /// delivery.timeout.ms passed: the batch fails (its last error, or a timeout).
    ProduceExpired { producer: usize, count: usize, error: KafkaError },
    ProducerWakes { producer: usize },
    /// A broker's kernel reset the client's connection: its requests on it fail.
    /// `refused`: a new connection to a killed broker was refused, so the requests were
    /// never sent (they do not use up `retries`).
    ConnectionReset { client: Node, broker: u32, requests: usize, refused: bool },
    /// A connection attempt to `broker` got no answer for `after_ms` and was given up
    /// (`connect.rs`): by the client's setup timeout (KIP-601), or `by_kernel` before 2.7.
    /// `failures`: attempts given up in a row before this one.
    ConnectionAttemptGivenUp { client: Node, broker: u32, after_ms: u64, failures: u8, by_kernel: bool },
    /// A client asks a broker for metadata.
    MetadataRequested { client: Node, broker: u32, msg: u64 },
    MetadataAnswered { broker: u32, client: Node, leader: Option<u32>, leader_epoch: i32, msg: u64 },
    MetadataResponseIgnored { client: Node },
    /// `stale`: Older than what the client knows: ignored (KIP-320).
    MetadataUpdated { client: Node, from: u32, leader: Option<u32>, leader_epoch: i32, changed: bool, stale: bool },
    MetadataTimedOut { client: Node, broker: u32 },

    // ---- the ISR
    /// `request`: the AlterPartition sent (2.7+); None when committed at once.
    IsrExpanded { leader: u32, follower: u32, before: IsrList, after: IsrList, request: Option<u64> },
    IsrCheckNotLeader { broker: u32 },
    /// The ZooKeeper era: the leader's conditional ISR write failed because the partition
    /// state znode changed since it last heard (`cached` zkVersion, now `current`): the
    /// ISR stays as it was (`Partition.updateIsr`, "Cached zkVersion not equal to that in
    /// zookeeper, skip updating ISR"). `follower`: the one it tried to add, if an expansion.
    IsrWriteConflict { leader: u32, follower: Option<u32>, cached: u32, current: u32 },
    IsrCheckPending { leader: u32, period: u64 },
    IsrCheckNoChange { leader: u32, isr: BrokerSet },
    IsrShrunk { leader: u32, before: IsrList, after: IsrList, out: BrokerSet, request: Option<u64> },
    AlterPartitionCommitted { leader: u32, before: IsrList, after: IsrList },
    AlterPartitionAnswered { leader: u32, error: Option<AlterPartitionError>, partition_epoch: u32, msg: u64 },
    /// KIP-903 (3.5+): the AlterPartition names `broker` with broker epoch `named`, but it is
    /// registered with `registered` (a previous incarnation's fetch): INELIGIBLE_REPLICA.
    StaleBrokerEpochInIsr { leader: u32, broker: u32, named: u64, registered: u64 },
    AlterPartitionIgnored { broker: u32, leader_epoch: i32 },
    /// The answer no longer fits the leader's partition state (`Partition.submitAlterPartition`'s
    /// callback): `state_changed`, the state it proposed was replaced since (metadata committed an
    /// ISR, a refusal reverted it, a newer proposal is in flight); otherwise its partition epoch
    /// `answered` is older than the one the leader `held` (`handleAlterPartitionUpdate`).
    AlterPartitionAnswerStale { leader: u32, state_changed: bool, answered: u32, held: u32 },
    /// `added`: the follower a refused expansion proposed (None: a shrink).
    IsrChangeRefused { leader: u32, error: AlterPartitionError, added: Option<u32> },
    IsrApplied { leader: u32, before: IsrList, after: IsrList, partition_epoch: u32 },

    // ---- the controller and metadata
    /// The stale-broker check fences a broker whose session expired at `deadline`.
    SessionExpired { broker: u32, isr_before: BrokerSet, kept_last: bool, deadline: u64 },
    /// The stale-broker check found nobody to fence (a heartbeat came in time).
    FenceCheckFindsNone,
    /// The controller refuses a new incarnation while the old one's session lasts.
    RegistrationRefused { broker: u32, session_deadline: u64, msg: u64 },
    /// The previous incarnation leaves the ISR (and leadership) as in an unclean shutdown.
    PreviousIncarnationRemoved { broker: u32, isr_before: BrokerSet },
    /// A new incarnation is registered, fenced, with a new broker epoch and session.
    /// `fenced`: KRaft registers it fenced; the ZooKeeper era lets it back at once.
    /// `expired_unfenced`: the previous incarnation's session deadline, when it had run out
    /// but no stale-broker check had fenced it yet (this registration removes it).
    BrokerRegistered { broker: u32, broker_epoch: u64, incarnation: u32, session_deadline: u64, fenced: bool, expired_unfenced: Option<u64> },
    /// `unfence`: Fenced and caught up: unfenced now.
    HeartbeatReceived { broker: u32, session_deadline: u64, unfence: bool },
    HeartbeatRejected { broker: u32, msg: u64 },
    AlterPartitionResent { leader: u32, msg: u64 },
    // ---- ZooKeeper (the ZooKeeper era, zookeeper.rs)
    /// A ping reached ZooKeeper: the session lasts until `deadline`.
    ZkSessionRenewed { broker: u32, deadline: u64 },
    /// A ping of a session ZooKeeper has expired: it says so (`msg`).
    ZkPingOfExpiredSession { broker: u32, msg: u64 },
    /// A new process's session created /brokers/ids/N; `replaced`: the previous process's
    /// session was still live until then (only with `restart_inside_zookeeper_session_fails` off).
    ZkSessionCreated { broker: u32, incarnation: u32, deadline: u64, replaced: Option<u64> },
    /// A new process's create of /brokers/ids/N found the node still held by a previous
    /// process's live session (`owner`, until `until`): ZooKeeper answers NodeExists (`msg`).
    ZkNodeExists { broker: u32, incarnation: u32, owner: u32, until: u64, msg: u64 },
    /// The new process's registration failed with NodeExists: its startup fails and the
    /// process exits (a `Crashed` follows); `until`: when the old session expires.
    StartupFailed { broker: u32, incarnation: u32, until: u64 },
    /// ZooKeeper expired the session (its last ping + the timeout, `deadline`) and deleted the node.
    ZkSessionExpired { broker: u32, deadline: u64 },
    /// The controller's watch on /brokers/ids fired (`msg`), for a node `gone` or created
    /// (`answer`: ZooKeeper's answer to the create).
    ZkWatchFired { broker: u32, gone: bool, answer: Option<u64>, msg: u64 },
    /// The broker's client hears its session expired: it will register anew.
    ZkSessionLost { broker: u32 },
    /// ZooKeeper created the broker's node: it is registered.
    ZkRegistered { broker: u32, incarnation: u32 },
    /// An answer from ZooKeeper about a session the broker no longer has.
    ZkAnswerIgnored { broker: u32 },
    /// A watch about what the controller already knows.
    ZkWatchStale { broker: u32 },
    /// The controller read /brokers/ids and found the broker's id with a node a new
    /// session (`incarnation`) created while it still held the old one live: a bounce.
    /// `seen` (2.2+, KIP-380): by the node's newer czxid, handled as a failure then a
    /// startup; otherwise the same id in both sets, and nothing happens.
    ZkBrokerBounced { broker: u32, incarnation: u32, seen: bool },
    // ---- a broker's lifecycle
    RegistrationSent { broker: u32, incarnation: u32, msg: u64 },
    HeartbeatSent { broker: u32, msg: u64 },
    RegistrationResponseIgnored { broker: u32 },
    /// Refused (DUPLICATE_BROKER_REGISTRATION): it tries again at its next heartbeat.
    RegistrationRetries { broker: u32, at: u64 },
    RegistrationAccepted { broker: u32, broker_epoch: u64 },
    HeartbeatResponseIgnored { broker: u32 },
    /// `running`: Unfenced now: RECOVERY → RUNNING.
    /// `caught_up`: The metadata offset it caught up to, if the answer carried metadata.
    /// A heartbeat (or registration) got no answer in time: given up, the next at `next_at`.
    HeartbeatTimedOut { broker: u32, next_at: u64 },
    /// KRaft metadata fetch: a Fetch sent across a cut or after a timeout.
    MetadataFetchSent { broker: u32, msg: u64 },
    /// The controller answers a Fetch behind its log at once.
    MetadataFetchAnswered { broker: u32, msg: u64, offset: u64 },
    /// A caught-up Fetch waits at the controller for new records.
    MetadataFetchParked { broker: u32 },
    /// A parked Fetch's wait ends: answered with no records.
    MetadataFetchExpired { broker: u32, msg: u64 },
    /// An answer without records reaches the broker.
    MetadataFetchEmpty { broker: u32 },
    /// A Fetch unanswered for controller.quorum.request.timeout.ms is given up (sent at `sent`).
    MetadataFetchTimedOut { broker: u32, sent: u64 },
    HeartbeatAnswered { broker: u32, fenced: bool, running: bool, caught_up: Option<u64> },
    /// A new KRaft incarnation's image names it the leader before it is registered: it
    /// leads in its own view and serves nothing (`acts_on_image_before_registration`).
    LeadsBeforeRegistration { broker: u32, epoch: i32 },
    /// The controller's ISR after a fenced follower left it (the partition epoch moves).
    ControllerIsrShrunk { before: BrokerSet, after: BrokerSet },
    LeaderElected { leader: u32, epoch: i32, isr: BrokerSet, clean: bool, cause: ElectionCause, from: ElectedFrom },
    /// The ZooKeeper-era controller removed a dead replica from the ISR and wrote a new
    /// leader epoch, the leader unchanged (`ReplicaStateMachine.doRemoveReplicasFromIsr`).
    LeaderEpochBumped { leader: u32, epoch: i32 },
    /// 4.1 (KIP-966): the controller's eligible leader replicas changed.
    ElrChanged { before: BrokerSet, after: BrokerSet },
    /// 4.1 (KIP-966): the ISR became empty; the controller remembers its last leader
    /// (`maybeUpdateLastKnownLeader`).
    LastKnownLeaderRecorded { broker: u32 },
    PartitionOffline { old_leader: u32, epoch: i32, isr: BrokerSet },
    MetadataStale { broker: u32, epoch: i32, own_epoch: i32 },
    LeaderIsrUpdated { broker: u32, before: IsrList, after: IsrList, partition_epoch: u32 },
    /// `Partition.makeLeader` (3.3+): metadata older than the partition epoch the leader holds
    /// (it learned a newer one from an AlterPartition answer) is skipped.
    LeaderStateNewer { broker: u32, partition_epoch: u32, held: u32 },
    /// `again`: it led already: a new epoch from the same leader (the ZooKeeper-era bump).
    /// `prev`: the broker's `Partition` object before (`Broker::kafka_partition`): its leader epoch and leader.
    BecameLeader { broker: u32, epoch: i32, leo: u64, hw_before: u64, hw: u64, again: bool, prev: (i32, Option<u32>) },
    NothingChanges { broker: u32 },
    BecameFollower { broker: u32, leader: Option<u32>, stepped_down: bool, prev: (i32, Option<u32>) },

    // ---- the follower
    FetchSent { follower: u32, leader: Option<u32>, fetch_offset: u64, msg: Option<u64> },
    FetcherNoLeader { broker: u32 },
    FetchRequestTimedOut { follower: u32 },
    /// The leader's kernel reset the follower's connection: its Fetch failed.
    FollowerConnectionReset { follower: u32, leader: u32 },
    /// A reset for a connection nothing waited on.
    ResetIgnored { node: Node, from: u32 },
    /// `textbook`: nothing new, so the follower waits before polling again.
    FetcherWaits { follower: u32, ms: u64 },
    FetchResponseIgnored { follower: u32, leader: u32 },
    FetchFailed { follower: u32, leader: u32, error: KafkaError },
    /// Up to 2.0: OFFSET_OUT_OF_RANGE from a leader whose log ends before the
    /// follower's, with unclean election off: the follower's broker exits (a `Crashed` follows).
    Halted { broker: u32, leader_leo: u64, leo: u64 },
    StaleFetchResponse { follower: u32 },
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
    Truncated { broker: u32, leo_before: u64, to: u64, rule: TruncationRule },
    LogStartReset { broker: u32, start: u64 },
    EpochQuerySent { follower: u32, leader: u32, epoch: i32, msg: u64 },
    /// The follower's next OffsetsForLeaderEpoch asks about the epoch it just asked about,
    /// with nothing truncated: the rounds repeat for ever (KAFKA-10706). Only the first.
    EpochQueryLoops { follower: u32, epoch: i32 },
    EpochEndAnswered { leader: u32, requester: Node, epoch: i32, answer: Option<(i32, u64)>, error: Option<KafkaError>, msg: u64 },
    EpochEndIgnored { follower: u32 },
    EpochQueryFailed { follower: u32, error: KafkaError },

    // ---- consumers
    ConsumerFetchSent { consumer: usize, broker: u32, offset: u64, msg: u64 },
    ConsumerWaitsForLeader { consumer: usize },
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
    ConsumerFetchParked { broker: u32, consumer: usize, leader: bool, offset: u64, hw: u64, wait: u64, above: bool, redirect: Option<u32> },
    ConsumerFetchReleased { broker: u32, consumer: usize },
    ConsumerResponseIgnored { consumer: usize },
    ConsumerBackToLeader { consumer: usize, from: u32 },
    ConsumerOffsetReset { consumer: usize, from: u32, position: u64 },
    ConsumerFetchFailed { consumer: usize, error: KafkaError },
    ConsumerRedirected { consumer: usize, to: u32 },
    ConsumerGotNothing { consumer: usize, from: u32, hw: u64 },
    ConsumerReceived { consumer: usize, from: u32, count: u64, position: u64 },
    /// `unsent`: the request timed out waiting on its connection, which stays.
    ConsumerRetries { consumer: usize, after_backoff: bool, unsent: bool },
    /// KIP-320: the consumer asks the leader where its position's epoch ends.
    ConsumerValidates { consumer: usize, broker: u32, epoch: i32, msg: u64 },
    ConsumerValidated { consumer: usize, position: u64 },
    /// The epoch ends below the position: the log was truncated under the consumer.
    /// `stopped`: auto.offset.reset=none: the consumer stops (LogTruncationException).
    ConsumerTruncationDetected { consumer: usize, end: u64, position: u64, stopped: bool },
    /// OFFSET_OUT_OF_RANGE with auto.offset.reset=none.
    ConsumerStopped { consumer: usize, error: KafkaError },
}
