//! The step record (CONTRACT.md §3): what one step did and the whole state
//! after it, built from the simulation's state and the step's typed events
//! (`state.rs`, `event.rs`), with the sentence from `crate::narrate`, and
//! written as JSON. Nothing here decides anything.

mod event;
mod state;

pub use event::{body_type, event_record};

use crate::json::{Obj, ToJson, Value};
use crate::scenario::Acks;
use crate::sim::invariants::Violation;

/// A participant as the record names it: a broker id, a client id, or "controller".
#[derive(Debug, Clone, PartialEq)]
pub enum NodeName {
    Broker(u32),
    Name(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct EpochEnd {
    pub epoch: i32,
    pub end_offset: u64,
}

/// The step's event: `type` and the fields that type carries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventRecord {
    pub kind: &'static str,
    pub from: Option<NodeName>,
    pub to: Option<NodeName>,
    pub broker: Option<u32>,
    pub producer: Option<String>,
    pub consumer: Option<String>,
    pub timer: Option<&'static str>,
    pub fetch_offset: Option<u64>,
    pub last_fetched_epoch: Option<i32>,
    pub offset: Option<u64>,
    pub records: Option<Value>,
    pub ids: Option<Vec<String>>,
    pub first_offset: Option<u64>,
    pub acks: Option<Acks>,
    pub hw: Option<u64>,
    pub hw_before: Option<u64>,
    pub hw_after: Option<u64>,
    pub leo_after: Option<u64>,
    pub outcome: Option<&'static str>,
    pub error: Option<&'static str>,
    pub diverging_epoch: Option<EpochEnd>,
    pub leader: Option<Option<u32>>,
    pub leader_epoch: Option<i32>,
    pub isr_before: Option<Vec<u32>>,
    pub isr: Option<Vec<u32>>,
    pub clean: Option<bool>,
    pub links: Option<Vec<(u32, u32)>>,
    pub unflushed: Option<u64>,
    pub leo_before: Option<u64>,
    pub truncate_to: Option<u64>,
    pub rule: Option<&'static str>,
    pub epoch: Option<i32>,
    pub end_offset: Option<EpochEnd>,
    pub preferred_read_replica: Option<u32>,
    /// Messages this step put on the wire (ids into `in_flight`).
    pub sent: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct PartitionRecord {
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub isr: Vec<u32>,
    pub partition_epoch: u32,
    pub maximal_isr: Vec<u32>,
    pub cut_links: Vec<(u32, u32)>,
}

#[derive(Debug, Clone)]
pub struct LogRecord {
    pub offset: u64,
    pub epoch: i32,
    pub id: String,
}

#[derive(Debug, Clone)]
pub struct FollowerRecord {
    pub broker: u32,
    pub fetch_offset: Option<u64>,
    pub last_caught_up_ms: Option<u64>,
    pub in_isr: bool,
}

#[derive(Debug, Clone)]
pub struct ParkedRecord {
    pub kind: &'static str,
    pub from: NodeName,
    pub offset: u64,
    pub expire_ms: u64,
}

#[derive(Debug, Clone)]
pub struct ReplicaRecord {
    pub broker: u32,
    pub alive: bool,
    pub role: &'static str,
    pub leader_epoch: i32,
    pub log_start_offset: u64,
    pub leo: u64,
    pub hw: u64,
    pub log: Vec<LogRecord>,
    pub fenced: bool,
    pub epoch_cache: Vec<(i32, u64)>,
    pub followers: Option<Vec<FollowerRecord>>,
    pub parked: Vec<ParkedRecord>,
}

#[derive(Debug, Clone)]
pub struct InFlightRecord {
    pub id: u64,
    pub kind: &'static str,
    pub from: NodeName,
    pub to: NodeName,
    pub sent_ms: u64,
    pub arrive_ms: u64,
    pub fetch_offset: Option<u64>,
    pub last_fetched_epoch: Option<i32>,
    pub offset: Option<u64>,
    pub records: Option<Value>,
    pub first_offset: Option<u64>,
    pub acks: Option<Acks>,
    pub hw: Option<u64>,
    pub error: Option<&'static str>,
    pub diverging_epoch: Option<EpochEnd>,
    pub isr: Option<Vec<u32>>,
    pub leader: Option<Option<u32>>,
    pub leader_epoch: Option<i32>,
    pub epoch: Option<i32>,
    pub end_offset: Option<EpochEnd>,
}

#[derive(Debug, Clone)]
pub struct ProducerRecord {
    pub id: String,
    pub acks: Acks,
    pub acked: Vec<String>,
    pub failed: Vec<String>,
    pub pending: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ConsumerRecord {
    pub id: String,
    pub fetch_from: Option<u32>,
    pub position: u64,
    pub records_read: u64,
    pub read: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct StepRecord {
    pub step: u64,
    pub time_ms: u64,
    pub event: Option<EventRecord>,
    pub text: String,
    pub partition: PartitionRecord,
    pub replicas: Vec<ReplicaRecord>,
    pub in_flight: Vec<InFlightRecord>,
    pub producers: Vec<ProducerRecord>,
    pub consumers: Vec<ConsumerRecord>,
    pub violations: Vec<Violation>,
    /// Set in the lighter form: lists hold only their last `log_tail` items.
    pub log_tail: Option<usize>,
}

impl StepRecord {
    pub fn to_json(&self) -> String {
        crate::json::to_string(self)
    }
}

// The JSON form: fields in declaration order, `None` fields left out (except where
// the contract shows null: the event, the leader, fetch_from, a follower's offsets).

impl ToJson for NodeName {
    fn write_json(&self, out: &mut String) {
        match self {
            NodeName::Broker(b) => b.write_json(out),
            NodeName::Name(n) => n.write_json(out),
        }
    }
}

impl ToJson for EpochEnd {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("epoch", &self.epoch).field("end_offset", &self.end_offset).end();
    }
}

impl ToJson for EventRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("type", &self.kind)
            .opt("from", &self.from)
            .opt("to", &self.to)
            .opt("broker", &self.broker)
            .opt("producer", &self.producer)
            .opt("consumer", &self.consumer)
            .opt("timer", &self.timer)
            .opt("fetch_offset", &self.fetch_offset)
            .opt("last_fetched_epoch", &self.last_fetched_epoch)
            .opt("offset", &self.offset)
            .opt("records", &self.records)
            .opt("ids", &self.ids)
            .opt("first_offset", &self.first_offset)
            .opt("acks", &self.acks)
            .opt("hw", &self.hw)
            .opt("hw_before", &self.hw_before)
            .opt("hw_after", &self.hw_after)
            .opt("leo_after", &self.leo_after)
            .opt("outcome", &self.outcome)
            .opt("error", &self.error)
            .opt("diverging_epoch", &self.diverging_epoch)
            .opt("leader", &self.leader)
            .opt("leader_epoch", &self.leader_epoch)
            .opt("isr_before", &self.isr_before)
            .opt("isr", &self.isr)
            .opt("clean", &self.clean)
            .opt("links", &self.links)
            .opt("unflushed", &self.unflushed)
            .opt("leo_before", &self.leo_before)
            .opt("truncate_to", &self.truncate_to)
            .opt("rule", &self.rule)
            .opt("epoch", &self.epoch)
            .opt("end_offset", &self.end_offset)
            .opt("preferred_read_replica", &self.preferred_read_replica)
            .field_if(!self.sent.is_empty(), "sent", &self.sent)
            .end();
    }
}

impl ToJson for PartitionRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("leader", &self.leader)
            .field("leader_epoch", &self.leader_epoch)
            .field("isr", &self.isr)
            .field("partition_epoch", &self.partition_epoch)
            .field("maximal_isr", &self.maximal_isr)
            .field("cut_links", &self.cut_links)
            .end();
    }
}

impl ToJson for LogRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("offset", &self.offset).field("epoch", &self.epoch).field("id", &self.id).end();
    }
}

impl ToJson for FollowerRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("broker", &self.broker)
            .field("fetch_offset", &self.fetch_offset)
            .field("last_caught_up_ms", &self.last_caught_up_ms)
            .field("in_isr", &self.in_isr)
            .end();
    }
}

impl ToJson for ParkedRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("kind", &self.kind)
            .field("from", &self.from)
            .field("offset", &self.offset)
            .field("expire_ms", &self.expire_ms)
            .end();
    }
}

impl ToJson for ReplicaRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("broker", &self.broker)
            .field("alive", &self.alive)
            .field("role", &self.role)
            .field("leader_epoch", &self.leader_epoch)
            .field("log_start_offset", &self.log_start_offset)
            .field("leo", &self.leo)
            .field("hw", &self.hw)
            .field("log", &self.log)
            .field("fenced", &self.fenced)
            .field("epoch_cache", &self.epoch_cache)
            .opt("followers", &self.followers)
            .field_if(!self.parked.is_empty(), "parked", &self.parked)
            .end();
    }
}

impl ToJson for InFlightRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("id", &self.id)
            .field("type", &self.kind)
            .field("from", &self.from)
            .field("to", &self.to)
            .field("sent_ms", &self.sent_ms)
            .field("arrive_ms", &self.arrive_ms)
            .opt("fetch_offset", &self.fetch_offset)
            .opt("last_fetched_epoch", &self.last_fetched_epoch)
            .opt("offset", &self.offset)
            .opt("records", &self.records)
            .opt("first_offset", &self.first_offset)
            .opt("acks", &self.acks)
            .opt("hw", &self.hw)
            .opt("error", &self.error)
            .opt("diverging_epoch", &self.diverging_epoch)
            .opt("isr", &self.isr)
            .opt("leader", &self.leader)
            .opt("leader_epoch", &self.leader_epoch)
            .opt("epoch", &self.epoch)
            .opt("end_offset", &self.end_offset)
            .end();
    }
}

impl ToJson for ProducerRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("id", &self.id)
            .field("acks", &self.acks)
            .field("acked", &self.acked)
            .field("failed", &self.failed)
            .field("pending", &self.pending)
            .end();
    }
}

impl ToJson for ConsumerRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("id", &self.id)
            .field("fetch_from", &self.fetch_from)
            .field("position", &self.position)
            .field("records_read", &self.records_read)
            .field("read", &self.read)
            .end();
    }
}

impl ToJson for Violation {
    fn write_json(&self, out: &mut String) {
        Obj::new(out).field("invariant", &self.invariant).field("text", &self.text).end();
    }
}

impl ToJson for StepRecord {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("step", &self.step)
            .field("time_ms", &self.time_ms)
            .field("event", &self.event)
            .field("text", &self.text)
            .field("partition", &self.partition)
            .field("replicas", &self.replicas)
            .field("in_flight", &self.in_flight)
            .field("producers", &self.producers)
            .field("consumers", &self.consumers)
            .field("violations", &self.violations)
            .opt("log_tail", &self.log_tail)
            .end();
    }
}
