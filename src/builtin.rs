//! The built-in scenarios: JSON files in `scenarios/`, embedded in the binary.

use crate::scenario::{Scenario, ScenarioError};

/// (name, JSON text), in the order the CLI and the page list them.
pub const BUILTINS: &[(&str, &str)] = &[
    ("seed-walkthrough", include_str!("../scenarios/seed-walkthrough.json")),
    ("idle-partition-lag", include_str!("../scenarios/idle-partition-lag.json")),
    ("slow-follower-isr", include_str!("../scenarios/slow-follower-isr.json")),
    ("follower-fetch-consumer", include_str!("../scenarios/follower-fetch-consumer.json")),
    ("acks-and-min-isr", include_str!("../scenarios/acks-and-min-isr.json")),
    ("kip101-data-loss", include_str!("../scenarios/kip101-data-loss.json")),
    ("kip101-divergence", include_str!("../scenarios/kip101-divergence.json")),
    ("kip279-fast-leader-change", include_str!("../scenarios/kip279-fast-leader-change.json")),
    ("kafka-7128", include_str!("../scenarios/kafka-7128.json")),
    ("elr", include_str!("../scenarios/elr.json")),
    ("unclean-election", include_str!("../scenarios/unclean-election.json")),
    ("temporary-hw-drop", include_str!("../scenarios/temporary-hw-drop.json")),
    ("zombie-leader", include_str!("../scenarios/zombie-leader.json")),
    ("bounce-inside-session", include_str!("../scenarios/bounce-inside-session.json")),
    ("retry-duplicates", include_str!("../scenarios/retry-duplicates.json")),
    ("retry-through-failover", include_str!("../scenarios/retry-through-failover.json")),
    ("lagging-read-replica", include_str!("../scenarios/lagging-read-replica.json")),
    ("steady-load", include_str!("../scenarios/steady-load.json")),
];

pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(n, _)| *n)
}

pub fn json(name: &str) -> Option<&'static str> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, j)| *j)
}

/// A built-in scenario by name, or an error listing the names.
pub fn load(name: &str) -> Result<Scenario, ScenarioError> {
    match json(name) {
        Some(text) => Scenario::from_json(text),
        None => Err(ScenarioError::new(
            "--builtin",
            format!("no built-in scenario \"{name}\"; there are: {}", names().collect::<Vec<_>>().join(", ")),
        )),
    }
}
