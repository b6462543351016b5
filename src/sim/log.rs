//! A replica's log: one record per offset with the epoch of the leader that
//! wrote it, the log start offset, and the leader-epoch cache.
//!
//! Records are kept in shared chunks so that a checkpoint of the whole
//! simulation (for seeking backwards) copies pointers, not records.

use super::pvec::PVec;

/// A produced record's identity: producer index and its 1-based count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordId {
    pub producer: u16,
    pub n: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub epoch: i32,
    pub id: RecordId,
    /// The producer epoch its batch carried (idempotence; 0 otherwise): a replica
    /// rebuilds its producer state from these (`ProducerStateManager`).
    pub producer_epoch: u16,
    /// The first record of an idempotent producer's batch: where the batches the producer
    /// state keeps begin (`ProducerStateEntry.batchMetadata`, `produce::find_duplicate_batch`).
    pub batch_start: bool,
}

impl Entry {
    pub fn new(epoch: i32, id: RecordId) -> Entry {
        Entry { epoch, id, producer_epoch: 0, batch_start: false }
    }
}

#[derive(Debug, Clone)]
pub struct Log {
    /// Offsets below `base` are the scenario's initial records: epoch 0, the same on every replica.
    base: u64,
    entries: PVec<Entry>,
    pub start_offset: u64,
    /// The leader-epoch cache: (epoch, start offset), ascending.
    epochs: Vec<(i32, u64)>,
}

impl Log {
    pub fn new(initial_leo: u64) -> Log {
        Log { base: initial_leo, entries: PVec::new(), start_offset: 0, epochs: vec![(0, 0)] }
    }

    pub fn leo(&self) -> u64 {
        self.base + self.entries.len() as u64
    }

    pub fn base(&self) -> u64 {
        self.base
    }

    /// The produced record at `offset`, or None for an initial record or past the end.
    #[inline(always)]
    pub fn get(&self, offset: u64) -> Option<Entry> {
        if offset < self.base || offset >= self.leo() {
            return None;
        }
        self.entries.get((offset - self.base) as usize).copied()
    }

    /// The epoch of the record at `offset` (initial records are epoch 0).
    pub fn epoch_at(&self, offset: u64) -> Option<i32> {
        if offset >= self.leo() {
            return None;
        }
        Some(self.get(offset).map_or(0, |e| e.epoch))
    }

    /// The epoch of the last record, as a follower sends it in `lastFetchedEpoch`.
    pub fn last_epoch(&self) -> Option<i32> {
        if self.leo() == 0 {
            None
        } else {
            self.epoch_at(self.leo() - 1)
        }
    }

    /// Appends a record and notes its epoch in the cache (`LeaderEpochFileCache.assign`).
    pub fn append(&mut self, entry: Entry) {
        self.assign_epoch(entry.epoch, self.leo());
        self.entries.push(entry);
    }

    /// Appends one of the scenario's initial records (a follower that lost some
    /// to a crash fetches them back; they always precede produced records).
    pub fn append_initial(&mut self) {
        if self.entries.is_empty() {
            self.base += 1;
        }
    }

    /// Removes every record at `offset` and above (`UnifiedLog.truncateTo`).
    pub fn truncate_to(&mut self, offset: u64) {
        if offset >= self.leo() {
            return;
        }
        if offset < self.base {
            self.base = offset;
            self.entries.clear();
        } else {
            self.entries.truncate((offset - self.base) as usize);
        }
        self.epochs.retain(|&(_, start)| start < offset);
        if self.epochs.is_empty() {
            self.epochs.push((0, 0));
        }
        if self.start_offset > offset {
            self.start_offset = offset;
        }
    }

    /// The produced records from `offset` on, with their offsets.
    pub fn entries_from(&self, offset: u64) -> impl Iterator<Item = (u64, Entry)> + '_ {
        let from = offset.max(self.base);
        self.entries.iter_from((from - self.base) as usize).enumerate().map(move |(i, e)| (from + i as u64, *e))
    }

    /// Whether two logs hold the same record at `offset` (both must have it).
    pub fn same_record(&self, other: &Log, offset: u64) -> bool {
        match (self.get(offset), other.get(offset)) {
            (Some(a), Some(b)) => a == b,
            (None, None) => offset < self.leo() && offset < other.leo(),
            _ => false,
        }
    }

    pub fn epochs(&self) -> &[(i32, u64)] {
        &self.epochs
    }

    pub fn latest_epoch(&self) -> i32 {
        self.epochs.last().map_or(0, |e| e.0)
    }

    /// Records that `epoch` starts at `start` (`LeaderEpochFileCache.assign`): nothing
    /// changes if it is the latest epoch already; otherwise entries at or after the new
    /// one (a later epoch, or a start not below `start`) are dropped first
    /// (`maybeTruncateNonMonotonicEntries`), so an epoch in which nothing was written
    /// disappears when the next one starts at the same offset. A new leader calls it
    /// before writing anything.
    pub fn assign_epoch(&mut self, epoch: i32, start: u64) {
        if let Some(&(latest, latest_start)) = self.epochs.last() {
            if latest == epoch && start >= latest_start {
                return;
            }
        }
        self.epochs.retain(|&(e, s)| e < epoch && s < start);
        self.epochs.push((epoch, start));
    }

    /// The end of `epoch` as this log knows it: `(epoch found, end offset)`, or
    /// None for UNDEFINED (`LeaderEpochFileCache.endOffsetFor`, Kafka 2.0+ form).
    pub fn end_offset_for(&self, epoch: i32) -> Option<(i32, u64)> {
        let latest = self.latest_epoch();
        if epoch == latest {
            return Some((epoch, self.leo()));
        }
        let higher = self.epochs.iter().find(|&&(e, _)| e > epoch)?;
        match self.epochs.iter().rev().find(|&&(e, _)| e <= epoch) {
            None => Some((epoch, higher.1)),
            Some(&(floor, _)) => Some((floor, higher.1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u32) -> RecordId {
        RecordId { producer: 0, n }
    }

    #[test]
    fn append_truncate_and_share_chunks() {
        let mut log = Log::new(10);
        for n in 0..600 {
            log.append(Entry::new(1, id(n)));
        }
        let copy = log.clone();
        log.truncate_to(300);
        assert_eq!(log.leo(), 300);
        assert_eq!(copy.leo(), 610);
        assert_eq!(log.get(299).unwrap().id, id(289));
        assert_eq!(copy.get(609).unwrap().id, id(599));
        assert_eq!(log.epoch_at(5), Some(0));
        assert_eq!(log.epochs(), &[(0, 0), (1, 10)]);
        log.truncate_to(5);
        assert_eq!(log.leo(), 5);
        assert_eq!(log.epochs(), &[(0, 0)]);
    }

    /// `PartitionTest.testLastFetchedOffsetValidation`'s cache: {0→0, 3→2, 4→8, 7→13, 9→14, 10→17}, LEO 17.
    #[test]
    fn end_offset_for_matches_kafka() {
        let mut log = Log::new(0);
        for (epoch, from, to) in [(0, 0, 2), (3, 2, 8), (4, 8, 13), (7, 13, 14), (9, 14, 17)] {
            for n in from..to {
                log.append(Entry::new(epoch, id(n)));
            }
        }
        log.assign_epoch(10, 17);
        assert_eq!(log.end_offset_for(2), Some((0, 2)));
        assert_eq!(log.end_offset_for(6), Some((4, 13)));
        assert_eq!(log.end_offset_for(10), Some((10, 17)));
        assert_eq!(log.end_offset_for(9), Some((9, 17)));
        assert_eq!(log.end_offset_for(11), None);
    }
}
