//! Producers: a `produce` event sends one request with its records to the
//! leader the producer knows from metadata; no retries (a real producer would
//! retry retriable errors until delivery.timeout.ms).

use super::leader::plural;
use super::log::RecordId;
use super::{Body, KafkaError, MsgHead, Node, Sim, Timer};
use crate::record::EventRecord;
use crate::scenario::Acks;

impl Sim {
    pub(crate) fn produce(&mut self, producer: usize, records: u32) {
        let spec = self.scenario.producers[producer].clone();
        let p = &mut self.producers[producer];
        let ids: Vec<RecordId> = (0..records).map(|i| RecordId { producer: producer as u16, n: p.next_n + i }).collect();
        p.next_n += records;
        let names = self.ids_value(ids.iter().copied());
        self.event = Some(EventRecord {
            producer: Some(spec.id.clone()),
            records: Some(names),
            acks: Some(spec.acks),
            ..EventRecord::new("produce")
        });
        let Some(leader) = self.controller.leader else {
            ids.iter().for_each(|r| self.producers[producer].failed.push(*r));
            self.ev().error = Some("NOT_LEADER_OR_FOLLOWER");
            self.text = say!(
                self,
                "{} has {} record{} to send, but the partition has no leader: the write fails.",
                spec.id,
                records,
                plural(records as usize)
            );
            return;
        };
        self.ev().to = Some(crate::record::NodeName::Broker(leader));
        let sent = self.send(Node::Producer(producer), Node::Broker(leader), Body::Produce { ids: ids.clone(), acks: spec.acks });
        let p = &mut self.producers[producer];
        if spec.acks == Acks::Zero {
            // Fire and forget: the producer counts them as sent.
            ids.iter().for_each(|r| p.acked.push(*r));
        } else {
            p.pending.extend(ids.iter().copied());
            let timer = self.set_timer(self.now + spec.request_timeout_ms, Timer::ProduceRequestTimeout { producer, request: sent.id });
            self.producers[producer].requests.insert(sent.id, (ids.clone(), timer));
        }
        let first = if self.narrate { self.record_name(ids[0]) } else { String::new() };
        let range = if ids.len() == 1 { first } else { say!(self, "{first} … {}", self.record_name(ids[ids.len() - 1])) };
        self.text = say!(
            self,
            "{} sends {} record{} ({range}) to leader {leader} with acks={}.{}",
            spec.id,
            records,
            plural(records as usize),
            acks_str(spec.acks),
            sent.note()
        );
    }

    pub(crate) fn handle_produce_response(&mut self, msg: &MsgHead, request: u64, ids: Vec<RecordId>, error: Option<KafkaError>) {
        let Node::Producer(producer) = msg.to else {
            return;
        };
        let names = self.ids_value(ids.iter().copied());
        self.event = Some(EventRecord {
            records: Some(names),
            error: error.map(|e| e.name()),
            ..EventRecord::message("produce_response", msg, self)
        });
        let pname = self.scenario.producers[producer].id.clone();
        let acks = self.scenario.producers[producer].acks;
        let Some((_, timer)) = self.producers[producer].requests.remove(&request) else {
            self.text = say!(self, "{pname} gets an answer to a request it has already given up on; ignored.");
            return;
        };
        self.cancel(timer);
        let p = &mut self.producers[producer];
        p.pending.retain(|r| !ids.contains(r));
        match error {
            None => {
                ids.iter().for_each(|r| p.acked.push(*r));
                if acks == Acks::All {
                    self.invariants.note_acked(&ids);
                }
                self.text = say!(self, "{pname} gets its acknowledgement: {} record{} written.", ids.len(), plural(ids.len()));
            }
            Some(e) => {
                ids.iter().for_each(|r| p.failed.push(*r));
                self.text = say!(self, "{pname}'s write fails with {}.", e.name());
            }
        }
    }

    pub(crate) fn produce_request_timeout(&mut self, producer: usize, request: u64) {
        let pname = self.scenario.producers[producer].id.clone();
        self.event =
            Some(EventRecord { producer: Some(pname.clone()), timer: Some("produce-request-timeout"), ..EventRecord::new("timeout") });
        let Some((ids, _)) = self.producers[producer].requests.remove(&request) else {
            return;
        };
        let p = &mut self.producers[producer];
        p.pending.retain(|r| !ids.contains(r));
        ids.iter().for_each(|r| p.failed.push(*r));
        self.text = say!(
            self,
            "{pname} has had no answer for request.timeout.ms ({} ms): {} record{} count as failed (they may still be in the log).",
            self.scenario.producers[producer].request_timeout_ms,
            ids.len(),
            plural(ids.len())
        );
    }
}

pub fn acks_str(acks: Acks) -> &'static str {
    match acks {
        Acks::Zero => "0",
        Acks::One => "1",
        Acks::All => "all",
    }
}
