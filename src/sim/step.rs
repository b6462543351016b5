//! A step as data: what started it ([`Trigger`]), what the world must do for
//! the rule that ran ([`Command`]s: send a message, set or cancel a timer, put
//! into effect by `Sim::apply_commands` at the end of the step), and what is
//! kept of it for the record and the narration ([`Step`]).

use super::event::Event;
use super::msg::{Body, Msg, Node};
use super::scheduler::{Key, Timer};
use super::shared::Shared;
use crate::scenario::Action;
use std::rc::Rc;

/// What started a step.
#[derive(Debug, Clone)]
pub enum Trigger {
    /// Step 0: the world as the scenario builds it.
    Start,
    /// A scenario event or an intervention (shared with the scheduler's item that held it).
    Action(Rc<Action>),
    /// A message arriving: the one that was in flight, shared with the copies of the
    /// world that still hold it there (a copy per move would copy its body).
    Deliver(Shared<Msg>),
    Timer(Timer),
    /// A delivery whose message had been dropped (never happens: dropping a message cancels its delivery).
    Nothing,
}

/// Something the world must do for a rule, in the order decided.
#[derive(Debug, Clone)]
pub enum Command {
    /// Put a message on the wire; `seq` orders its delivery among same-instant events.
    Send {
        id: u64,
        seq: u64,
        from: Node,
        to: Node,
        body: Body,
    },
    SetTimer {
        key: Key,
        timer: Timer,
    },
    Cancel(Key),
    /// A crash: messages on their way to the node are never read.
    DropMessagesTo(Node),
}

/// The last step: what started it, what happened, and what it put on the wire.
#[derive(Debug, Clone)]
pub struct Step {
    pub trigger: Trigger,
    pub events: Vec<Event>,
    /// Ids of the messages this step put on the wire (lost ones excluded).
    pub sent: Vec<u64>,
    /// Ids of the messages this step sent into a cut link or to a broker that is down.
    pub lost: Vec<u64>,
    /// Ids of the messages this step sent that TCP holds (a cut link, a connection not made).
    pub held: Vec<u64>,
}

impl Step {
    pub fn new() -> Step {
        Step { trigger: Trigger::Start, events: Vec::new(), sent: Vec::new(), lost: Vec::new(), held: Vec::new() }
    }

    /// Whether message `id` (if one was sent) was lost.
    pub fn is_lost(&self, id: Option<u64>) -> bool {
        id.is_none_or(|id| self.lost.contains(&id))
    }

    /// Whether message `id` is held by TCP in a cut link.
    pub fn is_held(&self, id: Option<u64>) -> bool {
        id.is_some_and(|id| self.held.contains(&id))
    }
}

/// A step's buffers kept between copies of the world: its events, the ids it
/// sent, lost and held, and its commands. The explorer copies the world for
/// every move and throws most copies away; a copy's step would otherwise grow
/// these vectors from nothing and free them after. `Sim::lend` hands a copy the
/// spare buffers for its step, `Sim::reclaim` takes them back (emptied) once
/// the step's record has been read.
#[derive(Debug, Default)]
pub struct Spare {
    events: Vec<Event>,
    sent: Vec<u64>,
    lost: Vec<u64>,
    held: Vec<u64>,
    commands: Vec<Command>,
}

/// Puts `spare`'s buffer in `mine` if `mine` holds nothing (its contents are kept otherwise).
fn lend_one<T>(mine: &mut Vec<T>, spare: &mut Vec<T>) {
    if mine.capacity() == 0 {
        std::mem::swap(mine, spare);
    }
}

/// Takes `mine`'s buffer, emptied, into `spare` if it is the larger (the other is freed);
/// `mine` is left without one.
fn reclaim_one<T>(mine: &mut Vec<T>, spare: &mut Vec<T>) {
    let taken = std::mem::take(mine);
    if taken.capacity() > spare.capacity() {
        *spare = taken;
    }
    spare.clear();
}

impl super::Sim {
    /// Gives this world the spare buffers for its next step, where its own are empty.
    pub fn lend(&mut self, spare: &mut Spare) {
        lend_one(&mut self.last.events, &mut spare.events);
        lend_one(&mut self.last.sent, &mut spare.sent);
        lend_one(&mut self.last.lost, &mut spare.lost);
        lend_one(&mut self.last.held, &mut spare.held);
        lend_one(&mut self.commands, &mut spare.commands);
    }

    /// Takes the last step's buffers back, emptied: what it recorded (its events,
    /// what it sent) is gone; its trigger stays.
    pub fn reclaim(&mut self, spare: &mut Spare) {
        reclaim_one(&mut self.last.events, &mut spare.events);
        reclaim_one(&mut self.last.sent, &mut spare.sent);
        reclaim_one(&mut self.last.lost, &mut spare.lost);
        reclaim_one(&mut self.last.held, &mut spare.held);
        reclaim_one(&mut self.commands, &mut spare.commands);
    }
}

impl Default for Step {
    fn default() -> Self {
        Step::new()
    }
}
