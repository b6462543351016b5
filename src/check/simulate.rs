//! Seeded simulation: random walks over the same choices the breadth-first
//! search enumerates (`moves`), for configurations too big to exhaust (more
//! replicas, faults and steps). Swarm testing's idea: each walk draws its own
//! depth, fault budget, record budget and fault mix (which kinds of fault it
//! may inject at all, how often it injects one, how often it reorders events
//! due at once), so that different walks stress different corners instead of
//! every walk spreading the same thin mix.
//!
//! Every walk is reproducible from (scenario, walk seed): walk `i` of a run
//! started at seed `S` uses seed `S + i` and draws everything from it. A walk
//! that breaks a property is shrunk (its injected moves dropped one at a time,
//! out-of-order picks made default, chunks of steps dropped, while the same
//! property still fails) and returned as a counterexample: the same format-1
//! scenario with `at_step` faults the breadth-first search gives.
//!
//! Pure and deterministic like the rest of `check`: the caller owns time.

use super::moves::{moves, FaultMenu, Move, Used};
use super::properties::{failure, Failure};
use super::search::Setup;
use super::{Config, Counterexample};
use crate::scenario::Scenario;
use crate::sim::scheduler::Rng;
use crate::sim::Sim;

/// At most this many replays while shrinking one walk.
const SHRINK_REPLAYS: u32 = 4_000;

/// What one walk drew from its seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    pub depth: u32,
    pub faults: u8,
    pub records: u8,
    pub menu: FaultMenu,
    /// Per mille: how often a step injects a fault or record when one is possible.
    pub inject: u32,
    /// Per mille: how often a step runs another of the events due at once than the default.
    pub reorder: u32,
}

impl Draw {
    /// The walk's swarm configuration, drawn from its seed within `config`'s bounds.
    pub fn new(config: &Config, rng: &mut Rng) -> Draw {
        let b = &config.bounds;
        let low = (b.max_depth / 4).max(1);
        let depth = low + rng.upto((b.max_depth - low) as u64) as u32;
        let faults = rng.upto(b.faults as u64) as u8;
        let records = rng.upto(b.records as u64) as u8;
        let m = config.menu;
        let mut coin = |on: bool| on && rng.upto(1) == 1;
        let mut menu = FaultMenu {
            crash: coin(m.crash),
            restart: coin(m.restart),
            cut: coin(m.cut),
            controller: coin(m.controller),
            clients: coin(m.clients),
            one_way: coin(m.one_way),
            unflushed: 0,
            catch: 0,
        };
        // A walk with a fault budget injects at least one kind: crashes if allowed, else any.
        if faults > 0 && !(menu.crash || menu.restart || menu.cut || menu.controller || menu.clients) {
            menu.crash = m.crash;
            menu.restart = m.restart;
            menu.cut = m.cut;
            menu.controller = m.controller;
            menu.clients = m.clients;
        }
        menu.unflushed = rng.upto(m.unflushed as u64) as u8;
        menu.catch = rng.upto(m.catch as u64) as u8;
        const INJECT: [u32; 5] = [10, 25, 50, 100, 200];
        const REORDER: [u32; 4] = [0, 20, 100, 300];
        let inject = INJECT[rng.upto(INJECT.len() as u64 - 1) as usize];
        let reorder = REORDER[rng.upto(REORDER.len() as u64 - 1) as usize];
        Draw { depth, faults, records, menu, inject, reorder }
    }
}

/// A walk that broke a property: as walked, and shrunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The walk's own seed: `--seed SEED --walks 1` walks it again.
    pub seed: u64,
    /// Which walk of the run it was (0-based).
    pub walk: u64,
    pub draw: Draw,
    /// The steps the walk took until the property failed.
    pub walked: usize,
    pub failure: Failure,
    /// The shortest replay shrinking found, ending at the failure.
    pub moves: Vec<Move>,
    /// Replays shrinking ran.
    pub replays: u32,
}

/// Where a simulation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SimProgress {
    pub walks: u64,
    /// Steps taken over all walks.
    pub steps: u64,
    /// The deepest walk so far.
    pub deepest: u64,
    /// Walks that ended because nothing more was due (the run's script was over).
    pub finished: u64,
    pub done: bool,
}

/// A simulation in progress: walks from `seed` on, until one breaks a targeted
/// property or `walks` have run.
pub struct Simulation {
    pub setup: Setup,
    root: Sim,
    pub seed: u64,
    /// Stop after this many walks (None: until asked to stop).
    pub max_walks: Option<u64>,
    progress: SimProgress,
    found: Option<Found>,
    /// The first permitted loss seen, when those are not counterexamples (walk seed, text).
    pub allowed_seen: Option<(u64, String)>,
    scratch: Vec<Move>,
}

impl Simulation {
    pub fn new(config: Config, scenario: &Scenario, seed: u64, max_walks: Option<u64>) -> Simulation {
        let setup = Setup::new(config, scenario);
        let root = Sim::new(setup.base.clone());
        Simulation { setup, root, seed, max_walks, progress: SimProgress::default(), found: None, allowed_seen: None, scratch: Vec::new() }
    }

    pub fn progress(&self) -> SimProgress {
        self.progress
    }

    pub fn found(&self) -> Option<&Found> {
        self.found.as_ref()
    }

    /// Walks until about `budget` steps have been taken (whole walks); returns the progress after.
    pub fn run(&mut self, budget: u64) -> SimProgress {
        let start = self.progress.steps;
        while !self.progress.done && self.progress.steps - start < budget {
            if self.max_walks.is_some_and(|m| self.progress.walks >= m) {
                self.progress.done = true;
                break;
            }
            let walk = self.progress.walks;
            let seed = self.seed.wrapping_add(walk);
            let (path, outcome, draw) = self.walk(seed);
            self.progress.walks += 1;
            self.progress.steps += path.len() as u64;
            self.progress.deepest = self.progress.deepest.max(path.len() as u64);
            match outcome {
                WalkEnd::Failed(f) => {
                    let walked = path.len();
                    let (moves, failure, replays) = self.shrink(path, f);
                    self.found = Some(Found { seed, walk, draw, walked, failure, moves, replays });
                    self.progress.done = true;
                }
                WalkEnd::Finished => self.progress.finished += 1,
                WalkEnd::Depth => {}
            }
        }
        self.progress
    }

    /// One walk from its seed: the moves taken, and how it ended.
    pub fn walk(&mut self, seed: u64) -> (Vec<Move>, WalkEnd, Draw) {
        let mut rng = Rng::new(seed);
        let draw = Draw::new(&self.setup.config, &mut rng);
        let mut sim = self.root.clone();
        let mut used = Used::default();
        let mut path = Vec::new();
        let mut out = std::mem::take(&mut self.scratch);
        let mut end = WalkEnd::Depth;
        while path.len() < draw.depth as usize {
            let scripted = self.setup.scripted.contains_key(&(sim.step + 1));
            moves(&sim, &draw.menu, used.faults < draw.faults, used.records < draw.records, scripted, &mut out);
            let due = out.iter().take_while(|m| matches!(m, Move::Due(_) | Move::Scripted)).count();
            if due == 0 {
                end = WalkEnd::Finished;
                break;
            }
            let injected = out.len() - due;
            let mv = if injected > 0 && rng.upto(999) < draw.inject as u64 {
                out[due + rng.upto(injected as u64 - 1) as usize]
            } else if due > 1 && rng.upto(999) < draw.reorder as u64 {
                out[1 + rng.upto(due as u64 - 2) as usize]
            } else {
                out[0]
            };
            self.setup.apply(&mut sim, mv);
            used = used.after(mv);
            path.push(mv);
            if let Some(f) = failure(&sim, &self.setup.config.target) {
                if !f.allowed || self.setup.config.target.allowed {
                    end = WalkEnd::Failed(f);
                    break;
                }
                if self.allowed_seen.is_none() {
                    self.allowed_seen = Some((seed, f.text));
                }
            }
            if self.setup.beyond_epochs(&sim) {
                break;
            }
        }
        self.scratch = out;
        (path, end, draw)
    }

    /// Replays `candidate` from the start, skipping a move that is not possible where
    /// it comes (a deleted step shifts what is due); the prefix up to the first
    /// failure of `property`, if one happens.
    fn replay(&self, candidate: &[Move], property: &str) -> Option<(Vec<Move>, Failure)> {
        let mut sim = self.root.clone();
        let mut out = Vec::new();
        let mut taken = Vec::new();
        let menu = self.setup.config.menu;
        for &mv in candidate {
            let scripted = self.setup.scripted.contains_key(&(sim.step + 1));
            moves(&sim, &menu, true, true, scripted, &mut out);
            if !out.contains(&mv) {
                continue;
            }
            self.setup.apply(&mut sim, mv);
            taken.push(mv);
            if let Some(f) = failure(&sim, &self.setup.config.target) {
                if f.property == property && (!f.allowed || self.setup.config.target.allowed) {
                    return Some((taken, f));
                }
            }
        }
        None
    }

    /// The walk shrunk: fewer injected moves, default picks, fewer steps, while the
    /// same property still fails. Greedy and deterministic; bounded by `SHRINK_REPLAYS`.
    fn shrink(&self, path: Vec<Move>, failure: Failure) -> (Vec<Move>, Failure, u32) {
        let property = failure.property;
        let mut best = (path, failure);
        let mut replays = 0u32;
        let try_candidate = |best: &mut (Vec<Move>, Failure), candidate: Vec<Move>, replays: &mut u32| -> bool {
            if *replays >= SHRINK_REPLAYS {
                return false;
            }
            *replays += 1;
            match self.replay(&candidate, property) {
                Some(found) if found.0.len() <= best.0.len() && found.0 != best.0 => {
                    *best = found;
                    true
                }
                _ => false,
            }
        };
        loop {
            let before = best.0.clone();
            // 1. Drop injected moves, the last first.
            let mut i = best.0.len();
            while i > 0 {
                i -= 1;
                if i < best.0.len() && best.0[i].words().is_some() {
                    let mut c = best.0.clone();
                    c.remove(i);
                    try_candidate(&mut best, c, &mut replays);
                }
            }
            // 2. Out-of-order picks back to the default order.
            for i in 0..best.0.len() {
                if matches!(best.0.get(i), Some(Move::Due(k)) if *k > 0) {
                    let mut c = best.0.clone();
                    c[i] = Move::Due(0);
                    try_candidate(&mut best, c, &mut replays);
                }
            }
            // 3. Drop chunks of steps, halving the chunk down to one step.
            let mut chunk = (best.0.len() / 2).max(1);
            loop {
                let mut start = 0;
                while start < best.0.len() {
                    let end = (start + chunk).min(best.0.len());
                    let mut c = best.0.clone();
                    c.drain(start..end);
                    if !try_candidate(&mut best, c, &mut replays) {
                        start += chunk;
                    }
                }
                if chunk == 1 {
                    break;
                }
                chunk /= 2;
            }
            if best.0 == before || replays >= SHRINK_REPLAYS {
                break;
            }
        }
        (best.0, best.1, replays)
    }

    /// The counterexample a found walk gives (built and named like the search's).
    pub fn counterexample(&self) -> Option<Counterexample> {
        let f = self.found.as_ref()?;
        let mut c = Counterexample::new(&self.setup, f.moves.clone(), f.failure.clone());
        c.scenario.description = format!(
            "{} Walk {} of a simulation from seed {} (walk seed {}: `hwscope check --simulate --seed {} --walks 1` walks it again), {} steps, shrunk to {}.",
            c.scenario.description, f.walk, self.seed, f.seed, f.seed, f.walked, f.moves.len()
        );
        Some(c)
    }
}

/// How a walk ended.
#[derive(Debug, Clone, PartialEq)]
pub enum WalkEnd {
    /// A targeted property failed.
    Failed(Failure),
    /// Nothing more was due within the script.
    Finished,
    /// The walk reached its drawn depth (or the epoch bound).
    Depth,
}

impl Simulation {
    /// `counterexample` or `none-found`.
    pub fn verdict(&self) -> &'static str {
        if self.found.is_some() {
            "counterexample"
        } else {
            "none-found"
        }
    }

    /// The outcome in one or two sentences (never worded as a proof).
    pub fn sentence(&self) -> String {
        let p = &self.progress;
        let walks = format!("{} walks ({} steps)", super::report::thousands(p.walks), super::report::thousands(p.steps));
        match (&self.found, self.counterexample()) {
            (Some(f), Some(c)) => {
                let allowed = if f.failure.allowed { " (permitted by the configuration)" } else { "" };
                format!(
                    "Counterexample: {}{allowed} in walk {} (seed {}), after {walks}; its {} steps shrunk to a replay of {}. {}",
                    f.failure.property,
                    f.walk,
                    f.seed,
                    f.walked,
                    c.step,
                    f.failure.text
                )
            }
            _ => format!(
                "No counterexample in {walks} from seed {}. Random walks sample the bounds; they do not exhaust them: more walks, or other seeds, may still find one.",
                self.seed
            ),
        }
    }

    /// The simulation's bounds in words: the ranges each walk draws from.
    pub fn describe(&self, scenario: &Scenario) -> String {
        let b = &self.setup.config.bounds;
        format!(
            "random walks from seed {}; each draws its depth ({}–{} steps), its fault budget (0–{}), its record budget (0–{}) and its mix of faults from: {}",
            self.seed,
            (b.max_depth / 4).max(1),
            b.max_depth,
            b.faults,
            b.records,
            super::report::describe_bounds(&self.setup.config, scenario)
        )
    }

    /// The simulation as JSON (the CLI's `--json`, the page's result); `extra` adds the driver's figures.
    pub fn to_json(&self, scenario: &Scenario, extra: &[(&str, &dyn crate::json::ToJson)]) -> String {
        use crate::json::Obj;
        let p = &self.progress;
        let mut text = String::new();
        let mut o = Obj::new(&mut text);
        o.field("mode", &"simulate")
            .field("verdict", &self.verdict())
            .field("sentence", &self.sentence())
            .field("bounds", &self.describe(scenario))
            .field("seed", &self.seed)
            .field("walks", &p.walks)
            .field("steps", &p.steps)
            .field("deepest", &p.deepest);
        for (k, v) in extra {
            o.field(k, *v);
        }
        o.opt("allowed_seen", &self.allowed_seen.as_ref().map(|(_, t)| t.clone()));
        if let (Some(f), Some(c)) = (&self.found, self.counterexample()) {
            o.field("walk", &f.walk).field("walk_seed", &f.seed).field("walked", &(f.walked as u64)).field("shrink_replays", &f.replays);
            c.write_fields(&mut o);
        }
        o.end();
        text
    }
}

/// A simulation's progress as JSON (the page's progress line).
impl crate::json::ToJson for SimProgress {
    fn write_json(&self, out: &mut String) {
        crate::json::Obj::new(out)
            .field("walks", &self.walks)
            .field("steps", &self.steps)
            .field("deepest", &self.deepest)
            .field("finished", &self.finished)
            .field("done", &self.done)
            .end();
    }
}
