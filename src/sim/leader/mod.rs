//! The leader: answering follower Fetches (`fetch`), the high watermark
//! (`hw`), the ISR (`isr`), the fetch and produce purgatories (`purgatory`)
//! and appending produced records (`produce`). This file: becoming the leader.
//! Each rule is a node function of the broker's own state (issue 27, `outbox.rs`).
//! Kafka: `kafka.cluster.Partition`, `kafka.cluster.Replica`,
//! `ReplicaManager`, `DelayedFetch`, `DelayedProduce`.

mod fetch;
mod hw;
mod isr;
mod produce;
mod purgatory;

pub(crate) use fetch::handle_fetch_request;
pub(crate) use hw::effective_min_isr;
pub(crate) use isr::{alter_partition_retry, handle_alter_partition_response, hw_after_isr_change, maybe_shrink_isr};
pub(crate) use produce::{current_leader_named, handle_produce_request};
pub(crate) use purgatory::{expire_delayed_produce, expire_parked_fetch};

use super::event::HwCause;
use super::isr_list::IsrList;
use super::isr_list::Members;
use super::outbox::Out;
use super::scheduler::Timer;
use super::shared::{Part, Shared};
use super::state::{Broker, FollowerView, LeaderState, Role};
use super::vecmap::{VecMap, VecSet};

/// The leader state of a broker that leads.
pub(crate) fn lead(b: &Broker) -> &LeaderState {
    // Callers check `lead.is_some()` first; a missing state is a bug, not user input.
    b.lead.as_ref().expect("leader state")
}

/// The leader state, to change (the broker and the state copied on their first write).
pub(crate) fn lead_mut(b: &mut Shared<Broker>) -> &mut LeaderState {
    b.lead_state_mut()
}

/// Step 0: broker 0 leads in epoch 0 with every follower caught up.
pub(crate) fn become_leader_at_start(b: &mut Shared<Broker>, out: &mut Out) {
    let n = out.scenario.replicas;
    let leo = out.scenario.initial.log_end_offset;
    let followers = (1..n)
        .map(|f| {
            let view = FollowerView {
                leo: Some(leo),
                log_start_offset: 0,
                last_fetch_leader_leo: leo,
                last_fetch_ms: Some(0),
                last_caught_up_ms: Some(0),
                last_sent_hw: leo,
                broker_epoch: Some(u64::from(f)).filter(|_| out.behavior.alter_partition_checks_broker_epochs),
            };
            (f, view)
        })
        .collect();
    install_leader(b, (0..n).collect(), 0, followers, VecSet::new(), out);
}

/// `Partition.makeLeader`: the epoch cache gets (epoch, LEO) before anything is
/// written; followers' states are reset (LEO unknown; ISR members counted as
/// caught up now); then the leader tries to move its HW.
pub(crate) fn make_leader(b: &mut Shared<Broker>, isr: Vec<u32>, partition_epoch: u32, fenced: VecSet<u32>, out: &mut Out) {
    let (id, now) = (b.id, out.now);
    let followers: VecMap<u32, FollowerView> = (0..out.scenario.replicas)
        .filter(|&f| f != id)
        .map(|f| {
            let view = FollowerView {
                leo: None,
                log_start_offset: 0,
                last_fetch_leader_leo: 0,
                last_fetch_ms: None,
                last_caught_up_ms: isr.contains(&f).then_some(now),
                last_sent_hw: 0,
                broker_epoch: None,
            };
            (f, view)
        })
        .collect();
    install_leader(b, isr, partition_epoch, followers, fenced, out);
    hw_after_election(b, out);
}

/// `Partition.makeLeader` for a broker that leads already (`isNewLeader` false), in
/// the new leader epoch the ZooKeeper-era controller wrote when it removed a dead
/// replica from the ISR: the epoch starts at the LEO (the start offset KAFKA-7128
/// compares), followers keep their LEOs, ISR members count as caught up now and the
/// others as never (`resetLastCaughtUpTime`); the purgatories stay.
pub(crate) fn make_leader_in_new_epoch(b: &mut Shared<Broker>, isr: Vec<u32>, partition_epoch: u32, fenced: VecSet<u32>, out: &mut Out) {
    let now = out.now;
    let members = Members::of(out.scenario.preset);
    let (epoch, leo) = (b.leader_epoch, b.log.leo());
    b.log.assign_epoch(epoch, leo);
    let ls = lead_mut(b);
    for (f, view) in ls.followers.iter_mut() {
        view.last_caught_up_ms = isr.contains(f).then_some(now);
        view.last_fetch_leader_leo = leo;
        view.last_fetch_ms = Some(now);
    }
    ls.epoch_start_offset = leo;
    let set = IsrList::to_set(&isr, members);
    ls.isr = set.to_kafka_vec();
    ls.isr_hashed = set.hashed();
    ls.pending = None;
    ls.partition_epoch = partition_epoch;
    ls.fenced = fenced;
    hw_after_election(b, out);
}

/// The end of `Partition.makeLeader` (all versions): "we may need to increment high
/// watermark since ISR could be down to 1", and when it moved, `tryCompleteDelayedRequests`
/// answers what waited on it (an acks=all write, with NOT_ENOUGH_REPLICAS_AFTER_APPEND
/// when the ISR is now under min.insync.replicas).
fn hw_after_election(b: &mut Shared<Broker>, out: &mut Out) {
    if hw::maybe_increment_leader_hw(b, HwCause::Election, out).is_some() {
        purgatory::try_complete_delayed_requests(b, out);
    }
}

/// The leader state: the ISR, a view of each follower, empty purgatories, and the
/// periodic ISR check (`Partition.makeLeader`, `ReplicaManager.startup`'s isr-expiration task).
fn install_leader(
    b: &mut Shared<Broker>,
    isr: Vec<u32>,
    partition_epoch: u32,
    followers: VecMap<u32, FollowerView>,
    fenced: VecSet<u32>,
    out: &mut Out,
) {
    let id = b.id;
    // `partitionState.isr…toSet`: the list the controller gave, as the leader's Scala set.
    let set = IsrList::to_set(&isr, Members::of(out.scenario.preset));
    let period = (out.settings.replica_lag_time_max_ms / 2).max(1);
    let timer = (out.scenario.replicas > 1).then(|| out.set_timer(out.now + period, Timer::IsrExpiration { leader: id }));
    let b = &mut **b;
    let epoch = b.leader_epoch;
    let leo = b.log.leo();
    b.log.assign_epoch(epoch, leo);
    b.role = Role::Leader;
    b.leader = Some(id);
    b.needs_truncation = false;
    b.lead = Some(Part::new(LeaderState {
        epoch_start_offset: leo,
        isr: set.to_kafka_vec(),
        isr_hashed: set.hashed(),
        pending: None,
        partition_epoch,
        followers,
        fenced,
        parked_fetches: Vec::new(),
        delayed_produces: Vec::new(),
        isr_timer: timer,
        alter: None,
        alter_broker_epochs: Vec::new(),
    }));
}
