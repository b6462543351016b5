//! The counterexample explorer: a bounded, breadth-first search over the
//! engine's choices for a state where a property fails (an acknowledged record
//! lost, replicas diverged, a consumed record lost), and the shortest path
//! there as a format-1 scenario that `hwscope run` and the page replay.
//!
//! Pure and deterministic like the engine: no clocks, no threads, no OS
//! randomness; the same counts on every platform. The caller owns time
//! (progress rates) and threads (`cli/check.rs` runs levels on all cores; the
//! page runs `Search::run` in slices in a Web Worker).
//!
//! - `moves`        the choices: due events, faults from a budget, records
//! - `fingerprint`  the stable state hash (what is hashed and what is abstracted)
//! - `symmetry`     interchangeable followers
//! - `properties`   the properties, one function each, and allowed losses
//! - `search`       breadth-first search, resumable, with its bounds
//! - `trace`        a counterexample as a scenario, its replay check and its "why" chain
//! - `report`       a finished search in words and JSON; `options`: a setup from JSON

pub mod fingerprint;
pub mod moves;
pub mod options;
pub mod properties;
pub mod report;
pub mod reuse;
pub mod search;
pub mod simulate;
pub mod symmetry;
pub mod trace;

mod engine_rules;

pub use moves::{FaultMenu, Move, Used};
pub use options::Options;
pub use properties::{Failure, Target, PROPERTIES};
pub use report::{describe_bounds, Finished};
pub use search::Search;
pub use simulate::Simulation;
pub use trace::{Counterexample, WhyStep};

use crate::scenario::{Scenario, MAX_TIME_MS};
use crate::sim::Sim;

/// How far the search goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Steps from the start (due events and injected actions alike).
    pub max_depth: u32,
    /// Faults the search may inject on one path (crash, restart, cut, heal each count one).
    pub faults: u8,
    /// Records the search may produce on one path (one each), beyond the scenario's own.
    pub records: u8,
    /// States whose controller is past this leader epoch are not expanded.
    pub leader_epochs: Option<u32>,
    /// Simulated time: nothing runs or strikes after it (and the scenario's `stop_at_ms`).
    pub max_time_ms: Option<u64>,
    /// Stop after this many distinct states.
    pub max_states: Option<u64>,
    /// Stop when the estimated memory passes this.
    pub memory_bytes: Option<u64>,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_depth: 28,
            faults: 3,
            records: 0,
            leader_epochs: None,
            max_time_ms: None,
            max_states: None,
            memory_bytes: Some(1 << 30),
        }
    }
}

/// A search's setup.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub bounds: Bounds,
    pub menu: FaultMenu,
    pub target: Target,
    pub symmetry: bool,
    /// Start from the scenario without its scripted faults (crash, restart, partition,
    /// heal): the search injects its own. On by default.
    pub drop_faults: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { bounds: Bounds::default(), menu: FaultMenu::default(), target: Target::default(), symmetry: true, drop_faults: true }
    }
}

impl Config {
    /// The scenario the search starts from: without its scripted faults if asked,
    /// without a schedule (the search picks the order), and cut at the time bound.
    pub fn base_scenario(&self, scenario: &Scenario) -> Scenario {
        let mut s = scenario.clone();
        if self.drop_faults {
            s.events.retain(|e| e.crash.is_none() && e.restart.is_none() && e.partition.is_none() && e.heal.is_none());
        }
        s.schedule.clear();
        // The search stays within the script (moves::due_count): no settling past it.
        s.after_stop = crate::scenario::AfterStop::Stop;
        if let Some(t) = self.bounds.max_time_ms {
            s.stop_at_ms = s.stop_at_ms.min(t).min(MAX_TIME_MS);
        }
        s
    }
}

/// Why a search stopped before it was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    Memory,
    States,
}

/// How a search ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A state where a targeted property fails: `node` in the search's table.
    Counterexample {
        node: u32,
        failure: Failure,
    },
    /// Every state within the bounds was explored: no counterexample *within these bounds*.
    Exhausted,
    Stopped(StopReason),
}

/// Where a search stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Transitions taken (states generated, duplicates included).
    pub explored: u64,
    /// Distinct states (after fingerprinting and symmetry).
    pub distinct: u64,
    /// States waiting to be expanded.
    pub queued: u64,
    /// The BFS level being expanded.
    pub depth: u32,
    /// States past the leader-epoch bound (counted, not expanded).
    pub pruned: u64,
    /// The memory the search holds, estimated.
    pub memory_bytes: u64,
    /// The most it held at once.
    pub peak_bytes: u64,
    /// States a thread rebuilt by replaying their path (the parallel driver's balancing).
    pub replayed: u64,
    pub done: bool,
}

/// A state's heap and inline size, estimated from its collections' lengths (the
/// same figure on every platform of one pointer width). A node shared with other
/// states (`Shared`: a broker, the controller, a client, a message in flight) counts
/// its share: its size divided by how many states hold it. Shared log chunks are
/// counted once per broker copy, so it errs high.
pub fn approx_bytes(sim: &Sim) -> u64 {
    use crate::sim::Shared;
    use std::mem::size_of;
    fn share<T: Clone>(node: &Shared<T>, bytes: usize) -> usize {
        bytes / Shared::holders(node)
    }
    let mut n = size_of::<Sim>();
    n += sim.sched.queue.capacity() * size_of::<(crate::sim::Key, crate::sim::Due)>();
    n += sim.in_flight.len() * size_of::<(u64, (Shared<crate::sim::Msg>, crate::sim::Key))>();
    for (m, _) in sim.in_flight.values() {
        n += share(m, size_of::<crate::sim::Msg>() + 64);
    }
    // A broker's parts (`Part`: its log, producer state, leader state) are shared by the broker's copies.
    fn part<T: Clone>(part: &crate::sim::Part<T>, bytes: usize) -> usize {
        bytes / crate::sim::Part::holders(part)
    }
    for b in &sim.brokers {
        let mut own = size_of::<crate::sim::Broker>();
        own += part(&b.log, size_of::<crate::sim::log::Log>() + b.log.epochs().len() * 16 + (b.log.leo() - b.log.base()) as usize * 12);
        own += part(&b.producer_state, b.producer_state.len() * 16);
        if let Some(ls) = &b.lead {
            let mut lead = size_of::<crate::sim::LeaderState>() + ls.isr.len() * 4 + ls.followers.len() * 64;
            lead += ls.parked_fetches.len() * size_of::<crate::sim::ParkedFetch>() + ls.delayed_produces.len() * 96;
            own += part(ls, lead);
        }
        own += b.parked_consumers.len() * size_of::<crate::sim::ParkedConsumerFetch>();
        n += share(b, own);
    }
    let c = &sim.controller;
    n += share(
        c,
        size_of::<crate::sim::Controller>() + c.isr.len() * 4 + c.registrations.len() * size_of::<crate::sim::state::Registration>(),
    );
    for p in &sim.producers {
        n += share(p, size_of::<crate::sim::Producer>() + (p.acked.len() + p.failed.len() + p.pending.len()) * 8 + p.requests.len() * 64);
    }
    for c in &sim.consumers {
        n += share(c, size_of::<crate::sim::Consumer>() + c.read.len() * 16);
    }
    let inv = &sim.invariants;
    n += part(&sim.checked, size_of::<crate::sim::invariants::Checked>());
    n += inv.watched.len() * 24 + inv.reported.iter().count() * 32;
    n += inv.committed.iter().map(|c| c.len() * 8 + 32).sum::<usize>();
    n += inv.history.len() * 64;
    n as u64
}

/// Drops from a state what only the record draws before it is queued (the last
/// step's events and lists, the run's losses and violation history, each replica's
/// ghosts): no rule reads them and the fingerprint leaves them out, and copying them
/// for every move was a share of the search's time.
pub fn shed(sim: &mut Sim) {
    sim.last = crate::sim::Step::new();
    if !sim.invariants.losses.is_empty() || !sim.invariants.history.is_empty() {
        sim.invariants.losses = Vec::new();
        sim.invariants.history = Vec::new();
    }
    // Only where there are any: a write copies a node shared with the parent state.
    for b in sim.brokers.iter_mut().filter(|b| !b.ghosts.is_empty()) {
        b.ghosts = Vec::new();
    }
    // The queue's room beyond the headroom a copy gets (`Scheduler::clone`): a queued
    // state's queue is copied for all its children but the last, and the last state of
    // a line that took its parent's queue may hold twice its length. Returned where
    // more than two items' room is spare (on the reference search, 3.7 items a queued
    // state on average, 48 bytes each): always, it cost 1.6% more instructions for 3
    // bytes a state fewer than this.
    let queue = &mut sim.sched.queue;
    if queue.capacity() > queue.len() + 2 {
        queue.shrink_to_fit();
    }
}

/// Runs a search to its end (tests and small bounds; the CLI and the page drive `Search::run` themselves).
pub fn check(config: Config, scenario: &Scenario) -> (Search, Progress) {
    let mut search = Search::new(config, scenario);
    let mut progress = search.progress();
    while !progress.done {
        progress = search.run(1 << 16);
    }
    (search, progress)
}
