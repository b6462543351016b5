//! Where a follower's log departs from the leader's, by version: its own HW
//! (≤0.10), OffsetsForLeaderEpoch (0.11 KIP-101, 2.0 KIP-279), the diverging
//! epoch in the Fetch response (2.8+), and OFFSET_OUT_OF_RANGE; the leader's answer
//! to OffsetsForLeaderEpoch. The follower's requests for it are the fetcher's
//! (`follower.rs`). Each rule is a node function of the broker's own state (issue
//! 27, `outbox.rs`).
//! Kafka: `AbstractFetcherThread`, `Partition.lastOffsetForLeaderEpoch`, `UnifiedLog.truncateTo`.

use super::event::{Event, TruncationRule};
use super::msg::{Body, FetchResponse, KafkaError, Msg};
use super::outbox::Out;
use super::shared::Shared;
use super::state::Broker;
use crate::scenario::Truncation;

/// The broker process exits (`Exit.halt`): the runtime stops it as a crash does
/// (`Sim::crash`), since that ends every other node's view of it too.
#[must_use]
pub(crate) struct Halt;

/// `UnifiedLog.truncateTo`, then the HW clamped to the new LEO (applied by `record`).
pub(crate) fn truncate(b: &mut Shared<Broker>, offset: u64, rule: TruncationRule, out: &mut Out) {
    let leo_before = b.log.leo();
    b.record(Event::Truncated { broker: b.id, leo_before, to: offset.min(leo_before), rule }, out);
}

/// `AbstractFetcherThread.truncateOnFetchResponse` (2.8+, KAFKA-10554): the leader
/// answered a diverging epoch (E, O); the follower truncates where its own log
/// agrees with it (`getOffsetTruncationState`), without taking an HW this round
/// (KAFKA-14704); the fetcher then fetches again.
pub(crate) fn truncate_on_diverging_epoch(b: &mut Shared<Broker>, epoch: i32, end_offset: u64, out: &mut Out) {
    let (target, _complete) = offset_truncation_state(b, Some(epoch), end_offset);
    truncate(b, target, TruncationRule::DivergingEpoch, out);
}

/// `AbstractFetcherThread.fetchOffsetAndTruncate` after OFFSET_OUT_OF_RANGE: a
/// leader whose log ends before the follower's (its LEO stands in for the
/// ListOffsets round trip) makes it truncate to that end, unless the broker halts
/// (`halt_if_truncation_not_allowed`, up to 2.0); otherwise the follower starts
/// over from the leader's log start (and the fetcher fetches again).
pub(crate) fn fetch_offset_and_truncate(b: &mut Shared<Broker>, resp: &FetchResponse, out: &mut Out) -> Option<Halt> {
    let leo = b.log.leo();
    if resp.leader_leo < leo {
        if let Some(halt) = halt_if_truncation_not_allowed(b, resp.leader_leo, leo, out) {
            return Some(halt);
        }
        truncate(b, resp.leader_leo, TruncationRule::OffsetOutOfRange, out);
    } else {
        truncate(b, 0, TruncationRule::OffsetOutOfRange, out);
        b.record(Event::LogStartReset { broker: b.id, start: resp.log_start_offset }, out);
    }
    None
}

/// `ReplicaFetcherThread.handleOffsetOutOfRange` up to 2.0 (the check KAFKA-3410
/// added; KAFKA-7414 removed it in 2.0.1/2.1): a leader whose log ends before the
/// follower's, with unclean.leader.election.enable off, would mean truncating
/// records the follower may have had committed, so the broker exits ("Exiting
/// because log truncation is not allowed"). It stops as a crash does: the
/// controller notices when its session expires. Returns the halt, if it halts.
fn halt_if_truncation_not_allowed(b: &mut Shared<Broker>, leader_leo: u64, leo: u64, out: &mut Out) -> Option<Halt> {
    if !out.behavior.out_of_range_halts || out.settings.unclean_leader_election_enable {
        return None;
    }
    b.record(Event::Halted { broker: b.id, leader_leo, leo }, out);
    Some(Halt)
}

/// `AbstractFetcherThread.getOffsetTruncationState` for a leader's answer
/// (E_l, O_l): where to truncate, and whether truncation is complete (KIP-279).
pub(crate) fn offset_truncation_state(b: &Broker, leader_epoch: Option<i32>, leader_end: u64) -> (u64, bool) {
    let log = &b.log;
    let leo = log.leo();
    let Some(e_l) = leader_epoch else {
        return (leader_end.min(leo), true);
    };
    match log.end_offset_for(e_l) {
        None => (leader_end.min(leo), true),
        Some((e_f, o_f)) if e_f != e_l => (o_f.min(leo), false),
        Some((_, o_f)) => (o_f.min(leader_end).min(leo), true),
    }
}

/// Becoming a follower under the preset's truncation rule.
/// `kafka-0.10`: `ReplicaManager.makeFollowers` truncates to the replica's own HW.
/// `kafka-0.11`/`2.0`: truncation waits for OffsetsForLeaderEpoch.
/// `kafka-2.8`+: nothing here; the Fetch's last fetched epoch finds any divergence.
pub(crate) fn truncate_on_become_follower(b: &mut Shared<Broker>, out: &mut Out) {
    match out.behavior.truncation {
        Truncation::HighWatermark => {
            if b.hw < b.log.leo() {
                truncate(b, b.hw, TruncationRule::HighWatermark, out);
            }
        }
        Truncation::EpochRequest | Truncation::EpochRequestMultiRound => b.needs_truncation = true,
        Truncation::DivergingEpoch => {}
    }
}

/// The leader answers OffsetsForLeaderEpoch (0.11+, KIP-101, `Partition.lastOffsetForLeaderEpoch`).
/// Before 2.0 (v0) the answer is an end offset only; from 2.1 (KIP-320) a request in
/// an older leader epoch is fenced.
pub(crate) fn handle_offsets_for_leader_epoch(b: &mut Shared<Broker>, msg: &Msg, epoch: i32, current_leader_epoch: i32, out: &mut Out) {
    let (answer, error) = if b.lead.is_none() {
        (None, Some(b.not_leader_error(out.behavior)))
    } else if out.behavior.leader_epoch_fencing && current_leader_epoch < b.leader_epoch {
        (None, Some(KafkaError::FencedLeaderEpoch))
    } else if out.behavior.leader_epoch_fencing && current_leader_epoch > b.leader_epoch {
        (None, Some(KafkaError::UnknownLeaderEpoch))
    } else {
        (b.log.end_offset_for(epoch), None)
    };
    let v0 = out.behavior.truncation == Truncation::EpochRequest;
    let answer = answer.map(|(e, o)| if v0 { (-1, o) } else { (e, o) });
    let body = Body::OffsetsForLeaderEpochResponse { request: msg.id, requested: epoch, answer, error };
    let sent = out.send(msg.to, msg.from, body);
    b.record(Event::EpochEndAnswered { leader: b.id, requester: msg.from, epoch, answer, error, msg: sent }, out);
}
