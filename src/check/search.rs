//! Breadth-first search over the choices, level by level, so the first
//! counterexample found is a shortest one. Resumable (`run(budget)` explores at
//! most `budget` transitions and returns), single-threaded and deterministic:
//! parents are expanded in the order they were found, moves in `moves`' fixed
//! order, and a state reached twice keeps its first path. The native parallel
//! driver (`cli/check.rs`) reproduces this order exactly.

use super::fingerprint::{fingerprint_with, Perm};
use super::moves::{apply, moves, Move, Used};
use super::properties::{failure, Failure};
use super::reuse::Reuse;
use super::{approx_bytes, Config, Outcome, Progress, StopReason};
use crate::scenario::{Action, Scenario};
use crate::sim::vecmap::VecMap;
use crate::sim::{Sim, Spare};
use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// How each state the search knows was first reached: its parent's id and
/// which of the parent's moves led to it (the move's place in `Setup::moves`'
/// list, below 256 as the parallel driver's keys assume). Five bytes a state
/// where a `(parent, Move)` pair took twelve; the moves themselves are found
/// again by replaying from the start (`Paths::replay`), which only a
/// counterexample's path and the parallel driver's rebuilt states need.
#[derive(Debug, Clone)]
pub struct Paths {
    /// Index of each state's parent (the root is its own parent).
    parents: Vec<u32>,
    /// Which of the parent's moves.
    moves: Vec<u8>,
}

impl Paths {
    /// The root alone.
    pub fn new() -> Paths {
        Paths { parents: vec![0], moves: vec![0] }
    }

    pub fn push(&mut self, parent: u32, index: u8) {
        self.parents.push(parent);
        self.moves.push(index);
    }

    pub fn len(&self) -> usize {
        self.parents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// The memory they hold.
    pub fn bytes(&self) -> u64 {
        (self.parents.capacity() * 4 + self.moves.capacity()) as u64
    }

    /// The state `node` rebuilt from the start, what it used, and the moves to it.
    pub fn replay(&self, setup: &Setup, mut node: u32) -> (Sim, Used, Vec<Move>) {
        let mut indexes = Vec::new();
        while node != 0 {
            indexes.push(self.moves[node as usize]);
            node = self.parents[node as usize];
        }
        let mut sim = Sim::new(setup.base.clone());
        let mut used = Used::default();
        let (mut path, mut choices) = (Vec::with_capacity(indexes.len()), Vec::new());
        for &i in indexes.iter().rev() {
            setup.moves(&sim, used, &mut choices);
            let mv = choices[i as usize];
            setup.apply(&mut sim, mv);
            used = used.after(mv);
            path.push(mv);
        }
        (sim, used, path)
    }
}

impl Default for Paths {
    fn default() -> Paths {
        Paths::new()
    }
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

/// The fingerprints met: a set, not a map to the state's id, which nothing read
/// (9 bytes a slot, not 17: on the reference search, 9.6 of the 187 bytes per state).
pub type Seen = HashSet<u64, BuildHasherDefault<PassThrough>>;

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
    pub nodes: Paths,
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
    /// Children thrown away, kept for the next copy (`reuse`).
    reuse: Reuse,
}

impl Search {
    pub fn new(config: Config, scenario: &Scenario) -> Search {
        let setup = Setup::new(config, scenario);
        let root = Sim::new(setup.base.clone());
        let reuse = Reuse::new(&root);
        let used = Used::default();
        let mut seen = Seen::default();
        seen.insert(setup.fingerprint(&root, used));
        let frontier_bytes = approx_bytes(&root);
        Search {
            setup,
            nodes: Paths::new(),
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
            reuse,
        }
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Memory held, estimated: the visited set, the paths, the queued states.
    pub fn memory_bytes(&self) -> u64 {
        let seen = self.seen.capacity() as u64 * 9;
        seen + self.nodes.bytes() + self.frontier_bytes
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
                // The next level goes into the room the level just expanded had (empty now):
                // grown from nothing each level, the list was copied at each doubling.
                let room = Vec::from(std::mem::take(&mut self.current));
                self.current = VecDeque::from(std::mem::replace(&mut self.next, room));
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
                self.reuse.copy(parent.as_ref().expect("parent"))
            };
            child.lend(&mut self.spare);
            self.setup.apply(&mut child, mv);
            self.explored += 1;
            if self.child(node, i as u8, child, used.after(mv)) {
                break;
            }
        }
        self.moves = moves;
        count as u64
    }

    /// A new state: counted, checked, queued. Returns true when the search is over.
    fn child(&mut self, parent: u32, index: u8, mut sim: Box<Sim>, used: Used) -> bool {
        let fp = self.setup.fingerprint(&sim, used);
        let id = self.nodes.len() as u32;
        if !self.seen.insert(fp) {
            sim.reclaim(&mut self.spare);
            self.reuse.give_back(sim);
            return false;
        }
        self.nodes.push(parent, index);
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
            self.reuse.give_back(sim);
            return false;
        }
        if self.depth + 1 < self.setup.config.bounds.max_depth {
            super::shed(&mut sim);
            let bytes = approx_bytes(&sim);
            self.frontier_bytes += bytes;
            self.next.push(Queued { node: id, sim, used, bytes: bytes as u32 });
        } else {
            self.reuse.give_back(sim);
        }
        false
    }

    /// The moves from the start to a state.
    pub fn path(&self, node: u32) -> Vec<Move> {
        self.nodes.replay(&self.setup, node).2
    }
}
