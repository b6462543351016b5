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
use crate::sim::log::{Entry, Log, RecordId};
use crate::sim::msg::{Body, KafkaError, Msg, Node};
use crate::sim::outbox::Out;
use crate::sim::scheduler::Timer;
use crate::sim::shared::Shared;
use crate::sim::state::{Broker, DelayedProduce};
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
    let (required_offset, duplicate) = match check_sequence(b, ids, producer_epoch, out.behavior) {
        Sequence::Refused(error) => return refuse_produce(b, msg, producer, ids, acks, error, BrokerSet::default(), None, out),
        Sequence::Duplicate { last_offset } => {
            b.record(Event::DuplicateBatch { leader, producer, first_n: ids[0].n, count: ids.len(), last_offset }, out);
            (last_offset + 1, true)
        }
        Sequence::Append => (append_batch(b, producer, ids, producer_epoch, out), false),
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

/// `UnifiedLog.analyzeAndValidateProducerState` then `ProducerAppendInfo.checkSequence`
/// (0.11+): a retry of one of the batches the producer state keeps is a duplicate
/// ([`find_duplicate_batch`]); a batch of an older producer epoch is refused; a new epoch
/// starts afresh; the next sequence is appended. Anything else, a gap or an older batch
/// the state no longer keeps, is OUT_OF_ORDER_SEQUENCE_NUMBER (from 1.1.0; 1.0.0 answered
/// a batch older than the kept ones DUPLICATE_SEQUENCE_NUMBER, no preset is 1.0).
fn check_sequence(b: &Broker, ids: &[RecordId], producer_epoch: Option<u16>, behavior: &Behavior) -> Sequence {
    let Some(epoch) = producer_epoch else {
        return Sequence::Append;
    };
    let first = ids[0];
    let Some(state) = b.producer_state.get(&first.producer) else {
        return Sequence::Append;
    };
    let kept = if behavior.producer_state_keeps_5_batches { 5 } else { 1 };
    if let Some(last_offset) = find_duplicate_batch(&b.log, ids, epoch, kept) {
        return Sequence::Duplicate { last_offset };
    }
    if epoch < state.epoch {
        return Sequence::Refused(KafkaError::InvalidProducerEpoch);
    }
    if epoch > state.epoch || first.n == state.last_n + 1 {
        return Sequence::Append;
    }
    Sequence::Refused(KafkaError::OutOfOrderSequenceNumber)
}

/// `ProducerStateEntry.findDuplicateBatch` (`ProducerIdEntry` before 3.5): a batch of the
/// producer's current epoch whose first and last sequence are those of one of the batches
/// the broker keeps for it is a duplicate, answered with that batch's last offset. The
/// broker keeps the producer's last `kept` batches, read here from the log back from its
/// end (leader and followers alike keep them: `UnifiedLog.appendAsFollower` goes through
/// the same producer state); a new producer epoch empties them
/// (`maybeUpdateProducerEpoch`). 5 batches (`NUM_BATCHES_TO_RETAIN`, KAFKA-5494, 1.0.0;
/// read at 1.0.0, 2.0.0, 2.4.0, 2.8.0, 3.7.0 and trunk of October 2024); 0.11 keeps
/// the last only (`ProducerIdEntry.isDuplicate` in `Log.analyzeAndValidateProducerState`,
/// 0.11.0.2): `producer_state_keeps_5_batches`.
fn find_duplicate_batch(log: &Log, ids: &[RecordId], epoch: u16, kept: usize) -> Option<u64> {
    let (first, last) = (ids[0], ids[ids.len() - 1]);
    let (mut batches, mut end) = (0, None);
    let mut o = log.leo();
    while o > log.base() && batches < kept {
        o -= 1;
        let Some(e) = log.get(o).filter(|e| e.id.producer == first.producer) else { continue };
        if e.producer_epoch != epoch {
            break;
        }
        let (end_n, end_offset) = *end.get_or_insert((e.id.n, o));
        if e.batch_start {
            if e.id.n == first.n && end_n == last.n {
                return Some(end_offset);
            }
            (batches, end) = (batches + 1, None);
        }
    }
    None
}

/// Appends the records in the leader's epoch; returns the offset after them. A
/// non-idempotent retry of records already here is appended again (a duplicate).
fn append_batch(b: &mut Shared<Broker>, producer: usize, ids: &[RecordId], producer_epoch: Option<u16>, out: &mut Out) -> u64 {
    let (idempotent, producer_epoch) = (producer_epoch.is_some(), producer_epoch.unwrap_or(0));
    let epoch = b.leader_epoch;
    let first_offset = b.log.leo();
    let again = b.producer_state.get(&ids[0].producer).is_some_and(|s| s.last_n >= ids[0].n);
    for (i, id) in ids.iter().enumerate() {
        b.log.append(Entry { epoch, id: *id, producer_epoch, batch_start: i == 0 && idempotent });
    }
    b.note_producer_append(ids[ids.len() - 1], producer_epoch);
    let leo = b.log.leo();
    b.record(Event::Appended { leader: b.id, producer, first_offset, count: ids.len(), leo, epoch, again }, out);
    leo
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
