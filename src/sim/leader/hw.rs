//! The leader's high watermark: which followers bound it, and when it may move.

use super::lead;
use crate::scenario::HwCounts;
use crate::sim::event::{Event, HwCause};
use crate::sim::outbox::Out;
use crate::sim::shared::Shared;
use crate::sim::state::{Broker, FollowerView};

/// `Partition.effectiveMinIsr` (3.7+, KAFKA-15583): min.insync.replicas capped at
/// the replication factor; acks=all needs an ISR this large and, from 3.7, the HW
/// does not move while the ISR is smaller. Before 3.7 acks=all compares the ISR
/// with min.insync.replicas as configured (above the replication factor no
/// acks=all write succeeds).
pub(crate) fn effective_min_isr(min: u32, replicas: u32, capped: bool) -> u32 {
    if capped {
        min.min(replicas)
    } else {
        min
    }
}

/// `effective_min_isr` under the rule's configuration.
pub(crate) fn min_isr(out: &Out) -> u32 {
    effective_min_isr(out.scenario.config.min_insync_replicas, out.scenario.replicas, out.behavior.hw_held_under_min_isr)
}

/// `Replica.isCaughtUp`: at the leader's LEO, or caught up within replica.lag.time.max.ms.
pub(crate) fn is_caught_up(view: &FollowerView, leader_leo: u64, out: &Out) -> bool {
    view.leo == Some(leader_leo)
        || view.last_caught_up_ms.is_some_and(|t| out.now.saturating_sub(t) <= out.settings.replica_lag_time_max_ms)
}

/// `Partition.isReplicaIsrEligible` (KRaft): not fenced, as far as the leader knows.
pub(crate) fn is_isr_eligible(b: &Broker, follower: u32) -> bool {
    !lead(b).fenced.contains(&follower)
}

/// `Partition.maybeIncrementLeaderHW`: HW = min LEO over the leader and the
/// followers that count (by preset: ISR; ISR or caught up (0.10.2); maximal ISR or
/// caught up (2.7); and ISR-eligible (3.6)); never while under min ISR (3.7);
/// only ever upwards. Returns the move, if any.
pub(crate) fn maybe_increment_leader_hw(b: &mut Shared<Broker>, cause: HwCause, out: &mut Out) -> Option<(u64, u64)> {
    let ls = b.lead.as_ref()?;
    let leo = b.log.leo();
    if out.behavior.hw_held_under_min_isr && ls.isr.len() < min_isr(out) as usize {
        return None;
    }
    let mut new_hw = leo;
    for (&f, view) in ls.followers.iter() {
        let counts = match out.behavior.hw_counts {
            HwCounts::Isr => ls.isr.contains(&f),
            HwCounts::IsrOrCaughtUp => ls.isr.contains(&f) || is_caught_up(view, leo, out),
            HwCounts::MaximalIsrOrCaughtUp => ls.in_maximal_isr(f) || is_caught_up(view, leo, out),
            HwCounts::MaximalIsrOrCaughtUpEligible => ls.in_maximal_isr(f) || (is_caught_up(view, leo, out) && !ls.fenced.contains(&f)),
        };
        if counts {
            match view.leo {
                // An unknown follower LEO (just after an election) holds the HW where it is.
                None => return None,
                Some(f_leo) => new_hw = new_hw.min(f_leo),
            }
        }
    }
    let from = b.hw;
    if new_hw <= from {
        return None;
    }
    b.record(Event::LeaderHwMoved { leader: b.id, from, to: new_hw, cause }, out);
    Some((from, new_hw))
}

/// The HW did not move; says whether the min ISR holds it (3.7+, KAFKA-15583).
pub(crate) fn hw_stays(b: &mut Shared<Broker>, out: &mut Out) {
    let held = out.behavior.hw_held_under_min_isr && b.lead.as_ref().is_some_and(|ls| ls.isr.len() < min_isr(out) as usize);
    b.record(Event::HwStays { leader: b.id, hw: b.hw, held }, out);
}
