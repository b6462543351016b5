//! Producers as Kafka's Java client runs them: each `produce` is a batch in the
//! accumulator; the sender sends batches to the leader its metadata names (up to
//! max.in.flight.requests.per.connection at a time), and retries retriable errors,
//! lost connections and request timeouts with backoff until delivery.timeout.ms
//! (or `retries`) runs out. An error that means stale metadata asks a broker for new
//! metadata. With enable.idempotence the batches carry the producer's epoch and
//! sequence numbers, so a retry the leader already has is not appended again.
//! Kafka: `KafkaProducer`, `RecordAccumulator`, `Sender`, `TransactionManager`.
//!
//! The producer's rules are node functions (`outbox.rs`): each is a function of
//! the producer's own state, what woke it and an [`Out`] for its effects, and
//! reads or writes no other node; `Sim` calls them from the step's dispatch
//! (`Sim::producer_rule`).

use super::client;
use super::event::Event;
use super::log::RecordId;
use super::msg::{Body, KafkaError, Msg, Node};
use super::outbox::Out;
use super::scheduler::{Key, Timer};
use super::shared::Shared;
use super::state::{Batch, ProduceRequest, Producer};
use crate::scenario::Acks;

/// A producer's state as its rules get it: copied on its first write.
type P = Shared<Producer>;

/// `KafkaProducer.send`: `records` new records join the accumulator as one batch,
/// and the sender drains it.
pub(crate) fn produce(p: &mut P, id: usize, records: u32, out: &mut Out) {
    let now = out.now;
    let q = &mut **p;
    let first_n = q.next_n;
    let ids: Vec<RecordId> = (0..records).map(|i| RecordId { producer: id as u16, n: first_n + i }).collect();
    q.next_n += records;
    q.pending.extend(ids.iter().copied());
    let epoch = q.epoch;
    q.batches.push(Batch {
        ids,
        created_ms: now,
        attempts: 0,
        retry_at: now,
        request: None,
        epoch,
        sent_to: None,
        last_error: None,
        reenqueued_ms: None,
        unsure: None,
    });
    out.emit(Event::Produced { producer: id, first_n, count: records });
    drain(p, id, out);
}

/// `Sender.sendProducerData`, then (before 2.1) the accumulator's expiry timer.
pub(crate) fn drain(p: &mut P, id: usize, out: &mut Out) {
    send_what_may_go(p, id, out);
    arm_accumulator_expiry(p, id, out);
}

/// `Sender.sendProducerData`: fail batches past delivery.timeout.ms (before 2.1: past
/// request.timeout.ms in the accumulator); with no leader known, ask for metadata;
/// otherwise send what may go to the leader now, oldest first: not before its retry
/// backoff (from 3.7, KIP-951, unless the leader changed since its last try), at most
/// max.in.flight.requests.per.connection in flight, and, when idempotent, never past an
/// earlier batch that still waits (sequence order).
fn send_what_may_go(p: &mut P, id: usize, out: &mut Out) {
    expire_batches(p, id, out);
    let now = out.now;
    if p.batches.iter().all(|b| b.request.is_some()) {
        return maybe_update_metadata(p, id, out);
    }
    let Some(leader) = p.meta.leader else {
        out.emit(Event::ProducerAwaitsLeader { producer: id });
        return request_metadata_update(p, id, out);
    };
    if p.meta.wanted {
        maybe_update_metadata(p, id, out);
    }
    if let Some(&until) = p.meta.blackout.get(&leader).filter(|&&u| u > now) {
        return wake_at(p, id, until, out);
    }
    let ordered = p.settings.idempotent || p.settings.max_in_flight == 1;
    let epoch = p.meta.leader_epoch;
    let mut wake = None;
    let mut i = 0;
    while i < p.batches.len() {
        let in_flight = p.requests.values().filter(|r| r.broker == leader).count() as u64;
        if in_flight >= p.settings.max_in_flight {
            break;
        }
        let b = &p.batches[i];
        if let Some(r) = b.request {
            // In sequence order, nothing passes a batch still in flight to another
            // broker (the old leader): its fate decides the next sequence.
            if ordered && p.requests.get(&r).is_some_and(|q| q.broker != leader) {
                break;
            }
            i += 1;
            continue;
        }
        let leader_changed = out.behavior.retry_skips_backoff_for_new_leader && b.sent_to.is_some_and(|(l, e)| l != leader || e != epoch);
        if b.retry_at > now && !leader_changed {
            wake = Some(b.retry_at);
            if ordered {
                break;
            }
            i += 1;
            continue;
        }
        if p.settings.idempotent && should_stop_drain_in_sequence(p, i) {
            break;
        }
        // A batch done once written (acks=0) leaves the queue: the next is at `i` now.
        if !send_batch(p, id, i, leader, out) {
            i += 1;
        }
    }
    if let Some(at) = wake {
        wake_at(p, id, at, out);
    }
}

/// `RecordAccumulator.shouldStopDrainBatchesForPartition` (1.0+, KAFKA-5494; read at
/// 1.0.0, 2.4.1, 3.7.0 and trunk of October 2024): an idempotent producer's waiting
/// batch `i` (the deque's first) stays while it is a retry (it has a sequence) and
/// not the first batch still owed an answer (`TransactionManager.firstInFlightSequence`):
/// retries go one at a time, each after the one before it is answered, so none arrives
/// behind more batches than the broker keeps. A new batch (no sequence yet) stays while
/// a batch of an older producer epoch is still owed an answer
/// (`hasInflightBatches` and `hasStaleProducerIdAndEpoch`, 2.5+, KIP-360; before,
/// `hasUnresolvedSequence` held it until the producer id was reset). Before 1.0 idempotence needs
/// max.in.flight.requests.per.connection = 1, so nothing is there to pass.
fn should_stop_drain_in_sequence(p: &Producer, i: usize) -> bool {
    let b = &p.batches[i];
    let owed = p.batches[..i].iter().filter(|e| e.sent_to.is_some());
    if b.sent_to.is_some() {
        return owed.count() > 0;
    }
    owed.into_iter().any(|e| e.epoch != p.epoch)
}

/// One produce request with one batch to `leader`; returns whether the batch is done
/// (`done_once_written`) and has left the queue.
fn send_batch(p: &mut P, id: usize, i: usize, leader: u32, out: &mut Out) -> bool {
    let settings = p.settings;
    let acks = settings.acks;
    let b = &p.batches[i];
    let producer_epoch = settings.idempotent.then_some(p.epoch);
    let ids = b.ids.clone();
    let retry = b.attempts > 0;
    let body = Body::Produce { ids: ids.clone(), acks, producer_epoch };
    let msg = out.send(Node::Producer(id), Node::Broker(leader), body);
    let epoch = p.meta.leader_epoch;
    let first_n = ids[0].n;
    if done_once_written(acks, Node::Producer(id), Node::Broker(leader), out) {
        let q = &mut **p;
        q.batches.remove(i);
        q.pending.retain(|r| !ids.contains(r));
        ids.iter().for_each(|r| q.acked.push(*r));
        out.emit(Event::ProduceSent { producer: id, broker: leader, first_n, count: ids.len(), retry, msg });
        return true;
    }
    // On a connection still being set up the request is not sent yet (`NetworkClient`
    // drains a batch only to a ready node): it waits while the attempt lasts, until the
    // attempt is given up (`connect.rs`), and request.timeout.ms runs from the send. So
    // the wait is the longer of the two. Before 2.1 a batch waiting in the accumulator
    // expires after request.timeout.ms (`expire_waiting_batches_before_kip_91`), which
    // this request's timer stands for.
    // A handshake a heal lets cross sends it on that SYN: request.timeout.ms runs from there.
    let (me, server, timeout_ms) = (Node::Producer(id), Node::Broker(leader), settings.request_timeout_ms);
    let wait = match out.connection_wait_bound(me, server) {
        Some(longest) if settings.delivery_timeout_ms.is_some() => timeout_ms.max(longest + 1),
        _ => timeout_ms,
    };
    let at = out.send_deadline(me, server, out.now + wait, timeout_ms);
    let timeout = out.set_timer(at, Timer::ProduceRequestTimeout { producer: id, request: msg });
    let q = &mut **p;
    let b = &mut q.batches[i];
    b.request = Some(msg);
    b.sent_to = Some((leader, epoch));
    b.epoch = q.epoch;
    if retry {
        q.retries += 1;
    }
    q.requests.insert(msg, ProduceRequest { broker: leader, timeout });
    out.emit(Event::ProduceSent { producer: id, broker: leader, first_n, count: ids.len(), retry, msg });
    false
}

/// `NetworkClient.handleCompletedSends`: a request that expects no answer (acks=0) is
/// complete once written to its connection, and the batch with it. `Sender.sendProducerData`
/// drains batches only to a node whose connection is ready (`NetworkClient.ready`), so a
/// batch for a broker whose host refuses the connection (a killed process, or a KRaft broker
/// that has not opened its listeners) is never written: it stays in the accumulator, and the
/// refusal makes the producer want new metadata. Here it is sent and kept in flight like any
/// other until the refusal comes back, then retried as a request never sent (read at
/// 0.10.2.2, 2.4.1 and 3.7.0). Before, every acks=0 write to a dead leader counted as done
/// and was lost.
fn done_once_written(acks: Acks, me: Node, server: Node, out: &Out) -> bool {
    acks == Acks::Zero && !out.refuses_request(me, server)
}

/// `Sender.handleProduceResponse` → `completeBatch`: acknowledged (a duplicate
/// answered from the leader's producer state counts too); a retriable error is
/// retried while delivery.timeout.ms and `retries` allow; an error that means stale
/// metadata asks for new metadata, taking the new leader from the answer when it
/// names one (KIP-951).
pub(crate) fn on_produce_response(
    p: &mut P,
    id: usize,
    request: u64,
    error: Option<KafkaError>,
    current_leader: Option<(u32, i32)>,
    duplicate: bool,
    out: &mut Out,
) {
    let Some(req) = p.requests.remove(&request) else {
        return out.emit(Event::ProduceResponseIgnored { producer: id });
    };
    out.cancel(req.timeout);
    let Some(i) = p.batches.iter().position(|b| b.request == Some(request)) else {
        return;
    };
    match error {
        None => {
            let q = &mut **p;
            let b = q.batches.remove(i);
            q.pending.retain(|r| !b.ids.contains(r));
            b.ids.iter().for_each(|r| q.acked.push(*r));
            out.emit(Event::ProduceAcked { producer: id, count: b.ids.len(), duplicate });
        }
        Some(error) => {
            if let Some((leader, epoch)) = current_leader {
                let m = &mut p.meta;
                if epoch > m.leader_epoch {
                    m.leader = Some(leader);
                    m.leader_epoch = epoch;
                }
            }
            retry_or_fail(p, id, i, error, true, out);
            if error.refreshes_metadata() {
                request_metadata_update(p, id, out);
            }
        }
    }
    drain(p, id, out);
}

/// `Sender.canRetry`: retriable, within delivery.timeout.ms and `retries`: the batch
/// goes back to the accumulator, to wait its backoff (`reenqueueBatch`); otherwise
/// it fails, and an idempotent producer bumps its epoch (KIP-360). A request that was
/// never `sent` (its new connection was refused: `NetworkClient` drains a batch only
/// to a ready node) does not use up `retries`, which matters before 2.1 (KIP-91),
/// when `retries` defaults to 0.
fn retry_or_fail(p: &mut P, id: usize, i: usize, error: KafkaError, sent: bool, out: &mut Out) {
    let now = out.now;
    let s = p.settings;
    let b = &p.batches[i];
    let in_time = s.delivery_timeout_ms.is_none_or(|limit| now < b.created_ms + limit);
    let can_retry = error.retriable() && in_time && (!sent || u64::from(b.attempts) < s.retries);
    if !can_retry {
        return fail_batch(p, id, i, error, out);
    }
    let attempts = b.attempts + 1;
    let backoff = client::backoff_ms(out, s.retry_backoff_ms, s.retry_backoff_max_ms, attempts - 1);
    let b = &mut p.batches[i];
    b.attempts = attempts;
    b.request = None;
    b.retry_at = now + backoff;
    b.last_error = Some(error);
    if sent {
        b.reenqueued_ms = Some(now);
    }
    // Why a later append of these records may be their second: an answer given after
    // an append (kept over a lost answer, which may have come before any append), or
    // no answer at all.
    let appended = matches!(error, KafkaError::NotEnoughReplicasAfterAppend | KafkaError::RequestTimedOut);
    if sent && (appended || (error == KafkaError::NetworkException && b.unsure.is_none())) {
        b.unsure = Some(error);
    }
    let count = b.ids.len();
    out.emit(Event::ProduceWillRetry { producer: id, error, count, attempts, backoff });
}

fn fail_batch(p: &mut P, id: usize, i: usize, error: KafkaError, out: &mut Out) {
    let b = p.batches.remove(i);
    if let Some(r) = b.request {
        if let Some(req) = p.requests.remove(&r) {
            out.cancel(req.timeout);
        }
    }
    let q = &mut **p;
    q.pending.retain(|r| !b.ids.contains(r));
    b.ids.iter().for_each(|r| q.failed.push(*r));
    let bumped = q.settings.idempotent;
    if bumped {
        q.epoch += 1;
    }
    out.emit(Event::ProduceFailed { producer: id, error, count: b.ids.len(), bumped });
}

/// Batches past delivery.timeout.ms fail (`RecordAccumulator.expiredBatches`,
/// `Sender.getExpiredInflightBatches`), in flight or not. Before 2.1 there is no
/// delivery timeout (KIP-91): see [`expire_waiting_batches_before_kip_91`].
fn expire_batches(p: &mut P, id: usize, out: &mut Out) {
    let now = out.now;
    let Some(limit) = p.settings.delivery_timeout_ms else {
        return expire_waiting_batches_before_kip_91(p, id, out);
    };
    while let Some(i) = p.batches.iter().position(|b| now >= b.created_ms + limit) {
        let error = p.batches[i].last_error.unwrap_or(KafkaError::RequestTimedOut);
        out.emit(Event::ProduceExpired { producer: id, count: p.batches[i].ids.len(), error });
        fail_batch(p, id, i, KafkaError::RequestTimedOut, out);
    }
    let next = p.batches.iter().map(|b| b.created_ms + limit).min();
    if let Some(at) = next {
        wake_at(p, id, at, out);
    }
}

/// `RecordAccumulator.expiredBatches(requestTimeout, now)` and `ProducerBatch.maybeExpire`
/// before 2.1 (read at 0.10.2.2, 0.11.0.2 and 2.0.1; KIP-91 replaced them with
/// delivery.timeout.ms in 2.1.0): a batch waiting in the accumulator (not in flight: no
/// leader, a refused connection, a backoff) fails with a TimeoutException once more than
/// request.timeout.ms has passed since it was created, or, once a request that carried it
/// failed (`inRetry`), since that attempt plus retry.backoff.ms; oldest first, stopping at
/// the first that has not expired. A batch in flight is ended by its request's own timeout
/// (and `retries`); with max.in.flight.requests.per.connection = 1 nothing expires while a
/// batch is in flight (the partition is muted).
fn expire_waiting_batches_before_kip_91(p: &mut P, id: usize, out: &mut Out) {
    while let Some(i) = first_waiting_batch(p).filter(|&(_, deadline)| out.now > deadline).map(|(i, _)| i) {
        out.emit(Event::ProduceExpired { producer: id, count: p.batches[i].ids.len(), error: KafkaError::RequestTimedOut });
        fail_batch(p, id, i, KafkaError::RequestTimedOut, out);
    }
}

/// Before 2.1: the first batch that may expire in the accumulator (see
/// [`expire_waiting_batches_before_kip_91`]) and the last millisecond it may still wait.
fn first_waiting_batch(p: &Producer) -> Option<(usize, u64)> {
    let s = &p.settings;
    if s.delivery_timeout_ms.is_some() || (s.max_in_flight == 1 && p.batches.iter().any(|b| b.request.is_some())) {
        return None;
    }
    let i = p.batches.iter().position(|b| b.request.is_none())?;
    let b = &p.batches[i];
    let deadline = match b.reenqueued_ms {
        None => b.created_ms + s.request_timeout_ms,
        Some(at) => at + s.retry_backoff_ms + s.request_timeout_ms,
    };
    Some((i, deadline))
}

/// Before 2.1, after the sender's work: a timer for the first millisecond past the
/// deadline of the first batch still waiting in the accumulator (`requestTimeoutMs <
/// waited`), moved or cancelled as batches are sent, answered and retried.
fn arm_accumulator_expiry(p: &mut P, id: usize, out: &mut Out) {
    let want = first_waiting_batch(p).map(|(_, deadline)| deadline + 1);
    if p.expiry.map(|(_, at)| at) == want {
        return;
    }
    if let Some((key, _)) = p.expiry.take() {
        out.cancel(key);
    }
    if let Some(at) = want {
        let key = out.set_timer(at, Timer::AccumulatorExpiry { producer: id });
        p.expiry = Some((key, at));
    }
}

/// The accumulator's expiry timer (before 2.1): the sender runs, and expires the batch.
pub(crate) fn on_accumulator_expiry(p: &mut P, id: usize, out: &mut Out) {
    p.expiry = None;
    out.emit(Event::ProducerWakes { producer: id });
    drain(p, id, out);
}

/// No answer within request.timeout.ms (`NetworkClient.handleTimedOutRequests`): the
/// connection is closed, so every request on it fails with a disconnection
/// (retriable; new metadata wanted).
pub(crate) fn on_request_timeout(p: &mut P, id: usize, request: u64, out: &mut Out) {
    let Some(req) = p.requests.get(&request).copied() else {
        return;
    };
    out.close_conn(Node::Producer(id), Node::Broker(req.broker));
    let failed = fail_requests_to(p, id, req.broker, true, out);
    out.emit(Event::ProduceTimedOut { producer: id, broker: req.broker, requests: failed });
    disconnected(p, id, req.broker, out);
    drain(p, id, out);
}

/// The connection to `broker` is made at `sent`: the requests that waited on it go out
/// then, and request.timeout.ms runs from there (`Out::restart_request_timeout`).
pub(crate) fn on_connection_made(p: &mut P, id: usize, broker: u32, sent: u64, out: &mut Out) {
    let timeout = p.settings.request_timeout_ms;
    let waiting: Vec<(u64, Key)> = p.requests.iter().filter(|(_, r)| r.broker == broker).map(|(m, r)| (*m, r.timeout)).collect();
    for (request, old) in waiting {
        let timer = out.restart_request_timeout(old, sent, timeout, Timer::ProduceRequestTimeout { producer: id, request });
        if let Some(r) = p.requests.get_mut(&request) {
            r.timeout = timer;
        }
    }
    client::connection_made(p, Node::Producer(id), broker, sent, out);
}

/// Every request in flight to `broker` fails with a disconnection; returns how many.
fn fail_requests_to(p: &mut P, id: usize, broker: u32, sent: bool, out: &mut Out) -> usize {
    let requests: Vec<(u64, ProduceRequest)> = p.requests.iter().filter(|(_, r)| r.broker == broker).map(|(id, r)| (*id, *r)).collect();
    for (request, r) in &requests {
        p.requests.remove(request);
        out.cancel(r.timeout);
        if let Some(i) = p.batches.iter().position(|b| b.request == Some(*request)) {
            retry_or_fail(p, id, i, KafkaError::NetworkException, sent, out);
        }
    }
    requests.len()
}

/// The broker's kernel reset the connection (it was killed) or refused a new one
/// (`refused`: the requests were never sent): every request on it fails at once.
pub(crate) fn on_connection_reset(p: &mut P, id: usize, broker: u32, refused: bool, out: &mut Out) {
    let failed = fail_requests_to(p, id, broker, !refused, out);
    out.emit(Event::ConnectionReset { client: Node::Producer(id), broker, requests: failed, refused });
    disconnected(p, id, broker, out);
    drain(p, id, out);
}

/// Sets the producer's wake-up at `at` unless one is due earlier.
fn wake_at(p: &mut P, id: usize, at: u64, out: &mut Out) {
    let at = at.max(out.now);
    if let Some((key, when)) = p.wake {
        if when <= at && when >= out.now {
            return;
        }
        out.cancel(key);
    }
    let key = out.set_timer(at, Timer::ProducerWake { producer: id });
    p.wake = Some((key, at));
}

/// The producer's wake-up: a backoff ended, a delivery timeout is due, or its
/// metadata is old.
pub(crate) fn on_wake(p: &mut P, id: usize, out: &mut Out) {
    p.wake = None;
    out.emit(Event::ProducerWakes { producer: id });
    drain(p, id, out);
}

/// The clients' metadata rules (`client.rs`), then the producer's wake-up or drain.
pub(crate) fn request_metadata_update(p: &mut P, id: usize, out: &mut Out) {
    if let Some(at) = client::request_metadata_update(p, Node::Producer(id), out) {
        wake_at(p, id, at, out);
    }
}

pub(crate) fn maybe_update_metadata(p: &mut P, id: usize, out: &mut Out) {
    if let Some(at) = client::maybe_update_metadata(p, Node::Producer(id), out) {
        wake_at(p, id, at, out);
    }
}

pub(crate) fn on_metadata_response(p: &mut P, id: usize, msg: &Msg, request: u64, leader: Option<u32>, leader_epoch: i32, out: &mut Out) {
    if client::metadata_response(p, msg, request, leader, leader_epoch, out).is_some() {
        drain(p, id, out);
    }
}

pub(crate) fn on_metadata_timeout(p: &mut P, id: usize, out: &mut Out) {
    if let Some(at) = client::metadata_timeout(p, Node::Producer(id), out) {
        wake_at(p, id, at, out);
    }
}

pub(crate) fn disconnected(p: &mut P, id: usize, broker: u32, out: &mut Out) {
    if let Some(at) = client::disconnected(p, Node::Producer(id), broker, out) {
        wake_at(p, id, at, out);
    }
}
