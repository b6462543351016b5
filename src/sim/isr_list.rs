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
/// - From five members the Scala set is a `HashSet` (`Set4 + elem` builds one; so does
///   `.toSet` of a list of five or more), and a `HashSet` stays one when members leave
///   (`-`, `--` and `filter` keep the class down to one member). A `HashSet` iterates in
///   hash order, whatever the insertion order, so the leader logs and sends its ISR in
///   that order ([`Members`], [`IsrList::appended`], [`IsrList::retained`],
///   [`IsrList::to_set`]). Run on the JVM against scala-library 2.10.6, 2.11.12, 2.12.10,
///   2.12.19 and 2.13.15 (every set of ids 0–6, each built in two insertion orders):
///   the order of `Int` members is the same in all five, `0,5,1,6,2,3,4`; 2.10–2.12
///   (a hash trie) and 2.13 (CHAMP) differ for other hashes, not for these ids.
///
/// At most 7 brokers (ids 0–6): each member is a nibble (id + 1), the first lowest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct IsrList(u32, Option<Members>);

/// What the leader's Scala `Set` holds, which decides its hash order once it is a
/// `HashSet`. Each release's build Scala (`scalaVersion` in its gradle.properties: 2.10.6
/// at 0.10.2, 2.11 at 0.11–2.1, 2.12.10 at 2.4, 2.13 from 2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Members {
    /// `Set[Int]` (`inSyncReplicaIds` at 2.4, the partition state's `isr` from 2.8):
    /// a `HashSet` of ids iterates `0,5,1,6,2,3,4`.
    #[default]
    Ids,
    /// `Set[Replica]` (`inSyncReplicas`, 0.10.2–2.1), hashed by `Replica.hashCode`
    /// (`31 + topicPartition.hashCode + 17 * brokerId`; for `t-0`, 1108 + 17 × id): it
    /// iterates `2,3,6,1,4,0,5` (Scala 2.10/2.11). What it logs and writes to ZooKeeper is
    /// `map(_.brokerId)`, a new set built from that order: a `HashSet` of ids (their
    /// order) from five members, a `Set1`–`Set4` in the replicas' order below.
    Replicas,
}

/// Each id's place in a `HashSet`'s iteration: ids, and `Replica`s of `t-0`.
const ID_RANK: [u8; 7] = [0, 2, 4, 5, 6, 1, 3];
const REPLICA_RANK: [u8; 7] = [5, 3, 0, 1, 4, 6, 2];

impl Members {
    /// What the leader's Scala ISR set holds at `preset`'s version.
    pub fn of(preset: crate::scenario::Preset) -> Members {
        use crate::scenario::Preset::*;
        match preset {
            Kafka010 | Kafka011 | Kafka20 | Kafka21 => Members::Replicas,
            Textbook | Kafka24 | Kafka28 | Kafka37 | Kafka38 | Kafka40 | Kafka41 => Members::Ids,
        }
    }
}

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
        IsrList(self.0 | (id + 1) << (4 * self.len()), self.1)
    }

    /// The leader's set as it keeps it: `ids` in its order, a `HashSet` of `hashed` members or a small set.
    pub fn leader_set(ids: &[u32], hashed: Option<Members>) -> IsrList {
        IsrList(IsrList::of(ids).0, hashed)
    }

    /// `list.toSet` (`Partition.makeLeader`, an applied AlterPartition answer): a small
    /// set in the list's order up to four members, a `HashSet` from five.
    pub fn to_set(ids: &[u32], members: Members) -> IsrList {
        let l = IsrList::of(ids);
        if l.len() >= 5 {
            IsrList(l.0, Some(members)).in_hash_order()
        } else {
            l
        }
    }

    /// Whether the leader's Scala set is a `HashSet`, and of what.
    pub fn hashed(self) -> Option<Members> {
        self.1
    }

    /// A `HashSet`'s members in the order it logs them (a small set's as they are).
    fn in_hash_order(self) -> IsrList {
        let Some(m) = self.1 else { return self };
        let rank = if m == Members::Replicas && self.len() <= 4 { &REPLICA_RANK } else { &ID_RANK };
        let mut v = self.to_kafka_vec();
        // Stable, as sort_by_key is, without the standard library's sort (crate::sort).
        crate::sort::sort_by(&mut v, |&a, &b| rank[a as usize] < rank[b as usize]);
        IsrList(IsrList::of(&v).0, self.1)
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

    /// `id` joins the ISR (`Partition.maybeExpandIsr`), unless it is in it: last in a
    /// small set; the fifth member makes it a `HashSet` of `members`, in hash order.
    pub fn appended(self, id: u32, members: Members) -> IsrList {
        if self.contains(id) {
            return self;
        }
        let grown = self.pushed(id);
        if grown.len() >= 5 {
            IsrList(grown.0, Some(self.1.unwrap_or(members))).in_hash_order()
        } else {
            grown
        }
    }

    /// The members `keep` keeps, in their order (a shrink, a fence, a removal).
    /// A `HashSet` stays one (in hash order; `Replica`s log in their own order below five).
    pub fn retained(self, keep: impl Fn(u32) -> bool) -> IsrList {
        let mut l = IsrList(0, self.1);
        for b in self.kafka_order().filter(|&b| keep(b)) {
            l = l.pushed(b);
        }
        l.in_hash_order()
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
    use super::{IsrList, Members};

    #[test]
    fn appends_and_retains_in_kafka_order() {
        let l = IsrList::of(&[1, 2]);
        assert_eq!(l.len(), 2);
        let grown = l.appended(0, Members::Ids);
        assert_eq!(grown.to_kafka_vec(), [1, 2, 0], "the follower that rejoins is last");
        assert_eq!(grown.appended(2, Members::Ids), grown, "a member is not added twice");
        assert_eq!(grown.retained(|b| b != 2).to_kafka_vec(), [1, 0], "a shrink keeps the others' order");
        assert_eq!(grown.set().to_vec(), [0, 1, 2]);
        assert!(IsrList::of(&[]).is_empty());
        let full = IsrList::of(&[6, 5, 4, 3, 2, 1, 0]); // a list (the controller's), not a set
        assert_eq!(full.len(), 7);
        assert_eq!(full.to_kafka_vec(), [6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(full.retained(|b| b % 2 == 0).to_kafka_vec(), [6, 4, 2, 0]);
    }

    /// From five members the leader's set is a `HashSet` and iterates in hash order (the
    /// orders as scala-library 2.10.6–2.13.15 iterate them on the JVM; see the type's doc).
    #[test]
    fn a_fifth_member_makes_a_hash_set() {
        let four = IsrList::of(&[4, 3, 2, 1]);
        assert_eq!(four.appended(0, Members::Ids).to_kafka_vec(), [0, 1, 2, 3, 4], "Set4 + 0 iterates in hash order");
        let six = IsrList::of(&[0, 1, 2, 3]).appended(4, Members::Ids).appended(5, Members::Ids);
        assert_eq!(six.to_kafka_vec(), [0, 5, 1, 2, 3, 4]);
        assert_eq!(six.hashed(), Some(Members::Ids));
        let five = six.retained(|b| b != 3);
        assert_eq!((five.to_kafka_vec(), five.hashed()), (vec![0, 5, 1, 2, 4], Some(Members::Ids)));
        let small = five.retained(|b| b != 0 && b != 1);
        assert_eq!((small.to_kafka_vec(), small.hashed()), (vec![5, 2, 4], Some(Members::Ids)), "a HashSet stays one");
        // The round trip through a list (AlterPartition's answer, a LeaderAndIsr): `.toSet`.
        assert_eq!(IsrList::to_set(&small.to_kafka_vec(), Members::Ids).hashed(), None, "small again, in the list's order");
        let rebuilt = IsrList::to_set(&[6, 5, 4, 3, 2, 1, 0], Members::Ids);
        assert_eq!(rebuilt.to_kafka_vec(), [0, 5, 1, 6, 2, 3, 4]);
        // 0.10.2–2.1: a set of `Replica`s logs `map(_.brokerId)`: ids' hash order from five,
        // the replicas' own (2,3,6,1,4,0,5) below five once it is a `HashSet`.
        let r = IsrList::of(&[0, 1, 2, 3]).appended(4, Members::Replicas);
        assert_eq!(r.to_kafka_vec(), [0, 1, 2, 3, 4]);
        assert_eq!(r.retained(|b| b != 1).to_kafka_vec(), [2, 3, 4, 0]);
        assert_eq!(IsrList::of(&[1, 2, 3]).retained(|b| b != 2).to_kafka_vec(), [1, 3], "a small set keeps its order");
    }
}
