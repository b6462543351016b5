//! Where a node's rules run (issue 27, after stateright's actors): a rule gets its
//! own node's state and an [`Out`] over the world's shared parts (the clock, the
//! configuration, the seeded source, the wire, the step's commands and events);
//! what it writes there is put into effect by `Sim::apply_commands` at the step's
//! end. The node functions are in `producer.rs`, `consumer.rs`, `election.rs`,
//! `elr.rs`, `leader/`, `follower.rs`, `truncation.rs`, `consumer_fetch.rs`,
//! `heartbeat.rs` and `metadata_fetch.rs`.

use super::msg::Node;
use super::outbox::Out;
use super::shared::Shared;
use super::state::{Broker, Consumer, Controller, Producer};
use super::{consumer, network, Sim};
use crate::scenario::ConsumerSpec;

/// Runs `$rule` on the node `$nodes[$index]` (or `$nodes`, a field of `Sim`) with an
/// `Out` over the rest of the world: the one place an `Out` is built from the
/// world's fields, so that every kind of node sees the same shared parts.
macro_rules! node_rule {
    ($sim:expr, $nodes:ident $([$index:expr])?, $rule:expr) => {{
        let znode_version = $sim.controller.partition_epoch;
        let refusing = $sim.refusing_brokers();
        let Sim { $nodes, scenario, behavior, settings, rng, net, in_flight, next_msg, sched, last, now, step, .. } = $sim;
        let wire = &mut network::WireOf { now: *now, net, in_flight, setup: behavior.connection_setup };
        let lists = last.lists();
        let (events, commands) = (&mut lists.events, &mut lists.commands);
        let out = &mut Out { now: *now, step: *step, znode_version, scenario, behavior, settings, rng, wire, next_msg, sched, commands, events, refusing };
        ($rule)(&mut (*$nodes)$([$index])?, out)
    }};
}

impl Sim {
    /// Runs a rule of producer `p` on its own state, with an outbox on the rest (`outbox.rs`).
    pub(crate) fn producer_rule<R>(&mut self, p: usize, rule: impl FnOnce(&mut Shared<Producer>, &mut Out) -> R) -> R {
        node_rule!(self, producers[p], rule)
    }

    /// Runs a rule of consumer `c` on its own state, with an outbox on the rest (`outbox.rs`).
    pub(crate) fn consumer_rule<R>(&mut self, c: usize, rule: impl FnOnce(&mut Shared<Consumer>, &mut Out) -> R) -> R {
        node_rule!(self, consumers[c], rule)
    }

    /// Runs a rule of broker `id` on its own state, with an outbox on the rest (`outbox.rs`);
    /// then what its events change outside the broker (a ZooKeeper-era ISR write in the
    /// partition's znode) is applied (`Sim::apply_outside`).
    pub(crate) fn broker_rule<R: Default>(&mut self, id: u32, rule: impl FnOnce(&mut Shared<Broker>, &mut Out) -> R) -> R {
        let (mut rule, mut result) = (Some(rule), R::default());
        self.run_broker_rule(id, &mut |b, out| {
            if let Some(rule) = rule.take() {
                result = rule(b, out);
            }
        });
        result
    }

    /// `broker_rule`'s body, compiled once for every rule rather than once per rule: the
    /// page's first core would otherwise grow with each broker rule converted.
    fn run_broker_rule(&mut self, id: u32, rule: &mut dyn FnMut(&mut Shared<Broker>, &mut Out)) {
        let from = self.last.events().len();
        node_rule!(self, brokers[id as usize], rule);
        for i in from..self.last.events().len() {
            let event = self.last.events()[i];
            self.apply_outside(&event);
        }
    }

    /// Runs a broker's rule for a message to `to`, if `to` is a broker.
    pub(crate) fn broker_rule_at(&mut self, to: Node, rule: impl FnOnce(&mut Shared<Broker>, &mut Out)) {
        if let Node::Broker(id) = to {
            self.broker_rule(id, rule);
        }
    }

    /// Runs a rule of the controller on its own state, with an outbox on the rest (`outbox.rs`).
    pub(crate) fn controller_rule<R>(&mut self, rule: impl FnOnce(&mut Shared<Controller>, &mut Out) -> R) -> R {
        node_rule!(self, controller, rule)
    }

    /// A consumer joins (the scenario's at the start, or `add_consumer`), knowing the
    /// leader the controller has now, and sends its first fetch.
    pub(super) fn add_consumer(&mut self, spec: ConsumerSpec) {
        let joined = Consumer::join(spec, &self.scenario, self.controller.leader, self.controller.leader_epoch, self.now);
        let (scenario, c) = (self.scenario.clone(), self.consumers.len());
        self.net.add_consumer_links(&scenario, &joined.spec.id, Node::Consumer(c));
        self.consumers.push(Shared::new(joined));
        self.consumer_rule(c, |n, out| consumer::send_fetch(n, c, out));
    }
}
