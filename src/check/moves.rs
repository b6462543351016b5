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

use crate::scenario::{Action, Endpoint, Peer};
use crate::sim::{Node, Sim};

/// Messages on the wire across a new cut that a catch mask can name (the first, by id).
pub const CATCH_WINDOW: usize = 16;

/// One end of a link: the generic endpoint set (brokers, the controller,
/// producers, consumers that have joined), by index. Small and `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum End {
    Broker(u8),
    Controller,
    Producer(u8),
    Consumer(u8),
}

impl End {
    pub fn node(self) -> Node {
        match self {
            End::Broker(b) => Node::Broker(b as u32),
            End::Controller => Node::Controller,
            End::Producer(p) => Node::Producer(p as usize),
            End::Consumer(c) => Node::Consumer(c as usize),
        }
    }

    fn peer(self, sim: &Sim) -> Peer {
        match self {
            End::Broker(b) => Peer::Broker(b as u32),
            End::Controller => Peer::Controller,
            End::Producer(p) => Peer::Producer(p as usize),
            End::Consumer(c) => Peer::Consumer(sim.consumers[c as usize].spec.id.clone()),
        }
    }

    /// As a scenario file names it.
    pub fn endpoint(self, sim: &Sim) -> Endpoint {
        match self {
            End::Broker(b) => Endpoint::Broker(b as u32),
            End::Controller => Endpoint::Controller,
            End::Producer(p) => Endpoint::Client(sim.scenario.producers[p as usize].id.clone()),
            End::Consumer(c) => Endpoint::Client(sim.consumers[c as usize].spec.id.clone()),
        }
    }

    fn word(self) -> String {
        match self {
            End::Broker(b) => format!("{b}"),
            End::Controller => "controller".to_string(),
            End::Producer(p) => format!("producer {p}"),
            End::Consumer(c) => format!("consumer {c}"),
        }
    }
}

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
    /// Cut the link `from → to`, and `to → from` too when `both`; `catch`: which of
    /// the messages on the wire across it (bit i: the i-th by id, [`on_the_wire`])
    /// the cut catches instead of letting them arrive.
    Cut {
        from: End,
        to: End,
        both: bool,
        catch: u16,
    },
    Heal {
        from: End,
        to: End,
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
        let link = |from: End, to: End, both: bool| format!("{}{}{}", from.word(), if both { "↔" } else { "→" }, to.word());
        Some(match self {
            Move::Due(_) | Move::Scripted => return None,
            Move::Crash { broker, unflushed: 0 } => format!("crash b{broker}"),
            Move::Crash { broker, unflushed } => format!("crash b{broker} losing {unflushed} unflushed"),
            Move::Restart { broker } => format!("restart b{broker}"),
            Move::Cut { from, to, both, catch: 0 } => format!("cut {}", link(from, to, both)),
            Move::Cut { from, to, both, catch } => {
                format!("cut {} catching {} on the wire", link(from, to, both), catch.count_ones())
            }
            Move::Heal { from, to, both } => format!("heal {}", link(from, to, both)),
            Move::Produce { producer } => format!("produce 1 record (producer {producer})"),
        })
    }

    /// The scenario action this move performs in `sim` (None for `Due` and `Scripted`).
    pub fn action(self, sim: &Sim) -> Option<Action> {
        let link = |from: End, to: End, both: bool| {
            let (a, b) = (from.peer(sim), to.peer(sim));
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
            Move::Cut { from, to, both, catch } => {
                Action::Partition { links: link(from, to, both), catch: caught(sim, from, to, both, catch), channel: None }
            }
            Move::Heal { from, to, both } => Action::Heal { links: link(from, to, both), channel: None },
            Move::Produce { producer } => Action::Produce { producer: producer as usize, records: 1 },
        })
    }
}

/// The ids of the messages a cut's `catch` mask names.
pub fn caught(sim: &Sim, from: End, to: End, both: bool, catch: u16) -> Vec<u64> {
    if catch == 0 {
        return Vec::new();
    }
    on_the_wire(sim, from, to, both).into_iter().enumerate().filter(|(i, _)| catch >> i & 1 == 1).map(|(_, id)| id).collect()
}

/// Messages on the wire (sent, not held) across the link(s) a cut would cut, by
/// id, at most [`CATCH_WINDOW`].
pub fn on_the_wire(sim: &Sim, from: End, to: End, both: bool) -> Vec<u64> {
    let (a, b) = (from.node(), to.node());
    let mut ids: Vec<u64> = sim
        .in_flight
        .values()
        .filter(|(m, _)| m.held.is_none() && ((m.from == a && m.to == b) || (both && m.from == b && m.to == a)))
        .map(|(m, _)| m.id)
        .collect();
    ids.sort_unstable();
    ids.truncate(CATCH_WINDOW);
    ids
}

/// Which faults the search may inject, and how many of each budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultMenu {
    pub crash: bool,
    pub restart: bool,
    /// Cuts and heals between brokers, both ways.
    pub cut: bool,
    /// Cuts and heals between the controller and a broker.
    pub controller: bool,
    /// Cuts and heals between a client (producer, consumer) and a broker.
    pub clients: bool,
    /// Also one-way cuts (`from → to` only) of the links above.
    pub one_way: bool,
    /// Crash variants that lose 1..=unflushed records at the log's tail.
    pub unflushed: u8,
    /// A cut may also catch up to this many of the messages on the wire across it
    /// (every subset of at most `catch` of the first [`CATCH_WINDOW`] by id); 0: what
    /// is on the wire arrives.
    pub catch: u8,
}

impl Default for FaultMenu {
    fn default() -> Self {
        FaultMenu { crash: true, restart: true, cut: true, controller: false, clients: false, one_way: false, unflushed: 0, catch: 0 }
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

/// The links the menu lets the search cut: pairs of endpoints with a broker at
/// one end at least, in a fixed order (brokers, the controller, producers,
/// consumers; the lower end first).
fn links(sim: &Sim, menu: &FaultMenu) -> Vec<(End, End)> {
    let n = sim.brokers.len().min(u8::MAX as usize) as u8;
    let mut out = Vec::new();
    for a in 0..n {
        if menu.cut {
            for b in (a + 1)..n {
                out.push((End::Broker(a), End::Broker(b)));
            }
        }
    }
    if menu.controller {
        for a in 0..n {
            out.push((End::Broker(a), End::Controller));
        }
    }
    if menu.clients {
        for p in 0..sim.producers.len().min(u8::MAX as usize) as u8 {
            for a in 0..n {
                out.push((End::Broker(a), End::Producer(p)));
            }
        }
        for c in 0..sim.consumers.len().min(u8::MAX as usize) as u8 {
            for a in 0..n {
                out.push((End::Broker(a), End::Consumer(c)));
            }
        }
    }
    out
}

/// Both directions of each link: between brokers every ordered pair by its first
/// end, then each other link's two directions.
fn directed(links: &[(End, End)]) -> Vec<(End, End)> {
    let brokers: Vec<u8> =
        links.iter().filter_map(|l| if let (End::Broker(a), End::Broker(b)) = *l { Some([a, b]) } else { None }).flatten().collect();
    let n = brokers.iter().max().map_or(0, |m| m + 1);
    let mut out = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a != b {
                out.push((End::Broker(a), End::Broker(b)));
            }
        }
    }
    for &(a, b) in links.iter().filter(|l| !matches!(l, (End::Broker(_), End::Broker(_)))) {
        out.push((a, b));
        out.push((b, a));
    }
    out
}

/// The catch masks a new cut may carry: none, then every nonempty subset of at
/// most `menu.catch` of the messages on the wire across it, smallest first.
fn catches(sim: &Sim, menu: &FaultMenu, from: End, to: End, both: bool, out: &mut Vec<u16>) {
    out.clear();
    out.push(0);
    if menu.catch == 0 {
        return;
    }
    let m = on_the_wire(sim, from, to, both).len();
    for mask in 1u32..(1u32 << m) {
        if mask.count_ones() <= menu.catch as u32 {
            out.push(mask as u16);
        }
    }
    out.sort_by_key(|m| (m.count_ones(), *m));
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
        let links = links(sim, menu);
        let cut = |a: End, b: End| sim.net.is_cut(a.node(), b.node());
        let mut masks = Vec::new();
        for &(a, b) in &links {
            if !cut(a, b) && !cut(b, a) {
                catches(sim, menu, a, b, true, &mut masks);
                out.extend(masks.iter().map(|&catch| Move::Cut { from: a, to: b, both: true, catch }));
            }
        }
        let directed = if menu.one_way { directed(&links) } else { Vec::new() };
        for &(x, y) in &directed {
            if !cut(x, y) {
                catches(sim, menu, x, y, false, &mut masks);
                out.extend(masks.iter().map(|&catch| Move::Cut { from: x, to: y, both: false, catch }));
            }
        }
        for &(a, b) in &links {
            if cut(a, b) && cut(b, a) {
                out.push(Move::Heal { from: a, to: b, both: true });
            }
        }
        for &(x, y) in &directed {
            if cut(x, y) {
                out.push(Move::Heal { from: x, to: y, both: false });
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
            if let Some(a) = other.action(sim) {
                sim.apply_now(a);
            }
        }
    }
}
