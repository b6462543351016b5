//! The controller and broker lifecycles: crashes, restarts, fencing on missed
//! heartbeats, AlterPartition, and the metadata (LeaderAndIsr) that tells
//! brokers their role. Elections are in `election.rs`.
//! Kafka (KRaft): `ReplicationControlManager`, `BrokerHeartbeatManager`;
//! brokers: `ReplicaManager.applyDelta`, `Partition.makeLeader` / `makeFollower`.

use super::event::{ElectionCause, Event, Session};
use super::msg::{AlterPartitionError, Body, FetchResponse, KafkaError, Metadata, Msg, Node};
use super::scheduler::Timer;
use super::state::{FetcherState, Role};
use super::vecmap::{BrokerSet, VecSet};
use super::Sim;
use crate::scenario::{BrokerLiveness, Config, Settings};

/// How often a broker shows it is alive, and how long the controller waits after
/// the last sign before it treats the broker as gone, by `broker_liveness`:
/// - KRaft (`BrokerHeartbeatManager`): a heartbeat every broker.heartbeat.interval.ms;
///   fenced broker.session.timeout.ms after the last one.
/// - ZooKeeper: the broker's ZooKeeper client pings every third of
///   zookeeper.session.timeout.ms (it pings after half its read timeout, two thirds
///   of the session, without traffic); ZooKeeper expires the session one session
///   timeout after the last ping, deletes `/brokers/ids/N`, and the controller's
///   watch runs `onBrokerFailure` (its own delay is not modelled).
pub(crate) fn liveness_timing(config: &Config, liveness: BrokerLiveness, settings: Settings) -> (u64, u64) {
    match liveness {
        BrokerLiveness::BrokerHeartbeat => (config.broker_heartbeat_interval_ms, config.broker_session_timeout_ms),
        BrokerLiveness::ZookeeperSession => {
            let session = settings.zookeeper_session_timeout_ms;
            ((session / 3).max(1), session)
        }
    }
}

impl Sim {
    /// `crash`: the broker stops at once. Requests on their way to it are lost, its
    /// purgatories and timers vanish, and `unflushed` records at its tail are lost.
    /// The controller notices only when its heartbeats stop for broker.session.timeout.ms.
    pub(crate) fn crash(&mut self, id: u32, unflushed: u64) {
        if !self.broker(id).alive {
            return self.emit(Event::AlreadyDown { broker: id });
        }
        let dropped = self.in_flight.values().filter(|(m, _)| m.to == Node::Broker(id)).count();
        self.push_command(super::step::Command::DropMessagesTo(Node::Broker(id)));
        self.clear_fetcher(id);
        self.drop_leadership(id, None);
        let parked: Vec<_> = self.broker(id).parked_consumers.iter().map(|p| p.timer).collect();
        for t in parked {
            self.cancel(t);
        }
        let leo = self.broker(id).log.leo();
        let kept = leo.saturating_sub(unflushed);
        let (last_heartbeat, fence_at) = self.session_expiry(id);
        let timer = self.set_timer(fence_at, Timer::SessionExpiry { broker: id });
        self.controller.session_timers.insert(id, timer);
        self.emit(Event::Crashed { broker: id, unflushed, leo, kept, dropped, last_heartbeat, fence_at });
    }

    /// When the controller will learn that broker `id`, stopping now, is gone: its
    /// last sign of life (the latest heartbeat or ZooKeeper ping, each broker at its
    /// own phase drawn from the seed) and the moment its session expires, one
    /// session timeout later (`liveness_timing`).
    fn session_expiry(&self, id: u32) -> (u64, u64) {
        let (interval, timeout) = liveness_timing(&self.scenario.config, self.behavior.broker_liveness, self.settings);
        let phase = self.controller.heartbeat_phase[id as usize];
        let last = if self.now >= phase { self.now - (self.now - phase) % interval } else { 0 };
        (last, (last + timeout).max(self.now + 1))
    }

    /// Ends a broker's leadership: parked fetches and delayed produces are answered
    /// with NOT_LEADER_OR_FOLLOWER if it is alive (`error`), or simply vanish in a crash.
    fn drop_leadership(&mut self, id: u32, error: Option<KafkaError>) {
        let Some(ls) = self.broker_mut(id).lead.take() else {
            return;
        };
        if let Some(t) = ls.isr_timer {
            self.cancel(t);
        }
        for p in &ls.parked_fetches {
            self.cancel(p.timer);
        }
        for d in &ls.delayed_produces {
            self.cancel(d.timer);
        }
        if let Some(error) = error {
            let hw = self.broker(id).hw;
            for p in ls.parked_fetches {
                let resp = FetchResponse {
                    request: p.request,
                    fetch_offset: p.req.fetch_offset,
                    records: Vec::new(),
                    hw,
                    log_start_offset: 0,
                    leader_leo: self.broker(id).log.leo(),
                    error: Some(error),
                    diverging_epoch: None,
                };
                self.send(Node::Broker(id), Node::Broker(p.follower), Body::FetchResponse(resp));
            }
            for d in ls.delayed_produces {
                let body = Body::ProduceResponse { request: d.request, ids: d.ids, error: Some(error) };
                self.send(Node::Broker(id), Node::Producer(d.producer), body);
            }
        }
        self.broker_mut(id).role = Role::Follower;
    }

    /// `restart`: the broker comes back with its flushed log and its checkpointed HW,
    /// registers with the controller, and takes the role the controller gives it.
    pub(crate) fn restart(&mut self, id: u32) {
        if self.broker(id).alive {
            return self.emit(Event::AlreadyRunning { broker: id });
        }
        let b = self.broker(id);
        let (leo, hw) = (b.log.leo(), b.hw.min(b.log.leo()));
        let was_fenced = self.controller.fenced.remove(&id);
        let session = match self.controller.session_timers.remove(&id) {
            Some(t) => {
                self.cancel(t);
                Session::Kept
            }
            None if was_fenced => Session::Unfenced,
            None => Session::Fresh,
        };
        self.emit(Event::Restarted { broker: id, leo, hw, session });
        self.handle_broker_unclean_shutdown(id);
        if self.controller.leader.is_none() {
            // An offline partition gets a leader as soon as an eligible replica is back.
            let cause = ElectionCause::Offline { broker: id };
            match self.elect_leader(cause) {
                Some((leader, from)) => self.change_leader(leader, from, cause),
                None => {
                    let epoch = self.controller.leader_epoch;
                    let b = self.broker_mut(id);
                    b.leader_epoch = epoch;
                    b.leader = None;
                    self.emit(Event::WaitsForLeader { broker: id });
                    if was_fenced {
                        self.send_metadata_except(None);
                    }
                }
            }
            return;
        }
        if self.controller.leader == Some(id) {
            let cause = ElectionCause::LeaderRestarted { old: id };
            if let Some((leader, from)) = self.elect_leader(cause) {
                self.change_leader(leader, from, cause);
            }
            return;
        }
        let meta = self.metadata();
        self.apply_metadata(id, &meta);
        if was_fenced {
            // Other brokers learn it is eligible again.
            self.send_metadata_except(Some(id));
        }
    }

    /// The controller stops hearing a broker (`BrokerHeartbeatManager`; in the
    /// ZooKeeper era, its session expires): it fences it, removes it from the ISR
    /// (never emptying it, unless ELR is on), and elects a new leader if it led.
    pub(crate) fn session_expired(&mut self, id: u32) {
        let isr_list = self.controller.isr.clone();
        let isr_before = BrokerSet::of(&isr_list);
        let kept_last = isr_before.contains(id) && isr_before.len() == 1 && !self.behavior.eligible_leader_replicas;
        self.emit(Event::SessionExpired { broker: id, isr_before, kept_last });
        self.maybe_populate_target_elr(&isr_list, None);
        if self.controller.leader == Some(id) {
            let cause = ElectionCause::LeaderFenced { old: id };
            match self.elect_leader(cause) {
                Some((leader, from)) => self.change_leader(leader, from, cause),
                None => self.go_offline(id),
            }
            return;
        }
        let after = BrokerSet::of(&self.controller.isr);
        self.emit(Event::ControllerIsrShrunk { before: isr_before, after });
        if isr_before.contains(id) {
            self.bump_leader_epoch_for_isr_removal();
        }
        self.send_metadata_except(None);
    }

    /// `ReplicaStateMachine.doRemoveReplicasFromIsr` (ZooKeeper era; in 0.10
    /// `KafkaController.removeReplicaFromIsr`, "increment the leader epoch even if the
    /// ISR changes"): the controller writes the shrunk ISR with a new leader epoch, the
    /// leader unchanged. KRaft from metadata version 3.6 does not
    /// (`triggerLeaderEpochBumpForIsrShrinkIfNeeded`).
    fn bump_leader_epoch_for_isr_removal(&mut self) {
        if !self.behavior.controller_isr_removal_bumps_epoch {
            return;
        }
        if let Some(leader) = self.controller.leader {
            let epoch = self.controller.leader_epoch + 1;
            self.emit(Event::LeaderEpochBumped { leader, epoch });
        }
    }

    /// The partition as the controller holds it (`PartitionRegistration`).
    pub(crate) fn metadata(&self) -> Metadata {
        let c = &self.controller;
        Metadata {
            leader: c.leader,
            leader_epoch: c.leader_epoch,
            isr: c.isr.clone(),
            partition_epoch: c.partition_epoch,
            fenced: c.fenced.iter().copied().collect(),
        }
    }

    /// Metadata to every live broker, but `skip`.
    pub(crate) fn send_metadata_except(&mut self, skip: Option<u32>) {
        let meta = self.metadata();
        for b in 0..self.scenario.replicas {
            if Some(b) != skip && self.broker(b).alive {
                self.send(Node::Controller, Node::Broker(b), Body::LeaderAndIsr(meta.clone()));
            }
        }
    }

    /// Metadata (LeaderAndIsr / a KRaft delta) reaches a broker; an older epoch is ignored.
    pub(crate) fn handle_leader_and_isr(&mut self, msg: &Msg, meta: &Metadata) {
        let Node::Broker(id) = msg.to else { return };
        let own_epoch = self.broker(id).leader_epoch;
        if meta.leader_epoch < own_epoch {
            return self.emit(Event::MetadataStale { broker: id, epoch: meta.leader_epoch, own_epoch });
        }
        self.apply_metadata(id, meta);
    }

    /// `ReplicaManager.applyDelta`: become leader, become follower, or update the ISR.
    fn apply_metadata(&mut self, id: u32, meta: &Metadata) {
        let b = self.broker(id);
        let same_epoch = b.leader_epoch == meta.leader_epoch;
        let fenced: VecSet<u32> = meta.fenced.iter().copied().collect();
        if meta.leader == Some(id) {
            if same_epoch && b.lead.is_some() {
                // Same epoch: an ISR change by the controller; follower states are kept
                // (`testDoNotResetReplicaStateIfLeaderEpochIsNotBumped`).
                let before = BrokerSet::of(&self.lead(id).isr);
                self.lead_mut(id).fenced = fenced;
                let after = BrokerSet::of(&meta.isr);
                self.emit(Event::LeaderIsrUpdated { broker: id, before, after, partition_epoch: meta.partition_epoch });
                return self.hw_after_isr_change(id);
            }
            let again = b.lead.is_some();
            self.clear_fetcher(id);
            let b = self.broker_mut(id);
            b.leader_epoch = meta.leader_epoch;
            let hw_before = b.hw;
            if again {
                self.make_leader_in_new_epoch(id, meta.isr.clone(), meta.partition_epoch, fenced);
            } else {
                self.make_leader(id, meta.isr.clone(), meta.partition_epoch, fenced);
            }
            let b = self.broker(id);
            let (leo, hw) = (b.log.leo(), b.hw);
            return self.emit(Event::BecameLeader { broker: id, epoch: meta.leader_epoch, leo, hw_before, hw, again });
        }
        // Not the leader: a follower of meta.leader.
        let was_leader = b.lead.is_some();
        let new_leader = was_leader || self.make_follower_changes_state(id, meta);
        if !new_leader && !was_leader && !matches!(b.fetcher, FetcherState::Idle) {
            self.broker_mut(id).leader_epoch = meta.leader_epoch;
            return self.emit(Event::NothingChanges { broker: id });
        }
        if was_leader {
            self.drop_leadership(id, Some(KafkaError::NotLeaderOrFollower));
        }
        self.clear_fetcher(id);
        let b = self.broker_mut(id);
        b.leader_epoch = meta.leader_epoch;
        b.leader = meta.leader;
        b.role = Role::Follower;
        self.emit(Event::BecameFollower { broker: id, leader: meta.leader, stepped_down: was_leader });
        if meta.leader.is_some() {
            self.truncate_on_become_follower(id);
            self.start_fetching(id);
        }
    }

    /// `Partition.makeFollower`'s answer: whether the broker must become a follower
    /// anew (stop its fetcher, truncate as the preset does, fetch again). A new leader
    /// always; a new epoch from the same leader from 2.1 (KIP-320, with
    /// `leader_epoch_fencing`: the follower's requests must carry the new epoch), while
    /// before 2.1 a follower whose leader is unchanged ignores an epoch bump.
    fn make_follower_changes_state(&self, id: u32, meta: &Metadata) -> bool {
        let b = self.broker(id);
        meta.leader != b.leader || (b.leader_epoch != meta.leader_epoch && self.behavior.leader_epoch_fencing)
    }

    /// The controller handles AlterPartition (`ReplicationControlManager.alterPartition`):
    /// committed unless the leader's epochs are stale or the ISR names a fenced broker.
    pub(crate) fn handle_alter_partition(&mut self, msg: &Msg, leader_epoch: i32, partition_epoch: u32, isr: &[u32]) {
        let Node::Broker(from) = msg.from else { return };
        let c = &self.controller;
        let error = if leader_epoch < c.leader_epoch {
            Some(AlterPartitionError::FencedLeaderEpoch)
        } else if c.leader != Some(from) {
            Some(AlterPartitionError::InvalidRequest)
        } else if partition_epoch < c.partition_epoch {
            Some(AlterPartitionError::InvalidUpdateVersion)
        } else if isr.iter().any(|b| c.fenced.contains(b)) {
            Some(AlterPartitionError::IneligibleReplica)
        } else {
            None
        };
        if error.is_none() {
            let isr_before = c.isr.clone();
            let before = BrokerSet::of(&isr_before);
            self.emit(Event::AlterPartitionCommitted { leader: from, before, after: BrokerSet::of(isr) });
            self.maybe_populate_target_elr(&isr_before, None);
        }
        let c = &self.controller;
        let (le, pe, committed) = (c.leader_epoch, c.partition_epoch, c.isr.clone());
        let body = Body::AlterPartitionResponse { leader_epoch: le, partition_epoch: pe, isr: committed, error };
        let sent = self.send(Node::Controller, msg.from, body);
        self.emit(Event::AlterPartitionAnswered { leader: from, error, partition_epoch: pe, msg: sent });
    }
}
