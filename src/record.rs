//! The step record (CONTRACT.md §3): what one step did and the whole state
//! after it. The narration sentence is written by the handler that ran the
//! step, from the same values it put in the state.

use crate::invariants::Violation;
use crate::json::{Obj, ToJson, Value};
use crate::scenario::Acks;
use crate::sim::{Body, Msg, MsgHead, Node, Role, Sim};

/// A participant as the record names it: a broker id, a client id, or "controller".
#[derive(Debug, Clone, PartialEq)]
pub enum NodeName {
    Broker(u32),
    Name(String),
}

impl Sim {
    pub fn node_name(&self, node: Node) -> NodeName {
        match node {
            Node::Broker(b) => NodeName::Broker(b),
            Node::Producer(p) => NodeName::Name(self.scenario.producers.get(p).map_or_else(|| "?".into(), |s| s.id.clone())),
            Node::Consumer(c) => NodeName::Name(self.consumers.get(c).map_or_else(|| "?".into(), |s| s.spec.id.clone())),
            Node::Controller => NodeName::Name("controller".into()),
        }
    }
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

impl EventRecord {
    pub fn new(kind: &'static str) -> EventRecord {
        EventRecord { kind, ..Default::default() }
    }

    /// An event about a message arriving: type, from and to filled in.
    pub fn message(kind: &'static str, msg: &MsgHead, sim: &Sim) -> EventRecord {
        if !sim.narrate {
            return EventRecord { kind, ..Default::default() };
        }
        EventRecord { kind, from: Some(sim.node_name(msg.from)), to: Some(sim.node_name(msg.to)), ..Default::default() }
    }
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

/// Keeps the last `tail` items of a long list (all of them when `tail` is None).
fn tail_of<T>(items: impl ExactSizeIterator<Item = T>, tail: Option<usize>) -> impl Iterator<Item = T> {
    let skip = tail.map_or(0, |t| items.len().saturating_sub(t));
    items.skip(skip)
}

impl Sim {
    /// The step record of the state as it is now (complete: whole logs).
    pub fn record(&self) -> StepRecord {
        self.record_with_tail(None)
    }

    /// The lighter form for long runs: only the last `tail` entries of each log and
    /// of each producer's and consumer's record lists (`log_tail` says so).
    pub fn record_with_tail(&self, tail: Option<usize>) -> StepRecord {
        let c = &self.controller;
        let maximal_isr = c.leader.and_then(|l| self.broker(l).lead.as_ref()).map_or_else(|| c.isr.clone(), |ls| ls.maximal_isr());
        StepRecord {
            step: self.step,
            time_ms: self.now,
            event: self.event.clone(),
            text: self.text.clone(),
            partition: PartitionRecord {
                leader: c.leader,
                leader_epoch: c.leader_epoch,
                isr: c.isr.clone(),
                partition_epoch: c.partition_epoch,
                maximal_isr,
                cut_links: self.net.cut_links(),
            },
            replicas: self.brokers.iter().map(|b| self.replica_record(b.id, tail)).collect(),
            in_flight: self.in_flight.values().map(|(m, _)| self.in_flight_record(m)).collect(),
            producers: self
                .producers
                .iter()
                .enumerate()
                .map(|(i, p)| ProducerRecord {
                    id: self.scenario.producers[i].id.clone(),
                    acks: self.scenario.producers[i].acks,
                    acked: tail_of(p.acked.iter_exact(), tail).map(|r| self.record_name(*r)).collect(),
                    failed: tail_of(p.failed.iter_exact(), tail).map(|r| self.record_name(*r)).collect(),
                    pending: p.pending.iter().map(|r| self.record_name(*r)).collect(),
                })
                .collect(),
            consumers: self
                .consumers
                .iter()
                .map(|c| ConsumerRecord {
                    id: c.spec.id.clone(),
                    fetch_from: c.spec.fetch_from,
                    position: c.position,
                    records_read: c.records_read,
                    read: tail_of(c.read.iter_exact(), tail).map(|(_, r)| self.record_name(*r)).collect(),
                })
                .collect(),
            violations: self.invariants.new_violations.clone(),
            log_tail: tail,
        }
    }

    fn replica_record(&self, id: u32, tail: Option<usize>) -> ReplicaRecord {
        let b = self.broker(id);
        let from = tail.map_or(0, |t| b.log.leo().saturating_sub(t as u64));
        let log = b.log.entries_from(from).map(|(offset, e)| LogRecord { offset, epoch: e.epoch, id: self.record_name(e.id) }).collect();
        let followers = b.lead.as_ref().map(|ls| {
            ls.followers
                .iter()
                .map(|(&f, v)| FollowerRecord {
                    broker: f,
                    fetch_offset: v.leo,
                    last_caught_up_ms: v.last_caught_up_ms,
                    in_isr: ls.isr.contains(&f),
                })
                .collect()
        });
        let mut parked: Vec<ParkedRecord> = Vec::new();
        if let Some(ls) = &b.lead {
            for p in &ls.parked_fetches {
                parked.push(ParkedRecord {
                    kind: "fetch",
                    from: NodeName::Broker(p.follower),
                    offset: p.req.fetch_offset,
                    expire_ms: p.expire_ms,
                });
            }
            for d in &ls.delayed_produces {
                parked.push(ParkedRecord {
                    kind: "produce",
                    from: self.node_name(Node::Producer(d.producer)),
                    offset: d.required_offset,
                    expire_ms: d.expire_ms,
                });
            }
        }
        for p in &b.parked_consumers {
            parked.push(ParkedRecord {
                kind: "consumer_fetch",
                from: self.node_name(Node::Consumer(p.consumer)),
                offset: p.offset,
                expire_ms: p.expire_ms,
            });
        }
        let role = if !b.alive {
            "offline"
        } else if b.role == Role::Leader && b.lead.is_some() {
            "leader"
        } else {
            "follower"
        };
        ReplicaRecord {
            broker: id,
            alive: b.alive,
            role,
            leader_epoch: b.leader_epoch,
            log_start_offset: b.log.start_offset,
            leo: b.log.leo(),
            hw: b.hw,
            log,
            fenced: self.controller.fenced.contains(&id),
            epoch_cache: b.log.epochs().to_vec(),
            followers,
            parked,
        }
    }

    fn in_flight_record(&self, m: &Msg) -> InFlightRecord {
        let mut r = InFlightRecord {
            id: m.id,
            kind: body_type(&m.body),
            from: self.node_name(m.from),
            to: self.node_name(m.to),
            sent_ms: m.sent_ms,
            arrive_ms: m.arrive_ms,
            fetch_offset: None,
            last_fetched_epoch: None,
            offset: None,
            records: None,
            first_offset: None,
            acks: None,
            hw: None,
            error: None,
            diverging_epoch: None,
            isr: None,
            leader: None,
            leader_epoch: None,
            epoch: None,
            end_offset: None,
        };
        match &m.body {
            Body::Fetch(f) => {
                r.fetch_offset = Some(f.fetch_offset);
                r.last_fetched_epoch = f.last_fetched_epoch;
                r.leader_epoch = Some(f.current_leader_epoch);
            }
            Body::FetchResponse(f) => {
                r.records = Some(Value::UInt(f.records.len() as u64));
                r.first_offset = f.records.first().map(|(o, _)| *o);
                r.hw = Some(f.hw);
                r.error = f.error.map(|e| e.name());
                r.diverging_epoch = f.diverging_epoch.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset });
            }
            Body::Produce { ids, acks } => {
                r.records = Some(self.ids_value(ids.iter().copied()));
                r.acks = Some(*acks);
            }
            Body::ProduceResponse { ids, error, .. } => {
                r.records = Some(self.ids_value(ids.iter().copied()));
                r.error = error.map(|e| e.name());
            }
            Body::ConsumerFetch { offset } => r.offset = Some(*offset),
            Body::ConsumerFetchResponse(crate::sim::ConsumerFetchResponse { offset, records, hw, error, .. }) => {
                r.offset = Some(*offset);
                r.records = Some(self.ids_value(records.iter().filter_map(|(_, e)| e.map(|e| e.id))));
                r.first_offset = records.first().map(|(o, _)| *o);
                r.hw = Some(*hw);
                r.error = error.map(|e| e.name());
            }
            Body::AlterPartition { isr, leader_epoch, .. } => {
                r.isr = Some(isr.clone());
                r.leader_epoch = Some(*leader_epoch);
            }
            Body::AlterPartitionResponse { isr, error, .. } => {
                r.isr = Some(isr.clone());
                r.error = *error;
            }
            Body::LeaderAndIsr(meta) => {
                r.leader = Some(meta.leader);
                r.leader_epoch = Some(meta.leader_epoch);
                r.isr = Some(meta.isr.clone());
            }
            Body::OffsetsForLeaderEpoch { epoch, .. } => r.epoch = Some(*epoch),
            Body::OffsetsForLeaderEpochResponse { requested, answer, error, .. } => {
                r.epoch = Some(*requested);
                r.end_offset = answer.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset });
                r.error = error.map(|e| e.name());
            }
        }
        r
    }

    /// Record ids as a JSON array (null while not narrating: only records show them).
    pub fn ids_value(&self, ids: impl Iterator<Item = crate::sim::log::RecordId>) -> Value {
        if !self.narrate {
            return Value::Null;
        }
        Value::Array(ids.map(|r| Value::String(self.record_name(r))).collect())
    }
}

pub fn body_type(body: &Body) -> &'static str {
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
