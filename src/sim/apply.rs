//! The one place where typed events change what others read (`Sim::apply_event`):
//! HWs, logs cut or reset, the ISR on the leader and the controller, leadership,
//! registrations and sessions, crashes and restarts, cuts.

use super::event::Event;
use super::isr_list::IsrList;
use super::outbox::Out;
use super::shared::{Part, Shared};
use super::state::{Broker, LeaderState, Lifecycle, PendingIsr, Role};
use super::Sim;
use crate::scenario::Scenario;

impl Sim {
    /// The one place where events change the replicated state: HWs, logs cut or
    /// reset, the ISR on the leader and the controller, leadership, registrations and
    /// sessions, crashes, cuts.
    pub(super) fn apply_event(&mut self, event: &Event) {
        match *event {
            Event::LeaderHwMoved { leader: id, .. }
            | Event::FollowerAppended { follower: id, .. }
            | Event::Truncated { broker: id, .. }
            | Event::LogStartReset { broker: id, .. }
            | Event::BecameLeader { broker: id, .. }
            | Event::BecameFollower { broker: id, .. }
            | Event::IsrChangeRefused { leader: id, .. }
            | Event::IsrApplied { leader: id, .. }
            | Event::LeaderIsrUpdated { broker: id, .. }
            | Event::ZkSessionLost { broker: id }
            | Event::ZkRegistered { broker: id, .. } => {
                let (now, step) = (self.now, self.step);
                self.brokers[id as usize].apply(event, now, step, &self.scenario);
            }
            Event::IsrExpanded { leader: id, .. } | Event::IsrShrunk { leader: id, .. } => {
                let (now, step) = (self.now, self.step);
                self.brokers[id as usize].apply(event, now, step, &self.scenario);
                self.apply_outside(event);
            }
            Event::Crashed { broker, unflushed, kept, silent, .. } => {
                if unflushed > 0 {
                    self.note_ghosts(broker, kept);
                }
                let lost: Vec<(u16, u32)> = self.broker(broker).log.entries_from(kept).map(|(_, e)| (e.id.producer, e.id.n)).collect();
                for id in lost {
                    self.invariants.unflushed.insert(id);
                }
                let b = self.broker_mut(broker);
                b.alive = false;
                b.silently_down = silent;
                b.broker_epoch = None;
                b.parked_consumers.clear();
                if unflushed > 0 {
                    b.log.truncate_to(kept);
                    b.hw = b.hw.min(kept);
                }
            }
            Event::Restarted { broker, hw, incarnation, .. } => {
                let now = self.now;
                let interval = self.scenario.config.hw_checkpoint_interval_ms();
                // KRaft: the new process loads the metadata image and applies it at once,
                // registered or not (`BrokerMetadataPublisher`'s first publish); ZooKeeper: it
                // knows nothing until the controller's LeaderAndIsr.
                let image = if self.zookeeper() { (-1, None) } else { (self.controller.leader_epoch, self.controller.leader) };
                let b = self.broker_mut(broker);
                b.kafka_partition = image;
                b.alive = true;
                b.silently_down = false;
                b.lifecycle = Lifecycle::Starting;
                b.incarnation = incarnation;
                b.broker_epoch = None;
                b.image_partition_epoch = None;
                b.role = Role::Follower;
                b.leader = None;
                b.hw = hw;
                // The new process's checkpoint task starts now.
                b.hw_checkpoint = (now, hw);
                b.hw_checkpoint_phase = now % interval;
            }
            Event::LinksCut { from, to, both_ways, channel } => {
                self.net.set_cut(from, to, channel, true);
                if both_ways {
                    self.net.set_cut(to, from, channel, true);
                }
            }
            Event::LinksHealed { from, to, both_ways, channel } => {
                self.net.set_cut(from, to, channel, false);
                if both_ways {
                    self.net.set_cut(to, from, channel, false);
                }
            }
            // The controller's own events (and ZooKeeper's, whose sessions it holds).
            Event::AlterPartitionCommitted { .. }
            | Event::SessionExpired { .. }
            | Event::PreviousIncarnationRemoved { .. }
            | Event::BrokerRegistered { .. }
            | Event::ZkSessionRenewed { .. }
            | Event::ZkSessionCreated { .. }
            | Event::ZkSessionExpired { .. }
            | Event::HeartbeatReceived { .. }
            | Event::ControllerIsrShrunk { .. }
            | Event::LeaderElected { .. }
            | Event::LeaderEpochBumped { .. }
            | Event::ElrChanged { .. }
            | Event::LastKnownLeaderRecorded { .. }
            | Event::PartitionOffline { .. } => {
                let behavior = *self.behavior;
                self.controller.apply(event, &behavior);
            }
            _ => {}
        }
    }

    /// What a broker's event changes outside the broker: before AlterPartition (up to
    /// 2.6) the leader's ISR change is a write to the partition's znode, which the model
    /// keeps in the controller's state (its ISR, partition epoch and metadata offset).
    pub(super) fn apply_outside(&mut self, event: &Event) {
        if let Event::IsrExpanded { after, request: None, .. } | Event::IsrShrunk { after, request: None, .. } = *event {
            let c = &mut self.controller;
            c.isr = Part::new(after.to_kafka_vec());
            c.partition_epoch += 1;
            c.metadata_offset += 1;
        }
    }
}

impl Shared<Broker> {
    /// A broker's rule's event: applied to the broker's state, then recorded (what it
    /// changes outside the broker is applied after the rule, `Sim::broker_rule`).
    pub(crate) fn record(&mut self, event: Event, out: &mut Out) {
        self.apply(&event, out.now, out.step, out.scenario);
        out.emit(event);
    }

    /// The one place where events change a broker's replicated state: its HW (and the
    /// checkpoint due before it moves), its log cut or its start moved, the ISR as the
    /// leader holds it, the partition state Kafka's `Partition` keeps, its registration
    /// in ZooKeeper.
    pub(crate) fn apply(&mut self, event: &Event, now: u64, step: u64, scenario: &Scenario) {
        let interval = scenario.config.hw_checkpoint_interval_ms();
        match *event {
            Event::LeaderHwMoved { to, .. } => {
                let b = &mut **self;
                b.roll_hw_checkpoint(now, interval);
                b.hw = to;
                b.hw_epoch = b.leader_epoch;
            }
            Event::FollowerAppended { hw, log_start, .. } => {
                let b = &mut **self;
                b.roll_hw_checkpoint(now, interval);
                b.hw = hw;
                b.hw_epoch = b.leader_epoch;
                if let Some(start) = log_start {
                    b.log.start_offset = start;
                }
            }
            Event::Truncated { to, .. } => {
                let b = &mut **self;
                b.note_ghosts(to, step);
                b.roll_hw_checkpoint(now, interval);
                b.log.truncate_to(to);
                if b.hw >= b.log.leo() {
                    b.hw = b.log.leo();
                }
                b.rebuild_producer_state();
            }
            Event::LogStartReset { start, .. } => self.log.start_offset = start,
            // `Partition.makeLeader`: the leader epoch only if newer, the leader always;
            // `makeFollower`: both (after its partition-epoch check).
            Event::BecameLeader { broker, epoch, prev, .. } => self.kafka_partition = (epoch.max(prev.0), Some(broker)),
            Event::BecameFollower { leader, .. } => {
                let b = &mut **self;
                b.kafka_partition = (b.leader_epoch, leader);
            }
            // Before AlterPartition the leader's write is committed at once (its partition
            // epoch is the znode's version, `apply_outside`); after, it is pending.
            Event::IsrExpanded { follower, after, request, .. } => match request {
                None => commit(self.lead_state_mut(), after),
                Some(_) => self.lead_state_mut().pending = Some(PendingIsr::Expand(follower)),
            },
            Event::IsrShrunk { after, out, request, .. } => match request {
                None => commit(self.lead_state_mut(), after),
                Some(_) => self.lead_state_mut().pending = Some(PendingIsr::Shrink(out.to_vec())),
            },
            Event::IsrChangeRefused { error, .. } if error.reverts() => self.lead_state_mut().pending = None,
            Event::IsrApplied { after, partition_epoch, .. } | Event::LeaderIsrUpdated { after, partition_epoch, .. } => {
                let ls = self.lead_state_mut();
                ls.isr = after.to_kafka_vec();
                ls.isr_hashed = after.hashed();
                ls.pending = None;
                ls.partition_epoch = partition_epoch;
            }
            Event::ZkSessionLost { .. } => self.broker_epoch = None,
            Event::ZkRegistered { incarnation, .. } => {
                let b = &mut **self;
                b.broker_epoch = Some(u64::from(incarnation));
                b.lifecycle = Lifecycle::Running;
            }
            _ => {}
        }
    }

    /// The leader state, which a leader's events change.
    pub(crate) fn lead_state_mut(&mut self) -> &mut LeaderState {
        // Only a leader's rules emit these events; a missing state is a bug, not user input.
        self.lead.as_mut().expect("leader state")
    }
}

/// A committed ISR on the leader (the ZooKeeper era): the leader keeps the set it built.
fn commit(ls: &mut LeaderState, isr: IsrList) {
    ls.isr = isr.to_kafka_vec();
    ls.isr_hashed = isr.hashed();
    ls.pending = None;
    ls.partition_epoch += 1;
}
