//! Producers: a `produce` event sends one request with its records to the
//! leader the producer knows from metadata; no retries (a real producer would
//! retry retriable errors until delivery.timeout.ms).
//! Kafka: `KafkaProducer`, `Sender`.

use super::event::Event;
use super::log::RecordId;
use super::msg::{Body, KafkaError, Msg, Node};
use super::scheduler::Timer;
use super::Sim;
use crate::scenario::Acks;

impl Sim {
    /// `KafkaProducer.send` → `Sender.sendProduceRequest`: one request with `records`
    /// new records to the leader; it fails at once if the partition has no leader.
    pub(crate) fn produce(&mut self, producer: usize, records: u32) {
        let spec = &self.scenario.producers[producer];
        let (acks, timeout) = (spec.acks, spec.request_timeout_ms);
        let p = &mut self.producers[producer];
        let first_n = p.next_n;
        let ids: Vec<RecordId> = (0..records).map(|i| RecordId { producer: producer as u16, n: first_n + i }).collect();
        p.next_n += records;
        let Some(leader) = self.controller.leader else {
            ids.iter().for_each(|r| self.producers[producer].failed.push(*r));
            return self.emit(Event::Produced { producer, first_n, count: records, leader: None, msg: None });
        };
        let msg = self.send(Node::Producer(producer), Node::Broker(leader), Body::Produce { ids: ids.clone(), acks });
        let p = &mut self.producers[producer];
        if acks == Acks::Zero {
            // Fire and forget: the producer counts them as sent.
            ids.iter().for_each(|r| p.acked.push(*r));
        } else {
            p.pending.extend(ids.iter().copied());
            let timer = self.set_timer(self.now + timeout, Timer::ProduceRequestTimeout { producer, request: msg });
            self.producers[producer].requests.insert(msg, (ids, timer));
        }
        self.emit(Event::Produced { producer, first_n, count: records, leader: Some(leader), msg: Some(msg) });
    }

    /// `Sender.handleProduceResponse`: acknowledged or failed, unless the producer has given up on it.
    pub(crate) fn handle_produce_response(&mut self, msg: &Msg, request: u64, ids: &[RecordId], error: Option<KafkaError>) {
        let Node::Producer(producer) = msg.to else {
            return;
        };
        let Some((_, timer)) = self.producers[producer].requests.remove(&request) else {
            return self.emit(Event::ProduceResponseIgnored { producer });
        };
        self.cancel(timer);
        let p = &mut self.producers[producer];
        p.pending.retain(|r| !ids.contains(r));
        match error {
            None => {
                ids.iter().for_each(|r| p.acked.push(*r));
                self.emit(Event::ProduceAcked { producer, count: ids.len() });
            }
            Some(error) => {
                ids.iter().for_each(|r| p.failed.push(*r));
                self.emit(Event::ProduceFailed { producer, error });
            }
        }
    }

    /// No answer within request.timeout.ms: the records count as failed (they may still be in the log).
    pub(crate) fn produce_request_timeout(&mut self, producer: usize, request: u64) {
        let Some((ids, _)) = self.producers[producer].requests.remove(&request) else {
            return;
        };
        let p = &mut self.producers[producer];
        p.pending.retain(|r| !ids.contains(r));
        ids.iter().for_each(|r| p.failed.push(*r));
        self.emit(Event::ProduceTimedOut { producer, count: ids.len() });
    }
}
