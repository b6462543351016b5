//! Which sentence a step gets, by what started it; and the sentences for
//! actions, the controller and metadata.

use super::{plural, set_str, Narrator};
use crate::scenario::Action;
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
        let text = self.deliver_as_usual(msg);
        let Some(&Event::OrphanArrived { client, broker, sent_ms }) = self.events.first() else { return text };
        let how = if msg.resent_ms.is_some() {
            "Closing did not take back what TCP had not delivered: the kernel keeps the closed socket (an orphan) and goes on retransmitting its bytes, so after the heal they reach"
        } else {
            "It was already on its way, and reaches"
        };
        format!(
            "This request was sent at {sent_ms} ms on a connection {} has since closed (a request timed out). {how} broker {broker}, which handles it as any other; its answer will find the socket gone. {text}",
            self.node(client)
        )
    }

    fn deliver_as_usual(&self, msg: &Msg) -> String {
        match (&msg.body, msg.to, msg.from) {
            (Body::Fetch(req), ..) => self.fetch_request(req),
            (Body::FetchResponse(resp), Node::Broker(id), Node::Broker(leader)) => self.fetch_response(id, leader, resp),
            (Body::Produce { ids, .. }, ..) => self.produce_request(ids),
            (Body::ProduceResponse { .. }, ..) => self.produce_response(),
            (Body::ConsumerFetch { .. }, ..) => self.consumer_served(),
            (Body::ConsumerFetchResponse(resp), ..) => self.consumer_fetch_response(resp),
            (Body::AlterPartition { isr, .. }, ..) => self.alter_partition(isr),
            (Body::AlterPartitionResponse { .. }, ..) => self.alter_partition_response(),
            (Body::LeaderAndIsr(meta), ..) | (Body::MetadataFetchResponse { metadata: Some(meta), .. }, ..) => self.leader_and_isr(meta),
            (Body::MetadataFetchResponse { metadata: None, .. }, Node::Broker(id), _) => self.metadata_fetch_empty(id),
            (Body::MetadataFetch { .. }, _, Node::Broker(id)) => self.metadata_fetch_at_controller(id),
            (Body::OffsetsForLeaderEpoch { .. }, ..) => self.offsets_for_leader_epoch(),
            (Body::OffsetsForLeaderEpochResponse { .. }, Node::Broker(id), _) => self.offsets_for_leader_epoch_response(id),
            (Body::OffsetsForLeaderEpochResponse { .. }, Node::Consumer(_), _) => self.consumer_validation(),
            (Body::BrokerRegistration { .. }, ..) => self.registration_at_controller(),
            (Body::BrokerRegistrationResponse { .. }, Node::Broker(id), _) => self.registration_response(id),
            (Body::BrokerHeartbeat { .. }, ..) => self.heartbeat_at_controller(),
            (Body::BrokerHeartbeatResponse { .. }, Node::Broker(id), _) => self.heartbeat_response(id),
            (Body::MetadataRequest, ..) => self.metadata_request(),
            (Body::MetadataResponse { .. }, ..) => self.metadata_response(),
            (Body::Reset { .. }, to, Node::Broker(from)) => self.reset(to, from),
            (Body::ZkPing { .. } | Body::ZkRegister { .. }, ..) => self.at_zookeeper(),
            (Body::ZkRegistered | Body::ZkNodeExists | Body::ZkSessionExpired, Node::Broker(id), _) => self.zookeeper_answer(id),
            (Body::ZkWatch { broker, .. }, ..) => self.zookeeper_watch(*broker),
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
            Timer::FenceCheck if self.zookeeper() => self.at_zookeeper(),
            Timer::FenceCheck => self.session_expired(),
            Timer::Heartbeat { broker } => self.heartbeat_due(broker),
            Timer::AlterPartitionRetry { .. } => self.alter_partition_retry(),
            Timer::ProducerWake { producer } | Timer::AccumulatorExpiry { producer } => self.producer_wake(producer),
            Timer::MetadataTimeout { .. } => self.metadata_timeout(),
            Timer::MetadataFetch { broker } => self.metadata_fetch_timer(broker),
            Timer::MetadataFetchExpiry { broker } => self.metadata_fetch_expired(broker),
            Timer::HeartbeatTimeout { broker } => self.heartbeat_timed_out(broker),
            Timer::ConnectionSetupTimeout { .. } => self.connection_given_up(),
        }
    }

    fn crash(&self) -> String {
        for e in self.events {
            match *e {
                Event::AlreadyDown { broker } => return format!("Broker {broker} is already down."),
                Event::Crashed { broker, unflushed, leo, kept, dropped, silent, resets, last_heartbeat, deadline } => {
                    let mut text = if silent {
                        format!("Broker {broker}'s host vanishes (silently: no connection resets, so its peers find out only when their requests time out).")
                    } else {
                        format!("Broker {broker}'s process is killed.")
                    };
                    if unflushed > 0 {
                        text.push_str(&match leo - kept {
                            1 => format!(" The last record of its log was not flushed to disk and is lost: LEO {leo} → {kept}."),
                            n => format!(" The last {n} records of its log were not flushed to disk and are lost: LEO {leo} → {kept}."),
                        });
                    }
                    if dropped > 0 {
                        text.push_str(&format!(" {dropped} message{} on the way to it will never be read.", plural(dropped)));
                    }
                    if resets > 0 {
                        text.push_str(&match resets {
                            1 => " Its kernel resets its connections: the peer waiting on it hears at once.".to_string(),
                            n => format!(" Its kernel resets its connections: the {n} peers waiting on it hear at once."),
                        });
                    }
                    let heard = last_heartbeat.map_or("before the start".to_string(), |t| format!("at {t} ms"));
                    text.push_str(&if self.zookeeper() {
                        format!(
                            " Its last ZooKeeper ping arrived {heard}; ZooKeeper will expire its session at {deadline} ms (zookeeper.session.timeout.ms = {} ms), and only then will the controller treat it as dead.",
                            self.sim.settings.zookeeper_session_timeout_ms
                        )
                    } else {
                        format!(
                            " Its last heartbeat reached the controller {heard}; its session (broker.session.timeout.ms = {} ms) expires at {deadline} ms, and the controller's next stale-broker check after that fences it.",
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
                Event::Crashed { broker, last_heartbeat, deadline, .. } if broker == id => {
                    let heard = last_heartbeat.map_or("before the start".to_string(), |t| format!("at {t} ms"));
                    Some(if self.zookeeper() {
                        format!("its ZooKeeper session (last ping {heard}) expires at {deadline} ms.")
                    } else {
                        format!("its session (last heartbeat {heard}) expires at {deadline} ms; the next stale-broker check fences it.")
                    })
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    fn restart(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::AlreadyRunning { broker } => return format!("Broker {broker} is already running."),
                Event::Restarted { broker, leo, hw, hw_before, incarnation } => {
                    text = format!("Broker {broker} starts again (incarnation {incarnation}) with its flushed log, LEO {leo}, and the HW of its last checkpoint, {hw}");
                    text.push_str(&if hw < hw_before {
                        format!(
                            " (it had reached {hw_before}; replica.high.watermark.checkpoint.interval.ms = {} ms).",
                            self.config().hw_checkpoint_interval_ms()
                        )
                    } else {
                        ".".to_string()
                    });
                    text.push_str(if self.zookeeper() {
                        " It opens a ZooKeeper session to register; until the controller's LeaderAndIsr it has no role."
                    } else {
                        " It asks the controller to register it; until then it has no role."
                    });
                }
                _ => {}
            }
        }
        text
    }

    fn links(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::LinkEndpointMissing => return "That consumer has not joined yet: nothing to cut or heal.".into(),
                Event::LinksCut { from, to, both_ways, channel: Some(channel) } => {
                    let (a, b) = (self.node(from), self.node(to));
                    let (what, held) = channel_words(channel);
                    let way = if both_ways { format!("between {a} and {b}, both ways") } else { format!("from {a} to {b}, one way") };
                    text = format!(
                        "Only {what} is cut ({way}): {held} sent on it from now on is held by TCP, retransmitted until the cut heals or the sender gives up; the broker's other connections to the controller still carry."
                    );
                }
                Event::LinksCut { from, to, both_ways, channel: None } => {
                    let (a, b) = (self.node(from), self.node(to));
                    let controller = from == Node::Controller || to == Node::Controller;
                    let zookeeper = from == Node::ZooKeeper || to == Node::ZooKeeper;
                    let what = if zookeeper && controller {
                        "the controller's watch notifications wait in the connection until it heals"
                    } else if zookeeper {
                        "ZooKeeper pings and their answers sent across it from now on are lost, and the session times out on the last ping that got through"
                    } else if controller && self.zookeeper() {
                        "LeaderAndIsr sent across it from now on is lost (a broker's liveness is its ZooKeeper session, not this link)"
                    } else if controller {
                        "heartbeats, metadata and AlterPartition sent across it from now on are lost"
                    } else {
                        "what is sent across it from now on is held by TCP, which retransmits it until the link heals or the sender gives up; what is already on the wire still arrives"
                    };
                    text = if both_ways {
                        format!("The network between {a} and {b} is cut both ways: {what}.")
                    } else {
                        format!("The link from {a} to {b} is cut (one way): {what}.")
                    };
                }
                Event::LinksHealed { from, to, both_ways, channel: Some(channel) } => {
                    let (a, b) = (self.node(from), self.node(to));
                    let (what, _) = channel_words(channel);
                    let way = if both_ways { format!("between {a} and {b}") } else { format!("from {a} to {b}") };
                    text = format!("{} ({way}) is healed.", capitalized(what));
                }
                Event::LinksHealed { from, to, both_ways, channel: None } => {
                    let (a, b) = (self.node(from), self.node(to));
                    text = if both_ways {
                        format!("The network between {a} and {b} is healed.")
                    } else {
                        format!("The link from {a} to {b} is healed.")
                    };
                    if (from == Node::Controller || to == Node::Controller) && !self.zookeeper() {
                        text.push_str(" The next heartbeat gets through, and its answer brings the metadata the broker missed.");
                    }
                }
                Event::HeldReleased { count, handshakes, late, orphans_gone } => {
                    if count > 0 {
                        text.push_str(&held_released(count, handshakes));
                    }
                    if late > 0 {
                        text.push_str(&format!(
                            " {late} request{} wait{} on a connection attempt whose next SYN comes after the attempt is given up: the client will connect again then.",
                            plural(late),
                            if late == 1 { "s" } else { "" }
                        ));
                    }
                    if orphans_gone > 0 {
                        text.push_str(&format!(
                            " {orphans_gone} request{} of a connection its client closed {} gone: the kernel's orphaned socket stopped retransmitting before the heal (Linux gives an orphan 8 retransmissions, the last about 51 s after the first send).",
                            plural(orphans_gone),
                            if orphans_gone == 1 { "is" } else { "are" }
                        ));
                    }
                }
                _ => {}
            }
        }
        if text.ends_with("healed.") {
            text.push_str(" Nothing was held in it.");
        }
        text
    }

    fn session_expired(&self) -> String {
        let mut text = String::new();
        for e in self.events {
            match *e {
                Event::FenceCheckFindsNone => return "The controller's stale-broker check finds every session alive.".into(),
                Event::SessionExpired { broker, kept_last, deadline, .. } => {
                    text = if self.zookeeper() {
                        format!(
                            "Broker {broker}'s ZooKeeper session expires at {deadline} ms ({} ms without a ping): its registration is deleted and the controller treats it as dead.",
                            self.sim.settings.zookeeper_session_timeout_ms
                        )
                    } else {
                        format!(
                            "The controller's periodic stale-broker check (every broker.session.timeout.ms / 8 = {} ms) finds broker {broker}'s session expired at {deadline} ms: no heartbeat for {} ms. It fences broker {broker}.",
                            (self.config().broker_session_timeout_ms / 8).max(1),
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
        let mut why = String::new();
        for e in self.events {
            match *e {
                Event::AlterPartitionCommitted { before, after, .. } => change = Some((before, after)),
                Event::StaleBrokerEpochInIsr { broker, named, registered, .. } => {
                    why = format!(
                        " It names broker {broker} with broker epoch {named}, from a Fetch of an earlier incarnation; broker {broker} is now registered with epoch {registered}, and what it had not flushed may be gone (KIP-903)."
                    )
                }
                Event::ElrChanged { after, .. } => elr = self.elr_text(after),
                Event::AlterPartitionAnswered { leader, error, partition_epoch, msg } => {
                    let note = self.note(Some(msg));
                    return match (error, change) {
                        (None, Some((before, after))) => format!(
                            "The controller commits leader {leader}'s ISR change {} → {} (partition epoch {partition_epoch}) and answers.{elr}{note}",
                            set_str(before.set().iter()),
                            set_str(after.set().iter())
                        ),
                        (error, _) => format!(
                            "The controller rejects leader {leader}'s ISR change to {}: {}.{why}{note}",
                            set_str(crate::sim::isr_list::sorted(proposed)),
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
                Event::MetadataStale { broker, .. } => return format!("Broker {broker} gets metadata it has already applied; ignored."),
                Event::LeaderStateNewer { broker, partition_epoch, held } => {
                    return format!(
                        "Broker {broker} gets metadata at partition epoch {partition_epoch}, older than the {held} an AlterPartition answer gave it; it keeps its state."
                    )
                }
                Event::LeadsBeforeRegistration { broker, .. } => {
                    return format!(
                        "Broker {broker} learns from the controller: leader {}, epoch {}, ISR {}.{}",
                        meta.leader.map_or("none".into(), |l| l.to_string()),
                        meta.leader_epoch,
                        set_str(crate::sim::isr_list::sorted(&meta.isr)),
                        before_registration(self)
                    )
                }
                Event::LeaderIsrUpdated { broker, .. }
                | Event::BecameLeader { broker, .. }
                | Event::NothingChanges { broker }
                | Event::BecameFollower { broker, .. } => {
                    return format!(
                        "Broker {broker} learns from the controller: leader {}, epoch {}, ISR {}.{}",
                        meta.leader.map_or("none".into(), |l| l.to_string()),
                        meta.leader_epoch,
                        set_str(crate::sim::isr_list::sorted(&meta.isr)),
                        self.metadata_applied()
                    )
                }
                _ => {}
            }
        }
        String::new()
    }

    /// What a broker does with the metadata it applies (`ReplicaManager.applyDelta`).
    pub(super) fn metadata_applied(&self) -> String {
        for e in self.events {
            match *e {
                Event::LeaderIsrUpdated { before, after, .. } => {
                    let change = if before.set() != after.set() {
                        format!(" Its ISR {} → {}.", set_str(before.set().iter()), set_str(after.set().iter()))
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
                Event::BecameFollower { leader: Some(l), stepped_down, broker, .. } => {
                    let mut text = String::new();
                    if stepped_down {
                        let error = crate::sim::KafkaError::NotLeaderOrFollower.name(self.sim.scenario.preset);
                        text.push_str(&format!(" It steps down; waiting requests get {error}."));
                    }
                    text.push_str(&format!(" It follows leader {l}."));
                    if self.sim.broker(broker).lifecycle == crate::sim::Lifecycle::Starting && self.sim.acts_on_image_before_registration()
                    {
                        text.push_str(" It is not registered yet: a restarted KRaft broker acts on the metadata it has (BrokerMetadataPublisher's first publish) and fetches with broker epoch -1 until the controller accepts it.");
                    }
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

/// What a new KRaft incarnation that leads in its own view does before it is registered.
pub(super) fn before_registration(n: &super::Narrator) -> String {
    n.events
        .iter()
        .find_map(|e| match *e {
            Event::LeadsBeforeRegistration { epoch, .. } => Some(format!(
                " Its image names it the leader in epoch {epoch}, so it becomes leader in its own view (Partition.makeLeader), before its registration is accepted; it serves nothing until it is unfenced, because its listeners open only at the end of its start-up."
            )),
            _ => None,
        })
        .unwrap_or_default()
}

/// When what TCP held goes out after a heal (`network::retransmission_at`): data at
/// the next resend of its oldest message (200 ms after it was sent, then doubling);
/// a connection still being opened at its next SYN (every second five times, then
/// doubling), the requests queued behind it after the handshake.
fn held_released(count: usize, handshakes: usize) -> String {
    let data = count - handshakes.min(count);
    let syn = "at the connection's next SYN (sent every second five times, then doubling), after which the handshake completes";
    let resend = "at the next retransmission (200 ms after the first send, then doubling)";
    match (data, handshakes) {
        (_, 0) => format!(" TCP sends the {count} message{} it held {resend}.", plural(count)),
        (0, 1) => format!(" The message waiting for a connection goes out {syn}."),
        (0, _) => format!(" The {count} messages waiting for a connection go out {syn}."),
        _ => format!(
            " TCP sends the {data} message{} it held {resend}; {handshakes} waiting for a connection go{} out {syn}.",
            plural(data),
            if handshakes == 1 { "es" } else { "" }
        ),
    }
}

/// A broker's connection to the controller, in words, and what travels on it.
fn channel_words(channel: crate::scenario::Channel) -> (&'static str, &'static str) {
    use crate::scenario::Channel;
    match channel {
        Channel::AlterPartition => ("the AlterPartition connection (AlterPartitionManager's channel)", "an AlterPartition or its answer"),
        Channel::Heartbeat => ("the heartbeat connection (BrokerLifecycleManager's channel)", "a registration, a heartbeat or an answer"),
        Channel::Metadata => ("the metadata log's connection (the raft client's Fetch)", "a metadata Fetch or its answer"),
    }
}

/// `s` with its first letter a capital. The words are the engine's own, all ASCII: `to_ascii_uppercase`, not `char::to_uppercase`,
/// whose Unicode case tables would add ~9 KB (gzipped) to the page's core.
fn capitalized(s: &str) -> String {
    let mut out = s.to_owned();
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    out
}
