//! Leader election by the controller: who leads next, in a new leader epoch.
//! Kafka (KRaft): `PartitionChangeBuilder`, `ReplicationControlManager`.

use super::event::{ElectedFrom, ElectionCause, Event};
use super::vecmap::BrokerSet;
use super::Sim;

impl Sim {
    /// A replica the controller may elect: registered and not fenced, as far as the
    /// controller knows (`isAcceptableLeader`): a broker that died but whose session
    /// has not expired yet may be elected, as in Kafka.
    fn eligible(&self, b: u32) -> bool {
        !self.controller.fenced.contains(&b)
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
    pub(crate) fn elect_leader(&self, cause: ElectionCause) -> Option<(u32, ElectedFrom)> {
        let c = &self.controller;
        let unclean = self.settings.unclean_leader_election_enable;
        let in_isr = (0..self.scenario.replicas).filter(|b| c.isr.contains(b));
        match cause {
            ElectionCause::LeaderFenced { old } | ElectionCause::LeaderShutdown { old } => {
                if let Some(b) = in_isr.clone().find(|&b| b != old && self.eligible(b)) {
                    return Some((b, ElectedFrom::Isr));
                }
                if let Some(b) = self.elect_from_elr(|b| b != old && self.eligible(b)) {
                    return Some(b);
                }
                unclean
                    .then(|| (0..self.scenario.replicas).find(|&b| b != old && self.eligible(b)))
                    .flatten()
                    .map(|b| (b, ElectedFrom::Unclean))
            }
            ElectionCause::LeaderRestarted { old } => {
                Some((in_isr.clone().find(|&b| b != old && self.eligible(b)).unwrap_or(old), ElectedFrom::Isr))
            }
            ElectionCause::Unfenced { broker } => {
                if c.isr.contains(&broker) {
                    return Some((broker, ElectedFrom::Isr));
                }
                if let Some(b) = self.elect_from_elr(|b| b == broker) {
                    return Some(b);
                }
                unclean.then_some((broker, ElectedFrom::Unclean))
            }
        }
    }

    /// The controller records the new leader in a new leader and partition epoch
    /// (from the ELR, the last known leader or unclean: the ISR becomes the new
    /// leader alone) and tells every broker.
    pub(crate) fn change_leader(&mut self, leader: u32, from: ElectedFrom, cause: ElectionCause) {
        let c = &self.controller;
        let isr = if from == ElectedFrom::Isr { BrokerSet::of(&c.isr) } else { BrokerSet::of(&[leader]) };
        let epoch = c.leader_epoch + 1;
        self.emit(Event::LeaderElected { leader, epoch, isr, clean: from.clean(), cause, from });
        self.send_metadata_except(None);
    }

    /// No replica may lead: the partition is offline until one returns.
    pub(crate) fn go_offline(&mut self, old_leader: u32) {
        let epoch = self.controller.leader_epoch + 1;
        let isr = BrokerSet::of(&self.controller.isr);
        self.emit(Event::PartitionOffline { old_leader, epoch, isr });
        self.maybe_update_last_known_leader(old_leader);
        self.send_metadata_except(None);
    }
}
