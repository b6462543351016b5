//! KIP-966 Eligible Leader Replicas at the controller (4.1, `eligible_leader_replicas`):
//! replicas that leave the ISR while it is under min.insync.replicas stay
//! electable, because the leader holds the HW while the ISR is that small
//! (KAFKA-15583), so they hold every committed record. The ISR may then become
//! empty; a leader is elected from the ELR only when it is. Kafka 4.1:
//! `PartitionChangeBuilder` (`maybePopulateTargetElr`, `isValidNewLeader`,
//! `canElectLastKnownLeader`, `maybeUpdateLastKnownLeader`) and
//! `ReplicationControlManager.handleBrokerUncleanShutdown`.
//!
//! Node functions of the controller (`outbox.rs`): they read and write the
//! controller's state alone.

use super::event::{ElectedFrom, Event};
use super::outbox::Out;
use super::shared::Shared;
use super::state::Controller;
use super::vecmap::BrokerSet;

/// `PartitionChangeBuilder.maybePopulateTargetElr` after the controller's ISR
/// changed from `isr_before` to its current value: an ISR at least
/// min(min.insync.replicas, RF) clears the ELR; a smaller one makes the ELR
/// (ISR before ∪ ELR) − ISR now − `unclean_shutdown`.
pub(crate) fn maybe_populate_target_elr(c: &mut Shared<Controller>, isr_before: &[u32], unclean_shutdown: Option<u32>, out: &mut Out) {
    if !out.behavior.eligible_leader_replicas {
        return;
    }
    let min_isr = out.scenario.config.min_insync_replicas.min(out.scenario.replicas) as usize;
    let mut elr: Vec<u32> = Vec::new();
    if c.isr.len() < min_isr {
        for &b in c.elr.iter().chain(isr_before) {
            if !c.isr.contains(&b) && Some(b) != unclean_shutdown && !elr.contains(&b) {
                elr.push(b);
            }
        }
    }
    crate::sort::ids(&mut elr);
    if elr != *c.elr {
        let (before, after) = (BrokerSet::of(&c.elr), BrokerSet::of(&elr));
        c.record(Event::ElrChanged { before, after }, out);
    }
}

/// `PartitionChangeBuilder.isValidNewLeader` for an empty ISR, then
/// `canElectLastKnownLeader` (4.1): the first ELR member `acceptable` allows, or
/// the last known leader if the ISR and the ELR are both empty and it is
/// acceptable (an unclean election: its log is all there is).
pub(crate) fn elect_from_elr(c: &Controller, acceptable: impl Fn(u32) -> bool, out: &Out) -> Option<(u32, ElectedFrom)> {
    if !out.behavior.eligible_leader_replicas || !c.isr.is_empty() {
        return None;
    }
    if let Some(b) = c.elr.iter().copied().find(|&b| acceptable(b)) {
        return Some((b, ElectedFrom::Elr));
    }
    match c.last_known_elr[..] {
        [b] if c.elr.is_empty() && acceptable(b) => Some((b, ElectedFrom::LastKnownLeader)),
        _ => None,
    }
}

/// `PartitionChangeBuilder.maybeUpdateLastKnownLeader` (4.1): when the ISR has
/// become empty and no leader could be elected, the controller remembers the
/// leader it had.
pub(crate) fn maybe_update_last_known_leader(c: &mut Shared<Controller>, old_leader: u32, out: &mut Out) {
    if out.behavior.eligible_leader_replicas && c.isr.is_empty() && *c.last_known_elr != [old_leader] {
        c.record(Event::LastKnownLeaderRecorded { broker: old_leader }, out);
    }
}

/// `ReplicationControlManager.handleBrokerUncleanShutdown` (4.1): a broker that
/// registers again after a crash may have lost what it had not flushed, so it
/// leaves the ELR. (That the registration also takes it out of the ISR is part
/// of the bounce itself, which this model simplifies: see docs/behaviors.md.)
pub(crate) fn handle_broker_unclean_shutdown(c: &mut Shared<Controller>, id: u32, out: &mut Out) {
    if !out.behavior.eligible_leader_replicas || !c.elr.contains(&id) {
        return;
    }
    let before = BrokerSet::of(&c.elr);
    let after: BrokerSet = c.elr.iter().copied().filter(|&b| b != id).collect();
    c.record(Event::ElrChanged { before, after }, out);
}
