//! The one place where typed events change what others read (`Sim::apply_event`):
//! HWs, logs cut or reset, the ISR on the leader and the controller, leadership,
//! registrations and sessions, crashes and restarts, cuts.

use super::event::{ElectedFrom, Event};
use super::isr_list::IsrList;
use super::state::{Lifecycle, PendingIsr, Registration, Role};
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
            Event::AlterPartitionCommitted { after, .. } => {
                let c = &mut self.controller;
                c.isr = after.to_kafka_vec();
                c.partition_epoch += 1;
                c.metadata_offset += 1;
            }
            Event::SessionExpired { broker, isr_before, kept_last, .. } => {
                let c = &mut self.controller;
                let reg = &mut c.registrations[broker as usize];
                reg.fenced = true;
                reg.session_deadline = None;
                c.fenced.insert(broker);
                c.metadata_offset += 1;
                if isr_before.contains(broker) && !kept_last {
                    c.isr = IsrList::of(&c.isr).retained(|b| b != broker).to_kafka_vec();
                }
            }
            Event::PreviousIncarnationRemoved { broker, isr_before } => {
                let elr = self.behavior.eligible_leader_replicas;
                let c = &mut self.controller;
                if isr_before.len() > 1 || elr {
                    c.isr = IsrList::of(&c.isr).retained(|b| b != broker).to_kafka_vec();
                }
            }
            Event::BrokerRegistered { broker, broker_epoch, incarnation, session_deadline, fenced, .. } => {
                let c = &mut self.controller;
                c.metadata_offset += 1;
                c.registrations[broker as usize] = Registration {
                    incarnation,
                    broker_epoch,
                    fenced,
                    session_deadline: Some(session_deadline),
                    registered_at: c.metadata_offset,
                };
                if fenced {
                    c.fenced.insert(broker);
                } else {
                    c.fenced.remove(&broker);
                }
            }
            Event::ZkSessionRenewed { broker, deadline } => self.controller.zookeeper[broker as usize].deadline = Some(deadline),
            Event::ZkSessionCreated { broker, incarnation, deadline, .. } => {
                self.controller.zookeeper[broker as usize] = super::zookeeper::ZkSession { incarnation, deadline: Some(deadline) };
            }
            Event::ZkSessionExpired { broker, .. } => self.controller.zookeeper[broker as usize].deadline = None,
            Event::ZkSessionLost { broker } => self.broker_mut(broker).broker_epoch = None,
            Event::ZkRegistered { broker, incarnation } => {
                let b = self.broker_mut(broker);
                b.broker_epoch = Some(u64::from(incarnation));
                b.lifecycle = Lifecycle::Running;
            }
            Event::HeartbeatReceived { broker, session_deadline, unfence } => {
                let c = &mut self.controller;
                let reg = &mut c.registrations[broker as usize];
                reg.session_deadline = Some(session_deadline);
                if unfence {
                    reg.fenced = false;
                    c.fenced.remove(&broker);
                    c.metadata_offset += 1;
                }
            }
            Event::ControllerIsrShrunk { .. } => {
                self.controller.partition_epoch += 1;
                self.controller.metadata_offset += 1;
            }
            Event::LeaderElected { leader, epoch, from, .. } => {
                let c = &mut self.controller;
                c.leader = Some(leader);
                c.leader_epoch = epoch;
                c.partition_epoch += 1;
                c.metadata_offset += 1;
                match from {
                    ElectedFrom::Isr => {}
                    ElectedFrom::Elr => {
                        c.isr = vec![leader];
                        c.elr.retain(|&b| b != leader);
                    }
                    ElectedFrom::LastKnownLeader | ElectedFrom::Unclean => {
                        c.isr = vec![leader];
                        c.elr.clear();
                    }
                }
                c.last_known_elr.clear();
            }
            Event::LeaderEpochBumped { epoch, .. } => {
                self.controller.leader_epoch = epoch;
                self.controller.metadata_offset += 1;
            }
            Event::ElrChanged { after, .. } => self.controller.elr = after.to_vec(),
            Event::LastKnownLeaderRecorded { broker } => self.controller.last_known_elr = vec![broker],
            Event::PartitionOffline { epoch, .. } => {
                let c = &mut self.controller;
                c.leader = None;
                c.leader_epoch = epoch;
                c.partition_epoch += 1;
                c.metadata_offset += 1;
            }
            _ => {}
        }
    }
}
