//! The clock and the scheduler: the only place where the order of events is
//! decided, and the seeded random source behind every other choice.
//!
//! Events due at the same instant run scenario events first, then protocol
//! events in the order they were scheduled. An explorer may instead pick any
//! of the events due at the earliest instant (`Sim::choices`, `Sim::step_choice`):
//! handlers never depend on anything but the event they are given and the state.

use std::collections::BTreeMap;

/// Scenario events sort before protocol events scheduled for the same instant.
pub const SCENARIO: u8 = 0;
pub const PROTOCOL: u8 = 1;

/// (due time, class, sequence number): a total order with no ties.
pub type Key = (u64, u8, u64);

#[derive(Debug, Clone)]
pub struct Scheduler<T> {
    queue: BTreeMap<Key, T>,
    seq: u64,
}

impl<T> Scheduler<T> {
    pub fn new() -> Self {
        Scheduler { queue: BTreeMap::new(), seq: 0 }
    }

    pub fn schedule(&mut self, at_ms: u64, class: u8, item: T) -> Key {
        let key = (at_ms, class, self.seq);
        self.seq += 1;
        self.queue.insert(key, item);
        key
    }

    pub fn cancel(&mut self, key: Key) -> Option<T> {
        self.queue.remove(&key)
    }

    pub fn get(&self, key: &Key) -> Option<&T> {
        self.queue.get(key)
    }

    pub fn next_key(&self) -> Option<Key> {
        self.queue.keys().next().copied()
    }

    /// Every event due at the earliest instant: the choices an explorer may make.
    pub fn due_now(&self) -> Vec<Key> {
        let Some(first) = self.next_key() else { return Vec::new() };
        self.queue.range(first..).take_while(|(k, _)| k.0 == first.0).map(|(k, _)| *k).collect()
    }

    pub fn take(&mut self, key: Key) -> Option<T> {
        self.queue.remove(&key)
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }
}

impl<T> Default for Scheduler<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// A small, portable, seeded generator (SplitMix64): the same numbers on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x6a09_e667_f3bc_c909)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in 0..=max.
    pub fn upto(&mut self, max: u64) -> u64 {
        if max == 0 {
            0
        } else {
            self.next_u64() % (max + 1)
        }
    }
}
