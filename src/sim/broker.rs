//! A broker's life: crashing, restarting as a new incarnation that registers with
//! the controller, heartbeating, learning metadata and taking the role it gives,
//! and the HW checkpoint a restart starts from.
//! Kafka (KRaft): `BrokerLifecycleManager`, `ReplicaManager.applyDelta`,
//! `Partition.makeLeader` / `makeFollower`, `ReplicaManager.checkpointHighWatermarks`.

use super::event::Event;
use super::msg::{Body, KafkaError, Metadata, Msg, Node};
use super::scheduler::Timer;
use super::state::{Broker, ConsumerFetch, FetcherState, Ghost, Lifecycle, GHOSTS};
use super::{consumer_fetch, follower, leader, role, Sim};

impl Sim {
    /// `crash`: the process is killed (its kernel resets its connections, so peers
    /// waiting on it hear at once) or, `silent`, the host vanishes (peers wait for
    /// their timeouts). Requests on their way to it are lost, its purgatories and
    /// timers vanish, and `unflushed` records at its tail are lost. The controller
    /// notices only when its session expires.
    pub(crate) fn crash(&mut self, id: u32, unflushed: u64, silent: bool) {
        if !self.broker(id).alive {
            return self.emit(Event::AlreadyDown { broker: id });
        }
        self.roll_hw_checkpoint(id);
        let waiting = if silent { Vec::new() } else { self.waiting_on(id) };
        let dropped = self.in_flight.values().filter(|(m, _)| m.to == Node::Broker(id)).count();
        self.push_command(super::step::Command::DropMessagesTo(Node::Broker(id)));
        self.broker_rule(id, |b, out| {
            follower::clear_fetcher(b, out);
            role::drop_leadership(b, None, out);
        });
        let b = self.broker_mut(id);
        let rpc = b.heartbeat_rpc.take().map(|(_, t)| t);
        let timers: Vec<_> = b.parked_consumers.iter().map(|p| p.timer).chain(b.heartbeat_timer.take()).chain(rpc).collect();
        for t in timers {
            self.cancel(t);
        }
        self.stop_metadata_fetch(id);
        if !silent {
            self.reset_connections(id, &waiting);
        }
        let leo = self.broker(id).log.leo();
        let kept = leo.saturating_sub(unflushed);
        // The session timeout this preset's liveness runs on (ZooKeeper's or KRaft's), so
        // that the narration's last sign of life is the one the deadline came from.
        let session = self.liveness().1;
        let deadline = if self.zookeeper() {
            self.controller.zookeeper[id as usize].deadline
        } else {
            self.controller.registrations[id as usize].session_deadline
        };
        let deadline = deadline.unwrap_or(self.now);
        let last_heartbeat = deadline.checked_sub(session);
        self.emit(Event::Crashed { broker: id, unflushed, leo, kept, dropped, silent, resets: waiting.len(), last_heartbeat, deadline });
    }

    /// The peers with a request outstanding on `id`: followers fetching from it,
    /// clients with a produce, fetch or metadata request to it.
    fn waiting_on(&self, id: u32) -> Vec<Node> {
        let mut peers = Vec::new();
        for b in &self.brokers {
            let fetching = matches!(b.fetcher, FetcherState::Fetching { .. } | FetcherState::Truncating { .. });
            if b.id != id && b.alive && fetching && b.leader == Some(id) {
                peers.push(Node::Broker(b.id));
            }
        }
        for (i, p) in self.producers.iter().enumerate() {
            let metadata = p.meta.in_flight.is_some_and(|(_, b, _)| b == id);
            if metadata || p.requests.values().any(|r| r.broker == id) {
                peers.push(Node::Producer(i));
            }
        }
        for (i, c) in self.consumers.iter().enumerate() {
            let metadata = c.meta.in_flight.is_some_and(|(_, b, _)| b == id);
            let fetch =
                matches!(c.fetch, Some(ConsumerFetch::InFlight { broker, .. } | ConsumerFetch::Validating { broker, .. }) if broker == id);
            if metadata || fetch {
                peers.push(Node::Consumer(i));
            }
        }
        peers
    }

    /// Whether a restarted broker acts on its metadata image before it is registered
    /// (`role::acts_on_image_before_registration`).
    pub(crate) fn acts_on_image_before_registration(&self) -> bool {
        role::acts_on_image_before_registration(&self.behavior)
    }

    /// A KRaft broker's listeners are closed until the end of its start-up: a new process
    /// opens its data-plane sockets only once the controller has unfenced it, so a
    /// connection to it before then is refused by its kernel, as to a killed one: clients
    /// and followers get a network error, no answer from the broker. Kafka 3.7.0–4.0:
    /// `BrokerServer.startup` waits for the broker to be unfenced before
    /// `SocketServer.enableRequestProcessing`, and `Acceptor.start` binds the server socket
    /// of a listener with a fixed port only then (a wildcard port is bound at once). In
    /// the ZooKeeper era the listeners open before the broker registers.
    pub(crate) fn listeners_closed(&self, node: Node) -> bool {
        matches!(node, Node::Broker(b) if self.broker(b).alive && self.broker(b).lifecycle != Lifecycle::Running && !self.zookeeper())
    }

    /// Whether a new incarnation has yet to publish the image it loaded: it has applied no
    /// metadata since its restart.
    pub(crate) fn publishes_loaded_image(&self, id: u32) -> bool {
        let b = self.broker(id);
        self.acts_on_image_before_registration() && b.lifecycle == Lifecycle::Starting && b.image_partition_epoch.is_none()
    }

    /// `restart`: a new incarnation of the broker starts with its flushed log and its
    /// last checkpointed HW, and asks the controller to register it
    /// (`BrokerLifecycleManager`). Under KRaft it fetches the metadata log at once and
    /// takes the role its image gives before it is registered
    /// (`acts_on_image_before_registration`).
    pub(crate) fn restart(&mut self, id: u32) {
        if self.broker(id).alive {
            return self.emit(Event::AlreadyRunning { broker: id });
        }
        let b = self.broker(id);
        let (leo, hw_before) = (b.log.leo(), b.hw);
        let hw = b.hw_checkpoint.1.min(leo);
        let incarnation = b.incarnation + 1;
        self.emit(Event::Restarted { broker: id, leo, hw, hw_before, incarnation });
        self.rebuild_producer_state(id);
        self.broker_mut(id).heartbeat_failures = 0;
        if self.zookeeper() {
            // The new process's ZooKeeper client opens a session and creates its node.
            self.zookeeper_ping_due(id);
            self.schedule_heartbeat(id);
        } else {
            self.start_metadata_fetch(id);
            self.send_registration(id);
        }
    }

    /// `BrokerLifecycleManager` after DUPLICATE_BROKER_REGISTRATION (4.0.2, measured by
    /// the oracle: refusals 2005–2038 ms apart with the default 2 s interval): the next
    /// attempt is broker.heartbeat.interval.ms after the refusal arrives, not on the
    /// heartbeat grid.
    fn retry_refused_registration(&mut self, id: u32) {
        if let Some(key) = self.broker_mut(id).heartbeat_timer.take() {
            self.cancel(key);
        }
        let at = self.now + self.scenario.config.broker_heartbeat_interval_ms;
        let timer = self.set_timer(at, Timer::Heartbeat { broker: id });
        self.broker_mut(id).heartbeat_timer = Some(timer);
        self.emit(Event::RegistrationRetries { broker: id, at });
    }

    /// After an answer, the next heartbeat on the grid, unless one is already set.
    fn schedule_next_heartbeat(&mut self, id: u32) {
        if self.broker(id).heartbeat_timer.is_none() && self.broker(id).alive {
            self.schedule_heartbeat(id);
        }
    }

    /// The next heartbeat (or registration attempt), on the broker's grid:
    /// its phase plus a multiple of broker.heartbeat.interval.ms.
    pub(crate) fn schedule_heartbeat(&mut self, id: u32) {
        let interval = self.scenario.config.broker_heartbeat_interval_ms;
        let phase = self.controller.heartbeat_phase[id as usize];
        let next = if self.now < phase { phase } else { self.now + interval - (self.now - phase) % interval };
        let timer = self.set_timer(next, Timer::Heartbeat { broker: id });
        self.broker_mut(id).heartbeat_timer = Some(timer);
    }

    /// A heartbeat is due (`BrokerLifecycleManager`'s communication event): a broker
    /// not registered yet tries to register; a registered one heartbeats with the
    /// metadata offset it has applied.
    pub(crate) fn heartbeat_due(&mut self, id: u32) {
        self.broker_mut(id).heartbeat_timer = None;
        if !self.broker(id).alive {
            return;
        }
        if self.zookeeper() {
            self.schedule_heartbeat(id);
            return self.zookeeper_ping_due(id);
        }
        // KRaft: the next is scheduled when this one is answered or given up.
        match self.broker(id).broker_epoch {
            None => self.send_registration(id),
            Some(epoch) => self.send_heartbeat(id, epoch),
        }
    }

    fn send_registration(&mut self, id: u32) {
        let incarnation = self.broker(id).incarnation;
        let msg = self.send(Node::Broker(id), Node::Controller, Body::BrokerRegistration { incarnation });
        self.await_heartbeat_answer(id, msg);
        self.emit(Event::RegistrationSent { broker: id, incarnation, msg });
    }

    pub(crate) fn send_heartbeat(&mut self, id: u32, broker_epoch: u64) {
        let metadata_offset = self.broker(id).metadata_offset;
        let msg = self.send(Node::Broker(id), Node::Controller, Body::BrokerHeartbeat { broker_epoch, metadata_offset });
        self.await_heartbeat_answer(id, msg);
        self.emit(Event::HeartbeatSent { broker: id, msg });
    }

    /// The controller's answer to a registration: refused while the previous
    /// incarnation's session lasts (DuplicateBrokerRegistrationException; the broker
    /// tries again `retry_refused_registration`), or registered fenced with the metadata
    /// to catch up from. Caught up, the broker takes its role and, ready to be unfenced,
    /// heartbeats at once (`setReadyToUnfence`).
    pub(crate) fn handle_registration_response(&mut self, msg: &Msg, broker_epoch: Option<u64>, meta: Option<&Metadata>) {
        let Node::Broker(id) = msg.to else { return };
        self.heartbeat_answered(id);
        if self.broker(id).lifecycle != Lifecycle::Starting {
            self.schedule_next_heartbeat(id);
            return self.emit(Event::RegistrationResponseIgnored { broker: id });
        }
        let Some(epoch) = broker_epoch else {
            return self.retry_refused_registration(id);
        };
        let b = self.broker_mut(id);
        b.broker_epoch = Some(epoch);
        b.lifecycle = Lifecycle::Recovery;
        self.emit(Event::RegistrationAccepted { broker: id, broker_epoch: epoch });
        if let Some(meta) = meta {
            self.apply_metadata(id, meta);
        }
        self.send_heartbeat(id, epoch);
    }

    /// The controller's answer to a heartbeat: metadata the broker missed (applied),
    /// and whether it is fenced; a broker in recovery that is unfenced now runs.
    pub(crate) fn handle_heartbeat_response(&mut self, msg: &Msg, fenced: bool, meta: Option<&Metadata>, error: Option<KafkaError>) {
        let Node::Broker(id) = msg.to else { return };
        self.heartbeat_answered(id);
        self.schedule_next_heartbeat(id);
        if error.is_some() || self.broker(id).broker_epoch.is_none() {
            return self.emit(Event::HeartbeatResponseIgnored { broker: id });
        }
        let caught_up = meta.filter(|m| m.offset > self.broker(id).metadata_offset).cloned();
        let running = !fenced && self.broker(id).lifecycle == Lifecycle::Recovery;
        if running {
            self.broker_mut(id).lifecycle = Lifecycle::Running;
        }
        self.emit(Event::HeartbeatAnswered { broker: id, fenced, running, caught_up: caught_up.as_ref().map(|m| m.offset) });
        if let Some(meta) = caught_up {
            self.apply_metadata(id, &meta);
        }
    }

    /// Metadata (a KRaft delta; LeaderAndIsr before) reaches a broker. A broker still
    /// registering, or one that has applied newer metadata, ignores it.
    pub(crate) fn handle_leader_and_isr(&mut self, msg: &Msg, meta: &Metadata) {
        let Node::Broker(id) = msg.to else { return };
        self.learn_metadata(id, meta);
    }

    /// `ReplicaManager.applyDelta` on broker `id` (`role::apply_metadata`).
    pub(crate) fn apply_metadata(&mut self, id: u32, meta: &Metadata) {
        self.broker_rule(id, |b, out| role::apply_metadata(b, meta, out));
    }

    /// The HW checkpoint before a crash (`Broker::roll_hw_checkpoint`).
    pub(crate) fn roll_hw_checkpoint(&mut self, id: u32) {
        let interval = self.scenario.config.hw_checkpoint_interval_ms();
        let now = self.now;
        self.broker_mut(id).roll_hw_checkpoint(now, interval);
    }

    /// The producer state a restarted broker rebuilds (`Broker::rebuild_producer_state`).
    pub(crate) fn rebuild_producer_state(&mut self, id: u32) {
        self.broker_mut(id).rebuild_producer_state();
    }
}

impl Sim {
    /// The leader state of broker `leader` (which leads).
    #[cfg(test)]
    pub(crate) fn lead(&self, leader: u32) -> &super::state::LeaderState {
        leader::lead(self.broker(leader))
    }

    #[cfg(test)]
    pub(crate) fn lead_mut(&mut self, leader: u32) -> &mut super::state::LeaderState {
        self.broker_mut(leader).lead.as_mut().expect("leader state")
    }

    /// `Partition.effectiveMinIsr` under this run's configuration (`leader::effective_min_isr`).
    pub(crate) fn effective_min_isr(&self) -> u32 {
        leader::effective_min_isr(self.scenario.config.min_insync_replicas, self.scenario.replicas, self.behavior.hw_held_under_min_isr)
    }

    /// Whether the leader's committed ISR is smaller than the effective min ISR.
    pub(crate) fn under_min_isr(&self, leader: u32) -> bool {
        let min = self.effective_min_isr() as usize;
        self.broker(leader).lead.as_ref().is_some_and(|ls| ls.isr.len() < min)
    }

    /// `ReplicaManager.findPreferredReadReplica` on broker `leader` (`consumer_fetch.rs`).
    pub(crate) fn find_preferred_read_replica(&self, leader: u32, f: u32, offset: u64) -> Option<u32> {
        consumer_fetch::find_preferred_read_replica(self.broker(leader), f, offset, &self.behavior)
    }
}

impl Broker {
    /// `ReplicaManager.checkpointHighWatermarks`, every
    /// replica.high.watermark.checkpoint.interval.ms from the broker's start: before the
    /// HW changes (and at a crash), the checkpoint due since the last one records the
    /// HW in force then, which is the HW before this change.
    pub(crate) fn roll_hw_checkpoint(&mut self, now: u64, interval: u64) {
        if now < self.hw_checkpoint_phase {
            return;
        }
        let due = now - (now - self.hw_checkpoint_phase) % interval;
        if due > self.hw_checkpoint.0 || (due == 0 && self.hw_checkpoint.0 == 0) {
            self.hw_checkpoint = (due, self.hw);
        }
    }

    /// The producer state a broker rebuilds from its log (`ProducerStateManager`,
    /// after a restart or a truncation): each producer's last sequence in the log.
    pub(crate) fn rebuild_producer_state(&mut self) {
        let mut state: super::vecmap::VecMap<u16, super::state::ProducerEntry> = super::vecmap::VecMap::new();
        for (_, e) in self.log.entries_from(0) {
            let last_n = match state.get(&e.id.producer) {
                Some(s) if s.epoch >= e.producer_epoch => s.last_n.max(e.id.n),
                _ => e.id.n,
            };
            state.insert(e.id.producer, super::state::ProducerEntry { epoch: e.producer_epoch, last_n });
        }
        *self.producer_state = state;
    }

    /// The records the log is about to lose from `offset` on, kept as ghosts (the record
    /// says where they were and which step removed them).
    pub(crate) fn note_ghosts(&mut self, offset: u64, step: u64) {
        let gone: Vec<Ghost> = self.log.entries_from(offset).map(|(offset, e)| Ghost { offset, epoch: e.epoch, id: e.id, step }).collect();
        self.ghosts.retain(|g| g.offset < offset || !gone.iter().any(|x| x.offset == g.offset));
        self.ghosts.extend(gone);
        let extra = self.ghosts.len().saturating_sub(GHOSTS);
        self.ghosts.drain(..extra);
    }
}
