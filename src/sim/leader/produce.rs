//! A produce request at the leader: append, maybe move the HW, answer by acks.
//! Kafka: `ReplicaManager.appendRecords`, `Partition.appendRecordsToLeader`.

use crate::scenario::Acks;
use crate::sim::event::{Event, HwCause, Released};
use crate::sim::log::{Entry, RecordId};
use crate::sim::msg::{Body, KafkaError, Msg, Node};
use crate::sim::scheduler::Timer;
use crate::sim::state::DelayedProduce;
use crate::sim::vecmap::BrokerSet;
use crate::sim::Sim;

impl Sim {
    /// `Partition.appendRecordsToLeader` and `ReplicaManager.appendRecords` for a produce:
    /// refused by a non-leader, and (acks=all) while the ISR is under the min ISR;
    /// otherwise appended in the leader's epoch and answered by acks.
    pub(crate) fn handle_produce_request(&mut self, msg: &Msg, ids: &[RecordId], acks: Acks) {
        let Node::Broker(leader) = msg.to else { return };
        let Node::Producer(producer) = msg.from else {
            return;
        };
        let b = self.broker(leader);
        let Some(ls) = b.lead.as_ref() else {
            return self.refuse_produce(msg, producer, ids, KafkaError::NotLeaderOrFollower, BrokerSet::default());
        };
        if acks == Acks::All && (ls.isr.len() as u32) < self.effective_min_isr() {
            let isr = BrokerSet::of(&ls.isr);
            return self.refuse_produce(msg, producer, ids, KafkaError::NotEnoughReplicas, isr);
        }
        let epoch = b.leader_epoch;
        let first_offset = b.log.leo();
        for id in ids {
            self.broker_mut(leader).log.append(Entry { epoch, id: *id });
        }
        let leo = self.broker(leader).log.leo();
        self.emit(Event::Appended { leader, producer, first_offset, count: ids.len(), leo, epoch });
        // The append path also tries the HW: it matters when the leader is alone in the ISR.
        let hw_moved = self.maybe_increment_leader_hw(leader, HwCause::Produce).is_some();
        let answer = match acks {
            Acks::Zero => None,
            Acks::One => Some(self.send(msg.to, msg.from, Body::ProduceResponse { request: msg.id, ids: ids.to_vec(), error: None })),
            Acks::All => {
                let expire_ms = self.now + self.scenario.producers[producer].request_timeout_ms;
                let timer = self.set_timer(expire_ms, Timer::ProduceExpiry { leader, request: msg.id });
                let parked = DelayedProduce { producer, request: msg.id, ids: ids.to_vec(), required_offset: leo, expire_ms, timer };
                self.lead_mut(leader).delayed_produces.push(parked);
                None
            }
        };
        self.emit(Event::ProduceAnswer { leader, producer, acks, required_offset: leo, msg: answer });
        // INCREASED: produce, then fetch purgatory; SAME: fetch purgatory (`addCompletePurgatoryAction`).
        if hw_moved {
            self.complete_delayed_produces(leader);
            self.complete_consumer_fetches(leader);
        }
        self.complete_follower_fetches(leader, Released::NewData);
    }

    /// The error answer to a produce; nothing is appended.
    fn refuse_produce(&mut self, msg: &Msg, producer: usize, ids: &[RecordId], error: KafkaError, isr: BrokerSet) {
        let Node::Broker(broker) = msg.to else { return };
        let body = Body::ProduceResponse { request: msg.id, ids: ids.to_vec(), error: Some(error) };
        let sent = self.send(msg.to, msg.from, body);
        let min_isr = self.effective_min_isr();
        self.emit(Event::ProduceRefused { broker, producer, error, isr, min_isr, msg: sent });
    }
}
