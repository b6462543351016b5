//! The leader's high watermark: which followers bound it, and when it may move.

use crate::scenario::HwCounts;
use crate::sim::event::{Event, HwCause};
use crate::sim::state::FollowerView;
use crate::sim::Sim;

impl Sim {
    /// `Partition.effectiveMinIsr` (3.7+, KAFKA-15583): min.insync.replicas capped at
    /// the replication factor; acks=all needs an ISR this large and, from 3.7, the HW
    /// does not move while the ISR is smaller. Before 3.7 acks=all compares the ISR
    /// with min.insync.replicas as configured (above the replication factor no
    /// acks=all write succeeds).
    pub(crate) fn effective_min_isr(&self) -> u32 {
        let min = self.scenario.config.min_insync_replicas;
        if self.behavior.hw_held_under_min_isr {
            min.min(self.scenario.replicas)
        } else {
            min
        }
    }

    /// Whether the leader's committed ISR is smaller than the effective min ISR.
    pub(crate) fn under_min_isr(&self, leader: u32) -> bool {
        let min = self.effective_min_isr() as usize;
        self.broker(leader).lead.as_ref().is_some_and(|ls| ls.isr.len() < min)
    }

    /// `Replica.isCaughtUp`: at the leader's LEO, or caught up within replica.lag.time.max.ms.
    pub(crate) fn is_caught_up(&self, view: &FollowerView, leader_leo: u64) -> bool {
        view.leo == Some(leader_leo)
            || view.last_caught_up_ms.is_some_and(|t| self.now.saturating_sub(t) <= self.settings.replica_lag_time_max_ms)
    }

    /// `Partition.isReplicaIsrEligible` (KRaft): not fenced, as far as the leader knows.
    pub(crate) fn is_isr_eligible(&self, leader: u32, follower: u32) -> bool {
        !self.lead(leader).fenced.contains(&follower)
    }

    /// `Partition.maybeIncrementLeaderHW`: HW = min LEO over the leader and the
    /// followers that count (by preset: ISR; ISR or caught up (0.10.2); maximal ISR or
    /// caught up (2.7); and ISR-eligible (3.6)); never while under min ISR (3.7);
    /// only ever upwards. Returns the move, if any.
    pub(crate) fn maybe_increment_leader_hw(&mut self, leader: u32, cause: HwCause) -> Option<(u64, u64)> {
        let b = self.broker(leader);
        let ls = b.lead.as_ref()?;
        let leo = b.log.leo();
        if self.behavior.hw_held_under_min_isr && ls.isr.len() < self.effective_min_isr() as usize {
            return None;
        }
        let mut new_hw = leo;
        for (&f, view) in ls.followers.iter() {
            let counts = match self.behavior.hw_counts {
                HwCounts::Isr => ls.isr.contains(&f),
                HwCounts::IsrOrCaughtUp => ls.isr.contains(&f) || self.is_caught_up(view, leo),
                HwCounts::MaximalIsrOrCaughtUp => ls.in_maximal_isr(f) || self.is_caught_up(view, leo),
                HwCounts::MaximalIsrOrCaughtUpEligible => {
                    ls.in_maximal_isr(f) || (self.is_caught_up(view, leo) && self.is_isr_eligible(leader, f))
                }
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
        self.emit(Event::LeaderHwMoved { leader, from, to: new_hw, cause });
        Some((from, new_hw))
    }

    /// The HW did not move; says whether the min ISR holds it (3.7+, KAFKA-15583).
    pub(crate) fn hw_stays(&mut self, leader: u32) {
        let held = self.behavior.hw_held_under_min_isr && self.under_min_isr(leader);
        let hw = self.broker(leader).hw;
        self.emit(Event::HwStays { leader, hw, held });
    }

    /// `Partition.maybeIncrementLeaderHW` after a committed ISR change (all versions),
    /// then `tryCompleteDelayedRequests` for what waited on it.
    pub(crate) fn hw_after_isr_change(&mut self, leader: u32) {
        match self.maybe_increment_leader_hw(leader, HwCause::IsrChange) {
            Some(_) => self.try_complete_delayed_requests(leader),
            None => self.hw_stays(leader),
        }
    }
}
