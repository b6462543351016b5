//! KRaft: how metadata reaches a broker. Each broker fetches the metadata log from
//! the active controller in a loop of its own (its raft client as an observer), and
//! learns a partition change or a fence when that fetch is answered; and how a
//! broker's heartbeat that gets no answer is given up.
//! Kafka (4.0): `KafkaRaftClient.pollFollowerAsObserver`, `KafkaRaftClient.handleFetchRequest`,
//! `QuorumConfig` (controller.quorum.*), `BrokerLifecycleManager`.
//!
//! While the broker and the controller can talk, the loop is a long poll that nobody
//! sees: a Fetch waits at the controller up to `MAX_FETCH_WAIT_MS` and is sent again
//! as soon as its empty answer arrives. Those idle rounds are not steps (as the
//! controller's periodic check that finds nothing); their grid is kept from
//! `MetadataFetch::Polling::since`. A change is the answer to the Fetch waiting at the
//! controller, one hop later. When a cut separates them, the Fetch on its way is held
//! by TCP like any other request, given up after controller.quorum.request.timeout.ms,
//! and sent again on a new connection after controller.quorum.retry.backoff.ms; after
//! the heal the broker hears at that connection's next handshake retransmission or at
//! its next fresh attempt. (After controller.quorum.fetch.timeout.ms without a fetch the
//! observer asks any voter: here that is the same controller, so nothing changes.)

use super::event::Event;
use super::msg::{Body, Metadata, Msg, Node};
use super::outbox::Out;
use super::scheduler::Timer;
use super::shared::Shared;
use super::state::{Controller, Lifecycle, MetadataFetch};
use super::Sim;

/// `KafkaRaftClient.MAX_FETCH_WAIT_MS` (4.0): how long the controller holds a Fetch
/// that finds no new records.
pub(crate) const MAX_FETCH_WAIT_MS: u64 = 500;
/// controller.quorum.request.timeout.ms (4.0 default): an unanswered Fetch is given up
/// (`pollFollowerAsObserver`: the request times out and the connection is reset).
pub(crate) const QUORUM_REQUEST_TIMEOUT_MS: u64 = 2000;
/// controller.quorum.retry.backoff.ms (4.0 default): the wait before the next Fetch.
pub(crate) const QUORUM_RETRY_BACKOFF_MS: u64 = 20;

impl Sim {
    /// Whether brokers learn metadata by fetching it (KRaft) rather than by the
    /// controller's LeaderAndIsr (the ZooKeeper era, `zookeeper.rs`).
    pub(crate) fn fetches_metadata(&self) -> bool {
        !self.zookeeper()
    }

    fn controller_link_cut(&self, id: u32) -> bool {
        let me = Node::Broker(id);
        let metadata = Some(crate::scenario::Channel::Metadata);
        self.net.is_cut_on(me, Node::Controller, metadata) || self.net.is_cut_on(Node::Controller, me, metadata)
    }

    /// One idle round of the long poll: the Fetch's wait plus the round trip.
    fn idle_round_ms(&self, id: u32) -> u64 {
        let me = Node::Broker(id);
        MAX_FETCH_WAIT_MS + self.net.latency(me, Node::Controller) + self.net.latency(Node::Controller, me)
    }

    /// A cut struck a broker's link to the controller while it long-polled: the Fetch of
    /// the idle round under way (sent at the last round's start) now waits at the
    /// controller for an answer that the cut holds, or is held itself. It is given up
    /// controller.quorum.request.timeout.ms after it was sent.
    pub(crate) fn catch_idle_metadata_fetches(&mut self) {
        if !self.fetches_metadata() {
            return;
        }
        for id in 0..self.scenario.replicas {
            let MetadataFetch::Polling { since } = self.broker(id).metadata_fetch else { continue };
            if !self.broker(id).alive || !self.controller_link_cut(id) {
                continue;
            }
            let round = self.idle_round_ms(id).max(1);
            let sent = since + (self.now.saturating_sub(since) / round) * round;
            let timer = self.set_timer((sent + QUORUM_REQUEST_TIMEOUT_MS).max(self.now), Timer::MetadataFetch { broker: id });
            self.broker_mut(id).metadata_fetch = MetadataFetch::Waiting { msg: None, sent, timer };
            // At the controller it waits for new records as any Fetch does.
            let arrived = sent + self.net.latency(Node::Broker(id), Node::Controller);
            self.controller_rule(|c, out| park_metadata_fetch(c, id, 0, arrived, out));
        }
    }

    /// The controller's log grew (a partition change, a fence, a registration): every
    /// Fetch waiting at the controller is answered with it now — the idle poll of a
    /// broker that can talk to it, or one parked. A broker whose Fetch is still on its
    /// way, or backing off, is answered when its Fetch arrives. `skip`: a broker that
    /// gets the change in its registration answer.
    pub(crate) fn answer_waiting_metadata_fetches(&mut self, skip: Option<u32>) {
        let meta = self.controller.metadata();
        for id in 0..self.scenario.replicas {
            let b = self.broker(id);
            if Some(id) == skip || !b.alive || b.broker_epoch.is_none() {
                continue;
            }
            let state = b.metadata_fetch;
            let request = match (self.controller.parked_fetches[id as usize].take(), state) {
                (Some((request, key)), _) => {
                    self.cancel(key);
                    request
                }
                (None, MetadataFetch::Polling { .. }) => 0,
                _ => continue,
            };
            let body = Body::MetadataFetchResponse { request, metadata: Some(meta.clone()) };
            self.send(Node::Controller, Node::Broker(id), body);
        }
    }

    /// The answer to a Fetch: the records are applied (`BrokerMetadataPublisher`, then
    /// `ReplicaManager.applyDelta`), and the next Fetch goes out at once — the idle long
    /// poll again, or, across a cut, a request that waits.
    pub(crate) fn handle_metadata_fetch_response(&mut self, msg: &Msg, request: u64, meta: Option<&Metadata>) {
        let Node::Broker(id) = msg.to else { return };
        let current = match self.broker(id).metadata_fetch {
            MetadataFetch::Polling { .. } => request == 0,
            MetadataFetch::Waiting { msg, timer, .. } if msg.unwrap_or(0) == request => {
                self.cancel(timer);
                true
            }
            _ => false,
        };
        if current {
            if self.controller_link_cut(id) {
                self.send_metadata_fetch(id);
            } else {
                self.broker_mut(id).metadata_fetch = MetadataFetch::Polling { since: self.now };
            }
        }
        match meta {
            Some(meta) => self.learn_metadata(id, meta),
            None => self.emit(Event::MetadataFetchEmpty { broker: id }),
        }
    }

    /// Metadata that reached a broker (a KRaft fetch answer; LeaderAndIsr before). A
    /// broker still registering, or one that has applied newer metadata, ignores it.
    pub(crate) fn learn_metadata(&mut self, id: u32, meta: &Metadata) {
        let b = self.broker(id);
        // A ZooKeeper-era broker takes LeaderAndIsr as soon as it runs (no KRaft registration).
        if b.lifecycle == Lifecycle::Starting && !self.zookeeper() {
            return self.emit(Event::MetadataWhileStarting { broker: id });
        }
        if meta.offset <= b.metadata_offset {
            return self.emit(Event::MetadataStale { broker: id, epoch: meta.leader_epoch, own_epoch: b.leader_epoch });
        }
        self.apply_metadata(id, meta);
    }

    fn send_metadata_fetch(&mut self, id: u32) {
        let offset = self.broker(id).metadata_offset;
        let msg = self.send(Node::Broker(id), Node::Controller, Body::MetadataFetch { offset });
        let timer = self.set_timer(self.now + QUORUM_REQUEST_TIMEOUT_MS, Timer::MetadataFetch { broker: id });
        self.broker_mut(id).metadata_fetch = MetadataFetch::Waiting { msg: Some(msg), sent: self.now, timer };
        self.emit(Event::MetadataFetchSent { broker: id, msg });
    }

    /// The broker's fetch timer: a Fetch unanswered for controller.quorum.request.timeout.ms
    /// is given up (`pollFollowerAsObserver`: the connection is reset, what TCP held on it
    /// is gone) and the next is sent after controller.quorum.retry.backoff.ms, on a new
    /// connection.
    pub(crate) fn metadata_fetch_timer(&mut self, id: u32) {
        match self.broker(id).metadata_fetch {
            MetadataFetch::Waiting { sent, .. } => {
                self.close_metadata_connection(id);
                if let Some((_, key)) = self.controller.parked_fetches[id as usize].take() {
                    self.cancel(key);
                }
                let timer = self.set_timer(self.now + QUORUM_RETRY_BACKOFF_MS, Timer::MetadataFetch { broker: id });
                self.broker_mut(id).metadata_fetch = MetadataFetch::Backoff { timer };
                self.emit(Event::MetadataFetchTimedOut { broker: id, sent });
            }
            MetadataFetch::Backoff { .. } => self.send_metadata_fetch(id),
            MetadataFetch::Polling { .. } | MetadataFetch::Off => {}
        }
    }

    /// A broker stops (a crash): its fetch loop and the Fetch parked for it end.
    pub(crate) fn stop_metadata_fetch(&mut self, id: u32) {
        if let MetadataFetch::Waiting { timer, .. } | MetadataFetch::Backoff { timer } = self.broker(id).metadata_fetch {
            self.cancel(timer);
        }
        self.broker_mut(id).metadata_fetch = MetadataFetch::Off;
        if let Some((_, key)) = self.controller.parked_fetches[id as usize].take() {
            self.cancel(key);
        }
    }

    /// A new incarnation starts its fetch loop (KRaft): long-polling if it can reach the
    /// controller, otherwise with a Fetch that waits.
    pub(crate) fn start_metadata_fetch(&mut self, id: u32) {
        if !self.fetches_metadata() {
            return;
        }
        if self.controller_link_cut(id) {
            self.send_metadata_fetch(id);
        } else {
            self.broker_mut(id).metadata_fetch = MetadataFetch::Polling { since: self.now };
        }
    }

    /// How long a heartbeat (or registration) waits for its answer before the broker gives
    /// it up ("Unable to send a heartbeat because the RPC got timed out before it could be
    /// sent", `BrokerLifecycleManager.BrokerHeartbeatResponseHandler.onTimeout`). The heartbeat
    /// channel's `NodeToControllerChannelManagerImpl` has its own `NetworkClient`, whose
    /// request timeout is min(controller.socket.timeout.ms, the channel's retry timeout); a
    /// request that times out disconnects the channel ("Recorded new KRaft controller" as it
    /// reconnects) and, older than the retry timeout, is given up. That retry timeout is
    /// broker.heartbeat.interval.ms from 4.0.1 (`BrokerServer`, KAFKA-19294; 4.0.2 and 4.1.0
    /// read) and broker.session.timeout.ms / 2 in 3.4–4.0.0 (KAFKA-14392; 3.7.0, 3.8.0,
    /// 3.9.1 and 4.0.0 read). The raft client's connection plays no part: it is the same
    /// whether the whole link or the heartbeat connection alone is cut (the kept zombie
    /// run on 4.0.2 gave up 2010 ms after each heartbeat was sent, the interval).
    pub(crate) fn heartbeat_give_up_ms(&self) -> u64 {
        let c = &self.scenario.config;
        if self.behavior.heartbeat_timeout_is_interval {
            c.broker_heartbeat_interval_ms
        } else {
            c.broker_session_timeout_ms / 2
        }
    }

    /// When the next heartbeat goes out after one was given up
    /// (`BrokerLifecycleManager.scheduleNextCommunicationAfterFailure`): one
    /// broker.heartbeat.interval.ms later from 4.0.1 (KAFKA-19294; measured on 4.0.2, the
    /// kept zombie run: given up at 3873, 7877, 11881 and 15902 ms for heartbeats due from
    /// 1863); in 3.4–4.0.0 after `ExponentialBackoff(100, 2, broker.session.timeout.ms, 0.02)`
    /// of the failures in a row before this one (100, 200, 400 ms …; the 2 % jitter is left out).
    fn heartbeat_retry_after_failure_ms(&self, failures_before: u32) -> u64 {
        let c = &self.scenario.config;
        if self.behavior.heartbeat_timeout_is_interval {
            return c.broker_heartbeat_interval_ms;
        }
        let doubled = 100u64.checked_shl(failures_before.min(40)).unwrap_or(u64::MAX);
        doubled.min(c.broker_session_timeout_ms)
    }

    /// `BrokerLifecycleManager` after a heartbeat (or registration) was given up: the held
    /// request is dropped with its connection and the next is scheduled
    /// (`heartbeat_retry_after_failure_ms`); the heartbeat grid moves there.
    pub(crate) fn heartbeat_timed_out(&mut self, id: u32) {
        let Some((msg, _)) = self.broker_mut(id).heartbeat_rpc.take() else { return };
        self.drop_held_message(msg);
        if let Some(key) = self.broker_mut(id).heartbeat_timer.take() {
            self.cancel(key);
        }
        let failures_before = self.broker(id).heartbeat_failures;
        self.broker_mut(id).heartbeat_failures = failures_before.saturating_add(1);
        let interval = self.scenario.config.broker_heartbeat_interval_ms;
        let at = self.now + self.heartbeat_retry_after_failure_ms(failures_before);
        self.controller.heartbeat_phase[id as usize] = at % interval.max(1);
        let timer = self.set_timer(at, Timer::Heartbeat { broker: id });
        self.broker_mut(id).heartbeat_timer = Some(timer);
        self.emit(Event::HeartbeatTimedOut { broker: id, next_at: at });
    }

    /// A heartbeat (or registration) is on its way: it is given up if unanswered.
    pub(crate) fn await_heartbeat_answer(&mut self, id: u32, msg: u64) {
        let timer = self.set_timer(self.now + self.heartbeat_give_up_ms(), Timer::HeartbeatTimeout { broker: id });
        if let Some((_, old)) = self.broker_mut(id).heartbeat_rpc.replace((msg, timer)) {
            self.cancel(old);
        }
    }

    /// The answer to the heartbeat (or registration) arrived: nothing to give up.
    pub(crate) fn heartbeat_answered(&mut self, id: u32) {
        if let Some((_, timer)) = self.broker_mut(id).heartbeat_rpc.take() {
            self.cancel(timer);
        }
        self.broker_mut(id).heartbeat_failures = 0;
    }
}

// The controller's side: node functions of the controller (`outbox.rs`).

/// `KafkaRaftClient.handleFetchRequest` (4.0): a Fetch from an offset behind the
/// log's end is answered at once; one that is caught up waits for new records up to
/// `MAX_FETCH_WAIT_MS`.
pub(crate) fn handle_metadata_fetch(c: &mut Shared<Controller>, msg: &Msg, offset: u64, out: &mut Out) {
    let Node::Broker(id) = msg.from else { return };
    if offset < c.metadata_offset {
        let body = Body::MetadataFetchResponse { request: msg.id, metadata: Some(c.metadata()) };
        let sent = out.send(Node::Controller, msg.from, body);
        return out.emit(Event::MetadataFetchAnswered { broker: id, msg: sent, offset: c.metadata_offset });
    }
    park_metadata_fetch(c, id, msg.id, out.now, out);
    out.emit(Event::MetadataFetchParked { broker: id });
}

fn park_metadata_fetch(c: &mut Shared<Controller>, id: u32, request: u64, arrived: u64, out: &mut Out) {
    if let Some((_, key)) = c.parked_fetches[id as usize].take() {
        out.cancel(key);
    }
    let at = (arrived + MAX_FETCH_WAIT_MS).max(out.now);
    let key = out.set_timer(at, Timer::MetadataFetchExpiry { broker: id });
    c.parked_fetches[id as usize] = Some((request, key));
}

/// A parked Fetch reaches its wait: answered with no records.
pub(crate) fn expire_parked_metadata_fetch(c: &mut Shared<Controller>, id: u32, out: &mut Out) {
    let Some((request, _)) = c.parked_fetches[id as usize].take() else { return };
    let sent = out.send(Node::Controller, Node::Broker(id), Body::MetadataFetchResponse { request, metadata: None });
    out.emit(Event::MetadataFetchExpired { broker: id, msg: sent });
}
