//! Breadth-first search over the choices, level by level, so the first
//! counterexample found is a shortest one. Resumable (`run(budget)` explores at
//! most `budget` transitions and returns), single-threaded and deterministic:
//! parents are expanded in the order they were found, moves in `moves`' fixed
//! order, and a state reached twice keeps its first path. The native parallel
//! driver (`cli/check.rs`) reproduces this order exactly.

use super::fingerprint::{fingerprint_with, Perm};
use super::moves::{apply, moves, Move, Used};
use super::properties::{failure, Failure};
use super::{approx_bytes, Config, Outcome, Progress, StopReason};
use crate::scenario::{Action, Scenario};
use crate::sim::vecmap::VecMap;
use crate::sim::{Sim, Spare};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// A state the search knows: how it was first reached.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    /// Index of the parent in `nodes` (the root is its own parent).
    pub parent: u32,
    pub mv: Move,
}

/// A state waiting to be expanded.
pub struct Queued {
    pub node: u32,
    /// Boxed: the queues move states around, and a box moves as a pointer.
    pub sim: Box<Sim>,
    pub used: Used,
    /// Its share of the frontier's memory when it was queued (`approx_bytes`).
    pub bytes: u32,
}

/// Fingerprints are already hashes: the map uses them as they are.
#[derive(Default)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

pub type Seen = HashMap<u64, u32, BuildHasherDefault<PassThrough>>;

/// What the search holds besides the states: the fixed parts of its setup.
pub struct Setup {
    pub config: Config,
    pub base: Scenario,
    /// The scenario's own interventions, by the step they are.
    pub scripted: VecMap<u64, Action>,
    /// The renamings of interchangeable followers (the identity first).
    pub perms: Vec<Perm>,
}

impl Setup {
    pub fn new(config: Config, scenario: &Scenario) -> Setup {
        let base = config.base_scenario(scenario);
        let mut scripted = VecMap::new();
        for (i, e) in base.events.iter().enumerate() {
            if let (Some(step), Ok(a)) = (e.at_step, base.action(&format!("events[{i}]"), e)) {
                scripted.insert(step, a);
            }
        }
        let perms = if config.symmetry { super::symmetry::perms(&base) } else { vec![Perm::IDENTITY] };
        Setup { config, base, scripted, perms }
    }

    /// The canonical fingerprint: the least over the renamings. While one of the
    /// scenario's `at_step` interventions is still ahead, the step number decides
    /// when it strikes, so it is state too.
    pub fn fingerprint(&self, sim: &Sim, used: Used) -> u64 {
        let ahead = self.scripted.iter().any(|(&step, _)| step > sim.step);
        let extra = if ahead { used.word() ^ super::fingerprint::mix(sim.step + 1) } else { used.word() };
        let sent = self.config.menu.catch > 0;
        self.perms.iter().map(|p| fingerprint_with(sim, p, extra, sent)).min().unwrap_or(0)
    }

    /// The moves from a state (into `out`).
    pub fn moves(&self, sim: &Sim, used: Used, out: &mut Vec<Move>) {
        let b = &self.config.bounds;
        let scripted = self.scripted.contains_key(&(sim.step + 1));
        moves(sim, &self.config.menu, used.faults < b.faults, used.records < b.records, scripted, out);
    }

    /// The state after a move.
    pub fn apply(&self, sim: &mut Sim, mv: Move) {
        let scripted = self.scripted.get(&(sim.step + 1));
        apply(sim, mv, scripted);
    }

    /// Whether a state is past the leader-epoch bound (it is counted, not expanded).
    pub fn beyond_epochs(&self, sim: &Sim) -> bool {
        self.config.bounds.leader_epochs.is_some_and(|max| sim.controller.leader_epoch > max as i32)
    }
}

/// A search in progress.
pub struct Search {
    pub setup: Setup,
    pub nodes: Vec<Node>,
    seen: Seen,
    /// The level being expanded, in the order its states were found.
    current: VecDeque<Queued>,
    next: Vec<Queued>,
    depth: u32,
    explored: u64,
    pruned: u64,
    frontier_bytes: u64,
    /// The most memory held at once, estimated.
    peak_bytes: u64,
    outcome: Option<Outcome>,
    /// The first permitted loss seen (when those are not counterexamples).
    pub allowed_seen: Option<(u32, Failure)>,
    moves: Vec<Move>,
    /// The step's buffers, lent to each child for its step (`Sim::lend`).
    spare: Spare,
}

impl Search {
    pub fn new(config: Config, scenario: &Scenario) -> Search {
        let setup = Setup::new(config, scenario);
        let root = Sim::new(setup.base.clone());
        let used = Used::default();
        let mut seen = Seen::default();
        seen.insert(setup.fingerprint(&root, used), 0);
        let frontier_bytes = approx_bytes(&root);
        Search {
            setup,
            nodes: vec![Node { parent: 0, mv: Move::Scripted }],
            seen,
            current: VecDeque::from(vec![Queued { node: 0, sim: Box::new(root), used, bytes: frontier_bytes as u32 }]),
            next: Vec::new(),
            depth: 0,
            explored: 1,
            pruned: 0,
            frontier_bytes,
            peak_bytes: 0,
            outcome: None,
            allowed_seen: None,
            moves: Vec::new(),
            spare: Spare::default(),
        }
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Memory held, estimated: the visited set, the paths, the queued states.
    pub fn memory_bytes(&self) -> u64 {
        let seen = self.seen.capacity() as u64 * 17;
        let nodes = self.nodes.capacity() as u64 * std::mem::size_of::<Node>() as u64;
        seen + nodes + self.frontier_bytes
    }

    pub fn progress(&self) -> Progress {
        Progress {
            explored: self.explored,
            distinct: self.nodes.len() as u64,
            queued: (self.current.len() + self.next.len()) as u64,
            depth: self.depth,
            pruned: self.pruned,
            memory_bytes: self.memory_bytes(),
            peak_bytes: self.peak_bytes.max(self.memory_bytes()),
            replayed: 0,
            done: self.outcome.is_some(),
        }
    }

    /// Explores up to `budget` transitions; returns the progress after.
    pub fn run(&mut self, budget: u64) -> Progress {
        let mut spent = 0;
        while self.outcome.is_none() && spent < budget {
            let Some(q) = self.current.pop_front() else {
                if self.next.is_empty() {
                    self.outcome = Some(Outcome::Exhausted);
                    break;
                }
                self.current = VecDeque::from(std::mem::take(&mut self.next));
                self.depth += 1;
                continue;
            };
            spent += self.expand(q);
            let held = self.memory_bytes();
            self.peak_bytes = self.peak_bytes.max(held);
            if self.outcome.is_none() {
                if let Some(limit) = self.setup.config.bounds.memory_bytes {
                    if held > limit {
                        self.outcome = Some(Outcome::Stopped(StopReason::Memory));
                    }
                }
                if let Some(limit) = self.setup.config.bounds.max_states {
                    if self.nodes.len() as u64 >= limit {
                        self.outcome = Some(Outcome::Stopped(StopReason::States));
                    }
                }
            }
        }
        self.progress()
    }

    /// Expands one state; returns the transitions explored.
    fn expand(&mut self, q: Queued) -> u64 {
        let Queued { node, sim, used, bytes } = q;
        self.frontier_bytes = self.frontier_bytes.saturating_sub(bytes as u64);
        let mut moves = std::mem::take(&mut self.moves);
        self.setup.moves(&sim, used, &mut moves);
        let count = moves.len();
        let mut parent = Some(sim);
        for (i, &mv) in moves.iter().enumerate() {
            let mut child = if i + 1 == count {
                parent.take().expect("kept for the last move")
            } else {
                Box::new(Sim::clone(parent.as_ref().expect("parent")))
            };
            child.lend(&mut self.spare);
            self.setup.apply(&mut child, mv);
            self.explored += 1;
            if self.child(node, mv, child, used.after(mv)) {
                break;
            }
        }
        self.moves = moves;
        count as u64
    }

    /// A new state: counted, checked, queued. Returns true when the search is over.
    fn child(&mut self, parent: u32, mv: Move, mut sim: Box<Sim>, used: Used) -> bool {
        let fp = self.setup.fingerprint(&sim, used);
        let id = self.nodes.len() as u32;
        if self.seen.contains_key(&fp) {
            sim.reclaim(&mut self.spare);
            return false;
        }
        self.seen.insert(fp, id);
        self.nodes.push(Node { parent, mv });
        if let Some(f) = failure(&sim, &self.setup.config.target) {
            if !f.allowed || self.setup.config.target.allowed {
                self.outcome = Some(Outcome::Counterexample { node: id, failure: f });
                return true;
            }
            if self.allowed_seen.is_none() {
                self.allowed_seen = Some((id, f));
            }
        }
        sim.reclaim(&mut self.spare);
        if self.setup.beyond_epochs(&sim) {
            self.pruned += 1;
            return false;
        }
        if self.depth + 1 < self.setup.config.bounds.max_depth {
            super::shed(&mut sim);
            let bytes = approx_bytes(&sim);
            self.frontier_bytes += bytes;
            self.next.push(Queued { node: id, sim, used, bytes: bytes as u32 });
        }
        false
    }

    /// The moves from the start to a state.
    pub fn path(&self, node: u32) -> Vec<Move> {
        path(&self.nodes, node)
    }
}

/// The moves from the root to `node`, following parents.
pub fn path(nodes: &[Node], mut node: u32) -> Vec<Move> {
    let mut out = Vec::new();
    while node != 0 {
        let n = nodes[node as usize];
        out.push(n.mv);
        node = n.parent;
    }
    out.reverse();
    out
}
