//! Named properties, checked after every step. Each is one function; a
//! violation is reported once, in the step where it first holds, with a
//! sentence that names the record.
//!
//! The checks are incremental (a verified prefix per leader or per pair of
//! replicas) so that a long run costs O(1) per step, not O(log length).

use super::event::Event;
use super::log::{Log, RecordId};
use super::msg::Body;
use super::pvec::PVec;
use super::step::Trigger;
use super::vecmap::VecSet;
use super::Sim;
use crate::scenario::{Acks, MAX_REPLICAS};

/// Not committed, in `Invariants::committed`.
const NONE: u64 = u64::MAX;

pub const HW_ABOVE_LEO: &str = "hw-above-leo";
pub const FOLLOWER_HW_ABOVE_LEADER: &str = "follower-hw-above-leader";
pub const ACKED_RECORD_LOST: &str = "acked-record-lost";
pub const CONSUMED_RECORD_LOST: &str = "consumed-record-lost";
pub const REPLICAS_DIVERGED: &str = "replicas-diverged";
pub const CONSUMER_READ_UNCOMMITTED: &str = "consumer-read-uncommitted";
pub const DUPLICATE_RECORD: &str = "duplicate-record";

/// A property broken in a step. `allowed`: the configuration permits it (acks 0 or 1
/// at a failover, unflushed records at a crash, an unclean election, a retry without
/// idempotence), and `text` names the setting; otherwise Kafka's guarantees forbid it.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub invariant: &'static str,
    pub text: String,
    pub allowed: bool,
    /// What breaks it, as data (the verdict strip names and jumps to it; not in the step record).
    pub witness: Witness,
}

/// The witness of a broken property: which record, which replica (and which other
/// one, for a pair), which offset, which leader epoch (the election it is about).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Witness {
    pub record: Option<RecordId>,
    pub replica: Option<u32>,
    pub other: Option<u32>,
    pub offset: Option<u64>,
    pub epoch: Option<i32>,
}

/// Why a record must stay on the leader (read by the explorer's fingerprint, `crate::check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Watch {
    /// Acknowledged with acks=all.
    Acked,
    /// Acknowledged by the leader alone (acks=1), or appended for an acks=0 producer.
    AckedAlone(u8),
    Consumed(usize),
}

/// A record acknowledged or read and then lost (`acked-record-lost`,
/// `consumed-record-lost`): the run's list of losses, which the record carries
/// from the step it happened on.
#[derive(Debug, Clone, PartialEq)]
pub struct Loss {
    pub step: u64,
    pub invariant: &'static str,
    pub id: RecordId,
    pub offset: u64,
    pub text: String,
    /// The configuration permits this loss (acks=0/1 at a failover, unflushed records, an unclean election).
    pub allowed: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Invariants {
    /// The violations that first held in this step.
    pub new_violations: Vec<Violation>,
    /// Every record lost so far, in the order found.
    pub losses: Vec<Loss>,
    /// Every violation so far, with the step it appeared in.
    pub history: Vec<(u64, Violation)>,
    /// Per producer, per record (n - 1): the offset at which it was first below a leader's HW.
    pub(crate) committed: Vec<PVec<u64>>,
    /// Records that must stay on the leader: (offset, why, record).
    pub(crate) watched: PVec<(u64, Watch, RecordId)>,
    /// Newly watched records not yet checked against the leader.
    pub(crate) fresh: Vec<(u64, Watch, RecordId)>,
    /// Where each acks=0/1 record was last appended by a leader (producer, n) → offset.
    pub(crate) appended_alone: crate::sim::vecmap::VecMap<(u16, u32), u64>,
    /// Records lost from a crashed broker's unflushed tail (noted where the crash is applied).
    pub(crate) unflushed: crate::sim::vecmap::VecSet<(u16, u32)>,
    /// The step of the last unclean leader election.
    pub(crate) last_unclean: Option<u64>,
    /// The step each watched record began to be watched, by (offset, producer, n).
    pub(crate) watched_since: crate::sim::vecmap::VecMap<(u64, u16, u32), u64>,
    pub(crate) reported: VecSet<(&'static str, u64, u64)>,
    /// One past the highest offset of a record acknowledged with acks=all (derived
    /// from `watched`, kept so that `isr_member_incomplete` costs O(replicas)).
    pub(crate) acked_end: u64,
}

/// What the properties have verified already: caches that only save work (the
/// explorer's fingerprint leaves them out). Kept beside the invariants (`Sim::checked`),
/// not in them: they change in most steps (a LEO or an HW moved), the invariants
/// only when a record is committed, watched or lost, and a write to either copies
/// it when a copy of the world shares it.
#[derive(Debug, Clone)]
pub struct Checked {
    /// (leader, leader epoch, offset below which the watched records were verified).
    pub(crate) leader_verified: Option<(u32, i32, u64)>,
    /// Per pair of replicas (`pair`), the offset below which their logs were verified equal.
    pub(crate) pair_verified: [u64; PAIRS],
    /// Each broker's LEO after the previous check (`UNSET` before it): a drop is a
    /// truncation (or lost unflushed records), below which its pairs must be verified again.
    pub(crate) last_leo: [u64; MAX_REPLICAS as usize],
    /// A digest of every replica's liveness, LEO, HW and epochs after the last check:
    /// the replica properties need a look only when it changes.
    pub(crate) replica_digest: u64,
}

/// No LEO noted yet, in `Checked::last_leo`.
const UNSET: u64 = u64::MAX;

/// Pairs of replicas.
const PAIRS: usize = (MAX_REPLICAS * (MAX_REPLICAS - 1) / 2) as usize;

/// The place of the pair of replicas `a` < `b` in `Checked::pair_verified`.
#[inline]
fn pair(a: usize, b: usize) -> usize {
    let m = MAX_REPLICAS as usize;
    a * m - a * (a + 1) / 2 + (b - a - 1)
}

impl Default for Checked {
    fn default() -> Self {
        Checked { leader_verified: None, pair_verified: [0; PAIRS], last_leo: [UNSET; MAX_REPLICAS as usize], replica_digest: 0 }
    }
}

impl Invariants {
    pub fn begin_step(&mut self) {
        self.new_violations.clear();
    }

    fn report(&mut self, invariant: &'static str, key: (u64, u64), text: String, witness: Witness) -> bool {
        self.report_as(invariant, key, text, false, witness)
    }

    /// Reports a violation once (by invariant and key); true when it is new.
    fn report_as(&mut self, invariant: &'static str, key: (u64, u64), text: String, allowed: bool, witness: Witness) -> bool {
        if self.reported.insert((invariant, key.0, key.1)) {
            self.new_violations.push(Violation { invariant, text, allowed, witness });
            return true;
        }
        false
    }

    /// A record acknowledged or read is gone: reported once, and kept in `losses`
    /// (`allowed` when the configuration permits the loss).
    #[allow(clippy::too_many_arguments)]
    fn report_loss(
        &mut self,
        step: u64,
        invariant: &'static str,
        key: (u64, u64),
        id: RecordId,
        offset: u64,
        text: String,
        allowed: bool,
        witness: Witness,
    ) {
        if self.report_as(invariant, key, text.clone(), allowed, witness) {
            self.losses.push(Loss { step, invariant, id, offset, text, allowed });
        }
    }

    fn watch(&mut self, offset: u64, why: Watch, id: RecordId, step: u64) {
        self.watched.push((offset, why, id));
        if why == Watch::Acked {
            self.acked_end = self.acked_end.max(offset + 1);
        }
        self.fresh.push((offset, why, id));
        self.watched_since.insert((offset, id.producer, id.n), step);
    }

    /// The leader's HW moved from `from` to `to`: those records are committed.
    pub fn note_committed(&mut self, log: &Log, from: u64, to: u64) {
        for (o, e) in log.entries_from(from).take_while(|(o, _)| *o < to) {
            let (p, i) = (e.id.producer as usize, (e.id.n - 1) as usize);
            if self.committed.len() <= p {
                self.committed.resize(p + 1, PVec::new());
            }
            let list = &mut self.committed[p];
            while list.len() <= i {
                list.push(NONE);
            }
            if list.get(i) == Some(&NONE) {
                list.set(i, o);
            }
        }
    }

    /// Where a record was committed, if it was.
    pub fn committed_at(&self, id: RecordId) -> Option<u64> {
        self.committed.get(id.producer as usize)?.get((id.n - 1) as usize).copied().filter(|&o| o != NONE)
    }

    /// A producer got an acks=all acknowledgement for these records.
    pub fn note_acked(&mut self, ids: &[RecordId], step: u64) {
        for id in ids {
            if let Some(o) = self.committed_at(*id) {
                self.watch(o, Watch::Acked, *id, step);
            }
        }
    }

    /// The leader alone acknowledged these records (acks=1), or an acks=0 producer's
    /// records were appended: watched where the leader appended them.
    pub fn note_acked_alone(&mut self, ids: &[RecordId], acks: u8, step: u64) {
        for id in ids {
            if let Some(&o) = self.appended_alone.get(&(id.producer, id.n)) {
                self.watch(o, Watch::AckedAlone(acks), *id, step);
            }
        }
    }

    /// A consumer received this record at this offset.
    pub fn note_consumed(&mut self, consumer: usize, offset: u64, id: RecordId, step: u64) {
        self.watch(offset, Watch::Consumed(consumer), id, step);
    }
}

/// What the step's events tell the properties: records committed (the leader's
/// HW moved), acknowledged with acks=all, and read by a consumer.
fn observe(sim: &mut Sim) {
    let step = sim.step;
    let mut duplicates = Vec::new();
    let Sim { last, brokers, invariants, producers, .. } = sim;
    for event in last.events() {
        match *event {
            Event::LeaderHwMoved { leader, from, to, .. } => invariants.note_committed(&brokers[leader as usize].log, from, to),
            Event::Appended { leader, producer, first_offset, count, again, .. } => {
                let log = &brokers[leader as usize].log;
                let acks = producers[producer].settings.acks;
                for o in first_offset..first_offset + count as u64 {
                    let Some(e) = log.get(o) else { continue };
                    if acks != Acks::All {
                        invariants.appended_alone.insert((e.id.producer, e.id.n), o);
                    }
                    if again {
                        duplicates.push((o, e.id, producers[producer].settings.idempotent));
                    }
                }
                if acks == Acks::Zero {
                    let ids: Vec<RecordId> = (first_offset..first_offset + count as u64).filter_map(|o| log.get(o).map(|e| e.id)).collect();
                    invariants.note_acked_alone(&ids, 0, step);
                }
            }
            Event::ProduceAcked { producer, .. } => {
                if let Trigger::Deliver(msg) = &last.trigger {
                    if let Body::ProduceResponse { ids, .. } = &msg.body {
                        match producers[producer].settings.acks {
                            Acks::All => invariants.note_acked(ids, step),
                            Acks::One => invariants.note_acked_alone(ids, 1, step),
                            Acks::Zero => {}
                        }
                    }
                }
            }
            Event::ConsumerReceived { consumer, .. } => {
                if let Trigger::Deliver(msg) = &last.trigger {
                    if let Body::ConsumerFetchResponse(resp) = &msg.body {
                        for (o, e) in &resp.records {
                            if let Some(e) = e {
                                invariants.note_consumed(consumer, *o, e.id, step);
                            }
                        }
                    }
                }
            }
            Event::LeaderElected { clean: false, .. } => invariants.last_unclean = Some(step),
            _ => {}
        }
    }
    for (o, id, idempotent) in duplicates {
        let name = sim.record_name(id);
        let key = (o, id.n as u64 | ((id.producer as u64) << 32));
        if idempotent {
            let text = format!("{name} is in the log a second time, at offset {o}, although its producer is idempotent.");
            sim.invariants.report(DUPLICATE_RECORD, key, text, Witness { record: Some(id), offset: Some(o), ..Witness::default() });
        } else {
            let p = &sim.scenario.producers[id.producer as usize].id;
            let why = match sim.retry_cause(id) {
                Some(error) => format!("{p} sent it again, its earlier try appended but answered {}", error.name(sim.scenario.preset)),
                None => format!("{p}'s retry after a lost answer"),
            };
            let text = format!(
                "{name} is appended again, at offset {o}: {why}, and with enable.idempotence false the leader cannot tell a retry from a new record."
            );
            sim.invariants.report_as(
                DUPLICATE_RECORD,
                key,
                text,
                true,
                Witness { record: Some(id), offset: Some(o), ..Witness::default() },
            );
        }
    }
}

/// Runs every property after a step.
pub fn check(sim: &mut Sim) {
    observe(sim);
    let digest = replica_digest(sim);
    if digest != sim.checked.replica_digest || sim.step <= 1 {
        sim.checked.replica_digest = digest;
        hw_above_leo(sim);
        follower_hw_above_leader(sim);
        replicas_diverged(sim);
    }
    consumer_read_uncommitted(sim);
    records_kept_by_leader(sim);
    let step = sim.step;
    if !sim.invariants.new_violations.is_empty() {
        let new = sim.invariants.new_violations.clone();
        sim.invariants.history.extend(new.into_iter().map(|v| (step, v)));
    }
}

/// What the replica properties depend on, folded into one number (FNV-1a).
fn replica_digest(sim: &Sim) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |v: u64| {
        h ^= v;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    mix(sim.acting_leader().map_or(u64::MAX, u64::from));
    for b in &sim.brokers {
        mix(b.alive as u64);
        mix(b.log.leo());
        mix(b.hw);
        mix(b.hw_epoch as u64);
        mix(b.leader_epoch as u64);
    }
    h
}

/// `hw-above-leo`: no replica's HW is above its own log end.
fn hw_above_leo(sim: &mut Sim) {
    for i in 0..sim.brokers.len() {
        let b = &sim.brokers[i];
        if b.alive && b.hw > b.log.leo() {
            let text = format!("Broker {}'s HW {} is above its LEO {}.", b.id, b.hw, b.log.leo());
            let key = (b.id as u64, b.hw);
            let witness = Witness { replica: Some(b.id), offset: Some(b.hw), epoch: Some(b.leader_epoch), ..Witness::default() };
            sim.invariants.report(HW_ABOVE_LEO, key, text, witness);
        }
    }
}

/// `follower-hw-above-leader`: a follower's HW, learned from the current leader in
/// its current epoch, never exceeds that leader's HW (the HW flows leader → follower).
/// Not checked while a restarted leader leads in the epoch it had before its crash
/// (3.7/3.8, no unclean-shutdown clean-up at registration): it starts again from its
/// checkpointed HW, below what its followers learned from its previous incarnation.
fn follower_hw_above_leader(sim: &mut Sim) {
    let Some(l) = sim.acting_leader() else { return };
    if !sim.behavior.registration_cleans_unclean_shutdown && sim.broker(l).incarnation > 0 {
        return;
    }
    let (leader_hw, epoch) = (sim.broker(l).hw, sim.broker(l).leader_epoch);
    for i in 0..sim.brokers.len() {
        let b = &sim.brokers[i];
        if b.id != l && b.alive && b.hw_epoch == epoch && b.leader_epoch == epoch && b.hw > leader_hw {
            let text = format!("Follower {}'s HW {} is above leader {l}'s HW {leader_hw} in epoch {epoch}.", b.id, b.hw);
            let key = (b.id as u64, b.hw);
            let witness = Witness { replica: Some(b.id), other: Some(l), offset: Some(b.hw), epoch: Some(epoch), ..Witness::default() };
            sim.invariants.report(FOLLOWER_HW_ABOVE_LEADER, key, text, witness);
        }
    }
}

/// `consumer-read-uncommitted`: a consumer only receives records that were committed
/// (below the leader's HW) when it read them.
fn consumer_read_uncommitted(sim: &mut Sim) {
    let fresh: Vec<(u64, Watch, RecordId)> = sim.invariants.fresh.iter().copied().filter(|f| matches!(f.1, Watch::Consumed(_))).collect();
    for (o, w, id) in fresh {
        if sim.invariants.committed_at(id).is_none() {
            let Watch::Consumed(c) = w else { continue };
            let text = format!("{} read {} at offset {o}, which no leader had committed.", sim.consumers[c].spec.id, sim.record_name(id));
            let witness = Witness { record: Some(id), offset: Some(o), ..Witness::default() };
            sim.invariants.report(CONSUMER_READ_UNCOMMITTED, (o, id.n as u64 | ((id.producer as u64) << 32)), text, witness);
        }
    }
}

/// `acked-record-lost` and `consumed-record-lost`: every record acknowledged with
/// acks=all, and every record a consumer has read, is still in the leader's log at its offset.
fn records_kept_by_leader(sim: &mut Sim) {
    let Some(l) = sim.acting_leader() else { return };
    let epoch = sim.broker(l).leader_epoch;
    let leo = sim.broker(l).log.leo();
    // The same leader in the same epoch only appends: only new records need a look.
    // A new leader (or epoch) gets every watched record checked once.
    let same = matches!(sim.checked.leader_verified, Some((vl, ve, upto)) if vl == l && ve == epoch && upto <= leo);
    let to_check: Vec<(u64, Watch, RecordId)> =
        if same { sim.invariants.fresh.clone() } else { sim.invariants.watched.iter().copied().collect() };
    for (o, w, id) in to_check {
        let log = &sim.broker(l).log;
        let held = log.get(o).map(|e| e.id);
        if held == Some(id) {
            continue;
        }
        let name = sim.record_name(id);
        let instead = match held {
            Some(other) => format!("{} stands there instead", sim.record_name(other)),
            None if o >= leo => format!("its log ends at {leo}"),
            None => "another record stands there".into(),
        };
        let key = (o, id.n as u64 | ((id.producer as u64) << 32));
        let permit = permitted_loss(sim, o, w, id);
        let why = permit.map_or(String::new(), |p| format!(" {p}"));
        let witness = Witness { record: Some(id), replica: Some(l), offset: Some(o), epoch: Some(epoch), ..Witness::default() };
        match w {
            Watch::Acked => {
                let text = format!(
                    "{name} was acknowledged with acks=all at offset {o}, but leader {l} (epoch {epoch}) does not have it: {instead}.{why}"
                );
                sim.invariants.report_loss(sim.step, ACKED_RECORD_LOST, key, id, o, text, permit.is_some(), witness);
            }
            Watch::AckedAlone(acks) => {
                let how = if acks == 0 { "sent with acks=0 and appended" } else { "acknowledged with acks=1" };
                let text = format!("{name} was {how} at offset {o}, but leader {l} (epoch {epoch}) does not have it: {instead}.{why}");
                sim.invariants.report_loss(sim.step, ACKED_RECORD_LOST, key, id, o, text, true, witness);
            }
            Watch::Consumed(c) => {
                let text = format!(
                    "{} read {name} at offset {o}, but leader {l} (epoch {epoch}) does not have it: {instead}.{why}",
                    sim.consumers[c].spec.id
                );
                sim.invariants.report_loss(
                    sim.step,
                    CONSUMED_RECORD_LOST,
                    (key.0, key.1 ^ ((c as u64 + 1) << 48)),
                    id,
                    o,
                    text,
                    permit.is_some(),
                    witness,
                );
            }
        }
    }
    // Written only when it changes: a write copies the invariants if shared (`Shared`).
    if !sim.invariants.fresh.is_empty() {
        sim.invariants.fresh.clear();
    }
    if sim.checked.leader_verified != Some((l, epoch, leo)) {
        sim.checked.leader_verified = Some((l, epoch, leo));
    }
}

/// Why the configuration permits losing a watched record, in a sentence naming the
/// setting, or None when Kafka's guarantees forbid it: acks 0 or 1 (the leader alone
/// had it), an unclean election since it was acknowledged or read, or the crash of a
/// broker that had not flushed it.
fn permitted_loss(sim: &Sim, offset: u64, w: Watch, id: RecordId) -> Option<&'static str> {
    let inv = &sim.invariants;
    if let Watch::AckedAlone(acks) = w {
        return Some(if acks == 0 {
            "acks=0 permits this: the producer does not wait for any broker."
        } else {
            "acks=1 permits this: only the leader had it when it answered, and a new leader need not have it."
        });
    }
    let since = inv.watched_since.get(&(offset, id.producer, id.n)).copied().unwrap_or(0);
    if inv.last_unclean.is_some_and(|u| u >= since) {
        return Some("unclean.leader.election.enable permits this: a replica outside the ISR was elected leader.");
    }
    if inv.unflushed.contains(&(id.producer, id.n)) {
        return Some("A crash lost it from a log that had not flushed it to disk: Kafka acknowledges before fsync (log.flush.interval.messages), trusting replication instead.");
    }
    None
}

/// `replicas-diverged`: two live replicas never hold different records at an offset
/// below both of their HWs. A follower's HW counts once it has heard it from the
/// current leader: a replica just back from a crash carries an HW from an older
/// epoch, which its first truncation may still correct.
fn replicas_diverged(sim: &mut Sim) {
    let n = sim.brokers.len() as u32;
    // Any truncation, even of a replica not checked this step, reopens its pairs.
    for x in 0..n as usize {
        let leo = sim.brokers[x].log.leo();
        if sim.checked.last_leo[x] == leo {
            continue;
        }
        let inv = &mut *sim.checked;
        if inv.last_leo[x] == UNSET {
            inv.last_leo[x] = leo;
        }
        if leo < inv.last_leo[x] {
            for y in (0..n as usize).filter(|&y| y != x) {
                let p = if x < y { pair(x, y) } else { pair(y, x) };
                inv.pair_verified[p] = inv.pair_verified[p].min(leo);
            }
        }
        if inv.last_leo[x] != leo {
            inv.last_leo[x] = leo;
        }
    }
    let Some(l) = sim.acting_leader() else { return };
    let epoch = sim.broker(l).leader_epoch;
    let mut authoritative = [false; 8];
    for (x, b) in sim.brokers.iter().enumerate() {
        authoritative[x] = b.alive && (b.id == l || (b.hw_epoch == epoch && b.leader_epoch == epoch));
    }
    for a in 0..n {
        for b in (a + 1)..n {
            if !authoritative[a as usize] || !authoritative[b as usize] {
                continue;
            }
            let (ra, rb) = (sim.broker(a), sim.broker(b));
            let limit = ra.hw.min(rb.hw).min(ra.log.leo()).min(rb.log.leo());
            let pair = pair(a as usize, b as usize);
            let verified = sim.checked.pair_verified[pair].min(limit);
            let start = verified.max(ra.log.base().min(rb.log.base()));
            let mut found = None;
            for o in start..limit {
                if !ra.log.same_record(&rb.log, o) {
                    found = Some(o);
                    break;
                }
            }
            let (hw_a, hw_b) = (ra.hw, rb.hw);
            if sim.checked.pair_verified[pair] != limit {
                sim.checked.pair_verified[pair] = limit;
            }
            if let Some(o) = found {
                let name = |s: &Sim, x: u32| {
                    s.broker(x)
                        .log
                        .get(o)
                        .map_or("an initial record".to_string(), |e| format!("{} (epoch {})", s.record_name(e.id), e.epoch))
                };
                let text = format!(
                    "Brokers {a} and {b} hold different records at offset {o}, below both HWs ({} and {}): {} on {a}, {} on {b}.",
                    hw_a,
                    hw_b,
                    name(sim, a),
                    name(sim, b)
                );
                let record = sim.broker(a).log.get(o).map(|e| e.id);
                let witness = Witness { record, replica: Some(a), other: Some(b), offset: Some(o), epoch: Some(epoch) };
                sim.invariants.report(REPLICAS_DIVERGED, (o, ((a as u64) << 8) | b as u64), text, witness);
            }
        }
    }
}

mod state;
pub use state::*;
