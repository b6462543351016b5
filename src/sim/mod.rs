//! The engine: one partition, its replicas, a controller and the clients, as a
//! deterministic discrete-event simulation. `Sim::step` takes the next event
//! from the scheduler, hands it to the role that owns it, and records what
//! happened in words (`text`) and as data (`event`).

pub mod consumer;
pub mod controller;
pub mod follower;
pub mod leader;
pub mod log;
pub mod network;
pub mod producer;
pub mod pvec;
pub mod scheduler;
pub mod vecmap;

use crate::invariants::Invariants;
use crate::record::EventRecord;
use crate::scenario::{Action, Behavior, Scenario};
use crate::sim::vecmap::{VecMap, VecSet};
use log::{Entry, Log, RecordId};
use network::Network;
use scheduler::{Key, Rng, Scheduler, PROTOCOL, SCENARIO};
use std::rc::Rc;

/// Kafka error codes that the model produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KafkaError {
    NotLeaderOrFollower,
    FencedLeaderEpoch,
    UnknownLeaderEpoch,
    OffsetOutOfRange,
    NotEnoughReplicas,
    NotEnoughReplicasAfterAppend,
    RequestTimedOut,
}

impl KafkaError {
    pub fn name(self) -> &'static str {
        match self {
            KafkaError::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            KafkaError::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            KafkaError::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            KafkaError::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
            KafkaError::NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
            KafkaError::NotEnoughReplicasAfterAppend => "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
            KafkaError::RequestTimedOut => "REQUEST_TIMED_OUT",
        }
    }
}

/// A participant that sends and receives messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Node {
    Broker(u32),
    Producer(usize),
    Consumer(usize),
    Controller,
}

/// Who sent a message to whom, and when: what a handler needs besides the body.
#[derive(Debug, Clone, Copy)]
pub struct MsgHead {
    pub id: u64,
    pub from: Node,
    pub to: Node,
    pub sent_ms: u64,
    pub arrive_ms: u64,
}

/// A request or response on the wire.
#[derive(Debug, Clone)]
pub struct Msg {
    pub id: u64,
    pub from: Node,
    pub to: Node,
    pub sent_ms: u64,
    pub arrive_ms: u64,
    pub body: Body,
}

#[derive(Debug, Clone)]
pub enum Body {
    Fetch(FetchRequest),
    FetchResponse(FetchResponse),
    Produce { ids: Vec<RecordId>, acks: crate::scenario::Acks },
    ProduceResponse { request: u64, ids: Vec<RecordId>, error: Option<KafkaError> },
    ConsumerFetch { offset: u64 },
    ConsumerFetchResponse(ConsumerFetchResponse),
    AlterPartition { leader_epoch: i32, partition_epoch: u32, isr: Vec<u32> },
    AlterPartitionResponse { leader_epoch: i32, partition_epoch: u32, isr: Vec<u32>, error: Option<&'static str> },
    LeaderAndIsr(Metadata),
    OffsetsForLeaderEpoch { epoch: i32, current_leader_epoch: i32 },
    OffsetsForLeaderEpochResponse { request: u64, requested: i32, answer: Option<(i32, u64)>, error: Option<KafkaError> },
}

#[derive(Debug, Clone, Copy)]
pub struct FetchRequest {
    pub replica: u32,
    pub fetch_offset: u64,
    pub last_fetched_epoch: Option<i32>,
    pub current_leader_epoch: i32,
    pub log_start_offset: u64,
}

#[derive(Debug, Clone)]
pub struct FetchResponse {
    pub request: u64,
    pub fetch_offset: u64,
    pub records: Vec<(u64, Option<Entry>)>,
    pub hw: u64,
    pub log_start_offset: u64,
    /// The leader's LEO, standing in for the ListOffsets round trip after OFFSET_OUT_OF_RANGE.
    pub leader_leo: u64,
    pub error: Option<KafkaError>,
    pub diverging_epoch: Option<(i32, u64)>,
}

/// A broker's answer to a consumer's fetch.
#[derive(Debug, Clone)]
pub struct ConsumerFetchResponse {
    pub request: u64,
    pub offset: u64,
    pub records: Vec<(u64, Option<Entry>)>,
    pub hw: u64,
    pub error: Option<KafkaError>,
    /// KIP-392: the leader names the replica to read from instead.
    pub preferred: Option<u32>,
}

/// What the controller tells a broker about the partition (LeaderAndIsr / metadata).
#[derive(Debug, Clone)]
pub struct Metadata {
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub isr: Vec<u32>,
    pub partition_epoch: u32,
    pub fenced: Vec<u32>,
}

/// Scheduled work: a scenario event, a message arriving, or a timer.
#[derive(Debug, Clone)]
pub enum Due {
    /// The scenario's event `index`, its `rep`-th occurrence (repeats are scheduled one at a time).
    Scenario {
        action: Action,
        index: u32,
        rep: u32,
    },
    /// An intervention applied through `Run::apply`.
    Intervention(Action),
    Deliver(u64),
    Timer(Timer),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// A follower's parked Fetch reaches replica.fetch.wait.max.ms.
    FetchExpiry {
        leader: u32,
        follower: u32,
    },
    /// A consumer's parked fetch reaches fetch.max.wait.ms.
    ConsumerFetchExpiry {
        broker: u32,
        consumer: usize,
    },
    /// An acks=all produce waits longer than its request timeout.
    ProduceExpiry {
        leader: u32,
        request: u64,
    },
    /// The leader's periodic `maybeShrinkIsr`, every replica.lag.time.max.ms / 2.
    IsrExpiration {
        leader: u32,
    },
    /// A follower's next Fetch after an idle poll (textbook) or an error backoff.
    FetcherRetry {
        follower: u32,
    },
    /// A follower's Fetch went unanswered for replica.socket.timeout.ms.
    FetchRequestTimeout {
        follower: u32,
    },
    /// A client request went unanswered for request.timeout.ms.
    ProduceRequestTimeout {
        producer: usize,
        request: u64,
    },
    ConsumerRequestTimeout {
        consumer: usize,
    },
    /// The controller stops hearing a broker's heartbeats for broker.session.timeout.ms.
    SessionExpiry {
        broker: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Leader,
    Follower,
}

/// The leader's record of one follower (`Replica.ReplicaState`).
#[derive(Debug, Clone, Copy)]
pub struct FollowerView {
    /// The fetch offset of its last Fetch; None until it fetches after an election.
    pub leo: Option<u64>,
    pub log_start_offset: u64,
    pub last_fetch_leader_leo: u64,
    pub last_fetch_ms: Option<u64>,
    /// None: never caught up in this leader's term (Kafka's 0, "long ago").
    pub last_caught_up_ms: Option<u64>,
    pub last_sent_hw: u64,
}

#[derive(Debug, Clone)]
pub enum PendingIsr {
    Expand(u32),
    Shrink(Vec<u32>),
}

#[derive(Debug, Clone)]
pub struct ParkedFetch {
    pub follower: u32,
    pub request: u64,
    pub req: FetchRequest,
    pub expire_ms: u64,
    pub timer: Key,
}

#[derive(Debug, Clone)]
pub struct DelayedProduce {
    pub producer: usize,
    pub request: u64,
    pub ids: Vec<RecordId>,
    pub required_offset: u64,
    pub expire_ms: u64,
    pub timer: Key,
}

#[derive(Debug, Clone)]
pub struct ParkedConsumerFetch {
    pub consumer: usize,
    pub request: u64,
    pub offset: u64,
    pub expire_ms: u64,
    pub timer: Key,
}

/// What a broker holds while it leads the partition (`Partition` on the leader).
#[derive(Debug, Clone)]
pub struct LeaderState {
    pub epoch_start_offset: u64,
    /// The committed ISR.
    pub isr: Vec<u32>,
    pub pending: Option<PendingIsr>,
    pub partition_epoch: u32,
    pub followers: VecMap<u32, FollowerView>,
    /// Brokers the leader has learned are fenced (not ISR-eligible).
    pub fenced: VecSet<u32>,
    pub parked_fetches: Vec<ParkedFetch>,
    pub delayed_produces: Vec<DelayedProduce>,
    pub isr_timer: Option<Key>,
}

impl LeaderState {
    /// Whether `id` is in the maximal ISR (without building it).
    pub fn in_maximal_isr(&self, id: u32) -> bool {
        self.isr.contains(&id) || matches!(self.pending, Some(PendingIsr::Expand(e)) if e == id)
    }

    /// The ISR the HW must respect while a change is in flight (`maximalIsr`).
    pub fn maximal_isr(&self) -> Vec<u32> {
        let mut isr = self.isr.clone();
        if let Some(PendingIsr::Expand(id)) = self.pending {
            if !isr.contains(&id) {
                isr.push(id);
                isr.sort_unstable();
            }
        }
        isr
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetcherState {
    /// Not following anyone (a leader, a crashed broker, or no leader known).
    Idle,
    /// A Fetch is in flight.
    Fetching { request: u64, timeout: Key },
    /// Waiting to send the next Fetch (idle poll or backoff).
    Waiting { timer: Key },
    /// An OffsetsForLeaderEpoch request is in flight (0.11–2.7).
    Truncating { request: u64, timeout: Key },
}

#[derive(Debug, Clone)]
pub struct Broker {
    pub id: u32,
    pub alive: bool,
    pub log: Log,
    pub hw: u64,
    /// The leader epoch in which this replica's HW was last set (for the follower-HW invariant).
    pub hw_epoch: i32,
    pub leader_epoch: i32,
    pub leader: Option<u32>,
    pub role: Role,
    pub lead: Option<LeaderState>,
    pub fetcher: FetcherState,
    /// Set after becoming a follower under epoch truncation until the first round completes.
    pub needs_truncation: bool,
    pub parked_consumers: Vec<ParkedConsumerFetch>,
}

#[derive(Debug, Clone)]
pub struct Controller {
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub isr: Vec<u32>,
    pub partition_epoch: u32,
    pub fenced: VecSet<u32>,
    pub session_timers: VecMap<u32, Key>,
    /// Each broker's heartbeat phase in 0..interval, drawn from the seed.
    pub heartbeat_phase: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct Producer {
    pub next_n: u32,
    pub acked: pvec::PVec<RecordId>,
    pub failed: pvec::PVec<RecordId>,
    pub pending: Vec<RecordId>,
    /// Requests in flight or awaiting an answer: request id → (records, timeout timer).
    pub requests: VecMap<u64, (Vec<RecordId>, Key)>,
}

#[derive(Debug, Clone)]
pub struct Consumer {
    pub spec: crate::scenario::ConsumerSpec,
    pub position: u64,
    pub records_read: u64,
    pub read: pvec::PVec<(u64, RecordId)>,
    /// The broker its fetch in flight went to, the request id and its timeout.
    pub in_flight: Option<(u32, u64, Key)>,
    /// After OFFSET_OUT_OF_RANGE from a follower, fetch from the leader until it redirects.
    pub use_leader: bool,
}

/// The whole simulated world. Cloning it is a checkpoint.
#[derive(Debug, Clone)]
pub struct Sim {
    pub scenario: Rc<Scenario>,
    pub behavior: Behavior,
    pub now: u64,
    pub step: u64,
    pub sched: Scheduler<Due>,
    pub rng: Rng,
    pub net: Network,
    pub next_msg: u64,
    pub in_flight: VecMap<u64, (Msg, Key)>,
    pub brokers: Vec<Broker>,
    pub controller: Controller,
    pub producers: Vec<Producer>,
    pub consumers: Vec<Consumer>,
    pub invariants: Invariants,
    /// What the last step did, as data and as a sentence.
    pub event: Option<EventRecord>,
    pub text: String,
    pub done: bool,
    /// Whether handlers write the narration and the event's lists. Off while
    /// replaying to a seek target or benchmarking; the state is the same either way.
    pub narrate: bool,
}

impl Sim {
    /// Builds the world at time 0 (step 0): broker 0 leads in epoch 0, every
    /// replica in the ISR with LEO = HW = initial.log_end_offset.
    pub fn new(scenario: Scenario) -> Sim {
        let behavior = scenario.behavior();
        let scenario = Rc::new(scenario);
        let mut rng = Rng::new(scenario.seed);
        let n = scenario.replicas;
        let leo = scenario.initial.log_end_offset;
        let all: Vec<u32> = (0..n).collect();
        let interval = scenario.config.broker_heartbeat_interval_ms;
        let heartbeat_phase = (0..n).map(|_| rng.upto(interval - 1)).collect();
        let brokers = all
            .iter()
            .map(|&id| Broker {
                id,
                alive: true,
                log: Log::new(leo),
                hw: leo,
                hw_epoch: 0,
                leader_epoch: 0,
                leader: Some(0),
                role: if id == 0 { Role::Leader } else { Role::Follower },
                lead: None,
                fetcher: FetcherState::Idle,
                needs_truncation: false,
                parked_consumers: Vec::new(),
            })
            .collect();
        let producers = scenario
            .producers
            .iter()
            .map(|_| Producer {
                next_n: 1,
                acked: pvec::PVec::new(),
                failed: pvec::PVec::new(),
                pending: Vec::new(),
                requests: VecMap::new(),
            })
            .collect();
        let mut sim = Sim {
            behavior,
            now: 0,
            step: 0,
            sched: Scheduler::new(),
            rng,
            net: Network::new(&scenario),
            next_msg: 1,
            in_flight: VecMap::new(),
            brokers,
            controller: Controller {
                leader: Some(0),
                leader_epoch: 0,
                isr: all.clone(),
                partition_epoch: 0,
                fenced: VecSet::new(),
                session_timers: VecMap::new(),
                heartbeat_phase,
            },
            producers,
            consumers: Vec::new(),
            invariants: Invariants::default(),
            event: None,
            text: String::new(),
            done: false,
            narrate: true,
            scenario: scenario.clone(),
        };
        for (i, e) in scenario.events.iter().enumerate().filter(|(_, e)| e.at_step.is_none()) {
            // Validated already; an action that fails here is skipped, never a panic.
            if let Ok(action) = scenario.action(&format!("events[{i}]"), e) {
                sim.sched.insert((e.at_ms as u64, SCENARIO, i as u64), Due::Scenario { action, index: i as u32, rep: 0 });
            }
        }
        // The leader starts leading, with every follower known to be caught up.
        sim.become_leader_at_start();
        for id in 1..n {
            sim.start_fetching(id);
        }
        for spec in scenario.consumers.clone() {
            sim.add_consumer(spec);
        }
        sim.text = sim.describe_start();
        sim
    }

    #[inline]
    pub fn broker(&self, id: u32) -> &Broker {
        &self.brokers[id as usize]
    }

    #[inline]
    pub fn broker_mut(&mut self, id: u32) -> &mut Broker {
        &mut self.brokers[id as usize]
    }

    /// The broker currently leading, as the brokers themselves believe it:
    /// alive and holding leader state.
    pub fn acting_leader(&self) -> Option<u32> {
        let id = self.controller.leader?;
        let b = self.broker(id);
        (b.alive && b.lead.is_some()).then_some(id)
    }

    /// Runs one event. Returns false when the run is over.
    pub fn step(&mut self) -> bool {
        match self.next_due() {
            Some(key) => {
                self.run(key);
                true
            }
            None => {
                self.done = true;
                false
            }
        }
    }

    /// The next event to run under the default order, if any is due by `stop_at_ms`.
    fn next_due(&self) -> Option<Key> {
        let key = self.sched.next_key()?;
        (key.0 <= self.scenario.stop_at_ms).then_some(key)
    }

    /// Every event due at the earliest instant: the choices an explorer may make.
    pub fn choices(&self) -> Vec<Key> {
        match self.next_due() {
            Some(_) => self.sched.due_now(),
            None => Vec::new(),
        }
    }

    /// Runs the chosen event (one of `choices()`).
    pub fn step_choice(&mut self, key: Key) -> bool {
        if !self.choices().contains(&key) {
            return false;
        }
        self.run(key);
        true
    }

    fn run(&mut self, key: Key) {
        let Some(due) = self.sched.take(key) else {
            return;
        };
        self.now = key.0;
        self.step += 1;
        self.event = None;
        self.text.clear();
        self.invariants.begin_step();
        match due {
            Due::Scenario { action, index, rep } => {
                // The next repetition, if any, keeps the event's place among scenario events.
                if let Some(r) = self.scenario.events.get(index as usize).and_then(|e| e.repeat) {
                    if rep + 1 < r.count {
                        let at = self.now + r.every_ms;
                        self.sched.insert((at, SCENARIO, index as u64), Due::Scenario { action: action.clone(), index, rep: rep + 1 });
                    }
                }
                self.perform(action)
            }
            Due::Intervention(action) => self.perform(action),
            Due::Deliver(id) => {
                if let Some((msg, _)) = self.in_flight.remove(&id) {
                    self.deliver(msg);
                }
            }
            Due::Timer(t) => self.fire(t),
        }
        crate::invariants::check(self);
    }

    /// Applies an intervention now, as the next step (the future is recomputed from here).
    pub fn apply_now(&mut self, action: Action) {
        // Interventions sort after the scenario's own events (whose sequence is their index).
        let key = (self.now, SCENARIO, u64::MAX - self.step);
        self.sched.insert(key, Due::Intervention(action));
        self.run(key);
    }

    fn perform(&mut self, action: Action) {
        match action {
            Action::Produce { producer, records } => self.produce(producer, records),
            Action::Crash { broker, unflushed } => self.crash(broker, unflushed),
            Action::Restart { broker } => self.restart(broker),
            Action::Partition { links } => self.cut(links),
            Action::Heal { links } => self.heal(links),
            Action::AddConsumer(spec) => {
                let name = spec.id.clone();
                if self.consumers.iter().any(|c| c.spec.id == name) {
                    self.text = say!(self, "A consumer named {name} already exists; nothing added.");
                    self.event = Some(EventRecord::new("add_consumer"));
                    return;
                }
                self.add_consumer(*spec);
                let c = self.consumers.len() - 1;
                let from = self.consumers[c].spec.fetch_from;
                self.event = Some(EventRecord { consumer: Some(name.clone()), broker: from, ..EventRecord::new("add_consumer") });
                self.text = match from {
                    Some(b) => say!(
                        self,
                        "Consumer {name} joins, reading from broker {b} (KIP-392 follower fetching) from offset {}.",
                        self.consumers[c].position
                    ),
                    None => say!(self, "Consumer {name} joins, reading from the leader from offset {}.", self.consumers[c].position),
                };
            }
        }
    }

    fn deliver(&mut self, full: Msg) {
        let msg = MsgHead { id: full.id, from: full.from, to: full.to, sent_ms: full.sent_ms, arrive_ms: full.arrive_ms };
        let msg = &msg;
        match msg.to {
            Node::Broker(b) if !self.broker(b).alive => {
                // Only reachable if a message was scheduled to a broker that died in the same instant.
                self.event = Some(EventRecord::message("lost", msg, self));
                self.text = say!(self, "A message to broker {b} arrives, but broker {b} is down.");
            }
            _ => match full.body {
                Body::Fetch(req) => self.handle_fetch_request(msg, req),
                Body::FetchResponse(resp) => self.handle_fetch_response(msg, resp),
                Body::Produce { ids, acks } => self.handle_produce_request(msg, ids, acks),
                Body::ProduceResponse { request, ids, error } => self.handle_produce_response(msg, request, ids, error),
                Body::ConsumerFetch { offset } => self.handle_consumer_fetch(msg, offset),
                Body::ConsumerFetchResponse(resp) => self.handle_consumer_fetch_response(msg, resp),
                Body::AlterPartition { leader_epoch, partition_epoch, isr } => {
                    self.handle_alter_partition(msg, leader_epoch, partition_epoch, isr)
                }
                Body::AlterPartitionResponse { leader_epoch, partition_epoch, isr, error } => {
                    self.handle_alter_partition_response(msg, leader_epoch, partition_epoch, isr, error)
                }
                Body::LeaderAndIsr(meta) => self.handle_leader_and_isr(msg, meta),
                Body::OffsetsForLeaderEpoch { epoch, current_leader_epoch } => {
                    self.handle_offsets_for_leader_epoch(msg, epoch, current_leader_epoch)
                }
                Body::OffsetsForLeaderEpochResponse { request, requested, answer, error } => {
                    self.handle_offsets_for_leader_epoch_response(msg, request, requested, answer, error)
                }
            },
        }
    }

    fn fire(&mut self, timer: Timer) {
        match timer {
            Timer::FetchExpiry { leader, follower } => self.expire_parked_fetch(leader, follower),
            Timer::ConsumerFetchExpiry { broker, consumer } => self.expire_consumer_fetch(broker, consumer),
            Timer::ProduceExpiry { leader, request } => self.expire_delayed_produce(leader, request),
            Timer::IsrExpiration { leader } => self.maybe_shrink_isr(leader),
            Timer::FetcherRetry { follower } => self.fetcher_retry(follower),
            Timer::FetchRequestTimeout { follower } => self.fetch_request_timeout(follower),
            Timer::ProduceRequestTimeout { producer, request } => self.produce_request_timeout(producer, request),
            Timer::ConsumerRequestTimeout { consumer } => self.consumer_request_timeout(consumer),
            Timer::SessionExpiry { broker } => self.session_expired(broker),
        }
    }

    /// Schedules a timer; its key cancels it.
    pub fn set_timer(&mut self, at_ms: u64, timer: Timer) -> Key {
        self.sched.schedule(at_ms, PROTOCOL, Due::Timer(timer))
    }

    pub fn cancel(&mut self, key: Key) {
        self.sched.cancel(key);
    }

    /// A record's name as the step record prints it: `<producer>-<n>`.
    pub fn record_name(&self, id: RecordId) -> String {
        let producer = self.scenario.producers.get(id.producer as usize).map_or("?", |p| p.id.as_str());
        format!("{producer}-{}", id.n)
    }

    fn describe_start(&self) -> String {
        let n = self.scenario.replicas;
        let leo = self.scenario.initial.log_end_offset;
        let followers = match n {
            1 => "there are no followers".to_string(),
            2 => "follower 1 fetches from it".to_string(),
            _ => say!(self, "followers {} fetch from it", join_ids(&(1..n).collect::<Vec<_>>())),
        };
        say!(
            self,
            "Broker 0 leads the partition in epoch 0; every replica is in the ISR at LEO = HW = {leo}; {followers}. Preset {}.",
            self.scenario.preset.name()
        )
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
pub fn set_str(ids: &[u32]) -> String {
    format!("{{{}}}", ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", "))
}
