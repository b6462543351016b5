//! A step as data: what started it ([`Trigger`]), what the world must do for
//! the rule that ran ([`Command`]s: send a message, drop what is on its way to a
//! crashed node, put into effect by `Sim::apply_commands` at the end of the step;
//! timers go into the queue as they are set, `Sim::set_timer`), and what is
//! kept of it for the record and the narration ([`Step`]).

use super::event::Event;
use super::msg::{Body, Msg, Node};
use super::scheduler::Timer;
use super::shared::{Lent, Shared};
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
    Send { id: u64, seq: u64, from: Node, to: Node, body: Body },
    /// A crash: messages on their way to the node are never read.
    DropMessagesTo(Node),
}

/// The last step: what started it, and what happened, what it put on the wire and
/// the commands decided in it ([`Lists`]). Those are behind one pointer where worlds
/// are copied and queued ([`Lent`]): a world between steps in the explorer's frontier
/// holds none (`Sim::reclaim` takes them back), so a queued state carries one
/// pointer, not five vectors (issue 27's memory per state).
#[derive(Debug, Clone)]
pub struct Step {
    pub trigger: Trigger,
    lists: Lent<Lists>,
}

/// A step's lists. The commands are applied at the step's end (empty between steps);
/// the rest is the step's record, read after it.
#[derive(Debug, Clone, Default)]
pub struct Lists {
    pub events: Vec<Event>,
    /// Ids of the messages this step put on the wire (lost ones excluded).
    pub sent: Vec<u64>,
    /// Ids of the messages this step sent into a cut link or to a broker that is down.
    pub lost: Vec<u64>,
    /// Ids of the messages this step sent that TCP holds (a cut link, a connection not made).
    pub held: Vec<u64>,
    /// Commands decided in this step, applied at its end (`Sim::apply_commands`).
    pub(crate) commands: Vec<Command>,
}

impl Lists {
    /// Empties the step's record (the commands are emptied as they are applied).
    pub(crate) fn clear_record(&mut self) {
        self.events.clear();
        self.sent.clear();
        self.lost.clear();
        self.held.clear();
    }
}

impl Step {
    pub fn new() -> Step {
        Step { trigger: Trigger::Start, lists: Lent::default() }
    }

    /// What happened in the step, in order.
    pub fn events(&self) -> &[Event] {
        self.lists.get().map_or(&[], |l| &l.events)
    }

    /// Ids of the messages the step put on the wire (lost ones excluded).
    pub fn sent(&self) -> &[u64] {
        self.lists.get().map_or(&[], |l| &l.sent)
    }

    /// Ids of the messages the step sent into a cut link or to a broker that is down.
    pub fn lost(&self) -> &[u64] {
        self.lists.get().map_or(&[], |l| &l.lost)
    }

    /// Ids of the messages the step sent that TCP holds.
    pub fn held(&self) -> &[u64] {
        self.lists.get().map_or(&[], |l| &l.held)
    }

    /// The lists to write to (made at the first write where they are lent).
    #[inline(always)]
    pub(crate) fn lists(&mut self) -> &mut Lists {
        self.lists.get_mut()
    }

    /// Whether message `id` (if one was sent) was lost.
    pub fn is_lost(&self, id: Option<u64>) -> bool {
        id.is_none_or(|id| self.lost().contains(&id))
    }

    /// Whether message `id` is held by TCP in a cut link.
    pub fn is_held(&self, id: Option<u64>) -> bool {
        id.is_some_and(|id| self.held().contains(&id))
    }
}

/// A step's lists kept between copies of the world. The explorer copies the world
/// for every move and throws most copies away; a copy's step would otherwise make
/// its lists from nothing and free them after. `Sim::lend` hands a copy the spare
/// lists for its step, `Sim::reclaim` takes them back (emptied) once the step's
/// record has been read.
#[derive(Debug, Default)]
pub struct Spare {
    lists: Option<Box<Lists>>,
}

impl super::Sim {
    /// Gives this world the spare lists for its next step, if it holds none.
    pub fn lend(&mut self, spare: &mut Spare) {
        self.last.lists.lend(&mut spare.lists);
    }

    /// Takes the last step's lists back, emptied: what it recorded (its events,
    /// what it sent) is gone; its trigger stays.
    pub fn reclaim(&mut self, spare: &mut Spare) {
        self.last.lists.reclaim(&mut spare.lists, |l| {
            l.clear_record();
            l.commands.clear();
        });
    }
}

impl Default for Step {
    fn default() -> Self {
        Step::new()
    }
}
