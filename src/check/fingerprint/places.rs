//! Where each item of the scheduler's queue and each message in flight is, by
//! sequence number: the table a fingerprint builds once and every node's
//! references look up (`Walker::key`).

use crate::sim::vecmap::VecMap;
use crate::sim::Key;

/// Where each item of the scheduler's queue is, by its sequence number: a table
/// indexed by the number's low bits, built once per fingerprint, so that a node's
/// reference to a timer or a message (`Walker::key`) costs a lookup, not a search.
/// Beside it, where each message in flight is (`Sim::in_flight`, by the sequence
/// number of the key it was scheduled under), so that the queue's deliveries find
/// their message without a search either.
pub(crate) struct Places {
    /// Place + 1 of the item whose sequence number falls in the slot (0: none).
    slots: [u8; PLACES],
    /// Place + 1 in `in_flight` of the message scheduled under a sequence number in the slot.
    msgs: [u8; PLACES],
    /// Whether two items fell in one slot (then a key not found there is searched for).
    clashed: bool,
    /// Whether the table is built (a longer queue is searched instead).
    built: bool,
}

pub(crate) const PLACES: usize = 64;

impl Places {
    /// A table built for `queue` and `in_flight` (the tests; a fingerprint fills its own).
    #[cfg(test)]
    pub(crate) fn new<T, M>(queue: &[(Key, T)], in_flight: &[(u64, (M, Key))]) -> Places {
        let mut p = Places::EMPTY;
        p.fill(queue, in_flight);
        p
    }

    /// No table yet (`fill` builds it in place: a fingerprint's context holds it, and
    /// building it elsewhere and moving it in was a 130-byte copy per state).
    pub(crate) const EMPTY: Places = Places { slots: [0; PLACES], msgs: [0; PLACES], clashed: false, built: false };

    /// Builds the table for `queue` and `in_flight` (into an `EMPTY` one).
    #[inline]
    pub(crate) fn fill<T, M>(&mut self, queue: &[(Key, T)], in_flight: &[(u64, (M, Key))]) {
        self.built = queue.len() < u8::MAX as usize && in_flight.len() < u8::MAX as usize;
        if self.built {
            for (i, ((_, _, seq), _)) in queue.iter().enumerate() {
                let slot = &mut self.slots[(*seq % PLACES as u64) as usize];
                self.clashed |= *slot != 0;
                *slot = i as u8 + 1;
            }
            // A clash here only makes a lookup miss (and search): `msg` checks the id.
            for (i, (_, (_, (_, _, seq)))) in in_flight.iter().enumerate() {
                self.msgs[(*seq % PLACES as u64) as usize] = i as u8 + 1;
            }
        }
    }

    /// The key's place in `queue`, or `Err` where it is not there (as a binary search
    /// over the queue answers; the insertion point is not kept).
    #[inline(always)]
    pub(crate) fn find<T>(&self, queue: &[(Key, T)], key: Key) -> Result<usize, usize> {
        if self.built {
            let slot = self.slots[(key.2 % PLACES as u64) as usize];
            if slot == 0 {
                // No item's sequence number falls here: the key is not in the queue.
                return Err(0);
            }
            let i = slot as usize - 1;
            if queue[i].0 == key {
                return Ok(i);
            }
            if !self.clashed {
                // The one item that falls here is another.
                return Err(0);
            }
        }
        queue.binary_search_by(|(k, _)| key.cmp(k))
    }

    /// The message `id` delivered by the queue's item `key`: where the table says, or
    /// found by a search (`in_flight` is sorted by id).
    #[inline(always)]
    pub(crate) fn msg<'m, M>(&self, in_flight: &'m VecMap<u64, (M, Key)>, key: Key, id: u64) -> Option<&'m (M, Key)> {
        if self.built {
            let slot = self.msgs[(key.2 % PLACES as u64) as usize];
            if let Some((at, m)) = in_flight.as_slice().get((slot as usize).wrapping_sub(1)) {
                if *at == id {
                    return Some(m);
                }
            }
        }
        in_flight.get(&id)
    }
}
