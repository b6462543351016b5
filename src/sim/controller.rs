//! The controller and broker lifecycles: crashes, restarts, fencing on missed
//! heartbeats, leader elections, AlterPartition, and the metadata
//! (LeaderAndIsr) that tells brokers their role.
//! Kafka (KRaft): `ReplicationControlManager`, `PartitionChangeBuilder`,
//! `BrokerHeartbeatManager`; brokers: `ReplicaManager.applyDelta`,
//! `Partition.makeLeader` / `makeFollower`.

use super::{set_str, Body, FetcherState, KafkaError, Metadata, MsgHead, Node, Role, Sim, Timer};
use crate::record::EventRecord;
use crate::sim::vecmap::VecSet;

impl Sim {
    /// `crash`: the broker stops at once. Requests on their way to it are lost, its
    /// purgatories and timers vanish, and `unflushed` records at its tail are lost.
    pub(crate) fn crash(&mut self, id: u32, unflushed: u64) {
        self.event = Some(EventRecord { broker: Some(id), unflushed: (unflushed > 0).then_some(unflushed), ..EventRecord::new("crash") });
        if !self.broker(id).alive {
            self.text = say!(self, "Broker {id} is already down.");
            return;
        }
        let dropped = self.drop_messages_to(Node::Broker(id));
        self.clear_fetcher(id);
        self.drop_leadership(id, None);
        let parked: Vec<_> = self.broker(id).parked_consumers.iter().map(|p| p.timer).collect();
        for t in parked {
            self.cancel(t);
        }
        let b = self.broker_mut(id);
        b.alive = false;
        b.parked_consumers.clear();
        let leo = b.log.leo();
        let mut text = say!(self, "Broker {id} crashes.");
        if unflushed > 0 {
            let keep = leo.saturating_sub(unflushed);
            let b = self.broker_mut(id);
            b.log.truncate_to(keep);
            if b.hw > keep {
                b.hw = keep;
            }
            text.push_str(&say!(
                self,
                " The last {} record{} of its log were not flushed to disk and are lost: LEO {leo} → {keep}.",
                leo - keep,
                super::leader::plural((leo - keep) as usize)
            ));
        }
        if dropped > 0 {
            text.push_str(&say!(self, " {dropped} message{} on the way to it will never be read.", super::leader::plural(dropped)));
        }
        // The controller notices only when heartbeats stop for broker.session.timeout.ms.
        let interval = self.scenario.config.broker_heartbeat_interval_ms;
        let phase = self.controller.heartbeat_phase[id as usize];
        let last_heartbeat = if self.now >= phase { self.now - (self.now - phase) % interval } else { 0 };
        let expire = (last_heartbeat + self.scenario.config.broker_session_timeout_ms).max(self.now + 1);
        let timer = self.set_timer(expire, Timer::SessionExpiry { broker: id });
        self.controller.session_timers.insert(id, timer);
        text.push_str(&say!(
            self,
            " Its last heartbeat reached the controller at {last_heartbeat} ms; the controller will fence it at {expire} ms (broker.session.timeout.ms = {} ms).",
            self.scenario.config.broker_session_timeout_ms
        ));
        self.text = text;
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
                let resp = super::FetchResponse {
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
                self.send(
                    Node::Broker(id),
                    Node::Producer(d.producer),
                    Body::ProduceResponse { request: d.request, ids: d.ids, error: Some(error) },
                );
            }
        }
        self.broker_mut(id).role = Role::Follower;
    }

    /// `restart`: the broker comes back with its flushed log and its checkpointed HW,
    /// registers with the controller, and takes the role the controller gives it.
    pub(crate) fn restart(&mut self, id: u32) {
        self.event = Some(EventRecord { broker: Some(id), ..EventRecord::new("restart") });
        if self.broker(id).alive {
            self.text = say!(self, "Broker {id} is already running.");
            return;
        }
        let b = self.broker_mut(id);
        b.alive = true;
        b.role = Role::Follower;
        b.hw = b.hw.min(b.log.leo());
        let (leo, hw) = (b.log.leo(), b.hw);
        let mut text = say!(self, "Broker {id} restarts with LEO {leo} and HW {hw} (its HW checkpoint).");
        let was_fenced = self.controller.fenced.remove(&id);
        if let Some(t) = self.controller.session_timers.remove(&id) {
            self.cancel(t);
            text.push_str(" It is back before its session expired, so the controller never fenced it and it keeps its place in the ISR.");
        } else if was_fenced {
            text.push_str(" It registers with the controller and is unfenced.");
        }
        if self.controller.leader.is_none() {
            // An offline partition gets a leader as soon as an eligible replica is back.
            let in_isr = self.controller.isr.contains(&id);
            if in_isr || self.scenario.config.unclean_leader_election_enable {
                text.push_str(&self.elect(id, in_isr, "the partition was offline"));
                self.text = text;
                return;
            }
            text.push_str(" The partition has no leader, and it is not in the ISR: it waits.");
            let meta = self.metadata();
            self.broker_mut(id).leader_epoch = meta.leader_epoch;
            self.broker_mut(id).leader = None;
            if was_fenced {
                self.send_metadata_to_all();
            }
            self.text = text;
            return;
        }
        if self.controller.leader == Some(id) {
            // A bounced leader never resumes its old epoch (the controller treats it as
            // failed, then started): leadership moves to a live ISR member, or back to
            // it, in a new epoch, so followers' epochs reveal any divergence.
            let next = self.controller.isr.iter().copied().find(|&b| b != id && self.eligible(b)).unwrap_or(id);
            text.push_str(&self.elect(next, true, &say!(self, "leader {id} restarted")));
            self.text = text;
            return;
        }
        let meta = self.metadata();
        text.push_str(&self.apply_metadata(id, &meta));
        if was_fenced {
            // Other brokers learn it is eligible again.
            self.send_metadata_except(id);
        }
        self.text = text;
    }

    /// The controller stops hearing a broker: it fences it, removes it from the ISR
    /// (never emptying it), and elects a new leader if it led.
    pub(crate) fn session_expired(&mut self, id: u32) {
        self.controller.session_timers.remove(&id);
        self.controller.fenced.insert(id);
        let before = self.controller.isr.clone();
        let mut text = say!(
            self,
            "The controller has had no heartbeat from broker {id} for {} ms and fences it.",
            self.scenario.config.broker_session_timeout_ms
        );
        if before.contains(&id) && before.len() > 1 {
            self.controller.isr.retain(|&b| b != id);
        } else if before.contains(&id) {
            text.push_str(" It is the last replica in the ISR, so it stays there (Kafka never empties the ISR without ELR).");
        }
        self.event = Some(EventRecord {
            broker: Some(id),
            timer: Some("session-expiry"),
            isr_before: Some(before.clone()),
            ..EventRecord::new("isr_change")
        });
        if self.controller.leader == Some(id) {
            let candidates: Vec<u32> = self.controller.isr.iter().copied().filter(|&b| b != id && self.eligible(b)).collect();
            if let Some(&new) = candidates.first() {
                text.push_str(&self.elect(new, true, &say!(self, "leader {id} was fenced")));
            } else if self.scenario.config.unclean_leader_election_enable {
                match (0..self.scenario.replicas).find(|&b| b != id && self.eligible(b)) {
                    Some(new) => text.push_str(&self.elect(new, false, &say!(self, "leader {id} was fenced and no ISR member is alive"))),
                    None => text.push_str(&self.go_offline(id)),
                }
            } else {
                text.push_str(&self.go_offline(id));
            }
            self.text = text;
            return;
        }
        self.controller.partition_epoch += 1;
        let isr = self.controller.isr.clone();
        self.ev().isr = Some(isr.clone());
        if before != isr {
            text.push_str(&say!(
                self,
                " The ISR shrinks {} → {}; the leader learns it from the metadata.",
                set_str(&before),
                set_str(&isr)
            ));
        }
        self.send_metadata_to_all();
        self.text = text;
    }

    fn eligible(&self, b: u32) -> bool {
        self.broker(b).alive && !self.controller.fenced.contains(&b)
    }

    fn go_offline(&mut self, old: u32) -> String {
        self.controller.leader = None;
        self.controller.leader_epoch += 1;
        self.controller.partition_epoch += 1;
        self.ev().kind = "leader_election";
        self.ev().leader = Some(None);
        self.ev().leader_epoch = Some(self.controller.leader_epoch);
        self.send_metadata_to_all();
        say!(
            self,
            " Leader {old} is gone and no replica in the ISR {} can take over{}: the partition is offline until one returns.",
            set_str(&self.controller.isr),
            if self.scenario.config.unclean_leader_election_enable { "" } else { " (unclean.leader.election.enable is false)" }
        )
    }

    /// `PartitionChangeBuilder`: a new leader in a new epoch. Unclean: the ISR becomes the new leader alone.
    fn elect(&mut self, new: u32, clean: bool, why: &str) -> String {
        let c = &mut self.controller;
        c.leader = Some(new);
        c.leader_epoch += 1;
        c.partition_epoch += 1;
        if !clean {
            c.isr = vec![new];
        }
        let (epoch, isr) = (c.leader_epoch, c.isr.clone());
        let ev = self.ev();
        ev.kind = "leader_election";
        ev.leader = Some(Some(new));
        ev.leader_epoch = Some(epoch);
        ev.isr = Some(isr.clone());
        ev.clean = Some(clean);
        self.send_metadata_to_all();
        if clean {
            say!(self, " Because {why}, the controller elects broker {new} from the ISR: leader epoch {epoch}, ISR {}.", set_str(&isr))
        } else {
            say!(
                self,
                " Because {why}, the controller elects broker {new} although it is not in the ISR (unclean leader election): leader epoch {epoch}, ISR {}. Records it lacks may be lost.",
                set_str(&isr)
            )
        }
    }

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

    fn send_metadata_to_all(&mut self) {
        self.send_metadata_except(u32::MAX);
    }

    fn send_metadata_except(&mut self, skip: u32) {
        let meta = self.metadata();
        for b in 0..self.scenario.replicas {
            if b != skip && self.broker(b).alive {
                self.send(Node::Controller, Node::Broker(b), Body::LeaderAndIsr(meta.clone()));
            }
        }
    }

    /// Metadata (LeaderAndIsr / a KRaft delta) reaches a broker.
    pub(crate) fn handle_leader_and_isr(&mut self, msg: &MsgHead, meta: Metadata) {
        let Node::Broker(id) = msg.to else { return };
        self.event = Some(EventRecord {
            leader: Some(meta.leader),
            leader_epoch: Some(meta.leader_epoch),
            isr: Some(meta.isr.clone()),
            ..EventRecord::message("leader_and_isr", msg, self)
        });
        if meta.leader_epoch < self.broker(id).leader_epoch {
            self.ev().outcome = Some("stale");
            self.text = say!(
                self,
                "Broker {id} gets metadata for leader epoch {}, older than its own {}; ignored.",
                meta.leader_epoch,
                self.broker(id).leader_epoch
            );
            return;
        }
        let text = self.apply_metadata(id, &meta);
        self.text = say!(
            self,
            "Broker {id} learns from the controller: leader {}, epoch {}, ISR {}.{text}",
            leader_str(meta.leader),
            meta.leader_epoch,
            set_str(&meta.isr)
        );
    }

    /// `ReplicaManager.applyDelta`: become leader, become follower, or update the ISR.
    fn apply_metadata(&mut self, id: u32, meta: &Metadata) -> String {
        let b = self.broker(id);
        let same_epoch = b.leader_epoch == meta.leader_epoch;
        let fenced: VecSet<u32> = meta.fenced.iter().copied().collect();
        if meta.leader == Some(id) {
            if same_epoch && b.lead.is_some() {
                // Same epoch: an ISR change by the controller; follower states are kept
                // (`testDoNotResetReplicaStateIfLeaderEpochIsNotBumped`).
                self.ev().outcome = Some("isr-update");
                let Some(ls) = self.broker_mut(id).lead.as_mut() else {
                    return String::new();
                };
                let before = ls.isr.clone();
                ls.isr = meta.isr.clone();
                ls.partition_epoch = meta.partition_epoch;
                ls.fenced = fenced;
                ls.pending = None;
                let mut text = if before != meta.isr {
                    say!(self, " Its ISR {} → {}.", set_str(&before), set_str(&meta.isr))
                } else {
                    String::new()
                };
                text.push_str(&self.hw_after_isr_change(id));
                return text;
            }
            self.ev().outcome = Some("become-leader");
            self.clear_fetcher(id);
            let b = self.broker_mut(id);
            b.leader_epoch = meta.leader_epoch;
            let hw = b.hw;
            self.make_leader(id, meta.isr.clone(), meta.partition_epoch, fenced);
            let hw_now = self.broker(id).hw;
            let leo = self.broker(id).log.leo();
            let mut text =
                say!(self, " It becomes the leader in epoch {} with LEO {leo}; its epoch starts at offset {leo}.", meta.leader_epoch);
            if hw_now == hw && hw < leo {
                text.push_str(&say!(
                    self,
                    " Its HW is {hw}, what it last heard as a follower; it moves only when followers report their LEOs, so consumers beyond it wait."
                ));
            } else if hw_now == hw {
                text.push_str(&say!(self, " Its HW is {hw}, at its LEO."));
            } else {
                text.push_str(&say!(self, " HW {hw} → {hw_now}."));
            }
            return text;
        }
        // Not the leader: a follower of meta.leader.
        let was_leader = b.lead.is_some();
        let new_leader = meta.leader != b.leader || !same_epoch;
        if !new_leader && !was_leader && !matches!(b.fetcher, FetcherState::Idle) {
            self.ev().outcome = Some("no-change");
            self.broker_mut(id).leader_epoch = meta.leader_epoch;
            return " Nothing changes for it.".into();
        }
        self.ev().outcome = Some("become-follower");
        if was_leader {
            self.drop_leadership(id, Some(KafkaError::NotLeaderOrFollower));
        }
        self.clear_fetcher(id);
        let b = self.broker_mut(id);
        b.leader_epoch = meta.leader_epoch;
        b.leader = meta.leader;
        b.role = Role::Follower;
        let Some(leader) = meta.leader else {
            return " There is no leader to follow.".into();
        };
        let mut text = say!(self, " It follows leader {leader}.");
        if was_leader {
            text.insert_str(0, " It steps down; waiting requests get NOT_LEADER_OR_FOLLOWER.");
        }
        text.push_str(&self.truncate_on_become_follower(id));
        self.start_fetching(id);
        text
    }

    /// The controller handles AlterPartition (`ReplicationControlManager.alterPartition`).
    pub(crate) fn handle_alter_partition(&mut self, msg: &MsgHead, leader_epoch: i32, partition_epoch: u32, isr: Vec<u32>) {
        let Node::Broker(from) = msg.from else { return };
        self.event = Some(EventRecord {
            isr: Some(isr.clone()),
            leader_epoch: Some(leader_epoch),
            ..EventRecord::message("alter_partition", msg, self)
        });
        let c = &self.controller;
        let error = if leader_epoch < c.leader_epoch {
            Some("FENCED_LEADER_EPOCH")
        } else if c.leader != Some(from) {
            Some("INVALID_REQUEST")
        } else if partition_epoch < c.partition_epoch {
            Some("INVALID_UPDATE_VERSION")
        } else if isr.iter().any(|b| c.fenced.contains(b)) {
            Some("INELIGIBLE_REPLICA")
        } else {
            None
        };
        let before = c.isr.clone();
        if error.is_none() {
            self.controller.isr = isr.clone();
            self.controller.partition_epoch += 1;
        }
        let c = &self.controller;
        let (le, pe, committed) = (c.leader_epoch, c.partition_epoch, c.isr.clone());
        self.ev().outcome = Some(if error.is_some() { "rejected" } else { "committed" });
        self.ev().error = error;
        let sent = self.send(
            Node::Controller,
            msg.from,
            Body::AlterPartitionResponse { leader_epoch: le, partition_epoch: pe, isr: committed.clone(), error },
        );
        self.text = match error {
            None => say!(
                self,
                "The controller commits leader {from}'s ISR change {} → {} (partition epoch {pe}) and answers.{}",
                set_str(&before),
                set_str(&committed),
                sent.note()
            ),
            Some(e) => say!(self, "The controller rejects leader {from}'s ISR change to {}: {e}.{}", set_str(&isr), sent.note()),
        };
    }
}

fn leader_str(leader: Option<u32>) -> String {
    leader.map_or("none".into(), |l| l.to_string())
}
