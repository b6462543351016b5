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
//!
//! Beside the value sit a few cached hashes (the explorer's fingerprint of the
//! node's content, one per renaming of brokers: `check::fingerprint`), shared
//! by every holder and cleared by every write: only a node a step wrote is
//! hashed again.
//!
//! The page's core (wasm32 without the `explore` or `node` features) never
//! searches: there a node is held by value (`plain` below), as before, and the
//! page's WebAssembly does not carry a copy-on-write clone per node type.
//!
//! `Lent` holds what a world holds only during a step (the step's lists): behind
//! one optional pointer where worlds are copied and queued (a queued state holds
//! none; the search lends a copy the lists for its step and takes them back), by
//! value in the page's core, which keeps one world and steps it.

/// The page's core: a node held by value (cloning the world clones it).
#[cfg(all(target_arch = "wasm32", target_os = "unknown", not(feature = "explore"), not(feature = "node")))]
mod plain {
    use std::fmt;
    use std::ops::{Deref, DerefMut};

    #[derive(Clone)]
    pub struct Shared<T: Clone>(T);

    impl<T: Clone> Shared<T> {
        pub fn new(value: T) -> Self {
            Shared(value)
        }

        pub fn into_inner(self) -> T {
            self.0
        }

        pub fn holders(_: &Self) -> usize {
            1
        }

        pub fn hash(_: &Self, _: u64) -> Option<u64> {
            None
        }

        pub fn set_hash(_: &Self, _: u64, _: u64) {}
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
            &mut self.0
        }
    }

    impl<T: Clone + fmt::Debug> fmt::Debug for Shared<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt(f)
        }
    }

    /// A part of a node held by value (`cow::Part` elsewhere): the same wrapper.
    pub type Part<T> = Shared<T>;

    /// A step's lists held by value (`cow::Lent` elsewhere): nothing is lent.
    #[derive(Clone, Default)]
    pub struct Lent<T: Default>(T);

    impl<T: Default> Lent<T> {
        #[inline(always)]
        pub fn get(&self) -> Option<&T> {
            Some(&self.0)
        }

        #[inline(always)]
        pub fn get_mut(&mut self) -> &mut T {
            &mut self.0
        }

        pub fn lend(&mut self, _: &mut Option<Box<T>>) {}

        /// Empties it in place (`clear`).
        pub fn reclaim(&mut self, _: &mut Option<Box<T>>, clear: impl FnOnce(&mut T)) {
            clear(&mut self.0)
        }
    }

    impl<T: Default + fmt::Debug> fmt::Debug for Lent<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt(f)
        }
    }
}
#[cfg(all(target_arch = "wasm32", target_os = "unknown", not(feature = "explore"), not(feature = "node")))]
pub use plain::{Lent, Part, Shared};

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown", not(feature = "explore"), not(feature = "node"))))]
pub use cow::{Lent, Part, Shared};

/// Everywhere else: behind an `Rc`, copied on write.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown", not(feature = "explore"), not(feature = "node"))))]
mod cow {
    use std::cell::Cell;
    use std::fmt;
    use std::ops::{Deref, DerefMut};
    use std::rc::Rc;

    /// How many hashes a node caches (by the key they were computed under: the renaming).
    const HASHES: usize = 2;

    pub struct Shared<T: Clone>(Rc<Inner<T>>);

    #[derive(Clone)]
    struct Inner<T> {
        value: T,
        /// (key, hash); key 0: none.
        hashes: Cell<[(u64, u64); HASHES]>,
    }

    impl<T: Clone> Clone for Shared<T> {
        #[inline(always)]
        fn clone(&self) -> Self {
            Shared(Rc::clone(&self.0))
        }
    }

    impl<T: Clone> Shared<T> {
        pub fn new(value: T) -> Self {
            Shared(Rc::new(Inner { value, hashes: Cell::new([(0, 0); HASHES]) }))
        }

        /// The value, moved out when this is its only holder, else copied.
        pub fn into_inner(self) -> T {
            match Rc::try_unwrap(self.0) {
                Ok(inner) => inner.value,
                Err(rc) => rc.value.clone(),
            }
        }

        /// How many copies of the world hold this node (1: only this one).
        pub fn holders(this: &Self) -> usize {
            Rc::strong_count(&this.0)
        }

        /// The hash cached under `key` (nonzero) since the node was last written, if any.
        #[inline]
        pub fn hash(this: &Self, key: u64) -> Option<u64> {
            this.0.hashes.get().iter().find(|(k, _)| *k == key).map(|&(_, h)| h)
        }

        /// Caches a hash of the node's present content under `key` (nonzero): the
        /// first key in the first place, any other in the second.
        #[inline]
        pub fn set_hash(this: &Self, key: u64, hash: u64) {
            let mut all = this.0.hashes.get();
            let at = if all[0].0 == 0 || all[0].0 == key { 0 } else { HASHES - 1 };
            all[at] = (key, hash);
            this.0.hashes.set(all);
        }
    }

    impl<T: Clone> Deref for Shared<T> {
        type Target = T;
        #[inline(always)]
        fn deref(&self) -> &T {
            &self.0.value
        }
    }

    impl<T: Clone> DerefMut for Shared<T> {
        #[inline(always)]
        fn deref_mut(&mut self) -> &mut T {
            let inner = Rc::make_mut(&mut self.0);
            inner.hashes.set([(0, 0); HASHES]);
            &mut inner.value
        }
    }

    impl<T: Clone + fmt::Debug> fmt::Debug for Shared<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.value.fmt(f)
        }
    }

    impl<T: Clone> From<T> for Shared<T> {
        fn from(value: T) -> Self {
            Shared::new(value)
        }
    }

    /// A part of a node in an allocation of its own, shared between copies of the
    /// node and copied on write (`Rc::make_mut`), without a hash cache: copying a
    /// broker copies a pointer to its log, its producer state and its leader state,
    /// and a step copies only the parts it writes.
    pub struct Part<T: Clone>(Rc<T>);

    impl<T: Clone> Clone for Part<T> {
        #[inline(always)]
        fn clone(&self) -> Self {
            Part(Rc::clone(&self.0))
        }
    }

    impl<T: Clone> Part<T> {
        pub fn new(value: T) -> Self {
            Part(Rc::new(value))
        }

        /// The value, moved out when this is its only holder, else copied.
        pub fn into_inner(self) -> T {
            Rc::unwrap_or_clone(self.0)
        }

        /// How many copies of the node hold this part.
        pub fn holders(this: &Self) -> usize {
            Rc::strong_count(&this.0)
        }
    }

    impl<T: Clone> Deref for Part<T> {
        type Target = T;
        #[inline(always)]
        fn deref(&self) -> &T {
            &self.0
        }
    }

    impl<T: Clone> DerefMut for Part<T> {
        #[inline(always)]
        fn deref_mut(&mut self) -> &mut T {
            Rc::make_mut(&mut self.0)
        }
    }

    impl<T: Clone + fmt::Debug> fmt::Debug for Part<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt(f)
        }
    }

    /// What a world holds only during a step, behind one optional pointer: none in a
    /// queued state; made at the first write, or lent by the search (`lend`) from the
    /// lists it took back (`reclaim`) from the copy before.
    #[derive(Clone, Default)]
    pub struct Lent<T: Default>(Option<Box<T>>);

    impl<T: Default> Lent<T> {
        #[inline(always)]
        pub fn get(&self) -> Option<&T> {
            self.0.as_deref()
        }

        #[inline(always)]
        pub fn get_mut(&mut self) -> &mut T {
            self.0.get_or_insert_with(Box::default)
        }

        /// Takes `spare`'s, if this holds none.
        pub fn lend(&mut self, spare: &mut Option<Box<T>>) {
            if self.0.is_none() {
                self.0 = spare.take();
            }
        }

        /// Gives what this holds, emptied by `clear`, to `spare` if it has none (else drops
        /// it); this holds none after.
        pub fn reclaim(&mut self, spare: &mut Option<Box<T>>, clear: impl FnOnce(&mut T)) {
            if let Some(mut held) = self.0.take() {
                if spare.is_none() {
                    clear(&mut held);
                    *spare = Some(held);
                }
            }
        }
    }

    impl<T: Default + fmt::Debug> fmt::Debug for Lent<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt(f)
        }
    }
}
