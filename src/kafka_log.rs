//! What a broker's or the controller's log would say for a step, in the format of
//! the version the preset models (`hwscope run --format kafka-log`, the page's
//! "What your broker log would say" panel, the oracle's comparison with a real
//! server.log). Facts from Kafka's source at each release tag: `Partition`'s
//! ISR changes and leader/follower transitions (core/.../cluster/Partition.scala),
//! `Log`/`UnifiedLog.truncateTo`, `KafkaController.onBrokerChange` (ZooKeeper
//! era) and `ReplicationControlManager`/`ClusterControlManager` (KRaft).
//! Each line starts with whose log it is (`broker 0 | `, `controller | `; in the
//! ZooKeeper era the controller is a broker, `broker 3 (controller) | `), then
//! `[ident] message` without timestamp or logger name. The topic is written `t`
//! (partition `t-0`), the KRaft controller's id `c`. Every ISR is printed in Kafka's order
//! (`sim::isr_list::IsrList`: a member that rejoins last, a shrink keeping the others'
//! order), as the engine keeps it.

use crate::scenario::Preset;
use crate::sim::event::{Event, TruncationRule};
use crate::sim::Sim;

/// The log formats hwscope writes, by the first version that used each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Era {
    /// 0.10.2: `Partition [t,0] on broker 0: Shrinking ISR for partition [t,0] from …`.
    V010,
    /// 0.11: the same ident, `Shrinking ISR from 0,1,2 to 0,1`.
    V011,
    /// 2.0: `[Partition t-0 broker=0] Shrinking ISR from 0,1,2 to 0,1`.
    V20,
    /// 2.4: the shrink names the leader's HW and LEO and each out-of-sync replica's LEO.
    V24,
    /// 2.8: AlterIsr; the applied ISR is `ISR updated to … and version updated to [n]`.
    V28,
    /// 3.7: the out-of-sync replicas' lastCaughtUpTimeMs; `(under-min-isr)`; KRaft controller lines.
    V37,
    /// 4.0: the controller's fencing line names the broker epoch (`ReplicationControlManager`
    /// as in 4.0.2's release jar; 3.9's source has no epoch there).
    V40,
}

fn era(preset: Preset) -> Option<Era> {
    Some(match preset {
        Preset::Textbook => return None,
        Preset::Kafka010 => Era::V010,
        Preset::Kafka011 => Era::V011,
        Preset::Kafka20 | Preset::Kafka21 => Era::V20,
        Preset::Kafka24 => Era::V24,
        Preset::Kafka28 => Era::V28,
        Preset::Kafka37 | Preset::Kafka38 => Era::V37,
        Preset::Kafka40 | Preset::Kafka41 => Era::V40,
    })
}

/// The ZooKeeper controller's line when /brokers/ids changes. 0.10.2: the listener's
/// own ident (`ReplicaStateMachine.BrokerChangeListener`); 0.11: the controller's event
/// queue, `[Controller c]: ` (`KafkaController.BrokerChange.process`); 1.1 to 2.1:
/// `[Controller id=c] ` (same method); 2.2 (KIP-380) adds the bounced brokers. `c` is the
/// controller's broker id (`Sim::zookeeper_controller_id`).
fn broker_change(era: Era, c: u32, added: &str, deleted: &str, bounced: &str, live: &str) -> String {
    let common = format!("Newly added brokers: {added}, deleted brokers: {deleted}");
    match era {
        Era::V010 => format!("[BrokerChangeListener on Controller {c}]: {common}, all live brokers: {live}"),
        Era::V011 => format!("[Controller {c}]: {common}, all live brokers: {live}"),
        Era::V20 => format!("[Controller id={c}] {common}, all live brokers: {live}"),
        _ => format!("[Controller id={c}] {common}, bounced brokers: {bounced}, all live brokers: {live}"),
    }
}

const DIR: &str = "/tmp/kafka-logs";

fn ids(v: impl IntoIterator<Item = u32>) -> String {
    v.into_iter().map(|b| b.to_string()).collect::<Vec<_>>().join(",")
}

/// `Partition.logIdent` at that version.
fn ident(era: Era, broker: u32) -> String {
    if era < Era::V20 {
        format!("Partition [t,0] on broker {broker}: ")
    } else {
        format!("[Partition t-0 broker={broker}] ")
    }
}

/// Scala's `Option[Int]` as it prints.
fn option(id: Option<u32>) -> String {
    id.map_or("None".to_string(), |b| format!("Some({b})"))
}

/// `Partition.makeLeader`'s start (3.7–4.1): `prev` is what the broker's `Partition` object
/// held before (its leader epoch and leader; -1 and None in a new process).
#[allow(clippy::too_many_arguments)]
fn leader_start(broker: u32, epoch: i32, leo: u64, pe: u32, hw: u64, isr: &str, under: bool, prev: (i32, Option<u32>)) -> String {
    let under = if under { "(under-min-isr)" } else { "" };
    format!(
        "[Broker id={broker}] Leader t-0 with topic id Some(t) starts at leader epoch {epoch} from offset {leo} with partition epoch {pe}, high watermark {hw}, ISR [{isr}], adding replicas [] and removing replicas [] {under}. Previous leader {} and previous leader epoch was {}.",
        option(prev.1),
        prev.0
    )
}

/// `Partition.makeFollower`'s start (3.7–4.1). It sets the leader and the leader epoch
/// before it logs them, so its "previous" leader and epoch are the new ones.
fn follower_start(broker: u32, epoch: i32, leo: u64, pe: u32, hw: u64, leader: Option<u32>) -> String {
    let l = leader.map_or(-1, i64::from);
    format!(
        "[Broker id={broker}] Follower t-0 starts at leader epoch {epoch} from offset {leo} with partition epoch {pe} and high watermark {hw}. Current leader is {l}. Previous leader Some({l}) and previous leader epoch was {epoch}."
    )
}

/// The brokers the controller has registered (ZooKeeper: live znodes, the controller's
/// own among them), but `gone`.
fn registered(sim: &Sim, gone: Option<u32>) -> String {
    let live = sim.controller.registrations.iter().enumerate().filter(|(_, r)| !r.fenced).map(|(b, _)| b as u32);
    ids(live.filter(|&b| Some(b) != gone).chain(sim.zookeeper_controller_id()))
}

/// The lines the brokers and the controller would log for the step just taken
/// (empty for the textbook preset, which models no Kafka version).
pub fn lines(sim: &Sim) -> Vec<String> {
    if cfg!(feature = "first") {
        return Vec::new();
    }
    let Some(era) = era(sim.scenario.preset) else { return Vec::new() };
    let kraft = sim.behavior.broker_liveness == crate::scenario::BrokerLiveness::BrokerHeartbeat;
    let events = sim.last.events();
    let mut out = Vec::new();
    let mut at = |source: String, line: String| out.push(format!("{source} | {line}"));
    let src = |id: u32| format!("broker {id}");
    // Whose log the controller's lines are in: the ZooKeeper era's controller is a broker.
    let zk_controller = sim.zookeeper_controller_id().unwrap_or(0);
    let ctl = || sim.zookeeper_controller_id().map_or_else(|| "controller".to_string(), |c| format!("broker {c} (controller)"));
    for (i, e) in events.iter().enumerate() {
        match *e {
            Event::IsrShrunk { leader, before, after, out: gone, .. } => {
                let p = ident(era, leader);
                let (b, a) = (ids(before.kafka_order()), ids(after.kafka_order()));
                at(
                    src(leader),
                    match era {
                        Era::V010 => format!("{p}Shrinking ISR for partition [t,0] from {b} to {a}"),
                        Era::V011 | Era::V20 => format!("{p}Shrinking ISR from {b} to {a}"),
                        _ => {
                            let lb = sim.broker(leader);
                            // The HW as it was when the line was written: before any move later in this step.
                            let hw = events[i..]
                                .iter()
                                .find_map(|x| match *x {
                                    Event::LeaderHwMoved { leader: l, from, .. } if l == leader => Some(from),
                                    _ => None,
                                })
                                .unwrap_or(lb.hw);
                            let views = lb.lead.as_ref();
                            let replicas: Vec<String> = gone
                                .iter()
                                .map(|f| {
                                    let v = views.and_then(|ls| ls.followers.get(&f));
                                    let leo = v.and_then(|v| v.leo).map_or("unknown".to_string(), |x| x.to_string());
                                    if era >= Era::V37 {
                                        let caught = v.map_or("unknown".to_string(), |v| v.last_caught_up_ms.unwrap_or(0).to_string());
                                        format!("(brokerId: {f}, endOffset: {leo}, lastCaughtUpTimeMs: {caught})")
                                    } else {
                                        format!("(brokerId: {f}, endOffset: {leo})")
                                    }
                                })
                                .collect();
                            format!(
                                "{p}Shrinking ISR from {b} to {a}. Leader: (highWatermark: {hw}, endOffset: {}). Out of sync replicas: {}.",
                                lb.log.leo(),
                                replicas.join(" ")
                            )
                        }
                    },
                );
            }
            // Up to 2.4 the leader expands the ISR itself and says so; from 2.8 it proposes
            // the change and logs only the ISR the controller committed (`IsrApplied`).
            Event::IsrExpanded { leader, before, after, .. } if era < Era::V28 => {
                let p = ident(era, leader);
                let (b, a) = (ids(before.kafka_order()), ids(after.kafka_order()));
                at(
                    src(leader),
                    if era == Era::V010 {
                        format!("{p}Expanding ISR for partition t-0 from {b} to {a}")
                    } else {
                        format!("{p}Expanding ISR from {b} to {a}")
                    },
                );
            }
            Event::IsrApplied { leader, after, partition_epoch, .. } if era >= Era::V28 => {
                let p = ident(era, leader);
                let a = ids(after.kafka_order());
                at(
                    src(leader),
                    if era >= Era::V37 {
                        let under = if sim.under_min_isr(leader) { "(under-min-isr)" } else { "" };
                        format!("{p}ISR updated to {a} {under} and version updated to {partition_epoch}")
                    } else {
                        format!("{p}ISR updated to {a} and version updated to [{partition_epoch}]")
                    },
                );
            }
            // `Partition.handleAlterPartitionError` (3.x, 4.0): the controller said the change was
            // not applied (INELIGIBLE_REPLICA, OPERATION_NOT_ATTEMPTED); the leader goes back to
            // its committed ISR and says so at INFO. Other errors are logged at DEBUG or retried.
            Event::IsrChangeRefused { leader, error, added } if era >= Era::V37 && error.reverts() => {
                let proposed = match added {
                    Some(f) => format!("PendingExpandIsr(newInSyncReplicaId={f}, …)"),
                    None => "PendingShrinkIsr(…)".to_string(),
                };
                let isr = sim.broker(leader).lead.as_ref().map_or_else(String::new, |ls| {
                    crate::sim::isr_list::IsrList::of(&ls.isr).kafka_order().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
                });
                at(
                    src(leader),
                    format!(
                        "{}Failed to alter partition to {proposed} since the controller rejected the request with {}. Partition state has been reset to the latest committed state CommittedPartitionState(isr=Set({isr}), leaderRecoveryState=RECOVERED).",
                        ident(era, leader),
                        error.name()
                    ),
                );
            }
            // KIP-903 (3.5+): `ReplicationControlManager.alterPartition` refuses an ISR naming a
            // member with a broker epoch other than its registration's (`ineligibleReplicasForIsr`).
            Event::StaleBrokerEpochInIsr { leader, broker, named, registered } if kraft && era >= Era::V37 => {
                at(
                    ctl(),
                    format!("[QuorumController id=c] Rejecting AlterPartition request from node {leader} for t-0 because it specified ineligible replicas [{broker} (broker epoch mismatch: requested={named} VS expected={registered})] in the new ISR […]."),
                );
            }
            Event::Truncated { broker, to, leo_before, rule } => {
                if to >= leo_before && rule != TruncationRule::HighWatermark {
                    continue;
                }
                at(
                    src(broker),
                    match era {
                        Era::V010 | Era::V011 | Era::V20 | Era::V24 => format!("Truncating log t-0 to offset {to}."),
                        Era::V28 => format!("[Log partition=t-0, dir={DIR}] Truncating to offset {to}"),
                        Era::V37 | Era::V40 => format!("[UnifiedLog partition=t-0, dir={DIR}] Truncating to offset {to}"),
                    },
                );
            }
            // `Partition.makeLeader` / `makeFollower`: 2.4 logs at the partition, from 2.8 the
            // state-change logger (`[Broker id=n]`), from 3.7 with the partition epoch.
            // From 3.7 only a newer leader epoch than the broker's `Partition` object holds
            // is a start (`isNewLeaderEpoch`; the rest is "Skipped the become-… state change").
            Event::BecameLeader { epoch, prev, .. } if era >= Era::V37 && epoch <= prev.0 => {}
            Event::BecameFollower { broker, prev, .. } if era >= Era::V37 && sim.broker(broker).leader_epoch <= prev.0 => {}
            Event::BecameLeader { broker, epoch, leo, hw_before, prev, .. } if era >= Era::V24 => {
                let isr = sim.broker(broker).lead.as_ref().map_or_else(String::new, |ls| ids(ls.isr.iter().copied()));
                let pe = sim.controller.partition_epoch;
                at(src(broker), match era {
                    Era::V24 => format!("{}t-0 starts at leader epoch {epoch} from offset {leo} with high watermark {hw_before}. Previous leader epoch was {}.", ident(era, broker), prev.0),
                    Era::V28 => format!("[Broker id={broker}] Leader t-0 starts at leader epoch {epoch} from offset {leo} with high watermark {hw_before} ISR [{isr}] addingReplicas [] removingReplicas []. Previous leader epoch was {}.", prev.0),
                    _ => leader_start(broker, epoch, leo, pe, hw_before, &isr, sim.under_min_isr(broker), prev),
                });
            }
            // 2.8 logs both starts before it updates the partition's leader epoch (the previous one,
            // -1 in a new process) and names no current leader.
            Event::BecameFollower { broker, leader: Some(l), prev, .. } if era >= Era::V28 => {
                let b = sim.broker(broker);
                let (epoch, leo, hw, pe) = (b.leader_epoch, b.log.leo(), b.hw, sim.controller.partition_epoch);
                at(
                    src(broker),
                    if era >= Era::V37 {
                        follower_start(broker, epoch, leo, pe, hw, Some(l))
                    } else {
                        format!("[Broker id={broker}] Follower t-0 starts at leader epoch {epoch} from offset {leo} with high watermark {hw}. Previous leader epoch was {}.", prev.0)
                    },
                );
            }
            // KRaft (3.7+): a new process applies the metadata image it loads before it is
            // registered (`BrokerServer.startup` installs the publishers, and
            // `BrokerMetadataPublisher`'s first publish runs `ReplicaManager.applyDelta` for
            // every partition: a delta from nothing). Its `Partition` objects are new (leader
            // epoch -1, no leader), so it logs a start at the image's leader epoch from the
            // LEO it recovered, with the HW of its checkpoint: a leader start if the image
            // still names it leader (a bounce inside its session), else a follower start.
            Event::Restarted { broker, leo, hw, .. } if kraft && era >= Era::V37 => {
                let c = &sim.controller;
                let (epoch, pe) = (c.leader_epoch, c.partition_epoch);
                at(
                    src(broker),
                    if c.leader == Some(broker) {
                        let isr = crate::sim::isr_list::IsrList::to_set(&c.isr, crate::sim::isr_list::Members::Ids);
                        let under = (c.isr.len() as u32) < sim.effective_min_isr();
                        leader_start(broker, epoch, leo, pe, hw, &ids(isr.kafka_order()), under, (-1, None))
                    } else {
                        follower_start(broker, epoch, leo, pe, hw, c.leader)
                    },
                );
            }
            // A process started inside its previous process's ZooKeeper session: the create of
            // /brokers/ids/N meets the old node and startup fails (`ZKCheckedEphemeral.create` and
            // `ZkUtils.registerBrokerInZk` to 1.0; `KafkaZkClient.CheckedEphemeral` from 1.1, whose
            // "Result of znode creation" line went in 2.2 with KAFKA-7165; `KafkaServer.startup`).
            // ZooKeeper session ids are not modelled: `…`.
            Event::StartupFailed { broker, .. } => {
                let path = format!("/brokers/ids/{broker}");
                if era <= Era::V011 {
                    at(src(broker), "Result of znode creation is: NODEEXISTS".to_string());
                    at(src(broker), format!("[Kafka Server {broker}], Fatal error during KafkaServer startup. Prepare to shutdown java.lang.RuntimeException: A broker is already registered on the path {path}. This probably indicates that you either have configured a brokerid that is already in use, or else you have shutdown this broker and restarted it faster than the zookeeper timeout so it appears to be re-registering."));
                } else {
                    at(src(broker), format!("Error while creating ephemeral at {path}, node already exists and owner '…' does not match current session '…'"));
                    if era == Era::V20 {
                        at(src(broker), format!("Result of znode creation at {path} is: NODEEXISTS"));
                    }
                    at(src(broker), format!("[KafkaServer id={broker}] Fatal error during KafkaServer startup. Prepare to shutdown org.apache.zookeeper.KeeperException$NodeExistsException: KeeperErrorCode = NodeExists"));
                }
            }
            // One read of /brokers/ids, one line: a bounce seen (2.2+) names the broker among
            // the bounced, a missed one (before 2.2) changes nothing in the line.
            Event::ZkBrokerBounced { broker, seen, .. } => {
                let bounced = if seen { broker.to_string() } else { String::new() };
                at(ctl(), broker_change(era, zk_controller, "", "", &bounced, &registered(sim, None)));
            }
            Event::SessionExpired { .. } | Event::BrokerRegistered { .. }
                if !kraft && events.iter().any(|x| matches!(x, Event::ZkBrokerBounced { .. })) => {}
            Event::SessionExpired { broker, .. } => {
                at(
                    ctl(),
                    if kraft && era >= Era::V40 {
                        let epoch = sim.controller.registrations.get(broker as usize).map_or(0, |r| r.broker_epoch);
                        format!("[QuorumController id=c] Fencing broker {broker} at epoch {epoch} because its session has timed out.")
                    } else if kraft {
                        format!("[QuorumController id=c] Fencing broker {broker} because its session has timed out.")
                    } else {
                        broker_change(era, zk_controller, "", &broker.to_string(), "", &registered(sim, Some(broker)))
                    },
                );
            }
            Event::BrokerRegistered { broker, broker_epoch, .. } => {
                at(
                    ctl(),
                    if kraft {
                        format!("[QuorumController id=c] Replayed RegisterBrokerRecord establishing a new incarnation of broker {broker}: BrokerRegistration(id={broker}, epoch={broker_epoch}, …)")
                    } else {
                        broker_change(era, zk_controller, &broker.to_string(), "", "", &registered(sim, None))
                    },
                );
            }
            _ => {}
        }
    }
    out
}
