//! A broker's life: crashing, restarting as a new incarnation that registers with
//! the controller, heartbeating, learning metadata and taking the role it gives,
//! and the HW checkpoint a restart starts from.
//! Kafka (KRaft): `BrokerLifecycleManager`, `ReplicaManager.applyDelta`,
//! `Partition.makeLeader` / `makeFollower`, `ReplicaManager.checkpointHighWatermarks`.

use super::event::Event;
use super::isr_list::IsrList;
use super::msg::{Body, FetchResponse, KafkaError, Metadata, Msg, Node};
use super::scheduler::Timer;
use super::state::{ConsumerFetch, FetcherState, Lifecycle, Role};
use super::vecmap::VecSet;
use super::Sim;

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
        self.clear_fetcher(id);
        self.drop_leadership(id, None);
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

    /// Ends a broker's leadership: parked fetches and delayed produces are answered
    /// with NOT_LEADER_OR_FOLLOWER if it is alive (`error`), or simply vanish in a crash.
    pub(crate) fn drop_leadership(&mut self, id: u32, error: Option<KafkaError>) {
        let Some(ls) = self.broker_mut(id).lead.take() else {
            return;
        };
        let timers = ls.isr_timer.into_iter().chain(ls.alter.map(|a| a.1));
        for t in timers.chain(ls.parked_fetches.iter().map(|p| p.timer)).chain(ls.delayed_produces.iter().map(|d| d.timer)) {
            self.cancel(t);
        }
        if let Some(error) = error {
            let b = self.broker(id);
            let (hw, leo) = (b.hw, b.log.leo());
            let current_leader = b.leader.filter(|&l| l != id).map(|l| (l, b.leader_epoch));
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
                self.send(Node::Broker(id), Node::Broker(p.follower), Body::FetchResponse(resp));
            }
            for d in &ls.delayed_produces {
                let body =
                    Body::ProduceResponse { request: d.request, ids: d.ids.clone(), error: Some(error), current_leader, duplicate: false };
                self.send(Node::Broker(id), Node::Producer(d.producer), body);
            }
        }
        self.broker_mut(id).role = Role::Follower;
    }

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
    pub(crate) fn acts_on_image_before_registration(&self) -> bool {
        !self.zookeeper()
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

    /// `ReplicaManager.applyDelta`: become leader, become follower, or update the ISR.
    pub(crate) fn apply_metadata(&mut self, id: u32, meta: &Metadata) {
        self.broker_mut(id).metadata_offset = self.broker(id).metadata_offset.max(meta.offset);
        let b = self.broker(id);
        if meta.leader == Some(id) && b.lifecycle == Lifecycle::Starting && self.acts_on_image_before_registration() {
            // Leader in its own view, its data plane still closed (`acts_on_image_before_registration`).
            let b = self.broker_mut(id);
            b.image_partition_epoch = Some(meta.partition_epoch);
            b.leader_epoch = meta.leader_epoch;
            b.leader = Some(id);
            return self.emit(Event::LeadsBeforeRegistration { broker: id, epoch: meta.leader_epoch });
        }
        let same_epoch = b.leader_epoch == meta.leader_epoch;
        let fenced: VecSet<u32> = meta.fenced.iter().copied().collect();
        if meta.leader == Some(id) {
            if same_epoch && b.lead.is_some() {
                if !self.local_changes_include(id, meta) {
                    // The partition did not change (metadata resent for another reason, a
                    // registration): its state, a pending ISR change included, stays; which
                    // brokers are fenced is the cluster's part of the delta.
                    self.lead_mut(id).fenced = fenced;
                    self.emit(Event::NothingChanges { broker: id });
                    return self.hw_after_isr_change(id);
                }
                self.broker_mut(id).image_partition_epoch = Some(meta.partition_epoch);
                let held = self.lead(id).partition_epoch;
                if meta.partition_epoch < held {
                    // `Partition.makeLeader` (3.3+): an AlterPartition answer already gave it a newer state.
                    return self.emit(Event::LeaderStateNewer { broker: id, partition_epoch: meta.partition_epoch, held });
                }
                // Same epoch: an ISR change by the controller; follower states are kept
                // (`testDoNotResetReplicaStateIfLeaderEpochIsNotBumped`).
                let before = self.lead(id).isr_set();
                self.lead_mut(id).fenced = fenced;
                let after = IsrList::to_set(&meta.isr, self.isr_members());
                self.emit(Event::LeaderIsrUpdated { broker: id, before, after, partition_epoch: meta.partition_epoch });
                return self.hw_after_isr_change(id);
            }
            let again = b.lead.is_some();
            self.broker_mut(id).image_partition_epoch = Some(meta.partition_epoch);
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
            let (leo, hw, prev) = (b.log.leo(), b.hw, b.kafka_partition);
            return self.emit(Event::BecameLeader { broker: id, epoch: meta.leader_epoch, leo, hw_before, hw, again, prev });
        }
        // Not the leader: a follower of meta.leader.
        self.broker_mut(id).image_partition_epoch = Some(meta.partition_epoch);
        let b = self.broker(id);
        let was_leader = b.lead.is_some();
        let new_leader = was_leader || self.make_follower_changes_state(id, meta);
        if !new_leader && !was_leader && !matches!(b.fetcher, FetcherState::Idle) {
            self.broker_mut(id).leader_epoch = meta.leader_epoch;
            return self.emit(Event::NothingChanges { broker: id });
        }
        // What it answers waiting producers with (KIP-951): the new leader.
        let b = self.broker_mut(id);
        b.leader_epoch = meta.leader_epoch;
        b.leader = meta.leader;
        if was_leader {
            self.drop_leadership(id, Some(KafkaError::NotLeaderOrFollower));
        }
        self.clear_fetcher(id);
        self.broker_mut(id).role = Role::Follower;
        let prev = self.broker(id).kafka_partition;
        self.emit(Event::BecameFollower { broker: id, leader: meta.leader, stepped_down: was_leader, prev });
        if meta.leader.is_some() {
            self.truncate_on_become_follower(id);
            self.start_fetching(id);
        }
    }

    /// `TopicDelta.localChanges` (KRaft, 3.x–4.x; a leader's same-epoch LeaderAndIsr was
    /// ignored before): a metadata delta changes a leader's partition only when the
    /// partition's epoch differs from the one in the broker's image, so metadata resent
    /// without a partition change (a broker's registration) leaves the leader's state,
    /// a pending AlterPartition included, as it is. After a restart the image is empty
    /// and the first load applies everything.
    fn local_changes_include(&self, id: u32, meta: &Metadata) -> bool {
        self.broker(id).image_partition_epoch != Some(meta.partition_epoch)
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

    /// `ReplicaManager.checkpointHighWatermarks`, every
    /// replica.high.watermark.checkpoint.interval.ms from the broker's start: before the
    /// HW changes (and at a crash), the checkpoint due since the last one records the
    /// HW in force then, which is the HW before this change.
    pub(crate) fn roll_hw_checkpoint(&mut self, id: u32) {
        let interval = self.scenario.config.hw_checkpoint_interval_ms();
        let now = self.now;
        let b = self.broker_mut(id);
        if now < b.hw_checkpoint_phase {
            return;
        }
        let due = now - (now - b.hw_checkpoint_phase) % interval;
        if due > b.hw_checkpoint.0 || (due == 0 && b.hw_checkpoint.0 == 0) {
            b.hw_checkpoint = (due, b.hw);
        }
    }

    /// The producer state a broker rebuilds from its log (`ProducerStateManager`,
    /// after a restart or a truncation): each producer's last sequence in the log.
    pub(crate) fn rebuild_producer_state(&mut self, id: u32) {
        let mut state: super::vecmap::VecMap<u16, super::state::ProducerEntry> = super::vecmap::VecMap::new();
        let b = self.broker(id);
        for (_, e) in b.log.entries_from(0) {
            let last_n = match state.get(&e.id.producer) {
                Some(s) if s.epoch >= e.producer_epoch => s.last_n.max(e.id.n),
                _ => e.id.n,
            };
            state.insert(e.id.producer, super::state::ProducerEntry { epoch: e.producer_epoch, last_n });
        }
        *self.broker_mut(id).producer_state = state;
    }
}
