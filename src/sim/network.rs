//! Links between participants: a latency per direction, cuts per direction, and what TCP does with
//! a message sent into a cut.
//!
//! Brokers, producers and consumers talk over TCP connections, each owned by the side that sends
//! requests (a follower to its leader, a client to a broker). A message sent into a cut is *held*,
//! not lost: TCP retransmits it (after 200 ms, then doubling, at most 120 s apart), so after the
//! heal it arrives at the next retransmission, together with everything queued behind it on that
//! connection (an answer queues behind the answers held there; what is sent after the heal arrives
//! behind what it released: `connect::queued_behind`). A requester that gives up (its request timeout) closes the connection: what it held
//! stays with the kernel's orphaned socket, which goes on retransmitting it for about 100 s and may
//! still deliver it after a heal (`connect::drop_unsent_on`); the broker's answer to it is lost. A
//! new connection needs both directions, its SYN retried every second five times, then after 2, 4…
//! s (Linux's RTOs: `TCP_RTO_MIN`, `TCP_TIMEOUT_INIT`, `tcp_syn_linear_timeouts`).
//!
//! Under KRaft, traffic between brokers and the controller is held the same way (each broker owns
//! its connection to the controller; its metadata fetch and heartbeats give requests up on their
//! own timeouts, `metadata_fetch.rs`). In the ZooKeeper era a message to or from the controller
//! sent into a cut is lost: the broker's own timers stand in for the retransmissions.
//!
//! A killed broker's kernel resets its connections: peers waiting on it are told at once (a `Reset`
//! one hop later), and a new connection to it is refused. A host that vanished (`crash.silent`)
//! says nothing: its peers wait for their timeouts.

pub use super::connect::{channel_of, conn_of, retransmission_at, syn_retransmission_gap, Conn};
use super::connect::{drop_unsent_on, drop_unsent_request, longest_attempt_ms, orphan_gives_up_at, queued_behind};
use super::event::Event;
use super::msg::{Body, Hold, Msg, Node};
use super::outbox::{Link, Wire};
use super::scheduler::{Due, Key, PROTOCOL};
use super::step::Command;
use super::vecmap::{VecMap, VecSet};
use super::{Part, Shared, Sim};
use crate::scenario::{Channel, ConnectionSetup, Peer, Scenario};

/// A held message's key in the scheduler: never due (it is scheduled when released).
const NEVER: u64 = u64::MAX;

/// The links' latencies: the scenario's, and the overrides naming consumers added
/// when they join.
#[derive(Debug, Clone)]
pub(crate) struct Latency {
    latency_ms: u64,
    jitter_ms: u64,
    overrides: VecMap<(Node, Node), u64>,
}

/// The parts rarely written (the latencies, the cuts) are each behind a `Part`,
/// shared by the copies of the world until a write (issue 27: a state the explorer
/// queues carries a pointer for each, not its lists).
#[derive(Debug, Clone)]
pub struct Network {
    pub(crate) latency: Part<Latency>,
    /// Read by the explorer's fingerprint (`crate::check`).
    pub(crate) cut: Part<VecSet<(Node, Node)>>,
    /// Directions cut on one of a broker's connections to the controller only
    /// (`partition.channel`): the other connections between them still carry.
    /// Read by the explorer's fingerprint (`crate::check`).
    pub(crate) channel_cut: Part<VecSet<(Node, Node, Channel)>>,
    /// (client, server) → state, for connections not simply open.
    /// Read by the explorer's fingerprint (`crate::check`).
    pub(crate) conns: VecMap<(Node, Node), Conn>,
    /// Requests whose client closed their connection (`connect::drop_unsent_on`), still on
    /// their way or not answered yet → the broker they go to: the kernel's orphaned socket
    /// may still deliver them, and their answer has nowhere to go.
    /// Read by the explorer's fingerprint (`crate::check`).
    pub(crate) orphans: VecMap<u64, Node>,
}

impl Network {
    pub fn new(s: &Scenario) -> Network {
        let mut latency = Latency { latency_ms: s.network.latency_ms, jitter_ms: s.network.jitter_ms, overrides: VecMap::new() };
        for l in &s.network.links {
            // Consumers' links are added when they join (`add_consumer_links`).
            if let (Some(a), Some(b)) = (peer_node(s, &l.from, &[]), peer_node(s, &l.to, &[])) {
                latency.overrides.insert((a, b), l.latency_ms);
            }
        }
        Network {
            latency: Part::new(latency),
            cut: Part::new(VecSet::new()),
            channel_cut: Part::new(VecSet::new()),
            conns: VecMap::new(),
            orphans: VecMap::new(),
        }
    }

    /// The latency overrides naming consumer `id`, now that it is node `node`.
    pub fn add_consumer_links(&mut self, s: &Scenario, id: &str, node: Node) {
        for l in &s.network.links {
            let named = |e: &crate::scenario::Endpoint| matches!(e, crate::scenario::Endpoint::Client(c) if c == id);
            let resolve = |e: &crate::scenario::Endpoint| if named(e) { Some(node) } else { peer_node(s, e, &[]) };
            if named(&l.from) || named(&l.to) {
                if let (Some(a), Some(b)) = (resolve(&l.from), resolve(&l.to)) {
                    self.latency.overrides.insert((a, b), l.latency_ms);
                }
            }
        }
    }

    pub fn is_cut(&self, from: Node, to: Node) -> bool {
        self.cut.contains(&(from, to))
    }

    /// Whether a message of this body from `from` to `to` is cut: the whole link is,
    /// or the one connection (channel) between a broker and the controller it travels on.
    pub fn is_cut_for(&self, from: Node, to: Node, body: &Body) -> bool {
        self.is_cut_on(from, to, channel_of(body))
    }

    /// Whether the direction is cut for traffic on `channel` (None: any connection).
    pub fn is_cut_on(&self, from: Node, to: Node, channel: Option<Channel>) -> bool {
        self.is_cut(from, to) || channel.is_some_and(|c| !self.channel_cut.is_empty() && self.channel_cut.contains(&(from, to, c)))
    }

    pub fn cut_links(&self) -> Vec<(Node, Node)> {
        self.cut.iter().copied().collect()
    }

    pub fn cut_channels(&self) -> Vec<(Node, Node, Channel)> {
        self.channel_cut.iter().copied().collect()
    }

    pub fn latency(&self, from: Node, to: Node) -> u64 {
        let l = &*self.latency;
        if l.overrides.is_empty() {
            return l.latency_ms;
        }
        l.overrides.get(&(from, to)).copied().unwrap_or(l.latency_ms)
    }

    /// Cuts or heals one direction (of one channel only, with `channel`).
    pub(crate) fn set_cut(&mut self, from: Node, to: Node, channel: Option<Channel>, cut: bool) {
        match (channel, cut) {
            (None, true) => {
                self.cut.insert((from, to));
            }
            (None, false) => {
                self.cut.remove(&(from, to));
            }
            (Some(c), true) => {
                self.channel_cut.insert((from, to, c));
            }
            (Some(c), false) => {
                self.channel_cut.remove(&(from, to, c));
            }
        }
    }

    #[inline(always)]
    pub fn conn(&self, client: Node, server: Node) -> Option<Conn> {
        if self.conns.is_empty() {
            return None;
        }
        self.conns.get(&(client, server)).copied()
    }

    /// Sets a connection's state; returns the timer of the attempt this ends, to cancel.
    pub(crate) fn set_conn(&mut self, client: Node, server: Node, state: Option<Conn>) -> Option<Key> {
        let old = match state {
            Some(s) => self.conns.insert((client, server), s),
            None => self.conns.remove(&(client, server)),
        };
        match old {
            Some(Conn::Connecting { gives_up, .. }) if state.is_none_or(|s| !matches!(s, Conn::Connecting { .. })) => gives_up,
            _ => None,
        }
    }

    /// Whether a request from `client` to `server` at `now` would wait for a new connection
    /// (closed and a direction cut, or still connecting: also one whose handshake crosses
    /// after `now`). Between brokers and clients, where channels do not apply.
    pub fn would_wait_for_connection(&self, client: Node, server: Node, now: u64) -> bool {
        match self.conn(client, server) {
            None => false,
            Some(Conn::Connecting { .. }) => true,
            Some(Conn::Crossing { at }) => at > now,
            Some(Conn::Closed | Conn::GivenUp { .. }) => self.is_cut(client, server) || self.is_cut(server, client),
        }
    }
}

/// A scenario endpoint as a node, if it exists yet (a consumer only once it joined;
/// `consumers` lists the ids of those that have, in order).
pub fn peer_node(s: &Scenario, e: &crate::scenario::Endpoint, consumers: &[String]) -> Option<Node> {
    use crate::scenario::Endpoint;
    match e {
        Endpoint::Broker(b) => Some(Node::Broker(*b)),
        Endpoint::Controller => Some(Node::Controller),
        Endpoint::ZooKeeper => Some(Node::ZooKeeper),
        Endpoint::Client(id) => {
            s.producer_index(id).map(Node::Producer).or_else(|| consumers.iter().position(|c| c == id).map(Node::Consumer))
        }
    }
}

/// Messages a cut loses rather than holds: in the ZooKeeper era the controller's (its
/// senders' timers resend; under KRaft TCP holds them as any other), and a ZooKeeper client's pings and their answers (the client pings
/// again; ZooKeeper times the session out on what reaches it). The controller's
/// watch notifications are held, as the controller's own session delivers them
/// after the link heals (its session expiring in a long cut is not modelled).
fn is_lost_in_a_cut(from: Node, to: Node, body: &Body, zookeeper_era: bool) -> bool {
    let controller = (from == Node::Controller || to == Node::Controller) && zookeeper_era;
    let zookeeper = from == Node::ZooKeeper || to == Node::ZooKeeper;
    (controller || zookeeper) && !matches!(body, Body::ZkWatch { .. })
}

impl Sim {
    /// Decides to send a message: it gets its id now and goes on the wire when the
    /// step's commands are applied. Returns the id.
    pub(crate) fn send(&mut self, from: Node, to: Node, body: Body) -> u64 {
        let id = self.next_msg;
        self.next_msg += 1;
        let seq = self.sched.reserve();
        self.push_command(Command::Send { id, seq, from, to, body });
        id
    }

    /// The node a scenario's endpoint names now (None: a consumer that has not joined).
    pub(crate) fn node_of(&self, p: &Peer) -> Option<Node> {
        match p {
            Peer::Broker(b) => Some(Node::Broker(*b)),
            Peer::Controller => Some(Node::Controller),
            Peer::ZooKeeper => Some(Node::ZooKeeper),
            Peer::Producer(i) => Some(Node::Producer(*i)),
            Peer::Consumer(id) => self.consumers.iter().position(|c| &c.spec.id == id).map(Node::Consumer),
        }
    }

    fn is_dead(&self, node: Node) -> bool {
        matches!(node, Node::Broker(b) if !self.broker(b).alive)
    }

    /// Puts a message on the wire, holds it (a cut data link, or a connection not yet
    /// made), or loses it (a cut controller link, a connection its client closed, a
    /// dead receiver; a killed broker refuses a request with a reset).
    pub(crate) fn transmit(&mut self, id: u64, seq: u64, from: Node, to: Node, body: Body) {
        let controller_link = is_lost_in_a_cut(from, to, &body, self.zookeeper());
        let (client, server) = conn_of(from, to, &body);
        let request = from == client;
        if self.is_dead(to) || (request && self.listeners_closed(to)) {
            self.last.lists().lost.push(id);
            let refuses = matches!(to, Node::Broker(b) if self.refuses_connections(b));
            if request && refuses && !controller_link && !self.net.is_cut_for(to, from, &body) && !self.net.is_cut_for(from, to, &body) {
                // The SYN or the data reaches the host, whose kernel answers with a reset.
                self.set_conn(client, server, Some(Conn::Closed));
                let back = self.next_msg;
                self.next_msg += 1;
                let arrive_ms = self.now + self.net.latency(from, to) + self.net.latency(to, from);
                let seq = self.sched.reserve();
                self.put_on_wire(back, seq, to, from, Body::Reset { refused: true }, arrive_ms);
            }
            return;
        }
        if controller_link || matches!(body, Body::Reset { .. }) {
            if self.net.is_cut_for(from, to, &body) {
                self.last.lists().lost.push(id);
            } else {
                self.deliver_later(id, seq, from, to, body);
            }
            return;
        }
        let mut state = self.conn_for(client, server, &body);
        // A handshake that has crossed: the connection is open.
        if matches!(state, Some(Conn::Crossing { at }) if at <= self.now) {
            (state, _) = (None, self.net.set_conn(client, server, None));
        }
        let cut = self.net.is_cut_for(from, to, &body);
        let cut_back = self.net.is_cut_for(to, from, &body);
        if !request {
            // An answer on a connection its client closed has nowhere to go.
            let orphaned = body.answers().is_some_and(|r| self.net.orphans.remove(&r).is_some());
            if state.is_some() || orphaned {
                self.last.lists().lost_on_a_closed_connection(id);
            } else if cut {
                let since = body.answers().and_then(|_| self.held_since(from, to, channel_of(&body))).unwrap_or(self.now);
                self.hold(id, from, to, body, Hold { since, connect: false });
            } else {
                self.deliver_later(id, seq, from, to, body);
            }
            return;
        }
        match state {
            Some(Conn::Connecting { since, .. }) => self.hold(id, from, to, body, Hold { since, connect: true }),
            // Still connecting: it goes out on the SYN the handshake crosses on.
            Some(Conn::Crossing { at }) => {
                self.put_on_wire(id, seq, from, to, body, at + self.net.latency(from, to));
                if let Some((m, _)) = self.in_flight.get_mut(&id) {
                    m.resent_ms = Some(at);
                }
                self.last.lists().sent.push(id);
            }
            Some(closed) if cut || cut_back => {
                self.start_connection_attempt(client, server, closed.failures());
                self.hold(id, from, to, body, Hold { since: self.now, connect: true });
            }
            Some(_) => {
                self.net.set_conn(client, server, None);
                self.deliver_later(id, seq, from, to, body);
            }
            None if cut => {
                // Queued behind what is already held on this connection.
                let channel = if self.net.is_cut(from, to) { None } else { channel_of(&body) };
                let since = self.held_since(from, to, channel).unwrap_or(self.now);
                self.hold(id, from, to, body, Hold { since, connect: false });
            }
            None => self.deliver_later(id, seq, from, to, body),
        }
    }

    /// The state of the connection a message travels on. Between a broker and the
    /// controller, the state kept is the metadata fetch's connection (the one given up and
    /// reopened, `close_metadata_connection`); while one channel of that pair is cut on its
    /// own, the heartbeat and AlterPartition connections are taken as open.
    fn conn_for(&self, client: Node, server: Node, body: &Body) -> Option<Conn> {
        let state = self.net.conn(client, server);
        if state.is_none() || self.net.channel_cut.is_empty() {
            return state;
        }
        let pair_has_channel_cut = self.net.channel_cut.iter().any(|&(a, b, _)| (a, b) == (client, server) || (b, a) == (client, server));
        match channel_of(body) {
            Some(c)
                if c != Channel::Metadata
                    && pair_has_channel_cut
                    && !self.net.is_cut(client, server)
                    && !self.net.is_cut(server, client) =>
            {
                None
            }
            _ => state,
        }
    }

    fn deliver_later(&mut self, id: u64, seq: u64, from: Node, to: Node, body: Body) {
        let jitter = self.rng.upto(self.net.latency.jitter_ms);
        let behind = queued_behind(&self.in_flight, &self.net.orphans, (from, to), &body);
        let arrive_ms = (self.now + self.net.latency(from, to) + jitter).max(behind);
        self.put_on_wire(id, seq, from, to, body, arrive_ms);
        self.last.lists().sent.push(id);
    }

    fn put_on_wire(&mut self, id: u64, seq: u64, from: Node, to: Node, body: Body, arrive_ms: u64) {
        let sent_ms = self.now;
        let key = (arrive_ms, PROTOCOL, seq);
        self.sched.insert(key, Due::Deliver(id));
        self.in_flight.insert_last(id, (Shared::new(Msg { id, from, to, sent_ms, arrive_ms, body, held: None, resent_ms: None }), key));
    }

    fn hold(&mut self, id: u64, from: Node, to: Node, body: Body, hold: Hold) {
        let arrive_ms = retransmission_at(hold.since, hold.connect, self.now + 1) + self.net.latency(from, to);
        let key = (NEVER, PROTOCOL, id);
        self.in_flight
            .insert(id, (Shared::new(Msg { id, from, to, sent_ms: self.now, arrive_ms, body, held: Some(hold), resent_ms: None }), key));
        self.last.lists().sent.push(id);
        self.last.lists().held.push(id);
    }

    /// When the oldest message held on this direction was first sent (on the open
    /// connection: not what a closed one left to its orphan).
    /// With `channel`, on that connection between a broker and the controller only.
    fn held_since(&self, from: Node, to: Node, channel: Option<Channel>) -> Option<u64> {
        self.in_flight
            .values()
            .filter(|(m, _)| m.from == from && m.to == to && (channel.is_none() || channel_of(&m.body) == channel))
            .filter(|(m, _)| !self.net.orphans.contains_key(&m.id))
            .filter_map(|(m, _)| m.held)
            .map(|h| h.since)
            .min()
    }

    /// Drops every message on its way to `node` (a crash loses its pending requests),
    /// and every message held to or from it.
    pub(crate) fn drop_messages_to(&mut self, node: Node) {
        let ids: Vec<u64> =
            self.in_flight.iter().filter(|(_, (m, _))| m.to == node || (m.from == node && m.held.is_some())).map(|(id, _)| *id).collect();
        for id in &ids {
            if let Some((_, key)) = self.in_flight.remove(id) {
                self.sched.cancel(key);
            }
        }
        self.net.orphans.retain(|id, server| *server != node && !ids.contains(id));
    }

    /// A killed broker's connections are reset; with `resets`, every peer `waiting`
    /// names is told (a `Reset` one hop later, unless that way is cut).
    pub(crate) fn reset_connections(&mut self, broker: u32, waiting: &[Node]) {
        let node = Node::Broker(broker);
        let peers: Vec<(Node, Node)> = self.net.conns.iter().map(|(k, _)| *k).filter(|(c, s)| *c == node || *s == node).collect();
        for (c, s) in peers {
            self.set_conn(c, s, None);
        }
        for &peer in waiting {
            self.set_conn(peer, node, Some(Conn::Closed));
            if !self.net.is_cut(node, peer) {
                self.send(node, peer, Body::Reset { refused: false });
            }
        }
    }

    /// A cut: data messages sent across it from now on are held; controller traffic is lost.
    /// With `channel`, only that connection between a broker and the controller.
    pub(crate) fn cut(&mut self, links: &[(Peer, Peer)], channel: Option<Channel>) {
        let Some((from, to)) = self.resolve_links(links) else {
            return self.emit(Event::LinkEndpointMissing);
        };
        self.emit(Event::LinksCut { from, to, both_ways: links.len() == 2, channel });
        self.catch_idle_metadata_fetches();
    }

    /// A cut strikes while messages are on the wire across it: those named (by id)
    /// are caught instead of arriving. A caught data message is resent by TCP (it is
    /// held as if sent into the cut when it was sent, `tcp_retransmit_timer`); a
    /// caught controller message is lost (its sender's own timers resend).
    /// Ids that are not on the wire across a cut link are ignored.
    pub(crate) fn catch_in_flight(&mut self, ids: &[u64]) {
        for &id in ids {
            let Some((m, key)) = self.in_flight.get(&id) else { continue };
            if m.held.is_some() || !self.net.is_cut_for(m.from, m.to, &m.body) {
                continue;
            }
            let (key, from, to, sent_ms) = (*key, m.from, m.to, m.sent_ms);
            self.sched.cancel(key);
            if is_lost_in_a_cut(from, to, &m.body, self.zookeeper()) || matches!(m.body, Body::Reset { .. }) {
                self.in_flight.remove(&id);
                self.last.lists().lost.push(id);
                continue;
            }
            let hold = Hold { since: sent_ms, connect: false };
            let arrive_ms = retransmission_at(sent_ms, false, self.now + 1) + self.net.latency(from, to);
            if let Some((m, k)) = self.in_flight.get_mut(&id) {
                m.held = Some(hold);
                m.arrive_ms = arrive_ms;
                *k = (NEVER, PROTOCOL, id);
            }
            self.last.lists().held.push(id);
        }
    }

    /// A heal: messages cross again; what TCP held goes out at its next retransmission.
    pub(crate) fn heal(&mut self, links: &[(Peer, Peer)], channel: Option<Channel>) {
        let Some((from, to)) = self.resolve_links(links) else {
            return self.emit(Event::LinkEndpointMissing);
        };
        self.emit(Event::LinksHealed { from, to, both_ways: links.len() == 2, channel });
        let (released, made, late, orphans_gone) = self.release_held();
        if released > 0 || late > 0 || orphans_gone > 0 {
            self.emit(Event::HeldReleased { count: released, handshakes: made.len(), late, orphans_gone });
        }
        let mut told: Vec<(Node, Node)> = Vec::new();
        for (client, server, at) in made {
            if !told.contains(&(client, server)) {
                told.push((client, server));
                self.connection_made(client, server, at);
            }
        }
    }

    fn resolve_links(&self, links: &[(Peer, Peer)]) -> Option<(Node, Node)> {
        let (a, b) = links.first()?;
        Some((self.node_of(a)?, self.node_of(b)?))
    }

    /// Held messages whose way is open again are scheduled at their connection's next
    /// retransmission (the oldest held message's schedule: TCP resends in order; a
    /// closed connection's orphan keeps its own). Returns how many messages, the
    /// handshake each one that waited on a connection crosses on (client, server, the
    /// SYN's time), how many stay held because their attempt is given up before its next
    /// SYN, and how many an orphan had given up before its next retransmission (gone).
    fn release_held(&mut self) -> (usize, Vec<(Node, Node, u64)>, usize, usize) {
        type HeldMsg = (u64, Node, Node, Hold, (Node, Node), Option<Channel>);
        let held: Vec<HeldMsg> = self
            .in_flight
            .values()
            .filter_map(|(m, _)| m.held.map(|h| (m.id, m.from, m.to, h, conn_of(m.from, m.to, &m.body), channel_of(&m.body))))
            .collect();
        let (mut released, mut handshakes, mut late, mut gone) = (0, Vec::new(), 0, 0);
        for (id, from, to, hold, (client, server), channel) in held {
            let open = !(self.net.is_cut_on(from, to, channel) || hold.connect && self.net.is_cut_on(to, from, channel));
            if !open {
                continue;
            }
            let orphan = self.net.orphans.contains_key(&id);
            let oldest = held_oldest(&self.in_flight, &self.net.orphans, (from, to), hold.connect, channel, orphan).min(hold.since);
            let at = retransmission_at(oldest, hold.connect, self.now);
            if orphan && at >= orphan_gives_up_at(oldest) {
                self.in_flight.remove(&id);
                self.net.orphans.remove(&id);
                self.last.lists().lost.push(id);
                gone += 1;
                continue;
            }
            if hold.connect {
                // A handshake whose next SYN comes after the attempt's limit is given up first.
                if matches!(self.net.conn(client, server), Some(Conn::Connecting { gives_up: Some(k), .. }) if at >= k.0) {
                    late += 1;
                    continue;
                }
                // Connecting until that SYN; a broker's connections to the controller share one
                // state (`conn_for`), each channel crossing on its own SYN: open at the heal.
                let crossing = (server != Node::Controller).then_some(Conn::Crossing { at });
                self.set_conn(client, server, crossing);
            }
            let arrive_ms = at + self.net.latency(from, to);
            let new_key = (arrive_ms, PROTOCOL, self.sched.reserve());
            if let Some((m, key)) = self.in_flight.get_mut(&id) {
                m.held = None;
                m.resent_ms = Some(at);
                m.arrive_ms = arrive_ms;
                *key = new_key;
                self.sched.insert(new_key, Due::Deliver(id));
                released += 1;
                if hold.connect {
                    handshakes.push((client, server, at));
                }
            }
        }
        (released, handshakes, late, gone)
    }
}

/// When the oldest message held on `(from, to)` of the same kind was first sent: waiting
/// for a handshake or not (`connect`), left to a closed connection's orphan or not (`orphan`).
fn held_oldest(
    in_flight: &VecMap<u64, (super::Shared<Msg>, Key)>,
    orphans: &VecMap<u64, Node>,
    (from, to): (Node, Node),
    connect: bool,
    channel: Option<Channel>,
    orphan: bool,
) -> u64 {
    in_flight
        .values()
        .filter(|(m, _)| m.from == from && m.to == to && (channel.is_none() || channel_of(&m.body) == channel))
        .filter(|(m, _)| orphans.contains_key(&m.id) == orphan)
        .filter_map(|(m, _)| m.held.filter(|h| h.connect == connect).map(|h| h.since))
        .min()
        .unwrap_or(u64::MAX)
}

/// The world's wire as a node function sees it (`outbox::Wire`): the connection
/// table and the messages in flight.
pub(crate) struct WireOf<'a> {
    pub now: u64,
    pub net: &'a mut Network,
    pub in_flight: &'a mut VecMap<u64, (Shared<Msg>, Key)>,
    pub setup: ConnectionSetup,
}

impl Wire for WireOf<'_> {
    fn would_wait_for_connection(&self, client: Node, server: Node) -> bool {
        self.net.would_wait_for_connection(client, server, self.now)
    }

    fn connection_wait_bound(&self, client: Node, server: Node) -> Option<u64> {
        let state = self.net.conn(client, server);
        let waits = self.would_wait_for_connection(client, server) && !matches!(state, Some(Conn::Crossing { .. }));
        waits.then(|| longest_attempt_ms(self.setup, state.map_or(0, Conn::failures)))
    }

    fn link(&self, client: Node, server: Node) -> Link {
        self.net.conn(client, server).map_or(Link::Open, |c| c.link(self.now))
    }

    fn drop_unsent_request(&mut self, id: u64) -> Option<Key> {
        drop_unsent_request(self.in_flight, id, self.now)
    }

    fn close_conn(&mut self, client: Node, server: Node, by_client: bool) -> Vec<Key> {
        let established = by_client && self.net.conn(client, server).is_none();
        let mut keys = drop_unsent_on(self.in_flight, &mut self.net.orphans, (client, server), None, established);
        if client != Node::Controller && server != Node::Controller {
            keys.extend(self.net.set_conn(client, server, Some(Conn::Closed)));
        }
        keys
    }

    fn is_cut_on(&self, from: Node, to: Node, channel: Option<Channel>) -> bool {
        self.net.is_cut_on(from, to, channel)
    }

    /// A broker's metadata Fetch was given up (`KafkaRaftClient`): its connection to the
    /// controller is reset, and the Fetches and answers on it (held by TCP, or due at a
    /// retransmission after a heal) are gone.
    fn close_metadata_connection(&mut self, broker: u32) -> Vec<Key> {
        let me = Node::Broker(broker);
        let established = self.net.conn(me, Node::Controller).is_none();
        let scheduled = drop_unsent_on(self.in_flight, &mut self.net.orphans, (me, Node::Controller), Some(Channel::Metadata), established);
        let _ = self.net.set_conn(me, Node::Controller, Some(Conn::Closed));
        scheduled
    }

    fn drop_held_message(&mut self, id: u64) {
        if self.in_flight.get(&id).is_some_and(|(m, _)| m.held.is_some()) {
            self.in_flight.remove(&id);
        }
    }
}
