//! The leader's purgatories: follower fetches waiting for data (`DelayedFetch`)
//! and acks=all writes waiting for the HW (`DelayedProduce`), completed when
//! something they wait for happens and expired by their timers; and the answer to
//! a follower's fetch, at once or from the purgatory.

use super::hw::min_isr;
use crate::sim::consumer_fetch::complete_consumer_fetches;
use crate::sim::event::{Event, Ready, Released};
use crate::sim::log::Entry;
use crate::sim::msg::{Body, FetchResponse, KafkaError, Node};
use crate::sim::outbox::Out;
use crate::sim::shared::Shared;
use crate::sim::state::{Broker, DelayedProduce, ParkedFetch};

/// `DelayedFetch.tryComplete` for a follower's fetch at `fetch_offset`: the one
/// readiness decision, at arrival and for a parked fetch. Ready when the records
/// past it reach replica.fetch.min.bytes, or (2.4–2.5, KIP-392 / KAFKA-8443 "Case
/// H", removed in 2.6 by KAFKA-9952) when the HW last sent to this follower is stale.
pub(crate) fn delayed_fetch_ready(b: &Broker, fetch_offset: u64, last_sent_hw: u64, out: &Out) -> Option<Ready> {
    let bytes = b.log.leo().saturating_sub(fetch_offset) * out.scenario.record_bytes;
    if bytes >= out.scenario.config.replica_fetch_min_bytes {
        Some(Ready::Bytes)
    } else if out.behavior.hw_move_completes_follower_fetch && last_sent_hw < b.hw {
        Some(Ready::HwStale)
    } else {
        None
    }
}

/// `DelayedOperations.checkAndCompleteAll` after the HW moved: parked consumer
/// fetches, follower fetches (where the preset releases them on an HW move),
/// then delayed produces.
pub(crate) fn try_complete_delayed_requests(b: &mut Shared<Broker>, out: &mut Out) {
    complete_consumer_fetches(b, out);
    if out.behavior.hw_move_completes_follower_fetch {
        complete_follower_fetches(b, Released::HwMoved, out);
    }
    complete_delayed_produces(b, out);
    if !out.behavior.hw_move_completes_follower_fetch && out.behavior.long_poll {
        // Said for the narration: an HW move alone does not release them.
        let parked = b.lead.as_ref().map_or(0, |ls| ls.parked_fetches.len());
        for i in 0..parked {
            let follower = super::lead(b).parked_fetches[i].follower;
            b.record(Event::FollowerFetchStaysParked { leader: b.id, follower }, out);
        }
    }
}

/// Answers the parked follower fetches that `delayed_fetch_ready` now completes,
/// each with the records past its offset and the current HW.
pub(crate) fn complete_follower_fetches(b: &mut Shared<Broker>, why: Released, out: &mut Out) {
    let Some(ls) = b.lead.as_ref() else {
        return;
    };
    let ready: Vec<ParkedFetch> = ls
        .parked_fetches
        .iter()
        .filter(|p| {
            let last_sent = ls.followers.get(&p.follower).map_or(u64::MAX, |v| v.last_sent_hw);
            delayed_fetch_ready(b, p.req.fetch_offset, last_sent, out).is_some()
        })
        .cloned()
        .collect();
    let (leader, hw) = (b.id, b.hw);
    for p in ready {
        if let Some(ls) = b.lead.as_mut() {
            ls.parked_fetches.retain(|q| q.request != p.request);
        }
        out.cancel(p.timer);
        let records = read_for_follower(b, p.req.fetch_offset, out);
        send_fetch_response(b, p.follower, p.request, p.req.fetch_offset, records, hw, None, None, out);
        b.record(Event::FollowerFetchReleased { leader, follower: p.follower, hw, why }, out);
    }
}

/// A parked fetch reaches replica.fetch.wait.max.ms: `DelayedFetch.onExpiration` →
/// `onComplete` reads again and reports the HW as it is now (all versions).
pub(crate) fn expire_parked_fetch(b: &mut Shared<Broker>, follower: u32, out: &mut Out) {
    let Some(i) = b.lead.as_ref().and_then(|ls| ls.parked_fetches.iter().position(|p| p.follower == follower)) else {
        return;
    };
    let parked = super::lead_mut(b).parked_fetches.remove(i);
    let (leader, hw) = (b.id, b.hw);
    let fetch_offset = parked.req.fetch_offset;
    let records = read_for_follower(b, fetch_offset, out);
    let n = records.len();
    let msg = send_fetch_response(b, follower, parked.request, fetch_offset, records, hw, None, None, out);
    b.record(Event::ParkedFetchExpired { leader, follower, fetch_offset, records: n, hw, msg }, out);
}

/// `DelayedProduce.tryComplete` → `Partition.checkEnoughReplicasReachOffset`: a
/// write whose offset the HW has passed is answered; with an ISR below the min
/// ISR by then, NOT_ENOUGH_REPLICAS_AFTER_APPEND.
pub(crate) fn complete_delayed_produces(b: &mut Shared<Broker>, out: &mut Out) {
    let Some(ls) = b.lead.as_ref() else {
        return;
    };
    let (leader, hw) = (b.id, b.hw);
    let maximal = ls.maximal_isr_len() as u32;
    let ready: Vec<DelayedProduce> = ls.delayed_produces.iter().filter(|d| hw >= d.required_offset).cloned().collect();
    for d in ready {
        if let Some(ls) = b.lead.as_mut() {
            ls.delayed_produces.retain(|q| q.request != d.request);
        }
        out.cancel(d.timer);
        let error = (maximal < min_isr(out)).then_some(KafkaError::NotEnoughReplicasAfterAppend);
        let body = Body::ProduceResponse { request: d.request, ids: d.ids, error, current_leader: None, duplicate: d.duplicate };
        let msg = out.send(Node::Broker(leader), Node::Producer(d.producer), body);
        b.record(Event::ProduceCompleted { leader, producer: d.producer, required_offset: d.required_offset, error, msg }, out);
    }
}

/// `DelayedProduce.onExpiration` (all versions): the write's request timeout passes
/// without the HW reaching it: REQUEST_TIMED_OUT (the records stay in the log).
pub(crate) fn expire_delayed_produce(b: &mut Shared<Broker>, request: u64, out: &mut Out) {
    let Some(i) = b.lead.as_ref().and_then(|ls| ls.delayed_produces.iter().position(|d| d.request == request)) else {
        return;
    };
    let d = super::lead_mut(b).delayed_produces.remove(i);
    let leader = b.id;
    let body =
        Body::ProduceResponse { request, ids: d.ids, error: Some(KafkaError::RequestTimedOut), current_leader: None, duplicate: false };
    let msg = out.send(Node::Broker(leader), Node::Producer(d.producer), body);
    b.record(Event::DelayedProduceExpired { leader, producer: d.producer, required_offset: d.required_offset, msg }, out);
}

/// `Partition.readRecords` for a follower: from `offset`, at least one record and
/// at most replica.fetch.max.bytes (all versions), in whole batches where the log
/// knows them (an idempotent producer's): `LogSegment.read` gives at least the first
/// batch whole (`minOneMessage`), and a batch cut by the byte limit is dropped by the
/// reader, so a follower never holds part of a batch. Without that, the producer state
/// a new leader rebuilds from its log could not answer a retry of the whole batch.
pub(crate) fn read_for_follower(b: &Broker, offset: u64, out: &Out) -> Vec<(u64, Option<Entry>)> {
    let log = &b.log;
    let per = out.scenario.record_bytes.max(1);
    let max = (out.scenario.config.replica_fetch_max_bytes / per).max(1);
    let mut end = log.leo().min(offset.saturating_add(max));
    let mut records: Vec<(u64, Option<Entry>)> = (offset..end).map(|o| (o, log.get(o))).collect();
    let (mut open, mut open_at) = (None, offset);
    for &(o, e) in &records {
        match e {
            Some(e) if e.batch_start => (open, open_at) = (Some(e), o),
            Some(e) if open.is_some_and(|s| continues(s, e, o - open_at)) => {}
            _ => open = None,
        }
    }
    let Some(start) = open else { return records };
    if !log.get(end).is_some_and(|e| !e.batch_start && continues(start, e, end - open_at)) {
        return records;
    }
    if open_at > offset {
        // The limit cuts this batch: it waits for the next fetch.
        records.truncate((open_at - offset) as usize);
        return records;
    }
    while let Some(e) = log.get(end).filter(|e| !e.batch_start && continues(start, *e, end - open_at)) {
        records.push((end, Some(e)));
        end += 1;
    }
    records
}

/// Whether `e`, `k` records after `start` (a batch's first record), is in that batch.
fn continues(start: Entry, e: Entry, k: u64) -> bool {
    e.id.producer == start.id.producer
        && u64::from(e.id.n) == u64::from(start.id.n) + k
        && e.producer_epoch == start.producer_epoch
        && e.epoch == start.epoch
}

/// The leader's Fetch response to a follower; it remembers the HW it sent
/// (`lastSentHighWatermark`, what 2.4–2.5's Case H compares).
#[allow(clippy::too_many_arguments)]
pub(crate) fn send_fetch_response(
    b: &mut Shared<Broker>,
    follower: u32,
    request: u64,
    fetch_offset: u64,
    records: Vec<(u64, Option<Entry>)>,
    hw: u64,
    error: Option<KafkaError>,
    diverging_epoch: Option<(i32, u64)>,
    out: &mut Out,
) -> u64 {
    let resp = FetchResponse {
        request,
        fetch_offset,
        records,
        hw,
        log_start_offset: b.log.start_offset,
        leader_leo: b.log.leo(),
        error,
        diverging_epoch,
    };
    if let Some(v) = b.lead.as_mut().and_then(|ls| ls.followers.get_mut(&follower)) {
        v.last_sent_hw = hw;
    }
    out.send(Node::Broker(b.id), Node::Broker(follower), Body::FetchResponse(resp))
}
