//! The step record (docs/format.md, the step record): what one step did and the whole state
//! after it, built from the simulation's state and the step's typed events
//! (`state.rs`, `event.rs`), with the sentence from `crate::narrate`, and
//! written as JSON. Nothing here decides anything.

mod event;
mod label;
mod state;

pub use event::{body_type, event_record};
pub use label::message_label;

use crate::json::{json_record, json_write, ToJson, Value};
use crate::scenario::Acks;
use crate::sim::invariants::Violation;

/// A participant as the record names it: a broker id, a client id, or "controller".
#[derive(Debug, Clone, PartialEq)]
pub enum NodeName {
    Broker(u32),
    Name(String),
}

json_record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct EpochEnd {
        pub epoch: i32 = "epoch", always;
        pub end_offset: u64 = "end_offset", always;
    }
}

json_record! {
    /// The step's event: `type` and the fields that type carries (docs/format.md, the step record;
    /// docs/extensions.md), `None` fields left out.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct EventRecord {
        pub kind: &'static str = "type", always;
        pub from: Option<NodeName> = "from", opt;
        pub to: Option<NodeName> = "to", opt;
        pub broker: Option<u32> = "broker", opt;
        pub producer: Option<String> = "producer", opt;
        pub consumer: Option<String> = "consumer", opt;
        pub timer: Option<&'static str> = "timer", opt;
        pub fetch_offset: Option<u64> = "fetch_offset", opt;
        pub last_fetched_epoch: Option<i32> = "last_fetched_epoch", opt;
        pub offset: Option<u64> = "offset", opt;
        pub records: Option<Value> = "records", opt;
        pub ids: Option<Vec<String>> = "ids", opt;
        pub first_offset: Option<u64> = "first_offset", opt;
        pub acks: Option<Acks> = "acks", opt;
        pub hw: Option<u64> = "hw", opt;
        pub hw_before: Option<u64> = "hw_before", opt;
        pub hw_after: Option<u64> = "hw_after", opt;
        pub leo_after: Option<u64> = "leo_after", opt;
        pub outcome: Option<&'static str> = "outcome", opt;
        pub error: Option<&'static str> = "error", opt;
        pub diverging_epoch: Option<EpochEnd> = "diverging_epoch", opt;
        pub leader: Option<Option<u32>> = "leader", opt;
        pub leader_epoch: Option<i32> = "leader_epoch", opt;
        pub isr_before: Option<Vec<u32>> = "isr_before", opt;
        pub isr: Option<Vec<u32>> = "isr", opt;
        pub clean: Option<bool> = "clean", opt;
        /// 4.1 (KIP-966): `elr` or `last-known-leader` when the leader came from there.
        pub elected_from: Option<&'static str> = "elected_from", opt;
        pub links: Option<Vec<(NodeName, NodeName)>> = "links", opt;
        /// A cut or heal of one connection of a broker to the controller only.
        pub channel: Option<crate::scenario::Channel> = "channel", opt;
        pub silent: Option<bool> = "silent", opt;
        pub incarnation: Option<u32> = "incarnation", opt;
        pub broker_epoch: Option<u64> = "broker_epoch", opt;
        pub fenced: Option<bool> = "fenced", opt;
        pub retry: Option<bool> = "retry", opt;
        pub attempts: Option<u32> = "attempts", opt;
        pub backoff_ms: Option<u64> = "backoff_ms", opt;
        pub duplicate: Option<bool> = "duplicate", opt;
        pub unflushed: Option<u64> = "unflushed", opt;
        pub leo_before: Option<u64> = "leo_before", opt;
        pub truncate_to: Option<u64> = "truncate_to", opt;
        pub rule: Option<&'static str> = "rule", opt;
        pub epoch: Option<i32> = "epoch", opt;
        pub end_offset: Option<EpochEnd> = "end_offset", opt;
        pub preferred_read_replica: Option<u32> = "preferred_read_replica", opt;
        /// Messages this step put on the wire (ids into `in_flight`).
        pub sent: Vec<u64> = "sent", nonempty;
    }
}

json_record! {
    /// A direction cut on one connection between a broker and the controller.
    #[derive(Debug, Clone)]
    pub struct ChannelCut {
        pub from: NodeName = "from", always;
        pub to: NodeName = "to", always;
        pub channel: crate::scenario::Channel = "channel", always;
    }
}

json_record! {
    #[derive(Debug, Clone)]
    pub struct PartitionRecord {
        pub leader: Option<u32> = "leader", always;
        pub leader_epoch: i32 = "leader_epoch", always;
        pub isr: Vec<u32> = "isr", always;
        pub partition_epoch: u32 = "partition_epoch", always;
        pub maximal_isr: Vec<u32> = "maximal_isr", always;
        pub cut_links: Vec<(NodeName, NodeName)> = "cut_links", always;
        /// Directions cut on one connection of a broker to the controller only (`partition.channel`).
        pub cut_channels: Vec<ChannelCut> = "cut_channels", nonempty;
        /// 4.1 (KIP-966), written only when ELR is on: the eligible leader replicas.
        pub elr: Option<Vec<u32>> = "elr", opt;
        /// 4.1 (KIP-966), written only when ELR is on: the last known leader, kept while the ISR is empty.
        pub last_known_elr: Option<Vec<u32>> = "last_known_elr", opt;
        /// Written only while the leader's ISR is smaller than min.insync.replicas (as the
        /// leader applies it, `Partition.effectiveMinIsr`): that minimum. acks=all writes
        /// are refused (NOT_ENOUGH_REPLICAS) while it is written.
        pub under_min_isr: Option<u32> = "under_min_isr", opt;
        /// Written (true) with `under_min_isr` where the leader holds its HW meanwhile (3.7+, KAFKA-15583).
        pub hw_held: Option<bool> = "hw_held", opt;
    }
}

json_record! {
    /// A broker as the controller has it registered.
    #[derive(Debug, Clone)]
    pub struct RegistrationRecord {
        pub broker: u32 = "broker", always;
        pub broker_epoch: u64 = "broker_epoch", always;
        pub fenced: bool = "fenced", always;
        /// Its last heartbeat's arrival + broker.session.timeout.ms (null once fenced for it).
        pub session_expires_ms: Option<u64> = "session_expires_ms", always;
    }
}

json_record! {
    /// A broker's ZooKeeper session (the ZooKeeper-era presets): the process that owns
    /// it and when ZooKeeper will expire it (null: expired, its /brokers/ids node gone).
    #[derive(Debug, Clone)]
    pub struct ZkSessionRecord {
        pub broker: u32 = "broker", always;
        pub incarnation: u32 = "incarnation", always;
        pub session_expires_ms: Option<u64> = "session_expires_ms", always;
    }
}

json_record! {
    /// The controller (an extension): registrations, sessions, the next fencing check.
    #[derive(Debug, Clone)]
    pub struct ControllerRecord {
        pub metadata_offset: u64 = "metadata_offset", always;
        pub registrations: Vec<RegistrationRecord> = "registrations", always;
        /// The stale-broker check that will fence the next broker, if one is due.
        pub next_fence_check_ms: Option<u64> = "next_fence_check_ms", always;
        /// The ZooKeeper-era presets: ZooKeeper's sessions (ZooKeeper is a node of its
        /// own; `registrations[].fenced` is then the controller's "dead" after its watch).
        pub zookeeper: Option<Vec<ZkSessionRecord>> = "zookeeper", opt;
        /// The ZooKeeper-era presets: the controller is a broker, this id (one past the
        /// partition's replicas; `Sim::zookeeper_controller_id`). Absent in KRaft.
        pub broker_id: Option<u32> = "broker_id", opt;
    }
}

json_record! {
    #[derive(Debug, Clone)]
    pub struct LogRecord {
        pub offset: u64 = "offset", always;
        pub epoch: i32 = "epoch", always;
        pub id: String = "id", always;
    }
}

json_record! {
    #[derive(Debug, Clone)]
    pub struct FollowerRecord {
        pub broker: u32 = "broker", always;
        pub fetch_offset: Option<u64> = "fetch_offset", always;
        pub last_caught_up_ms: Option<u64> = "last_caught_up_ms", always;
        pub in_isr: bool = "in_isr", always;
    }
}

json_record! {
    #[derive(Debug, Clone)]
    pub struct ParkedRecord {
        pub kind: &'static str = "kind", always;
        pub from: NodeName = "from", always;
        pub offset: u64 = "offset", always;
        pub expire_ms: u64 = "expire_ms", always;
    }
}

json_record! {
    /// A record this replica's log lost (truncated, or unflushed at a crash) and
    /// does not hold again: where it was, and the step that removed it.
    #[derive(Debug, Clone)]
    pub struct GhostRecord {
        pub offset: u64 = "offset", always;
        pub epoch: i32 = "epoch", always;
        pub id: String = "id", always;
        pub step: u64 = "step", always;
    }
}

json_record! {
    /// A record acknowledged or read, then lost: the run's list, from the step it was found.
    #[derive(Debug, Clone)]
    pub struct LossRecord {
        pub step: u64 = "step", always;
        pub invariant: &'static str = "invariant", always;
        pub id: String = "id", always;
        pub offset: u64 = "offset", always;
        pub text: String = "text", always;
        pub allowed: bool = "allowed", nonfalse;
    }
}

json_record! {
    #[derive(Debug, Clone)]
    pub struct ReplicaRecord {
        pub broker: u32 = "broker", always;
        pub alive: bool = "alive", always;
        pub role: &'static str = "role", always;
        pub leader_epoch: i32 = "leader_epoch", always;
        pub log_start_offset: u64 = "log_start_offset", always;
        pub leo: u64 = "leo", always;
        pub hw: u64 = "hw", always;
        pub log: Vec<LogRecord> = "log", always;
        pub fenced: bool = "fenced", always;
        /// KRaft's broker state: starting, recovery, running, or offline.
        pub state: &'static str = "state", always;
        pub incarnation: u32 = "incarnation", always;
        /// The HW in its last checkpoint (what a restart starts from).
        pub hw_checkpoint: u64 = "hw_checkpoint", always;
        pub epoch_cache: Vec<(i32, u64)> = "epoch_cache", always;
        pub followers: Option<Vec<FollowerRecord>> = "followers", opt;
        pub parked: Vec<ParkedRecord> = "parked", nonempty;
        pub lost: Vec<GhostRecord> = "lost", nonempty;
    }
}

json_record! {
    #[derive(Debug, Clone)]
    pub struct InFlightRecord {
        pub id: u64 = "id", always;
        pub kind: &'static str = "type", always;
        pub from: NodeName = "from", always;
        pub to: NodeName = "to", always;
        pub sent_ms: u64 = "sent_ms", always;
        pub arrive_ms: u64 = "arrive_ms", always;
        pub fetch_offset: Option<u64> = "fetch_offset", opt;
        pub last_fetched_epoch: Option<i32> = "last_fetched_epoch", opt;
        pub offset: Option<u64> = "offset", opt;
        pub records: Option<Value> = "records", opt;
        pub first_offset: Option<u64> = "first_offset", opt;
        pub acks: Option<Acks> = "acks", opt;
        pub hw: Option<u64> = "hw", opt;
        pub error: Option<&'static str> = "error", opt;
        pub diverging_epoch: Option<EpochEnd> = "diverging_epoch", opt;
        pub isr: Option<Vec<u32>> = "isr", opt;
        pub leader: Option<Option<u32>> = "leader", opt;
        pub leader_epoch: Option<i32> = "leader_epoch", opt;
        pub epoch: Option<i32> = "epoch", opt;
        pub end_offset: Option<EpochEnd> = "end_offset", opt;
        pub duplicate: Option<bool> = "duplicate", opt;
        pub fenced: Option<bool> = "fenced", opt;
        pub broker_epoch: Option<u64> = "broker_epoch", opt;
        /// Held by TCP in a cut link (`arrive_ms` is then its next retransmission's arrival).
        pub held: bool = "held", nonfalse;
        /// When TCP retransmitted it after a heal.
        pub resent_ms: Option<u64> = "resent_ms", opt;
        /// The words it carries on the stage (`message_label`).
        pub label: String = "label", nonempty;
    }
}

json_record! {
    /// A batch the producer has not settled: in flight, waiting out its backoff, or queued.
    #[derive(Debug, Clone)]
    pub struct BatchRecord {
        pub records: Vec<String> = "records", always;
        pub state: &'static str = "state", always;
        pub attempts: u32 = "attempts", always;
        pub retry_ms: Option<u64> = "retry_ms", opt;
        pub error: Option<&'static str> = "error", opt;
    }
}

json_record! {
    #[derive(Debug, Clone)]
    pub struct ProducerRecord {
        pub id: String = "id", always;
        pub acks: Acks = "acks", always;
        pub acked: Vec<String> = "acked", always;
        pub failed: Vec<String> = "failed", always;
        /// In the lighter form, how many records `acked` and `failed` hold in all
        /// (the lists keep only their last `log_tail`).
        pub acked_count: Option<u64> = "acked_count", opt;
        pub failed_count: Option<u64> = "failed_count", opt;
        pub pending: Vec<String> = "pending", always;
        pub idempotent: bool = "idempotent", always;
        /// The leader its metadata names, and that leader's epoch.
        pub leader: Option<u32> = "leader", always;
        pub leader_epoch: i32 = "leader_epoch", always;
        /// Retries sent so far.
        pub retries: u64 = "retries", always;
        pub batches: Vec<BatchRecord> = "batches", nonempty;
    }
}

json_record! {
    #[derive(Debug, Clone)]
    pub struct ConsumerRecord {
        pub id: String = "id", always;
        pub fetch_from: Option<u32> = "fetch_from", always;
        pub position: u64 = "position", always;
        pub records_read: u64 = "records_read", always;
        pub read: Vec<String> = "read", always;
        /// The leader its metadata names, and the replica the leader named for it (KIP-392).
        pub leader: Option<u32> = "leader", always;
        pub preferred_read_replica: Option<u32> = "preferred_read_replica", opt;
        /// fetching, validating (KIP-320), backoff, or stopped.
        pub state: &'static str = "state", always;
    }
}

json_record! {
    /// A step as the CLI prints it and the page receives it (docs/format.md, the step record).
    #[derive(Debug, Clone)]
    pub struct StepRecord {
        pub step: u64 = "step", always;
        pub time_ms: u64 = "time_ms", always;
        pub event: Option<EventRecord> = "event", always;
        pub text: String = "text", always;
        pub partition: PartitionRecord = "partition", always;
        pub replicas: Vec<ReplicaRecord> = "replicas", always;
        pub in_flight: Vec<InFlightRecord> = "in_flight", always;
        pub producers: Vec<ProducerRecord> = "producers", always;
        pub consumers: Vec<ConsumerRecord> = "consumers", always;
        pub controller: ControllerRecord = "controller", always;
        pub violations: Vec<Violation> = "violations", always;
        /// Every record lost so far in the run (`violations` says it once, here it stays).
        pub lost: Vec<LossRecord> = "lost", nonempty;
        /// What the brokers' and the controller's logs would say at this step, in the
        /// preset's version's format (`kafka_log.rs`); none under `textbook`.
        pub kafka_log: Vec<String> = "kafka_log", nonempty;
        /// Set in the lighter form: lists hold only their last `log_tail` items.
        pub log_tail: Option<usize> = "log_tail", opt;
    }
}

impl StepRecord {
    pub fn to_json(&self) -> String {
        crate::json::to_string(self)
    }
}

/// A participant as a record writes it: a number, or a name.
impl ToJson for NodeName {
    fn write_json(&self, out: &mut String) {
        match self {
            NodeName::Broker(b) => b.write_json(out),
            NodeName::Name(n) => n.write_json(out),
        }
    }
}

json_write! { Violation { invariant: "invariant", always; text: "text", always; allowed: "allowed", nonfalse; } }
