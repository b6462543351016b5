//! The follower: its fetcher loop (Fetch, and OffsetsForLeaderEpoch before 2.8) and
//! `processPartitionData`, each rule a node function of the broker's own state
//! (issue 27, `outbox.rs`); where to truncate is `truncation.rs`.
//! Kafka: `AbstractFetcherThread`, `ReplicaFetcherThread`.

use super::consumer_fetch::complete_consumer_fetches;
use super::event::Event;
use super::event::TruncationRule;
use super::log::Entry;
use super::msg::{Body, FetchRequest, FetchResponse, KafkaError, Node};
use super::outbox::Out;
use super::scheduler::Timer;
use super::shared::Shared;
use super::state::{Broker, FetcherState, Role};
use super::truncation::{fetch_offset_and_truncate, offset_truncation_state, truncate, truncate_on_diverging_epoch, Halt};
use crate::scenario::Truncation;

/// A follower (re)starts its fetcher: truncate first where the preset says so, then fetch.
pub(crate) fn start_fetching(b: &mut Shared<Broker>, out: &mut Out) {
    if !b.alive || b.role != Role::Follower {
        return;
    }
    if b.needs_truncation && matches!(out.behavior.truncation, Truncation::EpochRequest | Truncation::EpochRequestMultiRound) {
        send_offsets_for_leader_epoch(b, out);
    } else {
        send_fetch(b, out);
    }
}

/// `AbstractFetcherThread.maybeFetch`: Fetch(fetch offset = LEO, last fetched epoch).
pub(crate) fn send_fetch(b: &mut Shared<Broker>, out: &mut Out) {
    clear_fetcher(b, out);
    let id = b.id;
    let fetch_offset = b.log.leo();
    let Some(leader) = b.leader.filter(|&l| l != id) else {
        return b.record(Event::FetchSent { follower: id, leader: None, fetch_offset, msg: None }, out);
    };
    let req = FetchRequest {
        replica: id,
        broker_epoch: b.broker_epoch.filter(|_| out.behavior.alter_partition_checks_broker_epochs),
        fetch_offset,
        last_fetched_epoch: if out.behavior.truncation == Truncation::DivergingEpoch { b.log.last_epoch() } else { None },
        current_leader_epoch: b.leader_epoch,
        log_start_offset: b.log.start_offset,
    };
    let msg = out.send(Node::Broker(id), Node::Broker(leader), Body::Fetch(req));
    let timeout = out.set_timer(fetcher_deadline(id, leader, out), Timer::FetchRequestTimeout { follower: id });
    b.fetcher = FetcherState::Fetching { request: msg, timeout };
    b.record(Event::FetchSent { follower: id, leader: Some(leader), fetch_offset, msg: Some(msg) }, out);
}

/// Cancels whatever the fetcher was waiting for.
pub(crate) fn clear_fetcher(b: &mut Shared<Broker>, out: &mut Out) {
    match b.fetcher {
        FetcherState::Fetching { timeout, .. } | FetcherState::Truncating { timeout, .. } => out.cancel(timeout),
        FetcherState::Waiting { timer } => out.cancel(timer),
        FetcherState::Idle => {}
    }
    b.fetcher = FetcherState::Idle;
}

/// The fetcher waits `delay_ms` before fetching again (`AbstractFetcherThread`'s
/// backoff; in `textbook`, the idle poll).
pub(crate) fn fetch_later(b: &mut Shared<Broker>, delay_ms: u64, out: &mut Out) {
    clear_fetcher(b, out);
    let timer = out.set_timer(out.now + delay_ms, Timer::FetcherRetry { follower: b.id });
    b.fetcher = FetcherState::Waiting { timer };
}

/// The fetcher's wait is over (an idle poll in `textbook`, or a backoff): fetch
/// again, or ask again where the epoch ends if truncation is not done.
pub(crate) fn fetcher_retry(b: &mut Shared<Broker>, out: &mut Out) {
    b.fetcher = FetcherState::Idle;
    if b.leader.filter(|_| b.alive && b.role == Role::Follower).is_none() {
        return b.record(Event::FetcherNoLeader { broker: b.id }, out);
    }
    if b.needs_truncation && matches!(out.behavior.truncation, Truncation::EpochRequest | Truncation::EpochRequestMultiRound) {
        return start_fetching(b, out);
    }
    send_fetch(b, out);
}

/// When the fetcher gives its request up: the broker's request.timeout.ms after it is
/// sent (`BrokerBlockingSender`'s NetworkClient, F6 in docs/exactness.md), or, while its
/// connection to the leader is not made, replica.socket.timeout.ms
/// (`NetworkClientUtils.awaitReady`), unless a heal lets the handshake cross first
/// (`Out::send_deadline`).
pub(crate) fn fetcher_deadline(id: u32, leader: u32, out: &Out) -> u64 {
    let c = &out.scenario.config;
    let (me, server, timeout_ms) = (Node::Broker(id), Node::Broker(leader), c.broker_request_timeout_ms());
    if out.would_wait_for_connection(me, server) {
        out.send_deadline(me, server, out.now + c.replica_socket_timeout_ms, timeout_ms)
    } else {
        out.now + timeout_ms
    }
}

/// The connection to the leader is made at `sent`: the Fetch (or OffsetsForLeaderEpoch)
/// that waited in `awaitReady` goes out then, and the broker's request.timeout.ms runs
/// from there (`Out::restart_request_timeout`).
pub(crate) fn fetcher_connection_made(b: &mut Shared<Broker>, leader: u32, sent: u64, out: &mut Out) {
    if b.leader != Some(leader) {
        return;
    }
    let (ms, timer) = (out.scenario.config.broker_request_timeout_ms(), Timer::FetchRequestTimeout { follower: b.id });
    if let FetcherState::Fetching { timeout, .. } | FetcherState::Truncating { timeout, .. } = &mut b.fetcher {
        *timeout = out.restart_request_timeout(*timeout, sent, ms, timer);
    }
}

/// The Fetch got no answer in time: the connection is closed (what TCP held on it is
/// gone), and the fetcher backs off replica.fetch.backoff.ms before fetching again.
pub(crate) fn fetch_request_timeout(b: &mut Shared<Broker>, out: &mut Out) {
    if let Some(leader) = b.leader {
        out.close_conn(Node::Broker(b.id), Node::Broker(leader));
    }
    b.fetcher = FetcherState::Idle;
    fetch_later(b, out.scenario.config.replica_fetch_backoff_ms, out);
    b.record(Event::FetchRequestTimedOut { follower: b.id }, out);
}

/// The leader's kernel reset the connection (the leader was killed): the Fetch in
/// flight fails at once, and the fetcher backs off replica.fetch.backoff.ms.
pub(crate) fn follower_connection_reset(b: &mut Shared<Broker>, leader: u32, out: &mut Out) {
    let id = b.id;
    let waiting = matches!(b.fetcher, FetcherState::Fetching { .. } | FetcherState::Truncating { .. });
    if !waiting || b.leader != Some(leader) {
        return b.record(Event::ResetIgnored { node: Node::Broker(id), from: leader }, out);
    }
    clear_fetcher(b, out);
    fetch_later(b, out.scenario.config.replica_fetch_backoff_ms, out);
    b.record(Event::FollowerConnectionReset { follower: id, leader }, out);
}

/// A Fetch response from `leader` arrives at the follower
/// (`AbstractFetcherThread.processFetchRequest`). Returns a halt the broker must make
/// (`halt_if_truncation_not_allowed`).
pub(crate) fn handle_fetch_response(b: &mut Shared<Broker>, leader: u32, resp: &FetchResponse, out: &mut Out) -> Option<Halt> {
    let current = matches!(b.fetcher, FetcherState::Fetching { request, .. } if request == resp.request);
    if !current {
        b.record(Event::FetchResponseIgnored { follower: b.id, leader }, out);
        return None;
    }
    clear_fetcher(b, out);
    if let Some(error) = resp.error {
        return fetch_failed(b, leader, error, resp, out);
    }
    if let Some((epoch, end_offset)) = resp.diverging_epoch {
        truncate_on_diverging_epoch(b, epoch, end_offset, out);
        send_fetch(b, out);
        return None;
    }
    process_partition_data(b, leader, resp, out);
    None
}

/// `ReplicaFetcherThread.processPartitionData` (all versions): append, then
/// HW = max(log start, min(leader HW, LEO)), then the log start offset; from 3.4
/// (KAFKA-14334) an HW move releases consumer fetches parked here.
fn process_partition_data(b: &mut Shared<Broker>, leader: u32, resp: &FetchResponse, out: &mut Out) {
    let id = b.id;
    if resp.fetch_offset != b.log.leo() {
        b.record(Event::StaleFetchResponse { follower: id }, out);
        return after_response(b, 0, out);
    }
    let hw_before = b.hw;
    let records = resp.records.len();
    for (_, entry) in &resp.records {
        match entry {
            Some(e) => append_replicated(b, e),
            None => b.log.append_initial(),
        }
    }
    let (leo, start) = (b.log.leo(), b.log.start_offset);
    let hw = resp.hw.min(leo).max(start);
    let log_start = (resp.log_start_offset > start && resp.log_start_offset <= hw).then_some(resp.log_start_offset);
    b.record(Event::FollowerAppended { follower: id, leader, records, leo, leader_hw: resp.hw, hw_before, hw, log_start }, out);
    if hw != hw_before && out.behavior.follower_hw_completes_consumer_fetch {
        complete_consumer_fetches(b, out);
    }
    after_response(b, records, out);
}

/// A replicated record is appended with its batch's producer id, epoch and sequence, and
/// the follower's producer state follows them as the leader's does, so a new leader knows
/// an idempotent producer's batches (`UnifiedLog.appendAsFollower` →
/// `analyzeAndValidateProducerState` → `ProducerStateManager.update`, every version from
/// 0.11: `Log.append` with `isFromClient = false`, read at 0.11.0.2, 2.0.0 and 3.7.0).
fn append_replicated(b: &mut Broker, e: &Entry) {
    b.log.append(*e);
    b.note_producer_append(e.id, e.producer_epoch);
}

/// The next Fetch goes out at once; a textbook follower with nothing new waits first.
fn after_response(b: &mut Shared<Broker>, appended: usize, out: &mut Out) {
    if !out.behavior.long_poll && appended == 0 {
        let wait = out.scenario.config.replica_fetch_wait_max_ms;
        fetch_later(b, wait, out);
        b.record(Event::FetcherWaits { follower: b.id, ms: wait }, out);
    } else {
        send_fetch(b, out);
    }
}

/// An error in the Fetch response (`AbstractFetcherThread.handlePartitionsWithErrors`):
/// OFFSET_OUT_OF_RANGE truncates; a fenced epoch waits for metadata; others back off.
fn fetch_failed(b: &mut Shared<Broker>, leader: u32, error: KafkaError, resp: &FetchResponse, out: &mut Out) -> Option<Halt> {
    b.record(Event::FetchFailed { follower: b.id, leader, error }, out);
    match error {
        KafkaError::OffsetOutOfRange => {
            let halt = fetch_offset_and_truncate(b, resp, out);
            if halt.is_none() {
                send_fetch(b, out);
            }
            return halt;
        }
        // It stops fetching until new metadata arrives.
        KafkaError::FencedLeaderEpoch => {}
        _ => fetch_later(b, out.scenario.config.replica_fetch_backoff_ms, out),
    }
    None
}

/// `AbstractFetcherThread.maybeTruncate` (0.11–2.7): OffsetsForLeaderEpoch for the
/// follower's latest epoch.
pub(crate) fn send_offsets_for_leader_epoch(b: &mut Shared<Broker>, out: &mut Out) {
    clear_fetcher(b, out);
    let id = b.id;
    let Some(leader) = b.leader.filter(|&l| l != id) else {
        return;
    };
    let epoch = b.log.latest_epoch();
    let current_leader_epoch = b.leader_epoch;
    let msg = out.send(Node::Broker(id), Node::Broker(leader), Body::OffsetsForLeaderEpoch { epoch, current_leader_epoch });
    let timeout = out.set_timer(fetcher_deadline(id, leader, out), Timer::FetchRequestTimeout { follower: id });
    b.fetcher = FetcherState::Truncating { request: msg, timeout };
    b.record(Event::EpochQuerySent { follower: id, leader, epoch, msg }, out);
}

/// The follower truncates by the leader's answer (`AbstractFetcherThread.truncateToEpochEndOffsets`):
/// complete, it fetches; otherwise (KIP-279) it asks again about its own latest epoch.
pub(crate) fn handle_offsets_for_leader_epoch_response(
    b: &mut Shared<Broker>,
    request: u64,
    requested: i32,
    answer: Option<(i32, u64)>,
    error: Option<KafkaError>,
    out: &mut Out,
) {
    let id = b.id;
    if !matches!(b.fetcher, FetcherState::Truncating { request: r, .. } if r == request) {
        return b.record(Event::EpochEndIgnored { follower: id }, out);
    }
    clear_fetcher(b, out);
    if let Some(error) = error {
        fetch_later(b, out.scenario.config.replica_fetch_backoff_ms, out);
        return b.record(Event::EpochQueryFailed { follower: id, error }, out);
    }
    let leo = b.log.leo();
    let (target, complete) = match answer {
        // UNDEFINED: fall back to the HW (`truncateToHighWatermark`).
        None => (b.hw.min(leo), true),
        Some((-1, o)) => offset_truncation_state(b, None, o),
        Some((e, o)) => offset_truncation_state(b, Some(e), o),
    };
    let rule = if out.behavior.truncation == Truncation::EpochRequest {
        TruncationRule::EpochRequest
    } else {
        TruncationRule::EpochRequestMultiRound
    };
    truncate(b, target, rule, out);
    if complete {
        b.needs_truncation = false;
        b.epoch_query_loop = false;
        send_fetch(b, out);
    } else {
        // KAFKA-10706 (up to 2.6.0): truncating to its own log end left the epoch cache
        // as it was, so a follower that led an epoch without writing in it asks about
        // that epoch again, gets the same answer, and never fetches. Told once.
        if target >= leo && b.log.latest_epoch() == requested && !b.epoch_query_loop {
            b.epoch_query_loop = true;
            b.record(Event::EpochQueryLoops { follower: id, epoch: requested }, out);
        }
        send_offsets_for_leader_epoch(b, out);
    }
}
