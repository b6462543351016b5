//! Producers as Kafka's Java client runs them: each `produce` is a batch in the
//! accumulator; the sender sends batches to the leader its metadata names (up to
//! max.in.flight.requests.per.connection at a time), and retries retriable errors,
//! lost connections and request timeouts with backoff until delivery.timeout.ms
//! (or `retries`) runs out. An error that means stale metadata asks a broker for new
//! metadata. With enable.idempotence the batches carry the producer's epoch and
//! sequence numbers, so a retry the leader already has is not appended again.
//! Kafka: `KafkaProducer`, `RecordAccumulator`, `Sender`, `TransactionManager`.

use super::event::Event;
use super::log::RecordId;
use super::msg::{Body, KafkaError, Msg, Node};
use super::scheduler::Timer;
use super::state::{Batch, ProduceRequest};
use super::Sim;
use crate::scenario::Acks;

impl Sim {
    /// `KafkaProducer.send`: `records` new records join the accumulator as one batch,
    /// and the sender drains it.
    pub(crate) fn produce(&mut self, producer: usize, records: u32) {
        let now = self.now;
        let p = &mut self.producers[producer];
        let first_n = p.next_n;
        let ids: Vec<RecordId> = (0..records).map(|i| RecordId { producer: producer as u16, n: first_n + i }).collect();
        p.next_n += records;
        p.pending.extend(ids.iter().copied());
        let epoch = p.epoch;
        p.batches.push(Batch { ids, created_ms: now, attempts: 0, retry_at: now, request: None, epoch, sent_to: None, last_error: None });
        self.emit(Event::Produced { producer, first_n, count: records });
        self.drain(producer);
    }

    /// `Sender.sendProducerData`: fail batches past delivery.timeout.ms; with no leader
    /// known, ask for metadata; otherwise send what may go to the leader now, oldest
    /// first: not before its retry backoff (unless the leader changed since its last
    /// try), at most max.in.flight.requests.per.connection in flight, and, when
    /// idempotent, never past an earlier batch that still waits (sequence order).
    pub(crate) fn drain(&mut self, producer: usize) {
        self.expire_batches(producer);
        let now = self.now;
        let p = &self.producers[producer];
        if p.batches.iter().all(|b| b.request.is_some()) {
            return self.maybe_update_metadata(Node::Producer(producer));
        }
        let Some(leader) = p.meta.leader else {
            self.emit(Event::ProducerAwaitsLeader { producer });
            return self.request_metadata_update(Node::Producer(producer));
        };
        if p.meta.wanted {
            self.maybe_update_metadata(Node::Producer(producer));
        }
        let p = &self.producers[producer];
        if let Some(&until) = p.meta.blackout.get(&leader).filter(|&&u| u > now) {
            return self.wake_producer_at(producer, until);
        }
        let ordered = p.settings.idempotent || p.settings.max_in_flight == 1;
        let epoch = p.meta.leader_epoch;
        let mut wake = None;
        let mut i = 0;
        while i < self.producers[producer].batches.len() {
            let p = &self.producers[producer];
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
            let leader_changed = b.sent_to.is_some_and(|(l, e)| l != leader || e != epoch);
            if b.retry_at > now && !leader_changed {
                wake = Some(b.retry_at);
                if ordered {
                    break;
                }
                i += 1;
                continue;
            }
            self.send_batch(producer, i, leader);
            i += 1;
        }
        if let Some(at) = wake {
            self.wake_producer_at(producer, at);
        }
    }

    /// One produce request with one batch to `leader`.
    fn send_batch(&mut self, producer: usize, i: usize, leader: u32) {
        let settings = self.producers[producer].settings;
        let acks = settings.acks;
        let p = &self.producers[producer];
        let b = &p.batches[i];
        let producer_epoch = settings.idempotent.then_some(p.epoch);
        let ids = b.ids.clone();
        let retry = b.attempts > 0;
        let body = Body::Produce { ids: ids.clone(), acks, producer_epoch };
        let msg = self.send(Node::Producer(producer), Node::Broker(leader), body);
        let epoch = self.producers[producer].meta.leader_epoch;
        let first_n = ids[0].n;
        if acks == Acks::Zero {
            // Fire and forget: the batch is done once sent.
            let p = &mut self.producers[producer];
            p.batches.remove(i);
            p.pending.retain(|r| !ids.contains(r));
            ids.iter().for_each(|r| p.acked.push(*r));
            return self.emit(Event::ProduceSent { producer, broker: leader, first_n, count: ids.len(), retry, msg });
        }
        // On a connection still being set up the request is not sent yet: the client
        // gives the connection socket.connection.setup.timeout.ms (10 s) first, and
        // request.timeout.ms runs from the send (`NetworkClient`), so the wait is the
        // longer of the two (a request that connects late is not timed out at once).
        let wait = if self.net.would_wait_for_connection(Node::Producer(producer), Node::Broker(leader)) {
            settings.request_timeout_ms.max(10_000)
        } else {
            settings.request_timeout_ms
        };
        let timeout = self.set_timer(self.now + wait, Timer::ProduceRequestTimeout { producer, request: msg });
        let p = &mut *self.producers[producer];
        let b = &mut p.batches[i];
        b.request = Some(msg);
        b.sent_to = Some((leader, epoch));
        b.epoch = p.epoch;
        if retry {
            p.retries += 1;
        }
        p.requests.insert(msg, ProduceRequest { broker: leader, timeout });
        self.emit(Event::ProduceSent { producer, broker: leader, first_n, count: ids.len(), retry, msg });
    }

    /// `Sender.handleProduceResponse` → `completeBatch`: acknowledged (a duplicate
    /// answered from the leader's producer state counts too); a retriable error is
    /// retried while delivery.timeout.ms and `retries` allow; an error that means stale
    /// metadata asks for new metadata, taking the new leader from the answer when it
    /// names one (KIP-951).
    pub(crate) fn handle_produce_response(
        &mut self,
        msg: &Msg,
        request: u64,
        error: Option<KafkaError>,
        current_leader: Option<(u32, i32)>,
        duplicate: bool,
    ) {
        let Node::Producer(producer) = msg.to else { return };
        let Some(req) = self.producers[producer].requests.remove(&request) else {
            return self.emit(Event::ProduceResponseIgnored { producer });
        };
        self.cancel(req.timeout);
        let Some(i) = self.producers[producer].batches.iter().position(|b| b.request == Some(request)) else {
            return;
        };
        match error {
            None => {
                let b = self.producers[producer].batches.remove(i);
                let p = &mut self.producers[producer];
                p.pending.retain(|r| !b.ids.contains(r));
                b.ids.iter().for_each(|r| p.acked.push(*r));
                self.emit(Event::ProduceAcked { producer, count: b.ids.len(), duplicate });
            }
            Some(error) => {
                if let Some((leader, epoch)) = current_leader {
                    let m = &mut self.producers[producer].meta;
                    if epoch > m.leader_epoch {
                        m.leader = Some(leader);
                        m.leader_epoch = epoch;
                    }
                }
                self.retry_or_fail(producer, i, error, true);
                if error.refreshes_metadata() {
                    self.request_metadata_update(Node::Producer(producer));
                }
            }
        }
        self.drain(producer);
    }

    /// `Sender.canRetry`: retriable, within delivery.timeout.ms and `retries`: the batch
    /// goes back to the accumulator, to wait its backoff (`reenqueueBatch`); otherwise
    /// it fails, and an idempotent producer bumps its epoch (KIP-360). A request that was
    /// never `sent` (its new connection was refused: `NetworkClient` drains a batch only
    /// to a ready node) does not use up `retries`, which matters before 2.1 (KIP-91),
    /// when `retries` defaults to 0.
    fn retry_or_fail(&mut self, producer: usize, i: usize, error: KafkaError, sent: bool) {
        let now = self.now;
        let s = self.producers[producer].settings;
        let b = &self.producers[producer].batches[i];
        let in_time = s.delivery_timeout_ms.is_none_or(|limit| now < b.created_ms + limit);
        let can_retry = error.retriable() && in_time && (!sent || u64::from(b.attempts) < s.retries);
        if !can_retry {
            return self.fail_batch(producer, i, error);
        }
        let attempts = b.attempts + 1;
        let backoff = self.backoff_ms(s.retry_backoff_ms, s.retry_backoff_max_ms, attempts - 1);
        let b = &mut self.producers[producer].batches[i];
        b.attempts = attempts;
        b.request = None;
        b.retry_at = now + backoff;
        b.last_error = Some(error);
        let count = b.ids.len();
        self.emit(Event::ProduceWillRetry { producer, error, count, attempts, backoff });
    }

    fn fail_batch(&mut self, producer: usize, i: usize, error: KafkaError) {
        let b = self.producers[producer].batches.remove(i);
        if let Some(r) = b.request {
            if let Some(req) = self.producers[producer].requests.remove(&r) {
                self.cancel(req.timeout);
            }
        }
        let p = &mut self.producers[producer];
        p.pending.retain(|r| !b.ids.contains(r));
        b.ids.iter().for_each(|r| p.failed.push(*r));
        let bumped = p.settings.idempotent;
        if bumped {
            p.epoch += 1;
        }
        self.emit(Event::ProduceFailed { producer, error, count: b.ids.len(), bumped });
    }

    /// Batches past delivery.timeout.ms fail (`RecordAccumulator.expiredBatches`,
    /// `Sender.getExpiredInflightBatches`), in flight or not. Before 2.1 there is no
    /// delivery timeout (KIP-91): `retries` alone ends a batch.
    fn expire_batches(&mut self, producer: usize) {
        let now = self.now;
        let Some(limit) = self.producers[producer].settings.delivery_timeout_ms else {
            return;
        };
        while let Some(i) = self.producers[producer].batches.iter().position(|b| now >= b.created_ms + limit) {
            let error = self.producers[producer].batches[i].last_error.unwrap_or(KafkaError::RequestTimedOut);
            self.emit(Event::ProduceExpired { producer, count: self.producers[producer].batches[i].ids.len(), error });
            self.fail_batch(producer, i, KafkaError::RequestTimedOut);
        }
        let next = self.producers[producer].batches.iter().map(|b| b.created_ms + limit).min();
        if let Some(at) = next {
            self.wake_producer_at(producer, at);
        }
    }

    /// No answer within request.timeout.ms (`NetworkClient.handleTimedOutRequests`): the
    /// connection is closed, so every request on it fails with a disconnection
    /// (retriable; new metadata wanted).
    pub(crate) fn produce_request_timeout(&mut self, producer: usize, request: u64) {
        let Some(req) = self.producers[producer].requests.get(&request).copied() else {
            return;
        };
        self.close_conn(Node::Producer(producer), Node::Broker(req.broker));
        let failed = self.fail_requests_to(producer, req.broker, None, true);
        self.emit(Event::ProduceTimedOut { producer, broker: req.broker, requests: failed });
        self.client_disconnected(Node::Producer(producer), req.broker);
        self.drain(producer);
    }

    /// Every request in flight to `broker` fails with a disconnection; returns how many.
    fn fail_requests_to(&mut self, producer: usize, broker: u32, except_timer: Option<u64>, sent: bool) -> usize {
        let requests: Vec<(u64, ProduceRequest)> =
            self.producers[producer].requests.iter().filter(|(_, r)| r.broker == broker).map(|(id, r)| (*id, *r)).collect();
        for (id, r) in &requests {
            self.producers[producer].requests.remove(id);
            if Some(*id) != except_timer {
                self.cancel(r.timeout);
            }
            if let Some(i) = self.producers[producer].batches.iter().position(|b| b.request == Some(*id)) {
                self.retry_or_fail(producer, i, KafkaError::NetworkException, sent);
            }
        }
        requests.len()
    }

    /// The broker's kernel reset the connection (it was killed) or refused a new one
    /// (`refused`: the requests were never sent): every request on it fails at once.
    pub(crate) fn producer_connection_reset(&mut self, producer: usize, broker: u32, refused: bool) {
        let failed = self.fail_requests_to(producer, broker, None, !refused);
        self.emit(Event::ConnectionReset { client: Node::Producer(producer), broker, requests: failed, refused });
        self.client_disconnected(Node::Producer(producer), broker);
        self.drain(producer);
    }

    /// Sets the producer's wake-up at `at` unless one is due earlier.
    pub(crate) fn wake_producer_at(&mut self, producer: usize, at: u64) {
        let at = at.max(self.now);
        if let Some((key, when)) = self.producers[producer].wake {
            if when <= at && when >= self.now {
                return;
            }
            self.cancel(key);
        }
        let key = self.set_timer(at, Timer::ProducerWake { producer });
        self.producers[producer].wake = Some((key, at));
    }

    /// The producer's wake-up: a backoff ended, a delivery timeout is due, or its
    /// metadata is old.
    pub(crate) fn producer_wake(&mut self, producer: usize) {
        self.producers[producer].wake = None;
        self.emit(Event::ProducerWakes { producer });
        self.drain(producer);
    }
}
