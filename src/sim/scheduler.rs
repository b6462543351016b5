//! The clock and the scheduler: the only place where the order of events is
//! decided, and the seeded random source behind every other choice.
//!
//! Events due at the same instant run scenario events first (in the scenario's
//! order), then protocol events in the order they were scheduled. An explorer may
//! instead pick any of the events due at the earliest instant (`Sim::choices`,
//! `Sim::step_choice`): handlers depend only on the event they are given and the
//! state, never on the order they were called in.

use crate::scenario::Action;
use std::rc::Rc;

/// Scenario events sort before protocol events scheduled for the same instant.
pub const SCENARIO: u8 = 0;
pub const PROTOCOL: u8 = 1;

/// (due time, class, sequence number): a total order with no ties.
pub type Key = (u64, u8, u64);

/// Pending events, sorted latest first so that the next one is popped from the end.
/// Few events are pending at once (messages in flight, timers, the next scenario
/// events), so a sorted vector beats a tree and is cheap to checkpoint.
#[derive(Debug)]
pub struct Scheduler<T> {
    /// Read by the explorer's fingerprint (`crate::check`), which hashes the queue in order.
    pub(crate) queue: Vec<(Key, T)>,
    seq: u64,
}

/// Room a copy's queue has for its next step: a step takes one item and adds a few,
/// and a copy made to its length would be copied again, to twice that, at the first.
/// Two, not four: the explorer keeps every queued state's copy, and on its reference
/// search the smaller room costs 0.2% more instructions for 2.6% fewer bytes per state
/// (docs/explorer.md, "The fingerprint's lookups").
const HEADROOM: usize = 2;

impl<T: Clone> Clone for Scheduler<T> {
    fn clone(&self) -> Self {
        let mut queue = Vec::with_capacity(self.queue.len() + HEADROOM);
        queue.extend_from_slice(&self.queue);
        Scheduler { queue, seq: self.seq }
    }

    /// A copy in this queue's room (the explorer's reused worlds, `check::reuse`): no
    /// allocation where the source and the headroom fit.
    fn clone_from(&mut self, source: &Self) {
        let room = source.queue.len() + HEADROOM;
        self.queue.clear();
        // A room too small is replaced, not grown (growing copies the old room's bytes).
        if self.queue.capacity() < room {
            self.queue = Vec::with_capacity(room);
        }
        self.queue.extend_from_slice(&source.queue);
        self.seq = source.seq;
    }
}

impl<T> Scheduler<T> {
    pub fn new() -> Self {
        Scheduler { queue: Vec::new(), seq: 0 }
    }

    /// Where `key` is, or would go, in the queue (latest first), looked for from the
    /// earliest end: a step takes one of the earliest items and most of what it adds is
    /// due soon, and the queue is short, so a scan from there finds it in a few probes,
    /// each most often one comparison of due times (a binary search probed ~3 times with
    /// the whole key: docs/explorer.md, "The engine's step bookkeeping").
    #[inline(always)]
    fn position(&self, key: &Key) -> Result<usize, usize> {
        let mut i = self.queue.len();
        while i > 0 {
            match order(key, &self.queue[i - 1].0) {
                std::cmp::Ordering::Greater => i -= 1,
                std::cmp::Ordering::Equal => return Ok(i - 1),
                std::cmp::Ordering::Less => break,
            }
        }
        Err(i)
    }

    pub fn schedule(&mut self, at_ms: u64, class: u8, item: T) -> Key {
        let key = (at_ms, class, self.reserve());
        self.insert(key, item);
        key
    }

    /// The next sequence number, for an item scheduled later with `insert`: a
    /// handler learns its timer's key when it decides, the item is inserted when
    /// its effects are applied. Numbers left unused leave gaps, which change no order.
    pub fn reserve(&mut self) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        seq
    }

    /// Schedules with a key the caller chose (scenario events: their index in the scenario).
    pub fn insert(&mut self, key: Key, item: T) {
        match self.position(&key) {
            Ok(i) => self.queue[i] = (key, item),
            Err(i) => self.queue.insert(i, (key, item)),
        }
    }

    pub fn cancel(&mut self, key: Key) -> Option<T> {
        self.take(key)
    }

    pub fn contains(&self, key: Key) -> bool {
        self.position(&key).is_ok()
    }

    pub fn take(&mut self, key: Key) -> Option<T> {
        self.position(&key).ok().map(|i| self.queue.remove(i).1)
    }

    /// Everything pending, latest first.
    pub fn iter(&self) -> impl Iterator<Item = &(Key, T)> {
        self.queue.iter()
    }

    pub fn next_key(&self) -> Option<Key> {
        self.queue.last().map(|(k, _)| *k)
    }

    /// Every event due at the earliest instant: the choices an explorer may make.
    pub fn due_now(&self) -> Vec<Key> {
        let Some(first) = self.next_key() else {
            return Vec::new();
        };
        self.queue.iter().rev().take_while(|(k, _)| k.0 == first.0).map(|(k, _)| *k).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Drops every pending item, keeping the room (the explorer's reused worlds).
    pub fn clear(&mut self) {
        self.queue.clear();
    }
}

/// Keys in the tuple's order (due time, class, sequence), written out: the page's
/// core is built for size, where the tuple's own comparison stays a call per probe
/// (docs/performance.md, "The page's core built for size").
#[inline(always)]
fn order(a: &Key, b: &Key) -> std::cmp::Ordering {
    if a.0 != b.0 {
        a.0.cmp(&b.0)
    } else if a.1 != b.1 {
        a.1.cmp(&b.1)
    } else {
        a.2.cmp(&b.2)
    }
}

impl<T> Default for Scheduler<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Scheduled work: a scenario event, a message arriving, or a timer. Actions are
/// shared (copying the queue, the explorer's checkpoint, copies pointers), which
/// keeps an item at 24 bytes.
#[derive(Debug, Clone)]
pub enum Due {
    /// The scenario's event `index`, its `rep`-th occurrence (repeats are scheduled one at a time).
    Scenario {
        action: Rc<Action>,
        index: u32,
        rep: u32,
    },
    /// An intervention applied through `Run::apply`.
    Intervention(Rc<Action>),
    Deliver(u64),
    Timer(Timer),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Timer {
    /// A follower's parked Fetch reaches replica.fetch.wait.max.ms.
    FetchExpiry {
        leader: u32,
        follower: u32,
    },
    /// A consumer's parked fetch reaches fetch.max.wait.ms.
    ConsumerFetchExpiry {
        broker: u32,
        consumer: usize,
    },
    /// An acks=all produce waits longer than its request timeout.
    ProduceExpiry {
        leader: u32,
        request: u64,
    },
    /// The leader's periodic `maybeShrinkIsr`, every replica.lag.time.max.ms / 2.
    IsrExpiration {
        leader: u32,
    },
    /// A follower's next Fetch after an idle poll (textbook) or an error backoff.
    FetcherRetry {
        follower: u32,
    },
    /// A follower's Fetch went unanswered for request.timeout.ms (or its connection was
    /// not made within replica.socket.timeout.ms).
    FetchRequestTimeout {
        follower: u32,
    },
    /// A client request went unanswered for request.timeout.ms.
    ProduceRequestTimeout {
        producer: usize,
        request: u64,
    },
    ConsumerRequestTimeout {
        consumer: usize,
    },
    /// A broker's next heartbeat (or registration attempt), every broker.heartbeat.interval.ms.
    Heartbeat {
        broker: u32,
    },
    /// The controller's periodic stale-broker check (only the one that finds a broker
    /// to fence is scheduled).
    FenceCheck,
    /// An AlterPartition went unanswered for request.timeout.ms: sent again.
    AlterPartitionRetry {
        leader: u32,
    },
    /// A producer's sender wakes: a retry backoff ended, a delivery timeout is due,
    /// or its metadata may be refreshed.
    ProducerWake {
        producer: usize,
    },
    /// Before 2.1 (KIP-91): the first batch waiting in a producer's accumulator passes
    /// request.timeout.ms (`RecordAccumulator.expiredBatches`).
    AccumulatorExpiry {
        producer: usize,
    },
    /// A client's metadata request went unanswered for request.timeout.ms.
    MetadataTimeout {
        client: super::msg::Node,
    },
    /// A KRaft broker's metadata Fetch: given up (controller.quorum.request.timeout.ms)
    /// while one waits, sent again after the backoff (controller.quorum.retry.backoff.ms).
    MetadataFetch {
        broker: u32,
    },
    /// A metadata Fetch parked at the controller reaches its wait (`MAX_FETCH_WAIT_MS`).
    MetadataFetchExpiry {
        broker: u32,
    },
    /// A heartbeat (or registration) went unanswered: given up, the next after a backoff.
    HeartbeatTimeout {
        broker: u32,
    },
    /// A connection attempt reaches its limit unanswered (`connect.rs`: KIP-601's setup
    /// timeout, or the kernel's SYN retries before 2.7).
    ConnectionSetupTimeout {
        client: super::msg::Node,
        broker: u32,
    },
}

/// A small, portable, seeded generator (SplitMix64): the same numbers on every platform.
#[derive(Debug, Clone)]
pub struct Rng(pub(crate) u64);

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written search keeps the queue in the tuple's order, latest first,
    /// and finds (and replaces) every key, as the standard library's search did.
    #[test]
    fn queue_stays_in_key_order() {
        let mut s: Scheduler<u32> = Scheduler::new();
        let mut x = 12345u64;
        let mut keys = Vec::new();
        for i in 0..400u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let key = ((x >> 40) % 50, (x >> 20) as u8 % 2, (x >> 8) % 30);
            s.insert(key, i);
            keys.push((key, i));
        }
        let order: Vec<Key> = s.iter().map(|(k, _)| *k).collect();
        let mut want: Vec<Key> = keys.iter().map(|(k, _)| *k).collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        want.dedup();
        assert_eq!(order, want);
        for key in &want {
            let last = keys.iter().rev().find(|(k, _)| k == key).map(|(_, i)| *i);
            assert_eq!(s.take(*key), last, "{key:?}");
            assert_eq!(s.take(*key), None);
        }
        assert!(s.is_empty());
    }
}
