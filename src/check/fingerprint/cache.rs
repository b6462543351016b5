//! A node's hash, cached beside it with its references (issue 27).
//!
//! A node's references are what made its hash depend on the rest of the world: a
//! message id is hashed as its distance from the world's next id, and a timer as
//! the item it names in the scheduler's queue. Both are cached here:
//!
//! - **Ids, linearly.** The id at the node's `p`-th id place adds `(next − id)·C_p`
//!   (odd `C_p`), which is `next·ΣC − Σ id·C_p`: the node caches `Σ id·C_p` and
//!   `ΣC`, and the fingerprint applies the next id. The node's content fixes how
//!   many ids it has and where, so equal sums mean equal distances (up to the
//!   2⁻⁶⁴ of a hash).
//! - **Timers by (due time, class, rank).** The queue is hashed in order with each
//!   item's time and class, so an item's place in it and (its time, its class, its
//!   rank among the items of that time and class, in sequence order) name the same
//!   item. The time and class are the node's own; the rank is 0 unless two items
//!   share both, and whether the item is in the queue at all is the world's. The
//!   node caches each reference's term as if it is in the queue at rank 0, with a
//!   summary of the keys it names (`Acc::seen`, `Acc::mask`); per state, each node's
//!   summary is checked against the queue's items in the same slots
//!   (`Ctx::refs_hold`). Where it holds, every cached term is right; else the node
//!   walks its references (`refs.rs`) for the correction.
//!
//! `tests::encodings_tell_the_same_states_apart` runs this and the encoding before it
//! (`Ctx::legacy`: ids walked, timers by their place in the queue) side by side.

use super::{mix, Ctx, Walker, CONTENT, MUL, REFS};
use crate::sim::{Key, Shared};

/// A reference's state in the queue for a term: absent (then class 0 is hashed).
const ABSENT: u64 = 0xffff;

/// Per-place constants (odd): an id's multiplier, a timer term's salt; `place_const`
/// past the table.
const PLACE: [u64; 16] = [
    0x9e37_79b9_7f4a_7c15,
    0xbf58_476d_1ce4_e5b9,
    0x94d0_49bb_1331_11eb,
    0xd6e8_feb8_6659_fd93,
    0xa076_1d64_78bd_642f,
    0xe703_7ed1_a0b4_28db,
    0x8ebc_6af0_9c88_c6e3,
    0x5899_65cc_7537_4cc3,
    0x1d8e_4e27_c47d_124f,
    0xc2b2_ae3d_27d4_eb4f,
    0x1656_67b1_9e37_79f9,
    0x27d4_eb2f_1656_67c5,
    0xff51_afd7_ed55_8ccd,
    0xc4ce_b9fe_1a85_ec53,
    0x87c3_7b91_1142_53d5,
    0x4cf5_ad43_2745_937f,
];

#[inline]
fn place_const(p: u32) -> u64 {
    match PLACE.get(p as usize) {
        Some(&c) => c,
        None => mix(p as u64 ^ 0x5851_f42d_4c95_7f2d) | 1,
    }
}

/// What a node's walk gathers about its references.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Acc {
    /// Σ of the timer references' terms (`term`), each at rank 0 in the queue; in a
    /// references' walk, the corrections to that.
    pub(super) keys: u64,
    /// Σ id·C_p over the id places.
    ids: u64,
    /// Σ C_p.
    idc: u64,
    /// Σ `seen(key)` over the timer references.
    seen: u64,
    /// Bit `seq % 64` of each timer reference.
    mask: u64,
    /// The next timer place and id place.
    kplace: u32,
    iplace: u32,
}

/// The term of the timer reference at place `p`: its due time, class and `state` (its
/// rank in the queue, or `ABSENT`), packed (a time below 2⁴⁰ ms, a rank below 2¹⁶) and mixed.
#[inline]
fn term(p: u32, at: u64, class: u8, state: u64) -> u64 {
    mix((at ^ state << 40 ^ (class as u64) << 56) ^ place_const(p))
}

/// A key's hash for the check's sums: its three parts.
#[inline]
fn seen(key: Key) -> u64 {
    mix(key.0.wrapping_mul(MUL) ^ key.2 ^ (key.1 as u64) << 56)
}

impl Acc {
    #[inline]
    pub(super) fn id(&mut self, id: u64) {
        let c = place_const(self.iplace);
        self.ids = self.ids.wrapping_add(id.wrapping_mul(c));
        self.idc = self.idc.wrapping_add(c);
        self.iplace += 1;
    }

    #[inline]
    pub(super) fn key(&mut self, key: Key) {
        self.keys = self.keys.wrapping_add(term(self.kplace, key.0, key.1, 0));
        self.seen = self.seen.wrapping_add(seen(key));
        self.mask |= 1 << (key.2 % 64);
        self.kplace += 1;
    }

    /// The correction for the next timer reference, whose state in the queue is `actual`.
    #[inline]
    pub(super) fn correct(&mut self, key: Key, actual: (u64, u8, u64)) {
        let assumed = term(self.kplace, key.0, key.1, 0);
        let (at, class, state) = actual;
        self.keys = self.keys.wrapping_add(term(self.kplace, at, class, state).wrapping_sub(assumed));
        self.kplace += 1;
    }
}

impl Ctx<'_> {
    /// Whether a node's cached timer terms hold in this state: each of its references
    /// (`mask`: bit `seq % 64` of each) names the one item of the queue in its slot
    /// (`Places::only`), that item is first of its time and class, and the sum of
    /// `seen` over those items is the node's (`seen`: its references'). Two references
    /// in one slot, or one gone, make the sums differ (up to the 2⁻⁶⁴ of a hash): then
    /// the node walks its references for the correction.
    #[inline]
    fn refs_hold(&self, mut mask: u64, seen_sum: u64) -> bool {
        let queue = &self.sim.sched.queue;
        let mut sum = 0u64;
        while mask != 0 {
            let Some(i) = self.places.only(mask.trailing_zeros() as usize) else {
                return false;
            };
            let key = queue[i].0;
            // Latest first: the item after it is the one before it in sequence.
            if queue.get(i + 1).is_some_and(|(k, _)| k.0 == key.0 && k.1 == key.1) {
                return false;
            }
            sum = sum.wrapping_add(seen(key));
            mask &= mask - 1;
        }
        sum == seen_sum
    }

    /// A timer reference's (due time, class, state) as it stands in this state's queue.
    #[inline]
    pub(super) fn key_state(&self, key: Key) -> (u64, u8, u64) {
        let queue = &self.sim.sched.queue;
        match self.places.find(queue, key) {
            Ok(i) => {
                let rank = queue[i + 1..].iter().take_while(|(k, _)| k.0 == key.0 && k.1 == key.1).count();
                (key.0, key.1, rank.min(0xfffe) as u64)
            }
            Err(_) => (key.0, 0, ABSENT),
        }
    }
}

impl<'a, const M: u8> Walker<'a, M> {
    /// A node's cached words: its content hash with its references' terms (ids without
    /// the next id), and `[ΣC, Σ seen, mask]` (`Acc`), computed and cached if the node
    /// was written since.
    #[inline]
    pub(super) fn content<T: Clone>(&self, node: &Shared<T>, walk: fn(&mut Walker<'a, CONTENT>, &T)) -> (u64, [u64; 3]) {
        if let Some(c) = Shared::hash(node, self.cx.cache) {
            return c;
        }
        let mut sub = self.fresh::<CONTENT>();
        walk(&mut sub, node);
        let a = sub.acc;
        let h = sub.h.finish().wrapping_add(a.keys).wrapping_sub(a.ids);
        let extra = [a.idc, a.seen, a.mask];
        Shared::set_hash(node, self.cx.cache, h, extra);
        (h, extra)
    }

    /// Hashes a node: its cached words (`content`), the next id applied to its ids,
    /// and, where the state's `RefCheck` suspects its timer terms, the correction its
    /// references' walk (`refs`, which visits the timers in `walk`'s order) gives.
    pub(super) fn cached<T: Clone>(
        &mut self,
        node: &Shared<T>,
        walk: fn(&mut Walker<'a, CONTENT>, &T),
        refs: fn(&mut Walker<'a, REFS>, &T),
    ) {
        if cfg!(test) && self.cx.legacy {
            return self.legacy_cached(node, walk, refs);
        }
        let (h, [idc, seen_sum, mask]) = self.content(node, walk);
        let mut w = h.wrapping_add(self.cx.next_msg.wrapping_mul(idc));
        if mask != 0 && !self.cx.refs_hold(mask, seen_sum) {
            let mut r = self.fresh::<REFS>();
            refs(&mut r, node);
            w = w.wrapping_add(r.acc.keys);
        }
        self.word(w);
    }

    /// The encoding before: the content's hash (not cached), then the references' words.
    fn legacy_cached<T: Clone>(&mut self, node: &Shared<T>, walk: fn(&mut Walker<'a, CONTENT>, &T), refs: fn(&mut Walker<'a, REFS>, &T)) {
        let mut sub = self.fresh::<CONTENT>();
        walk(&mut sub, node);
        self.word(sub.h.finish());
        let mut r = self.fresh::<REFS>();
        r.h = self.h;
        refs(&mut r, node);
        self.h = r.h;
    }

    /// The encoding before: a timer by its place in the queue, or gone, by its time.
    pub(super) fn legacy_key(&mut self, key: Key) {
        match self.cx.places.find(&self.cx.sim.sched.queue, key) {
            Ok(i) => self.h.word(i as u64),
            Err(_) => {
                self.h.word(u64::MAX);
                self.h.word(key.0.wrapping_sub(self.cx.now));
            }
        }
    }
}
