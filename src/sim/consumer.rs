//! Consumers, reading from the leader or from the follower the leader names
//! (KIP-392). The consumer keeps its own metadata: after a leader change it
//! validates its position with OffsetsForLeaderEpoch and detects truncation
//! (KIP-320, 2.3+) instead of reading on from a position the new leader never had.
//! Kafka: the consumer's `Fetcher` / `FetchCollector`, `SubscriptionState`,
//! `OffsetsForLeaderEpochUtils`.
//!
//! The consumer's rules are node functions (`outbox.rs`): each is a function of the
//! consumer's own state, what woke it and an [`Out`] for its effects, and reads or
//! writes no other node; `Sim` calls them from the step's dispatch
//! (`Sim::consumer_rule`). The broker's side of a consumer fetch is in
//! `consumer_fetch.rs`.

use super::client;
use super::event::Event;
use super::msg::{Body, ConsumerFetchResponse, KafkaError, Msg, Node};
use super::outbox::Out;
use super::pvec::PVec;
use super::scheduler::{Key, Timer};
use super::shared::Shared;
use super::state::{ClientMeta, Consumer, ConsumerFetch};
use crate::scenario::{ConsumerSpec, OffsetReset, Scenario};

/// A consumer's state as its rules get it: copied on its first write.
type C = Shared<Consumer>;

impl Consumer {
    /// A consumer joining at its position (or where auto.offset.reset puts it), with
    /// the metadata it bootstraps from: the leader and leader epoch known now.
    pub(crate) fn join(spec: ConsumerSpec, scenario: &Scenario, leader: Option<u32>, leader_epoch: i32, now: u64) -> Consumer {
        let settings = spec.settings(scenario.preset);
        let position = spec.position.unwrap_or(match settings.auto_offset_reset {
            OffsetReset::Earliest => 0,
            _ => scenario.initial.log_end_offset,
        });
        let mut meta = ClientMeta::new();
        meta.leader = leader;
        meta.leader_epoch = leader_epoch;
        meta.updated_ms = now;
        Consumer {
            spec,
            settings,
            position,
            position_epoch: None,
            records_read: 0,
            read: PVec::new(),
            fetch: None,
            meta,
            preferred: None,
            awaiting_validation: false,
            stopped: None,
        }
    }

    /// The broker its fetch (or validation) in flight goes to.
    pub fn fetch_target(&self) -> Option<u32> {
        match self.fetch {
            Some(ConsumerFetch::InFlight { broker, .. } | ConsumerFetch::Validating { broker, .. }) => Some(broker),
            _ => None,
        }
    }
}

/// Where the consumer's next fetch goes: the replica the leader named while that
/// lasts (metadata.max.age.ms), else the leader it knows of.
fn target(c: &Consumer, out: &Out) -> Option<u32> {
    match c.preferred {
        Some((f, until)) if out.behavior.follower_fetching && out.now < until => Some(f),
        _ => c.meta.leader,
    }
}

/// `Fetcher.sendFetches`: a fetch at the consumer's position carrying the leader
/// epoch it knows (KIP-320); first, if the leader changed, the position is
/// validated; with no leader known it asks for metadata and retries after
/// retry.backoff.ms.
pub(crate) fn send_fetch(c: &mut C, id: usize, out: &mut Out) {
    if c.stopped.is_some() {
        return;
    }
    let _ = client::maybe_update_metadata(c, Node::Consumer(id), out);
    if c.awaiting_validation {
        return validate_position(c, id, out);
    }
    let Some(broker) = target(c, out) else {
        let _ = client::request_metadata_update(c, Node::Consumer(id), out);
        let timer = out.set_timer(out.now + c.settings.retry_backoff_ms, Timer::ConsumerRequestTimeout { consumer: id });
        c.fetch = Some(ConsumerFetch::Backoff { timer });
        return out.emit(Event::ConsumerWaitsForLeader { consumer: id });
    };
    let offset = c.position;
    let leader_epoch = c.meta.leader_epoch;
    let msg = out.send(Node::Consumer(id), Node::Broker(broker), Body::ConsumerFetch { offset, leader_epoch });
    let timeout = request_timeout(c, id, broker, out);
    c.fetch = Some(ConsumerFetch::InFlight { broker, request: msg, timeout });
    out.emit(Event::ConsumerFetchSent { consumer: id, broker, offset, msg });
}

/// The timer of a request to `broker` made now: request.timeout.ms, from its send if it
/// waits for a handshake a heal lets cross (`Out::send_deadline`); waiting unsent, it is
/// given up request.timeout.ms after it was made (`ConsumerNetworkClient`'s unsent queue).
fn request_timeout(c: &C, id: usize, broker: u32, out: &mut Out) -> Key {
    let timeout_ms = c.settings.request_timeout_ms;
    let at = out.send_deadline(Node::Consumer(id), Node::Broker(broker), out.now + timeout_ms, timeout_ms);
    out.set_timer(at, Timer::ConsumerRequestTimeout { consumer: id })
}

/// KIP-320 (`OffsetsForLeaderEpochUtils`): the consumer asks the leader where the
/// epoch of its last record ends; below its position means the log was truncated.
fn validate_position(c: &mut C, id: usize, out: &mut Out) {
    let (Some(epoch), Some(leader)) = (c.position_epoch, c.meta.leader) else {
        c.awaiting_validation = false;
        return send_fetch(c, id, out);
    };
    let current_leader_epoch = c.meta.leader_epoch;
    let msg = out.send(Node::Consumer(id), Node::Broker(leader), Body::OffsetsForLeaderEpoch { epoch, current_leader_epoch });
    let timeout = request_timeout(c, id, leader, out);
    c.fetch = Some(ConsumerFetch::Validating { broker: leader, request: msg, timeout });
    out.emit(Event::ConsumerValidates { consumer: id, broker: leader, epoch, msg });
}

/// The leader's answer to a consumer's OffsetsForLeaderEpoch
/// (`SubscriptionState.maybeCompleteValidation`): an end below the position is
/// truncation: with auto.offset.reset the consumer goes back to that end (the first
/// offset known to diverge), without it, it stops (LogTruncationException).
pub(crate) fn on_validation_response(
    c: &mut C,
    id: usize,
    request: u64,
    answer: Option<(i32, u64)>,
    error: Option<KafkaError>,
    out: &mut Out,
) {
    match c.fetch {
        Some(ConsumerFetch::Validating { request: r, timeout, .. }) if r == request => out.cancel(timeout),
        _ => return out.emit(Event::ConsumerResponseIgnored { consumer: id }),
    }
    c.fetch = None;
    if let Some(error) = error {
        c.preferred = None;
        return fetch_failed(c, id, error, out);
    }
    let position = c.position;
    let reset = c.settings.auto_offset_reset;
    let consumer = &mut **c;
    consumer.awaiting_validation = false;
    match answer {
        Some((_, end)) if end < position && reset == OffsetReset::None => {
            consumer.stopped = Some(KafkaError::OffsetOutOfRange);
            out.emit(Event::ConsumerTruncationDetected { consumer: id, end, position, stopped: true });
        }
        Some((epoch, end)) if end < position => {
            consumer.position = end;
            consumer.position_epoch = Some(epoch);
            out.emit(Event::ConsumerTruncationDetected { consumer: id, end, position, stopped: false });
            send_fetch(c, id, out);
        }
        _ => {
            out.emit(Event::ConsumerValidated { consumer: id, position });
            send_fetch(c, id, out);
        }
    }
}

/// The consumer's `FetchCollector`: records advance its position; errors move it
/// (auto.offset.reset), send it back to the leader, or refresh its metadata and
/// back it off; then it fetches again.
pub(crate) fn on_fetch_response(c: &mut C, id: usize, msg: &Msg, resp: &ConsumerFetchResponse, out: &mut Out) {
    let Node::Broker(from) = msg.from else { return };
    match c.fetch {
        Some(ConsumerFetch::InFlight { request, timeout, .. }) if request == resp.request => out.cancel(timeout),
        _ => return out.emit(Event::ConsumerResponseIgnored { consumer: id }),
    }
    c.fetch = None;
    let preferred = c.preferred.map(|p| p.0);
    match (resp.error, resp.preferred) {
        (Some(KafkaError::OffsetOutOfRange), _) if preferred == Some(from) => {
            c.preferred = None;
            out.emit(Event::ConsumerBackToLeader { consumer: id, from });
        }
        (Some(KafkaError::OffsetOutOfRange), _) => {
            let consumer = &mut **c;
            match consumer.settings.auto_offset_reset {
                OffsetReset::None => {
                    consumer.stopped = Some(KafkaError::OffsetOutOfRange);
                    return out.emit(Event::ConsumerStopped { consumer: id, error: KafkaError::OffsetOutOfRange });
                }
                OffsetReset::Earliest => consumer.position = resp.log_start,
                OffsetReset::Latest => consumer.position = resp.hw,
            }
            consumer.position_epoch = None;
            let position = consumer.position;
            out.emit(Event::ConsumerOffsetReset { consumer: id, from, position });
        }
        (Some(error), _) => {
            if error_forgets_preferred_replica(error, out) {
                c.preferred = None;
            }
            return fetch_failed(c, id, error, out);
        }
        (None, Some(to)) => {
            let until = out.now + c.settings.metadata_max_age_ms;
            c.preferred = Some((to, until));
            out.emit(Event::ConsumerRedirected { consumer: id, to });
        }
        (None, None) if resp.records.is_empty() => out.emit(Event::ConsumerGotNothing { consumer: id, from, hw: resp.hw }),
        (None, None) => {
            let n = resp.records.len() as u64;
            let consumer = &mut **c;
            for (o, e) in &resp.records {
                if let Some(e) = e {
                    consumer.read.push((*o, e.id));
                }
            }
            consumer.position = resp.offset + n;
            consumer.position_epoch = Some(resp.records.last().and_then(|(_, e)| e.map(|e| e.epoch)).unwrap_or(0));
            consumer.records_read += n;
            let position = consumer.position;
            out.emit(Event::ConsumerReceived { consumer: id, from, count: n, position });
        }
    }
    send_fetch(c, id, out);
}

/// `Fetcher.initializeCompletedFetch`'s error branches (`FetchCollector.handleInitializeErrors`
/// from 3.7): from 3.3.2/3.4.0 (KAFKA-14379) an error that asks for new metadata also forgets
/// the preferred read replica (`requestMetadataUpdate(tp)`); in 2.4–3.3.1 it only asked for
/// metadata (read at 2.4.1, 2.8.2, 3.3.2 and 3.7.0: `fetch_error_forgets_preferred_replica`).
/// UNKNOWN_LEADER_EPOCH is only logged, in every version: the replica is kept.
fn error_forgets_preferred_replica(error: KafkaError, out: &Out) -> bool {
    out.behavior.fetch_error_forgets_preferred_replica && error != KafkaError::UnknownLeaderEpoch
}

/// An error that means stale metadata or a lost replica: the consumer asks for new metadata
/// and fetches again after retry.backoff.ms. Its caller has forgotten the preferred replica
/// where it should: after a failed connection always (2.4–3.3.1 keep it until the metadata
/// marks the replica offline, which the model's metadata does not carry; KAFKA-14379's
/// `onFailure` forgets it at once from 3.3.2), after an error answer by
/// `error_forgets_preferred_replica`.
fn fetch_failed(c: &mut C, id: usize, error: KafkaError, out: &mut Out) {
    let _ = client::request_metadata_update(c, Node::Consumer(id), out);
    let timer = out.set_timer(out.now + c.settings.retry_backoff_ms, Timer::ConsumerRequestTimeout { consumer: id });
    c.fetch = Some(ConsumerFetch::Backoff { timer });
    out.emit(Event::ConsumerFetchFailed { consumer: id, error });
}

/// No answer within request.timeout.ms (the connection is closed and new metadata
/// wanted), or the retry backoff is over: fetch again. A request still waiting on its
/// connection was never sent: `ConsumerNetworkClient.failExpiredRequests` fails it
/// request.timeout.ms after it was made and nothing closes the connection (the fetch's
/// failure handler only forgets the preferred replica: `AbstractFetch.handleFetchFailure`
/// at 4.0): the attempt goes on, and the next fetch waits on it (read at 2.4.1 and 4.0.0).
pub(crate) fn on_request_timeout(c: &mut C, id: usize, out: &mut Out) {
    let after_backoff = matches!(c.fetch, Some(ConsumerFetch::Backoff { .. }));
    let mut unsent = false;
    if let Some(broker) = c.fetch_target() {
        let (me, server) = (Node::Consumer(id), Node::Broker(broker));
        c.preferred = None;
        if let (Some(ConsumerFetch::InFlight { request, .. } | ConsumerFetch::Validating { request, .. }), true) =
            (c.fetch, out.is_connecting(me, server))
        {
            out.drop_unsent_request(request);
            unsent = true;
        } else {
            out.close_conn(me, server);
            c.fetch = None;
            let _ = client::disconnected(c, me, broker, out);
        }
    }
    c.fetch = None;
    out.emit(Event::ConsumerRetries { consumer: id, after_backoff, unsent });
    send_fetch(c, id, out);
}

/// The connection to `broker` is made at `sent`: the fetch (or validation) that waited
/// on it goes out then (`Out::restart_request_timeout`), and so does a metadata request.
pub(crate) fn on_connection_made(c: &mut C, id: usize, broker: u32, sent: u64, out: &mut Out) {
    let timeout_ms = c.settings.request_timeout_ms;
    if c.fetch_target() == Some(broker) {
        if let Some(ConsumerFetch::InFlight { timeout, .. } | ConsumerFetch::Validating { timeout, .. }) = &mut c.fetch {
            *timeout = out.restart_request_timeout(*timeout, sent, timeout_ms, Timer::ConsumerRequestTimeout { consumer: id });
        }
    }
    client::connection_made(c, Node::Consumer(id), broker, sent, out);
}

/// The broker reset the connection: the fetch in flight on it fails at once.
pub(crate) fn on_connection_reset(c: &mut C, id: usize, broker: u32, out: &mut Out) {
    let requests = usize::from(c.fetch_target() == Some(broker));
    out.emit(Event::ConnectionReset { client: Node::Consumer(id), broker, requests, refused: false });
    let _ = client::disconnected(c, Node::Consumer(id), broker, out);
    if c.fetch_target() == Some(broker) {
        if let Some(ConsumerFetch::InFlight { timeout, .. } | ConsumerFetch::Validating { timeout, .. }) = c.fetch {
            out.cancel(timeout);
        }
        c.fetch = None;
        c.preferred = None;
        fetch_failed(c, id, KafkaError::NetworkException, out);
    }
}

/// The answer to the consumer's metadata request (`client::metadata_response`).
pub(crate) fn on_metadata_response(c: &mut C, id: usize, msg: &Msg, request: u64, leader: Option<u32>, leader_epoch: i32, out: &mut Out) {
    if let Some(changed) = client::metadata_response(c, msg, request, leader, leader_epoch, out) {
        metadata_changed(c, id, changed, out);
    }
}

/// The consumer's metadata request timed out (`client::metadata_timeout`). Consumers
/// fetch continuously: a refresh they want goes out with their next fetch or retry
/// (`maybe_update_metadata` is called there), so the wake-up it asks for is not set.
pub(crate) fn on_metadata_timeout(c: &mut C, id: usize, out: &mut Out) {
    let _ = client::metadata_timeout(c, Node::Consumer(id), out);
}

/// KIP-320's consumer side (2.3+, `consumer_leader_epoch`): new metadata with a new
/// leader epoch means the position must be validated before the next fetch; a consumer
/// waiting for a leader fetches now.
fn metadata_changed(c: &mut C, id: usize, changed: bool, out: &mut Out) {
    if changed && out.behavior.consumer_leader_epoch && c.position_epoch.is_some() {
        c.awaiting_validation = true;
    }
    if let Some(ConsumerFetch::Backoff { timer }) = c.fetch {
        if changed {
            out.cancel(timer);
            c.fetch = None;
            send_fetch(c, id, out);
        }
    }
}
