//! The engine: one partition, its replicas, a controller and the clients, as a
//! deterministic discrete-event simulation.
//!
//! A step takes the next due item from the scheduler (the [`Trigger`]) and hands
//! it to the rule that owns it. The rule *decides*: it says what happened as
//! typed [`Event`]s (`emit`, which *applies* each one, in `apply_event` (`apply.rs`),
//! the one place those changes are made) and what the world must do as
//! [`Command`]s (`send`), which `apply_commands` puts into effect at the end of
//! the step; timers (`set_timer`, `cancel`) go into the queue as they are decided. Then the invariants observe the events and
//! check the state. What the step looked like ([`Step`]: trigger, events, the
//! messages sent) stays in `last` for the record and the narration, which are
//! built outside this module, and only when someone asks.
//!
//! Rules may change the state of the node they run on (its log, fetcher,
//! purgatory, its view of the followers, a client's own lists); every change
//! others read — HW, ISR, truncation, leadership, crashes — is an event.

mod apply;
mod broker;
mod client;
pub mod connect;
mod consumer;
mod consumer_fetch;
mod controller;
mod election;
mod elr;
pub mod event;
mod follower;
mod heartbeat;
pub mod invariants;
pub mod isr_list;
mod leader;
pub mod log;
mod metadata_fetch;
pub mod msg;
pub mod network;
mod nodes;
mod outbox;
mod producer;
pub mod pvec;
mod role;
pub mod scheduler;
pub mod settle;
pub mod shared;
pub mod state;
pub mod step;
mod truncation;
pub mod vecmap;
pub mod why;
pub mod zookeeper;

pub use event::Event;
pub use msg::{AlterPartitionError, Body, ConsumerFetchResponse, FetchRequest, FetchResponse, Hold, KafkaError, Metadata, Msg, Node};
pub use scheduler::{Due, Key, Timer};
pub use shared::{Part, Shared};
pub use state::{
    Batch, Broker, ClientMeta, Consumer, ConsumerFetch, Controller, DelayedProduce, FetcherState, FollowerView, Ghost, LeaderState,
    Lifecycle, MetadataFetch, ParkedConsumerFetch, ParkedFetch, PendingIsr, Producer, Registration, Role, GHOSTS,
};
pub use step::{Command, Spare, Step, Trigger};

use crate::scenario::{Action, Behavior, BrokerLiveness, Scenario, Settings};
use invariants::Invariants;
use log::{Log, RecordId};
use network::Network;
use scheduler::{Rng, Scheduler, PROTOCOL, SCENARIO};
use std::rc::Rc;
use vecmap::{VecMap, VecSet};

/// The whole simulated world. Cloning it is a checkpoint.
#[derive(Debug, Clone)]
pub struct Sim {
    pub scenario: Rc<Scenario>,
    /// Fixed for the run, like the scenario: shared by every copy of the world (`Part`).
    pub behavior: Part<Behavior>,
    /// The settings whose default depends on the preset, as in force (`Scenario::settings`).
    pub settings: Part<Settings>,
    pub now: u64,
    pub step: u64,
    pub sched: Scheduler<Due>,
    pub rng: Rng,
    pub net: Network,
    pub next_msg: u64,
    pub in_flight: VecMap<u64, (Shared<Msg>, Key)>,
    pub brokers: Vec<Shared<Broker>>,
    pub controller: Shared<Controller>,
    pub producers: Vec<Shared<Producer>>,
    pub consumers: Vec<Shared<Consumer>>,
    /// Shared like the nodes: most steps only read it.
    pub invariants: Shared<Invariants>,
    /// What the properties verified already (caches; beside the invariants so that
    /// a step that only moves them copies them alone).
    pub checked: Part<invariants::Checked>,
    /// What the last step did, and the commands decided in it (empty between steps).
    pub last: Step,
    pub done: bool,
    /// Past `stop_at_ms`, go on until settled (`after_stop: "settle"`, settle.rs).
    pub settle: bool,
    /// Since when nothing has been pending, once past the script (settle.rs).
    pub settled_since: Option<u64>,
    /// When a step last changed what a user sees (settle.rs `changes_state`).
    pub last_change_ms: u64,
}

impl Sim {
    /// Builds the world at time 0 (step 0): broker 0 leads in epoch 0, every
    /// replica in the ISR with LEO = HW = initial.log_end_offset.
    pub fn new(scenario: Scenario) -> Sim {
        let behavior = scenario.behavior();
        let settings = scenario.settings();
        let scenario = Rc::new(scenario);
        let mut rng = Rng::new(scenario.seed);
        let n = scenario.replicas;
        let leo = scenario.initial.log_end_offset;
        let all: Vec<u32> = (0..n).collect();
        let (interval, session) = controller::liveness_timing(&scenario.config, behavior.broker_liveness, settings);
        let drawn_beats: Vec<u64> = (0..n).map(|_| rng.upto(interval - 1)).collect();
        let heartbeat_phase = if scenario.phases.heartbeat_ms.is_empty() { drawn_beats } else { scenario.phases.heartbeat_ms.clone() };
        // Drawn after the heartbeat phases, which keep the values they always had.
        let drawn_check = rng.upto((session / 8).max(1) - 1);
        let check_anchor = scenario.phases.fence_check_ms.unwrap_or(drawn_check);
        let checkpoint = scenario.config.hw_checkpoint_interval_ms();
        let checkpoint_phase: Vec<u64> = (0..n).map(|_| rng.upto(checkpoint - 1)).collect();
        let registrations = Sim::initial_registrations(n, &heartbeat_phase, interval, session);
        let brokers = all
            .iter()
            .map(|&id| {
                Shared::new(Broker {
                    id,
                    alive: true,
                    silently_down: false,
                    lifecycle: Lifecycle::Running,
                    incarnation: 0,
                    broker_epoch: Some(u64::from(id)),
                    image_partition_epoch: Some(0),
                    metadata_offset: 0,
                    heartbeat_timer: None,
                    heartbeat_rpc: None,
                    heartbeat_failures: 0,
                    heartbeat_phase: heartbeat_phase[id as usize],
                    metadata_fetch: if behavior.broker_liveness == BrokerLiveness::ZookeeperSession {
                        MetadataFetch::Off
                    } else {
                        MetadataFetch::Polling { since: 0 }
                    },
                    hw_checkpoint: (0, leo),
                    hw_checkpoint_phase: checkpoint_phase[id as usize],
                    producer_state: Part::new(VecMap::new()),
                    log: Part::new(Log::new(leo)),
                    hw: leo,
                    hw_epoch: 0,
                    leader_epoch: 0,
                    leader: Some(0),
                    role: if id == 0 { Role::Leader } else { Role::Follower },
                    lead: None,
                    fetcher: FetcherState::Idle,
                    needs_truncation: false,
                    parked_consumers: Vec::new(),
                    ghosts: Vec::new(),
                    kafka_partition: (0, Some(0)),
                    epoch_query_loop: false,
                })
            })
            .collect();
        let producers = scenario
            .producers
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                Shared::new(Producer {
                    // Validated already; Kafka's defaults if a bad value slipped through.
                    settings: spec.settings(scenario.preset, &error_text!("producers[{i}]")).unwrap_or_else(|_| {
                        crate::scenario::ProducerSpec::new(&spec.id, spec.acks.unwrap_or(crate::scenario::Acks::All))
                            .settings(scenario.preset, "")
                            .unwrap_or_else(|e| panic!("defaults are valid: {e}"))
                    }),
                    next_n: 1,
                    acked: pvec::PVec::new(),
                    failed: pvec::PVec::new(),
                    pending: Vec::new(),
                    batches: Vec::new(),
                    requests: VecMap::new(),
                    meta: ClientMeta::new(),
                    epoch: 0,
                    wake: None,
                    expiry: None,
                    retries: 0,
                })
            })
            .collect();
        let mut sim = Sim {
            behavior: Part::new(behavior),
            settings: Part::new(settings),
            now: 0,
            step: 0,
            sched: Scheduler::new(),
            rng,
            net: Network::new(&scenario),
            next_msg: 1,
            in_flight: VecMap::new(),
            brokers,
            controller: Shared::new(Controller {
                leader: Some(0),
                leader_epoch: 0,
                isr: Part::new(all.clone()),
                partition_epoch: 0,
                elr: Part::new(Vec::new()),
                last_known_elr: Part::new(Vec::new()),
                fenced: Part::new(VecSet::new()),
                registrations: Part::new(registrations),
                metadata_offset: 0,
                check_anchor,
                check: None,
                zookeeper: Part::new(Vec::new()),
                parked_fetches: vec![None; n as usize],
            }),
            producers,
            consumers: Vec::new(),
            invariants: Shared::new(Invariants::default()),
            checked: Part::new(invariants::Checked::default()),
            last: Step::new(),
            done: false,
            settle: scenario.after_stop == crate::scenario::AfterStop::Settle,
            settled_since: None,
            last_change_ms: 0,
            scenario: scenario.clone(),
        };
        for (i, e) in scenario.events.iter().enumerate().filter(|(_, e)| e.at_step.is_none()) {
            // Validated already; an action that fails here is skipped, never a panic.
            if let Ok(action) = scenario.action(&error_text!("events[{i}]"), e) {
                sim.sched.insert((e.at_ms as u64, SCENARIO, i as u64), Due::Scenario { action: Rc::new(action), index: i as u32, rep: 0 });
            }
        }
        // The leader starts leading, with every follower known to be caught up.
        sim.broker_rule(0, leader::become_leader_at_start);
        for id in 1..n {
            sim.broker_rule(id, follower::start_fetching);
        }
        // ZooKeeper's sessions at the start: each broker's last ping one interval
        // before its phase, as the KRaft registrations' heartbeats.
        let sessions =
            sim.controller.registrations.iter().map(|r| zookeeper::ZkSession { incarnation: 0, deadline: r.session_deadline }).collect();
        sim.controller.zookeeper = Part::new(sessions);
        for id in 0..n {
            sim.broker_rule(id, heartbeat::schedule_heartbeat);
        }
        sim.controller_rule(controller::reschedule_fence_check);
        for spec in scenario.consumers.iter() {
            sim.add_consumer(spec.clone());
        }
        sim.apply_commands();
        // Step 0 is the start: what it set in motion is not an event of its own.
        sim.last = Step::new();
        sim
    }

    #[inline(always)]
    pub fn broker(&self, id: u32) -> &Broker {
        &self.brokers[id as usize]
    }

    #[inline(always)]
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

    /// A record's name as the step record prints it: `<producer>-<n>`.
    pub fn record_name(&self, id: RecordId) -> String {
        let producer = self.scenario.producers.get(id.producer as usize).map_or("?", |p| p.id.as_str());
        format!("{producer}-{}", id.n)
    }

    /// Why record `id`, appended again, was sent again: the error its producer's earlier
    /// try was answered with after that try was appended (NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    /// REQUEST_TIMED_OUT); `None` when the answer never came (a timeout or a reset).
    pub fn retry_cause(&self, id: RecordId) -> Option<msg::KafkaError> {
        let p = self.producers.get(id.producer as usize)?;
        let b = p.batches.iter().find(|b| b.ids.contains(&id))?;
        b.unsure.filter(|e| *e != msg::KafkaError::NetworkException)
    }

    /// Runs one event. Returns false when the run is over.
    pub fn step(&mut self) -> bool {
        self.note_settled();
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

    /// The next event to run under the default order, if any is due by `stop_at_ms`
    /// (with `after_stop: "settle"`, by the time the run settles: settle.rs).
    fn next_due(&self) -> Option<Key> {
        let key = self.sched.next_key()?;
        let end = if self.settle { self.run_on_until() } else { self.scenario.stop_at_ms };
        (key.0 <= end).then_some(key)
    }

    /// Every event due at the earliest instant: the choices an explorer may make.
    pub fn choices(&self) -> Vec<Key> {
        match self.next_due() {
            Some(_) => self.sched.due_now(),
            None => Vec::new(),
        }
    }

    /// Whether `key` is one of `choices()` (without listing them).
    pub fn is_choice(&self, key: Key) -> bool {
        self.next_due().is_some_and(|first| first.0 == key.0) && self.sched.contains(key)
    }

    /// Runs the chosen event (one of `choices()`): taken out of the queue in one look
    /// (`is_choice` and then `run` looked it up twice).
    pub fn step_choice(&mut self, key: Key) -> bool {
        if self.next_due().is_none_or(|first| first.0 != key.0) {
            return false;
        }
        let Some(due) = self.sched.take(key) else {
            return false;
        };
        self.run_due(key, due);
        true
    }

    /// Applies an intervention now, as the next step (the future is recomputed from here).
    /// Its key sorts after the scenario's own events (whose sequence is their index) and
    /// is run at once, so it is never put in the queue: nothing would read it there.
    pub fn apply_now(&mut self, action: Action) {
        let key = (self.now, SCENARIO, u64::MAX - self.step);
        self.run_due(key, Due::Intervention(Rc::new(action)));
    }

    /// One step: the item due under `key`, taken out of the queue.
    fn run(&mut self, key: Key) {
        if let Some(due) = self.sched.take(key) {
            self.run_due(key, due);
        }
    }

    /// One step: decide (the rule that owns the trigger), apply the commands, check.
    fn run_due(&mut self, key: Key, due: Due) {
        self.now = key.0;
        self.step += 1;
        self.last.lists().clear_record();
        if !self.invariants.new_violations.is_empty() {
            self.invariants.begin_step();
        }
        let trigger = match due {
            Due::Scenario { action, index, rep } => {
                // The next repetition, if any, keeps the event's place among scenario events.
                if let Some(r) = self.scenario.events.get(index as usize).and_then(|e| e.repeat) {
                    if rep + 1 < r.count {
                        let at = self.now + r.every_ms;
                        self.sched.insert((at, SCENARIO, index as u64), Due::Scenario { action: action.clone(), index, rep: rep + 1 });
                    }
                }
                Trigger::Action(action)
            }
            Due::Intervention(action) => Trigger::Action(action),
            Due::Deliver(id) => match self.in_flight.remove(&id) {
                Some((msg, _)) => Trigger::Deliver(msg),
                None => Trigger::Nothing,
            },
            Due::Timer(t) => Trigger::Timer(t),
        };
        match &trigger {
            Trigger::Start | Trigger::Nothing => {}
            Trigger::Action(action) => self.perform(action),
            Trigger::Deliver(msg) => self.deliver(msg),
            Trigger::Timer(timer) => self.fire(*timer),
        }
        self.last.trigger = trigger;
        if self.last.events().iter().any(settle::changes_state) {
            self.last_change_ms = self.now;
        }
        self.apply_commands();
        invariants::check(self);
    }

    fn perform(&mut self, action: &Action) {
        match action {
            Action::Produce { producer, records } => self.producer_rule(*producer, |p, out| producer::produce(p, *producer, *records, out)),
            Action::Crash { broker, unflushed, silent } => self.crash(*broker, *unflushed, *silent),
            Action::Restart { broker } => self.restart(*broker),
            Action::Partition { links, catch, channel } => {
                self.cut(links, *channel);
                self.catch_in_flight(catch);
            }
            Action::Heal { links, channel } => self.heal(links, *channel),
            Action::AddConsumer(spec) => {
                if self.consumers.iter().any(|c| c.spec.id == spec.id) {
                    return self.emit(Event::ConsumerExists);
                }
                self.add_consumer((**spec).clone());
                self.emit(Event::ConsumerAdded { consumer: self.consumers.len() - 1 });
            }
        }
    }

    fn deliver(&mut self, msg: &Msg) {
        if let Node::Broker(b) = msg.to {
            if !self.broker(b).alive {
                // Only reachable if a message was scheduled to a broker that died in the same instant.
                return self.emit(Event::ReceiverDown { broker: b });
            }
        }
        if let Node::Consumer(c) = msg.to {
            if self.consumers[c].stopped.is_some() {
                return self.emit(Event::ConsumerResponseIgnored { consumer: c });
            }
        }
        self.orphan_arrives(msg);
        match &msg.body {
            Body::Fetch(req) => self.broker_rule_at(msg.to, |b, out| leader::handle_fetch_request(b, msg, req, out)),
            Body::FetchResponse(resp) => {
                let (Node::Broker(id), Node::Broker(leader)) = (msg.to, msg.from) else { return };
                if let Some(truncation::Halt) = self.broker_rule(id, |b, out| follower::handle_fetch_response(b, leader, resp, out)) {
                    self.crash(id, 0, false);
                }
            }
            Body::Produce { ids, acks, producer_epoch } => {
                let Node::Producer(p) = msg.from else { return };
                // The request carries the producer's request.timeout.ms (`ProduceRequest.timeout`).
                let timeout_ms = self.producers[p].settings.request_timeout_ms;
                self.broker_rule_at(msg.to, |b, out| leader::handle_produce_request(b, msg, ids, *acks, *producer_epoch, timeout_ms, out))
            }
            Body::ProduceResponse { request, error, current_leader, duplicate, .. } => {
                if let Node::Producer(id) = msg.to {
                    self.producer_rule(id, |p, out| {
                        producer::on_produce_response(p, id, *request, *error, *current_leader, *duplicate, out)
                    })
                }
            }
            Body::ConsumerFetch { offset, leader_epoch } => {
                let Node::Consumer(c) = msg.from else { return };
                // What the request carries of the consumer's settings.
                let spec = &self.consumers[c].spec;
                let asks = consumer_fetch::FetchAsks { fetch_from: spec.fetch_from, max_wait_ms: spec.fetch_max_wait_ms };
                self.broker_rule_at(msg.to, |b, out| consumer_fetch::handle_consumer_fetch(b, msg, *offset, *leader_epoch, asks, out))
            }
            Body::ConsumerFetchResponse(resp) => {
                if let Node::Consumer(c) = msg.to {
                    self.consumer_rule(c, |n, out| consumer::on_fetch_response(n, c, msg, resp, out))
                }
            }
            Body::AlterPartition { leader_epoch, partition_epoch, isr, broker_epochs } => {
                self.handle_alter_partition(msg, *leader_epoch, *partition_epoch, isr, broker_epochs)
            }
            Body::AlterPartitionResponse { request, leader_epoch, partition_epoch, isr, error } => self.broker_rule_at(msg.to, |b, out| {
                leader::handle_alter_partition_response(b, *request, *leader_epoch, *partition_epoch, isr, *error, out)
            }),
            Body::LeaderAndIsr(meta) => self.handle_leader_and_isr(msg, meta),
            Body::MetadataFetch { offset } => self.controller_rule(|c, out| metadata_fetch::handle_metadata_fetch(c, msg, *offset, out)),
            Body::MetadataFetchResponse { request, metadata } => self.metadata_fetch_answered(msg, *request, metadata.as_ref()),
            Body::OffsetsForLeaderEpoch { epoch, current_leader_epoch } => self
                .broker_rule_at(msg.to, |b, out| truncation::handle_offsets_for_leader_epoch(b, msg, *epoch, *current_leader_epoch, out)),
            Body::OffsetsForLeaderEpochResponse { request, requested, answer, error } => match msg.to {
                Node::Consumer(c) => self.consumer_rule(c, |n, out| consumer::on_validation_response(n, c, *request, *answer, *error, out)),
                Node::Broker(id) => self.broker_rule(id, |b, out| {
                    follower::handle_offsets_for_leader_epoch_response(b, *request, *requested, *answer, *error, out)
                }),
                _ => {}
            },
            Body::BrokerRegistration { incarnation } => self.handle_broker_registration(msg, *incarnation),
            Body::BrokerRegistrationResponse { broker_epoch, metadata } => {
                self.broker_rule_at(msg.to, |b, out| heartbeat::handle_registration_response(b, *broker_epoch, metadata.as_ref(), out))
            }
            Body::BrokerHeartbeat { broker_epoch, metadata_offset } => self.handle_broker_heartbeat(msg, *broker_epoch, *metadata_offset),
            Body::BrokerHeartbeatResponse { fenced, metadata, error } => {
                self.broker_rule_at(msg.to, |b, out| heartbeat::handle_heartbeat_response(b, *fenced, metadata.as_ref(), *error, out))
            }
            Body::MetadataRequest => self.handle_metadata_request(msg),
            Body::MetadataResponse { request, leader, leader_epoch } => match msg.to {
                Node::Producer(id) => {
                    self.producer_rule(id, |p, out| producer::on_metadata_response(p, id, msg, *request, *leader, *leader_epoch, out))
                }
                Node::Consumer(c) => {
                    self.consumer_rule(c, |n, out| consumer::on_metadata_response(n, c, msg, *request, *leader, *leader_epoch, out))
                }
                _ => {}
            },
            Body::Reset { refused } => self.handle_reset(msg, *refused),
            Body::ZkPing { incarnation } => self.zookeeper_handle_ping(msg, *incarnation),
            Body::ZkRegister { incarnation } => self.zookeeper_handle_register(msg, *incarnation),
            Body::ZkRegistered => self.broker_rule_at(msg.to, heartbeat::zookeeper_registered),
            Body::ZkNodeExists => self.zookeeper_node_exists(msg),
            Body::ZkSessionExpired => self.broker_rule_at(msg.to, heartbeat::zookeeper_session_lost),
            Body::ZkWatch { broker, incarnation } => self.process_broker_change(*broker, *incarnation),
        }
    }

    /// A peer's kernel reset the connection: whoever waited on it hears now.
    fn handle_reset(&mut self, msg: &Msg, refused: bool) {
        let Node::Broker(from) = msg.from else { return };
        match msg.to {
            Node::Broker(id) => self.broker_rule(id, |b, out| follower::follower_connection_reset(b, from, out)),
            Node::Producer(id) => self.producer_rule(id, |p, out| producer::on_connection_reset(p, id, from, refused, out)),
            Node::Consumer(c) => self.consumer_rule(c, |n, out| consumer::on_connection_reset(n, c, from, out)),
            Node::Controller | Node::ZooKeeper => {}
        }
    }

    fn fire(&mut self, timer: Timer) {
        match timer {
            Timer::FetchExpiry { leader: id, follower } => self.broker_rule(id, |b, out| leader::expire_parked_fetch(b, follower, out)),
            Timer::ConsumerFetchExpiry { broker, consumer } => {
                self.broker_rule(broker, |b, out| consumer_fetch::expire_consumer_fetch(b, consumer, out))
            }
            Timer::ProduceExpiry { leader: id, request } => self.broker_rule(id, |b, out| leader::expire_delayed_produce(b, request, out)),
            Timer::IsrExpiration { leader: id } => self.broker_rule(id, leader::maybe_shrink_isr),
            Timer::FetcherRetry { follower: id } => self.broker_rule(id, follower::fetcher_retry),
            Timer::FetchRequestTimeout { follower: id } => self.broker_rule(id, follower::fetch_request_timeout),
            Timer::ProduceRequestTimeout { producer: id, request } => {
                self.producer_rule(id, |p, out| producer::on_request_timeout(p, id, request, out))
            }
            Timer::ConsumerRequestTimeout { consumer: c } => self.consumer_rule(c, |n, out| consumer::on_request_timeout(n, c, out)),
            Timer::Heartbeat { broker } => self.broker_rule(broker, heartbeat::heartbeat_due),
            Timer::FenceCheck if self.zookeeper() => self.zookeeper_expire_session(),
            Timer::FenceCheck => self.maybe_fence_one_stale_broker(),
            Timer::AlterPartitionRetry { leader: id } => self.broker_rule(id, leader::alter_partition_retry),
            Timer::ProducerWake { producer: id } => self.producer_rule(id, |p, out| producer::on_wake(p, id, out)),
            Timer::AccumulatorExpiry { producer: id } => self.producer_rule(id, |p, out| producer::on_accumulator_expiry(p, id, out)),
            Timer::MetadataTimeout { client: Node::Producer(id) } => {
                self.producer_rule(id, |p, out| producer::on_metadata_timeout(p, id, out))
            }
            Timer::MetadataTimeout { client: Node::Consumer(c) } => {
                self.consumer_rule(c, |n, out| consumer::on_metadata_timeout(n, c, out))
            }
            Timer::MetadataTimeout { .. } => {}
            Timer::MetadataFetch { broker } => self.metadata_fetch_due(broker),
            Timer::MetadataFetchExpiry { broker } => {
                self.controller_rule(|c, out| metadata_fetch::expire_parked_metadata_fetch(c, broker, out))
            }
            Timer::HeartbeatTimeout { broker } => self.broker_rule(broker, heartbeat::heartbeat_timed_out),
            Timer::ConnectionSetupTimeout { client, broker } => self.connection_attempt_expired(client, broker),
        }
    }

    // ---------------------------------------------------------------------------
    // Effects: commands are collected and applied at the end of the step; events
    // are applied as they are emitted.

    #[inline(always)]
    pub(crate) fn push_command(&mut self, command: Command) {
        self.last.lists().commands.push(command);
    }

    /// Sets a timer; its key (known now) cancels it. Timers go into the queue at once:
    /// its order is the keys', so when an item is inserted changes nothing, and nothing
    /// in a step reads the queue; a message waits for the step's end (`transmit` reads
    /// the world as the step left it). A command each cost a copy of the largest
    /// command, a message's, in and out of the step's list.
    pub(crate) fn set_timer(&mut self, at_ms: u64, timer: Timer) -> Key {
        self.sched.schedule(at_ms, PROTOCOL, Due::Timer(timer))
    }

    pub(crate) fn cancel(&mut self, key: Key) {
        self.sched.cancel(key);
    }

    /// Puts the step's commands into effect, in the order they were decided.
    fn apply_commands(&mut self) {
        let mut commands = std::mem::take(&mut self.last.lists().commands);
        for command in commands.drain(..) {
            match command {
                Command::Send { id, seq, from, to, body } => self.transmit(id, seq, from, to, body),
                Command::DropMessagesTo(node) => self.drop_messages_to(node),
            }
        }
        self.last.lists().commands = commands;
    }

    /// Records an event and applies it.
    pub(crate) fn emit(&mut self, event: Event) {
        self.apply_event(&event);
        self.last.lists().events.push(event);
    }

    /// The records a replica's log is about to lose from `offset` on (`Broker::note_ghosts`).
    fn note_ghosts(&mut self, broker: u32, offset: u64) {
        let step = self.step;
        self.broker_mut(broker).note_ghosts(offset, step);
    }
}
