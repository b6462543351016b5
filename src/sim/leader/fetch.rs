//! Serving a follower's Fetch: validation, the follower's fetch state, then an
//! answer at once or a place in the fetch purgatory.
//! Kafka: `ReplicaManager.fetchMessages`, `Partition.fetchRecords` / `readRecords`.

use super::hw::{hw_stays, maybe_increment_leader_hw};
use super::isr::maybe_expand_isr;
use super::purgatory::{delayed_fetch_ready, read_for_follower, send_fetch_response, try_complete_delayed_requests};
use super::{lead, lead_mut};
use crate::scenario::{ResponseHw, Truncation};
use crate::sim::event::{Answered, Event, HwCause, Ready, Rejection};
use crate::sim::msg::{FetchRequest, KafkaError, Msg};
use crate::sim::outbox::Out;
use crate::sim::scheduler::Timer;
use crate::sim::shared::Shared;
use crate::sim::state::{Broker, ParkedFetch};

/// `ReplicaManager.fetchMessages` → `Partition.fetchRecords` for a follower's Fetch
/// (all versions): refuse it (`fetch_request_error`, out of range), answer a
/// diverging epoch (2.8+), or record the follower's fetch state, move the HW,
/// complete what that releases, and answer or park.
pub(crate) fn handle_fetch_request(b: &mut Shared<Broker>, msg: &Msg, req: &FetchRequest, out: &mut Out) {
    if let Some((error, why)) = fetch_request_error(b, req, out) {
        return reject_fetch(b, msg, req, error, why, out);
    }
    let leader = b.id;
    let initial_hw = b.hw;
    if let (Truncation::DivergingEpoch, Some(fetch_epoch)) = (out.behavior.truncation, req.last_fetched_epoch) {
        match b.log.end_offset_for(fetch_epoch) {
            None => {
                return reject_fetch(b, msg, req, KafkaError::OffsetOutOfRange, Rejection::NoEpochEnd { epoch: fetch_epoch }, out);
            }
            Some((end_epoch, end_offset)) if end_epoch < fetch_epoch || end_offset < req.fetch_offset => {
                return answer_diverging(b, msg, req, end_epoch, end_offset, initial_hw, out);
            }
            Some(_) => {}
        }
    }
    let (start, leo) = (b.log.start_offset, b.log.leo());
    if req.fetch_offset > leo || req.fetch_offset < start {
        return reject_fetch(b, msg, req, KafkaError::OffsetOutOfRange, Rejection::OutOfRange { start, leo }, out);
    }
    let follower = req.replica;
    let previous = lead(b).followers.get(&follower).and_then(|v| v.leo);
    b.record(Event::FollowerFetched { leader, follower, previous, fetch_offset: req.fetch_offset }, out);
    let expanded = update_follower_fetch_state(b, follower, req, out);
    let moved = if previous != Some(req.fetch_offset) || expanded { maybe_increment_leader_hw(b, HwCause::Fetch, out) } else { None };
    match moved {
        Some(_) => try_complete_delayed_requests(b, out),
        None => hw_stays(b, out),
    }
    answer_or_park(b, msg, req, initial_hw, out);
}

/// `Partition.fetchRecords` → `getLocalLog`: `not_leader_error` on a broker
/// that does not lead (all versions); from 2.1 (KIP-320) FENCED_LEADER_EPOCH or
/// UNKNOWN_LEADER_EPOCH for a Fetch in another leader epoch.
fn fetch_request_error(b: &Broker, req: &FetchRequest, out: &Out) -> Option<(KafkaError, Rejection)> {
    if b.lead.is_none() {
        return Some((b.not_leader_error(out.behavior), Rejection::NotLeader));
    }
    let epoch = b.leader_epoch;
    if out.behavior.leader_epoch_fencing && req.current_leader_epoch != epoch {
        return Some(if req.current_leader_epoch < epoch {
            (KafkaError::FencedLeaderEpoch, Rejection::FencedEpoch { leader_epoch: epoch })
        } else {
            (KafkaError::UnknownLeaderEpoch, Rejection::UnknownEpoch { leader_epoch: epoch })
        });
    }
    None
}

/// `Partition.updateFollowerFetchState` and `Replica.updateFetchStateOrThrow`
/// (3.x–4.0; every preset uses them): the follower's LEO becomes its fetch offset,
/// lastCaughtUpTimeMs moves by the two catch-up rules, the broker epoch the Fetch
/// carried is kept (3.5+, KIP-903), then `maybeExpandIsr`.
/// Returns whether the ISR grew.
fn update_follower_fetch_state(b: &mut Shared<Broker>, follower: u32, req: &FetchRequest, out: &mut Out) -> bool {
    let (fetch_offset, log_start) = (req.fetch_offset, req.log_start_offset);
    let keeps_epoch = out.behavior.alter_partition_checks_broker_epochs;
    let now = out.now;
    let leo = b.log.leo();
    let ls = lead_mut(b);
    let Some(view) = ls.followers.get_mut(&follower) else {
        return false;
    };
    if fetch_offset >= leo {
        view.last_caught_up_ms = Some(view.last_caught_up_ms.map_or(now, |t| t.max(now)));
    } else if let Some(last) = view.last_fetch_ms.filter(|_| fetch_offset >= view.last_fetch_leader_leo) {
        view.last_caught_up_ms = Some(view.last_caught_up_ms.map_or(last, |t| t.max(last)));
    }
    view.last_fetch_leader_leo = view.last_fetch_leader_leo.max(leo);
    view.last_fetch_ms = Some(now);
    view.leo = Some(fetch_offset);
    view.log_start_offset = log_start;
    if keeps_epoch {
        view.broker_epoch = req.broker_epoch;
    }
    maybe_expand_isr(b, follower, out)
}

/// `ReplicaManager.fetchMessages`' last step (all versions): respond at once unless
/// long-poll may wait (replica.fetch.wait.max.ms > 0; none in `textbook`) and
/// `delayed_fetch_ready` finds nothing to complete; otherwise park in the fetch
/// purgatory. The answer carries the HW read before this fetch moved it
/// (`initialHighWatermark`, KAFKA-7104) or after it, by `response_hw`.
fn answer_or_park(b: &mut Shared<Broker>, msg: &Msg, req: &FetchRequest, initial_hw: u64, out: &mut Out) {
    let (leader, follower) = (b.id, req.replica);
    let wait = out.scenario.config.replica_fetch_wait_max_ms;
    let (leo, hw) = (b.log.leo(), b.hw);
    let bytes = (leo - req.fetch_offset) * out.scenario.record_bytes;
    let last_sent = lead(b).followers.get(&follower).map_or(u64::MAX, |v| v.last_sent_hw);
    // 2.4–2.5: `followerNeedsHwUpdate` compares the HW read before this fetch; a fetch
    // that itself moved the HW is parked and at once released by Case H.
    let stale_before = out.behavior.hw_move_completes_follower_fetch && last_sent < initial_hw;
    let why = if !out.behavior.long_poll {
        Some(Answered::NoLongPoll)
    } else if wait == 0 {
        Some(Answered::NoWait)
    } else {
        delayed_fetch_ready(b, req.fetch_offset, last_sent, out).map(|ready| match ready {
            Ready::Bytes if bytes > 0 => Answered::Data,
            Ready::Bytes => Answered::MinBytesZero,
            Ready::HwStale if stale_before => Answered::StaleHw,
            Ready::HwStale => Answered::CaseH,
        })
    };
    let Some(why) = why else {
        let expire_ms = out.now + wait;
        let timer = out.set_timer(expire_ms, Timer::FetchExpiry { leader, follower });
        lead_mut(b).parked_fetches.push(ParkedFetch { follower, request: msg.id, req: *req, expire_ms, timer });
        return b.record(Event::FetchParked { leader, follower, hw_before: initial_hw, hw, wait, expire_ms }, out);
    };
    // A Case H release re-reads the HW: the response carries the current one.
    let case_h = out.behavior.long_poll
        && out.behavior.hw_move_completes_follower_fetch
        && last_sent < hw
        && !stale_before
        && bytes < out.scenario.config.replica_fetch_min_bytes.max(1);
    let hw_sent = match out.behavior.response_hw {
        _ if case_h => hw,
        ResponseHw::AfterFetch => hw,
        ResponseHw::BeforeFetch => initial_hw,
    };
    let records = read_for_follower(b, req.fetch_offset, out);
    let n = records.len();
    let sent = send_fetch_response(b, follower, msg.id, req.fetch_offset, records, hw_sent, None, None, out);
    b.record(
        Event::FetchAnswered {
            leader,
            follower,
            fetch_offset: req.fetch_offset,
            records: n,
            hw_before: initial_hw,
            hw_sent,
            hw,
            why,
            msg: sent,
        },
        out,
    );
}

/// An error answer, with no records and the leader's HW.
fn reject_fetch(b: &mut Shared<Broker>, msg: &Msg, req: &FetchRequest, error: KafkaError, why: Rejection, out: &mut Out) {
    let hw = b.hw;
    let sent = send_fetch_response(b, req.replica, msg.id, req.fetch_offset, Vec::new(), hw, Some(error), None, out);
    b.record(Event::FetchRejected { leader: b.id, follower: req.replica, error, why, msg: sent }, out);
}

/// `Partition.readRecords` (2.8+, KAFKA-10554): the follower's last fetched epoch
/// ends earlier on the leader, so the answer is a diverging epoch, no records, and
/// no update of the follower's state.
fn answer_diverging(b: &mut Shared<Broker>, msg: &Msg, req: &FetchRequest, epoch: i32, end_offset: u64, initial_hw: u64, out: &mut Out) {
    let sent = send_fetch_response(b, req.replica, msg.id, req.fetch_offset, Vec::new(), initial_hw, None, Some((epoch, end_offset)), out);
    b.record(Event::DivergingAnswered { leader: b.id, follower: req.replica, epoch, end_offset, msg: sent }, out);
}
