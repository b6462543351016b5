//! Each property's verdict at every step of a run, with its witness: the strip
//! under the page's scrubber (issue 27). Noted as steps are computed, like
//! `marks`, and kept as runs of equal verdicts, so a long run costs a few
//! entries per property.
//!
//! Two kinds of property, both named in `sim::invariants`:
//! - the engine's own (`acked-record-lost`, `replicas-diverged`…), reported in
//!   the step records' `violations` at the step they first hold: from there on
//!   the property stays broken (a lost record stays lost), *allowed* when the
//!   configuration permits every failure of it so far;
//! - state properties (`STATE_PROPERTIES`: `leader-maximal-isr`…), functions of
//!   one state, read after every step: broken while they fail.
//!
//! Each carries the name of the kafka-tlaplus invariant it corresponds to, where
//! there is one (docs/explorer.md has the table and where they differ).

use crate::json::{Obj, ToJson};
use crate::sim::invariants::{self as inv, Witness};
use crate::sim::Sim;

/// A property the strip shows: its name, the kafka-tlaplus invariant it
/// corresponds to ("" if none) and whether it is a state property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Property {
    pub name: &'static str,
    pub tla: &'static str,
    pub state: bool,
}

/// Every property, in the strip's order: the engine's first, then the state properties.
pub const PROPERTIES: [Property; 11] = [
    Property { name: inv::ACKED_RECORD_LOST, tla: "LeaderHasCompleteCommittedLog", state: false },
    Property { name: inv::REPLICAS_DIVERGED, tla: "NoPartitionLogDivergence", state: false },
    Property { name: inv::CONSUMED_RECORD_LOST, tla: "ConsumedRecordsMatchLeaderLog", state: false },
    Property { name: inv::CONSUMER_READ_UNCOMMITTED, tla: "", state: false },
    Property { name: inv::HW_ABOVE_LEO, tla: "", state: false },
    Property { name: inv::FOLLOWER_HW_ABOVE_LEADER, tla: "", state: false },
    Property { name: inv::DUPLICATE_RECORD, tla: "", state: false },
    Property { name: inv::LEADER_MAXIMAL_ISR, tla: "ValidLeaderMaximalISR", state: true },
    Property { name: inv::ISR_MEMBER_INCOMPLETE, tla: "LeaderCandidateCompletenessProperty", state: true },
    Property { name: inv::ACKED_RECORD_LOST_EVERYWHERE, tla: "NoCommittedRecordLostGlobally", state: true },
    Property { name: inv::ISR_ELR_INVALID, tla: "ValidControllerIsrAndElr", state: true },
];

/// Where the state properties begin in `PROPERTIES`: the one at `STATE + k` is
/// `inv::STATE_PROPERTIES[k]` (a test checks it).
const STATE: usize = 7;

/// `acked-record-lost-everywhere`'s place in `inv::STATE_PROPERTIES`: read from the
/// cache `Verdicts::everywhere`, not every step.
const EVERYWHERE: usize = 2;

/// A property's state at a step (ordered: holds < allowed < fails).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Holds,
    /// Broken, but the configuration permits it (acks=0/1, an unclean election…).
    Allowed,
    Fails,
}

/// A broken property's verdict: allowed when the configuration permits it.
fn verdict_of(v: &inv::Violation) -> Verdict {
    if v.allowed {
        Verdict::Allowed
    } else {
        Verdict::Fails
    }
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Allowed => "allowed",
            Verdict::Fails => "fails",
        }
    }
}

/// Steps `from..` (to the next segment) share a verdict; a broken one names its
/// witness, found at step `from`.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub from: u64,
    pub verdict: Verdict,
    pub text: String,
    pub witness: Witness,
}

impl Segment {
    fn holds(from: u64) -> Segment {
        Segment { from, verdict: Verdict::Holds, text: String::new(), witness: Witness::default() }
    }
}

/// The verdicts of a run, as far as it is computed.
#[derive(Debug, Clone, Default)]
pub struct Verdicts {
    rows: Vec<Vec<Segment>>,
    /// Each broker's LEO when `acked-record-lost-everywhere` was last read: a record
    /// leaves every log only by a truncation or a crash (an LEO that drops), so the
    /// property is read again only then.
    leos: Vec<u64>,
    everywhere: Option<inv::Violation>,
    /// The step noted last (steps arrive in order, each once).
    last: Option<u64>,
}

impl Verdicts {
    /// Notes the step `sim` has just computed. On every step of a look-ahead, so it
    /// allocates nothing and reads the engine's properties only when the step
    /// reported a violation (docs/performance.md, issue 28's eleventh pass).
    pub fn note(&mut self, sim: &Sim) {
        if self.last.is_some_and(|l| sim.step <= l) {
            return;
        }
        if self.rows.is_empty() {
            self.rows = vec![Vec::new(); PROPERTIES.len()];
        }
        // Whether some LEO dropped, the LEOs noted in the same pass.
        let mut dropped = self.leos.len() != sim.brokers.len();
        if dropped {
            self.leos.resize(sim.brokers.len(), 0);
        }
        for (was, b) in self.leos.iter_mut().zip(&sim.brokers) {
            let now = b.log.leo();
            dropped |= now < *was;
            *was = now;
        }
        // Once failing, read every step: a retry may append the record again.
        if dropped || self.everywhere.is_some() || self.last.is_none() {
            self.everywhere = inv::acked_record_kept_somewhere(sim);
        }
        self.last = Some(sim.step);
        let Verdicts { rows, everywhere, .. } = self;
        let (engine, state) = rows.split_at_mut(STATE);
        let violations = &sim.invariants.new_violations;
        // Rows are empty only before the first step noted; after it, a step that
        // reported no violation changes no engine property.
        let engine = if violations.is_empty() && !engine.iter().any(Vec::is_empty) { &mut [][..] } else { engine };
        for (row, p) in engine.iter_mut().zip(&PROPERTIES) {
            let now = row.last().map_or(Verdict::Holds, |s| s.verdict);
            // Latched: once broken it stays broken; a forbidden failure outranks a permitted one.
            let mut next: Option<&inv::Violation> = None;
            for v in violations.iter().filter(|v| v.invariant == p.name) {
                let verdict = verdict_of(v);
                if verdict > now && next.is_none_or(|n| verdict > verdict_of(n)) {
                    next = Some(v);
                }
            }
            match next {
                Some(v) => row.push(Segment { from: sim.step, verdict: verdict_of(v), text: v.text.clone(), witness: v.witness }),
                None if row.is_empty() => row.push(Segment::holds(sim.step)),
                None => {}
            }
        }
        for (k, (row, (_, read))) in state.iter_mut().zip(&inv::STATE_PROPERTIES).enumerate() {
            let now = row.last().map_or(Verdict::Holds, |s| s.verdict);
            let read_now;
            let found = if k == EVERYWHERE {
                everywhere.as_ref()
            } else {
                read_now = read(sim);
                read_now.as_ref()
            };
            match found {
                Some(v) if verdict_of(v) != now => {
                    row.push(Segment { from: sim.step, verdict: verdict_of(v), text: v.text.clone(), witness: v.witness })
                }
                Some(_) => {}
                None if now != Verdict::Holds || row.is_empty() => row.push(Segment::holds(sim.step)),
                None => {}
            }
        }
    }

    /// Forgets the verdicts after `step` (an intervention forks the future).
    pub fn truncate_after(&mut self, step: u64) {
        for row in &mut self.rows {
            let keep = row.partition_point(|s| s.from <= step);
            row.truncate(keep);
        }
        self.last = Some(step);
        // Read the state property again at the next step.
        self.leos.clear();
    }

    /// A property's verdict at `step` (Holds past what is computed).
    pub fn at(&self, property: &str, step: u64) -> Verdict {
        let Some(i) = PROPERTIES.iter().position(|p| p.name == property) else { return Verdict::Holds };
        let Some(row) = self.rows.get(i) else { return Verdict::Holds };
        let k = row.partition_point(|s| s.from <= step);
        if k == 0 {
            Verdict::Holds
        } else {
            row[k - 1].verdict
        }
    }

    /// A property's segments (empty before step 0 is noted).
    pub fn segments(&self, property: &str) -> &[Segment] {
        PROPERTIES.iter().position(|p| p.name == property).and_then(|i| self.rows.get(i)).map_or(&[], |r| r.as_slice())
    }

    /// The first step where a property is broken (fails, or is allowed), with its segment.
    pub fn first_broken(&self, property: &str) -> Option<&Segment> {
        self.segments(property).iter().find(|s| s.verdict != Verdict::Holds)
    }
}

/// What the page reads: every property with its runs of verdicts and, for a
/// broken run, its witness (record names as the step record writes them).
pub struct VerdictsJson<'a> {
    pub verdicts: &'a Verdicts,
    pub sim: &'a Sim,
    pub known: u64,
}

impl ToJson for VerdictsJson<'_> {
    fn write_json(&self, out: &mut String) {
        let props: Vec<PropertyJson> =
            PROPERTIES.iter().map(|p| PropertyJson { p: *p, segments: self.verdicts.segments(p.name), sim: self.sim }).collect();
        Obj::new(out).field("known", &self.known).field("properties", &props).end();
    }
}

struct PropertyJson<'a> {
    p: Property,
    segments: &'a [Segment],
    sim: &'a Sim,
}

impl ToJson for PropertyJson<'_> {
    fn write_json(&self, out: &mut String) {
        let segs: Vec<SegmentJson> = self.segments.iter().map(|s| SegmentJson { s, sim: self.sim }).collect();
        Obj::new(out)
            .field("name", &self.p.name)
            .field("tla", &self.p.tla)
            .field("kind", &if self.p.state { "state" } else { "engine" })
            .field("segments", &segs)
            .end();
    }
}

struct SegmentJson<'a> {
    s: &'a Segment,
    sim: &'a Sim,
}

impl ToJson for SegmentJson<'_> {
    fn write_json(&self, out: &mut String) {
        let s = self.s;
        let mut o = Obj::new(out);
        o.field("from", &s.from).field("verdict", &s.verdict.name());
        if s.verdict != Verdict::Holds {
            let w = &s.witness;
            o.field("text", &s.text)
                .opt("record", &w.record.map(|id| self.sim.record_name(id)))
                .opt("replica", &w.replica)
                .opt("other", &w.other)
                .opt("offset", &w.offset)
                .opt("epoch", &w.epoch);
        }
        o.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Verdicts::note` reads the property at `STATE + k` with `STATE_PROPERTIES[k]`'s
    /// function: the engine's properties first, then the state ones in that order.
    #[test]
    fn state_properties_follow_the_engine_ones_in_order() {
        assert!(PROPERTIES[..STATE].iter().all(|p| !p.state));
        let state: Vec<&str> = PROPERTIES[STATE..].iter().filter(|p| p.state).map(|p| p.name).collect();
        assert_eq!(state, inv::STATE_PROPERTIES.iter().map(|(n, _)| *n).collect::<Vec<_>>());
        assert_eq!(inv::STATE_PROPERTIES[EVERYWHERE].0, inv::ACKED_RECORD_LOST_EVERYWHERE);
    }
}
