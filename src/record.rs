//! The step record (CONTRACT.md §3): what one step did and the whole state
//! after it. The narration sentence is written by the handler that ran the
//! step, from the same values it put in the state.

use crate::invariants::Violation;
use crate::scenario::Acks;
use crate::sim::{Body, Msg, MsgHead, Node, Role, Sim};
use serde::Serialize;
use serde_json::Value;

/// A participant as the record names it: a broker id, a client id, or "controller".
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
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

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EpochEnd {
    pub epoch: i32,
    pub end_offset: u64,
}

/// The step's event: `type` and the fields that type carries.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EventRecord {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<NodeName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<NodeName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broker: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub producer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timer: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetch_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_fetched_epoch: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acks: Option<Acks>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hw: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hw_before: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hw_after: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leo_after: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diverging_epoch: Option<EpochEnd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader: Option<Option<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_epoch: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isr_before: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isr: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clean: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<(u32, u32)>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unflushed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leo_before: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncate_to: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_offset: Option<EpochEnd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preferred_read_replica: Option<u32>,
    /// Messages this step put on the wire (ids into `in_flight`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
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

#[derive(Debug, Clone, Serialize)]
pub struct PartitionRecord {
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub isr: Vec<u32>,
    pub partition_epoch: u32,
    pub maximal_isr: Vec<u32>,
    pub cut_links: Vec<(u32, u32)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LogRecord {
    pub offset: u64,
    pub epoch: i32,
    pub id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct FollowerRecord {
    pub broker: u32,
    pub fetch_offset: Option<u64>,
    pub last_caught_up_ms: Option<u64>,
    pub in_isr: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ParkedRecord {
    pub kind: &'static str,
    pub from: NodeName,
    pub offset: u64,
    pub expire_ms: u64,
}

#[derive(Debug, Clone, Serialize)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub followers: Option<Vec<FollowerRecord>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parked: Vec<ParkedRecord>,
}

#[derive(Debug, Clone, Serialize)]
pub struct InFlightRecord {
    pub id: u64,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub from: NodeName,
    pub to: NodeName,
    pub sent_ms: u64,
    pub arrive_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetch_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_fetched_epoch: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acks: Option<Acks>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hw: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diverging_epoch: Option<EpochEnd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isr: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader: Option<Option<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_epoch: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_offset: Option<EpochEnd>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProducerRecord {
    pub id: String,
    pub acks: Acks,
    pub acked: Vec<String>,
    pub failed: Vec<String>,
    pub pending: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ConsumerRecord {
    pub id: String,
    pub fetch_from: Option<u32>,
    pub position: u64,
    pub records_read: u64,
    pub read: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_tail: Option<usize>,
}

impl StepRecord {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
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
                r.records = Some(Value::from(f.records.len()));
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
