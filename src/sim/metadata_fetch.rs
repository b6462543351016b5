//! KRaft: how metadata reaches a broker. Each broker fetches the metadata log from
//! the active controller in a loop of its own (its raft client as an observer), and
//! learns a partition change or a fence when that fetch is answered.
//! Kafka (4.0): `KafkaRaftClient.pollFollowerAsObserver`, `KafkaRaftClient.handleFetchRequest`,
//! `QuorumConfig` (controller.quorum.*).
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
use super::role;
use super::scheduler::Timer;
use super::shared::Shared;
use super::state::{Broker, Controller, MetadataFetch};
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
            // An observer is answered registered or not (`acts_on_image_before_registration`).
            if Some(id) == skip || !b.alive || (b.broker_epoch.is_none() && !self.acts_on_image_before_registration()) {
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

    /// The answer to a Fetch reaches broker `id` (`handle_metadata_fetch_response`); a new
    /// incarnation's first, empty answer comes with the image it loaded, which the model
    /// takes from the controller's log (its own log was the controller's).
    pub(crate) fn metadata_fetch_answered(&mut self, msg: &Msg, request: u64, meta: Option<&Metadata>) {
        let Node::Broker(id) = msg.to else { return };
        let image = (meta.is_none() && self.publishes_loaded_image(id)).then(|| self.controller.metadata());
        self.broker_rule(id, |b, out| handle_metadata_fetch_response(b, request, meta, image.as_ref(), out));
    }

    /// The broker's fetch timer (`metadata_fetch_timer`); a Fetch given up with its
    /// connection no longer waits at the controller (`connection_closed`).
    pub(crate) fn metadata_fetch_due(&mut self, id: u32) {
        if self.broker_rule(id, metadata_fetch_timer) {
            self.controller_rule(|c, out| connection_closed(c, id, out));
        }
    }

    /// A broker stops (a crash): its fetch loop and the Fetch parked for it end.
    pub(crate) fn stop_metadata_fetch(&mut self, id: u32) {
        self.broker_rule(id, stop_fetching);
        self.controller_rule(|c, out| connection_closed(c, id, out));
    }

    /// A new incarnation starts its fetch loop (KRaft) with a Fetch from the end of the
    /// metadata log it kept on disk: answered at once if the controller's log is longer,
    /// else parked up to `MAX_FETCH_WAIT_MS`; either answer tells it the high watermark,
    /// and its loader publishes (`acts_on_image_before_registration`). Then the idle long
    /// poll, or across a cut a Fetch that waits.
    pub(crate) fn start_metadata_fetch(&mut self, id: u32) {
        if self.fetches_metadata() {
            self.broker_rule(id, send_metadata_fetch);
        }
    }
}

// The broker's side: node functions of the broker (`outbox.rs`).

/// Whether the broker's link to the controller is cut for the metadata log, either way.
fn controller_link_cut(id: u32, out: &Out) -> bool {
    let (me, metadata) = (Node::Broker(id), Some(crate::scenario::Channel::Metadata));
    out.is_cut_on(me, Node::Controller, metadata) || out.is_cut_on(Node::Controller, me, metadata)
}

/// The answer to a Fetch: the records are applied (`BrokerMetadataPublisher`, then
/// `ReplicaManager.applyDelta`), and the next Fetch goes out at once — the idle long
/// poll again, or, across a cut, a request that waits. `image`: what a new incarnation
/// publishes on an empty first answer (`publishes_loaded_image`).
fn handle_metadata_fetch_response(b: &mut Shared<Broker>, request: u64, meta: Option<&Metadata>, image: Option<&Metadata>, out: &mut Out) {
    let current = match b.metadata_fetch {
        MetadataFetch::Polling { .. } => request == 0,
        MetadataFetch::Waiting { msg, timer, .. } if msg.unwrap_or(0) == request => {
            out.cancel(timer);
            true
        }
        _ => false,
    };
    if current {
        if controller_link_cut(b.id, out) {
            send_metadata_fetch(b, out);
        } else {
            b.metadata_fetch = MetadataFetch::Polling { since: out.now };
        }
    }
    match (meta, image) {
        (Some(meta), _) => learn_metadata(b, meta, out),
        // A new incarnation's first answer, empty: its own log was the controller's, and
        // knowing the high watermark it publishes the image it loaded.
        (None, Some(image)) => role::apply_metadata(b, image, out),
        (None, None) => out.emit(Event::MetadataFetchEmpty { broker: b.id }),
    }
}

/// Metadata that reached a broker (a KRaft fetch answer; LeaderAndIsr before). A
/// broker that has applied newer metadata ignores it.
pub(crate) fn learn_metadata(b: &mut Shared<Broker>, meta: &Metadata, out: &mut Out) {
    // Registered or not: a new KRaft incarnation applies what it fetches
    // (`acts_on_image_before_registration`), a ZooKeeper-era broker takes LeaderAndIsr
    // as soon as it runs.
    if meta.offset <= b.metadata_offset {
        return out.emit(Event::MetadataStale { broker: b.id, epoch: meta.leader_epoch, own_epoch: b.leader_epoch });
    }
    role::apply_metadata(b, meta, out);
}

fn send_metadata_fetch(b: &mut Shared<Broker>, out: &mut Out) {
    let (id, offset) = (b.id, b.metadata_offset);
    let msg = out.send(Node::Broker(id), Node::Controller, Body::MetadataFetch { offset });
    let timer = out.set_timer(out.now + QUORUM_REQUEST_TIMEOUT_MS, Timer::MetadataFetch { broker: id });
    b.metadata_fetch = MetadataFetch::Waiting { msg: Some(msg), sent: out.now, timer };
    out.emit(Event::MetadataFetchSent { broker: id, msg });
}

/// The broker's fetch timer: a Fetch unanswered for controller.quorum.request.timeout.ms
/// is given up (`pollFollowerAsObserver`: the connection is reset, what TCP held on it
/// is gone) and the next is sent after controller.quorum.retry.backoff.ms, on a new
/// connection. Returns whether it closed the connection.
fn metadata_fetch_timer(b: &mut Shared<Broker>, out: &mut Out) -> bool {
    match b.metadata_fetch {
        MetadataFetch::Waiting { sent, .. } => {
            out.close_metadata_connection(b.id);
            let timer = out.set_timer(out.now + QUORUM_RETRY_BACKOFF_MS, Timer::MetadataFetch { broker: b.id });
            b.metadata_fetch = MetadataFetch::Backoff { timer };
            out.emit(Event::MetadataFetchTimedOut { broker: b.id, sent });
            true
        }
        MetadataFetch::Backoff { .. } => {
            send_metadata_fetch(b, out);
            false
        }
        MetadataFetch::Polling { .. } | MetadataFetch::Off => false,
    }
}

/// The fetch loop ends (a crash).
fn stop_fetching(b: &mut Shared<Broker>, out: &mut Out) {
    if let MetadataFetch::Waiting { timer, .. } | MetadataFetch::Backoff { timer } = b.metadata_fetch {
        out.cancel(timer);
    }
    if b.metadata_fetch != MetadataFetch::Off {
        b.metadata_fetch = MetadataFetch::Off;
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

/// The broker's connection for the metadata log closed: the Fetch parked for it
/// is no longer waited on.
pub(crate) fn connection_closed(c: &mut Shared<Controller>, id: u32, out: &mut Out) {
    if c.parked_fetches[id as usize].is_some() {
        if let Some((_, key)) = c.parked_fetches[id as usize].take() {
            out.cancel(key);
        }
    }
}

/// A parked Fetch reaches its wait: answered with no records.
pub(crate) fn expire_parked_metadata_fetch(c: &mut Shared<Controller>, id: u32, out: &mut Out) {
    let Some((request, _)) = c.parked_fetches[id as usize].take() else { return };
    let sent = out.send(Node::Controller, Node::Broker(id), Body::MetadataFetchResponse { request, metadata: None });
    out.emit(Event::MetadataFetchExpired { broker: id, msg: sent });
}
