//! A produce request at the leader: check an idempotent producer's sequence, append,
//! maybe move the HW, answer by acks.
//! Kafka: `ReplicaManager.appendRecords`, `Partition.appendRecordsToLeader`,
//! `UnifiedLog.analyzeAndValidateProducerState`, `ProducerStateManager`.

use super::hw::{maybe_increment_leader_hw, min_isr};
use super::lead_mut;
use super::purgatory::{complete_delayed_produces, complete_follower_fetches};
use crate::scenario::{Acks, Behavior};
use crate::sim::consumer_fetch::complete_consumer_fetches;
use crate::sim::event::{Event, HwCause, Released};
use crate::sim::log::{Entry, RecordId};
use crate::sim::msg::{Body, KafkaError, Msg, Node};
use crate::sim::outbox::Out;
use crate::sim::scheduler::Timer;
use crate::sim::shared::Shared;
use crate::sim::state::{Broker, DelayedProduce, ProducerEntry};
use crate::sim::vecmap::BrokerSet;

/// What the producer state says about a batch (`ProducerAppendInfo.checkSequence`).
enum Sequence {
    /// Not idempotent, or the next sequence (or a new producer epoch): append.
    Append,
    /// An idempotent retry of records already in the log: answered, not appended.
    Duplicate {
        last_offset: u64,
    },
    Refused(KafkaError),
}

/// `Partition.appendRecordsToLeader` and `ReplicaManager.appendRecords` for a produce:
/// refused by a non-leader, and (acks=all) while the ISR is under the min ISR; an
/// idempotent producer's retry of records the log already has is answered from the
/// producer state without appending (`analyzeAndValidateProducerState`); otherwise
/// the records are appended in the leader's epoch (without idempotence a retry is
/// appended again) and answered by acks. An acks=all write waits at most the request's
/// timeout (`timeout_ms`, the producer's request.timeout.ms, which the request carries).
#[allow(clippy::too_many_arguments)]
pub(crate) fn handle_produce_request(
    b: &mut Shared<Broker>,
    msg: &Msg,
    ids: &[RecordId],
    acks: Acks,
    producer_epoch: Option<u16>,
    timeout_ms: u64,
    out: &mut Out,
) {
    let Node::Producer(producer) = msg.from else {
        return;
    };
    let leader = b.id;
    let Some(ls) = b.lead.as_ref() else {
        let error = b.not_leader_error(out.behavior);
        let current = current_leader_named(b, error, out.behavior);
        return refuse_produce(b, msg, producer, ids, acks, error, BrokerSet::default(), current, out);
    };
    if acks == Acks::All && (ls.isr.len() as u32) < min_isr(out) {
        let isr = BrokerSet::of(&ls.isr);
        return refuse_produce(b, msg, producer, ids, acks, KafkaError::NotEnoughReplicas, isr, None, out);
    }
    let (required_offset, duplicate) = match check_sequence(b, ids, producer_epoch) {
        Sequence::Refused(error) => return refuse_produce(b, msg, producer, ids, acks, error, BrokerSet::default(), None, out),
        Sequence::Duplicate { last_offset } => {
            b.record(Event::DuplicateBatch { leader, producer, first_n: ids[0].n, count: ids.len(), last_offset }, out);
            (last_offset + 1, true)
        }
        Sequence::Append => (append_batch(b, producer, ids, producer_epoch.unwrap_or(0), out), false),
    };
    // The append path also tries the HW: it matters when the leader is alone in the ISR.
    let hw_moved = maybe_increment_leader_hw(b, HwCause::Produce, out).is_some();
    let answer = match acks {
        Acks::Zero => None,
        Acks::One => {
            let body = Body::ProduceResponse { request: msg.id, ids: ids.to_vec(), error: None, current_leader: None, duplicate };
            Some(out.send(msg.to, msg.from, body))
        }
        Acks::All if b.hw >= required_offset => {
            // A duplicate already below the HW is answered at once.
            let body = Body::ProduceResponse { request: msg.id, ids: ids.to_vec(), error: None, current_leader: None, duplicate };
            Some(out.send(msg.to, msg.from, body))
        }
        Acks::All => {
            let expire_ms = out.now + timeout_ms;
            let timer = out.set_timer(expire_ms, Timer::ProduceExpiry { leader, request: msg.id });
            let parked = DelayedProduce { producer, request: msg.id, ids: ids.to_vec(), required_offset, expire_ms, timer, duplicate };
            lead_mut(b).delayed_produces.push(parked);
            None
        }
    };
    b.record(Event::ProduceAnswer { leader, producer, acks, required_offset, msg: answer }, out);
    // INCREASED: produce, then fetch purgatory; SAME: fetch purgatory (`addCompletePurgatoryAction`).
    if hw_moved {
        complete_delayed_produces(b, out);
        complete_consumer_fetches(b, out);
    }
    complete_follower_fetches(b, Released::NewData, out);
}

/// `ProducerAppendInfo.checkSequence` against the broker's producer state (all
/// versions with idempotence, 0.11+): a batch of an older producer epoch is refused;
/// a new epoch starts afresh; in the same epoch, records at or below the last
/// sequence are a duplicate (the producer sends at most 5 batches at once, which is
/// what the broker's cache of the last 5 batches covers), the next sequence is
/// appended, a gap is refused.
fn check_sequence(b: &Broker, ids: &[RecordId], producer_epoch: Option<u16>) -> Sequence {
    let Some(epoch) = producer_epoch else {
        return Sequence::Append;
    };
    let (first, last) = (ids[0], ids[ids.len() - 1]);
    let Some(state) = b.producer_state.get(&first.producer) else {
        return Sequence::Append;
    };
    if epoch < state.epoch {
        return Sequence::Refused(KafkaError::InvalidProducerEpoch);
    }
    if epoch > state.epoch || first.n == state.last_n + 1 {
        return Sequence::Append;
    }
    if last.n <= state.last_n {
        // Where the batch's last record sits in the log (it is near the end).
        let leo = b.log.leo();
        let mut o = leo;
        while o > b.log.base() {
            o -= 1;
            if b.log.get(o).is_some_and(|e| e.id == last) {
                return Sequence::Duplicate { last_offset: o };
            }
        }
    }
    Sequence::Refused(KafkaError::OutOfOrderSequenceNumber)
}

/// Appends the records in the leader's epoch; returns the offset after them. A
/// non-idempotent retry of records already here is appended again (a duplicate).
fn append_batch(b: &mut Shared<Broker>, producer: usize, ids: &[RecordId], producer_epoch: u16, out: &mut Out) -> u64 {
    let epoch = b.leader_epoch;
    let first_offset = b.log.leo();
    let again = b.producer_state.get(&ids[0].producer).is_some_and(|s| s.last_n >= ids[0].n);
    for id in ids {
        b.log.append(Entry { epoch, id: *id, producer_epoch });
    }
    note_producer_append(b, ids[ids.len() - 1], producer_epoch);
    let leo = b.log.leo();
    b.record(Event::Appended { leader: b.id, producer, first_offset, count: ids.len(), leo, epoch, again }, out);
    leo
}

/// The producer state after an append (leader or follower): this producer's last sequence.
pub(crate) fn note_producer_append(b: &mut Broker, last: RecordId, producer_epoch: u16) {
    let state = &mut b.producer_state;
    let last_n = state.get(&last.producer).map_or(last.n, |s| if producer_epoch > s.epoch { last.n } else { s.last_n.max(last.n) });
    state.insert(last.producer, ProducerEntry { epoch: producer_epoch, last_n });
}

/// The leader (and its epoch) a produce answer with `error` names: from 3.7 (KIP-951,
/// Produce v10; `KafkaApis.handleProduceRequest` → `getCurrentLeader`) an answer
/// NOT_LEADER_OR_FOLLOWER names the leader the broker knows of, if another; no other
/// error does, and before 3.7 none does (`produce_response_names_leader`).
pub(crate) fn current_leader_named(b: &Broker, error: KafkaError, behavior: &Behavior) -> Option<(u32, i32)> {
    let names = behavior.produce_response_names_leader && error == KafkaError::NotLeaderOrFollower;
    b.leader.filter(|&l| names && l != b.id).map(|l| (l, b.leader_epoch))
}

/// The error answer to a produce; nothing is appended. It may name the leader
/// (`current_leader_named`). An acks=0 producer expects no answer, so the broker closes
/// its connection instead (`KafkaApis.handleProduceRequest`, every version from 0.10.2.2
/// to 4.0: "the server will close socket server so that the producer client will know
/// that some error has happened and will refresh its metadata"); the producer hears the
/// disconnection one hop later and asks for new metadata (`NetworkClient.processDisconnection`).
#[allow(clippy::too_many_arguments)]
fn refuse_produce(
    b: &mut Shared<Broker>,
    msg: &Msg,
    producer: usize,
    ids: &[RecordId],
    acks: Acks,
    error: KafkaError,
    isr: BrokerSet,
    current_leader: Option<(u32, i32)>,
    out: &mut Out,
) {
    let closed = acks == Acks::Zero;
    let sent = if closed {
        out.reset_conn(msg.from, msg.to);
        out.send(msg.to, msg.from, Body::Reset { refused: false })
    } else {
        let body = Body::ProduceResponse { request: msg.id, ids: ids.to_vec(), error: Some(error), current_leader, duplicate: false };
        out.send(msg.to, msg.from, body)
    };
    let min_isr = min_isr(out);
    let named_leader = current_leader.map(|(l, _)| l);
    b.record(Event::ProduceRefused { broker: b.id, producer, error, isr, min_isr, named_leader, closed, msg: sent }, out);
}
