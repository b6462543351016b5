//! Key moments of a run, found as it is computed: the steps that moved an HW,
//! changed the ISR, elected a leader, truncated a log, broke an invariant, or
//! were an intervention (or a scripted fault). The page draws them on its
//! scrubber and jumps between them (issue 13); `Run` keeps one `Marks` per run.

use crate::scenario::Action;
use crate::sim::step::Trigger;
use crate::sim::{Event, Sim};

/// A leader's or a follower's HW moved.
pub const HW: u8 = 1;
/// The ISR changed, or a change was asked for (AlterPartition) or committed.
pub const ISR: u8 = 2;
/// A leader was elected, or the partition went offline.
pub const ELECTION: u8 = 4;
/// A log was truncated (or lost unflushed records at a crash).
pub const TRUNCATION: u8 = 8;
/// An invariant broke (a record acknowledged or read was lost, replicas diverged…).
pub const LOSS: u8 = 16;
/// The user's intervention.
pub const INTERVENTION: u8 = 32;
/// A scripted crash, restart, cut or heal.
pub const FAULT: u8 = 64;

/// The kinds of mark, by name, as the page and docs/extensions.md name them.
pub const KINDS: [(&str, u8); 7] = [
    ("hw", HW),
    ("isr", ISR),
    ("election", ELECTION),
    ("truncation", TRUNCATION),
    ("loss", LOSS),
    ("intervention", INTERVENTION),
    ("fault", FAULT),
];

/// What kinds of moment the step `sim` just ran is (0: none). `intervention`
/// says whether the step was the user's.
pub fn kinds_of(sim: &Sim, intervention: bool) -> u8 {
    let mut k = if intervention { INTERVENTION } else { 0 };
    if !intervention {
        if let Trigger::Action(a) = &sim.last.trigger {
            if matches!(&**a, Action::Crash { .. } | Action::Restart { .. } | Action::Partition { .. } | Action::Heal { .. }) {
                k |= FAULT;
            }
        }
    }
    for e in sim.last.events() {
        k |= match *e {
            Event::LeaderHwMoved { from, to, .. } if from != to => HW,
            Event::FollowerAppended { hw_before, hw, .. } if hw_before != hw => HW,
            Event::IsrExpanded { .. }
            | Event::IsrShrunk { .. }
            | Event::AlterPartitionCommitted { .. }
            | Event::ControllerIsrShrunk { .. }
            | Event::IsrApplied { .. } => ISR,
            Event::SessionExpired { isr_before, kept_last, broker, .. } if isr_before.contains(broker) && !kept_last => ISR,
            Event::LeaderElected { .. } | Event::PartitionOffline { .. } => ELECTION,
            Event::Truncated { leo_before, to, .. } if to < leo_before => TRUNCATION,
            Event::Crashed { unflushed, .. } if unflushed > 0 => TRUNCATION,
            _ => 0,
        };
    }
    if !sim.invariants.new_violations.is_empty() {
        k |= LOSS;
    }
    k
}

/// The marked steps of a run, in step order, as far as it is computed.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    steps: Vec<u64>,
    kinds: Vec<u8>,
}

impl Marks {
    /// Notes a newly computed step (steps arrive in order, each once).
    pub fn note(&mut self, step: u64, kinds: u8) {
        if kinds != 0 && self.steps.last().is_none_or(|&s| s < step) {
            self.steps.push(step);
            self.kinds.push(kinds);
        }
    }

    /// Forgets the marks after `step` (an intervention forks the future).
    pub fn truncate_after(&mut self, step: u64) {
        let keep = self.steps.partition_point(|&s| s <= step);
        self.steps.truncate(keep);
        self.kinds.truncate(keep);
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The kinds at `step` (0 if it is not marked).
    pub fn at(&self, step: u64) -> u8 {
        match self.steps.binary_search(&step) {
            Ok(i) => self.kinds[i],
            Err(_) => 0,
        }
    }

    /// The first step after `step` (or, backwards, the last before it) with one of
    /// the kinds in `mask`, among the steps computed.
    pub fn next(&self, step: u64, mask: u8, forward: bool) -> Option<u64> {
        if forward {
            let i = self.steps.partition_point(|&s| s <= step);
            (i..self.steps.len()).find(|&j| self.kinds[j] & mask != 0).map(|j| self.steps[j])
        } else {
            let i = self.steps.partition_point(|&s| s < step);
            (0..i).rev().find(|&j| self.kinds[j] & mask != 0).map(|j| self.steps[j])
        }
    }

    /// Steps `from..=to` cut into `buckets` equal spans: the kinds marked in each
    /// (what a scrubber `buckets` pixels wide draws).
    pub fn buckets(&self, from: u64, to: u64, buckets: usize) -> Vec<u8> {
        let mut out = vec![0u8; buckets];
        if buckets == 0 || to < from {
            return out;
        }
        let span = (to - from + 1) as f64;
        let start = self.steps.partition_point(|&s| s < from);
        for j in start..self.steps.len() {
            let s = self.steps[j];
            if s > to {
                break;
            }
            let b = (((s - from) as f64 / span) * buckets as f64) as usize;
            out[b.min(buckets - 1)] |= self.kinds[j];
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_and_buckets() {
        let mut m = Marks::default();
        m.note(3, HW);
        m.note(7, ISR | HW);
        m.note(9, LOSS);
        m.note(9, HW); // a step is noted once
        assert_eq!(m.next(0, HW, true), Some(3));
        assert_eq!(m.next(3, HW, true), Some(7));
        assert_eq!(m.next(7, HW, true), None);
        assert_eq!(m.next(9, HW, false), Some(7));
        assert_eq!(m.next(3, HW, false), None);
        assert_eq!(m.next(0, LOSS, true), Some(9));
        assert_eq!(m.buckets(0, 9, 2), vec![HW, ISR | HW | LOSS]);
        m.truncate_after(7);
        assert_eq!(m.next(7, LOSS, true), None);
        assert_eq!(m.len(), 2);
    }
}
