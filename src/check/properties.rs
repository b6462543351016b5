//! The properties the search looks for, each a named function of the state
//! after a step (stateright's `Property::always`, read the other way: a
//! counterexample is a state where one fails).
//!
//! `acked-record-lost`, `replicas-diverged` and `consumed-record-lost` are the
//! engine's own invariants (`sim::invariants`), read from the step they first
//! hold in. A loss the configuration permits is *allowed*: a record
//! acknowledged with `acks=1` that the leader no longer has is
//! `acked-record-lost` with `allowed` (acks=1 promises only the leader's
//! append). Allowed losses are not counterexamples unless asked for.

use crate::scenario::Acks;
use crate::sim::invariants::{ACKED_RECORD_LOST, CONSUMED_RECORD_LOST, REPLICAS_DIVERGED};
use crate::sim::Sim;

/// The properties a search can target, by name.
pub const PROPERTIES: [&str; 3] = [ACKED_RECORD_LOST, REPLICAS_DIVERGED, CONSUMED_RECORD_LOST];

/// Which failures count as a counterexample.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Target {
    /// Property names; empty means all of `PROPERTIES`.
    pub properties: Vec<&'static str>,
    /// Whether a loss the configuration permits counts too.
    pub allowed: bool,
}

impl Target {
    /// `any` or one of `PROPERTIES`.
    pub fn parse(name: &str) -> Option<Vec<&'static str>> {
        if name == "any" {
            return Some(Vec::new());
        }
        PROPERTIES.iter().find(|p| **p == name).map(|p| vec![*p])
    }

    pub fn wants(&self, property: &str) -> bool {
        PROPERTIES.contains(&property) && (self.properties.is_empty() || self.properties.contains(&property))
    }

    /// The names, for messages: `acked-record-lost` or `any of …`.
    pub fn describe(&self) -> String {
        match self.properties.as_slice() {
            [one] => one.to_string(),
            [] => format!("any of {}", PROPERTIES.join(", ")),
            many => many.join(", "),
        }
    }
}

/// A property that fails in a state.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub property: &'static str,
    pub allowed: bool,
    pub text: String,
}

/// The first failure of a targeted property in the state `sim` just reached, if any.
pub fn failure(sim: &Sim, target: &Target) -> Option<Failure> {
    for v in &sim.invariants.new_violations {
        if target.wants(v.invariant) {
            return Some(Failure { property: v.invariant, allowed: false, text: v.text.clone() });
        }
    }
    if target.wants(ACKED_RECORD_LOST) {
        return acks_one_record_lost(sim);
    }
    None
}

/// `acked-record-lost`, allowed: a record acknowledged with acks=1 is not in
/// the acting leader's log. The engine watches acks=all records only; acks=1
/// promises the leader's append and nothing more, so the loss is permitted.
pub fn acks_one_record_lost(sim: &Sim) -> Option<Failure> {
    let leader = sim.acting_leader()?;
    let log = &sim.broker(leader).log;
    for (p, producer) in sim.producers.iter().enumerate() {
        if sim.scenario.producers[p].acks != Acks::One || producer.acked.is_empty() {
            continue;
        }
        for id in producer.acked.iter() {
            if !log.entries_from(log.base()).any(|(_, e)| e.id == *id) {
                let text = format!(
                    "{} was acknowledged with acks=1, but leader {leader} (epoch {}) does not have it: acks=1 permits this loss (only the leader had it).",
                    sim.record_name(*id),
                    sim.broker(leader).leader_epoch
                );
                return Some(Failure { property: ACKED_RECORD_LOST, allowed: true, text });
            }
        }
    }
    None
}
