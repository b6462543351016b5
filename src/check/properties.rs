//! The properties the search looks for, each a named function of the state
//! after a step (stateright's `Property::always`, read the other way: a
//! counterexample is a state where one fails).
//!
//! `acked-record-lost`, `replicas-diverged` and `consumed-record-lost` are the
//! engine's own invariants (`sim::invariants`), read from the step they first
//! hold in. A loss the configuration permits is *allowed*, as the engine marks
//! it (`Violation::allowed`): a record acknowledged with `acks=1` (or appended
//! for `acks=0`) that the leader no longer has, a loss after an unclean
//! election, an unflushed tail lost in a crash. Allowed losses are not
//! counterexamples unless asked for.

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

/// The first failure of a targeted property in the state `sim` just reached, if
/// any: one Kafka's guarantees forbid first, else one the configuration permits
/// (the engine marks those `allowed`: acks 0 or 1, an unclean election, an
/// unflushed tail lost in a crash).
pub fn failure(sim: &Sim, target: &Target) -> Option<Failure> {
    let mut permitted = None;
    for v in &sim.invariants.new_violations {
        if !target.wants(v.invariant) {
            continue;
        }
        if !v.allowed {
            return Some(Failure { property: v.invariant, allowed: false, text: v.text.clone() });
        }
        permitted.get_or_insert_with(|| Failure { property: v.invariant, allowed: true, text: v.text.clone() });
    }
    permitted
}
