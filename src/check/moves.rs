//! The choices the search makes, on the engine's generic choice interface:
//! which of the events due at the earliest instant runs next
//! (`Sim::choices`, `Sim::step_choice`), and which scenario [`Action`] from a
//! bounded budget strikes now (crash, with or without unflushed records;
//! restart; a cut or heal of any link, both ways or one; a produced record).
//! Nothing here names a scenario: the moves are enumerated from the state.
//!
//! A fault strikes right after a step, at that step's time, as the next step
//! (`Sim::apply_now`, exactly what an intervention does): a counterexample's
//! faults replay as `at_step` interventions.

use crate::scenario::{Action, Peer};
use crate::sim::Sim;

/// One choice. Small and `Copy`: the search stores one per distinct state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// Run the `k`-th of the events due at the earliest instant, in the default order (0: the default's).
    Due(u8),
    /// The scenario's own intervention for this step (`at_step`): the only choice there is.
    Scripted,
    Crash {
        broker: u8,
        unflushed: u8,
    },
    Restart {
        broker: u8,
    },
    /// Cut the link `from → to`, and `to → from` too when `both`.
    Cut {
        from: u8,
        to: u8,
        both: bool,
    },
    Heal {
        from: u8,
        to: u8,
        both: bool,
    },
    /// One record from producer `producer`.
    Produce {
        producer: u8,
    },
}

impl Move {
    /// Whether the move spends one of the fault budget.
    pub fn is_fault(self) -> bool {
        matches!(self, Move::Crash { .. } | Move::Restart { .. } | Move::Cut { .. } | Move::Heal { .. })
    }

    /// The move in a few words, for an injected one (`crash b1`, `cut 0↔1`).
    pub fn words(self) -> Option<String> {
        Some(match self {
            Move::Due(_) | Move::Scripted => return None,
            Move::Crash { broker, unflushed: 0 } => format!("crash b{broker}"),
            Move::Crash { broker, unflushed } => format!("crash b{broker} losing {unflushed} unflushed"),
            Move::Restart { broker } => format!("restart b{broker}"),
            Move::Cut { from, to, both: true } => format!("cut {from}↔{to}"),
            Move::Cut { from, to, both: false } => format!("cut {from}→{to}"),
            Move::Heal { from, to, both: true } => format!("heal {from}↔{to}"),
            Move::Heal { from, to, both: false } => format!("heal {from}→{to}"),
            Move::Produce { producer } => format!("produce 1 record (producer {producer})"),
        })
    }

    /// The scenario action this move performs (None for `Due` and `Scripted`).
    pub fn action(self) -> Option<Action> {
        let link = |from: u8, to: u8, both: bool| {
            let (a, b) = (Peer::Broker(from as u32), Peer::Broker(to as u32));
            if both {
                vec![(a.clone(), b.clone()), (b, a)]
            } else {
                vec![(a, b)]
            }
        };
        Some(match self {
            Move::Due(_) | Move::Scripted => return None,
            Move::Crash { broker, unflushed } => Action::Crash { broker: broker as u32, unflushed: unflushed as u64, silent: false },
            Move::Restart { broker } => Action::Restart { broker: broker as u32 },
            Move::Cut { from, to, both } => Action::Partition { links: link(from, to, both) },
            Move::Heal { from, to, both } => Action::Heal { links: link(from, to, both) },
            Move::Produce { producer } => Action::Produce { producer: producer as usize, records: 1 },
        })
    }
}

/// Which faults the search may inject, and how many of each budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultMenu {
    pub crash: bool,
    pub restart: bool,
    /// Cuts and heals between brokers, both ways.
    pub cut: bool,
    /// Also one-way cuts (`from → to` only).
    pub one_way: bool,
    /// Crash variants that lose 1..=unflushed records at the log's tail.
    pub unflushed: u8,
}

impl Default for FaultMenu {
    fn default() -> Self {
        FaultMenu { crash: true, restart: true, cut: true, one_way: false, unflushed: 0 }
    }
}

/// What a path has spent so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Used {
    pub faults: u8,
    pub records: u8,
}

impl Used {
    pub fn after(self, mv: Move) -> Used {
        match mv {
            m if m.is_fault() => Used { faults: self.faults + 1, ..self },
            Move::Produce { .. } => Used { records: self.records + 1, ..self },
            _ => self,
        }
    }

    pub fn word(self) -> u64 {
        (self.faults as u64) << 8 | self.records as u64
    }
}

/// Every move from `sim`, in a fixed order: due events (default order first),
/// then crashes, restarts, cuts, heals, produced records. `scripted` is whether
/// the scenario has an intervention for the next step.
#[allow(clippy::too_many_arguments)]
pub fn moves(sim: &Sim, menu: &FaultMenu, faults_left: bool, records_left: bool, scripted: bool, out: &mut Vec<Move>) {
    out.clear();
    if scripted {
        out.push(Move::Scripted);
        return;
    }
    let due = due_count(sim);
    for k in 0..due.min(u8::MAX as usize) {
        out.push(Move::Due(k as u8));
    }
    // Faults and produced records strike "now", so only while the run's time lasts.
    if sim.now > sim.scenario.stop_at_ms {
        return;
    }
    let n = sim.brokers.len() as u8;
    if faults_left {
        if menu.crash {
            for b in 0..n {
                let broker = &sim.brokers[b as usize];
                if broker.alive {
                    out.push(Move::Crash { broker: b, unflushed: 0 });
                    let produced = broker.log.leo() - broker.log.base();
                    for k in 1..=(menu.unflushed as u64).min(produced) {
                        out.push(Move::Crash { broker: b, unflushed: k as u8 });
                    }
                }
            }
        }
        if menu.restart {
            for b in 0..n {
                if !sim.brokers[b as usize].alive {
                    out.push(Move::Restart { broker: b });
                }
            }
        }
        if menu.cut {
            let cut = |a: u8, b: u8| sim.net.is_cut(crate::sim::Node::Broker(a as u32), crate::sim::Node::Broker(b as u32));
            for a in 0..n {
                for b in (a + 1)..n {
                    if !cut(a, b) && !cut(b, a) {
                        out.push(Move::Cut { from: a, to: b, both: true });
                    }
                }
            }
            if menu.one_way {
                for a in 0..n {
                    for b in 0..n {
                        if a != b && !cut(a, b) {
                            out.push(Move::Cut { from: a, to: b, both: false });
                        }
                    }
                }
            }
            for a in 0..n {
                for b in (a + 1)..n {
                    if cut(a, b) && cut(b, a) {
                        out.push(Move::Heal { from: a, to: b, both: true });
                    }
                }
            }
            if menu.one_way {
                for a in 0..n {
                    for b in 0..n {
                        if a != b && cut(a, b) {
                            out.push(Move::Heal { from: a, to: b, both: false });
                        }
                    }
                }
            }
        }
    }
    if records_left {
        for p in 0..sim.producers.len().min(u8::MAX as usize) {
            out.push(Move::Produce { producer: p as u8 });
        }
    }
}

/// How many events are due at the earliest instant (0 when the run is over).
pub fn due_count(sim: &Sim) -> usize {
    let queue = &sim.sched.queue;
    let Some(&((first, _, _), _)) = queue.last() else {
        return 0;
    };
    if first > sim.scenario.stop_at_ms {
        return 0;
    }
    queue.iter().rev().take_while(|((t, _, _), _)| *t == first).count()
}

/// Performs a move. `scripted` is the scenario's intervention for this step, if any.
pub fn apply(sim: &mut Sim, mv: Move, scripted: Option<&Action>) {
    match mv {
        Move::Due(k) => {
            let queue = &sim.sched.queue;
            let key = queue[queue.len() - 1 - k as usize].0;
            sim.step_choice(key);
        }
        Move::Scripted => {
            if let Some(a) = scripted {
                sim.apply_now(a.clone());
            }
        }
        other => {
            if let Some(a) = other.action() {
                sim.apply_now(a);
            }
        }
    }
}
