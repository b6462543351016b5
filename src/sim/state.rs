//! What each participant holds: brokers (with their leader state while they
//! lead), the controller, producers and consumers. Plain data; the rules that
//! change it are in the role files.

use super::log::{Log, RecordId};
use super::msg::{FetchRequest, KafkaError};
use super::pvec::PVec;
use super::scheduler::Key;
use super::shared::Part;
use super::vecmap::{VecMap, VecSet};
use crate::scenario::{Behavior, BrokerLiveness, ConsumerSettings, ConsumerSpec, ProducerSettings};

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
    /// The broker epoch its last Fetch carried (`ReplicaState.brokerEpoch`, 3.5, KIP-903).
    pub broker_epoch: Option<u64>,
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
    /// An idempotent retry answered from the producer state (nothing appended).
    pub duplicate: bool,
}

/// A consumer's fetch waiting for the serving replica's HW to move.
#[derive(Debug, Clone)]
pub struct ParkedConsumerFetch {
    pub consumer: usize,
    pub request: u64,
    pub offset: u64,
    pub expire_ms: u64,
    pub timer: Key,
    /// Before 3.2 (KAFKA-13767): the leader's answer naming this replica, the consumer's
    /// preferred one, waiting with no records.
    pub redirect: Option<u32>,
}

/// What a broker holds while it leads the partition (`Partition` on the leader).
#[derive(Debug, Clone)]
pub struct LeaderState {
    pub epoch_start_offset: u64,
    /// The committed ISR, in Kafka's order (`isr_list::IsrList`).
    pub isr: Vec<u32>,
    /// Whether the leader's Scala set is a `HashSet` (`isr_list::Members`), which orders it.
    pub isr_hashed: Option<super::isr_list::Members>,
    pub pending: Option<PendingIsr>,
    pub partition_epoch: u32,
    pub followers: VecMap<u32, FollowerView>,
    /// Brokers the leader has learned are fenced (not ISR-eligible).
    pub fenced: VecSet<u32>,
    pub parked_fetches: Vec<ParkedFetch>,
    pub delayed_produces: Vec<DelayedProduce>,
    pub isr_timer: Option<Key>,
    /// The AlterPartition in flight (request id) and the timer that resends it.
    pub alter: Option<(u64, Key)>,
    /// The broker epoch it names for each member of the proposed ISR (3.5+, KIP-903): fixed
    /// when the proposal is made, a resend carries the same (`AlterPartitionManager` re-queues
    /// the item it built).
    pub alter_broker_epochs: Vec<(u32, Option<u64>)>,
}

impl LeaderState {
    /// The committed ISR as the leader's Scala set.
    pub fn isr_set(&self) -> super::isr_list::IsrList {
        super::isr_list::IsrList::leader_set(&self.isr, self.isr_hashed)
    }

    /// Whether `id` is in the maximal ISR (without building it).
    #[inline]
    pub fn in_maximal_isr(&self, id: u32) -> bool {
        self.isr.contains(&id) || matches!(self.pending, Some(PendingIsr::Expand(e)) if e == id)
    }

    /// The maximal ISR's members as bits (bit `id` for broker `id`; ids are below
    /// `MAX_REPLICAS`): one pass over the ISR where every member of another list is
    /// asked about (the verdict strip reads it after every step).
    pub fn maximal_isr_bits(&self) -> u64 {
        let pending = match self.pending {
            Some(PendingIsr::Expand(e)) => bit(e),
            _ => 0,
        };
        self.isr.iter().fold(pending, |bits, &id| bits | bit(id))
    }

    /// How many members the maximal ISR has (`maximal_isr().len()`, without building it).
    pub fn maximal_isr_len(&self) -> usize {
        self.isr.len() + matches!(self.pending, Some(PendingIsr::Expand(e)) if !self.isr.contains(&e)) as usize
    }

    /// The ISR the HW must respect while a change is in flight (`maximalIsr`: the
    /// committed ISR and the member a pending expansion appends, in Kafka's order
    /// (of `Set[Int]`, as every version with a maximal ISR keeps it).
    pub fn maximal_isr(&self) -> Vec<u32> {
        match self.pending {
            Some(PendingIsr::Expand(id)) => self.isr_set().appended(id, super::isr_list::Members::Ids).to_kafka_vec(),
            _ => self.isr.clone(),
        }
    }
}

/// Broker `id`'s bit in a set of brokers held as bits (`LeaderState::maximal_isr_bits`).
#[inline]
pub fn bit(id: u32) -> u64 {
    1u64.checked_shl(id).unwrap_or(0)
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

/// A broker process's state as KRaft names it (`BrokerState`); a dead one is not alive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    /// Registering with the controller (refused while its previous incarnation's session lasts).
    Starting,
    /// Registered and caught up with the metadata, still fenced: it may fetch, not join the ISR or lead.
    Recovery,
    /// Unfenced.
    Running,
}

impl Lifecycle {
    pub fn name(self) -> &'static str {
        match self {
            Lifecycle::Starting => "starting",
            Lifecycle::Recovery => "recovery",
            Lifecycle::Running => "running",
        }
    }
}

/// What a broker remembers of one idempotent producer (`ProducerStateEntry`): its
/// epoch and the sequence (record `n`) of its last record in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerEntry {
    pub epoch: u16,
    pub last_n: u32,
}

#[derive(Debug, Clone)]
pub struct Broker {
    pub id: u32,
    pub alive: bool,
    /// Down without a word (`crash.silent`): no connection resets.
    pub silently_down: bool,
    pub lifecycle: Lifecycle,
    /// Counts this broker's processes (a restart is a new incarnation).
    pub incarnation: u32,
    /// The broker epoch the controller gave this incarnation; None until it registers.
    pub broker_epoch: Option<u64>,
    /// The controller's metadata offset this broker has applied.
    pub metadata_offset: u64,
    /// The next heartbeat (or registration attempt).
    pub heartbeat_timer: Option<Key>,
    /// The heartbeat (or registration) waiting for its answer: (message, the timer that
    /// gives it up). KRaft only.
    pub heartbeat_rpc: Option<(u64, Key)>,
    /// Heartbeats (or registrations) given up in a row (`BrokerLifecycleManager.failedAttempts`).
    pub heartbeat_failures: u32,
    /// The phase of its heartbeat grid in 0..broker.heartbeat.interval.ms (drawn from the
    /// seed; moved where a heartbeat was given up).
    pub heartbeat_phase: u64,
    /// The broker's metadata log fetch (KRaft only).
    pub metadata_fetch: MetadataFetch,
    /// The HW as last written to `replication-offset-checkpoint`: (when, HW).
    pub hw_checkpoint: (u64, u64),
    /// The checkpoint task runs at this phase plus multiples of the interval.
    pub hw_checkpoint_phase: u64,
    /// Idempotent producers' state, built from the log (leader and follower appends).
    /// Parts in allocations of their own (`Part`): copying the broker shares them.
    pub producer_state: Part<VecMap<u16, ProducerEntry>>,
    pub log: Part<Log>,
    pub hw: u64,
    /// The leader epoch in which this replica's HW was last set (for the follower-HW invariant).
    pub hw_epoch: i32,
    pub leader_epoch: i32,
    pub leader: Option<u32>,
    pub role: Role,
    pub lead: Option<Part<LeaderState>>,
    pub fetcher: FetcherState,
    /// Set after becoming a follower under epoch truncation until the first round completes.
    pub needs_truncation: bool,
    pub parked_consumers: Vec<ParkedConsumerFetch>,
    /// The partition epoch of the partition state this broker last applied from
    /// metadata (its metadata image); None after a restart, whose first load applies
    /// everything. A later delta applies the partition only when it changed
    /// (`Sim::local_changes_include`).
    pub image_partition_epoch: Option<u32>,
    /// What Kafka's `Partition` object in this process holds for the broker log's start
    /// lines (`kafka_log`): its leader epoch and leader (`leaderEpoch`,
    /// `leaderReplicaIdOpt`). A new process starts from the metadata image it loads
    /// (KRaft) or knows nothing (-1, None). Only the broker log reads it.
    pub kafka_partition: (i32, Option<u32>),
    /// Records this replica's log lost (a truncation, unflushed records at a crash),
    /// newest last, at most `GHOSTS`: what the page draws as ghosts where they were.
    pub ghosts: Vec<Ghost>,
    /// This follower's OffsetsForLeaderEpoch rounds ask about the same epoch again and
    /// again (KAFKA-10706): set at the first repeat, so that it is told once, and cleared
    /// when a round completes. Only the narration reads it (`Event::EpochQueryLoops`).
    pub epoch_query_loop: bool,
}

impl Broker {
    /// What a broker that does not lead answers a request only the leader serves (a
    /// produce, a follower's Fetch or OffsetsForLeaderEpoch, a consumer's fetch).
    /// `ReplicaManager.getPartitionOrException` (2.1–2.8; `getPartitionOrError` from 2.4)
    /// and `getLeaderReplicaIfLocal` / `appendToLocalLog` (0.10.2, 0.11): a broker that
    /// hosts the partition, or knows the topic from its metadata cache, answers
    /// NOT_LEADER_OR_FOLLOWER (NOT_LEADER_FOR_PARTITION before 2.6); one with neither
    /// answers UNKNOWN_TOPIC_OR_PARTITION. In the ZooKeeper era that is a restarted
    /// process until its first LeaderAndIsr (the controller's UpdateMetadata comes with
    /// it, `onBrokerStartup`): it starts with no `Partition` and an empty metadata cache,
    /// and a missed bounce (before 2.2, `controller_detects_bounced_brokers`) leaves it so.
    /// Read at 0.10.2.2, 2.1.1, 2.4.1 and 2.8.2. A KRaft broker loads its metadata image
    /// before it opens its listeners, so it always knows the partition.
    pub(crate) fn not_leader_error(&self, behavior: &Behavior) -> KafkaError {
        let no_partition_state = self.image_partition_epoch.is_none() && behavior.broker_liveness == BrokerLiveness::ZookeeperSession;
        if no_partition_state {
            KafkaError::UnknownTopicOrPartition
        } else {
            KafkaError::NotLeaderOrFollower
        }
    }
}

/// A KRaft broker's fetch of the metadata log from the controller (its raft client, an
/// observer: `KafkaRaftClient.pollFollowerAsObserver`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataFetch {
    /// Connected and long-polling: a Fetch waits at the controller, answered at once when
    /// the metadata changes, otherwise empty after `MAX_FETCH_WAIT_MS` and sent again at
    /// once. These idle rounds are not steps: they run on a grid from `since`.
    Polling { since: u64 },
    /// A Fetch sent at `sent` and not answered yet: `msg`, or None for the idle round's
    /// Fetch that a cut caught; `timer` gives it up at controller.quorum.request.timeout.ms.
    Waiting { msg: Option<u64>, sent: u64, timer: Key },
    /// A Fetch was given up: the next goes out after controller.quorum.retry.backoff.ms.
    Backoff { timer: Key },
    /// Not fetching (down, or the ZooKeeper era).
    Off,
}

/// A broker as the controller has it registered (`BrokerRegistration` and its heartbeat tracker entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registration {
    pub incarnation: u32,
    pub broker_epoch: u64,
    pub fenced: bool,
    /// Its last heartbeat's arrival + broker.session.timeout.ms: expired once the clock
    /// passes it. None once the stale-broker check removed it (its session is over).
    pub session_deadline: Option<u64>,
    /// The metadata offset of its registration: caught up once it has applied that.
    pub registered_at: u64,
}

/// A record a replica's log no longer holds: where it was and the step that removed it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ghost {
    pub offset: u64,
    pub epoch: i32,
    pub id: RecordId,
    pub step: u64,
}

/// Ghosts kept per replica (the oldest go first).
pub const GHOSTS: usize = 64;

/// The controller's lists are each a `Part` (an allocation of its own, shared by the
/// controller's copies): most steps that write the controller write none of them (a
/// parked metadata Fetch, a fence check's timer), and a copy then copies one small
/// struct rather than every list (docs/explorer.md, "The controller's lists shared").
#[derive(Debug, Clone)]
pub struct Controller {
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    /// In Kafka's order (`isr_list::IsrList`): the list it keeps and sends.
    pub isr: Part<Vec<u32>>,
    pub partition_epoch: u32,
    /// 4.1 (KIP-966): replicas that left the ISR while it was under min.insync.replicas
    /// and may still be elected when the ISR is empty (always empty without ELR).
    pub elr: Part<Vec<u32>>,
    /// 4.1 (KIP-966): the last leader, remembered when the ISR became empty.
    pub last_known_elr: Part<Vec<u32>>,
    pub fenced: Part<VecSet<u32>>,
    pub registrations: Part<Vec<Registration>>,
    /// Counts the controller's changes (its metadata log's end).
    pub metadata_offset: u64,
    /// A time at which the periodic stale-broker check runs; it runs every
    /// broker.session.timeout.ms / 8 from there (until a fence moves it 10 ms on).
    pub check_anchor: u64,
    /// The check that will fence the next stale broker, if one is due: (timer, when).
    /// In the ZooKeeper era, ZooKeeper's next session expiry.
    pub check: Option<(Key, u64)>,
    /// ZooKeeper's sessions, one per broker (the ZooKeeper era; ZooKeeper is its own
    /// node on the network, `zookeeper.rs`, its state kept here beside the controller's).
    pub zookeeper: Part<Vec<ZkSession>>,
    /// Each broker's metadata Fetch waiting at the controller for new records, if one
    /// arrived as a message: (request, the timer that answers it empty).
    pub parked_fetches: Vec<Option<(u64, Key)>>,
}

/// What a client knows of the partition (`Metadata`): the leader and its epoch, and
/// its refreshes (asked of a broker, whose own metadata may be stale).
#[derive(Debug, Clone)]
pub struct ClientMeta {
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    /// A refresh is wanted (an error, a broken connection, no leader known).
    pub wanted: bool,
    /// A MetadataRequest in flight: (request id, broker, timeout timer).
    pub in_flight: Option<(u64, u32, Key)>,
    /// When the last refresh was sent, then when it ended (answered or failed: Kafka's
    /// `lastRefreshMs`, from which the next one waits its backoff); and how many in a row
    /// failed or found nothing new.
    pub last_sent_ms: Option<u64>,
    pub attempts: u32,
    pub updated_ms: u64,
    /// Brokers a connection failed to, and until when the client leaves them alone.
    pub blackout: VecMap<u32, u64>,
}

impl ClientMeta {
    pub fn new() -> ClientMeta {
        ClientMeta {
            leader: Some(0),
            leader_epoch: 0,
            wanted: false,
            in_flight: None,
            last_sent_ms: None,
            attempts: 0,
            updated_ms: 0,
            blackout: VecMap::new(),
        }
    }
}

impl Default for ClientMeta {
    fn default() -> Self {
        ClientMeta::new()
    }
}

/// One produce's records as the producer's accumulator keeps them until they are
/// acknowledged or fail (`ProducerBatch`).
#[derive(Debug, Clone)]
pub struct Batch {
    pub ids: Vec<RecordId>,
    pub created_ms: u64,
    /// Sends so far.
    pub attempts: u32,
    /// Not before this (retry.backoff.ms, growing to retry.backoff.max.ms).
    pub retry_at: u64,
    /// The request carrying it, while one is in flight.
    pub request: Option<u64>,
    /// The producer epoch it was sent with (idempotence).
    pub epoch: u16,
    /// The leader it last went to, and that leader's epoch: a retry to a new leader skips the backoff.
    pub sent_to: Option<(u32, i32)>,
    /// The last error, as the producer would report it when it gives up.
    pub last_error: Option<KafkaError>,
    /// When a request that carried it failed and it went back to the accumulator
    /// (`ProducerBatch.reenqueued`, Kafka's `lastAttemptMs` while `inRetry`); None while it
    /// has never been sent (a refused connection sends nothing).
    pub reenqueued_ms: Option<u64>,
    /// Why these records may already be in the log when they are sent again: the last
    /// try answered after its append (NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT)
    /// or not answered at all (NETWORK_EXCEPTION: a timeout or a reset). Read only by the
    /// narration of a duplicate (`retry_cause`), so the explorer's fingerprint leaves it out.
    pub unsure: Option<KafkaError>,
}

/// A produce request in flight.
#[derive(Debug, Clone, Copy)]
pub struct ProduceRequest {
    pub broker: u32,
    pub timeout: Key,
}

#[derive(Debug, Clone)]
pub struct Producer {
    pub settings: ProducerSettings,
    pub next_n: u32,
    pub acked: PVec<RecordId>,
    pub failed: PVec<RecordId>,
    pub pending: Vec<RecordId>,
    /// Batches not yet acknowledged or failed, oldest first.
    pub batches: Vec<Batch>,
    /// Requests in flight: request id → destination and timeout timer.
    pub requests: VecMap<u64, ProduceRequest>,
    pub meta: ClientMeta,
    /// The producer epoch (idempotence); bumped when a batch fails (KIP-360).
    pub epoch: u16,
    /// The sender's next wake-up (a backoff ending, a delivery timeout): (timer, when).
    pub wake: Option<(Key, u64)>,
    /// Before 2.1: when the first batch waiting in the accumulator passes
    /// request.timeout.ms (`producer::arm_accumulator_expiry`): (timer, when).
    pub expiry: Option<(Key, u64)>,
    /// Retries sent so far, for the record.
    pub retries: u64,
}

/// Where a consumer's next fetch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsumerFetch {
    /// A fetch to `broker` is in flight (request id) with its timeout.
    InFlight { broker: u32, request: u64, timeout: Key },
    /// KIP-320: an OffsetsForLeaderEpoch to the leader validates the position.
    Validating { broker: u32, request: u64, timeout: Key },
    /// Waiting out retry.backoff.ms (or for a leader) before fetching again.
    Backoff { timer: Key },
}

#[derive(Debug, Clone)]
pub struct Consumer {
    pub spec: ConsumerSpec,
    pub settings: ConsumerSettings,
    pub position: u64,
    /// The leader epoch of the record before `position` (KIP-320's offset epoch), once it has read one.
    pub position_epoch: Option<i32>,
    pub records_read: u64,
    pub read: PVec<(u64, RecordId)>,
    pub fetch: Option<ConsumerFetch>,
    pub meta: ClientMeta,
    /// The replica the leader named (KIP-392), until when (metadata.max.age.ms).
    pub preferred: Option<(u32, u64)>,
    /// KIP-320: the leader epoch changed; the position must be validated before fetching.
    pub awaiting_validation: bool,
    /// Stopped by an error it cannot get past (auto.offset.reset=none).
    pub stopped: Option<KafkaError>,
}

/// ZooKeeper's view of one broker's session: the process (incarnation) that owns it
/// and when it expires; None once expired (its ephemeral node is deleted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZkSession {
    pub incarnation: u32,
    pub deadline: Option<u64>,
}
