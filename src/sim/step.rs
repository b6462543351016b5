//! A step as data: what started it ([`Trigger`]), what the world must do for
//! the rule that ran ([`Command`]s: send a message, set or cancel a timer, put
//! into effect by `Sim::apply_commands` at the end of the step), and what is
//! kept of it for the record and the narration ([`Step`]).

use super::event::Event;
use super::msg::{Body, Msg, Node};
use super::scheduler::{Key, Timer};
use crate::scenario::Action;

/// What started a step.
#[derive(Debug, Clone)]
pub enum Trigger {
    /// Step 0: the world as the scenario builds it.
    Start,
    /// A scenario event or an intervention.
    Action(Action),
    /// A message arriving.
    Deliver(Msg),
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

impl Default for Step {
    fn default() -> Self {
        Step::new()
    }
}
