//! Links between participants: a latency per direction, and cuts per
//! direction. A message sent into a cut link is lost; one already on the wire
//! still arrives.

use super::scheduler::PROTOCOL;
use super::{Body, Due, Msg, Node, Sim};
use crate::record::EventRecord;
use crate::scenario::Scenario;
use crate::sim::vecmap::{VecMap, VecSet};

/// A message handed to the network.
#[derive(Debug, Clone, Copy)]
pub struct Sent {
    pub id: u64,
    pub lost: bool,
}

impl Sent {
    /// A sentence for the narration when the message was lost.
    pub fn note(self) -> &'static str {
        if self.lost {
            " That message is lost (the link is cut or the receiver is down)."
        } else {
            ""
        }
    }
}

#[derive(Debug, Clone)]
pub struct Network {
    latency_ms: u64,
    jitter_ms: u64,
    overrides: VecMap<(u32, u32), u64>,
    cut: VecSet<(u32, u32)>,
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
}

impl Sim {
    /// Puts a message on the wire and returns its id. If the link is cut the
    /// message is lost (`lost` is true); the sender learns nothing until its timeout.
    pub fn send(&mut self, from: Node, to: Node, body: Body) -> Sent {
        let id = self.next_msg;
        self.next_msg += 1;
        let dead = matches!(to, Node::Broker(b) if !self.broker(b).alive);
        if self.net.is_cut(from, to) || dead {
            return Sent { id, lost: true };
        }
        let jitter = self.rng.upto(self.net.jitter_ms);
        let arrive_ms = self.now + self.net.base_latency(from, to) + jitter;
        let msg = Msg { id, from, to, sent_ms: self.now, arrive_ms, body };
        let key = self.sched.schedule(arrive_ms, PROTOCOL, Due::Deliver(id));
        self.in_flight.insert(id, (msg, key));
        if let Some(ev) = self.event.as_mut().filter(|_| self.narrate) {
            ev.sent.push(id);
        }
        Sent { id, lost: false }
    }

    /// Drops every message on its way to `node` (a crash loses its pending requests).
    pub fn drop_messages_to(&mut self, node: Node) -> usize {
        let ids: Vec<u64> = self.in_flight.iter().filter(|(_, (m, _))| m.to == node).map(|(id, _)| *id).collect();
        for id in &ids {
            if let Some((_, key)) = self.in_flight.remove(id) {
                self.sched.cancel(key);
            }
        }
        ids.len()
    }

    pub(crate) fn cut(&mut self, links: Vec<(u32, u32)>) {
        for l in &links {
            self.net.cut.insert(*l);
        }
        self.event = Some(EventRecord { links: Some(links.clone()), ..EventRecord::new("partition") });
        self.text = if links.len() == 2 {
            say!(
                self,
                "The network between brokers {} and {} is cut both ways: messages sent across it from now on are lost; those already on the wire still arrive.",
                links[0].0, links[0].1
            )
        } else {
            say!(
                self,
                "The link from broker {} to broker {} is cut (one way): what {} sends to {} from now on is lost.",
                links[0].0,
                links[0].1,
                links[0].0,
                links[0].1
            )
        };
    }

    pub(crate) fn heal(&mut self, links: Vec<(u32, u32)>) {
        for l in &links {
            self.net.cut.remove(l);
        }
        self.event = Some(EventRecord { links: Some(links.clone()), ..EventRecord::new("heal") });
        self.text = if links.len() == 2 {
            say!(
                self,
                "The network between brokers {} and {} is healed. Lost requests are only noticed when their timeouts fire.",
                links[0].0,
                links[0].1
            )
        } else {
            say!(self, "The link from broker {} to broker {} is healed.", links[0].0, links[0].1)
        };
    }
}
