//! Links between participants: a latency per direction, and cuts per
//! direction. A message sent into a cut link, or to a broker that is down, is
//! lost; one already on the wire still arrives.

use super::event::Event;
use super::msg::{Body, Msg, Node};
use super::scheduler::{Due, PROTOCOL};
use super::step::Command;
use super::vecmap::{VecMap, VecSet};
use super::Sim;
use crate::scenario::Scenario;

#[derive(Debug, Clone)]
pub struct Network {
    latency_ms: u64,
    jitter_ms: u64,
    overrides: VecMap<(u32, u32), u64>,
    /// Read by the explorer's fingerprint (`crate::check`).
    pub(crate) cut: VecSet<(u32, u32)>,
}

impl Network {
    pub fn new(s: &Scenario) -> Network {
        Network {
            latency_ms: s.network.latency_ms,
            jitter_ms: s.network.jitter_ms,
            overrides: s.network.links.iter().map(|l| ((l.from, l.to), l.latency_ms)).collect(),
            cut: VecSet::new(),
        }
    }

    pub fn is_cut(&self, from: Node, to: Node) -> bool {
        match (from, to) {
            (Node::Broker(a), Node::Broker(b)) => self.cut.contains(&(a, b)),
            _ => false,
        }
    }

    pub fn cut_links(&self) -> Vec<(u32, u32)> {
        self.cut.iter().copied().collect()
    }

    fn base_latency(&self, from: Node, to: Node) -> u64 {
        match (from, to) {
            (Node::Broker(a), Node::Broker(b)) => self.overrides.get(&(a, b)).copied().unwrap_or(self.latency_ms),
            _ => self.latency_ms,
        }
    }

    /// The directions a cut or heal names: both ways or one.
    pub fn directions(from: u32, to: u32, both_ways: bool) -> impl Iterator<Item = (u32, u32)> {
        std::iter::once((from, to)).chain(both_ways.then_some((to, from)))
    }

    /// Cuts or heals the named directions.
    pub(crate) fn set_cut(&mut self, from: u32, to: u32, both_ways: bool, cut: bool) {
        for l in Network::directions(from, to, both_ways) {
            if cut {
                self.cut.insert(l);
            } else {
                self.cut.remove(&l);
            }
        }
    }
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

    /// Puts a message on the wire, or loses it: a cut link, or a receiver that is down.
    pub(crate) fn transmit(&mut self, id: u64, seq: u64, from: Node, to: Node, body: Body) {
        let dead = matches!(to, Node::Broker(b) if !self.broker(b).alive);
        if self.net.is_cut(from, to) || dead {
            self.last.lost.push(id);
            return;
        }
        let jitter = self.rng.upto(self.net.jitter_ms);
        let arrive_ms = self.now + self.net.base_latency(from, to) + jitter;
        let key = (arrive_ms, PROTOCOL, seq);
        self.sched.insert(key, Due::Deliver(id));
        self.in_flight.insert(id, (Msg { id, from, to, sent_ms: self.now, arrive_ms, body }, key));
        self.last.sent.push(id);
    }

    /// Drops every message on its way to `node` (a crash loses its pending requests).
    pub(crate) fn drop_messages_to(&mut self, node: Node) {
        let ids: Vec<u64> = self.in_flight.iter().filter(|(_, (m, _))| m.to == node).map(|(id, _)| *id).collect();
        for id in &ids {
            if let Some((_, key)) = self.in_flight.remove(id) {
                self.sched.cancel(key);
            }
        }
    }

    /// A cut: messages sent across it from now on are lost.
    pub(crate) fn cut(&mut self, links: &[(u32, u32)]) {
        if let Some(&(from, to)) = links.first() {
            self.emit(Event::LinksCut { from, to, both_ways: links.len() == 2 });
        }
    }

    /// A heal: messages cross again; lost requests are noticed only by their timeouts.
    pub(crate) fn heal(&mut self, links: &[(u32, u32)]) {
        if let Some(&(from, to)) = links.first() {
            self.emit(Event::LinksHealed { from, to, both_ways: links.len() == 2 });
        }
    }
}
