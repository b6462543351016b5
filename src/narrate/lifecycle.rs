//! Which sentence a step gets, by what started it; and the sentences for
//! actions, the controller and metadata.

use super::{plural, set_str, Narrator};
use crate::scenario::Action;
use crate::sim::event::Session;
use crate::sim::{Body, Event, Metadata, Msg, Node, Timer};

impl Narrator<'_> {
    pub(super) fn action(&self, action: &Action) -> String {
        match action {
            Action::Produce { .. } => self.produce(),
            Action::Crash { .. } => self.crash(),
            Action::Restart { .. } => self.restart(),
            Action::Partition { .. } | Action::Heal { .. } => self.links(),
            Action::AddConsumer(spec) => {
                let name = &spec.id;
                for e in self.events {
                    if let Event::ConsumerAdded { consumer } = *e {
                        let position = self.sim.consumers[consumer].position;
                        return match spec.fetch_from {
                            Some(b) => format!(
                                "Consumer {name} joins, reading from broker {b} (KIP-392 follower fetching) from offset {position}."
                            ),
                            None => format!("Consumer {name} joins, reading from the leader from offset {position}."),
                        };
                    }
                }
                format!("A consumer named {name} already exists; nothing added.")
            }
        }
    }

    pub(super) fn deliver(&self, msg: &Msg) -> String {
        if let Some(Event::ReceiverDown { broker: b }) = self.events.first() {
            return format!("A message to broker {b} arrives, but broker {b} is down.");
        }
        match (&msg.body, msg.to, msg.from) {
            (Body::Fetch(req), ..) => self.fetch_request(req),
            (Body::FetchResponse(resp), Node::Broker(id), Node::Broker(leader)) => self.fetch_response(id, leader, resp),
            (Body::Produce { ids, .. }, ..) => self.produce_request(ids),
            (Body::ProduceResponse { .. }, ..) => self.produce_response(),
            (Body::ConsumerFetch { .. }, ..) => self.consumer_served(),
            (Body::ConsumerFetchResponse(resp), ..) => self.consumer_fetch_response(resp),
            (Body::AlterPartition { isr, .. }, ..) => self.alter_partition(isr),
            (Body::AlterPartitionResponse { .. }, ..) => self.alter_partition_response(),
            (Body::LeaderAndIsr(meta), ..) => self.leader_and_isr(meta),
            (Body::OffsetsForLeaderEpoch { .. }, ..) => self.offsets_for_leader_epoch(),
            (Body::OffsetsForLeaderEpochResponse { .. }, Node::Broker(id), _) => self.offsets_for_leader_epoch_response(id),
            _ => String::new(),
        }
    }

    pub(super) fn timer(&self, timer: Timer) -> String {
        match timer {
            Timer::FetchExpiry { leader, follower } => {
                for e in self.events {
                    if let Event::ParkedFetchExpired { fetch_offset, records: n, hw, msg, .. } = *e {
                        return format!(
                            "Follower {follower}'s fetch at {fetch_offset} has waited replica.fetch.wait.max.ms ({} ms) on leader {leader}. It is answered with {} and the HW as it is now, {hw}.{}",
                            self.config().replica_fetch_wait_max_ms,
                            if n == 0 { "no records".to_string() } else { format!("{n} record{}", plural(n)) },
                            self.note(Some(msg))
                        );
                    }
                }
                String::new()
            }
            Timer::ConsumerFetchExpiry { .. } => self.consumer_served(),
            Timer::ProduceExpiry { .. } => self.produce_expiry(),
            Timer::IsrExpiration { leader } => self.isr_check(leader),
            Timer::FetcherRetry { follower } => self.fetcher_retry(follower),
            Timer::FetchRequestTimeout { follower } => self.fetch_request_timeout(follower),
            Timer::ProduceRequestTimeout { producer, .. } => self.produce_request_timeout(producer),
            Timer::ConsumerRequestTimeout { .. } => self.consumer_request_timeout(),
            Timer::SessionExpiry { .. } => self.session_expired(),
        }
    }

    fn crash(&self) -> String {
        for e in self.events {
            match *e {
                Event::AlreadyDown { broker } => return format!("Broker {broker} is already down."),
                Event::Crashed { broker, unflushed, leo, kept, dropped, last_heartbeat, fence_at } => {
                    let mut text = format!("Broker {broker} crashes.");
                    if unflushed > 0 {
                        text.push_str(&format!(
                            " The last {} record{} of its log were not flushed to disk and are lost: LEO {leo} → {kept}.",
                            leo - kept,
                            plural((leo - kept) as usize)
                        ));
                    }
                    if dropped > 0 {
                        text.push_str(&format!(" {dropped} message{} on the way to it will never be read.", plural(dropped)));
                    }
                    text.push_str(&if self.zookeeper() {
                        format!(
                            " Its last ZooKeeper ping was at {last_heartbeat} ms; ZooKeeper will expire its session at {fence_at} ms (zookeeper.session.timeout.ms = {} ms), and only then will the controller treat it as dead.",
                            self.sim.settings.zookeeper_session_timeout_ms
                        )
                    } else {
                        format!(
                            " Its last heartbeat reached the controller at {last_heartbeat} ms; the controller will fence it at {fence_at} ms (broker.session.timeout.ms = {} ms).",
                            self.config().broker_session_timeout_ms
                        )
                    });
                    return text;
                }
                _ => {}
            }
        }
        String::new()
    }

    /// When the controller will notice a halted broker (its last heartbeat or ping).
    pub(super) fn halt_detection(&self, id: u32) -> String {
        self.events
            .iter()
            .find_map(|e| match *e {
                Event::Crashed { broker, last_heartbeat, fence_at, .. } if broker == id => Some(if self.zookeeper() {
                    format!("its ZooKeeper session (last ping at {last_heartbeat} ms) expires at {fence_at} ms.")
                } else {
                    format!("the controller will fence it at {fence_at} ms (last heartbeat at {last_heartbeat} ms).")
                }),
                _ => None,
            })
            .unwrap_or_default()
    }

    fn restart(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::AlreadyRunning { broker } => return format!("Broker {broker} is already running."),
                Event::Restarted { broker, leo, hw, session } => {
                    text = format!("Broker {broker} restarts with LEO {leo} and HW {hw} (its HW checkpoint).");
                    text.push_str(match session {
                        Session::Kept => {
                            " It is back before its session expired, so the controller never fenced it and it keeps its place in the ISR."
                        }
                        Session::Unfenced => " It registers with the controller and is unfenced.",
                        Session::Fresh => "",
                    });
                }
                Event::ElrChanged { after, .. } => text.push_str(&format!(
                    " It crashed, an unclean shutdown: it may have lost what it had not flushed, so it leaves the ELR (handleBrokerUncleanShutdown), ELR {}.",
                    set_str(after.iter())
                )),
                Event::LeaderElected { .. } => return text + &self.election(),
                Event::WaitsForLeader { .. } => return text + " The partition has no leader, and it cannot lead: it waits.",
                _ => {}
            }
        }
        text + &self.metadata_applied()
    }

    fn links(&self) -> String {
        for e in self.events {
            match *e {
                Event::LinksCut { from, to, both_ways: true } => {
                    return format!(
                        "The network between brokers {from} and {to} is cut both ways: messages sent across it from now on are lost; those already on the wire still arrive."
                    )
                }
                Event::LinksCut { from, to, .. } => {
                    return format!("The link from broker {from} to broker {to} is cut (one way): what {from} sends to {to} from now on is lost.")
                }
                Event::LinksHealed { from, to, both_ways: true } => {
                    return format!(
                        "The network between brokers {from} and {to} is healed. Lost requests are only noticed when their timeouts fire."
                    )
                }
                Event::LinksHealed { from, to, .. } => return format!("The link from broker {from} to broker {to} is healed."),
                _ => {}
            }
        }
        String::new()
    }

    fn session_expired(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::SessionExpired { broker, kept_last, .. } => {
                    text = if self.zookeeper() {
                        format!(
                            "Broker {broker}'s ZooKeeper session expires ({} ms without a ping): its registration is deleted and the controller treats it as dead.",
                            self.sim.settings.zookeeper_session_timeout_ms
                        )
                    } else {
                        format!(
                            "The controller has had no heartbeat from broker {broker} for {} ms and fences it.",
                            self.config().broker_session_timeout_ms
                        )
                    };
                    if kept_last {
                        text.push_str(" It is the last replica in the ISR, so it stays there (Kafka never empties the ISR without ELR).");
                    }
                }
                Event::LeaderElected { .. } | Event::PartitionOffline { .. } => return text + &self.election(),
                Event::ControllerIsrShrunk { before, after } if before != after => {
                    text.push_str(&format!(
                        " The ISR shrinks {} → {}; the leader learns it from the metadata.",
                        set_str(before.iter()),
                        set_str(after.iter())
                    ));
                }
                Event::LeaderEpochBumped { leader, epoch } => {
                    text.push_str(&format!(
                        " The ZooKeeper-era controller writes the new ISR with a new leader epoch, {epoch}, leader {leader} unchanged (ReplicaStateMachine.doRemoveReplicasFromIsr; KRaft does not bump it)."
                    ));
                }
                Event::ElrChanged { after, .. } => text.push_str(&self.elr_text(after)),
                Event::LastKnownLeaderRecorded { broker } => {
                    text.push_str(&format!(" The ISR is empty; the controller remembers broker {broker} as the last known leader."))
                }
                _ => {}
            }
        }
        text
    }

    /// The controller's decision on an AlterPartition.
    fn alter_partition(&self, proposed: &[u32]) -> String {
        let mut change = None;
        let mut elr = String::new();
        for e in self.events {
            match *e {
                Event::AlterPartitionCommitted { before, after, .. } => change = Some((before, after)),
                Event::ElrChanged { after, .. } => elr = self.elr_text(after),
                Event::AlterPartitionAnswered { leader, error, partition_epoch, msg } => {
                    let note = self.note(Some(msg));
                    return match (error, change) {
                        (None, Some((before, after))) => format!(
                            "The controller commits leader {leader}'s ISR change {} → {} (partition epoch {partition_epoch}) and answers.{elr}{note}",
                            set_str(before.iter()),
                            set_str(after.iter())
                        ),
                        (error, _) => format!(
                            "The controller rejects leader {leader}'s ISR change to {}: {}.{note}",
                            set_str(proposed.iter().copied()),
                            error.map_or("", |e| e.name())
                        ),
                    };
                }
                _ => {}
            }
        }
        String::new()
    }

    fn leader_and_isr(&self, meta: &Metadata) -> String {
        for e in self.events {
            match *e {
                Event::MetadataStale { broker, epoch, own_epoch } => {
                    return format!("Broker {broker} gets metadata for leader epoch {epoch}, older than its own {own_epoch}; ignored.")
                }
                Event::LeaderIsrUpdated { broker, .. }
                | Event::BecameLeader { broker, .. }
                | Event::NothingChanges { broker }
                | Event::BecameFollower { broker, .. } => {
                    return format!(
                        "Broker {broker} learns from the controller: leader {}, epoch {}, ISR {}.{}",
                        meta.leader.map_or("none".into(), |l| l.to_string()),
                        meta.leader_epoch,
                        set_str(meta.isr.iter().copied()),
                        self.metadata_applied()
                    )
                }
                _ => {}
            }
        }
        String::new()
    }

    /// What a broker does with the metadata it applies (`ReplicaManager.applyDelta`).
    fn metadata_applied(&self) -> String {
        for e in self.events {
            match *e {
                Event::LeaderIsrUpdated { before, after, .. } => {
                    let change = if before != after {
                        format!(" Its ISR {} → {}.", set_str(before.iter()), set_str(after.iter()))
                    } else {
                        String::new()
                    };
                    return change + &self.hw_after_isr_change();
                }
                Event::BecameLeader { epoch, leo, hw, again: true, .. } => {
                    return format!(
                        " It stays the leader, in the new epoch {epoch}, which starts at its LEO {leo}: followers keep their fetch state, but one outside the ISR must now reach {leo} to rejoin it. HW {hw}."
                    );
                }
                Event::BecameLeader { epoch, leo, hw_before, hw, .. } => {
                    let mut text = format!(" It becomes the leader in epoch {epoch} with LEO {leo}; its epoch starts at offset {leo}.");
                    text.push_str(&if hw == hw_before && hw_before < leo {
                        format!(
                            " Its HW is {hw}, what it last heard as a follower; it moves only when followers report their LEOs, so consumers beyond it wait."
                        )
                    } else if hw == hw_before {
                        format!(" Its HW is {hw}, at its LEO.")
                    } else {
                        format!(" HW {hw_before} → {hw}.")
                    });
                    return text;
                }
                Event::NothingChanges { .. } => return " Nothing changes for it.".into(),
                Event::BecameFollower { leader: None, .. } => return " There is no leader to follow.".into(),
                Event::BecameFollower { leader: Some(l), stepped_down, .. } => {
                    let mut text = String::new();
                    if stepped_down {
                        text.push_str(" It steps down; waiting requests get NOT_LEADER_OR_FOLLOWER.");
                    }
                    text.push_str(&format!(" It follows leader {l}."));
                    match self.hw_truncation() {
                        Some(t) => text.push_str(&t),
                        None => text.push_str(self.truncation_on_become_follower()),
                    }
                    return text;
                }
                _ => {}
            }
        }
        String::new()
    }
}
