//! The native search driver: the library's single-threaded search with
//! progress on stderr, or the same search with each level expanded on all
//! cores (std threads, no runtime).
//!
//! The parallel search gives exactly the single-threaded answer: the same
//! counts and the same counterexample. A state's identity in the search is
//! (parent's id, move index), which orders states as the single-threaded
//! search finds them; when two threads reach one fingerprint in a level, the
//! smaller identity wins, and at the end of each level the winners are sorted
//! and numbered in that order. States never move between threads (a `Sim`
//! shares memory with its copies and is not `Send`): when one thread holds
//! more than its share, another thread rebuilds some of its states by
//! replaying their paths from the start.

use crate::check::search::{PassThrough, Paths, Setup};
use crate::check::{Config, Counterexample, Failure, Finished, Outcome, Progress, Search, StopReason, Used};
use crate::sim::Sim;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Barrier, Mutex, RwLock};
use std::time::Instant;

/// What a finished search reports, with the driver's figures.
pub struct Report {
    pub finished: Finished,
    pub seconds: f64,
    pub threads: usize,
}

/// Runs the search with `threads` threads; progress on stderr unless `quiet`.
pub fn search(config: &Config, scenario: &crate::Scenario, threads: usize, start: Instant, quiet: bool) -> Report {
    if threads <= 1 {
        single(config, scenario, start, quiet)
    } else {
        parallel(config, scenario, threads, start, quiet)
    }
}

fn print_progress(p: &Progress, t: f64) {
    eprintln!(
        "  depth {:>3}  {:>10} distinct  {:>10} explored  {:>9} queued  {:>8.0} distinct/s  ~{} MiB",
        p.depth,
        p.distinct,
        p.explored,
        p.queued,
        p.distinct as f64 / t.max(1e-9),
        p.memory_bytes >> 20
    );
}

fn single(config: &Config, scenario: &crate::Scenario, start: Instant, quiet: bool) -> Report {
    let mut search = Search::new(config.clone(), scenario);
    let mut last = 0.0;
    loop {
        let p = search.run(4096);
        let t = start.elapsed().as_secs_f64();
        if !quiet && t - last > 1.0 {
            last = t;
            print_progress(&p, t);
        }
        if p.done {
            break;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    Report { finished: Finished::from_search(&search), seconds, threads: 1 }
}

const SHARDS: usize = 64;

/// A fingerprint's claim in the visited set: who reached it first in order.
#[derive(Clone, Copy)]
struct Claim {
    /// (parent id << 8) | move index: the order the single-threaded search would meet it in.
    key: u64,
    level: u32,
    thread: u16,
    local: u32,
}

type Shard = Mutex<HashMap<u64, Claim, BuildHasherDefault<PassThrough>>>;

/// A state reached in this level, held by the thread that made it.
struct Candidate {
    fp: u64,
    key: u64,
    sim: Option<Sim>,
    used: Used,
    failure: Option<Failure>,
}

/// A level's winner as the thread reports it to the leader.
struct Winner {
    key: u64,
    thread: u16,
    local: u32,
    failure: Option<Failure>,
    beyond_epochs: bool,
}

/// What each thread reports after a level.
#[derive(Default)]
struct LevelReport {
    winners: Vec<Winner>,
    /// (parent id, moves from it), for exact transition counts.
    moves: Vec<(u32, u32)>,
    bytes: u64,
}

/// The leader's decisions for the next level.
#[derive(Default)]
struct Plan {
    /// Per thread: (local index, new id) of the winners it keeps in its frontier.
    keep: Vec<Vec<(u32, u32)>>,
    /// Per thread: ids of states it rebuilds by replay.
    receive: Vec<Vec<u32>>,
    stop: bool,
}

/// The leader's tally: progress, the outcome once known, the first permitted loss seen.
type Tally = (Progress, Option<Outcome>, Option<(u32, Failure)>);

struct Shared<'a> {
    setup: &'a Setup,
    shards: Vec<Shard>,
    nodes: RwLock<Paths>,
    barrier: Barrier,
    reports: Vec<Mutex<LevelReport>>,
    plan: RwLock<Plan>,
    tally: Mutex<Tally>,
    threads: usize,
    start: Instant,
    quiet: bool,
}

fn parallel(config: &Config, scenario: &crate::Scenario, threads: usize, start: Instant, quiet: bool) -> Report {
    let setup = Setup::new(config.clone(), scenario);
    let shared = Shared {
        setup: &setup,
        shards: (0..SHARDS).map(|_| Mutex::new(HashMap::default())).collect(),
        nodes: RwLock::new(Paths::new()),
        barrier: Barrier::new(threads),
        reports: (0..threads).map(|_| Mutex::new(LevelReport::default())).collect(),
        plan: RwLock::new(Plan::default()),
        tally: Mutex::new((Progress { explored: 1, distinct: 1, queued: 1, ..Progress::default() }, None, None)),
        threads,
        start,
        quiet,
    };
    {
        let root = Sim::new(setup.base.clone());
        let fp = setup.fingerprint(&root, Used::default());
        lock(&shared.shards[shard(fp)]).insert(fp, Claim { key: 0, level: 0, thread: 0, local: 0 });
    }
    std::thread::scope(|scope| {
        for t in 0..threads {
            let shared = &shared;
            scope.spawn(move || worker(shared, t));
        }
    });
    let seconds = start.elapsed().as_secs_f64();
    let (mut progress, outcome, allowed) = std::mem::take(&mut *lock(&shared.tally));
    progress.done = true;
    let outcome = outcome.unwrap_or(Outcome::Exhausted);
    let nodes = shared.nodes.into_inner().unwrap_or_else(|e| e.into_inner());
    let counterexample = match &outcome {
        Outcome::Counterexample { node, failure } => Some(Counterexample::new(&setup, nodes.replay(&setup, *node).2, failure.clone())),
        _ => None,
    };
    let finished = Finished { outcome, progress, counterexample, allowed_seen: allowed.map(|(_, f)| f.text) };
    Report { finished, seconds, threads }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn shard(fp: u64) -> usize {
    ((fp >> 32) as usize) % SHARDS
}

/// One thread: expand its part of each level, report, follow the plan.
fn worker(shared: &Shared, t: usize) {
    let setup = shared.setup;
    let root = Sim::new(setup.base.clone());
    let mut frontier: Vec<(u32, Sim, Used)> = if t == 0 { vec![(0, root.clone(), Used::default())] } else { Vec::new() };
    let mut level = 0u32;
    let mut moves = Vec::new();
    let mut spare = crate::sim::Spare::default();
    loop {
        // Expand.
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut report = LevelReport::default();
        for (id, sim, used) in frontier.drain(..) {
            setup.moves(&sim, used, &mut moves);
            report.moves.push((id, moves.len() as u32));
            let mut parent = Some(sim);
            for (i, &mv) in moves.iter().enumerate() {
                let mut child = if i + 1 == moves.len() {
                    parent.take().expect("kept for the last move")
                } else {
                    parent.as_ref().expect("parent").clone()
                };
                child.lend(&mut spare);
                setup.apply(&mut child, mv);
                let failure = crate::check::properties::failure(&child, &setup.config.target);
                child.reclaim(&mut spare);
                crate::check::shed(&mut child);
                let child_used = used.after(mv);
                let fp = setup.fingerprint(&child, child_used);
                let key = (id as u64) << 8 | i as u64;
                let local = candidates.len() as u32;
                let mut shard = lock(&shared.shards[shard(fp)]);
                let claim = Claim { key, level: level + 1, thread: t as u16, local };
                let keep = match shard.get(&fp) {
                    None => true,
                    Some(c) => c.level == level + 1 && key < c.key,
                };
                if keep {
                    shard.insert(fp, claim);
                    drop(shard);
                    candidates.push(Candidate { fp, key, sim: Some(child), used: child_used, failure });
                }
            }
        }
        shared.barrier.wait();
        // Keep what won.
        for (local, c) in candidates.iter_mut().enumerate() {
            let claim = *lock(&shared.shards[shard(c.fp)]).get(&c.fp).expect("claimed");
            if claim.thread as usize == t && claim.local == local as u32 {
                let sim = c.sim.as_ref().expect("a candidate's state");
                let failure = c.failure.take();
                report.winners.push(Winner {
                    key: c.key,
                    thread: t as u16,
                    local: local as u32,
                    failure,
                    beyond_epochs: setup.beyond_epochs(sim),
                });
                report.bytes += crate::check::approx_bytes(sim);
            } else {
                c.sim = None;
            }
        }
        *lock(&shared.reports[t]) = report;
        shared.barrier.wait();
        if t == 0 {
            lead(shared, level);
        }
        shared.barrier.wait();
        // Follow the plan.
        let plan = shared.plan.read().unwrap_or_else(|e| e.into_inner());
        if plan.stop {
            return;
        }
        for &(local, id) in &plan.keep[t] {
            let c = &mut candidates[local as usize];
            frontier.push((id, c.sim.take().expect("a winner's state"), c.used));
        }
        if !plan.receive[t].is_empty() {
            let nodes = shared.nodes.read().unwrap_or_else(|e| e.into_inner());
            for &id in &plan.receive[t] {
                let (mut sim, used, _) = nodes.replay(setup, id);
                crate::check::shed(&mut sim);
                frontier.push((id, sim, used));
            }
        }
        drop(plan);
        level += 1;
        shared.barrier.wait();
    }
}

/// The leader between levels: number the winners in order, find the first
/// counterexample, count exactly, balance the threads, decide whether to go on.
fn lead(shared: &Shared, level: u32) {
    let setup = shared.setup;
    let bounds = &setup.config.bounds;
    let mut winners = Vec::new();
    let mut moves = Vec::new();
    let mut bytes = 0;
    for r in &shared.reports {
        let mut r = lock(r);
        winners.append(&mut r.winners);
        moves.append(&mut r.moves);
        bytes += r.bytes;
    }
    winners.sort_unstable_by_key(|w| w.key);
    moves.sort_unstable();
    let mut guard = lock(&shared.tally);
    let tally = &mut *guard;
    let mut nodes = shared.nodes.write().unwrap_or_else(|e| e.into_inner());
    let base = nodes.len() as u32;
    let target = &setup.config.target;
    // The first failing state, as the single-threaded search meets it.
    let first_failure = winners.iter().position(|w| w.failure.as_ref().is_some_and(|f| !f.allowed || target.allowed));
    let counted = first_failure.map_or(winners.len(), |i| i + 1);
    if tally.2.is_none() {
        if let Some((i, w)) = winners[..counted].iter().enumerate().find(|(_, w)| w.failure.as_ref().is_some_and(|f| f.allowed)) {
            tally.2 = Some((base + i as u32, w.failure.clone().expect("a failure")));
        }
    }
    for w in &winners[..counted] {
        nodes.push((w.key >> 8) as u32, (w.key & 0xff) as u8);
    }
    let explored: u64 = match first_failure {
        None => moves.iter().map(|&(_, n)| n as u64).sum(),
        Some(i) => {
            let (parent, index) = ((winners[i].key >> 8) as u32, winners[i].key & 0xff);
            moves.iter().filter(|&&(p, _)| p < parent).map(|&(_, n)| n as u64).sum::<u64>() + index + 1
        }
    };
    let mut plan = Plan { keep: vec![Vec::new(); shared.threads], receive: vec![Vec::new(); shared.threads], stop: false };
    let (progress, outcome) = (&mut tally.0, &mut tally.1);
    progress.explored += explored;
    progress.distinct = nodes.len() as u64;
    progress.depth = level;
    let seen_bytes = (progress.distinct * 17 * 2) + nodes.bytes();
    progress.memory_bytes = seen_bytes + bytes;
    progress.peak_bytes = progress.peak_bytes.max(progress.memory_bytes);
    if let Some(i) = first_failure {
        let failure = winners[i].failure.clone().expect("a failure");
        *outcome = Some(Outcome::Counterexample { node: base + i as u32, failure });
        plan.stop = true;
    }
    let expand_next = level + 2 <= bounds.max_depth;
    let mut loads = vec![0usize; shared.threads];
    let mut queued = 0;
    if !plan.stop && expand_next {
        for (i, w) in winners.iter().enumerate() {
            if w.beyond_epochs {
                progress.pruned += 1;
                continue;
            }
            plan.keep[w.thread as usize].push((w.local, base + i as u32));
            loads[w.thread as usize] += 1;
            queued += 1;
        }
    } else {
        // As the single-threaded search: states after the first failure are never met, and it is not pruned.
        let met = first_failure.unwrap_or(winners.len());
        progress.pruned += winners[..met].iter().filter(|w| w.beyond_epochs).count() as u64;
    }
    progress.queued = queued;
    if !plan.stop && queued == 0 {
        *outcome = Some(Outcome::Exhausted);
        plan.stop = true;
    }
    if !plan.stop {
        if bounds.memory_bytes.is_some_and(|m| progress.memory_bytes > m) {
            *outcome = Some(Outcome::Stopped(StopReason::Memory));
            plan.stop = true;
        } else if bounds.max_states.is_some_and(|m| progress.distinct >= m) {
            *outcome = Some(Outcome::Stopped(StopReason::States));
            plan.stop = true;
        }
    }
    if !plan.stop {
        balance(&mut plan, &loads);
        progress.replayed += plan.receive.iter().map(|r| r.len() as u64).sum::<u64>();
    }
    if !shared.quiet {
        print_progress(progress, shared.start.elapsed().as_secs_f64());
    }
    *shared.plan.write().unwrap_or_else(|e| e.into_inner()) = plan;
}

/// Moves states from threads over their share to threads under it (the
/// receivers replay them); a small imbalance is not worth the replays.
fn balance(plan: &mut Plan, loads: &[usize]) {
    let total: usize = loads.iter().sum();
    let share = total.div_ceil(loads.len());
    let slack = share / 8 + 1;
    let mut takers: Vec<(usize, usize)> =
        loads.iter().enumerate().filter(|(_, &l)| l + slack < share).map(|(t, &l)| (t, share - l)).collect();
    for (giver, &load) in loads.iter().enumerate() {
        if load <= share + slack {
            continue;
        }
        let mut excess = load - share;
        while excess > 0 {
            let Some((taker, need)) = takers.last_mut() else { break };
            let n = excess.min(*need);
            let start = plan.keep[giver].len() - n;
            let moved: Vec<u32> = plan.keep[giver].drain(start..).map(|(_, id)| id).collect();
            plan.receive[*taker].extend(moved);
            excess -= n;
            *need -= n;
            if *need == 0 {
                takers.pop();
            }
        }
    }
}
