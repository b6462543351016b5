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
        let interval = self.scenario.config.broker_heartbeat_interval_ms;
        let phase = self.controller.heartbeat_phase[id as usize];
        let last_heartbeat = if self.now >= phase { self.now - (self.now - phase) % interval } else { 0 };
        let fence_at = (last_heartbeat + self.scenario.config.broker_session_timeout_ms).max(self.now + 1);
        let timer = self.set_timer(fence_at, Timer::SessionExpiry { broker: id });
        self.controller.session_timers.insert(id, timer);
        self.emit(Event::Crashed { broker: id, unflushed, leo, kept, dropped, last_heartbeat, fence_at });
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
        if self.controller.leader.is_none() {
            // An offline partition gets a leader as soon as an eligible replica is back.
            let cause = ElectionCause::Offline { broker: id };
            match self.elect_leader(cause) {
                Some((leader, clean)) => self.change_leader(leader, clean, cause),
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
            if let Some((leader, clean)) = self.elect_leader(cause) {
                self.change_leader(leader, clean, cause);
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

    /// The controller stops hearing a broker (`BrokerHeartbeatManager`): it fences it,
    /// removes it from the ISR (never emptying it), and elects a new leader if it led.
    pub(crate) fn session_expired(&mut self, id: u32) {
        let isr_before = BrokerSet::of(&self.controller.isr);
        let kept_last = isr_before.contains(id) && isr_before.len() == 1;
        self.emit(Event::SessionExpired { broker: id, isr_before, kept_last });
        if self.controller.leader == Some(id) {
            let cause = ElectionCause::LeaderFenced { old: id };
            match self.elect_leader(cause) {
                Some((leader, clean)) => self.change_leader(leader, clean, cause),
                None => self.go_offline(id),
            }
            return;
        }
        let after = BrokerSet::of(&self.controller.isr);
        self.emit(Event::ControllerIsrShrunk { before: isr_before, after });
        self.send_metadata_except(None);
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
            self.clear_fetcher(id);
            let b = self.broker_mut(id);
            b.leader_epoch = meta.leader_epoch;
            let hw_before = b.hw;
            self.make_leader(id, meta.isr.clone(), meta.partition_epoch, fenced);
            let b = self.broker(id);
            let (leo, hw) = (b.log.leo(), b.hw);
            return self.emit(Event::BecameLeader { broker: id, epoch: meta.leader_epoch, leo, hw_before, hw });
        }
        // Not the leader: a follower of meta.leader.
        let was_leader = b.lead.is_some();
        let new_leader = meta.leader != b.leader || !same_epoch;
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
            let before = BrokerSet::of(&c.isr);
            self.emit(Event::AlterPartitionCommitted { leader: from, before, after: BrokerSet::of(isr) });
        }
        let c = &self.controller;
        let (le, pe, committed) = (c.leader_epoch, c.partition_epoch, c.isr.clone());
        let body = Body::AlterPartitionResponse { leader_epoch: le, partition_epoch: pe, isr: committed, error };
        let sent = self.send(Node::Controller, msg.from, body);
        self.emit(Event::AlterPartitionAnswered { leader: from, error, partition_epoch: pe, msg: sent });
    }
}
