//! Leader election by the controller: who leads next, in a new leader epoch.
//! Kafka (KRaft): `PartitionChangeBuilder`, `ReplicationControlManager`.
//!
//! Node functions of the controller (`outbox.rs`): each reads and writes the
//! controller's state alone; the rules that call them (`controller.rs`,
//! `zookeeper.rs`) publish the new metadata to the brokers after.

use super::elr;
use super::event::{ElectedFrom, ElectionCause, Event};
use super::outbox::Out;
use super::shared::Shared;
use super::state::Controller;
use super::vecmap::BrokerSet;

/// A replica the controller may elect: registered and not fenced, as far as the
/// controller knows (`isAcceptableLeader`): a broker that died but whose session
/// has not expired yet may be elected, as in Kafka.
fn eligible(c: &Controller, b: u32) -> bool {
    !c.fenced.contains(&b)
}

/// `PartitionChangeBuilder.electLeader`: the new leader and where it comes
/// from, or None if no replica may lead.
/// - The leader was fenced, or its incarnation is gone (a new one registered): the
///   first eligible ISR member; with ELR (4.1) and an empty ISR, the first eligible
///   ELR member, else the last known leader; with unclean.leader.election.enable,
///   else the first eligible replica (unclean).
/// - The leader restarted (ZooKeeper era): it never resumes its old epoch;
///   leadership moves to the first eligible ISR member, or back to it, in a new
///   epoch, so that followers' epochs reveal any divergence.
/// - The partition had no leader and a broker was unfenced: that broker, if it is
///   in the ISR (or, with ELR and an empty ISR, in the ELR; or it is the last known
///   leader), or with unclean.leader.election.enable.
///
/// "First" is in the assignment's order, not the ISR list's (`PartitionChangeBuilder`
/// streams `targetReplicas`; the ZooKeeper era's `offlinePartitionLeaderElection` finds
/// in `assignment`): here replicas 0, 1, … .
pub(crate) fn elect_leader(c: &Controller, cause: ElectionCause, out: &Out) -> Option<(u32, ElectedFrom)> {
    let unclean = out.settings.unclean_leader_election_enable;
    let replicas = out.scenario.replicas;
    let in_isr = (0..replicas).filter(|b| c.isr.contains(b));
    match cause {
        ElectionCause::LeaderFenced { old } | ElectionCause::LeaderShutdown { old } => {
            if let Some(b) = in_isr.clone().find(|&b| b != old && eligible(c, b)) {
                return Some((b, ElectedFrom::Isr));
            }
            if let Some(b) = elr::elect_from_elr(c, |b| b != old && eligible(c, b), out) {
                return Some(b);
            }
            unclean.then(|| (0..replicas).find(|&b| b != old && eligible(c, b))).flatten().map(|b| (b, ElectedFrom::Unclean))
        }
        ElectionCause::LeaderRestarted { old } => {
            Some((in_isr.clone().find(|&b| b != old && eligible(c, b)).unwrap_or(old), ElectedFrom::Isr))
        }
        ElectionCause::Unfenced { broker } => {
            if c.isr.contains(&broker) {
                return Some((broker, ElectedFrom::Isr));
            }
            if let Some(b) = elr::elect_from_elr(c, |b| b == broker, out) {
                return Some(b);
            }
            unclean.then_some((broker, ElectedFrom::Unclean))
        }
    }
}

/// The controller records the new leader in a new leader and partition epoch
/// (from the ELR, the last known leader or unclean: the ISR becomes the new
/// leader alone).
pub(crate) fn change_leader(c: &mut Shared<Controller>, leader: u32, from: ElectedFrom, cause: ElectionCause, out: &mut Out) {
    let isr = if from == ElectedFrom::Isr { BrokerSet::of(&c.isr) } else { BrokerSet::of(&[leader]) };
    let epoch = c.leader_epoch + 1;
    c.record(Event::LeaderElected { leader, epoch, isr, clean: from.clean(), cause, from }, out);
}

/// No replica may lead: the partition is offline until one returns.
pub(crate) fn go_offline(c: &mut Shared<Controller>, old_leader: u32, out: &mut Out) {
    let epoch = c.leader_epoch + 1;
    let isr = BrokerSet::of(&c.isr);
    c.record(Event::PartitionOffline { old_leader, epoch, isr }, out);
    elr::maybe_update_last_known_leader(c, old_leader, out);
}

/// Elects a new leader for `cause` if one may lead; otherwise, when the leader
/// `gone` is being replaced, the partition goes offline.
pub(crate) fn elect(c: &mut Shared<Controller>, cause: ElectionCause, gone: Option<u32>, out: &mut Out) {
    match elect_leader(c, cause, out) {
        Some((leader, from)) => change_leader(c, leader, from, cause, out),
        None => {
            if let Some(old) = gone {
                go_offline(c, old, out);
            }
        }
    }
}
