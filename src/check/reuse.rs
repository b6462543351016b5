//! Worlds the search threw away, kept for the next copy: a child state that proves
//! already seen (or is past the depth bound) is emptied rather than freed, and the
//! next move's copy of its parent is written into it. The box and its lists' room
//! (the scheduler's queue, the messages in flight, the node lists) are reused, so a
//! copy costs no allocation where its lists fit; on the reference search a copy and
//! a drop were ~11% of the instructions, a third of that the allocator.
//!
//! An emptied world holds none of the search's nodes: its node lists are empty and
//! its controller and invariants are blanks of its own. A node's holders decide
//! whether a write copies it (`Shared`'s copy on write) and what share of it a
//! queued state counts (`approx_bytes`), so a kept world that still held its last
//! nodes would make its siblings copy nodes they own alone.

use crate::sim::invariants::{Checked, Invariants};
use crate::sim::network::Network;
use crate::sim::{Controller, Part, Shared, Sim, Step};

/// How many emptied worlds are kept: a state's moves use one at a time (each child
/// is either queued, which keeps it, or given back before the next move).
const KEPT: usize = 64;

/// The emptied worlds, and the blanks they hold while empty.
pub struct Reuse {
    /// Boxed: the box is what is reused (a queued state is a `Box<Sim>`).
    #[allow(clippy::vec_box)]
    kept: Vec<Box<Sim>>,
    controller: Shared<Controller>,
    invariants: Shared<Invariants>,
    checked: Part<Checked>,
}

impl Reuse {
    /// Blanks copied from `root`'s values (their own, shared with no state).
    pub fn new(root: &Sim) -> Reuse {
        Reuse {
            kept: Vec::new(),
            controller: Shared::new(Controller::clone(&root.controller)),
            invariants: Shared::new(Invariants::default()),
            checked: Part::new(Checked::clone(&root.checked)),
        }
    }

    /// A copy of `parent`, written into an emptied world if one is kept.
    pub fn copy(&mut self, parent: &Sim) -> Box<Sim> {
        match self.kept.pop() {
            Some(mut sim) => {
                refill(&mut sim, parent);
                sim
            }
            None => Box::new(Sim::clone(parent)),
        }
    }

    /// Takes back a world the search is done with: emptied and kept, or dropped.
    pub fn give_back(&mut self, mut sim: Box<Sim>) {
        if self.kept.len() >= KEPT {
            return;
        }
        let Sim {
            scenario: _,
            behavior: _,
            settings: _,
            now: _,
            step: _,
            sched,
            rng: _,
            net: _,
            next_msg: _,
            in_flight,
            brokers,
            controller,
            producers,
            consumers,
            invariants,
            checked,
            last,
            done: _,
            settle: _,
            settled_since: _,
            last_change_ms: _,
        } = &mut *sim;
        sched.clear();
        in_flight.clear();
        brokers.clear();
        producers.clear();
        consumers.clear();
        *controller = self.controller.clone();
        *invariants = self.invariants.clone();
        *checked = self.checked.clone();
        // Its lists were taken back (`Sim::reclaim`): a new step holds none.
        *last = Step::new();
        self.kept.push(sim);
    }
}

/// Makes `dst` a copy of `src` (as `Sim::clone`), in the room `dst` has.
fn refill(dst: &mut Sim, src: &Sim) {
    let Sim {
        scenario,
        behavior,
        settings,
        now,
        step,
        sched,
        rng,
        net,
        next_msg,
        in_flight,
        brokers,
        controller,
        producers,
        consumers,
        invariants,
        checked,
        last,
        done,
        settle,
        settled_since,
        last_change_ms,
    } = dst;
    scenario.clone_from(&src.scenario);
    behavior.clone_from(&src.behavior);
    settings.clone_from(&src.settings);
    *now = src.now;
    *step = src.step;
    sched.clone_from(&src.sched);
    rng.clone_from(&src.rng);
    copy_network(net, &src.net);
    *next_msg = src.next_msg;
    in_flight.copy_from(&src.in_flight);
    brokers.clone_from(&src.brokers);
    controller.clone_from(&src.controller);
    producers.clone_from(&src.producers);
    consumers.clone_from(&src.consumers);
    invariants.clone_from(&src.invariants);
    checked.clone_from(&src.checked);
    last.clone_from(&src.last);
    *done = src.done;
    *settle = src.settle;
    *settled_since = src.settled_since;
    *last_change_ms = src.last_change_ms;
}

/// Makes `dst` a copy of `src` in the room its lists have: `Network`'s derived
/// `clone_from` is a `clone` and a drop, which allocated the connections' and the
/// orphans' lists afresh and freed the old ones for every reused world.
fn copy_network(dst: &mut Network, src: &Network) {
    let Network { latency, cut, channel_cut, conns, orphans } = dst;
    latency.clone_from(&src.latency);
    cut.clone_from(&src.cut);
    channel_cut.clone_from(&src.channel_cut);
    conns.copy_from(&src.conns);
    orphans.copy_from(&src.orphans);
}
