//! The ISR as the leader keeps it: expanding when a follower catches up,
//! shrinking when one lags, and (2.7+) the AlterPartition round trip that
//! commits either change.

use super::hw::{hw_stays, is_caught_up, is_isr_eligible, maybe_increment_leader_hw};
use super::purgatory::try_complete_delayed_requests;
use super::{lead, lead_mut};
use crate::scenario::IsrUpdate;
use crate::sim::event::{Event, HwCause};
use crate::sim::isr_list::IsrList;
use crate::sim::isr_list::Members;
use crate::sim::msg::{AlterPartitionError, Body, Node};
use crate::sim::outbox::Out;
use crate::sim::scheduler::Timer;
use crate::sim::shared::Shared;
use crate::sim::state::{Broker, PendingIsr};
use crate::sim::vecmap::BrokerSet;

/// `Partition.maybeExpandIsr`: a follower not in the ISR joins once it is in sync
/// (`is_follower_in_sync`) and no ISR change is in flight. Before 2.7 the leader
/// commits the change itself; from 2.7 (KIP-497) it asks the controller and counts
/// the follower in the HW meanwhile (maximal ISR). Returns whether the ISR grew.
pub(crate) fn maybe_expand_isr(b: &mut Shared<Broker>, follower: u32, out: &mut Out) -> bool {
    let hw = b.hw;
    let ls = lead(b);
    let Some(f_leo) = ls.followers.get(&follower).and_then(|v| v.leo) else {
        return false;
    };
    if ls.pending.is_some() || ls.isr.contains(&follower) || !is_isr_eligible(b, follower) {
        return false;
    }
    if !is_follower_in_sync(b, f_leo, hw, out) {
        return false;
    }
    let before = ls.isr_set();
    let after = before.appended(follower, Members::of(out.scenario.preset));
    if isr_write_conflicts(b, Some(follower), out) {
        return false;
    }
    let request = match out.behavior.isr_update {
        IsrUpdate::Immediate => None,
        IsrUpdate::AlterPartition => Some(send_alter_partition(b, after.to_kafka_vec(), false, out)),
    };
    b.record(Event::IsrExpanded { leader: b.id, follower, before, after, request }, out);
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
fn isr_write_conflicts(b: &mut Shared<Broker>, follower: Option<u32>, out: &mut Out) -> bool {
    if out.behavior.isr_update != IsrUpdate::Immediate {
        return false;
    }
    let cached = lead(b).partition_epoch;
    let current = out.znode_version;
    if cached == current {
        return false;
    }
    b.record(Event::IsrWriteConflict { leader: b.id, follower, cached, current }, out);
    true
}

/// `Partition.isFollowerInSync` (the condition in `maybeExpandIsr` before 3.x): the
/// follower's LEO has reached the HW and, from 2.0.1/2.1 (KAFKA-7128, "Lagging high
/// watermark can lead to committed data loss after ISR expansion"), the start offset
/// of the leader's epoch. A new leader's HW can lag the records its predecessor
/// committed; its epoch starts at its LEO, past all of them.
fn is_follower_in_sync(b: &Broker, follower_leo: u64, hw: u64, out: &Out) -> bool {
    follower_leo >= hw && (!out.behavior.isr_expansion_needs_epoch_start || follower_leo >= lead(b).epoch_start_offset)
}

/// `AlterPartitionManager.submit` (2.7+, KIP-497): the proposed ISR with the
/// leader's leader and partition epochs and, from 3.5 (KIP-903, `Partition.prepareIsrExpand`
/// and `prepareIsrShrink`), each member's broker epoch: the leader's own, and for a
/// follower the one its last Fetch carried. The controller channel resends it if no
/// answer comes within request.timeout.ms (`NodeToControllerChannelManager`), naming
/// the same epochs.
fn send_alter_partition(b: &mut Shared<Broker>, isr: Vec<u32>, resend: bool, out: &mut Out) -> u64 {
    let leader = b.id;
    let leader_epoch = b.leader_epoch;
    let own = b.broker_epoch;
    let ls = lead(b);
    let partition_epoch = ls.partition_epoch;
    let epochs: Vec<(u32, Option<u64>)> = if out.behavior.alter_partition_checks_broker_epochs {
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
    lead_mut(b).alter_broker_epochs = epochs;
    let msg = out.send(Node::Broker(leader), Node::Controller, body);
    let timer = out.set_timer(out.now + out.scenario.config.broker_request_timeout_ms(), Timer::AlterPartitionRetry { leader });
    if let Some((_, old)) = lead_mut(b).alter.replace((msg, timer)) {
        out.cancel(old);
    }
    msg
}

/// No answer to the AlterPartition in flight: the controller channel sends it again.
pub(crate) fn alter_partition_retry(b: &mut Shared<Broker>, out: &mut Out) {
    let Some(ls) = b.lead.as_ref() else { return };
    let proposed = match &ls.pending {
        Some(PendingIsr::Expand(f)) => ls.isr_set().appended(*f, Members::of(out.scenario.preset)).to_kafka_vec(),
        Some(PendingIsr::Shrink(gone)) => ls.isr_set().retained(|b| !gone.contains(&b)).to_kafka_vec(),
        None => return,
    };
    lead_mut(b).alter = None;
    let msg = send_alter_partition(b, proposed, true, out);
    b.record(Event::AlterPartitionResent { leader: b.id, msg }, out);
}

/// `Partition.maybeShrinkIsr`, run every replica.lag.time.max.ms / 2: followers
/// not caught up within the lag time leave the ISR. With AlterPartition (2.7+)
/// the maximal ISR stays the old one until the controller commits the change.
pub(crate) fn maybe_shrink_isr(b: &mut Shared<Broker>, out: &mut Out) {
    let leader = b.id;
    if b.lead.is_none() {
        return b.record(Event::IsrCheckNotLeader { broker: leader }, out);
    }
    let period = (out.settings.replica_lag_time_max_ms / 2).max(1);
    let next = out.set_timer(out.now + period, Timer::IsrExpiration { leader });
    lead_mut(b).isr_timer = Some(next);
    let leo = b.log.leo();
    let ls = lead(b);
    let before = ls.isr_set();
    let lagging = |f: &u32| *f != leader && ls.followers.get(f).is_some_and(|v| !is_caught_up(v, leo, out));
    let gone: BrokerSet = ls.isr.iter().copied().filter(lagging).collect();
    if ls.pending.is_some() {
        return b.record(Event::IsrCheckPending { leader, period }, out);
    }
    if gone.is_empty() {
        return b.record(Event::IsrCheckNoChange { leader, isr: before.set() }, out);
    }
    let after = before.retained(|f| !gone.contains(f));
    if isr_write_conflicts(b, None, out) {
        return;
    }
    match out.behavior.isr_update {
        IsrUpdate::Immediate => {
            b.record(Event::IsrShrunk { leader, before, after, out: gone, request: None }, out);
            hw_after_isr_change(b, out);
        }
        IsrUpdate::AlterPartition => {
            let request = send_alter_partition(b, after.to_kafka_vec(), false, out);
            b.record(Event::IsrShrunk { leader, before, after, out: gone, request: Some(request) }, out);
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
    b: &mut Shared<Broker>,
    request: u64,
    leader_epoch: i32,
    partition_epoch: u32,
    isr: &[u32],
    error: Option<AlterPartitionError>,
    out: &mut Out,
) {
    let leader = b.id;
    let Some(ls) = b.lead.as_ref() else {
        return b.record(Event::AlterPartitionIgnored { broker: leader, leader_epoch }, out);
    };
    let ours = ls.alter.is_some_and(|(sent, _)| sent == request);
    let held = ls.partition_epoch;
    if ours {
        if let Some((_, timer)) = lead_mut(b).alter.take() {
            out.cancel(timer);
        }
    }
    if !ours || lead(b).pending.is_none() {
        return b.record(Event::AlterPartitionAnswerStale { leader, state_changed: true, answered: partition_epoch, held }, out);
    }
    if let Some(error) = error {
        let added = match lead(b).pending {
            Some(PendingIsr::Expand(f)) => Some(f),
            _ => None,
        };
        return b.record(Event::IsrChangeRefused { leader, error, added }, out);
    }
    if b.leader_epoch != leader_epoch {
        return b.record(Event::AlterPartitionIgnored { broker: leader, leader_epoch }, out);
    }
    if partition_epoch < held {
        return b.record(Event::AlterPartitionAnswerStale { leader, state_changed: false, answered: partition_epoch, held }, out);
    }
    // `CommittedPartitionState(leaderAndIsr.isr.toSet, …)`.
    let before = lead(b).isr_set();
    let after = IsrList::to_set(isr, Members::of(out.scenario.preset));
    b.record(Event::IsrApplied { leader, before, after, partition_epoch }, out);
    hw_after_isr_change(b, out);
}

/// `Partition.maybeIncrementLeaderHW` after a committed ISR change (all versions),
/// then `tryCompleteDelayedRequests` for what waited on it.
pub(crate) fn hw_after_isr_change(b: &mut Shared<Broker>, out: &mut Out) {
    match maybe_increment_leader_hw(b, HwCause::IsrChange, out) {
        Some(_) => try_complete_delayed_requests(b, out),
        None => hw_stays(b, out),
    }
}
