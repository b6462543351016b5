//! The controller (KRaft): broker registrations and heartbeat sessions, the
//! periodic check that fences a stale broker, AlterPartition, and the metadata it
//! sends brokers. Elections are in `election.rs`; what a broker does with the
//! metadata is in `broker.rs`.
//! Kafka: `ClusterControlManager`, `BrokerHeartbeatManager`, `QuorumController`,
//! `ReplicationControlManager`.

use super::event::{ElectedFrom, ElectionCause, Event};
use super::isr_list::IsrList;
use super::msg::{AlterPartitionError, Body, KafkaError, Metadata, Msg, Node};
use super::outbox::Out;
use super::scheduler::Timer;
use super::shared::{Part, Shared};
use super::state::{Controller, Registration, ZkSession};
use super::vecmap::BrokerSet;
use super::{election, elr, Sim};
use crate::scenario::{Behavior, BrokerLiveness, Config, Settings};

/// After a check that fenced a broker, the next runs this much later
/// (`PeriodicTaskControlManager`: an "immediate" reschedule is 10 ms).
const RECHECK_MS: u64 = 10;

/// How often a broker shows it is alive, and how long the controller waits after
/// the last sign that arrived before it treats the broker as gone, by `broker_liveness`:
/// - KRaft (`BrokerHeartbeatManager`): a heartbeat every broker.heartbeat.interval.ms;
///   fenced at the first stale-broker check after broker.session.timeout.ms.
/// - ZooKeeper: the broker's ZooKeeper client pings every third of
///   zookeeper.session.timeout.ms (it pings after half its read timeout, two thirds
///   of the session, without traffic); ZooKeeper expires the session one session
///   timeout after the last ping, deletes `/brokers/ids/N`, and the controller's
///   watch runs `onBrokerFailure` (`zookeeper.rs`: ZooKeeper is its own node).
pub(crate) fn liveness_timing(config: &Config, liveness: BrokerLiveness, settings: Settings) -> (u64, u64) {
    match liveness {
        BrokerLiveness::BrokerHeartbeat => (config.broker_heartbeat_interval_ms, config.broker_session_timeout_ms),
        BrokerLiveness::ZookeeperSession => {
            let session = settings.zookeeper_session_timeout_ms;
            ((session / 3).max(1), session)
        }
    }
}

impl Controller {
    /// Whether `broker` is among the fenced, written only when that changes: the set is
    /// a `Part`, and a write copies it where the controller's copies share it.
    fn set_fenced(&mut self, broker: u32, fenced: bool) {
        if self.fenced.contains(&broker) != fenced {
            if fenced {
                self.fenced.insert(broker);
            } else {
                self.fenced.remove(&broker);
            }
        }
    }

    /// The controller's own events (and ZooKeeper's, whose sessions it holds) applied to
    /// its state: the one place they change it, whether a rule of the world
    /// (`Sim::apply_event`) or a node function (`record`) emitted them.
    pub(crate) fn apply(&mut self, event: &Event, behavior: &Behavior) {
        match *event {
            Event::AlterPartitionCommitted { after, .. } => {
                self.isr = Part::new(after.to_kafka_vec());
                self.partition_epoch += 1;
                self.metadata_offset += 1;
            }
            Event::SessionExpired { broker, isr_before, kept_last, .. } => {
                let reg = &mut self.registrations[broker as usize];
                reg.fenced = true;
                reg.session_deadline = None;
                self.set_fenced(broker, true);
                self.metadata_offset += 1;
                if isr_before.contains(broker) && !kept_last {
                    self.isr = Part::new(IsrList::of(&self.isr).retained(|b| b != broker).to_kafka_vec());
                }
            }
            Event::PreviousIncarnationRemoved { broker, isr_before } => {
                let elr = behavior.eligible_leader_replicas;
                if isr_before.len() > 1 || elr {
                    self.isr = Part::new(IsrList::of(&self.isr).retained(|b| b != broker).to_kafka_vec());
                }
            }
            Event::BrokerRegistered { broker, broker_epoch, incarnation, session_deadline, fenced, .. } => {
                self.metadata_offset += 1;
                self.registrations[broker as usize] = Registration {
                    incarnation,
                    broker_epoch,
                    fenced,
                    session_deadline: Some(session_deadline),
                    registered_at: self.metadata_offset,
                };
                self.set_fenced(broker, fenced);
            }
            Event::ZkSessionRenewed { broker, deadline } => self.zookeeper[broker as usize].deadline = Some(deadline),
            Event::ZkSessionCreated { broker, incarnation, deadline, .. } => {
                self.zookeeper[broker as usize] = ZkSession { incarnation, deadline: Some(deadline) };
            }
            Event::ZkSessionExpired { broker, .. } => self.zookeeper[broker as usize].deadline = None,
            Event::HeartbeatReceived { broker, session_deadline, unfence } => {
                let reg = &mut self.registrations[broker as usize];
                reg.session_deadline = Some(session_deadline);
                if unfence {
                    reg.fenced = false;
                    self.set_fenced(broker, false);
                    self.metadata_offset += 1;
                }
            }
            Event::ControllerIsrShrunk { .. } => {
                self.partition_epoch += 1;
                self.metadata_offset += 1;
            }
            Event::LeaderElected { leader, epoch, from, .. } => {
                self.leader = Some(leader);
                self.leader_epoch = epoch;
                self.partition_epoch += 1;
                self.metadata_offset += 1;
                match from {
                    ElectedFrom::Isr => {}
                    ElectedFrom::Elr => {
                        self.isr = Part::new(vec![leader]);
                        if self.elr.contains(&leader) {
                            self.elr.retain(|&b| b != leader);
                        }
                    }
                    ElectedFrom::LastKnownLeader | ElectedFrom::Unclean => {
                        self.isr = Part::new(vec![leader]);
                        if !self.elr.is_empty() {
                            self.elr = Part::new(Vec::new());
                        }
                    }
                }
                if !self.last_known_elr.is_empty() {
                    self.last_known_elr = Part::new(Vec::new());
                }
            }
            Event::LeaderEpochBumped { epoch, .. } => {
                self.leader_epoch = epoch;
                self.metadata_offset += 1;
            }
            Event::ElrChanged { after, .. } => self.elr = Part::new(after.to_vec()),
            Event::LastKnownLeaderRecorded { broker } => self.last_known_elr = Part::new(vec![broker]),
            Event::PartitionOffline { epoch, .. } => {
                self.leader = None;
                self.leader_epoch = epoch;
                self.partition_epoch += 1;
                self.metadata_offset += 1;
            }
            _ => {}
        }
    }
}

impl Controller {
    /// The partition as the controller holds it (`PartitionRegistration`).
    pub(crate) fn metadata(&self) -> Metadata {
        Metadata {
            leader: self.leader,
            leader_epoch: self.leader_epoch,
            isr: self.isr.to_vec(),
            partition_epoch: self.partition_epoch,
            fenced: self.fenced.iter().copied().collect(),
            offset: self.metadata_offset,
        }
    }
}

impl Shared<Controller> {
    /// A node function's event: applied to the controller's state, then recorded.
    pub(crate) fn record(&mut self, event: Event, out: &mut Out) {
        self.apply(&event, out.behavior);
        out.emit(event);
    }
}

impl Sim {
    /// The ZooKeeper era: sessions in ZooKeeper, registration by ephemeral node.
    pub(crate) fn zookeeper(&self) -> bool {
        self.behavior.broker_liveness == BrokerLiveness::ZookeeperSession
    }

    /// (heartbeat or ping interval, session timeout), as `liveness_timing`.
    pub(crate) fn liveness(&self) -> (u64, u64) {
        liveness_timing(&self.scenario.config, self.behavior.broker_liveness, *self.settings)
    }

    /// `ClusterControlManager.registerBroker` (3.x–4.x): a new incarnation is refused
    /// while the previous one's session is valid (DuplicateBrokerRegistrationException;
    /// in 3.7–3.9 `BrokerHeartbeatManager.hasValidSession` is false for a fenced broker,
    /// from 4.0 a fenced broker's session counts: `fenced_broker_keeps_session`);
    /// otherwise, from 4.0, the previous incarnation's unclean shutdown is cleaned up
    /// (`BrokerUncleanShutdownHandler`: out of the ISR, replaced as leader, as if
    /// fenced; `registration_cleans_unclean_shutdown`) and the new one is registered,
    /// fenced, with a new broker epoch and a fresh session.
    pub(crate) fn handle_broker_registration(&mut self, msg: &Msg, incarnation: u32) {
        let Node::Broker(id) = msg.from else { return };
        let reg = self.controller.registrations[id as usize];
        let session_counts = !reg.fenced || self.behavior.fenced_broker_keeps_session;
        let valid = session_counts && reg.session_deadline.is_some_and(|d| d >= self.now);
        if valid && reg.incarnation != incarnation {
            let body = Body::BrokerRegistrationResponse { broker_epoch: None, metadata: None };
            let sent = self.send(Node::Controller, msg.from, body);
            return self.emit(Event::RegistrationRefused { broker: id, session_deadline: reg.session_deadline.unwrap_or(0), msg: sent });
        }
        if reg.incarnation != incarnation {
            let cleans = self.behavior.registration_cleans_unclean_shutdown;
            let expired_unfenced = reg.session_deadline.filter(|_| !reg.fenced && cleans);
            if cleans {
                self.broker_gone(id, ElectionCause::LeaderShutdown { old: id });
                self.controller_rule(|c, out| elr::handle_broker_unclean_shutdown(c, id, out));
            }
            let broker_epoch = self.controller.metadata_offset + 1;
            let session_deadline = self.now + self.liveness().1;
            self.emit(Event::BrokerRegistered { broker: id, broker_epoch, incarnation, session_deadline, fenced: true, expired_unfenced });
            self.send_metadata_except(Some(id));
        }
        let reg = self.controller.registrations[id as usize];
        let body = Body::BrokerRegistrationResponse { broker_epoch: Some(reg.broker_epoch), metadata: Some(self.controller.metadata()) };
        self.send(Node::Controller, msg.from, body);
        self.controller_rule(reschedule_fence_check);
    }

    /// `ReplicationControlManager.processBrokerHeartbeat`: the session is renewed; a
    /// fenced broker that has caught up with its registration is unfenced (and, where
    /// the partition has no leader, may be elected); the answer carries what the
    /// broker's metadata lacks.
    pub(crate) fn handle_broker_heartbeat(&mut self, msg: &Msg, broker_epoch: u64, metadata_offset: u64) {
        let Node::Broker(id) = msg.from else { return };
        let reg = self.controller.registrations[id as usize];
        if reg.broker_epoch != broker_epoch {
            let body = Body::BrokerHeartbeatResponse { fenced: true, metadata: None, error: Some(KafkaError::StaleBrokerEpoch) };
            let sent = self.send(Node::Controller, msg.from, body);
            return self.emit(Event::HeartbeatRejected { broker: id, msg: sent });
        }
        let session_deadline = self.now + self.liveness().1;
        let unfence = reg.fenced && metadata_offset >= reg.registered_at;
        self.emit(Event::HeartbeatReceived { broker: id, session_deadline, unfence });
        if unfence {
            self.handle_broker_unfenced(id);
        }
        // The answer says whether the broker is fenced; metadata comes by its fetch.
        let fenced = self.controller.registrations[id as usize].fenced;
        self.send(Node::Controller, msg.from, Body::BrokerHeartbeatResponse { fenced, metadata: None, error: None });
        self.controller_rule(reschedule_fence_check);
    }

    /// `ReplicationControlManager.handleBrokerUnfenced`: partitions without a leader
    /// that this broker may lead get it.
    fn handle_broker_unfenced(&mut self, id: u32) {
        if self.controller.leader.is_none() {
            self.controller_rule(|c, out| election::elect(c, ElectionCause::Unfenced { broker: id }, None, out));
        }
        self.send_metadata_except(None);
    }

    /// `ReplicationControlManager.maybeFenceOneStaleBroker` (4.0, every
    /// broker.session.timeout.ms / 8): the broker whose session expired first (last
    /// heartbeat + session timeout before now) is fenced, one per check; after a
    /// fence the next check runs 10 ms later.
    pub(crate) fn maybe_fence_one_stale_broker(&mut self) {
        self.controller.check = None;
        let now = self.now;
        let stale = (0..self.scenario.replicas)
            .filter_map(|b| {
                let r = self.controller.registrations[b as usize];
                r.session_deadline.filter(|&d| !r.fenced && d < now).map(|d| (d, b))
            })
            .min();
        match stale {
            None => self.emit(Event::FenceCheckFindsNone),
            Some((deadline, id)) => {
                self.controller.check_anchor = now + RECHECK_MS;
                self.handle_broker_fenced(id, deadline);
            }
        }
        self.controller_rule(reschedule_fence_check);
    }

    /// `KafkaController.onBrokerFailure` (the ZooKeeper era, on the controller's watch):
    /// as `handle_broker_fenced`, with the ZooKeeper-era epoch bump.
    pub(crate) fn on_broker_failure(&mut self, id: u32, deadline: u64) {
        self.handle_broker_fenced(id, deadline);
    }

    /// `ReplicationControlManager.handleBrokerFenced` (in the ZooKeeper era,
    /// `KafkaController.onBrokerFailure`): out of the ISR (never emptying it, unless
    /// ELR is on) and replaced as leader.
    fn handle_broker_fenced(&mut self, id: u32, deadline: u64) {
        let isr_list = self.controller.isr.clone();
        let isr_before = BrokerSet::of(&isr_list);
        let kept_last = isr_before.contains(id) && isr_before.len() == 1 && !self.behavior.eligible_leader_replicas;
        self.emit(Event::SessionExpired { broker: id, isr_before, kept_last, deadline });
        self.controller_rule(|c, out| elr::maybe_populate_target_elr(c, &isr_list, None, out));
        if self.controller.leader == Some(id) {
            self.controller_rule(|c, out| election::elect(c, ElectionCause::LeaderFenced { old: id }, Some(id), out));
            return self.send_metadata_except(None);
        }
        // Only a partition with the broker in its ISR changes (`generateLeaderAndIsrUpdates`
        // over `partitionsWithBrokerInIsr`): fencing a broker outside the ISR writes no
        // partition record and leaves the partition epoch as it is.
        if isr_before.contains(id) {
            let after = BrokerSet::of(&self.controller.isr);
            self.emit(Event::ControllerIsrShrunk { before: isr_before, after });
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

    /// A previous incarnation is gone (a new one registers): out of the ISR, replaced
    /// as leader, as `handleBrokerShutdown` does for an unclean shutdown without ELR.
    fn broker_gone(&mut self, id: u32, cause: ElectionCause) {
        let isr_list = self.controller.isr.clone();
        let isr_before = BrokerSet::of(&isr_list);
        let elr = self.behavior.eligible_leader_replicas;
        let in_isr = isr_before.contains(id) && (isr_before.len() > 1 || elr);
        if self.controller.leader == Some(id) {
            self.emit(Event::PreviousIncarnationRemoved { broker: id, isr_before });
            self.controller_rule(|c, out| {
                elr::maybe_populate_target_elr(c, &isr_list, Some(id), out);
                election::elect(c, cause, Some(id), out);
            });
            self.send_metadata_except(None);
        } else if in_isr {
            self.emit(Event::PreviousIncarnationRemoved { broker: id, isr_before });
            self.controller_rule(|c, out| elr::maybe_populate_target_elr(c, &isr_list, Some(id), out));
            let after = BrokerSet::of(&self.controller.isr);
            self.emit(Event::ControllerIsrShrunk { before: isr_before, after });
        }
    }

    /// Metadata to every live broker that is registered, but `skip`. KRaft brokers
    /// fetch the metadata log: the Fetches waiting at the controller are answered
    /// (`metadata_fetch.rs`). In the ZooKeeper era the controller sends LeaderAndIsr to
    /// the brokers it holds live (registered in ZooKeeper, as its watch told it).
    pub(crate) fn send_metadata_except(&mut self, skip: Option<u32>) {
        if self.fetches_metadata() {
            return self.answer_waiting_metadata_fetches(skip);
        }
        let meta = self.controller.metadata();
        let zookeeper = self.zookeeper();
        for b in 0..self.scenario.replicas {
            let broker = self.broker(b);
            let registered = if zookeeper { !self.controller.registrations[b as usize].fenced } else { broker.broker_epoch.is_some() };
            if Some(b) != skip && broker.alive && registered {
                self.send(Node::Controller, Node::Broker(b), Body::LeaderAndIsr(meta.clone()));
            }
        }
    }

    /// AlterPartition at the controller (`alter_partition`); a committed change is in the
    /// metadata log, and the Fetches waiting for it are answered (`KafkaRaftClient`; the
    /// ZooKeeper era has no such record).
    pub(crate) fn handle_alter_partition(
        &mut self,
        msg: &Msg,
        leader_epoch: i32,
        partition_epoch: u32,
        isr: &[u32],
        epochs: &[Option<u64>],
    ) {
        let committed = self.controller_rule(|c, out| alter_partition(c, msg, leader_epoch, partition_epoch, isr, epochs, out));
        if committed && self.fetches_metadata() {
            self.answer_waiting_metadata_fetches(None);
        }
    }

    /// The registrations at the start: every broker registered and unfenced, its last
    /// heartbeat one interval before its phase.
    pub(crate) fn initial_registrations(n: u32, phase: &[u64], interval: u64, session: u64) -> Vec<Registration> {
        (0..n)
            .map(|b| Registration {
                incarnation: 0,
                broker_epoch: u64::from(b),
                fenced: false,
                session_deadline: Some(phase[b as usize] + session - interval.min(session)),
                registered_at: 0,
            })
            .collect()
    }
}

/// The controller handles AlterPartition (`ReplicationControlManager.alterPartition`):
/// committed unless the leader's epochs are stale or the ISR names an ineligible
/// broker (`ineligibleReplicasForIsr`): a fenced one (3.3, KIP-841) or, from 3.5, one
/// named with a broker epoch other than the one it is registered with
/// (`kip_903_stale_broker_epoch`). Returns whether it committed the change.
pub(crate) fn alter_partition(
    c: &mut Shared<Controller>,
    msg: &Msg,
    leader_epoch: i32,
    partition_epoch: u32,
    isr: &[u32],
    broker_epochs: &[Option<u64>],
    out: &mut Out,
) -> bool {
    let Node::Broker(from) = msg.from else { return false };
    let stale = kip_903_stale_broker_epoch(c, isr, broker_epochs, out);
    let error = if leader_epoch < c.leader_epoch {
        Some(AlterPartitionError::FencedLeaderEpoch)
    } else if c.leader != Some(from) {
        Some(AlterPartitionError::InvalidRequest)
    } else if partition_epoch < c.partition_epoch {
        Some(AlterPartitionError::InvalidUpdateVersion)
    } else if isr.iter().any(|b| c.fenced.contains(b)) || stale.is_some() {
        Some(AlterPartitionError::IneligibleReplica)
    } else {
        None
    };
    if let Some((broker, named, registered)) = stale.filter(|_| error == Some(AlterPartitionError::IneligibleReplica)) {
        out.emit(Event::StaleBrokerEpochInIsr { leader: from, broker, named, registered });
    }
    if error.is_none() {
        let isr_before = c.isr.clone();
        let before = IsrList::of(&isr_before);
        c.record(Event::AlterPartitionCommitted { leader: from, before, after: IsrList::of(isr) }, out);
        elr::maybe_populate_target_elr(c, &isr_before, None, out);
    }
    let (le, pe, committed) = (c.leader_epoch, c.partition_epoch, c.isr.to_vec());
    let body = Body::AlterPartitionResponse { request: msg.id, leader_epoch: le, partition_epoch: pe, isr: committed, error };
    let sent = out.send(Node::Controller, msg.from, body);
    out.emit(Event::AlterPartitionAnswered { leader: from, error, partition_epoch: pe, msg: sent });
    error.is_none()
}

/// KIP-903 (3.5, KAFKA-14139; `ReplicationControlManager.ineligibleReplicasForIsr`): the
/// first ISR member the AlterPartition names with a broker epoch that is not the one the
/// controller holds for it (a fetch of a previous incarnation, which may have had records
/// the restarted broker lost): (broker, epoch named, epoch registered). An unknown epoch
/// (-1) skips the check; before 3.5 requests carry none.
fn kip_903_stale_broker_epoch(c: &Controller, isr: &[u32], broker_epochs: &[Option<u64>], out: &Out) -> Option<(u32, u64, u64)> {
    if !out.behavior.alter_partition_checks_broker_epochs {
        return None;
    }
    isr.iter().zip(broker_epochs).find_map(|(&b, &named)| {
        let registered = c.registrations.get(b as usize)?.broker_epoch;
        named.filter(|&e| e != registered).map(|e| (b, e, registered))
    })
}

/// `QuorumController.maybeFenceStaleBrokerPeriodNs`: broker.session.timeout.ms / 8.
fn fence_check_period(out: &Out) -> u64 {
    (out.scenario.config.broker_session_timeout_ms / 8).max(1)
}

/// Schedules the periodic stale-broker check that will find the earliest session to
/// expire: the first check strictly after that deadline. (Checks that would find
/// nothing are not steps; the grid they run on is kept.) In the ZooKeeper era,
/// ZooKeeper's next session expiry, at the earliest deadline (the controller's state
/// holds ZooKeeper's sessions).
pub(crate) fn reschedule_fence_check(c: &mut Shared<Controller>, out: &mut Out) {
    let (period, now) = (fence_check_period(out), out.now);
    let at = if out.behavior.broker_liveness == BrokerLiveness::ZookeeperSession {
        c.zookeeper.iter().filter_map(|s| s.deadline).min().map(|d| d.max(now))
    } else {
        let due = c.registrations.iter().filter(|r| !r.fenced).filter_map(|r| r.session_deadline).min();
        due.map(|d| {
            let after = d.max(now.saturating_sub(1)).max(c.check_anchor.saturating_sub(1));
            if after < c.check_anchor {
                c.check_anchor
            } else {
                c.check_anchor + ((after - c.check_anchor) / period + 1) * period
            }
        })
    };
    if c.check.map(|(_, t)| t) == at {
        return;
    }
    if let Some((key, _)) = c.check.take() {
        out.cancel(key);
    }
    if let Some(at) = at {
        let key = out.set_timer(at, Timer::FenceCheck);
        c.check = Some((key, at));
    }
}
