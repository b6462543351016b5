//! What travels on the wire: participants, requests and responses, and the
//! Kafka error codes the model produces.

use super::log::{Entry, RecordId};
use crate::scenario::{Acks, Preset};

/// Kafka error codes that the model produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KafkaError {
    NotLeaderOrFollower,
    FencedLeaderEpoch,
    UnknownLeaderEpoch,
    OffsetOutOfRange,
    NotEnoughReplicas,
    NotEnoughReplicasAfterAppend,
    RequestTimedOut,
    /// The client's view of a broken connection (a reset, a request timeout).
    NetworkException,
    DuplicateBrokerRegistration,
    StaleBrokerEpoch,
    OutOfOrderSequenceNumber,
    InvalidProducerEpoch,
    /// The broker hosts no such partition (`ReplicaManager.getPartitionOrException`):
    /// a ZooKeeper-era process before its first LeaderAndIsr (`no_partition_state`).
    UnknownTopicOrPartition,
}

impl KafkaError {
    /// The error's name in the preset's version of `Errors` (clients' `Errors.java`).
    /// Code 6 was NOT_LEADER_FOR_PARTITION up to 2.5; 2.6.0 renamed it
    /// NOT_LEADER_OR_FOLLOWER (KAFKA-10223, which also made it the answer to a consumer
    /// fetching from a broker that is not a replica). The code, and what clients do
    /// with it, did not change.
    pub fn name(self, preset: Preset) -> &'static str {
        match self {
            KafkaError::NotLeaderOrFollower if named_not_leader_for_partition(preset) => "NOT_LEADER_FOR_PARTITION",
            KafkaError::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            KafkaError::UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
            KafkaError::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            KafkaError::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            KafkaError::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
            KafkaError::NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
            KafkaError::NotEnoughReplicasAfterAppend => "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
            KafkaError::RequestTimedOut => "REQUEST_TIMED_OUT",
            KafkaError::NetworkException => "NETWORK_EXCEPTION",
            KafkaError::DuplicateBrokerRegistration => "DUPLICATE_BROKER_REGISTRATION",
            KafkaError::StaleBrokerEpoch => "STALE_BROKER_EPOCH",
            KafkaError::OutOfOrderSequenceNumber => "OUT_OF_ORDER_SEQUENCE_NUMBER",
            KafkaError::InvalidProducerEpoch => "INVALID_PRODUCER_EPOCH",
        }
    }

    /// Whether the Java producer retries it (a `RetriableException`).
    pub fn retriable(self) -> bool {
        matches!(
            self,
            KafkaError::NotLeaderOrFollower
                | KafkaError::FencedLeaderEpoch
                | KafkaError::UnknownLeaderEpoch
                | KafkaError::NotEnoughReplicas
                | KafkaError::NotEnoughReplicasAfterAppend
                | KafkaError::RequestTimedOut
                | KafkaError::NetworkException
                | KafkaError::UnknownTopicOrPartition
        )
    }

    /// Whether it means the client's metadata is stale (`InvalidMetadataException`),
    /// or its connection broke: either way it asks for new metadata.
    pub fn refreshes_metadata(self) -> bool {
        matches!(
            self,
            KafkaError::NotLeaderOrFollower
                | KafkaError::FencedLeaderEpoch
                | KafkaError::UnknownLeaderEpoch
                | KafkaError::NetworkException
                | KafkaError::UnknownTopicOrPartition
        )
    }
}

/// Whether the preset's Kafka names error code 6 NOT_LEADER_FOR_PARTITION (up to 2.5,
/// `Errors.NOT_LEADER_FOR_PARTITION`; KAFKA-10223 renamed it in 2.6.0). `textbook`
/// uses today's name.
fn named_not_leader_for_partition(preset: Preset) -> bool {
    use Preset::*;
    match preset {
        Kafka010 | Kafka011 | Kafka20 | Kafka21 | Kafka24 => true,
        Textbook | Kafka28 | Kafka37 | Kafka38 | Kafka40 | Kafka41 => false,
    }
}

/// The controller's answers to an AlterPartition it does not commit
/// (`ReplicationControlManager.alterPartition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlterPartitionError {
    FencedLeaderEpoch,
    InvalidRequest,
    InvalidUpdateVersion,
    IneligibleReplica,
    OperationNotAttempted,
}

impl AlterPartitionError {
    pub fn name(self) -> &'static str {
        match self {
            AlterPartitionError::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            AlterPartitionError::InvalidRequest => "INVALID_REQUEST",
            AlterPartitionError::InvalidUpdateVersion => "INVALID_UPDATE_VERSION",
            AlterPartitionError::IneligibleReplica => "INELIGIBLE_REPLICA",
            AlterPartitionError::OperationNotAttempted => "OPERATION_NOT_ATTEMPTED",
        }
    }

    /// Whether the leader drops its pending change (`Partition.handleAlterPartitionError`);
    /// for the others it keeps it until new metadata arrives.
    pub fn reverts(self) -> bool {
        matches!(self, AlterPartitionError::IneligibleReplica | AlterPartitionError::OperationNotAttempted)
    }
}

/// A participant that sends and receives messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Node {
    Broker(u32),
    Producer(usize),
    Consumer(usize),
    Controller,
    /// The ZooKeeper ensemble (the ZooKeeper-era presets): brokers' sessions and
    /// ephemeral nodes under /brokers/ids, and the controller's watch on them.
    ZooKeeper,
}

impl Node {
    pub fn broker(self) -> Option<u32> {
        match self {
            Node::Broker(b) => Some(b),
            _ => None,
        }
    }
}

/// A request or response on the wire.
#[derive(Debug, Clone)]
pub struct Msg {
    pub id: u64,
    pub from: Node,
    pub to: Node,
    pub sent_ms: u64,
    /// When it arrives; while it is held, the earliest it could (its next retransmission).
    pub arrive_ms: u64,
    pub body: Body,
    /// Held by TCP in a cut link (or waiting for a connection through one).
    pub held: Option<Hold>,
    /// When TCP retransmitted it after a heal (it was held until then).
    pub resent_ms: Option<u64>,
}

/// A message TCP holds: sent into a cut link, it is retransmitted (200 ms, then
/// doubling) until the link heals; a new connection's SYN is retried every second, five
/// times, then doubling (`network::syn_retransmission_gap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hold {
    /// When it (or its connection attempt) was first sent.
    pub since: u64,
    /// Waiting for a new connection rather than for an ACK.
    pub connect: bool,
}

#[derive(Debug, Clone)]
pub enum Body {
    Fetch(FetchRequest),
    FetchResponse(FetchResponse),
    /// `producer_epoch` is set when the producer is idempotent: the broker checks the
    /// records' sequence numbers (their `n`) against its producer state.
    Produce {
        ids: Vec<RecordId>,
        acks: Acks,
        producer_epoch: Option<u16>,
    },
    /// `current_leader`: KIP-951 (3.7+), the leader the answering broker knows of when it
    /// is not the leader. `duplicate`: an idempotent retry of records already in the log.
    ProduceResponse {
        request: u64,
        ids: Vec<RecordId>,
        error: Option<KafkaError>,
        current_leader: Option<(u32, i32)>,
        duplicate: bool,
    },
    /// `leader_epoch`: the consumer's current leader epoch (KIP-320).
    ConsumerFetch {
        offset: u64,
        leader_epoch: i32,
    },
    ConsumerFetchResponse(ConsumerFetchResponse),
    /// `broker_epochs`: per ISR member, in `isr`'s order, the broker epoch its last Fetch
    /// carried (AlterPartition v3, 3.5, KIP-903); None where unknown or before 3.5 (-1).
    AlterPartition {
        leader_epoch: i32,
        partition_epoch: u32,
        isr: Vec<u32>,
        broker_epochs: Vec<Option<u64>>,
    },
    /// `request`: the AlterPartition it answers.
    AlterPartitionResponse {
        request: u64,
        leader_epoch: i32,
        partition_epoch: u32,
        isr: Vec<u32>,
        error: Option<AlterPartitionError>,
    },
    LeaderAndIsr(Metadata),
    /// KRaft: a broker fetches the metadata log from the controller from `offset`.
    MetadataFetch {
        offset: u64,
    },
    /// The records it lacked (the partition's state), or none after the wait.
    /// `request`: the Fetch it answers (0: the idle round's Fetch, not a step of its own).
    MetadataFetchResponse {
        request: u64,
        metadata: Option<Metadata>,
    },
    OffsetsForLeaderEpoch {
        epoch: i32,
        current_leader_epoch: i32,
    },
    OffsetsForLeaderEpochResponse {
        request: u64,
        requested: i32,
        answer: Option<(i32, u64)>,
        error: Option<KafkaError>,
    },
    /// KRaft broker lifecycle (`BrokerLifecycleManager`): a new incarnation registers.
    BrokerRegistration {
        incarnation: u32,
    },
    /// The broker epoch, or DUPLICATE_BROKER_REGISTRATION; the metadata to catch up from.
    BrokerRegistrationResponse {
        broker_epoch: Option<u64>,
        metadata: Option<Metadata>,
    },
    BrokerHeartbeat {
        broker_epoch: u64,
        metadata_offset: u64,
    },
    /// `metadata`: always None since the metadata fetch loop (`metadata_fetch.rs`): a
    /// heartbeat answer says whether the broker is fenced, as Kafka's does.
    BrokerHeartbeatResponse {
        fenced: bool,
        metadata: Option<Metadata>,
        error: Option<KafkaError>,
    },
    /// A client asks a broker for the partition's leader.
    MetadataRequest,
    /// The broker's own view, possibly stale.
    MetadataResponse {
        request: u64,
        leader: Option<u32>,
        leader_epoch: i32,
    },
    /// ZooKeeper era: a broker's ZooKeeper client pings its session (the session's
    /// owner is the broker's process, its `incarnation`).
    ZkPing {
        incarnation: u32,
    },
    /// ZooKeeper era: a new process opens a session and creates its ephemeral node
    /// /brokers/ids/N (`KafkaZkClient.registerBroker`).
    ZkRegister {
        incarnation: u32,
    },
    /// ZooKeeper's answer to the create: the node exists, owned by this session.
    ZkRegistered,
    /// ZooKeeper's answer to the create: the node exists, owned by another (older)
    /// session still live (`KafkaZkClient`'s checked ephemeral create fails with NodeExists).
    ZkNodeExists,
    /// ZooKeeper tells a client its session has expired (on the client's next contact):
    /// the broker opens a new session and registers again.
    ZkSessionExpired,
    /// The controller's watch on /brokers/ids fires: broker `broker`'s node is gone
    /// (`incarnation` None) or was created by a new session.
    ZkWatch {
        broker: u32,
        incarnation: Option<u32>,
    },
    /// A killed process's kernel resets its connections, or (`refused`) refuses a new
    /// one: then the request was never sent (the client's `NetworkClient` never had a
    /// ready connection to send it on).
    Reset {
        refused: bool,
    },
}

impl Body {
    /// The request this answers, for an answer that names one (`request`; 0, the idle
    /// round's metadata answer, names none).
    pub fn answers(&self) -> Option<u64> {
        match self {
            Body::FetchResponse(FetchResponse { request, .. })
            | Body::ProduceResponse { request, .. }
            | Body::ConsumerFetchResponse(ConsumerFetchResponse { request, .. })
            | Body::AlterPartitionResponse { request, .. }
            | Body::OffsetsForLeaderEpochResponse { request, .. }
            | Body::MetadataResponse { request, .. } => Some(*request),
            Body::MetadataFetchResponse { request, .. } => (*request != 0).then_some(*request),
            _ => None,
        }
    }

    /// Whether the sender is the one waiting for an answer (a request), rather than
    /// the one answering (a response, or the controller's metadata).
    pub fn is_request(&self) -> bool {
        matches!(
            self,
            Body::Fetch(_)
                | Body::Produce { .. }
                | Body::ConsumerFetch { .. }
                | Body::AlterPartition { .. }
                | Body::OffsetsForLeaderEpoch { .. }
                | Body::BrokerRegistration { .. }
                | Body::BrokerHeartbeat { .. }
                | Body::MetadataFetch { .. }
                | Body::MetadataRequest
                | Body::ZkPing { .. }
                | Body::ZkRegister { .. }
        )
    }
}

#[derive(Debug, Clone, Copy)]
pub struct FetchRequest {
    pub replica: u32,
    /// The follower's broker epoch (Fetch v15's ReplicaState.ReplicaEpoch, 3.5, KIP-903);
    /// None before 3.5 or before it is registered.
    pub broker_epoch: Option<u64>,
    pub fetch_offset: u64,
    pub last_fetched_epoch: Option<i32>,
    pub current_leader_epoch: i32,
    pub log_start_offset: u64,
}

#[derive(Debug, Clone)]
pub struct FetchResponse {
    pub request: u64,
    pub fetch_offset: u64,
    pub records: Vec<(u64, Option<Entry>)>,
    pub hw: u64,
    pub log_start_offset: u64,
    /// The leader's LEO, standing in for the ListOffsets round trip after OFFSET_OUT_OF_RANGE.
    pub leader_leo: u64,
    pub error: Option<KafkaError>,
    pub diverging_epoch: Option<(i32, u64)>,
}

/// A broker's answer to a consumer's fetch.
#[derive(Debug, Clone)]
pub struct ConsumerFetchResponse {
    pub request: u64,
    pub offset: u64,
    pub records: Vec<(u64, Option<Entry>)>,
    pub hw: u64,
    /// The replica's log start (where auto.offset.reset=earliest goes; ListOffsets' answer).
    pub log_start: u64,
    pub error: Option<KafkaError>,
    /// KIP-392: the leader names the replica to read from instead.
    pub preferred: Option<u32>,
}

/// What the controller tells a broker about the partition (LeaderAndIsr / metadata).
#[derive(Debug, Clone)]
pub struct Metadata {
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub isr: Vec<u32>,
    pub partition_epoch: u32,
    pub fenced: Vec<u32>,
    /// The controller's metadata offset when this was written: a broker applies only newer ones.
    pub offset: u64,
}

/// A message's type as the record names it (`in_flight[].type`).
pub fn kind_of(body: &Body) -> &'static str {
    match body {
        Body::Fetch(_) => "fetch_request",
        Body::FetchResponse(_) => "fetch_response",
        Body::Produce { .. } => "produce_request",
        Body::ProduceResponse { .. } => "produce_response",
        Body::ConsumerFetch { .. } => "consumer_fetch_request",
        Body::ConsumerFetchResponse(_) => "consumer_fetch_response",
        Body::AlterPartition { .. } => "alter_partition",
        Body::AlterPartitionResponse { .. } => "alter_partition_response",
        Body::LeaderAndIsr(_) => "leader_and_isr",
        Body::MetadataFetch { .. } => "metadata_fetch",
        Body::MetadataFetchResponse { .. } => "metadata_fetch_response",
        Body::OffsetsForLeaderEpoch { .. } => "offsets_for_leader_epoch",
        Body::OffsetsForLeaderEpochResponse { .. } => "offsets_for_leader_epoch_response",
        Body::BrokerRegistration { .. } => "broker_registration",
        Body::BrokerRegistrationResponse { .. } => "broker_registration_response",
        Body::BrokerHeartbeat { .. } => "broker_heartbeat",
        Body::BrokerHeartbeatResponse { .. } => "broker_heartbeat_response",
        Body::MetadataRequest => "metadata_request",
        Body::MetadataResponse { .. } => "metadata_response",
        Body::Reset { .. } => "connection_reset",
        Body::ZkPing { .. } => "zookeeper_ping",
        Body::ZkRegister { .. } => "zookeeper_register",
        Body::ZkRegistered => "zookeeper_registered",
        Body::ZkNodeExists => "zookeeper_node_exists",
        Body::ZkSessionExpired => "zookeeper_session_expired",
        Body::ZkWatch { .. } => "zookeeper_watch",
    }
}
