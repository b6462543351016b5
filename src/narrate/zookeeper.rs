//! Sentences for ZooKeeper (the ZooKeeper-era presets, `sim/zookeeper.rs`): a
//! broker's pings and registration, ZooKeeper expiring a session, and the
//! controller's watch on /brokers/ids. Every time and timeout named here is the
//! one the state holds (the session's deadline, zookeeper.session.timeout.ms).

use super::{set_str, Narrator};
use crate::sim::Event;

impl Narrator<'_> {
    fn session_ms(&self) -> u64 {
        self.sim.settings.zookeeper_session_timeout_ms
    }

    /// ZooKeeper receives a ping, a registration, or its session timer fires.
    pub(super) fn at_zookeeper(&self) -> String {
        for e in self.events {
            match *e {
                Event::ZkSessionRenewed { broker, deadline } => {
                    return format!("ZooKeeper hears broker {broker}'s ping: its session now lasts until {deadline} ms (zookeeper.session.timeout.ms = {} ms).", self.session_ms());
                }
                Event::ZkPingOfExpiredSession { broker, .. } => {
                    return format!("ZooKeeper gets a ping from broker {broker}'s session, which it has expired: it tells the broker so.");
                }
                Event::ZkSessionCreated { broker, incarnation, deadline, replaced } => {
                    let old = replaced.map_or(String::new(), |d| {
                        format!(" The previous process's session (valid until {d} ms) is replaced at once: this scenario turns restart_inside_zookeeper_session_fails off (a real broker's new process would fail with NodeExists until it expired).")
                    });
                    return format!(
                        "ZooKeeper creates /brokers/ids/{broker} for incarnation {incarnation}'s new session (until {deadline} ms unless pinged).{old} The controller's watch on /brokers/ids fires."
                    );
                }
                Event::ZkNodeExists { broker, incarnation, owner, until, .. } => {
                    return format!(
                        "Incarnation {incarnation} of broker {broker} asks ZooKeeper to create /brokers/ids/{broker}, but the node is still there: it belongs to incarnation {owner}'s session, which lives until {until} ms (a killed process sends no goodbye; zookeeper.session.timeout.ms = {} ms after its last ping). ZooKeeper answers NodeExists; the controller's watch does not fire, so the controller still counts the killed process as live.",
                        self.session_ms()
                    );
                }
                Event::ZkSessionExpired { broker, deadline } => {
                    return format!(
                        "ZooKeeper expires broker {broker}'s session at {deadline} ms: no ping for zookeeper.session.timeout.ms ({} ms). It deletes /brokers/ids/{broker}, and the controller's watch fires.",
                        self.session_ms()
                    );
                }
                _ => {}
            }
        }
        String::new()
    }

    /// How the version in force words the failed registration: 0.10.2–1.0 `ZkUtils.registerBrokerInZk`,
    /// 1.1+ `KafkaZkClient.CheckedEphemeral`.
    fn startup_error(&self) -> &'static str {
        if matches!(self.sim.scenario.preset, crate::scenario::Preset::Kafka010 | crate::scenario::Preset::Kafka011) {
            "\"A broker is already registered on the path … restarted it faster than the zookeeper timeout\""
        } else {
            "\"node already exists and owner … does not match current session\""
        }
    }

    /// ZooKeeper's answer at the broker.
    pub(super) fn zookeeper_answer(&self, broker: u32) -> String {
        for e in self.events {
            match *e {
                Event::ZkRegistered { incarnation, .. } => {
                    return format!("Broker {broker} (incarnation {incarnation}) is registered in ZooKeeper; it will lead or follow as the controller's LeaderAndIsr says.");
                }
                Event::ZkSessionLost { .. } => {
                    return format!(
                        "Broker {broker} learns that ZooKeeper expired its session: it opens a new session and registers again. {}",
                        self.heartbeat_due(broker)
                    );
                }
                Event::ZkAnswerIgnored { .. } => return format!("Broker {broker} ignores an answer about a session it no longer has."),
                Event::StartupFailed { incarnation, until, .. } => {
                    return format!(
                        "Broker {broker} (incarnation {incarnation}) is told NodeExists: /brokers/ids/{broker} belongs to another session. Its startup fails (\"Fatal error during KafkaServer startup\"; {}) and the process exits. It is down again; the controller learns of it only when the old session expires at {until} ms. A start after that registers.",
                        self.startup_error()
                    );
                }
                _ => {}
            }
        }
        String::new()
    }

    /// The controller's watch on /brokers/ids (`KafkaController.processBrokerChange`).
    pub(super) fn zookeeper_watch(&self, broker: u32) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::ZkWatchStale { .. } => return format!("The controller's watch says what it already knows about broker {broker}."),
                Event::ZkBrokerBounced { incarnation, seen: false, .. } => {
                    return format!(
                        "The watch of {} on /brokers/ids fires, and the controller reads the live brokers: broker {broker} is there, as it was. That node is new, created by incarnation {incarnation}'s session after the old one's was deleted, but before Kafka 2.2 the controller compares broker ids only (KIP-380 added the broker epoch): it misses the restart. The new process gets no LeaderAndIsr and does nothing for the partition until the partition's state changes; the controller still counts it live{}{}.",
                        self.controller_name(),
                        if self.sim.controller.isr.contains(&broker) { ", in the ISR" } else { "" },
                        if self.sim.controller.leader == Some(broker) { " and as the leader" } else { "" }
                    );
                }
                Event::ZkBrokerBounced { incarnation, seen: true, .. } => {
                    text = format!(
                        "The watch of {} on /brokers/ids fires: broker {broker}'s node is new (incarnation {incarnation}'s session), its czxid newer than the broker epoch the controller holds, so broker {broker} bounced (KIP-380, Kafka 2.2+): the controller handles it as dead (KafkaController.onBrokerFailure), then as started (onBrokerStartup).",
                        self.controller_name()
                    );
                }
                Event::SessionExpired { kept_last, .. } => {
                    if bounced(self.events) {
                        if kept_last {
                            text.push_str(" It is the last replica in the ISR, so it stays there.");
                        }
                        continue;
                    }
                    text = format!(
                        "The watch of {} on /brokers/ids fires: /brokers/ids/{broker} is gone, so broker {broker} is dead (KafkaController.onBrokerFailure).",
                        self.controller_name()
                    );
                    if kept_last {
                        text.push_str(" It is the last replica in the ISR, so it stays there.");
                    }
                }
                Event::BrokerRegistered { incarnation, .. } => {
                    // The ISR as the controller holds it: a broker whose session expired
                    // was removed from it (onBrokerFailure) and rejoins only by catching up.
                    let isr = &self.sim.controller.isr;
                    let place = if isr.contains(&broker) {
                        "It keeps its place in the ISR".to_string()
                    } else {
                        format!("It is not in the ISR {} and rejoins it only by catching up with the leader", set_str(crate::sim::isr_list::sorted(isr)))
                    };
                    if bounced(self.events) {
                        text.push_str(&format!(" {place}, and the controller sends it the partition's state (LeaderAndIsr)."));
                        continue;
                    }
                    text = format!(
                        "The watch of {} on /brokers/ids fires: broker {broker} (incarnation {incarnation}) is back (KafkaController.onBrokerStartup). {place}, and the controller sends it the partition's state (LeaderAndIsr).",
                        self.controller_name()
                    );
                }
                Event::LeaderElected { .. } | Event::PartitionOffline { .. } => return text + &self.election(),
                Event::ControllerIsrShrunk { before, after } if before != after => {
                    text.push_str(&format!(" The ISR shrinks {} → {}; the leader learns it from LeaderAndIsr.", set_str(before.iter()), set_str(after.iter())));
                }
                Event::LeaderEpochBumped { leader, epoch } => text.push_str(&format!(
                    " The controller writes the new ISR with a new leader epoch, {epoch}, leader {leader} unchanged (ReplicaStateMachine.doRemoveReplicasFromIsr)."
                )),
                _ => {}
            }
        }
        text
    }
}

/// A bounce the controller saw (KIP-380) in this step: its failure and startup are one story.
fn bounced(events: &[Event]) -> bool {
    events.iter().any(|e| matches!(e, Event::ZkBrokerBounced { seen: true, .. }))
}
