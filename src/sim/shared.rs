//! A node's state shared between copies of the world and copied on write.
//!
//! Each broker, the controller, each producer and consumer, and each message in
//! flight sits behind one of these. Cloning the world (the explorer's checkpoint
//! per move) copies a pointer per node; the first write to a node in a copy
//! (`DerefMut`, i.e. `Rc::make_mut`) copies that node alone. So a step costs
//! the nodes it writes, not the world: the rest stays shared with the parent
//! state and its siblings in the search's frontier.
//!
//! Rules read and write through `Deref`/`DerefMut` as if the node were held by
//! value; a write through a `&mut` path copies even when it only reads, so
//! rules should read through `&self` paths where they can (`Sim::broker`).

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;

#[derive(Clone, Default, PartialEq, Eq)]
pub struct Shared<T: Clone>(Rc<T>);

impl<T: Clone> Shared<T> {
    pub fn new(value: T) -> Self {
        Shared(Rc::new(value))
    }

    /// The value, moved out when this is its only holder, else copied.
    pub fn into_inner(self) -> T {
        Rc::try_unwrap(self.0).unwrap_or_else(|rc| (*rc).clone())
    }

    /// How many copies of the world hold this node (1: only this one).
    pub fn holders(this: &Self) -> usize {
        Rc::strong_count(&this.0)
    }
}

impl<T: Clone> Deref for Shared<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        Rc::make_mut(&mut self.0)
    }
}

impl<T: Clone + fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Clone> From<T> for Shared<T> {
    fn from(value: T) -> Self {
        Shared::new(value)
    }
}
