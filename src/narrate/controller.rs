//! Sentences for the controller's conversation with brokers: registrations,
//! heartbeats and what their answers bring, and AlterPartition sent again.

use super::Narrator;
use crate::sim::{Event, Node};

impl Narrator<'_> {
    /// A node as a sentence names it.
    pub(super) fn node(&self, node: Node) -> String {
        match node {
            Node::Broker(b) => format!("broker {b}"),
            Node::Controller => self.controller_name(),
            Node::ZooKeeper => "ZooKeeper".into(),
            Node::Producer(p) => format!("producer {}", self.producer(p)),
            Node::Consumer(c) => format!("consumer {}", self.consumer(c)),
        }
    }

    /// A broker's liveness timer: KRaft's heartbeat to the controller, or the ZooKeeper era's ping
    /// to its session; not registered yet, a registration (with the controller, or a new ZooKeeper
    /// session and its node /brokers/ids/N).
    pub(super) fn heartbeat_due(&self, broker: u32) -> String {
        let zk = self.zookeeper();
        for e in self.events {
            let (text, msg) = match *e {
                Event::HeartbeatSent { msg, .. } if zk => {
                    (format!("Broker {broker} pings its ZooKeeper session (every third of zookeeper.session.timeout.ms)."), msg)
                }
                Event::HeartbeatSent { msg, .. } => (format!("Broker {broker} sends its heartbeat to the controller."), msg),
                Event::RegistrationSent { incarnation, msg, .. } if zk => (
                    format!(
                        "Broker {broker} (incarnation {incarnation}) opens a ZooKeeper session and creates its node /brokers/ids/{broker}."
                    ),
                    msg,
                ),
                Event::RegistrationSent { incarnation, msg, .. } => {
                    (format!("Broker {broker} (incarnation {incarnation}) asks the controller again to register it."), msg)
                }
                _ => continue,
            };
            return format!("{text}{}", self.note(Some(msg)));
        }
        String::new()
    }

    /// A registration at the controller (`ClusterControlManager.registerBroker`).
    pub(super) fn registration_at_controller(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::RegistrationRefused { broker, session_deadline, msg } => {
                    let c = &self.sim.controller;
                    let keeps = match (c.leader == Some(broker), c.isr.contains(&broker)) {
                        (true, _) => "keeps its place in the ISR and the leadership until its session expires",
                        (false, true) => "keeps its place in the ISR until its session expires",
                        (false, false) => "stays registered until its session expires (the leader has already removed it from the ISR)",
                    };
                    return format!(
                        "Broker {broker}'s new incarnation asks to register, but the old one's session is valid until {session_deadline} ms: the controller refuses it (DuplicateBrokerRegistrationException). The old incarnation {keeps}.{}",
                        self.note(Some(msg))
                    );
                }
                Event::PreviousIncarnationRemoved { broker, .. } => {
                    text.push_str(&format!(
                        " Its previous incarnation shut down uncleanly: broker {broker} leaves the ISR (BrokerUncleanShutdownHandler), as if fenced."
                    ));
                }
                Event::LeaderElected { .. } | Event::PartitionOffline { .. } => text.push_str(&self.election()),
                Event::ElrChanged { after, .. } => text.push_str(&format!(
                    " It crashed, an unclean shutdown: it may have lost what it had not flushed, so it leaves the ELR (handleBrokerUncleanShutdown), ELR {}.",
                    super::set_str(after.iter())
                )),
                Event::BrokerRegistered { broker, broker_epoch, incarnation, fenced, expired_unfenced, .. } => {
                    let previous = expired_unfenced.map_or(String::new(), |d| {
                        format!(" Its previous incarnation's session ran out at {d} ms and no stale-broker check had fenced it yet: this registration removes it, as an unclean shutdown.")
                    });
                    let stays = if self.sim.behavior.registration_cleans_unclean_shutdown {
                        ""
                    } else {
                        " This version has no unclean-shutdown clean-up at registration: the previous incarnation's place in the ISR and any leadership stay as they were."
                    };
                    text = if fenced {
                        format!(
                            "The controller registers broker {broker}'s incarnation {incarnation} with broker epoch {broker_epoch}, fenced until it has caught up with the metadata.{previous}{stays}{text}"
                        )
                    } else {
                        format!(
                            "Broker {broker}'s incarnation {incarnation} registers in ZooKeeper (its ephemeral node) at once; the controller keeps its place in the ISR and sends it the partition's state.{text}"
                        )
                    };
                }
                _ => {}
            }
        }
        if text.is_empty() {
            "The controller answers a registration it already has.".into()
        } else {
            text
        }
    }

    /// The controller's answer to a registration, at the broker.
    pub(super) fn registration_response(&self, broker: u32) -> String {
        for e in self.events {
            match *e {
                Event::RegistrationResponseIgnored { .. } => {
                    return format!("Broker {broker} is already registered; the answer is ignored.")
                }
                Event::RegistrationRetries { at, .. } => {
                    return format!(
                        "Broker {broker} is refused (DUPLICATE_BROKER_REGISTRATION): its previous incarnation's session is still valid. It tries again one heartbeat interval ({} ms) later, at {at} ms.",
                        self.config().broker_heartbeat_interval_ms
                    )
                }
                Event::RegistrationAccepted { broker_epoch, .. } => {
                    return format!(
                        "Broker {broker} is registered (broker epoch {broker_epoch}) and catches up with the metadata the answer carries (RECOVERY).{} Ready to be unfenced, it heartbeats at once.",
                        self.metadata_applied()
                    );
                }
                _ => {}
            }
        }
        String::new()
    }

    /// A heartbeat at the controller (`ReplicationControlManager.processBrokerHeartbeat`).
    pub(super) fn heartbeat_at_controller(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::HeartbeatRejected { broker, .. } => {
                    return format!("The controller rejects a heartbeat from an older incarnation of broker {broker} (STALE_BROKER_EPOCH).")
                }
                Event::HeartbeatReceived { broker, session_deadline, unfence } => {
                    text = format!("The controller hears broker {broker}: its session runs to {session_deadline} ms.");
                    if unfence {
                        text.push_str(&format!(" Broker {broker} is fenced and has caught up: the controller unfences it."));
                    }
                }
                Event::LeaderElected { .. } | Event::PartitionOffline { .. } => text.push_str(&self.election()),
                _ => {}
            }
        }
        text
    }

    /// The controller's answer to a heartbeat, at the broker.
    pub(super) fn heartbeat_response(&self, broker: u32) -> String {
        for e in self.events {
            match *e {
                Event::HeartbeatResponseIgnored { .. } => return format!("Broker {broker} ignores a heartbeat answer."),
                Event::HeartbeatAnswered { fenced, running, caught_up, .. } => {
                    let mut text = format!("The controller answers broker {broker}'s heartbeat");
                    text.push_str(if running {
                        ": it is unfenced, and runs (RUNNING)."
                    } else if fenced {
                        ": it is still fenced."
                    } else {
                        "."
                    });
                    if let Some(offset) = caught_up {
                        text.push_str(&format!(" The answer brings the metadata it missed (offset {offset}).{}", self.metadata_applied()));
                    }
                    return text;
                }
                _ => {}
            }
        }
        String::new()
    }

    /// An AlterPartition sent again after request.timeout.ms without an answer.
    pub(super) fn alter_partition_retry(&self) -> String {
        for e in self.events {
            if let Event::AlterPartitionResent { leader, msg } = *e {
                return format!(
                    "Leader {leader}'s AlterPartition has had no answer for request.timeout.ms: the controller channel sends it again.{}",
                    self.note(Some(msg))
                );
            }
        }
        String::new()
    }

    /// A metadata Fetch reaches the controller (after a cut or a timeout).
    pub(super) fn metadata_fetch_at_controller(&self, broker: u32) -> String {
        for e in self.events {
            match *e {
                Event::MetadataFetchAnswered { msg, offset, .. } => {
                    return format!(
                        "Broker {broker}'s metadata Fetch reaches the controller, behind its log (offset {offset}): answered at once with what it lacks.{}",
                        self.note(Some(msg))
                    );
                }
                Event::MetadataFetchParked { .. } => {
                    return format!(
                        "Broker {broker}'s metadata Fetch reaches the controller, which has nothing newer: it waits there up to 500 ms (KafkaRaftClient.MAX_FETCH_WAIT_MS) for new records."
                    );
                }
                _ => {}
            }
        }
        String::new()
    }

    /// A parked metadata Fetch ends its wait.
    pub(super) fn metadata_fetch_expired(&self, broker: u32) -> String {
        for e in self.events {
            if let Event::MetadataFetchExpired { msg, .. } = *e {
                return format!(
                    "Nothing new for broker {broker}'s metadata Fetch after 500 ms: the controller answers it empty.{}",
                    self.note(Some(msg))
                );
            }
        }
        String::new()
    }

    /// An empty answer reaches the broker: its long poll goes on.
    pub(super) fn metadata_fetch_empty(&self, broker: u32) -> String {
        // A new incarnation's first answer: it publishes the image it loaded.
        if self.events.iter().any(|e| matches!(e, Event::BecameFollower { .. } | Event::LeadsBeforeRegistration { .. })) {
            return format!(
                "Broker {broker}'s first metadata Fetch since its restart is answered with nothing new: the log it kept is the controller's, so it publishes the image it loaded.{}",
                super::lifecycle::before_registration(self)
            );
        }
        let sent = self.events.iter().find_map(|e| match *e {
            Event::MetadataFetchSent { msg, .. } => Some(msg),
            _ => None,
        });
        match sent {
            Some(msg) => format!(
                "Broker {broker}'s metadata Fetch is answered with nothing new; the next waits across the cut.{}",
                self.note(Some(msg))
            ),
            None => format!("Broker {broker}'s metadata Fetch is answered with nothing new; it long-polls the controller again."),
        }
    }

    /// The broker's metadata fetch timer: a Fetch given up, or the next one sent.
    pub(super) fn metadata_fetch_timer(&self, broker: u32) -> String {
        for e in self.events {
            match *e {
                Event::MetadataFetchTimedOut { sent, .. } => {
                    return format!(
                        "Broker {broker}'s metadata Fetch sent at {sent} ms has had no answer for controller.quorum.request.timeout.ms (2000 ms): it gives it up, resets its connection to the controller and tries again after controller.quorum.retry.backoff.ms (20 ms)."
                    );
                }
                Event::MetadataFetchSent { msg, .. } => {
                    return format!("Broker {broker} fetches the metadata log from the controller again.{}", self.note(Some(msg)));
                }
                _ => {}
            }
        }
        String::new()
    }

    /// A heartbeat (or registration) had no answer: given up.
    pub(super) fn heartbeat_timed_out(&self, broker: u32) -> String {
        for e in self.events {
            if let Event::HeartbeatTimedOut { next_at, .. } = *e {
                return format!(
                    "Broker {broker}'s heartbeat has had no answer: it gives it up (\"Unable to send a heartbeat because the RPC got timed out\") and sends the next at {next_at} ms."
                );
            }
        }
        String::new()
    }
}
