//! Leader election by the controller: who leads next, in a new leader epoch.
//! Kafka (KRaft): `PartitionChangeBuilder`, `ReplicationControlManager`.

use super::event::{ElectionCause, Event};
use super::vecmap::BrokerSet;
use super::Sim;

impl Sim {
    /// A replica the controller may elect: alive and not fenced.
    fn eligible(&self, b: u32) -> bool {
        self.broker(b).alive && !self.controller.fenced.contains(&b)
    }

    /// `PartitionChangeBuilder.electLeader`: the new leader and whether the election
    /// is clean (from the ISR), or None if no replica may lead.
    /// - The leader was fenced: the first eligible ISR member; with
    ///   unclean.leader.election.enable, else the first eligible replica (unclean).
    /// - The leader restarted: it never resumes its old epoch; leadership moves to
    ///   the first eligible ISR member, or back to it, in a new epoch, so that
    ///   followers' epochs reveal any divergence.
    /// - The partition was offline and a broker came back: that broker, if it is in
    ///   the ISR, or with unclean.leader.election.enable.
    pub(crate) fn elect_leader(&self, cause: ElectionCause) -> Option<(u32, bool)> {
        let c = &self.controller;
        let unclean = self.scenario.config.unclean_leader_election_enable;
        match cause {
            ElectionCause::LeaderFenced { old } => match c.isr.iter().copied().find(|&b| b != old && self.eligible(b)) {
                Some(b) => Some((b, true)),
                None if unclean => (0..self.scenario.replicas).find(|&b| b != old && self.eligible(b)).map(|b| (b, false)),
                None => None,
            },
            ElectionCause::LeaderRestarted { old } => {
                Some((c.isr.iter().copied().find(|&b| b != old && self.eligible(b)).unwrap_or(old), true))
            }
            ElectionCause::Offline { broker } => {
                let in_isr = c.isr.contains(&broker);
                (in_isr || unclean).then_some((broker, in_isr))
            }
        }
    }

    /// The controller records the new leader in a new leader and partition epoch
    /// (unclean: the ISR becomes the new leader alone) and tells every broker.
    pub(crate) fn change_leader(&mut self, leader: u32, clean: bool, cause: ElectionCause) {
        let c = &self.controller;
        let isr = if clean { BrokerSet::of(&c.isr) } else { BrokerSet::of(&[leader]) };
        let epoch = c.leader_epoch + 1;
        self.emit(Event::LeaderElected { leader, epoch, isr, clean, cause });
        self.send_metadata_except(None);
    }

    /// No replica may lead: the partition is offline until one returns.
    pub(crate) fn go_offline(&mut self, old_leader: u32) {
        let epoch = self.controller.leader_epoch + 1;
        let isr = BrokerSet::of(&self.controller.isr);
        self.emit(Event::PartitionOffline { old_leader, epoch, isr });
        self.send_metadata_except(None);
    }
}
