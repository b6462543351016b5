//! State properties: functions of one state, read where they are asked for (the
//! verdict strip, `verdict.rs`), not reported in the step record. Each is a cheap
//! invariant the kafka-tlaplus specification checks under the name in its doc
//! comment and the engine's own properties (`mod.rs`) do not.

use super::{permitted_loss, Violation, Watch, Witness};
use crate::sim::Sim;

/// Broker ids as `{:?}` writes a list, `[0, 1]` (without `Debug` in the page's WebAssembly).
fn list(ids: &[u32]) -> String {
    format!("[{}]", crate::sim::isr_list::sorted(ids).iter().map(u32::to_string).collect::<Vec<_>>().join(", "))
}

/// `leader-maximal-isr` (kafka-tlaplus `ValidLeaderMaximalISR`): a leader that is
/// not stale (its leader epoch is the controller's) is in its own maximal ISR, and
/// its maximal ISR (the committed ISR plus a pending expansion, Kafka's
/// `Partition.maximalIsr`, 2.7+) holds every member of the controller's ISR:
/// otherwise its HW could pass a record a replica the controller may elect lacks.
pub fn leader_maximal_isr(sim: &Sim) -> Option<Violation> {
    let l = sim.acting_leader()?;
    let b = sim.broker(l);
    let ls = b.lead.as_ref()?;
    if b.leader_epoch != sim.controller.leader_epoch {
        return None;
    }
    let epoch = b.leader_epoch;
    let maximal = ls.maximal_isr_bits();
    let in_maximal = |r: u32| maximal & crate::sim::state::bit(r) != 0;
    if !in_maximal(l) {
        let text = format!("Leader {l} (epoch {epoch}) is not in its own maximal ISR {}.", list(&ls.maximal_isr()));
        return Some(Violation {
            invariant: LEADER_MAXIMAL_ISR,
            text,
            allowed: false,
            witness: Witness { replica: Some(l), epoch: Some(epoch), ..Witness::default() },
        });
    }
    let missing = sim.controller.isr.iter().copied().find(|&r| !in_maximal(r))?;
    let text = format!(
        "Leader {l}'s maximal ISR {} (epoch {epoch}) lacks broker {missing}, which the controller's ISR {} holds: the leader's HW may pass records the controller could elect broker {missing} without.",
        list(&ls.maximal_isr()),
        list(&sim.controller.isr)
    );
    let witness = Witness { replica: Some(l), other: Some(missing), epoch: Some(epoch), ..Witness::default() };
    Some(Violation { invariant: LEADER_MAXIMAL_ISR, text, allowed: false, witness })
}

/// `acked-record-lost-everywhere` (kafka-tlaplus `NoCommittedRecordLostGlobally`):
/// every record acknowledged with acks=all is still in some replica's log at its
/// offset. Later than `acked-record-lost` (the leader's log), it says whether the
/// record is gone from the cluster or only from the leader.
pub fn acked_record_kept_somewhere(sim: &Sim) -> Option<Violation> {
    for &(o, w, id) in sim.invariants.watched.iter() {
        if w != Watch::Acked || sim.brokers.iter().any(|b| b.log.get(o).is_some_and(|e| e.id == id)) {
            continue;
        }
        let permit = permitted_loss(sim, o, w, id);
        let text = format!(
            "{} was acknowledged with acks=all at offset {o}, and no replica's log holds it there any more.{}",
            sim.record_name(id),
            permit.map_or(String::new(), |p| format!(" {p}"))
        );
        let witness = Witness { record: Some(id), offset: Some(o), ..Witness::default() };
        return Some(Violation { invariant: ACKED_RECORD_LOST_EVERYWHERE, text, allowed: permit.is_some(), witness });
    }
    None
}

/// `isr-member-incomplete` (kafka-tlaplus `LeaderCandidateCompletenessProperty`):
/// every running broker the controller counts in the ISR (or, KIP-966, the ELR),
/// and so may elect, has a log reaching past every record acknowledged with
/// acks=all (the spec's `leo < true HWM`; that it holds the same records there is
/// `replicas-diverged`'s business). Earlier than a loss: it fails when the
/// replica that would lose the record becomes electable, not when it is elected.
pub fn isr_member_incomplete(sim: &Sim) -> Option<Violation> {
    let c = &sim.controller;
    let end = sim.invariants.acked_end;
    for &r in c.isr.iter().chain(c.elr.iter()) {
        let b = sim.broker(r);
        if !b.alive || b.lifecycle != crate::sim::Lifecycle::Running || b.log.leo() >= end {
            continue;
        }
        // Which record it lacks: the first acknowledged at or past its log's end.
        let leo = b.log.leo();
        let (o, id) = sim.invariants.watched.iter().filter(|(o, w, _)| *w == Watch::Acked && *o >= leo).map(|&(o, _, id)| (o, id)).min()?;
        let set = if c.isr.contains(&r) { "ISR" } else { "ELR" };
        let permit = permitted_loss(sim, o, Watch::Acked, id);
        let text = format!(
            "Broker {r} is in the controller's {set} (electable), but its log ends at {leo}: it lacks {} at offset {o}, acknowledged with acks=all.{}",
            sim.record_name(id),
            permit.map_or(String::new(), |p| format!(" {p}"))
        );
        let witness = Witness { record: Some(id), replica: Some(r), offset: Some(o), epoch: Some(c.leader_epoch), ..Witness::default() };
        return Some(Violation { invariant: ISR_MEMBER_INCOMPLETE, text, allowed: permit.is_some(), witness });
    }
    None
}

/// `isr-elr-invalid` (kafka-tlaplus `ValidControllerIsrAndElr`, KIP-966): no broker
/// is in both the controller's ISR and its ELR, and the ELR is empty while the ISR
/// has at least `min.insync.replicas` members.
pub fn isr_elr_invalid(sim: &Sim) -> Option<Violation> {
    let c = &sim.controller;
    if let Some(&both) = c.elr.iter().find(|r| c.isr.contains(r)) {
        let text = format!("Broker {both} is in both the ISR {} and the ELR {}.", list(&c.isr), list(&c.elr));
        let witness = Witness { replica: Some(both), epoch: Some(c.leader_epoch), ..Witness::default() };
        return Some(Violation { invariant: ISR_ELR_INVALID, text, allowed: false, witness });
    }
    let min = sim.scenario.config.min_insync_replicas as usize;
    if c.isr.len() >= min && !c.elr.is_empty() {
        let text =
            format!("The ELR {} is not empty although the ISR {} has min.insync.replicas = {min} members.", list(&c.elr), list(&c.isr));
        let witness = Witness { replica: c.elr.first().copied(), epoch: Some(c.leader_epoch), ..Witness::default() };
        return Some(Violation { invariant: ISR_ELR_INVALID, text, allowed: false, witness });
    }
    None
}

pub const LEADER_MAXIMAL_ISR: &str = "leader-maximal-isr";
pub const ACKED_RECORD_LOST_EVERYWHERE: &str = "acked-record-lost-everywhere";
pub const ISR_MEMBER_INCOMPLETE: &str = "isr-member-incomplete";
pub const ISR_ELR_INVALID: &str = "isr-elr-invalid";

/// A state property: its name and the function that finds a failure (with its witness).
pub type StateProperty = (&'static str, fn(&Sim) -> Option<Violation>);

/// The state properties, in the order the verdict strip shows them.
pub const STATE_PROPERTIES: [StateProperty; 4] = [
    (LEADER_MAXIMAL_ISR, leader_maximal_isr),
    (ISR_MEMBER_INCOMPLETE, isr_member_incomplete),
    (ACKED_RECORD_LOST_EVERYWHERE, acked_record_kept_somewhere),
    (ISR_ELR_INVALID, isr_elr_invalid),
];
