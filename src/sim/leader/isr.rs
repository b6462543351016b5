//! The ISR as the leader keeps it: expanding when a follower catches up,
//! shrinking when one lags, and (2.7+) the AlterPartition round trip that
//! commits either change.

use crate::scenario::IsrUpdate;
use crate::sim::event::Event;
use crate::sim::isr_list::IsrList;
use crate::sim::msg::{AlterPartitionError, Body, Msg, Node};
use crate::sim::scheduler::Timer;
use crate::sim::state::PendingIsr;
use crate::sim::vecmap::BrokerSet;
use crate::sim::Sim;

impl Sim {
    /// `Partition.maybeExpandIsr`: a follower not in the ISR joins once it is in sync
    /// (`is_follower_in_sync`) and no ISR change is in flight. Before 2.7 the leader
    /// commits the change itself; from 2.7 (KIP-497) it asks the controller and counts
    /// the follower in the HW meanwhile (maximal ISR). Returns whether the ISR grew.
    pub(crate) fn maybe_expand_isr(&mut self, leader: u32, follower: u32) -> bool {
        let hw = self.broker(leader).hw;
        let ls = self.lead(leader);
        let Some(f_leo) = ls.followers.get(&follower).and_then(|v| v.leo) else {
            return false;
        };
        if ls.pending.is_some() || ls.isr.contains(&follower) || !self.is_isr_eligible(leader, follower) {
            return false;
        }
        if !self.is_follower_in_sync(leader, f_leo, hw) {
            return false;
        }
        let before = ls.isr_set();
        let after = before.appended(follower, self.isr_members());
        if self.isr_write_conflicts(leader, Some(follower)) {
            return false;
        }
        let request = match self.behavior.isr_update {
            IsrUpdate::Immediate => None,
            IsrUpdate::AlterPartition => Some(self.send_alter_partition(leader, after.to_kafka_vec(), false)),
        };
        self.emit(Event::IsrExpanded { leader, follower, before, after, request });
        true
    }

    /// The ZooKeeper era before AlterPartition (up to 2.6; `Partition.updateIsr` with
    /// `ReplicationUtils.updateLeaderAndIsr` at 0.10.2–2.0, `ZkPartitionStateStore` at
    /// 2.4–2.6): the leader writes its ISR to the partition state znode conditionally on
    /// the zkVersion it cached from its last LeaderAndIsr (here, its partition epoch). If
    /// the controller wrote since (a new leader elected, a dead replica removed), the
    /// write fails and the ISR stays: a deposed leader cannot shrink the ISR to itself and
    /// acknowledge acks=all writes alone. Returns whether the write failed (it then emits
    /// the conflict).
    fn isr_write_conflicts(&mut self, leader: u32, follower: Option<u32>) -> bool {
        if self.behavior.isr_update != IsrUpdate::Immediate {
            return false;
        }
        let cached = self.lead(leader).partition_epoch;
        let current = self.controller.partition_epoch;
        if cached == current {
            return false;
        }
        self.emit(Event::IsrWriteConflict { leader, follower, cached, current });
        true
    }

    /// `Partition.isFollowerInSync` (the condition in `maybeExpandIsr` before 3.x): the
    /// follower's LEO has reached the HW and, from 2.0.1/2.1 (KAFKA-7128, "Lagging high
    /// watermark can lead to committed data loss after ISR expansion"), the start offset
    /// of the leader's epoch. A new leader's HW can lag the records its predecessor
    /// committed; its epoch starts at its LEO, past all of them.
    fn is_follower_in_sync(&self, leader: u32, follower_leo: u64, hw: u64) -> bool {
        follower_leo >= hw && (!self.behavior.isr_expansion_needs_epoch_start || follower_leo >= self.lead(leader).epoch_start_offset)
    }

    /// `AlterPartitionManager.submit` (2.7+, KIP-497): the proposed ISR with the
    /// leader's leader and partition epochs and, from 3.5 (KIP-903, `Partition.prepareIsrExpand`
    /// and `prepareIsrShrink`), each member's broker epoch: the leader's own, and for a
    /// follower the one its last Fetch carried. The controller channel resends it if no
    /// answer comes within request.timeout.ms (`NodeToControllerChannelManager`), naming
    /// the same epochs.
    fn send_alter_partition(&mut self, leader: u32, isr: Vec<u32>, resend: bool) -> u64 {
        let b = self.broker(leader);
        let leader_epoch = b.leader_epoch;
        let own = b.broker_epoch;
        let ls = self.lead(leader);
        let partition_epoch = ls.partition_epoch;
        let epochs: Vec<(u32, Option<u64>)> = if self.behavior.alter_partition_checks_broker_epochs {
            isr.iter()
                .map(|&m| {
                    let held = ls.alter_broker_epochs.iter().find(|(b, _)| *b == m).map(|&(_, e)| e);
                    let fetched = if m == leader { own } else { ls.followers.get(&m).and_then(|v| v.broker_epoch) };
                    (m, if resend { held.unwrap_or(fetched) } else { fetched })
                })
                .collect()
        } else {
            Vec::new()
        };
        let broker_epochs = isr.iter().map(|m| epochs.iter().find(|(b, _)| b == m).and_then(|&(_, e)| e)).collect();
        let body = Body::AlterPartition { leader_epoch, partition_epoch, isr, broker_epochs };
        self.lead_mut(leader).alter_broker_epochs = epochs;
        let msg = self.send(Node::Broker(leader), Node::Controller, body);
        let timer = self.set_timer(self.now + self.scenario.config.broker_request_timeout_ms(), Timer::AlterPartitionRetry { leader });
        if let Some((_, old)) = self.lead_mut(leader).alter.replace((msg, timer)) {
            self.cancel(old);
        }
        msg
    }

    /// No answer to the AlterPartition in flight: the controller channel sends it again.
    pub(crate) fn alter_partition_retry(&mut self, leader: u32) {
        let Some(ls) = self.broker(leader).lead.as_ref() else { return };
        let proposed = match &ls.pending {
            Some(PendingIsr::Expand(f)) => ls.isr_set().appended(*f, self.isr_members()).to_kafka_vec(),
            Some(PendingIsr::Shrink(out)) => ls.isr_set().retained(|b| !out.contains(&b)).to_kafka_vec(),
            None => return,
        };
        self.lead_mut(leader).alter = None;
        let msg = self.send_alter_partition(leader, proposed, true);
        self.emit(Event::AlterPartitionResent { leader, msg });
    }

    /// `Partition.maybeShrinkIsr`, run every replica.lag.time.max.ms / 2: followers
    /// not caught up within the lag time leave the ISR. With AlterPartition (2.7+)
    /// the maximal ISR stays the old one until the controller commits the change.
    pub(crate) fn maybe_shrink_isr(&mut self, leader: u32) {
        if self.broker(leader).lead.is_none() {
            return self.emit(Event::IsrCheckNotLeader { broker: leader });
        }
        let period = (self.settings.replica_lag_time_max_ms / 2).max(1);
        let next = self.set_timer(self.now + period, Timer::IsrExpiration { leader });
        self.lead_mut(leader).isr_timer = Some(next);
        let leo = self.broker(leader).log.leo();
        let ls = self.lead(leader);
        let before = ls.isr_set();
        let lagging = |f: &u32| *f != leader && ls.followers.get(f).is_some_and(|v| !self.is_caught_up(v, leo));
        let out: BrokerSet = ls.isr.iter().copied().filter(lagging).collect();
        if ls.pending.is_some() {
            return self.emit(Event::IsrCheckPending { leader, period });
        }
        if out.is_empty() {
            return self.emit(Event::IsrCheckNoChange { leader, isr: before.set() });
        }
        let after = before.retained(|f| !out.contains(f));
        if self.isr_write_conflicts(leader, None) {
            return;
        }
        match self.behavior.isr_update {
            IsrUpdate::Immediate => {
                self.emit(Event::IsrShrunk { leader, before, after, out, request: None });
                self.hw_after_isr_change(leader);
            }
            IsrUpdate::AlterPartition => {
                let request = self.send_alter_partition(leader, after.to_kafka_vec(), false);
                self.emit(Event::IsrShrunk { leader, before, after, out, request: Some(request) });
            }
        }
    }

    /// The controller's answer to AlterPartition (2.7+, `Partition.submitAlterPartition`'s
    /// callback, 2.7–4.1): an answer counts only while the leader's partition state is still
    /// the proposal it answers (`partitionState != proposedIsrState`: ignored once metadata
    /// committed an ISR, a refusal reverted it, or a newer proposal replaced it; an answer to
    /// a request the channel already resent never arrives, its connection was dropped). Then
    /// refused (`handleAlterPartitionError`: reverted or kept pending), or applied
    /// (`handleAlterPartitionUpdate`, 2.8+) unless it is for another leader epoch or its
    /// partition epoch is older than the one the leader holds.
    pub(crate) fn handle_alter_partition_response(
        &mut self,
        msg: &Msg,
        request: u64,
        leader_epoch: i32,
        partition_epoch: u32,
        isr: &[u32],
        error: Option<AlterPartitionError>,
    ) {
        let Node::Broker(leader) = msg.to else { return };
        let b = self.broker(leader);
        let Some(ls) = b.lead.as_ref() else {
            return self.emit(Event::AlterPartitionIgnored { broker: leader, leader_epoch });
        };
        let ours = ls.alter.is_some_and(|(sent, _)| sent == request);
        let held = ls.partition_epoch;
        if ours {
            if let Some((_, timer)) = self.lead_mut(leader).alter.take() {
                self.cancel(timer);
            }
        }
        if !ours || self.lead(leader).pending.is_none() {
            return self.emit(Event::AlterPartitionAnswerStale { leader, state_changed: true, answered: partition_epoch, held });
        }
        if let Some(error) = error {
            let added = match self.lead(leader).pending {
                Some(PendingIsr::Expand(f)) => Some(f),
                _ => None,
            };
            return self.emit(Event::IsrChangeRefused { leader, error, added });
        }
        if self.broker(leader).leader_epoch != leader_epoch {
            return self.emit(Event::AlterPartitionIgnored { broker: leader, leader_epoch });
        }
        if partition_epoch < held {
            return self.emit(Event::AlterPartitionAnswerStale { leader, state_changed: false, answered: partition_epoch, held });
        }
        // `CommittedPartitionState(leaderAndIsr.isr.toSet, …)`.
        let before = self.lead(leader).isr_set();
        self.emit(Event::IsrApplied { leader, before, after: IsrList::to_set(isr, self.isr_members()), partition_epoch });
        self.hw_after_isr_change(leader);
    }
}
