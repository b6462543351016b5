//! A node's rules as functions of that node alone (issue 27, after stateright's
//! actors): a rule gets its node's state (`&mut Shared<N>`, copied on its first
//! write, as stateright's `&mut Cow<State>`), the message or timer that woke it,
//! and an [`Out`]: the configuration and clock to read, and the list its effects
//! go to. It reads and writes no other node's state.
//!
//! What a rule writes to `Out` and where it goes:
//! - messages to send: the step's commands, put into effect in one place at the
//!   end of the step (`Sim::apply_commands`);
//! - timers to set or cancel: in the queue at once (its order is the keys', whenever
//!   they are inserted);
//! - events: the step's record. A node function's events change nothing outside
//!   its node (`apply_event` has no case for them), so they are only recorded;
//! - a connection it closes: on the wire at once (`Out::close_conn`), because the
//!   rule's next send on that connection must find it closed, as it does in the
//!   `impl Sim` rules;
//! - draws from the run's seeded source (backoff jitter, the least loaded node), in
//!   the order the rule makes them.
//!
//! Message ids and timer keys are handed out as the rule writes, as `Sim::send` and
//! `Sim::set_timer` do, so a converted rule writes the same run, byte for byte.
//! Converted so far: the producer (`producer.rs`), the consumer (`consumer.rs`),
//! the clients' metadata (`client.rs`, which both call), the controller's
//! elections (`election.rs`, `elr.rs`) and the broker's replication rules (the
//! leader's in `leader/`, the follower's in `follower.rs` and `truncation.rs`, the
//! consumer fetches it serves in `consumer_fetch.rs`), its registration and heartbeats
//! (`heartbeat.rs`) and its side of the metadata log (`metadata_fetch.rs`).

use super::event::Event;
use super::msg::{Body, Node};
use super::scheduler::{Due, Key, Rng, Scheduler, Timer, PROTOCOL};
use super::step::Command;
use crate::scenario::{Behavior, Channel, Scenario, Settings};

/// The connections a client's rule reads and closes (`network.rs` implements it on
/// the world's wire).
pub(crate) trait Wire {
    /// Whether a request from `client` to `server` would first wait for a new connection.
    fn would_wait_for_connection(&self, client: Node, server: Node) -> bool;
    /// If a request from `client` to `server` would first wait for a connection, the
    /// longest that attempt may last before it is given up (`connect::longest_attempt_ms`).
    fn connection_wait_bound(&self, client: Node, server: Node) -> Option<u64>;
    /// The connection `client` → `server` closes (`by_client`: its client closes it, else
    /// the server resets it): what it held is gone, but for what a client's close leaves to
    /// the kernel's orphaned socket (`connect::drop_unsent_on`). Returns the deliveries and
    /// the timer of the attempt this ends, to take out of the queue.
    fn close_conn(&mut self, client: Node, server: Node, by_client: bool) -> Vec<Key>;
    /// Whether the link `from` → `to` is cut (for `channel`, or as a whole).
    fn is_cut_on(&self, from: Node, to: Node, channel: Option<Channel>) -> bool;
    /// A broker resets its connection for the metadata log; returns the deliveries of
    /// what was on it, to take out of the queue.
    fn close_metadata_connection(&mut self, broker: u32) -> Vec<Key>;
    /// A request given up while TCP held it is dropped (its connection was reset).
    fn drop_held_message(&mut self, id: u64);
    /// `client`'s connection to `server` as its rules see it now (`connect::Conn::link`).
    fn link(&self, client: Node, server: Node) -> Link;
    /// A request that never left (it waits on its connection) is taken off the wire;
    /// returns its delivery, to take out of the queue, if one was due.
    fn drop_unsent_request(&mut self, id: u64) -> Option<Key>;
}

/// A client's connection as its rules see it (`ClusterConnectionStates`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Link {
    /// Open: a request goes out at once.
    Open,
    /// Being made; `crosses_at`: the SYN a heal lets cross, if one will.
    Connecting { crosses_at: Option<u64> },
    /// Closed, reset, refused or given up: the next request connects anew.
    Closed,
}

impl Link {
    /// When the handshake crosses, if a heal has let it and it has not yet.
    pub fn crosses_at(self) -> Option<u64> {
        match self {
            Link::Connecting { crosses_at } => crosses_at,
            _ => None,
        }
    }
}

/// What a node's rule may read besides its node (the clock, the configuration, its
/// connections) and where it writes its effects. Built in one place (`nodes.rs`) from
/// the world's shared parts.
pub(crate) struct Out<'a> {
    pub now: u64,
    /// The step's number (a broker's log keeps it beside the records a truncation drops).
    pub step: u64,
    /// The version of the partition's state in ZooKeeper (the model keeps it as the
    /// controller's partition epoch): what a ZooKeeper-era leader's conditional ISR write
    /// compares with the version it cached (`isr_write_conflicts`).
    pub znode_version: u32,
    pub scenario: &'a Scenario,
    pub behavior: &'a Behavior,
    /// The settings whose default depends on the preset, as in force.
    pub settings: &'a Settings,
    pub(super) rng: &'a mut Rng,
    pub(super) wire: &'a mut dyn Wire,
    pub(super) next_msg: &'a mut u64,
    pub(super) sched: &'a mut Scheduler<Due>,
    pub(super) commands: &'a mut Vec<Command>,
    pub(super) events: &'a mut Vec<Event>,
    /// The brokers whose hosts refuse connections now, one bit each (`Sim::refusing_brokers`).
    pub(super) refusing: u64,
}

impl Out<'_> {
    /// Decides to send a message; returns its id.
    pub fn send(&mut self, from: Node, to: Node, body: Body) -> u64 {
        let id = *self.next_msg;
        *self.next_msg += 1;
        let seq = self.sched.reserve();
        self.commands.push(Command::Send { id, seq, from, to, body });
        id
    }

    /// Sets a timer; its key cancels it. Put in the queue at once, not at the step's end
    /// as a message is: the queue's order is the key's, whenever it is inserted, and no
    /// rule reads the queue during a step (`Sim::set_timer`).
    pub fn set_timer(&mut self, at_ms: u64, timer: Timer) -> Key {
        self.sched.schedule(at_ms, PROTOCOL, Due::Timer(timer))
    }

    pub fn cancel(&mut self, key: Key) {
        self.sched.cancel(key);
    }

    /// Records an event of the node's own (one `apply_event` has no case for).
    pub fn emit(&mut self, event: Event) {
        self.events.push(event);
    }

    /// A number in 0..=max from the run's seeded source.
    pub fn draw(&mut self, max: u64) -> u64 {
        self.rng.upto(max)
    }

    /// Whether a request from `client` to `server` would first wait for a new connection.
    pub fn would_wait_for_connection(&self, client: Node, server: Node) -> bool {
        self.wire.would_wait_for_connection(client, server)
    }

    /// Whether a request from `client` to `server` would be answered by its host's kernel
    /// with a reset, never read (`Sim::refuses_connections`, across a link open both ways).
    pub fn refuses_request(&self, client: Node, server: Node) -> bool {
        let refusing = matches!(server, Node::Broker(b) if b < 64 && self.refusing & (1 << b) != 0);
        refusing && !self.wire.is_cut_on(client, server, None) && !self.wire.is_cut_on(server, client, None)
    }

    /// If a request from `client` to `server` would wait for a connection, the longest
    /// the attempt may last (`Wire::connection_wait_bound`).
    pub fn connection_wait_bound(&self, client: Node, server: Node) -> Option<u64> {
        self.wire.connection_wait_bound(client, server)
    }

    /// The client closes its connection to `server` (`Wire::close_conn`); an attempt under
    /// way loses the timer that would have given it up.
    pub fn close_conn(&mut self, client: Node, server: Node) {
        for key in self.wire.close_conn(client, server, true) {
            self.sched.cancel(key);
        }
    }

    /// The server closes the connection its client opened: the client's bytes still on
    /// their way are answered with a reset and gone (`Wire::close_conn`).
    pub fn reset_conn(&mut self, client: Node, server: Node) {
        for key in self.wire.close_conn(client, server, false) {
            self.sched.cancel(key);
        }
    }

    /// Whether the link `from` → `to` is cut (`Wire::is_cut_on`).
    pub fn is_cut_on(&self, from: Node, to: Node, channel: Option<Channel>) -> bool {
        self.wire.is_cut_on(from, to, channel)
    }

    /// The broker resets its connection for the metadata log: what was on it is gone
    /// at once, as when a client closes a connection (`Wire::close_metadata_connection`).
    pub fn close_metadata_connection(&mut self, broker: u32) {
        for key in self.wire.close_metadata_connection(broker) {
            self.sched.cancel(key);
        }
    }

    /// A request given up while TCP held it is dropped (`Wire::drop_held_message`).
    pub fn drop_held_message(&mut self, id: u64) {
        self.wire.drop_held_message(id);
    }

    /// Whether `client`'s connection to `server` is still being made: CONNECTING, or
    /// crossing on a SYN still to come.
    pub fn is_connecting(&self, client: Node, server: Node) -> bool {
        matches!(self.wire.link(client, server), Link::Connecting { .. })
    }

    /// Whether `client`'s connection to `server` is open (`ClusterConnectionStates.isReady`):
    /// not closed, reset or given up, and not still being made.
    pub fn is_connection_ready(&self, client: Node, server: Node) -> bool {
        self.wire.link(client, server) == Link::Open
    }

    /// A request that never left is taken off the wire (`Wire::drop_unsent_request`).
    pub fn drop_unsent_request(&mut self, id: u64) {
        if let Some(key) = self.wire.drop_unsent_request(id) {
            self.sched.cancel(key);
        }
    }

    /// When a request from `client` to `server`, made now and given up at `deadline`
    /// unless sent, times out: a connection a heal lets cross at a known SYN sends it then,
    /// and it times out `timeout_ms` after that send ([`timed_from_send`]).
    pub fn send_deadline(&self, client: Node, server: Node, deadline: u64, timeout_ms: u64) -> u64 {
        self.wire.link(client, server).crosses_at().and_then(|sent| timed_from_send(deadline, sent, timeout_ms)).unwrap_or(deadline)
    }

    /// A request that waited on its connection goes out at `sent`, when the connection is
    /// made (`Sim::connection_made`): its request timeout (`timer`, due at `deadline.0`)
    /// runs again from there, for `timeout_ms`. `NetworkClient.doSend` stamps the send
    /// time that `InFlightRequests.nodesWithTimedOutRequests` counts from, and a request is
    /// sent only to a ready node (the producer's `Sender` drains to ready nodes,
    /// `ConsumerNetworkClient.trySend`, `NetworkClientUtils.awaitReady` before the replica
    /// fetcher's `sendAndReceive`), the same at 0.10.2, 2.4, 3.7 and 4.0. A deadline
    /// already due by `sent` stays: what bounded the wait for the connection ends it first
    /// (the accumulator's request.timeout.ms before 2.1, `ConsumerNetworkClient`'s unsent
    /// expiry, `awaitReady`'s replica.socket.timeout.ms). Returns the timer in force.
    pub fn restart_request_timeout(&mut self, deadline: Key, sent: u64, timeout_ms: u64, timer: Timer) -> Key {
        let Some(at) = timed_from_send(deadline.0, sent, timeout_ms) else { return deadline };
        self.cancel(deadline);
        self.set_timer(at, timer)
    }
}

/// A request sent only once its connection is made (at `sent`) times out `timeout_ms`
/// after that send (`NetworkClient.doSend`, `InFlightRequests.nodesWithTimedOutRequests`),
/// unless its `deadline` for waiting comes first (None: then that deadline stands).
fn timed_from_send(deadline: u64, sent: u64, timeout_ms: u64) -> Option<u64> {
    (sent < deadline).then_some(sent + timeout_ms)
}
