//! The step record's `text`: a sentence or a few, written from what the step
//! did (its trigger and typed events, which carry the values before and after
//! each change) and the state after it. A pure function of those: nothing here
//! changes the simulation, and nothing is written unless a record is asked for.
//!
//! One file per role, as in `sim/`: `leader` (Fetch serving, produce, ISR),
//! `follower` (Fetch responses, truncation), `clients` (producers, consumers),
//! `lifecycle` (actions, the controller, timers).

mod clients;
mod controller;
mod follower;
pub mod future;
mod leader;
mod lifecycle;
mod zookeeper;

use crate::scenario::Acks;
use crate::sim::event::{ElectedFrom, ElectionCause, Released};
use crate::sim::{Event, Sim, Step, Trigger};

/// The sentence for the last step of `sim`.
pub fn text(sim: &Sim) -> String {
    // The page's first core says nothing: the full core, fetched at idle, does.
    if cfg!(feature = "first") {
        return String::new();
    }
    let n = Narrator { sim, step: &sim.last, events: sim.last.events() };
    match &sim.last.trigger {
        Trigger::Start => n.start(),
        Trigger::Nothing => String::new(),
        Trigger::Action(action) => n.action(action),
        Trigger::Deliver(msg) => n.deliver(msg),
        Trigger::Timer(timer) => n.timer(*timer),
    }
}

struct Narrator<'a> {
    sim: &'a Sim,
    step: &'a Step,
    events: &'a [Event],
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// "1", "1 and 2", "1, 2 and 3".
pub fn join_ids(ids: &[u32]) -> String {
    let parts: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    match parts.len() {
        0 => "none".into(),
        1 => parts[0].clone(),
        n => format!("{} and {}", parts[..n - 1].join(", "), parts[n - 1]),
    }
}

/// "{0, 1, 2}" for an ISR.
pub fn set_str(ids: impl IntoIterator<Item = u32>) -> String {
    format!("{{{}}}", ids.into_iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", "))
}

pub fn acks_str(acks: Acks) -> &'static str {
    acks.name()
}

impl Narrator<'_> {
    /// Said when a message this step sent was lost.
    fn note(&self, msg: Option<u64>) -> &'static str {
        if self.step.is_lost_on_a_closed_connection(msg) {
            " That answer is lost: the client has closed the connection the request came on, and no socket takes it in."
        } else if self.step.is_lost(msg) {
            " That message is lost (the link is cut or the receiver is down)."
        } else {
            ""
        }
    }

    fn producer(&self, p: usize) -> &str {
        &self.sim.scenario.producers[p].id
    }

    fn consumer(&self, c: usize) -> &str {
        &self.sim.consumers[c].spec.id
    }

    fn config(&self) -> &crate::scenario::Config {
        &self.sim.scenario.config
    }

    /// Whether the controller hears brokers through ZooKeeper (the ZooKeeper era).
    fn zookeeper(&self) -> bool {
        self.sim.behavior.broker_liveness == crate::scenario::BrokerLiveness::ZookeeperSession
    }

    /// The controller as the narration names it: in the ZooKeeper era it is a broker
    /// (`Sim::zookeeper_controller_id`), "the controller (broker 3)".
    fn controller_name(&self) -> String {
        self.sim.zookeeper_controller_id().map_or_else(|| "the controller".to_string(), |c| format!("the controller (broker {c})"))
    }

    /// Step 0.
    fn start(&self) -> String {
        let n = self.sim.scenario.replicas;
        let leo = self.sim.scenario.initial.log_end_offset;
        let followers = match n {
            1 => "there are no followers".to_string(),
            2 => "follower 1 fetches from it".to_string(),
            _ => format!("followers {} fetch from it", join_ids(&(1..n).collect::<Vec<_>>())),
        };
        // The ZooKeeper era's controller is a broker holding no replica of the partition.
        let controller = self.sim.zookeeper_controller_id().map_or(String::new(), |c| {
            format!(" The controller is broker {c}, which holds no replica of this partition; the brokers keep ZooKeeper sessions.")
        });
        format!(
            "Broker 0 leads the partition in epoch 0; every replica is in the ISR at LEO = HW = {leo}; {followers}. Preset {}.{controller}",
            self.sim.scenario.preset.name()
        )
    }

    /// What a run of completions says: consumer fetches released, follower fetches
    /// released or left parked, delayed produces answered (`tryCompleteDelayedRequests`).
    fn purgatory(&self, events: &[Event]) -> String {
        let mut text = String::new();
        let mut i = 0;
        while i < events.len() {
            match events[i] {
                Event::ConsumerFetchReleased { broker, .. } => {
                    let mut names = Vec::new();
                    while let Some(&Event::ConsumerFetchReleased { broker: b, consumer }) = events.get(i) {
                        if b != broker {
                            break;
                        }
                        names.push(self.consumer(consumer).to_string());
                        i += 1;
                    }
                    let es = if names.len() == 1 { "" } else { "es" };
                    text.push_str(&format!(" The HW move releases {}'s waiting fetch{es} on broker {broker}.", names.join(" and ")));
                    continue;
                }
                Event::FollowerFetchReleased { hw, why, .. } => {
                    let mut followers = Vec::new();
                    while let Some(&Event::FollowerFetchReleased { follower, .. }) = events.get(i) {
                        followers.push(follower);
                        i += 1;
                    }
                    let one = followers.len() == 1;
                    let why = match why {
                        Released::HwMoved => "the HW moved past what they last heard",
                        Released::NewData => "new data",
                    };
                    text.push_str(&format!(
                        " This releases the parked fetch{} of follower{} {} ({why}); the response{} carr{} HW {hw}.",
                        if one { "" } else { "es" },
                        if one { "" } else { "s" },
                        join_ids(&followers),
                        if one { "" } else { "s" },
                        if one { "ies" } else { "y" },
                    ));
                    continue;
                }
                Event::FollowerFetchStaysParked { .. } => {
                    let mut followers = Vec::new();
                    while let Some(&Event::FollowerFetchStaysParked { follower, .. }) = events.get(i) {
                        followers.push(follower);
                        i += 1;
                    }
                    text.push_str(&format!(
                        " Follower {}'s parked fetch stays parked: an HW move does not release it (only new data or its timeout).",
                        join_ids(&followers)
                    ));
                    continue;
                }
                Event::ProduceCompleted { producer, required_offset, error, msg, .. } => {
                    let p = self.producer(producer);
                    let note = self.note(Some(msg));
                    text.push_str(&match error {
                        None => format!(" The HW has passed {required_offset}: {p}'s acks=all write is acknowledged.{note}"),
                        Some(e) => format!(
                            " The HW has passed {required_offset}, but the ISR is smaller than min.insync.replicas: {p} gets {}.{note}",
                            e.name(self.sim.scenario.preset)
                        ),
                    });
                }
                _ => {}
            }
            i += 1;
        }
        text
    }

    /// After a committed ISR change: the HW moved (and what that completed), or not.
    fn hw_after_isr_change(&self) -> String {
        for (i, e) in self.events.iter().enumerate() {
            match *e {
                Event::LeaderHwMoved { from, to, .. } => return format!(" HW {from} → {to}.{}", self.purgatory(&self.events[i + 1..])),
                Event::HwStays { hw, held: true, .. } => {
                    return format!(
                        " HW stays {hw}: the ISR is under min.insync.replicas ({}), so the HW is held (3.7+, KAFKA-15583).",
                        self.config().min_insync_replicas
                    )
                }
                Event::HwStays { hw, .. } => return format!(" HW stays {hw}."),
                _ => {}
            }
        }
        String::new()
    }

    /// The controller's election, or the partition going offline.
    fn election(&self) -> String {
        for e in self.events {
            match *e {
                Event::LeaderElected { leader, epoch, isr, cause, from, .. } => {
                    let why = match cause {
                        // ZooKeeper has no fencing: the controller's /brokers/ids watch saw the broker come back.
                        ElectionCause::Unfenced { broker } if self.zookeeper() => {
                            format!("the partition had no leader and broker {broker} came back (its /brokers/ids node)")
                        }
                        ElectionCause::Unfenced { broker } => format!("the partition had no leader and broker {broker} was unfenced"),
                        ElectionCause::LeaderRestarted { old } => format!("leader {old} restarted"),
                        ElectionCause::LeaderShutdown { old } => format!("leader {old}'s process is gone (a new incarnation registered)"),
                        ElectionCause::LeaderFenced { old } if self.zookeeper() => format!("leader {old}'s ZooKeeper session expired"),
                        ElectionCause::LeaderFenced { old } if from == ElectedFrom::Isr => format!("leader {old} was fenced"),
                        ElectionCause::LeaderFenced { old } => format!("leader {old} was fenced and no ISR member is alive"),
                    };
                    let isr = set_str(isr.iter());
                    return match from {
                        ElectedFrom::Isr => format!(" Because {why}, the controller elects broker {leader} from the ISR: leader epoch {epoch}, ISR {isr}."),
                        ElectedFrom::Elr => format!(
                            " Because {why}, the controller elects broker {leader} from the eligible leader replicas (KIP-966): it left the ISR while the ISR was under min.insync.replicas, when the HW could not move, so it has every committed record. Leader epoch {epoch}, ISR {isr}."
                        ),
                        ElectedFrom::LastKnownLeader => format!(
                            " Because {why} and the ISR and the ELR are empty, the controller elects the last known leader, broker {leader} (KIP-966, an unclean election: its log is all there is): leader epoch {epoch}, ISR {isr}."
                        ),
                        ElectedFrom::Unclean => format!(
                            " Because {why}, the controller elects broker {leader} although it is not in the ISR (unclean leader election): leader epoch {epoch}, ISR {isr}. Records it lacks may be lost."
                        ),
                    };
                }
                Event::PartitionOffline { old_leader, isr, .. } => {
                    let c = &self.sim.controller;
                    let who = if self.sim.behavior.eligible_leader_replicas {
                        format!(
                            "in the ISR {} or the ELR {}",
                            set_str(crate::sim::isr_list::sorted(&c.isr)),
                            set_str(c.elr.iter().copied())
                        )
                    } else {
                        format!("in the ISR {}", set_str(isr.iter()))
                    };
                    let mut text = format!(
                        " Leader {old_leader} is gone and no replica {who} can take over{}: the partition is offline until one returns.",
                        if self.sim.settings.unclean_leader_election_enable { "" } else { " (unclean.leader.election.enable is false)" }
                    );
                    if self.events.iter().any(|e| matches!(e, Event::LastKnownLeaderRecorded { .. })) {
                        text.push_str(&format!(
                            " The ISR is empty (ELR on): the controller remembers broker {old_leader} as the last known leader, to elect it again if it returns and nothing better has."
                        ));
                    }
                    return text;
                }
                _ => {}
            }
        }
        String::new()
    }

    /// The ELR after a change (4.1, KIP-966).
    fn elr_text(&self, elr: crate::sim::vecmap::BrokerSet) -> String {
        let min = self.config().min_insync_replicas.min(self.sim.scenario.replicas);
        if elr.is_empty() {
            format!(" The ELR is now empty (the ISR has at least min(min.insync.replicas, RF) = {min} members, or none is left to keep).")
        } else {
            format!(
                " The ISR {} is under min(min.insync.replicas, RF) = {min}: the replicas that left it stay eligible to lead (KIP-966), ELR {}.",
                set_str(crate::sim::isr_list::sorted(&self.sim.controller.isr)),
                set_str(elr.iter())
            )
        }
    }
}
