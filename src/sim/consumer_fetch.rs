//! A broker's side of consumer fetches: the leader, or the follower the leader
//! names (KIP-392), serves records below its own HW
//! (`FetchIsolation.HIGH_WATERMARK`); a fetch at the HW waits in the purgatory
//! until the HW moves or fetch.max.wait.ms passes. Each rule is a node function of
//! the broker's own state (issue 27, `outbox.rs`); the consumer's own rules are
//! node functions in `consumer.rs`.
//! Kafka: `ReplicaManager.fetchMessages`, `ReplicaManager.findPreferredReadReplica`,
//! `LocalLog.read`, `DelayedFetch`.

use super::event::{Event, Served};
use super::log::Entry;
use super::msg::{Body, ConsumerFetchResponse, KafkaError, Msg, Node};
use super::outbox::Out;
use super::scheduler::Timer;
use super::shared::Shared;
use super::state::{Broker, ParkedConsumerFetch};
use crate::scenario::{AboveHw, Behavior};

/// What a consumer's fetch request carries besides its offset and epoch: the replica it
/// prefers to read from (its rack, KIP-392) and how long it may wait (fetch.max.wait.ms).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FetchAsks {
    pub fetch_from: Option<u32>,
    pub max_wait_ms: u64,
}

/// A consumer fetch arrives at a broker (`ReplicaManager.fetchMessages`): a replica
/// that neither leads nor is the consumer's preferred one refuses it; from 2.1
/// (KIP-320) another leader epoch than the replica's is refused too; the leader
/// names the preferred read replica when there is one (`findPreferredReadReplica`),
/// at once from 3.2 (KAFKA-13767), after fetch.max.wait.ms before.
pub(crate) fn handle_consumer_fetch(b: &mut Shared<Broker>, msg: &Msg, offset: u64, leader_epoch: i32, asks: FetchAsks, out: &mut Out) {
    let Node::Consumer(c) = msg.from else { return };
    let id = b.id;
    let is_leader = b.lead.is_some();
    let preferred = asks.fetch_from.filter(|_| out.behavior.follower_fetching);
    // A broker not registered yet has no partitions (`getPartitionOrError`).
    if !is_leader && (preferred != Some(id) || b.broker_epoch.is_none()) {
        let error = Some(b.not_leader_error(out.behavior));
        return answer_consumer(b, c, msg.id, offset, Vec::new(), error, Served::NotLeader, out);
    }
    // The broker fences by epoch from 2.1; the consumer's Fetch carries one from 2.3.
    if out.behavior.leader_epoch_fencing && out.behavior.consumer_leader_epoch && leader_epoch != b.leader_epoch {
        let (error, why) = if leader_epoch < b.leader_epoch {
            (KafkaError::FencedLeaderEpoch, Served::FencedEpoch { leader_epoch: b.leader_epoch })
        } else {
            (KafkaError::UnknownLeaderEpoch, Served::UnknownEpoch { leader_epoch: b.leader_epoch })
        };
        return answer_consumer(b, c, msg.id, offset, Vec::new(), Some(error), why, out);
    }
    if let Some(to) = preferred.filter(|_| is_leader).and_then(|f| find_preferred_read_replica(b, f, offset, out.behavior)) {
        if out.behavior.preferred_read_replica_answers_at_once || asks.max_wait_ms == 0 {
            return redirect(b, c, msg.id, offset, to, out);
        }
        return park(b, c, msg.id, offset, asks.max_wait_ms, Some(to), out);
    }
    serve_consumer(b, c, msg.id, offset, Some(asks.max_wait_ms), out);
}

/// The leader's answer naming `to` as the consumer's read replica, with no records (KIP-392).
fn redirect(b: &mut Shared<Broker>, c: usize, request: u64, offset: u64, to: u32, out: &mut Out) {
    let in_isr = b.lead.as_ref().is_some_and(|ls| ls.isr.contains(&to));
    answer_consumer(b, c, request, offset, Vec::new(), None, Served::Redirect { to, in_isr }, out);
}

/// The fetch waits in the purgatory for up to `wait` ms: for the HW to move, or (before
/// 3.2, `redirect`) for nothing but its timeout.
fn park(b: &mut Shared<Broker>, c: usize, request: u64, offset: u64, wait: u64, redirect: Option<u32>, out: &mut Out) {
    let (id, hw, leader) = (b.id, b.hw, b.lead.is_some());
    let expire_ms = out.now + wait;
    let timer = out.set_timer(expire_ms, Timer::ConsumerFetchExpiry { broker: id, consumer: c });
    b.parked_consumers.push(ParkedConsumerFetch { consumer: c, request, offset, expire_ms, timer, redirect });
    let above = offset > hw;
    b.record(Event::ConsumerFetchParked { broker: id, consumer: c, leader, offset, hw, wait, above, redirect }, out);
}

/// `ReplicaManager.findPreferredReadReplica` (2.4+, KIP-392): the leader names the
/// consumer's preferred replica `f` when it is another live replica that has the
/// offset and, from 3.3.2/3.4.0 (KAFKA-14372), is in the ISR.
pub(crate) fn find_preferred_read_replica(b: &Broker, f: u32, offset: u64, behavior: &Behavior) -> Option<u32> {
    let ls = b.lead.as_ref()?;
    let has_offset = ls.followers.get(&f).and_then(|v| v.leo).is_some_and(|leo| leo >= offset);
    let eligible = ls.isr.contains(&f) || !behavior.preferred_read_replica_in_isr;
    (f != b.id && eligible && has_offset && !ls.fenced.contains(&f)).then_some(f)
}

/// `LocalLog.read` up to the HW: records below it at once; at the HW the fetch
/// waits (`wait`: the request's fetch.max.wait.ms; None once it has waited); above
/// the HW (not above the LEO) it is answered empty or waits, by preset.
fn serve_consumer(b: &mut Shared<Broker>, c: usize, request: u64, offset: u64, wait: Option<u64>, out: &mut Out) {
    let (hw, leo, start) = (b.hw, b.log.leo(), b.log.start_offset);
    if offset > leo || offset < start {
        let error = Some(KafkaError::OffsetOutOfRange);
        return answer_consumer(b, c, request, offset, Vec::new(), error, Served::OutOfRange { start, leo }, out);
    }
    if offset < hw {
        let per = out.scenario.record_bytes.max(1);
        let max = (1_048_576 / per).max(1);
        let end = hw.min(offset + max);
        let records: Vec<(u64, Option<Entry>)> = (offset..end).map(|o| (o, b.log.get(o))).collect();
        return answer_consumer(b, c, request, offset, records, None, Served::Records, out);
    }
    let above = offset > hw;
    if let Some(wait) = wait.filter(|&w| w > 0 && (!above || out.behavior.consumer_fetch_above_hw == AboveHw::Park)) {
        return park(b, c, request, offset, wait, None, out);
    }
    let why = if wait.is_none() {
        Served::Expired
    } else if above {
        Served::AboveHw
    } else {
        Served::NoWait
    };
    answer_consumer(b, c, request, offset, Vec::new(), None, why, out);
}

/// A broker's answer to a consumer's fetch, with its HW.
#[allow(clippy::too_many_arguments)]
fn answer_consumer(
    b: &mut Shared<Broker>,
    c: usize,
    request: u64,
    offset: u64,
    records: Vec<(u64, Option<Entry>)>,
    error: Option<KafkaError>,
    why: Served,
    out: &mut Out,
) {
    let (id, hw, leader, log_start) = (b.id, b.hw, b.lead.is_some(), b.log.start_offset);
    let n = records.len();
    let preferred = match why {
        Served::Redirect { to, .. } => Some(to),
        _ => None,
    };
    let resp = ConsumerFetchResponse { request, offset, records, hw, log_start, error, preferred };
    let msg = out.send(Node::Broker(id), Node::Consumer(c), Body::ConsumerFetchResponse(resp));
    b.record(Event::ConsumerFetchAnswered { broker: id, consumer: c, leader, offset, records: n, hw, error, why, msg }, out);
}

/// Releases consumer fetches parked on the broker now that its HW moved
/// (the leader in `tryCompleteDelayedRequests`; a follower since KAFKA-14334).
pub(crate) fn complete_consumer_fetches(b: &mut Shared<Broker>, out: &mut Out) {
    let (id, hw) = (b.id, b.hw);
    // A waiting redirect read nothing, and `DelayedFetch.tryComplete` skips it (before 3.2).
    let ready: Vec<ParkedConsumerFetch> = b.parked_consumers.iter().filter(|p| p.redirect.is_none() && p.offset < hw).cloned().collect();
    for p in ready {
        b.parked_consumers.retain(|q| q.request != p.request);
        out.cancel(p.timer);
        let records: Vec<(u64, Option<Entry>)> = (p.offset..hw).map(|o| (o, b.log.get(o))).collect();
        let log_start = b.log.start_offset;
        let resp = ConsumerFetchResponse { request: p.request, offset: p.offset, records, hw, log_start, error: None, preferred: None };
        out.send(Node::Broker(id), Node::Consumer(p.consumer), Body::ConsumerFetchResponse(resp));
        b.record(Event::ConsumerFetchReleased { broker: id, consumer: p.consumer }, out);
    }
}

/// A consumer's parked fetch reaches fetch.max.wait.ms: `DelayedFetch.onComplete` reads
/// again, naming the preferred read replica again if the leader still would.
pub(crate) fn expire_consumer_fetch(b: &mut Shared<Broker>, c: usize, out: &mut Out) {
    let Some(i) = b.parked_consumers.iter().position(|p| p.consumer == c) else {
        return;
    };
    let p = b.parked_consumers.remove(i);
    if let Some(to) = p.redirect.and_then(|f| find_preferred_read_replica(b, f, p.offset, out.behavior)) {
        return redirect(b, c, p.request, p.offset, to, out);
    }
    serve_consumer(b, c, p.request, p.offset, None, out);
}
