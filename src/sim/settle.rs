//! When a run is settled (issue 13, docs/extensions.md "A run has a future").
//!
//! `stop_at_ms` ends a scenario's scripted part. With `after_stop: "settle"` (an
//! intervention or a Play at the end sets it) the run goes on past it for as long
//! as something is *pending*: a one-shot timer or a message that will change what
//! the record shows, or a replica or consumer the protocol is still bringing up to
//! date. It ends `replica.fetch.wait.max.ms` after the first instant nothing is
//! pending (one long-poll round of the settled state), or at once when nothing was
//! pending when the script ended; and at the latest a day after `stop_at_ms`.
//!
//! Not pending, because they repeat for ever in a steady partition: a follower's
//! Fetch and its answer, a consumer's fetch and its answer, a parked fetch's
//! expiry, the leader's periodic ISR check, a fetcher's idle poll (`textbook`), and
//! the request timeouts that ride with every outstanding fetch, and brokers'
//! heartbeats to the controller and their answers.

use super::event::Event;
use super::msg::{Body, Node};
use super::scheduler::{Due, Timer};
use super::{Lifecycle, Role, Sim};
use crate::scenario::{Channel, IsrUpdate};

/// Past the script, a run goes on at most this long (a day of simulated time).
pub const MAX_RUN_ON_MS: u64 = 86_400_000;

/// Past the script, a run in which nothing a user sees has changed for this long
/// (ten minutes of simulated time, longer than any of Kafka's default timers:
/// delivery.timeout.ms 2 min, metadata.max.age.ms 5 min) is settled even if
/// something is still pending: what is pending repeats without effect (a client
/// asking a broker that cannot learn it leads, a follower that can never rejoin).
pub const QUIET_MS: u64 = 600_000;

/// Whether an event changes what a user sees: logs, HWs, the ISR, leaders,
/// registrations and fencing, acknowledgements and failures, what consumers
/// receive, crashes, restarts and cuts. Requests, answers that change nothing,
/// retries and timeouts do not.
pub fn changes_state(e: &Event) -> bool {
    use Event as E;
    match e {
        E::FollowerAppended { records, hw, hw_before, .. } => *records > 0 || hw != hw_before,
        E::MetadataUpdated { changed, .. } => *changed,
        E::Appended { .. }
        | E::LeaderHwMoved { .. }
        | E::Truncated { .. }
        | E::IsrExpanded { .. }
        | E::IsrShrunk { .. }
        | E::IsrApplied { .. }
        | E::AlterPartitionCommitted { .. }
        | E::LeaderIsrUpdated { .. }
        | E::ControllerIsrShrunk { .. }
        | E::SessionExpired { .. }
        | E::BrokerRegistered { .. }
        | E::PreviousIncarnationRemoved { .. }
        | E::RegistrationAccepted { .. }
        | E::HeartbeatReceived { unfence: true, .. }
        | E::LeaderElected { .. }
        | E::LeaderEpochBumped { .. }
        | E::ElrChanged { .. }
        | E::PartitionOffline { .. }
        | E::BecameLeader { .. }
        | E::BecameFollower { .. }
        | E::ProduceAcked { .. }
        | E::ProduceFailed { .. }
        | E::ProduceExpired { .. }
        | E::ConsumerReceived { .. }
        | E::ConsumerOffsetReset { .. }
        | E::ConsumerTruncationDetected { .. }
        | E::ConsumerStopped { .. }
        | E::ConsumerAdded { .. }
        | E::Crashed { .. }
        | E::Restarted { .. }
        | E::Halted { .. }
        | E::StartupFailed { .. }
        | E::LinksCut { .. }
        | E::LinksHealed { .. } => true,
        _ => false,
    }
}

/// Something that keeps a run going after its script, and when it is due (if a
/// time is known).
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// The controller fences a broker whose heartbeats stopped (`broker.session.timeout.ms`).
    SessionExpiry { broker: u32, at_ms: u64 },
    /// A producer gives up on an unanswered request (`request.timeout.ms`).
    ProduceTimeout { producer: usize, at_ms: u64 },
    /// A producer's oldest write not yet acknowledged passes delivery.timeout.ms (2.1+,
    /// KIP-91): it fails, sent or not (`Sender.sendProducerData`'s expiry).
    DeliveryTimeout { producer: usize, at_ms: u64 },
    /// Before 2.1: a write waiting in the producer's accumulator passes request.timeout.ms
    /// and fails (`RecordAccumulator.expiredBatches`; there is no delivery.timeout.ms).
    AccumulatorExpiry { producer: usize, at_ms: u64 },
    /// A producer with writes to deliver wakes up: a backoff ends (retry.backoff.ms,
    /// reconnect.backoff.ms, its metadata refresh's), or its metadata is old.
    ProducerWake { producer: usize, at_ms: u64 },
    /// An acks=all write waits for the ISR at the leader (`DelayedProduce`).
    DelayedProduce { leader: u32, at_ms: u64 },
    /// A follower's Fetch was lost: it times out (`replica.socket.timeout.ms`), then backs off.
    LostFetch { follower: u32, at_ms: u64 },
    /// No broker can serve the partition: the producer gives its batches up (delivery.timeout.ms).
    ProduceExpiry { producer: usize, at_ms: u64 },
    /// A consumer's fetch was lost: it times out and is sent again.
    LostConsumerFetch { consumer: usize, at_ms: u64 },
    /// A message that changes state is on the wire (a write, its answer, an
    /// AlterPartition, metadata, an epoch query).
    Message { kind: &'static str, from: Node, to: Node, at_ms: u64 },
    /// A live follower that can reach the leader is behind it (log, HW or epoch).
    CatchingUp { follower: u32 },
    /// An ISR member that cannot keep up: the leader's ISR check will drop it
    /// (`replica.lag.time.max.ms`).
    ShrinkDue { follower: u32 },
    /// A live follower out of the ISR that can reach the leader: it will rejoin.
    Rejoining { follower: u32 },
    /// A consumer below the HW of the replica it reads from.
    ConsumerBehind { consumer: usize },
    /// A consumer reading from a replica the leader named (KIP-392) that has left the
    /// ISR and whose HW is below the leader's: it stays there until its metadata refresh (`metadata.max.age.ms`,
    /// `Fetcher.selectReadReplica`) or an error, then asks the leader again.
    ConsumerOnLaggingReplica { consumer: usize, replica: u32, at_ms: u64 },
}

impl Pending {
    /// When it is due, if a time is known.
    pub fn at_ms(&self) -> Option<u64> {
        match *self {
            Pending::SessionExpiry { at_ms, .. }
            | Pending::ProduceTimeout { at_ms, .. }
            | Pending::DeliveryTimeout { at_ms, .. }
            | Pending::AccumulatorExpiry { at_ms, .. }
            | Pending::ProducerWake { at_ms, .. }
            | Pending::ProduceExpiry { at_ms, .. }
            | Pending::DelayedProduce { at_ms, .. }
            | Pending::LostFetch { at_ms, .. }
            | Pending::LostConsumerFetch { at_ms, .. }
            | Pending::ConsumerOnLaggingReplica { at_ms, .. }
            | Pending::Message { at_ms, .. } => Some(at_ms),
            _ => None,
        }
    }
}

impl Sim {
    /// What keeps the run going now (empty: settled): what replicas and consumers
    /// still have to do first, then what is due, soonest first.
    pub fn pending(&self) -> Vec<Pending> {
        let mut out = Vec::new();
        self.pending_replicas(&mut out);
        self.pending_consumers(&mut out);
        let mut timed = Vec::new();
        self.pending_timers_and_messages(&mut timed);
        // Soonest first, keeping the queue's order among equals. The queue yields them
        // nearly in order, so an insertion sort (and not the standard library's stable
        // sort, ~3 KB of the page's WebAssembly for this one call).
        for i in 1..timed.len() {
            let mut j = i;
            while j > 0 && timed[j - 1].at_ms() > timed[j].at_ms() {
                timed.swap(j - 1, j);
                j -= 1;
            }
        }
        out.extend(timed);
        out
    }

    /// Whether nothing is pending (cheaper than `pending()` when something is).
    pub fn settled(&self) -> bool {
        self.pending().is_empty()
    }

    fn pending_timers_and_messages(&self, out: &mut Vec<Pending>) {
        let unservable = self.unservable();
        if unservable {
            // Clients loop on NOT_LEADER_OR_FOLLOWER and metadata that never changes;
            // only a producer giving its batches up (delivery.timeout.ms) is still to come.
            for (i, p) in self.producers.iter().enumerate() {
                // Before 2.1 there is no delivery timeout (KIP-91): nothing expires.
                let Some(limit) = p.settings.delivery_timeout_ms else { continue };
                let expiry = p.batches.iter().map(|b| b.created_ms.saturating_add(limit)).min();
                if let Some(at_ms) = expiry.filter(|_| p.settings.retries > 0 && limit < super::settle::MAX_RUN_ON_MS) {
                    out.push(Pending::ProduceExpiry { producer: i, at_ms: at_ms.max(self.now) });
                }
            }
        }
        for &(key, ref due) in self.sched.iter() {
            let at_ms = key.0;
            match due {
                Due::Timer(
                    Timer::ProducerWake { .. }
                    | Timer::AccumulatorExpiry { .. }
                    | Timer::ProduceRequestTimeout { .. }
                    | Timer::ConsumerRequestTimeout { .. },
                ) if unservable => {}
                // Always scheduled (at the grid slot after the earliest session deadline);
                // it will fence only a broker whose heartbeats stopped arriving: one that is
                // down or cut off from the controller.
                Due::Timer(Timer::FenceCheck) => {
                    for (broker, r) in self.controller.registrations.iter().enumerate() {
                        let b = broker as u32;
                        let (watcher, deadline) = if self.zookeeper() {
                            (Node::ZooKeeper, self.controller.zookeeper[broker].deadline)
                        } else {
                            (Node::Controller, r.session_deadline.filter(|_| !r.fenced))
                        };
                        let silent = !self.broker(b).alive || self.net.is_cut_on(Node::Broker(b), watcher, Some(Channel::Heartbeat));
                        if deadline.is_some() && silent {
                            out.push(Pending::SessionExpiry { broker: b, at_ms });
                        }
                    }
                }
                Due::Timer(Timer::AlterPartitionRetry { leader }) if self.alter_partition_can_land(*leader) => {
                    out.push(Pending::Message { kind: "alter_partition", from: Node::Broker(*leader), to: Node::Controller, at_ms })
                }
                // A sender with batches to deliver (a retry backoff, a delivery timeout);
                // its periodic metadata refresh alone is steady.
                Due::Timer(Timer::ProducerWake { producer }) if !self.producers[*producer].batches.is_empty() => {
                    out.push(self.producer_wake(*producer, at_ms))
                }
                Due::Timer(Timer::AccumulatorExpiry { producer }) => out.push(Pending::AccumulatorExpiry { producer: *producer, at_ms }),
                Due::Timer(Timer::ProduceRequestTimeout { producer, .. }) => {
                    out.push(Pending::ProduceTimeout { producer: *producer, at_ms })
                }
                Due::Timer(Timer::ProduceExpiry { leader, .. }) => out.push(Pending::DelayedProduce { leader: *leader, at_ms }),
                // A fetch's own timeout counts only when the fetch is gone (lost in a cut).
                Due::Timer(Timer::FetchRequestTimeout { follower }) => {
                    let me = Node::Broker(*follower);
                    if !self.talking(me) && !self.is_parked_fetch(*follower) {
                        out.push(Pending::LostFetch { follower: *follower, at_ms });
                    }
                }
                Due::Timer(Timer::ConsumerRequestTimeout { consumer }) => {
                    let parked = self.brokers.iter().any(|b| b.parked_consumers.iter().any(|p| p.consumer == *consumer));
                    if !self.talking(Node::Consumer(*consumer)) && !parked {
                        out.push(Pending::LostConsumerFetch { consumer: *consumer, at_ms });
                    }
                }
                Due::Scenario { .. } | Due::Intervention(_) => {}
                // A broker behind the controller's metadata that will fetch it (not cut off).
                Due::Timer(Timer::MetadataFetch { broker }) if self.metadata_fetch_brings_news(*broker) => {
                    out.push(Pending::Message { kind: "metadata_fetch", from: Node::Broker(*broker), to: Node::Controller, at_ms })
                }
                Due::Deliver(id) => {
                    let Some((msg, _)) = self.in_flight.get(id) else { continue };
                    // The metadata long poll is steady unless it carries (or will fetch) news.
                    let idle_poll = match msg.body {
                        Body::MetadataFetch { offset } => offset >= self.controller.metadata_offset,
                        Body::MetadataFetchResponse { ref metadata, .. } => metadata.is_none(),
                        _ => false,
                    };
                    let steady = idle_poll
                        || matches!(
                            msg.body,
                            Body::Fetch(_)
                                | Body::FetchResponse(_)
                                | Body::ConsumerFetch { .. }
                                | Body::ConsumerFetchResponse(_)
                                | Body::BrokerHeartbeat { .. }
                                | Body::BrokerHeartbeatResponse { .. }
                        );
                    let client = matches!(msg.from, Node::Producer(_) | Node::Consumer(_))
                        || matches!(msg.to, Node::Producer(_) | Node::Consumer(_));
                    if !(steady || unservable && client) {
                        out.push(Pending::Message { kind: crate::sim::msg::kind_of(&msg.body), from: msg.from, to: msg.to, at_ms });
                    }
                }
                Due::Timer(_) => {}
            }
        }
    }

    /// What a producer's wake-up at `at_ms` is for: its oldest batch's delivery timeout
    /// (`producer::expire_batches` sets the wake-up there), or the end of a backoff.
    fn producer_wake(&self, producer: usize, at_ms: u64) -> Pending {
        let p = &self.producers[producer];
        let deadline = p.settings.delivery_timeout_ms.and_then(|limit| p.batches.iter().map(|b| b.created_ms.saturating_add(limit)).min());
        if deadline == Some(at_ms) {
            Pending::DeliveryTimeout { producer, at_ms }
        } else {
            Pending::ProducerWake { producer, at_ms }
        }
    }

    /// Whether a broker's next metadata Fetch will bring it something: it is behind the
    /// controller and can reach it both ways.
    fn metadata_fetch_brings_news(&self, broker: u32) -> bool {
        let me = Node::Broker(broker);
        let b = self.broker(broker);
        b.alive
            && b.metadata_offset < self.controller.metadata_offset
            && !self.net.is_cut_on(me, Node::Controller, Some(Channel::Metadata))
            && !self.net.is_cut_on(Node::Controller, me, Some(Channel::Metadata))
    }

    /// Whether a fetch (or an epoch query) from or to `node` is on the wire.
    fn talking(&self, node: Node) -> bool {
        self.in_flight.values().any(|(m, _)| {
            (m.from == node || m.to == node)
                && matches!(
                    m.body,
                    Body::Fetch(_)
                        | Body::FetchResponse(_)
                        | Body::ConsumerFetch { .. }
                        | Body::ConsumerFetchResponse(_)
                        | Body::OffsetsForLeaderEpoch { .. }
                        | Body::OffsetsForLeaderEpochResponse { .. }
                )
        })
    }

    fn is_parked_fetch(&self, follower: u32) -> bool {
        self.brokers.iter().any(|b| b.lead.as_ref().is_some_and(|ls| ls.parked_fetches.iter().any(|p| p.follower == follower)))
    }

    /// Whether an AlterPartition resent now can change anything: it reaches the
    /// controller, and either its answer can come back or the controller would commit
    /// it (the leader's epochs are the controller's). A leader cut from the controller
    /// resends for ever without effect.
    fn alter_partition_can_land(&self, leader: u32) -> bool {
        let b = self.broker(leader);
        let Some(ls) = b.lead.as_ref().filter(|_| b.alive) else { return false };
        let me = Node::Broker(leader);
        let ap = Some(Channel::AlterPartition);
        if self.net.is_cut_on(me, Node::Controller, ap) {
            return false;
        }
        let c = &self.controller;
        !self.net.is_cut_on(Node::Controller, me, ap) || (c.leader_epoch == b.leader_epoch && c.partition_epoch == ls.partition_epoch)
    }

    /// Whether no broker can serve the partition for good: none acts as a leader, and
    /// the one the controller names cannot learn that it leads (cut off from the
    /// controller). Clients then loop on NOT_LEADER_OR_FOLLOWER and on metadata that
    /// never changes, as Kafka's would: a steady state, not a pending consequence.
    fn unservable(&self) -> bool {
        if self.brokers.iter().any(|b| b.alive && b.lead.is_some()) {
            return false;
        }
        let c = &self.controller;
        match c.leader {
            Some(l) => self.broker(l).alive && !self.can_learn_metadata(l),
            // Offline: no live broker may ever be elected (in the ISR, the ELR or the last
            // known leader, or any with unclean election; and unfenced, or able to heartbeat).
            None => !self.brokers.iter().any(|b| {
                let eligible = self.settings.unclean_leader_election_enable
                    || c.isr.contains(&b.id)
                    || c.elr.contains(&b.id)
                    || c.last_known_elr.contains(&b.id);
                let unfenceable = !c.fenced.contains(&b.id) || self.can_be_unfenced(b.id);
                b.alive && eligible && unfenceable
            }),
        }
    }

    /// Whether a fenced broker can still be unfenced: its heartbeats reach the
    /// controller and it can catch up with the metadata up to its registration.
    fn can_be_unfenced(&self, broker: u32) -> bool {
        !self.net.is_cut_on(Node::Broker(broker), Node::Controller, Some(Channel::Heartbeat)) && self.can_learn_metadata(broker)
    }

    /// Whether the leader can still change the ISR: before 2.7 it writes the change
    /// itself; from 2.7 its AlterPartition must reach the controller and the outcome
    /// come back (the answer or metadata).
    fn leader_can_change_isr(&self, leader: u32) -> bool {
        self.behavior.isr_update == IsrUpdate::Immediate
            || (!self.net.is_cut_on(Node::Broker(leader), Node::Controller, Some(Channel::AlterPartition))
                && self.can_learn_metadata(leader))
    }

    /// Whether a broker behind the controller's leader epoch can still learn it: it
    /// hears the controller, or metadata to it is on the wire. One cut off from the
    /// controller for good never catches up, so it keeps no run going.
    fn can_learn_metadata(&self, broker: u32) -> bool {
        let me = Node::Broker(broker);
        // A new KRaft incarnation learns registered or not (`acts_on_image_before_registration`);
        // otherwise its registration must get through.
        let registers = self.acts_on_image_before_registration()
            || self.broker(broker).lifecycle != Lifecycle::Starting
            || !self.net.is_cut_on(me, Node::Controller, Some(Channel::Heartbeat));
        let hears = !self.net.is_cut_on(Node::Controller, me, Some(Channel::Metadata))
            || self.in_flight.values().any(|(m, _)| m.from == Node::Controller && m.to == me);
        registers && hears
    }

    /// Whether two brokers can talk both ways.
    fn reachable(&self, a: u32, b: u32) -> bool {
        !self.net.is_cut(Node::Broker(a), Node::Broker(b)) && !self.net.is_cut(Node::Broker(b), Node::Broker(a))
    }

    fn pending_replicas(&self, out: &mut Vec<Pending>) {
        let c = &self.controller;
        let Some(l) = c.leader else { return };
        let leader = self.broker(l);
        // Metadata on its way (a message in flight) or the leader down: timers and messages say it.
        let Some(ls) =
            leader.lead.as_ref().filter(|_| leader.alive && leader.role == Role::Leader && leader.leader_epoch == c.leader_epoch)
        else {
            return;
        };
        let isr_changes = self.leader_can_change_isr(l);
        for f in self.brokers.iter().filter(|b| b.id != l && b.alive) {
            let reachable = self.reachable(f.id, l);
            let in_isr = c.isr.contains(&f.id);
            // A follower the leader cannot add has caught up once its log and HW have:
            // the leader's AlterPartition cannot land, or the follower stays fenced (its
            // heartbeats cannot reach the controller).
            let never_unfenced = c.fenced.contains(&f.id) && !self.can_be_unfenced(f.id);
            let joinable = isr_changes && !never_unfenced;
            let caught = f.leader_epoch == c.leader_epoch
                && f.log.leo() == leader.log.leo()
                && f.hw == leader.hw
                && (ls.isr.contains(&f.id) || !joinable);
            let stale_epoch = f.leader_epoch != c.leader_epoch || f.leader != Some(l) || f.lifecycle == Lifecycle::Starting;
            let learns = !stale_epoch || self.can_learn_metadata(f.id);
            if reachable && !caught && learns {
                out.push(if in_isr || c.fenced.contains(&f.id) {
                    Pending::CatchingUp { follower: f.id }
                } else {
                    Pending::Rejoining { follower: f.id }
                });
            } else if !reachable
                && in_isr
                && ls.isr.len() > 1
                && (isr_changes || ls.pending.is_none())
                && !at_leader_leo(ls.followers.get(&f.id), leader.log.leo())
            {
                // A member the leader last saw at its LEO stays caught up (`Replica.isCaughtUp`)
                // while the LEO stays: on an idle partition no shrink is coming.
                out.push(Pending::ShrinkDue { follower: f.id });
            }
        }
    }

    fn pending_consumers(&self, out: &mut Vec<Pending>) {
        if self.unservable() {
            return;
        }
        for (i, c) in self.consumers.iter().enumerate() {
            // The replica the leader named (KIP-392) while it lasts, else the leader.
            let from = c.preferred.map(|(b, _)| b).or(self.controller.leader);
            let Some(b) = from.map(|b| self.broker(b)) else { continue };
            if b.alive && c.position < b.hw {
                out.push(Pending::ConsumerBehind { consumer: i });
            } else if let (Some((r, until)), Some(l)) = (c.preferred, self.controller.leader) {
                // At the end of what a lagging replica serves: it returns to the leader at its refresh.
                // (An ISR member's HW trails the leader's by a round trip: that is no reason to wait.)
                let lb = self.broker(l);
                let out_of_isr = lb.lead.as_ref().is_some_and(|ls| !ls.isr.contains(&r));
                // Before KAFKA-14372 the leader names the lagging replica again: nothing changes.
                let named_again = self.find_preferred_read_replica(l, r, c.position).is_some();
                if r != l && out_of_isr && !named_again && b.hw < lb.hw && c.position < lb.hw {
                    out.push(Pending::ConsumerOnLaggingReplica { consumer: i, replica: r, at_ms: until });
                }
            }
        }
    }

    /// Before each step, with `after_stop: "settle"`: once the next event lies past
    /// the script, note since when nothing has been pending.
    pub(crate) fn note_settled(&mut self) {
        if !self.settle {
            return;
        }
        let beyond = self.sched.next_key().is_some_and(|k| k.0 > self.scenario.stop_at_ms);
        if !beyond {
            self.settled_since = None;
            return;
        }
        self.settled_since = if self.settled() || self.quiet() { self.settled_since.or(Some(self.now)) } else { None };
    }

    /// Whether nothing a user sees has changed for `QUIET_MS` past the script: what is
    /// still pending repeats without effect, and the run ends.
    pub fn quiet(&self) -> bool {
        self.now > self.scenario.stop_at_ms && self.now >= self.last_change_ms.saturating_add(QUIET_MS)
    }

    /// When the run ends past its script, as far as is known now: at the script's
    /// end if nothing was pending then, one long-poll round after it settled, or a
    /// day after the script at the latest.
    pub fn run_on_until(&self) -> u64 {
        let stop = self.scenario.stop_at_ms;
        match self.settled_since {
            Some(t) if t <= stop => stop,
            Some(t) => t + self.scenario.config.replica_fetch_wait_max_ms,
            None => stop.saturating_add(MAX_RUN_ON_MS),
        }
    }
}

/// Whether the leader last saw this follower at its own LEO: `Replica.isCaughtUp`
/// then holds whatever the time since it fetched (every preset), so only a write
/// can take it out of the ISR.
fn at_leader_leo(view: Option<&super::state::FollowerView>, leader_leo: u64) -> bool {
    view.is_some_and(|v| v.leo == Some(leader_leo))
}
