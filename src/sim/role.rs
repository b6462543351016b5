//! A broker takes the role the metadata gives it: leader, follower, or the same
//! leader with a new ISR, as a node function of the broker's own state (issue 27,
//! `outbox.rs`). The metadata reaches it by the KRaft metadata log (a fetch, a
//! registration's or heartbeat's answer) or, before KRaft, the controller's
//! LeaderAndIsr: those rules are the broker's life (`broker.rs`, `metadata_fetch.rs`).
//! Kafka: `ReplicaManager.applyDelta` (KRaft), `ReplicaManager.becomeLeaderOrFollower`,
//! `Partition.makeLeader` / `makeFollower`.

use super::event::Event;
use super::isr_list::{IsrList, Members};
use super::leader::{self, lead, lead_mut};
use super::msg::{Body, FetchResponse, KafkaError, Metadata, Node};
use super::outbox::Out;
use super::shared::Shared;
use super::state::{Broker, FetcherState, Lifecycle, Role};
use super::vecmap::VecSet;
use super::{follower, truncation};
use crate::scenario::{Behavior, BrokerLiveness};

/// A restarted KRaft broker acts on the metadata it loaded before the controller has
/// accepted its registration, let alone unfenced it. `BrokerServer.startup` (read at
/// 3.5.0, 3.6.0, 3.7.0, 3.8.0, 3.9 and in 4.0.2's and 4.1.0's sources) starts
/// `BrokerLifecycleManager` (the registration) and then installs the metadata
/// publishers before it waits for "the controller to acknowledge that we are caught
/// up"; the raft client fetches the metadata log as an observer, which needs no
/// registration, and once the loader has read it to the high watermark
/// `BrokerMetadataPublisher` publishes the whole image (`initializeManagers` starts the
/// ReplicaManager, then `ReplicaManager.applyDelta`). So the new process becomes
/// leader (`Partition.makeLeader`) or follower (`makeFollower`, fetchers started
/// towards the leader the image names, with broker epoch -1 until registered, which
/// `Partition.isReplicaIsrEligible` lets through) at the leader epoch the controller
/// holds, even while the controller still refuses it (DUPLICATE_BROKER_REGISTRATION
/// inside the old session). Measured on 4.0.2 (the oracle's kept bounce run): *Publishing
/// initial metadata* 277 ms after the first refusal, then *Leader … starts at leader
/// epoch 0*. As a follower it fetches, truncates and catches up before it registers, and
/// its fetches count for the HW while its old incarnation is still in the ISR. As a
/// leader it serves nothing: the data-plane acceptors open only once it is unfenced
/// (`enableRequestProcessing`, last in start-up), so followers and clients cannot reach
/// it; the model keeps it out of the leader's role until then (its ISR check, whose
/// AlterPartition carries broker epoch -1 and is refused STALE_BROKER_EPOCH by
/// `ClusterControlManager.checkBrokerEpoch`, is not modelled). The ZooKeeper era has no
/// such image: a broker learns its role from the controller's LeaderAndIsr.
pub(crate) fn acts_on_image_before_registration(behavior: &Behavior) -> bool {
    behavior.broker_liveness != BrokerLiveness::ZookeeperSession
}

/// `ReplicaManager.applyDelta`: become leader, become follower, or update the ISR.
/// A broker still registering, or one that has applied newer metadata, was filtered
/// out by the caller.
pub(crate) fn apply_metadata(b: &mut Shared<Broker>, meta: &Metadata, out: &mut Out) {
    let id = b.id;
    b.metadata_offset = b.metadata_offset.max(meta.offset);
    if meta.leader == Some(id) && b.lifecycle == Lifecycle::Starting && acts_on_image_before_registration(out.behavior) {
        // Leader in its own view, its data plane still closed (`acts_on_image_before_registration`).
        b.image_partition_epoch = Some(meta.partition_epoch);
        b.leader_epoch = meta.leader_epoch;
        b.leader = Some(id);
        return b.record(Event::LeadsBeforeRegistration { broker: id, epoch: meta.leader_epoch }, out);
    }
    let same_epoch = b.leader_epoch == meta.leader_epoch;
    let fenced: VecSet<u32> = meta.fenced.iter().copied().collect();
    if meta.leader == Some(id) {
        if same_epoch && b.lead.is_some() {
            if !local_changes_include(b, meta) {
                // The partition did not change (metadata resent for another reason, a
                // registration): its state, a pending ISR change included, stays; which
                // brokers are fenced is the cluster's part of the delta.
                lead_mut(b).fenced = fenced;
                b.record(Event::NothingChanges { broker: id }, out);
                return leader::hw_after_isr_change(b, out);
            }
            b.image_partition_epoch = Some(meta.partition_epoch);
            let held = lead(b).partition_epoch;
            if meta.partition_epoch < held {
                // `Partition.makeLeader` (3.3+): an AlterPartition answer already gave it a newer state.
                return b.record(Event::LeaderStateNewer { broker: id, partition_epoch: meta.partition_epoch, held }, out);
            }
            // Same epoch: an ISR change by the controller; follower states are kept
            // (`testDoNotResetReplicaStateIfLeaderEpochIsNotBumped`).
            let before = lead(b).isr_set();
            lead_mut(b).fenced = fenced;
            let after = IsrList::to_set(&meta.isr, Members::of(out.scenario.preset));
            b.record(Event::LeaderIsrUpdated { broker: id, before, after, partition_epoch: meta.partition_epoch }, out);
            return leader::hw_after_isr_change(b, out);
        }
        let again = b.lead.is_some();
        b.image_partition_epoch = Some(meta.partition_epoch);
        follower::clear_fetcher(b, out);
        b.leader_epoch = meta.leader_epoch;
        let hw_before = b.hw;
        let (isr, partition_epoch) = (meta.isr.clone(), meta.partition_epoch);
        if again {
            leader::make_leader_in_new_epoch(b, isr, partition_epoch, fenced, out);
        } else {
            leader::make_leader(b, isr, partition_epoch, fenced, out);
        }
        let (leo, hw, prev) = (b.log.leo(), b.hw, b.kafka_partition);
        return b.record(Event::BecameLeader { broker: id, epoch: meta.leader_epoch, leo, hw_before, hw, again, prev }, out);
    }
    // Not the leader: a follower of meta.leader.
    b.image_partition_epoch = Some(meta.partition_epoch);
    let was_leader = b.lead.is_some();
    let new_leader = was_leader || make_follower_changes_state(b, meta, out.behavior);
    if !new_leader && !was_leader && !matches!(b.fetcher, FetcherState::Idle) {
        b.leader_epoch = meta.leader_epoch;
        return b.record(Event::NothingChanges { broker: id }, out);
    }
    // What it answers waiting producers with (KIP-951): the new leader.
    b.leader_epoch = meta.leader_epoch;
    b.leader = meta.leader;
    if was_leader {
        drop_leadership(b, Some(KafkaError::NotLeaderOrFollower), out);
    }
    follower::clear_fetcher(b, out);
    b.role = Role::Follower;
    let prev = b.kafka_partition;
    b.record(Event::BecameFollower { broker: id, leader: meta.leader, stepped_down: was_leader, prev }, out);
    if meta.leader.is_some() {
        truncation::truncate_on_become_follower(b, out);
        follower::start_fetching(b, out);
    }
}

/// `TopicDelta.localChanges` (KRaft, 3.x–4.x; a leader's same-epoch LeaderAndIsr was
/// ignored before): a metadata delta changes a leader's partition only when the
/// partition's epoch differs from the one in the broker's image, so metadata resent
/// without a partition change (a broker's registration) leaves the leader's state,
/// a pending AlterPartition included, as it is. After a restart the image is empty
/// and the first load applies everything.
fn local_changes_include(b: &Broker, meta: &Metadata) -> bool {
    b.image_partition_epoch != Some(meta.partition_epoch)
}

/// `Partition.makeFollower`'s answer: whether the broker must become a follower
/// anew (stop its fetcher, truncate as the preset does, fetch again). A new leader
/// always; a new epoch from the same leader from 2.1 (KIP-320, with
/// `leader_epoch_fencing`: the follower's requests must carry the new epoch), while
/// before 2.1 a follower whose leader is unchanged ignores an epoch bump.
fn make_follower_changes_state(b: &Broker, meta: &Metadata, behavior: &Behavior) -> bool {
    meta.leader != b.leader || (b.leader_epoch != meta.leader_epoch && behavior.leader_epoch_fencing)
}

/// Ends a broker's leadership: parked fetches and delayed produces are answered
/// with NOT_LEADER_OR_FOLLOWER if it is alive (`error`), or simply vanish in a crash.
pub(crate) fn drop_leadership(b: &mut Shared<Broker>, error: Option<KafkaError>, out: &mut Out) {
    if b.lead.is_none() {
        return;
    }
    let Some(ls) = b.lead.take() else {
        return;
    };
    let id = b.id;
    let timers = ls.isr_timer.into_iter().chain(ls.alter.map(|a| a.1));
    for t in timers.chain(ls.parked_fetches.iter().map(|p| p.timer)).chain(ls.delayed_produces.iter().map(|d| d.timer)) {
        out.cancel(t);
    }
    if let Some(error) = error {
        let (hw, leo) = (b.hw, b.log.leo());
        let current_leader = leader::current_leader_named(b, error, out.behavior);
        for p in &ls.parked_fetches {
            let resp = FetchResponse {
                request: p.request,
                fetch_offset: p.req.fetch_offset,
                records: Vec::new(),
                hw,
                log_start_offset: 0,
                leader_leo: leo,
                error: Some(error),
                diverging_epoch: None,
            };
            out.send(Node::Broker(id), Node::Broker(p.follower), Body::FetchResponse(resp));
        }
        for d in &ls.delayed_produces {
            let body =
                Body::ProduceResponse { request: d.request, ids: d.ids.clone(), error: Some(error), current_leader, duplicate: false };
            out.send(Node::Broker(id), Node::Producer(d.producer), body);
        }
    }
    b.role = Role::Follower;
}
