//! The one place where typed events change what others read (`Sim::apply_event`):
//! HWs, logs cut or reset, the ISR on the leader and the controller, leadership,
//! registrations and sessions, crashes and restarts, cuts.

use super::event::Event;
use super::state::{Lifecycle, PendingIsr, Role};
use super::Sim;

impl Sim {
    /// The one place where events change the replicated state: HWs, logs cut or
    /// reset, the ISR on the leader and the controller, leadership, registrations and
    /// sessions, crashes, cuts.
    pub(super) fn apply_event(&mut self, event: &Event) {
        match *event {
            Event::LeaderHwMoved { leader, to, .. } => {
                self.roll_hw_checkpoint(leader);
                let b = self.broker_mut(leader);
                b.hw = to;
                b.hw_epoch = b.leader_epoch;
            }
            Event::FollowerAppended { follower, hw, log_start, .. } => {
                self.roll_hw_checkpoint(follower);
                let b = self.broker_mut(follower);
                b.hw = hw;
                b.hw_epoch = b.leader_epoch;
                if let Some(start) = log_start {
                    b.log.start_offset = start;
                }
            }
            Event::Truncated { broker, to, .. } => {
                self.note_ghosts(broker, to);
                self.roll_hw_checkpoint(broker);
                let b = self.broker_mut(broker);
                b.log.truncate_to(to);
                if b.hw >= b.log.leo() {
                    b.hw = b.log.leo();
                }
                self.rebuild_producer_state(broker);
            }
            Event::LogStartReset { broker, start } => self.broker_mut(broker).log.start_offset = start,
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
            // `Partition.makeLeader`: the leader epoch only if newer, the leader always;
            // `makeFollower`: both (after its partition-epoch check).
            Event::BecameLeader { broker, epoch, prev, .. } => {
                self.broker_mut(broker).kafka_partition = (epoch.max(prev.0), Some(broker));
            }
            Event::BecameFollower { broker, leader, .. } => {
                let b = self.broker_mut(broker);
                b.kafka_partition = (b.leader_epoch, leader);
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
            Event::IsrExpanded { leader, follower, after, request, .. } => match request {
                None => self.commit_isr(leader, after),
                Some(_) => self.lead_mut(leader).pending = Some(PendingIsr::Expand(follower)),
            },
            Event::IsrShrunk { leader, after, out, request, .. } => match request {
                None => self.commit_isr(leader, after),
                Some(_) => self.lead_mut(leader).pending = Some(PendingIsr::Shrink(out.to_vec())),
            },
            Event::IsrChangeRefused { leader, error, .. } if error.reverts() => self.lead_mut(leader).pending = None,
            Event::IsrApplied { leader: broker, after, partition_epoch, .. }
            | Event::LeaderIsrUpdated { broker, after, partition_epoch, .. } => {
                let ls = self.lead_mut(broker);
                ls.isr = after.to_kafka_vec();
                ls.isr_hashed = after.hashed();
                ls.pending = None;
                ls.partition_epoch = partition_epoch;
            }
            Event::ZkSessionLost { broker } => self.broker_mut(broker).broker_epoch = None,
            Event::ZkRegistered { broker, incarnation } => {
                let b = self.broker_mut(broker);
                b.broker_epoch = Some(u64::from(incarnation));
                b.lifecycle = Lifecycle::Running;
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
                let behavior = self.behavior;
                self.controller.apply(event, &behavior);
            }
            _ => {}
        }
    }
}
