//! The step record's `event`: what started the step (its type and the fields
//! of the message or timer) and what the step's typed events add to it
//! (outcome, error, HW before and after, truncation, election, ISR).

use super::{EpochEnd, EventRecord, NodeName};
use crate::json::Value;
use crate::scenario::{Action, Peer};
use crate::sim::event::{ElectedFrom, HwCause};
use crate::sim::log::RecordId;
use crate::sim::{Body, Event, Msg, Node, Sim, Timer, Trigger};

/// The wire name of a message's type.
pub fn body_type(body: &Body) -> &'static str {
    crate::sim::msg::kind_of(body)
}

/// Record ids as a JSON array of their names.
pub(crate) fn ids_value(sim: &Sim, ids: impl Iterator<Item = RecordId>) -> Value {
    Value::Array(ids.map(|r| Value::String(sim.record_name(r))).collect())
}

fn new(kind: &'static str) -> EventRecord {
    EventRecord { kind, ..Default::default() }
}

/// The `event` of the last step (None for step 0).
pub fn event_record(sim: &Sim) -> Option<EventRecord> {
    let step = &sim.last;
    let mut r = match &step.trigger {
        Trigger::Start | Trigger::Nothing => return None,
        Trigger::Action(action) => action_record(sim, action),
        Trigger::Deliver(msg) if matches!(step.events().first(), Some(Event::ReceiverDown { .. })) => {
            EventRecord { from: Some(sim.node_name(msg.from)), to: Some(sim.node_name(msg.to)), ..new("lost") }
        }
        Trigger::Deliver(msg) => message_record(sim, msg),
        Trigger::Timer(timer) => timer_record(sim, *timer),
    };
    let epoch_response = matches!(&step.trigger, Trigger::Deliver(m) if matches!(m.body, Body::OffsetsForLeaderEpochResponse { .. }));
    for event in step.events() {
        add_event(sim, &mut r, event, epoch_response);
    }
    // An added consumer's first fetch was never listed as the step's own.
    if !matches!(&step.trigger, Trigger::Action(a) if matches!(**a, Action::AddConsumer(_))) {
        r.sent = step.sent().to_vec();
    }
    Some(r)
}

fn action_record(sim: &Sim, action: &Action) -> EventRecord {
    match action {
        Action::Produce { producer, .. } => EventRecord {
            producer: Some(sim.scenario.producers[*producer].id.clone()),
            acks: Some(sim.producers[*producer].settings.acks),
            ..new("produce")
        },
        Action::Crash { broker, unflushed, silent } => EventRecord {
            broker: Some(*broker),
            unflushed: (*unflushed > 0).then_some(*unflushed),
            silent: silent.then_some(true),
            ..new("crash")
        },
        Action::Restart { broker } => EventRecord { broker: Some(*broker), ..new("restart") },
        Action::Partition { links, channel, .. } => {
            EventRecord { links: Some(link_names(sim, links)), channel: *channel, ..new("partition") }
        }
        Action::Heal { links, channel } => EventRecord { links: Some(link_names(sim, links)), channel: *channel, ..new("heal") },
        Action::AddConsumer(_) => new("add_consumer"),
    }
}

/// The directed links a cut or heal names, as the record names their ends.
fn link_names(sim: &Sim, links: &[(Peer, Peer)]) -> Vec<(NodeName, NodeName)> {
    let name = |p: &Peer| match sim.node_of(p) {
        Some(n) => sim.node_name(n),
        None => match p {
            Peer::Consumer(id) => NodeName::Name(id.clone()),
            _ => NodeName::Name("?".into()),
        },
    };
    links.iter().map(|(a, b)| (name(a), name(b))).collect()
}

fn message_record(sim: &Sim, msg: &Msg) -> EventRecord {
    let kind = match msg.body {
        // The leader applying the controller's answer is an ISR change.
        Body::AlterPartitionResponse { .. } => "isr_change",
        // Metadata reaching a broker is one kind of event in every era: LeaderAndIsr
        // before KRaft, the answer to its metadata fetch under KRaft (on the wire it is
        // a `metadata_fetch_response`).
        Body::MetadataFetchResponse { metadata: Some(_), .. } => "leader_and_isr",
        _ => body_type(&msg.body),
    };
    let mut r = EventRecord { from: Some(sim.node_name(msg.from)), to: Some(sim.node_name(msg.to)), ..new(kind) };
    match &msg.body {
        Body::Fetch(req) => {
            r.fetch_offset = Some(req.fetch_offset);
            r.last_fetched_epoch = req.last_fetched_epoch;
        }
        Body::FetchResponse(resp) => {
            r.records = Some(Value::UInt(resp.records.len() as u64));
            r.ids = Some(resp.records.iter().filter_map(|(_, e)| e.map(|e| sim.record_name(e.id))).collect());
            r.first_offset = resp.records.first().map(|(o, _)| *o);
            r.hw = Some(resp.hw);
            r.error = resp.error.map(|e| e.name(sim.scenario.preset));
            r.diverging_epoch = resp.diverging_epoch.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset });
        }
        Body::Produce { ids, acks, .. } => {
            r.records = Some(ids_value(sim, ids.iter().copied()));
            r.acks = Some(*acks);
        }
        Body::ProduceResponse { ids, error, duplicate, .. } => {
            r.records = Some(ids_value(sim, ids.iter().copied()));
            r.error = error.map(|e| e.name(sim.scenario.preset));
            r.duplicate = duplicate.then_some(true);
        }
        Body::ConsumerFetch { offset, leader_epoch } => {
            r.offset = Some(*offset);
            r.leader_epoch = Some(*leader_epoch);
        }
        Body::ConsumerFetchResponse(resp) => {
            r.records = Some(ids_value(sim, resp.records.iter().filter_map(|(_, e)| e.map(|e| e.id))));
            r.offset = Some(resp.offset);
            r.hw = Some(resp.hw);
            r.error = resp.error.map(|e| e.name(sim.scenario.preset));
            r.preferred_read_replica = resp.preferred;
        }
        Body::AlterPartition { leader_epoch, isr, .. } => {
            r.isr = Some(crate::sim::isr_list::sorted(isr));
            r.leader_epoch = Some(*leader_epoch);
        }
        Body::AlterPartitionResponse { isr, error, .. } => {
            r.isr = Some(crate::sim::isr_list::sorted(isr));
            r.error = error.map(|e| e.name());
        }
        Body::LeaderAndIsr(meta) | Body::MetadataFetchResponse { metadata: Some(meta), .. } => {
            r.leader = Some(meta.leader);
            r.leader_epoch = Some(meta.leader_epoch);
            r.isr = Some(crate::sim::isr_list::sorted(&meta.isr));
        }
        Body::MetadataFetchResponse { metadata: None, .. } => {}
        Body::MetadataFetch { offset } => r.fetch_offset = Some(*offset),
        Body::OffsetsForLeaderEpoch { epoch, .. } => r.epoch = Some(*epoch),
        Body::OffsetsForLeaderEpochResponse { requested, answer, error, .. } => {
            r.epoch = Some(*requested);
            r.end_offset = answer.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset });
            r.error = error.map(|e| e.name(sim.scenario.preset));
        }
        Body::BrokerRegistration { incarnation } => r.incarnation = Some(*incarnation),
        Body::BrokerRegistrationResponse { broker_epoch, .. } => {
            r.broker_epoch = *broker_epoch;
            r.error = broker_epoch.is_none().then_some("DUPLICATE_BROKER_REGISTRATION");
        }
        Body::BrokerHeartbeat { broker_epoch, .. } => r.broker_epoch = Some(*broker_epoch),
        Body::BrokerHeartbeatResponse { fenced, error, .. } => {
            r.fenced = Some(*fenced);
            r.error = error.map(|e| e.name(sim.scenario.preset));
        }
        Body::MetadataRequest | Body::Reset { .. } => {}
        Body::ZkPing { .. } | Body::ZkRegister { .. } | Body::ZkRegistered | Body::ZkNodeExists | Body::ZkSessionExpired => {}
        Body::ZkWatch { broker, .. } => r.broker = Some(*broker),
        Body::MetadataResponse { leader, leader_epoch, .. } => {
            r.leader = Some(*leader);
            r.leader_epoch = Some(*leader_epoch);
        }
    }
    r
}

fn timer_record(sim: &Sim, timer: Timer) -> EventRecord {
    let consumer = |c: usize| Some(sim.consumers[c].spec.id.clone());
    let (broker, timer_name) = match timer {
        Timer::FetchExpiry { leader, follower } => {
            return EventRecord {
                broker: Some(leader),
                timer: Some("fetch-expiry"),
                to: Some(NodeName::Broker(follower)),
                ..new("timeout")
            };
        }
        Timer::ConsumerFetchExpiry { broker, consumer: c } => {
            return EventRecord { broker: Some(broker), consumer: consumer(c), timer: Some("consumer-fetch-expiry"), ..new("timeout") };
        }
        Timer::ProduceRequestTimeout { producer, .. } => {
            let producer = Some(sim.scenario.producers[producer].id.clone());
            return EventRecord { producer, timer: Some("produce-request-timeout"), ..new("timeout") };
        }
        Timer::ConsumerRequestTimeout { consumer: c } => {
            return EventRecord { consumer: consumer(c), timer: Some("consumer-request-timeout"), ..new("timeout") };
        }
        // ZooKeeper's session timer: a `timeout` at ZooKeeper, not an ISR change.
        Timer::FenceCheck if sim.zookeeper() => return EventRecord { timer: Some("zookeeper-session"), ..new("timeout") },
        Timer::FenceCheck => return EventRecord { timer: Some("fence-check"), ..new("isr_change") },
        Timer::ProducerWake { producer } => {
            let producer = Some(sim.scenario.producers[producer].id.clone());
            return EventRecord { producer, timer: Some("producer-wake"), ..new("timeout") };
        }
        Timer::AccumulatorExpiry { producer } => {
            let producer = Some(sim.scenario.producers[producer].id.clone());
            return EventRecord { producer, timer: Some("accumulator-expiry"), ..new("timeout") };
        }
        Timer::MetadataTimeout { client } => {
            let name = match sim.node_name(client) {
                NodeName::Name(n) => n,
                NodeName::Broker(b) => b.to_string(),
            };
            let (producer, consumer) = if matches!(client, Node::Producer(_)) { (Some(name), None) } else { (None, Some(name)) };
            return EventRecord { producer, consumer, timer: Some("metadata-timeout"), ..new("timeout") };
        }
        Timer::Heartbeat { broker } => return EventRecord { broker: Some(broker), timer: Some("heartbeat"), ..new("timeout") },
        Timer::ConnectionSetupTimeout { client, broker } => {
            let to = Some(NodeName::Broker(broker));
            let timer = Some("connection-setup-timeout");
            return match (client, sim.node_name(client)) {
                (Node::Broker(b), _) => EventRecord { broker: Some(b), to, timer, ..new("timeout") },
                (Node::Producer(_), NodeName::Name(n)) => EventRecord { producer: Some(n), to, timer, ..new("timeout") },
                (_, NodeName::Name(n)) => EventRecord { consumer: Some(n), to, timer, ..new("timeout") },
                (_, NodeName::Broker(b)) => EventRecord { broker: Some(b), to, timer, ..new("timeout") },
            };
        }
        Timer::AlterPartitionRetry { leader } => (leader, "alter-partition-retry"),
        Timer::MetadataFetch { broker } => (broker, "metadata-fetch"),
        Timer::MetadataFetchExpiry { broker } => (broker, "metadata-fetch-expiry"),
        Timer::HeartbeatTimeout { broker } => (broker, "heartbeat-timeout"),
        Timer::ProduceExpiry { leader, .. } => (leader, "produce-expiry"),
        Timer::IsrExpiration { leader } => (leader, "isr-expiration"),
        Timer::FetcherRetry { follower } => (follower, "fetcher-retry"),
        Timer::FetchRequestTimeout { follower } => (follower, "fetch-request-timeout"),
    };
    EventRecord { broker: Some(broker), timer: Some(timer_name), ..new("timeout") }
}

/// What one typed event adds to the record.
fn add_event(sim: &Sim, r: &mut EventRecord, event: &Event, epoch_response: bool) {
    match *event {
        Event::Produced { producer, first_n, count } => {
            let ids = (0..count).map(|i| RecordId { producer: producer as u16, n: first_n + i });
            r.records = Some(ids_value(sim, ids));
        }
        Event::ProduceSent { broker, retry, .. } => {
            if r.to.is_none() {
                r.to = Some(NodeName::Broker(broker));
            }
            if retry {
                r.retry = Some(true);
            }
        }
        Event::ProducerAwaitsLeader { .. } if r.kind == "produce" => r.outcome = Some("no-leader-known"),
        Event::ProduceWillRetry { error, attempts, backoff, .. } => {
            r.outcome = Some("retry");
            r.error = Some(error.name(sim.scenario.preset));
            r.attempts = Some(attempts);
            r.backoff_ms = Some(backoff);
        }
        Event::ProduceFailed { error, .. } => {
            r.outcome = Some("failed");
            r.error = Some(error.name(sim.scenario.preset));
        }
        Event::ProduceAcked { duplicate, .. } => r.duplicate = duplicate.then_some(true),
        Event::DuplicateBatch { .. } => {
            r.outcome = Some("duplicate");
            r.duplicate = Some(true);
        }
        Event::Crashed { silent, .. } if silent => r.silent = Some(true),
        Event::Restarted { incarnation, .. } => r.incarnation = Some(incarnation),
        Event::RegistrationRefused { .. } => {
            r.outcome = Some("refused");
            r.error = Some("DUPLICATE_BROKER_REGISTRATION");
        }
        // Before 2.2 the controller misses a bounce (KIP-380): nothing else happens in the step.
        Event::ZkBrokerBounced { incarnation, seen: false, .. } => {
            r.outcome = Some("bounce-missed");
            r.incarnation = Some(incarnation);
        }
        Event::BrokerRegistered { incarnation, .. } if sim.zookeeper() => {
            r.outcome = Some("broker-startup");
            r.incarnation = Some(incarnation);
        }
        Event::BrokerRegistered { broker_epoch, incarnation, .. } => {
            r.outcome = Some("registered");
            r.broker_epoch = Some(broker_epoch);
            r.incarnation = Some(incarnation);
        }
        Event::ZkSessionExpired { broker, .. } => {
            r.broker = Some(broker);
            r.outcome = Some("expired");
        }
        Event::ZkSessionCreated { incarnation, .. } => {
            r.outcome = Some("registered");
            r.incarnation = Some(incarnation);
        }
        Event::ZkPingOfExpiredSession { .. } => r.outcome = Some("session-expired"),
        Event::ZkNodeExists { incarnation, .. } => {
            r.outcome = Some("node-exists");
            r.incarnation = Some(incarnation);
        }
        Event::StartupFailed { incarnation, .. } => {
            r.outcome = Some("startup-failed");
            r.incarnation = Some(incarnation);
        }
        Event::HeartbeatReceived { unfence: true, .. } => r.outcome = Some("unfenced"),
        Event::HeartbeatAnswered { running: true, .. } => r.outcome = Some("running"),
        Event::RegistrationAccepted { broker_epoch, .. } => {
            r.outcome = Some("registered");
            r.broker_epoch = Some(broker_epoch);
        }
        Event::RegistrationRetries { .. } => r.outcome = Some("refused"),
        Event::ConnectionReset { .. } | Event::FollowerConnectionReset { .. } => r.outcome = Some("reset"),
        Event::MetadataUpdated { changed, stale, .. } => {
            r.outcome = Some(if changed {
                "updated"
            } else if stale {
                "stale"
            } else {
                "unchanged"
            })
        }
        Event::ConsumerTruncationDetected { .. } => r.outcome = Some("truncation-detected"),
        Event::ConsumerValidated { .. } => r.outcome = Some("validated"),
        Event::ConsumerAdded { consumer } => {
            let spec = &sim.consumers[consumer].spec;
            r.consumer = Some(spec.id.clone());
            r.broker = spec.fetch_from;
        }
        Event::FetchRejected { error, .. } | Event::ProduceRefused { error, .. } => {
            r.outcome = Some("error");
            r.error = Some(error.name(sim.scenario.preset));
        }
        Event::DivergingAnswered { epoch, end_offset, .. } => {
            r.outcome = Some("diverging");
            r.diverging_epoch = Some(EpochEnd { epoch, end_offset });
        }
        Event::FetchAnswered { hw_before, hw, .. } => {
            r.hw_before = Some(hw_before);
            r.hw_after = Some(hw);
            r.outcome = Some("answered");
        }
        Event::FetchParked { hw_before, hw, .. } => {
            r.hw_before = Some(hw_before);
            r.hw_after = Some(hw);
            r.outcome = Some("parked");
        }
        Event::ParkedFetchExpired { fetch_offset, hw, .. } => {
            r.fetch_offset = Some(fetch_offset);
            r.hw = Some(hw);
        }
        Event::LeaderHwMoved { from, to, cause: HwCause::Produce | HwCause::IsrChange, .. } => {
            r.hw_before = Some(from);
            r.hw_after = Some(to);
        }
        Event::Appended { first_offset, leo, .. } => {
            r.outcome = Some("appended");
            r.first_offset = Some(first_offset);
            r.leo_after = Some(leo);
        }
        Event::IsrShrunk { before, after, request, .. } => {
            r.isr_before = Some(before.set().to_vec());
            r.isr = Some(after.set().to_vec());
            match request {
                None => r.kind = "isr_change",
                Some(_) => r.outcome = Some("shrink-proposed"),
            }
        }
        Event::AlterPartitionAnswered { error, .. } => {
            r.outcome = Some(if error.is_some() { "rejected" } else { "committed" });
            r.error = error.map(|e| e.name());
        }
        Event::IsrChangeRefused { error, .. } => r.outcome = Some(if error.reverts() { "reverted" } else { "pending" }),
        Event::IsrApplied { before, .. } => r.isr_before = Some(before.set().to_vec()),
        Event::SessionExpired { broker, isr_before, .. } => {
            r.broker = Some(broker);
            // ZooKeeper era: `KafkaController.onBrokerFailure`, no fencing.
            r.outcome = Some(if sim.zookeeper() { "broker-failure" } else { "fenced" });
            r.isr_before = Some(isr_before.to_vec());
        }
        Event::PreviousIncarnationRemoved { isr_before, .. } => r.isr_before = Some(isr_before.to_vec()),
        Event::ControllerIsrShrunk { after, .. } => r.isr = Some(after.to_vec()),
        Event::LeaderElected { leader, epoch, isr, clean, from, .. } => {
            r.kind = "leader_election";
            r.leader = Some(Some(leader));
            r.leader_epoch = Some(epoch);
            r.isr = Some(isr.to_vec());
            r.clean = Some(clean);
            r.elected_from = match from {
                ElectedFrom::Elr => Some("elr"),
                ElectedFrom::LastKnownLeader => Some("last-known-leader"),
                ElectedFrom::Isr | ElectedFrom::Unclean => None,
            };
        }
        Event::LeaderEpochBumped { epoch, .. } => r.leader_epoch = Some(epoch),
        Event::Halted { .. } => r.outcome = Some("halted"),
        Event::PartitionOffline { epoch, .. } => {
            r.kind = "leader_election";
            r.leader = Some(None);
            r.leader_epoch = Some(epoch);
        }
        Event::FollowerAppended { hw_before, hw, leo, .. } => {
            r.hw_before = Some(hw_before);
            r.hw_after = Some(hw);
            r.leo_after = Some(leo);
            r.outcome = Some("appended");
        }
        Event::Truncated { leo_before, to, rule, .. } => {
            r.leo_before = Some(leo_before);
            r.truncate_to = Some(to);
            r.rule = Some(rule.name());
            if epoch_response {
                r.kind = "truncate";
            }
        }
        Event::EpochEndAnswered { answer, .. } => r.end_offset = answer.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset }),
        Event::ConsumerFetchAnswered { error, .. } if r.outcome.is_none() => {
            r.outcome = Some(if error.is_some() { "error" } else { "answered" })
        }
        Event::ConsumerFetchParked { .. } => r.outcome = Some("parked"),
        Event::MetadataStale { .. } => r.outcome = Some("stale"),
        Event::LeaderIsrUpdated { .. } => r.outcome = Some("isr-update"),
        Event::BecameLeader { .. } => r.outcome = Some("become-leader"),
        Event::NothingChanges { .. } => r.outcome = Some("no-change"),
        Event::BecameFollower { .. } => r.outcome = Some("become-follower"),
        Event::LeadsBeforeRegistration { .. } => r.outcome = Some("leads-unregistered"),
        Event::FetchFailed { .. } => r.outcome = Some("error"),
        Event::AlterPartitionIgnored { .. }
        | Event::AlterPartitionAnswerStale { .. }
        | Event::LeaderStateNewer { .. }
        | Event::RegistrationResponseIgnored { .. }
        | Event::HeartbeatResponseIgnored { .. }
        | Event::MetadataResponseIgnored { .. }
        | Event::ResetIgnored { .. }
        | Event::FetchResponseIgnored { .. }
        | Event::StaleFetchResponse { .. }
        | Event::EpochEndIgnored { .. }
        | Event::ConsumerResponseIgnored { .. } => r.outcome = Some("ignored"),
        _ => {}
    }
}

impl Sim {
    /// A participant as the record names it.
    pub fn node_name(&self, node: Node) -> NodeName {
        match node {
            Node::Broker(b) => NodeName::Broker(b),
            Node::Producer(p) => NodeName::Name(self.scenario.producers.get(p).map_or_else(|| "?".into(), |s| s.id.clone())),
            Node::Consumer(c) => NodeName::Name(self.consumers.get(c).map_or_else(|| "?".into(), |s| s.spec.id.clone())),
            Node::Controller => NodeName::Name("controller".into()),
            Node::ZooKeeper => NodeName::Name("zookeeper".into()),
        }
    }
}
