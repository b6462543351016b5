//! A broker's life: crashing, restarting as a new incarnation that registers with
//! the controller, and the HW checkpoint a restart starts from; and where the node
//! functions of its heartbeats (`heartbeat.rs`) and metadata (`metadata_fetch.rs`,
//! `role.rs`) run. Crashing and restarting stay `impl Sim`: a crash ends what others
//! hold of the broker (connections, requests on their way, the controller's view).
//! Kafka (KRaft): `BrokerLifecycleManager`, `ReplicaManager.applyDelta`,
//! `Partition.makeLeader` / `makeFollower`, `ReplicaManager.checkpointHighWatermarks`.

use super::event::Event;
use super::log::RecordId;
use super::msg::{Metadata, Msg, Node};
use super::state::{Broker, ConsumerFetch, FetcherState, Ghost, Lifecycle, ProducerEntry, GHOSTS};
use super::vecmap::VecMap;
use super::{consumer_fetch, follower, heartbeat, leader, metadata_fetch, role, Sim};

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

    /// Whether broker `b`'s host answers a request (or its SYN) with a reset: its process
    /// was killed (a host that vanished says nothing), or a KRaft broker has not opened its
    /// listeners yet. `Sim::transmit` refuses such a request; a producer reads it to keep an
    /// acks=0 batch that would never be written (`Out::refuses_request`).
    pub(crate) fn refuses_connections(&self, b: u32) -> bool {
        let x = self.broker(b);
        (!x.alive && !x.silently_down) || self.listeners_closed(Node::Broker(b))
    }

    /// The brokers whose hosts refuse connections now, one bit each (`refuses_connections`).
    pub(crate) fn refusing_brokers(&self) -> u64 {
        (0..self.brokers.len() as u32).filter(|&b| b < 64 && self.refuses_connections(b)).fold(0, |m, b| m | 1 << b)
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
            self.broker_rule(id, |b, out| {
                heartbeat::zookeeper_ping_due(b, out);
                heartbeat::schedule_heartbeat(b, out);
            });
        } else {
            self.start_metadata_fetch(id);
            self.broker_rule(id, heartbeat::send_registration);
        }
    }

    /// Metadata (a KRaft delta; LeaderAndIsr before) reaches a broker. A broker still
    /// registering, or one that has applied newer metadata, ignores it.
    pub(crate) fn handle_leader_and_isr(&mut self, msg: &Msg, meta: &Metadata) {
        self.broker_rule_at(msg.to, |b, out| metadata_fetch::learn_metadata(b, meta, out));
    }

    /// `ReplicaManager.applyDelta` on broker `id` (`role::apply_metadata`), for the engine's tests.
    #[cfg(test)]
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
        let mut state = VecMap::new();
        self.log.entries_from(0).for_each(|(_, e)| note_append(&mut state, e.id, e.producer_epoch));
        *self.producer_state = state;
    }

    /// The producer state after an append, at the leader or at a follower
    /// (`follower::append_replicated`): [`note_append`].
    pub(crate) fn note_producer_append(&mut self, last: RecordId, producer_epoch: u16) {
        note_append(&mut self.producer_state, last, producer_epoch);
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

/// A producer's epoch and last sequence after an append of its records up to `last`
/// (`ProducerStateEntry.addBatch`; a new producer epoch starts afresh). The batches the
/// state keeps are read from the log (`leader::produce::find_duplicate_batch`).
fn note_append(state: &mut VecMap<u16, ProducerEntry>, last: RecordId, producer_epoch: u16) {
    let last_n = state.get(&last.producer).map_or(last.n, |s| if producer_epoch > s.epoch { last.n } else { s.last_n.max(last.n) });
    state.insert(last.producer, ProducerEntry { epoch: producer_epoch, last_n });
}
