//! A state's fingerprint: a 64-bit hash of everything that decides what can
//! happen next, the same on every platform (our own hashing over fixed-width
//! words; no `std::hash::Hasher`, whose keys are random), with broker ids
//! renamed by a permutation so that symmetric states hash alike.
//!
//! What is hashed, and what is deliberately abstracted:
//! - **Time is absolute; timers are relative.** `now` is hashed as it is: the
//!   search's horizon (`stop_at_ms`) gives a state at t=100 and the same state
//!   at t=5100 different futures, so merging them would hide what only the
//!   earlier one can reach within the bounds (measured: merging them saved 1 to
//!   4 states in 3,000 on the pinned searches). Timers and timestamps are hashed
//!   as their distance from `now`.
//! - **Identities are relative.** Message and request ids are hashed as their
//!   distance from the next id; a timer or message referenced from a node's
//!   state is hashed as its position in the scheduler's queue. The queue is
//!   hashed in order (that order is what the scheduler's sequence numbers
//!   decide), without the sequence numbers themselves.
//! - **Left out:** the step number (unless one of the scenario's `at_step`
//!   interventions is still ahead: `Setup::fingerprint`), `sent_ms` of messages in flight (drawn;
//!   read only by a cut that catches the message, so hashed when the menu's
//!   `catch` is on: `fingerprint_with`), the last step's events (the record's, already
//!   checked), and the invariants' caches (verified prefixes, the replica
//!   digest), which only save work. The violations already reported are
//!   hashed by property name, not by the record they name.
//! - **Sets are sets:** ISRs and fenced sets as bitmasks, the records the
//!   invariants watch as a sum of their hashes (the order they were noticed in
//!   does not matter).
//!
//! Every struct is destructured field by field (no `..`): a field added to the
//! model fails to compile here until someone decides whether it is state.
//!
//! **Cached per node.** A node (a broker, the controller, a client, a message in
//! flight: `sim::Shared`) is hashed in two parts: its *content* (every word
//! except references to messages and timers, its times absolute — `now` is
//! hashed, so a time and its distance from `now` tell states apart alike),
//! cached in the node under the renaming and cleared when a step writes it;
//! and its *references* (message ids relative to the next id, timers by their
//! place in the queue), which depend on the rest of the world and are walked
//! every time. The content's words fix the node's shape, so the references
//! land in the same places: two nodes hash alike exactly when the one walk of
//! old did. A step rehashes the content of the nodes it wrote only.
//! `wire.rs`: what travels and waits (messages, timers, interventions);
//! `nodes.rs`: each participant's state; `refs.rs`: each participant's
//! references alone (the walk that runs for every state).

mod nodes;
mod places;
mod refs;
mod wire;

use crate::sim::invariants::{Invariants, Watch};
use crate::sim::log::{Entry, Log, RecordId};
use crate::sim::msg::Node;
use crate::sim::network::Conn;
use crate::sim::{Due, Key, Shared, Sim};
use places::Places;
#[cfg(test)]
use places::PLACES;

const MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// The stable hash: one multiply per 64-bit word, a final avalanche (MurmurHash3's fmix64).
#[derive(Debug, Clone, Copy)]
pub struct StableHash(u64);

impl Default for StableHash {
    fn default() -> Self {
        StableHash(0x243f_6a88_85a3_08d3)
    }
}

impl StableHash {
    #[inline]
    pub fn word(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(23) ^ w).wrapping_mul(MUL);
    }

    pub fn finish(&self) -> u64 {
        mix(self.0)
    }
}

/// MurmurHash3's 64-bit finaliser.
#[inline]
pub fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A renaming of broker ids: `to[old] = new`, `from[new] = old`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Perm {
    pub to: [u8; 8],
    pub from: [u8; 8],
}

impl Perm {
    pub const IDENTITY: Perm = Perm { to: [0, 1, 2, 3, 4, 5, 6, 7], from: [0, 1, 2, 3, 4, 5, 6, 7] };

    pub fn from_order(new_to_old: &[u8]) -> Perm {
        let mut p = Perm::IDENTITY;
        for (new, &old) in new_to_old.iter().enumerate() {
            p.from[new] = old;
            p.to[old as usize] = new as u8;
        }
        p
    }
}

/// The fingerprint of `sim` under `perm`, with `extra` (the search's own
/// counters: faults and records used) folded in.
pub fn fingerprint(sim: &Sim, perm: &Perm, extra: u64) -> u64 {
    fingerprint_with(sim, perm, extra, false)
}

/// The fingerprint, with messages' send times hashed when `sent` (a search whose
/// cuts may catch messages on the wire: TCP resends a caught one from its send time).
pub fn fingerprint_with(sim: &Sim, perm: &Perm, extra: u64, sent: bool) -> u64 {
    // The key the nodes' content hashes are cached under: the renaming, and whether send times count.
    let cache = u64::from_le_bytes(perm.to) ^ (sent as u64) << 63 | 1;
    let mut cx = Ctx {
        sim,
        perm: *perm,
        now: sim.now,
        next_msg: sim.next_msg,
        sent,
        cache,
        places: Places::EMPTY,
        brokers: sim.brokers.len().min(8) as u8,
    };
    cx.places.fill(&sim.sched.queue, sim.in_flight.as_slice());
    let mut w = Walker::<FULL> { h: StableHash::default(), owner: u32::MAX, cx: &cx };
    w.word(extra);
    w.sim();
    w.h.finish()
}

/// What a walk hashes (`Walker::cached`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Everything, times relative to now.
    Full,
    /// A node's content: every word but message ids and timer references; times absolute.
    Content,
    /// A node's references only: message ids and timer references.
    Refs,
}

/// `Walker`'s mode as its const parameter (`Mode`): decided when the code is
/// compiled, so a word hashes or not without a test at run time.
pub(super) const FULL: u8 = 0;
pub(super) const CONTENT: u8 = 1;
pub(super) const REFS: u8 = 2;

/// What every walk of one state reads: the world, the renaming, and what the
/// relative words are relative to. One per fingerprint, shared by reference, so
/// that a walker (copied for each node's content and references) is three words.
pub(super) struct Ctx<'a> {
    pub(super) sim: &'a Sim,
    pub(super) perm: Perm,
    pub(super) now: u64,
    pub(super) next_msg: u64,
    /// Whether messages' send times are state (`fingerprint_with`).
    pub(super) sent: bool,
    /// The key nodes' content hashes are cached under (`Shared::hash`).
    pub(super) cache: u64,
    /// The queue's items by sequence number (`Places`).
    pub(super) places: Places,
    /// How many brokers there are: the new ids a walk in new-id order visits. A renaming
    /// moves followers among the brokers there are, so no id at or past this is in any
    /// map a node keeps by broker (the eight a renaming could name cost a lookup each).
    pub(super) brokers: u8,
}

#[derive(Clone, Copy)]
pub(super) struct Walker<'a, const M: u8> {
    h: StableHash,
    /// The broker whose message is being hashed (`wire.rs`).
    owner: u32,
    cx: &'a Ctx<'a>,
}

impl<'a, const M: u8> Walker<'a, M> {
    /// What this walk hashes.
    const MODE: Mode = match M {
        FULL => Mode::Full,
        CONTENT => Mode::Content,
        _ => Mode::Refs,
    };

    /// The same walk in another mode (its hash starts where this one is).
    #[inline]
    fn in_mode<const N: u8>(&self) -> Walker<'a, N> {
        let Walker { h, owner, cx } = *self;
        Walker { h, owner, cx }
    }

    #[inline]
    pub(super) fn word(&mut self, w: u64) {
        if !matches!(Self::MODE, Mode::Refs) {
            self.h.word(w);
        }
    }

    /// A word that is a reference (a message id, a timer's place): hashed unless hashing content.
    #[inline]
    fn reference(&mut self, w: u64) {
        if !matches!(Self::MODE, Mode::Content) {
            self.h.word(w);
        }
    }

    /// Hashes a node: its content by `walk`, from the node's cache (computed and
    /// cached if the node was written since), then its references by `refs`, which
    /// must hash what `walk` hashes in `Mode::Refs` (`refs.rs`, `Walker::msg_refs`).
    pub(super) fn cached<T: Clone>(
        &mut self,
        node: &Shared<T>,
        walk: fn(&mut Walker<'a, CONTENT>, &T),
        refs: fn(&mut Walker<'a, REFS>, &T),
    ) {
        let content = match Shared::hash(node, self.cx.cache) {
            Some(h) => h,
            None => {
                let mut sub = self.in_mode::<CONTENT>();
                sub.h = StableHash::default();
                walk(&mut sub, node);
                let h = sub.h.finish();
                Shared::set_hash(node, self.cx.cache, h);
                h
            }
        };
        self.word(content);
        let mut r = self.in_mode::<REFS>();
        refs(&mut r, node);
        (self.h, self.owner) = (r.h, r.owner);
    }

    /// Whether this walk hashes references only (long lists without any are skipped).
    #[inline]
    pub(super) fn refs_only(&self) -> bool {
        matches!(Self::MODE, Mode::Refs)
    }

    #[inline]
    pub(super) fn broker(&mut self, b: u32) {
        self.word(self.cx.perm.to[(b & 7) as usize] as u64);
    }

    pub(super) fn opt_broker(&mut self, b: Option<u32>) {
        match b {
            Some(b) => self.broker(b),
            None => self.word(u64::MAX),
        }
    }

    /// A set of brokers as a bitmask of new ids.
    pub(super) fn brokers<'b>(&mut self, ids: impl IntoIterator<Item = &'b u32>) {
        let mask = ids.into_iter().fold(0u64, |m, &b| m | 1 << self.cx.perm.to[(b & 7) as usize]);
        self.word(mask);
    }

    /// A timestamp, relative to now (past and future stay apart: wrapping); in a
    /// node's content, absolute (`now` is hashed: the same states are told apart).
    #[inline]
    pub(super) fn time(&mut self, t: u64) {
        if matches!(Self::MODE, Mode::Content) {
            self.word(t);
        } else {
            self.word(t.wrapping_sub(self.cx.now));
        }
    }

    pub(super) fn opt_time(&mut self, t: Option<u64>) {
        match t {
            Some(t) => self.time(t),
            None => self.word(u64::MAX - 1),
        }
    }

    /// A message or request id, relative to the next one.
    #[inline]
    pub(super) fn id(&mut self, id: u64) {
        self.reference(self.cx.next_msg.wrapping_sub(id));
    }

    /// Broker `owner`'s broker epoch. The engine compares epochs only with the same
    /// broker's, so "its initial epoch" (the engine starts broker b at epoch b) is one
    /// token for every broker, and renamed followers hash alike.
    ///
    /// Deliberately coarser than the engine in one corner: a new registration gets the
    /// controller's metadata offset + 1, which the engine's initial offset (0) lets
    /// equal a broker's initial epoch (broker b re-registering at offset b - 1), where
    /// Kafka never reuses a broker epoch (it is the registration record's offset, and
    /// the initial registrations are records 0..n-1). Only a stale heartbeat of the
    /// first incarnation arriving after such a re-registration could tell the difference;
    /// hashing the value until the offset passed every id (as before) kept followers
    /// apart for the whole of a short search. docs/explorer.md, "Symmetry".
    pub(super) fn broker_epoch(&mut self, owner: u32, epoch: u64) {
        if epoch == owner as u64 {
            self.word(u64::MAX - 7);
        } else {
            self.word(epoch);
        }
    }

    /// A broker epoch a message or a leader's view carries (3.5+, KIP-903): nothing when
    /// none, so that presets before it hash as they did.
    pub(super) fn opt_broker_epoch(&mut self, owner: u32, epoch: Option<u64>) {
        if let Some(e) = epoch {
            self.word(u64::MAX - 9);
            self.broker_epoch(owner, e);
        }
    }

    fn opt_key(&mut self, key: Option<Key>) {
        match key {
            Some(k) => self.key(k),
            None => self.word(u64::MAX - 3),
        }
    }

    /// A reference to a scheduled item: its place in the queue (or, gone, its time relative to now).
    #[inline(always)]
    pub(super) fn key(&mut self, key: Key) {
        if matches!(Self::MODE, Mode::Content) {
            return;
        }
        let queue = &self.cx.sim.sched.queue;
        let place = self.cx.places.find(queue, key);
        match place {
            Ok(i) => self.reference(i as u64),
            Err(_) => {
                self.reference(u64::MAX);
                self.reference(key.0.wrapping_sub(self.cx.now));
            }
        }
    }

    pub(super) fn node(&mut self, n: Node) {
        self.word(self.node_word(n));
    }

    fn node_word(&self, n: Node) -> u64 {
        match n {
            Node::Broker(b) => self.cx.perm.to[(b & 7) as usize] as u64,
            Node::Producer(p) => 1 << 32 | p as u64,
            Node::Consumer(c) => 2 << 32 | c as u64,
            Node::Controller => 3 << 32,
            Node::ZooKeeper => 4 << 32,
        }
    }

    pub(super) fn record(&mut self, id: RecordId) {
        self.word((id.producer as u64) << 32 | id.n as u64);
    }

    pub(super) fn entry(&mut self, e: &Entry) {
        let Entry { epoch, id, producer_epoch, batch_start } = *e;
        self.word((epoch as u32 as u64) << 32 | (id.producer as u64) << 24 | (id.n as u64 & 0xff_ffff));
        if producer_epoch != 0 || batch_start {
            self.word(producer_epoch as u64 | (batch_start as u64) << 16);
        }
    }

    pub(super) fn records(&mut self, ids: &[RecordId]) {
        if self.refs_only() {
            return;
        }
        self.word(ids.len() as u64);
        for &id in ids {
            self.record(id);
        }
    }

    fn sim(&mut self) {
        let Sim {
            scenario: _,
            behavior: _,
            settings: _,
            now,
            step: _,
            sched: _,
            rng,
            net,
            next_msg: _,
            in_flight: _,
            brokers,
            controller,
            producers,
            consumers,
            invariants,
            // Caches: what the properties verified already.
            checked: _,
            last: _,
            done,
            // Not hashed: the search runs within the script (`moves::due_count` stops at
            // `stop_at_ms` whatever `after_stop` says), where neither changes what is due,
            // and only `Sim::step` past the script writes `settled_since`.
            settle: _,
            settled_since: _,
            // Read only past the script (`Sim::quiet`), as `settled_since`.
            last_change_ms: _,
        } = self.cx.sim;
        // Absolute time: the horizon (`stop_at_ms`: nothing runs or strikes after it)
        // leaves a state at t and the same state at a later t different futures, and
        // a crash's fencing time depends on the heartbeat phase.
        self.word(*now);
        self.word(rng.0);
        self.word(*done as u64);
        for new in 0..brokers.len() {
            self.cached(&brokers[self.cx.perm.from[new] as usize], Walker::broker_state, Walker::broker_refs);
        }
        self.cached(controller, Walker::controller, Walker::controller_refs);
        self.word(producers.len() as u64);
        for p in producers {
            self.cached(p, Walker::producer, Walker::producer_refs);
        }
        self.word(consumers.len() as u64);
        for c in consumers {
            self.cached(c, Walker::consumer, Walker::consumer_refs);
        }
        // Cut links and connections not simply open, as sets (a sum of their hashes:
        // the renaming reorders them).
        let cuts = net.cut.iter().fold(0u64, |s, &(a, b)| s.wrapping_add(mix(mix(self.node_word(a)) ^ self.node_word(b))));
        self.word(cuts);
        if !net.channel_cut.is_empty() {
            let channels = net
                .channel_cut
                .iter()
                .fold(0u64, |s, &(a, b, c)| s.wrapping_add(mix(mix(mix(self.node_word(a)) ^ self.node_word(b)) ^ (c as u64 + 1))));
            self.word(channels);
        }
        let conns = net.conns.iter().fold(0u64, |s, (&(a, b), c)| {
            let state = match *c {
                Conn::Closed => u64::MAX,
                Conn::GivenUp { failures } => u64::MAX - 1 - u64::from(failures),
                Conn::Connecting { since, failures, .. } => since.wrapping_sub(self.cx.now) ^ (u64::from(failures) << 48),
                Conn::Crossing { at } => at.wrapping_sub(self.cx.now) ^ (1 << 63),
            };
            s.wrapping_add(mix(mix(mix(self.node_word(a)) ^ self.node_word(b)) ^ state))
        });
        self.word(conns);
        // Requests left to a closed connection's orphan, by id (the renaming keeps ids' order).
        if !net.orphans.is_empty() {
            self.word(net.orphans.len() as u64);
            for (&id, &server) in net.orphans.iter() {
                self.id(id);
                let server = self.node_word(server);
                self.word(server);
            }
        }
        self.queue();
        // No renaming, time or id in them: cached like a node's content, with no references.
        self.cached(invariants, Walker::invariants, |_, _| {});
    }

    fn log(&mut self, log: &Log) {
        if self.refs_only() {
            return;
        }
        self.word(log.base());
        self.word(log.start_offset);
        self.word(log.leo());
        for (_, e) in log.entries_from(log.base()) {
            self.entry(&e);
        }
        for &(epoch, start) in log.epochs() {
            self.word((epoch as u32 as u64) << 32 ^ start);
        }
    }

    /// The scheduler's queue, in order: each item's time (relative), class and what it is.
    fn queue(&mut self) {
        let sim = self.cx.sim;
        self.word(sim.sched.queue.len() as u64);
        for &((at, class, seq), ref due) in &sim.sched.queue {
            self.time(at);
            self.word(class as u64);
            match due {
                Due::Scenario { action: _, index, rep } => self.word(1 << 40 | (*index as u64) << 20 | *rep as u64),
                Due::Intervention(action) => {
                    self.word(2 << 40);
                    self.action(action);
                }
                Due::Deliver(id) => {
                    self.word(3 << 40);
                    match self.cx.places.msg(&sim.in_flight, (at, class, seq), *id) {
                        Some((msg, _)) => self.cached(msg, Walker::msg, Walker::msg_refs),
                        None => self.word(u64::MAX),
                    }
                }
                Due::Timer(t) => {
                    self.word(4 << 40);
                    self.timer(t);
                }
            }
        }
    }

    fn invariants(&mut self, inv: &Invariants) {
        let Invariants {
            new_violations: _,
            // Drawn only (the record's list of losses); the search stops at a violation.
            losses: _,
            history: _,
            committed,
            watched,
            fresh: _,
            // Derived from `watched` (hashed below).
            acked_end: _,
            appended_alone,
            unflushed,
            last_unclean,
            watched_since,
            reported,
        } = inv;
        for list in committed {
            self.word(list.len() as u64);
            for o in list.iter() {
                self.word(*o);
            }
        }
        let sum = watched.iter().fold(0u64, |s, &(o, w, id)| {
            let why = match w {
                Watch::Acked => u64::MAX,
                Watch::AckedAlone(a) => u64::MAX - 1 - a as u64,
                Watch::Consumed(c) => c as u64,
            };
            s.wrapping_add(mix(mix(o ^ why.rotate_left(40)) ^ ((id.producer as u64) << 32 | id.n as u64)))
        });
        self.word(sum);
        // Where acks=0/1 records were appended, and records lost unflushed: what makes a later loss allowed.
        let alone = appended_alone.iter().fold(0u64, |s, (&(p, n), &o)| s.wrapping_add(mix(mix((p as u64) << 32 | n as u64) ^ o)));
        self.word(alone);
        let lost = unflushed.iter().fold(0u64, |s, &(p, n)| s.wrapping_add(mix((p as u64) << 32 | n as u64 ^ 1 << 63)));
        self.word(lost);
        // Steps are not hashed: what a rule reads of `last_unclean` and `watched_since` is
        // whether the last unclean election came at or after a record began to be watched
        // (later watches begin after it).
        self.word(last_unclean.is_some() as u64);
        let since = watched_since.iter().fold(0u64, |s, (&(o, p, n), &step)| {
            let before = last_unclean.is_some_and(|u| u >= step) as u64;
            s.wrapping_add(mix(mix(o ^ before << 63) ^ ((p as u64) << 32 | n as u64)))
        });
        self.word(since);
        let names = reported.iter().fold(0u64, |s, &(name, _, _)| s.wrapping_add(name_hash(name)));
        self.word(names);
    }
}

/// A property name's hash (FNV-1a over its bytes, then mixed).
fn name_hash(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    mix(h)
}

#[cfg(test)]
mod tests;
