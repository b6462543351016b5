//! What travels on the wire: participants, requests and responses, and the
//! Kafka error codes the model produces.

use super::log::{Entry, RecordId};
use crate::scenario::Acks;

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
}

impl KafkaError {
    pub fn name(self) -> &'static str {
        match self {
            KafkaError::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            KafkaError::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            KafkaError::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            KafkaError::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
            KafkaError::NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
            KafkaError::NotEnoughReplicasAfterAppend => "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
            KafkaError::RequestTimedOut => "REQUEST_TIMED_OUT",
        }
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
}

/// A request or response on the wire.
#[derive(Debug, Clone)]
pub struct Msg {
    pub id: u64,
    pub from: Node,
    pub to: Node,
    pub sent_ms: u64,
    pub arrive_ms: u64,
    pub body: Body,
}

#[derive(Debug, Clone)]
pub enum Body {
    Fetch(FetchRequest),
    FetchResponse(FetchResponse),
    Produce { ids: Vec<RecordId>, acks: Acks },
    ProduceResponse { request: u64, ids: Vec<RecordId>, error: Option<KafkaError> },
    ConsumerFetch { offset: u64 },
    ConsumerFetchResponse(ConsumerFetchResponse),
    AlterPartition { leader_epoch: i32, partition_epoch: u32, isr: Vec<u32> },
    AlterPartitionResponse { leader_epoch: i32, partition_epoch: u32, isr: Vec<u32>, error: Option<AlterPartitionError> },
    LeaderAndIsr(Metadata),
    OffsetsForLeaderEpoch { epoch: i32, current_leader_epoch: i32 },
    OffsetsForLeaderEpochResponse { request: u64, requested: i32, answer: Option<(i32, u64)>, error: Option<KafkaError> },
}

#[derive(Debug, Clone, Copy)]
pub struct FetchRequest {
    pub replica: u32,
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
        Body::OffsetsForLeaderEpoch { .. } => "offsets_for_leader_epoch",
        Body::OffsetsForLeaderEpochResponse { .. } => "offsets_for_leader_epoch_response",
    }
}
