//! The ISR in the order Kafka keeps it, and so prints it in every log line
//! (`hwscope run --format kafka-log`; docs/exactness.md, "ISR order after several
//! changes"). The one place the engine orders an ISR: the leader's committed and
//! proposed ISR and the controller's ISR are lists built only by [`IsrList::appended`]
//! and [`IsrList::retained`]. What the step records show stays sorted ([`sorted`]).

use super::vecmap::BrokerSet;

/// An ISR as Kafka orders it: the controller's list, each member that rejoins last.
///
/// - An expansion appends. `Partition.maybeExpandIsr` adds the follower to a Scala
///   immutable `Set` (`inSyncReplicas + replica` at 0.10.2–2.0, `inSyncReplicaIds +
///   id` at 2.4, `isr + newInSyncReplicaId` in `PendingExpandIsr` at 2.8 and
///   `prepareIsrExpand` at 3.7–4.0); up to four members (`Set1`–`Set4`) it iterates
///   in insertion order, and that order is what it logs (*Expanding ISR from 1,2 to
///   1,2,0*) and sends: `.toList` into the ZooKeeper write (0.10.2–2.4) or the
///   AlterPartition (2.8+).
/// - A shrink keeps the others' order: the leader's `isr -- outOfSyncReplicas`
///   (`Partition.maybeShrinkIsr`, all versions), and the controller removing a fenced
///   or dead replica: `isr.filter(_ != replicaId)` in `KafkaController.removeReplicaFromIsr`
///   (0.10.2) and `ReplicaStateMachine.doRemoveReplicasFromIsr` (2.0–2.8),
///   `Replicas.copyWithout` in `ReplicationControlManager.generateLeaderAndIsrUpdates`
///   (KRaft, 3.7–4.0); a clean election keeps the ISR's list as it is.
/// - The controller keeps the list the leader sent (`KafkaController.alterIsrs` at 2.8
///   takes `newIsr` as listed; KRaft `ReplicationControlManager.alterPartition` →
///   `PartitionChangeBuilder.setTargetIsrWithBrokerStates`, and answers with
///   `Replicas.toList(partition.isr)`), and a leader rebuilds its `Set` from the list
///   it is given (`Partition.makeLeader`, `handleAlterPartitionUpdate`: `.toSet`), in
///   that order.
///
/// Not modelled: five or more members make the Scala set a `HashSet`, which iterates
/// in hash order; here the list keeps insertion order at every size.
///
/// At most 7 brokers (ids 0–6): each member is a nibble (id + 1), the first lowest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct IsrList(u32);

impl IsrList {
    /// The list as given (a message's or the state's, already in Kafka's order).
    pub fn of(ids: &[u32]) -> IsrList {
        let mut l = IsrList::default();
        for &b in ids {
            l = l.pushed(b);
        }
        l
    }

    fn pushed(self, id: u32) -> IsrList {
        debug_assert!(id < 8 && self.len() < 7, "an ISR of at most 7 brokers, ids below 8");
        IsrList(self.0 | (id + 1) << (4 * self.len()))
    }

    pub fn len(self) -> usize {
        (32 - self.0.leading_zeros() as usize).div_ceil(4)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The members in Kafka's order (what its log lines print).
    pub fn kafka_order(self) -> impl Iterator<Item = u32> {
        (0..self.len()).map(move |i| (self.0 >> (4 * i) & 0xf) - 1)
    }

    /// The members in Kafka's order, as a list (the state's, a message's).
    pub fn to_kafka_vec(self) -> Vec<u32> {
        self.kafka_order().collect()
    }

    /// The members as a set (broker order: narration, step records, counts).
    pub fn set(self) -> BrokerSet {
        self.kafka_order().collect()
    }

    pub fn contains(self, id: u32) -> bool {
        self.kafka_order().any(|b| b == id)
    }

    /// `id` joins the ISR: last (`Partition.maybeExpandIsr`), unless it is in it.
    pub fn appended(self, id: u32) -> IsrList {
        if self.contains(id) {
            self
        } else {
            self.pushed(id)
        }
    }

    /// The members `keep` keeps, in their order (a shrink, a fence, a removal).
    pub fn retained(self, keep: impl Fn(u32) -> bool) -> IsrList {
        let mut l = IsrList::default();
        for b in self.kafka_order().filter(|&b| keep(b)) {
            l = l.pushed(b);
        }
        l
    }
}

/// An ISR list in broker order: what the step records, the labels and the narration
/// show (the page, share links, frozen traces and the explorer's counts read them so).
pub fn sorted(ids: &[u32]) -> Vec<u32> {
    let mut v = ids.to_vec();
    crate::sort::ids(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::IsrList;

    #[test]
    fn appends_and_retains_in_kafka_order() {
        let l = IsrList::of(&[1, 2]);
        assert_eq!(l.len(), 2);
        let grown = l.appended(0);
        assert_eq!(grown.to_kafka_vec(), [1, 2, 0], "the follower that rejoins is last");
        assert_eq!(grown.appended(2), grown, "a member is not added twice");
        assert_eq!(grown.retained(|b| b != 2).to_kafka_vec(), [1, 0], "a shrink keeps the others' order");
        assert_eq!(grown.set().to_vec(), [0, 1, 2]);
        assert!(IsrList::of(&[]).is_empty());
        let full = IsrList::of(&[6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(full.len(), 7);
        assert_eq!(full.to_kafka_vec(), [6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(full.retained(|b| b % 2 == 0).to_kafka_vec(), [6, 4, 2, 0]);
    }
}
