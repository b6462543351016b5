//! Connections: their states, the handshake's SYN schedule, and how long an attempt
//! lasts before it is given up (by Kafka's client from 2.7, by the kernel before).
//!
//! A connection attempt that gets no answer (a direction is cut) is CONNECTING: its
//! client's requests wait on it, and TCP resends the SYN on Linux's schedule
//! ([`syn_retransmission_gap`]). The attempt ends when the handshake crosses (a heal,
//! `network.rs`), when the client closes it (a request timeout), or when it is given up
//! here ([`connection_attempt_limit_ms`]): then what waited on it was never sent, and
//! the client is told as if the connection had been refused.

use super::consumer;
use super::event::Event;
use super::follower;
use super::msg::{Body, Msg, Node};
use super::outbox::Link;
use super::producer;
use super::scheduler::{Due, Key, Rng, Timer, PROTOCOL};
use super::shared::Shared;
use super::vecmap::VecMap;
use super::Sim;
use crate::scenario::{Channel, ConnectionSetup};

/// A connection's state, as its client (the requester) sees it; absent means open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conn {
    /// Closed by the client (request timeout) or reset by the peer: the next request reconnects.
    Closed,
    /// A handshake sent `since`, not answered: a direction is cut. `failures`: attempts given
    /// up in a row before this one; `gives_up`: the timer that ends it (`connect.rs`), none
    /// on a connection to the controller.
    Connecting { since: u64, failures: u8, gives_up: Option<Key> },
    /// Closed: its client gave `failures` attempts in a row up (`connect.rs`).
    GivenUp { failures: u8 },
    /// A heal lets the attempt's handshake cross on its SYN at `at`: until then the
    /// connection is still CONNECTING (`ClusterConnectionStates`), so a request sent
    /// meanwhile goes out on that SYN; from `at` it is open.
    Crossing { at: u64 },
}

impl Conn {
    /// When the handshake crosses, if a heal has let it and it has not by `now`.
    pub fn crosses_after(self, now: u64) -> Option<u64> {
        match self {
            Conn::Crossing { at } if at > now => Some(at),
            _ => None,
        }
    }

    /// The connection as its client's rules see it at `now` (`outbox::Link`).
    pub(crate) fn link(self, now: u64) -> Link {
        match self {
            Conn::Crossing { at } if at <= now => Link::Open,
            Conn::Crossing { at } => Link::Connecting { crosses_at: Some(at) },
            Conn::Connecting { .. } => Link::Connecting { crosses_at: None },
            Conn::Closed | Conn::GivenUp { .. } => Link::Closed,
        }
    }

    /// The attempts given up in a row so far.
    pub fn failures(self) -> u8 {
        match self {
            Conn::Closed | Conn::Crossing { .. } => 0,
            Conn::Connecting { failures, .. } | Conn::GivenUp { failures } => failures,
        }
    }
}

/// The connection a message travels on: (the requester, the one it asks).
pub fn conn_of(from: Node, to: Node, body: &Body) -> (Node, Node) {
    if body.is_request() {
        (from, to)
    } else {
        (to, from)
    }
}

/// The connection between a KRaft broker and the controller a message travels on
/// (`partition.channel`); None for every other message.
pub fn channel_of(body: &Body) -> Option<Channel> {
    match body {
        Body::AlterPartition { .. } | Body::AlterPartitionResponse { .. } => Some(Channel::AlterPartition),
        Body::BrokerRegistration { .. }
        | Body::BrokerRegistrationResponse { .. }
        | Body::BrokerHeartbeat { .. }
        | Body::BrokerHeartbeatResponse { .. } => Some(Channel::Heartbeat),
        Body::MetadataFetch { .. } | Body::MetadataFetchResponse { .. } => Some(Channel::Metadata),
        _ => None,
    }
}

/// When a held message goes out again after a heal at `now`: the first of TCP's
/// retransmissions that is not before `now`. Data: `since` + 200, + 400, + 800 … ms
/// (`TCP_RTO_MIN`, doubling; each gap at most `TCP_RTO_MAX`, 120 s). A handshake:
/// [`syn_retransmission_gap`]. Not modelled: Linux's RTO is the connection's smoothed RTT
/// plus a variance floored at `TCP_RTO_MIN` (204–216 ms measured on the oracle's loopback
/// under load), an offset every doubling carries (docs/exactness.md, F10).
pub fn retransmission_at(since: u64, connect: bool, now: u64) -> u64 {
    let gap_after = |n: u32| if connect { syn_retransmission_gap(n) } else { (200u64 << n.min(10)).min(120_000) };
    let mut n = 0;
    let mut at = since + gap_after(0);
    while at < now {
        n += 1;
        at += gap_after(n);
    }
    at
}

/// The gap before a connecting socket's SYN retransmission `n + 1` (0: the first).
/// Linux's `tcp_retransmit_timer` (net/ipv4/tcp_timer.c, since Linux 6.5): while a socket
/// is in SYN_SENT and has retransmitted at most `net.ipv4.tcp_syn_linear_timeouts` (4 by
/// default) times, the RTO stays at `TCP_TIMEOUT_INIT` (1 s); after that it doubles, up to
/// `TCP_RTO_MAX`. So the SYNs go out at 0, 1, 2, 3, 4, 5, 7, 11, 19 … s. A one-way cut
/// that drops the listener's SYN-ACK is crossed at the first of these after the heal:
/// the oracle's producer in `fault-duplicates-without-idempotence` connected 190 ms after a
/// heal at 6 s, on the SYN of 6164 ms for a connect at 4164 (docs/exactness.md, F9). How
/// long an attempt lasts before its client or the kernel gives it up and a new one starts
/// (on a new schedule): [`connection_attempt_limit_ms`].
pub fn syn_retransmission_gap(n: u32) -> u64 {
    const LINEAR: u32 = 4;
    if n <= LINEAR {
        1_000
    } else {
        (1_000u64 << (n - LINEAR).min(7)).min(120_000)
    }
}

/// Linux's `tcp_write_timeout` (net/ipv4/tcp_timer.c, since Linux 6.5): a SYN_SENT socket
/// is given up, ETIMEDOUT, when the timer after its last allowed retransmission fires;
/// `net.ipv4.tcp_syn_retries` (6) plus `tcp_syn_linear_timeouts` (4) retransmissions, so 11
/// SYNs (0, 1, 2, 3, 4, 5, 7, 11, 19, 35, 67 s) and the end at 131 s. Measured on this
/// machine's Linux 6.18 (a connect into a full accept queue in a network namespace,
/// 2026-12-07): 11 SYNs, the last at 68.8 s, ETIMEDOUT after 134.4 s (the kernel's
/// timers fire late by up to an eighth of a long timeout; the model keeps the nominal schedule).
pub fn kernel_gives_up_after_ms() -> u64 {
    const SYN_RETRIES: u32 = 6 + 4;
    (0..=SYN_RETRIES).map(syn_retransmission_gap).sum()
}

/// socket.connection.setup.timeout.ms and its .max.ms: Kafka's defaults from 2.8 (10 s, 30 s;
/// `CommonClientConfigs`, the same at 3.7.0, 4.0.0 and 4.1.0; 2.7.x's maximum was 127 s).
pub const SETUP_TIMEOUT_MS: u64 = 10_000;
pub const SETUP_TIMEOUT_MAX_MS: u64 = 30_000;

/// How long a connection attempt lasts before it is given up, after `failures` attempts
/// given up in a row. From 2.7 (KIP-601) the client gives it up:
/// `NetworkClient.handleTimedOutConnections` closes a node CONNECTING longer than its
/// `ClusterConnectionStates` setup timeout, socket.connection.setup.timeout.ms doubled per
/// consecutive failure up to socket.connection.setup.timeout.max.ms (10, 20, 30 s), times a
/// factor drawn in [0.8, 1.2] (`ExponentialBackoff`, drawn here from the run's seed); from
/// 3.7 (KIP-580) the drawn value is capped at the maximum, before it may reach 36 s. The
/// broker's replica fetcher (`ReplicaFetcherBlockingSend`, `BrokerBlockingSender` from 3.5)
/// builds its `NetworkClient` with the same settings (`KafkaConfig`). Before 2.7 nothing in
/// the client times a connection attempt out: the kernel does ([`kernel_gives_up_after_ms`]).
pub fn connection_attempt_limit_ms(rule: ConnectionSetup, failures: u8, rng: &mut Rng) -> u64 {
    let term = (SETUP_TIMEOUT_MS << failures.min(2)).min(SETUP_TIMEOUT_MAX_MS);
    match rule {
        ConnectionSetup::Kernel => kernel_gives_up_after_ms(),
        ConnectionSetup::SetupTimeout => term * (800 + rng.upto(400)) / 1_000,
        ConnectionSetup::SetupTimeoutCapped => (term * (800 + rng.upto(400)) / 1_000).min(SETUP_TIMEOUT_MAX_MS),
    }
}

/// The longest [`connection_attempt_limit_ms`] can be: what a client waiting on the
/// attempt allows it before its own request timer may end it.
pub fn longest_attempt_ms(rule: ConnectionSetup, failures: u8) -> u64 {
    let term = (SETUP_TIMEOUT_MS << failures.min(2)).min(SETUP_TIMEOUT_MAX_MS);
    match rule {
        ConnectionSetup::Kernel => kernel_gives_up_after_ms(),
        ConnectionSetup::SetupTimeout => term * 12 / 10,
        ConnectionSetup::SetupTimeoutCapped => (term * 12 / 10).min(SETUP_TIMEOUT_MAX_MS),
    }
}

/// A connection `client` → `server` closes; `established`: it was open (its handshake
/// had crossed), not an attempt under way or given up. With `channel`, only that one of a
/// broker's connections to the controller. What a heal released for a retransmission that
/// has not come, and what TCP still holds, is dropped, except what
/// [`stays_with_the_orphan`]: that stays in flight on the connection's schedule, and every
/// request on the connection is marked in `orphans` (its answer has nowhere to go).
/// Requests already orphaned by an earlier close are left as they are. Returns the
/// deliveries to take out of the queue. Every close goes through here
/// (`WireOf::close_conn`, `WireOf::close_metadata_connection`,
/// `Sim::connection_attempt_expired`).
pub(crate) fn drop_unsent_on(
    in_flight: &mut VecMap<u64, (Shared<Msg>, Key)>,
    orphans: &mut VecMap<u64, Node>,
    (client, server): (Node, Node),
    channel: Option<Channel>,
    established: bool,
) -> Vec<Key> {
    let on = |m: &Msg| conn_of(m.from, m.to, &m.body) == (client, server) && (channel.is_none() || channel_of(&m.body) == channel);
    let ids: Vec<u64> = in_flight.iter().filter(|(id, (m, _))| on(m) && !orphans.contains_key(id)).map(|(id, _)| *id).collect();
    let mut scheduled = Vec::new();
    for id in ids {
        let Some((m, _)) = in_flight.get(&id) else { continue };
        if stays_with_the_orphan(m, established) {
            orphans.insert(id, server);
        } else if m.held.is_some() || m.resent_ms.is_some() {
            if let Some((m, key)) = in_flight.remove(&id) {
                if m.held.is_none() {
                    scheduled.push(key);
                }
            }
        }
    }
    scheduled
}

/// Whether a request outlives its client's close of its connection. Kafka's clients close
/// a connection with `Selector.close` → `KafkaChannel.close` →
/// `PlaintextTransportLayer.close`, the socket's plain `close()`: clients and broker set no
/// `SO_LINGER` (read at 0.10.2.2, 2.4.0, 2.8.0, 3.7.0 and trunk before 4.0), so Linux's
/// `tcp_close` keeps the socket as an *orphan*, its FIN queued behind the data not yet
/// acknowledged, which TCP goes on retransmitting on the connection's own schedule
/// ([`retransmission_at`]) until the peer acknowledges it or the orphan gives up
/// ([`orphan_gives_up_at`]). The broker handles a request that arrived whole before the
/// EOF: its `Selector` closes such a channel gracefully and keeps it among its
/// `closingChannels` until the receive is processed (staged receives up to 2.4,
/// `maybeReadFromClosingChannel` from 2.5); the answer goes to a dead socket
/// (`SocketServer`'s "no open connection"). Measured on this machine's Linux 6.18 (a cut client→server, 15 bytes written,
/// then `close()`): closed at 3 s and healed at 10 s, the bytes arrived at 13.1 s; closed at
/// 30 s and healed at 40 s, at 52.6 s; healed at 70 or 120 s, never. Connections to a
/// broker only: the model keeps the controller's (the raft client's Fetch, the heartbeat
/// and AlterPartition channels) as before, closed with their bytes (docs/exactness.md).
/// A connection not established (an attempt whose handshake never crossed) sent nothing;
/// an answer the broker sends back is refused by the client's kernel.
fn stays_with_the_orphan(m: &Msg, established: bool) -> bool {
    established && m.body.is_request() && matches!(m.to, Node::Broker(_))
}

/// When an orphaned connection's retransmissions stop: its last retransmission is the
/// one before this. Linux's `tcp_write_timeout` (net/ipv4/tcp_timer.c) on an orphan
/// (`SOCK_DEAD`): `tcp_orphan_retries` makes `net.ipv4.tcp_orphan_retries` = 0 (the
/// default) 8 retries, and `retransmits_timed_out` turns them into a time budget on the
/// doubling schedule from `TCP_RTO_MIN`, ((2 << 8) − 1) × 200 ms = 102.2 s, counted from
/// the first retransmission (`retrans_stamp`). The kernel's RTO sits a little above
/// `TCP_RTO_MIN` (the smoothed RTT added), so its 9th retransmission falls just past the
/// budget and the 8th, 51 s after the first send, is the last (measured above: 52.6 s
/// arrived, 70 s never). The model's RTO is exactly 200 ms: it counts the budget from the
/// first send (`since`), which ends it at the 9th.
pub fn orphan_gives_up_at(since: u64) -> u64 {
    const ORPHAN_RETRIES: u32 = 8;
    since + ((2u64 << ORPHAN_RETRIES) - 1) * 200
}

/// When the last request or answer a heal released on `from → to` arrives (0 if none):
/// TCP hands a connection's bytes over in order, so a request or an answer sent on it later
/// arrives behind that, not before (one left to a closed connection's orphan is on another
/// connection). ZooKeeper's watches keep their own schedules (not modelled as one stream).
pub(crate) fn queued_behind(
    in_flight: &VecMap<u64, (Shared<Msg>, Key)>,
    orphans: &VecMap<u64, Node>,
    (from, to): (Node, Node),
    body: &Body,
) -> u64 {
    let exchange = |b: &Body| b.is_request() || b.answers().is_some();
    if !exchange(body) {
        return 0;
    }
    let released = |m: &Msg| m.held.is_none() && m.resent_ms.is_some() && !orphans.contains_key(&m.id) && exchange(&m.body);
    let on = |m: &Msg| m.from == from && m.to == to && channel_of(&m.body) == channel_of(body);
    in_flight.values().filter(|(m, _)| on(m) && released(m)).map(|(m, _)| m.arrive_ms).max().unwrap_or(0)
}

/// Request `id`, if it never left (held on its connection, or due on a handshake's SYN after
/// `now`), is taken off the wire; returns its delivery, to cancel, if one was due.
pub(crate) fn drop_unsent_request(in_flight: &mut VecMap<u64, (Shared<Msg>, Key)>, id: u64, now: u64) -> Option<Key> {
    let unsent = in_flight.get(&id).is_some_and(|(m, _)| m.held.is_some() || m.resent_ms.is_some_and(|at| at > now));
    let (m, key) = in_flight.remove(&id).filter(|_| unsent)?;
    m.held.is_none().then_some(key)
}

impl Sim {
    /// A request reaches its broker from a connection its client had closed: the broker
    /// handles it as any other (`drop_unsent_on`), and it is told in the step. An acks=0
    /// write expects no answer: nothing is left to lose.
    pub(crate) fn orphan_arrives(&mut self, msg: &Msg) {
        let Node::Broker(broker) = msg.to else { return };
        if !self.net.orphans.contains_key(&msg.id) {
            return;
        }
        if matches!(msg.body, Body::Produce { acks: crate::scenario::Acks::Zero, .. }) {
            self.net.orphans.remove(&msg.id);
        }
        self.emit(Event::OrphanArrived { client: msg.from, broker, sent_ms: msg.sent_ms });
    }

    /// A request finds its connection closed and a direction cut: a new attempt starts,
    /// with the timer that gives it up. Connections to the controller get none: the
    /// broker's channels give their requests up (and reset) within seconds
    /// (`metadata_fetch.rs`, `heartbeat.rs`), long before any of these limits.
    pub(crate) fn start_connection_attempt(&mut self, client: Node, server: Node, failures: u8) {
        let gives_up = match (client, server) {
            (Node::Producer(_) | Node::Consumer(_) | Node::Broker(_), Node::Broker(broker)) => {
                let limit = connection_attempt_limit_ms(self.behavior.connection_setup, failures, &mut self.rng);
                let key = (self.now + limit, PROTOCOL, self.sched.reserve());
                self.sched.insert(key, Due::Timer(Timer::ConnectionSetupTimeout { client, broker }));
                Some(key)
            }
            _ => None,
        };
        let _ = self.net.set_conn(client, server, Some(Conn::Connecting { since: self.now, failures, gives_up }));
    }

    /// Sets a connection's state; an attempt this ends loses its timer.
    pub(crate) fn set_conn(&mut self, client: Node, server: Node, state: Option<Conn>) {
        if let Some(key) = self.net.set_conn(client, server, state) {
            self.sched.cancel(key);
        }
    }

    /// A heal lets an attempt's handshake cross on its SYN at `at`: the connection is made
    /// then, and the requests that waited on it go out, their request timeouts running from
    /// `at` (`Out::restart_request_timeout`). Connections to the controller are left as
    /// they are: the broker's channels give a request up counting from when it was made,
    /// sent or not (`NodeToControllerRequestThread`'s retry timeout, the raft client's
    /// request timeout through `InterBrokerSendThread`'s unsent queue; read at 3.7.0 and 4.0.0).
    pub(crate) fn connection_made(&mut self, client: Node, server: Node, at: u64) {
        let Node::Broker(broker) = server else { return };
        match client {
            Node::Broker(id) => self.broker_rule(id, |b, out| follower::fetcher_connection_made(b, broker, at, out)),
            Node::Producer(id) => self.producer_rule(id, |p, out| producer::on_connection_made(p, id, broker, at, out)),
            Node::Consumer(c) => self.consumer_rule(c, |n, out| consumer::on_connection_made(n, c, broker, at, out)),
            Node::Controller | Node::ZooKeeper => {}
        }
    }

    /// The attempt's limit ([`connection_attempt_limit_ms`]) is reached with no answer:
    /// the connection is closed, what waited on it was never sent, and its client is told
    /// as of a refused connection (`processDisconnection`: the node is disconnected, in
    /// reconnect.backoff.ms, and metadata is wanted; a replica fetcher's `awaitReady`
    /// fails and the fetcher backs off replica.fetch.backoff.ms).
    pub(crate) fn connection_attempt_expired(&mut self, client: Node, broker: u32) {
        let server = Node::Broker(broker);
        let Some(Conn::Connecting { since, failures, .. }) = self.net.conn(client, server) else { return };
        for key in drop_unsent_on(&mut self.in_flight, &mut self.net.orphans, (client, server), None, false) {
            self.sched.cancel(key);
        }
        let by_kernel = self.behavior.connection_setup == ConnectionSetup::Kernel;
        let state = if by_kernel { Conn::Closed } else { Conn::GivenUp { failures: failures.saturating_add(1) } };
        let _ = self.net.set_conn(client, server, Some(state));
        self.emit(Event::ConnectionAttemptGivenUp { client, broker, after_ms: self.now - since, failures, by_kernel });
        match client {
            Node::Broker(id) => self.broker_rule(id, |b, out| follower::follower_connection_reset(b, broker, out)),
            Node::Producer(id) => self.producer_rule(id, |p, out| producer::on_connection_reset(p, id, broker, true, out)),
            Node::Consumer(c) => self.consumer_rule(c, |n, out| consumer::on_connection_reset(n, c, broker, out)),
            Node::Controller | Node::ZooKeeper => {}
        }
    }
}
