//! Consumers, reading from the leader or from the follower the leader names
//! (KIP-392). A replica serves only records below its own HW
//! (`FetchIsolation.HIGH_WATERMARK`). The consumer keeps its own metadata: after a
//! leader change it validates its position with OffsetsForLeaderEpoch and detects
//! truncation (KIP-320, 2.1+) instead of reading on from a position the new leader
//! never had.
//! Kafka: `LocalLog.read`, `DelayedFetch`, `ReplicaManager.findPreferredReadReplica`,
//! the consumer's `Fetcher` / `FetchCollector`, `SubscriptionState`,
//! `OffsetsForLeaderEpochUtils`.

use super::client;
use super::event::{Event, Served};
use super::log::Entry;
use super::msg::{Body, ConsumerFetchResponse, KafkaError, Msg, Node};
use super::outbox::Out;
use super::pvec::PVec;
use super::scheduler::Timer;
use super::state::{ClientMeta, Consumer, ConsumerFetch, ParkedConsumerFetch};
use super::{Shared, Sim};
use crate::scenario::{AboveHw, ConsumerSpec, OffsetReset};

impl Consumer {
    /// The broker its fetch (or validation) in flight goes to.
    pub fn fetch_target(&self) -> Option<u32> {
        match self.fetch {
            Some(ConsumerFetch::InFlight { broker, .. } | ConsumerFetch::Validating { broker, .. }) => Some(broker),
            _ => None,
        }
    }
}

impl Sim {
    /// A consumer joins at its position (or where auto.offset.reset puts it), knowing
    /// the leader the controller has now, and sends its first fetch.
    pub(crate) fn add_consumer(&mut self, spec: ConsumerSpec) {
        let settings = spec.settings(self.scenario.preset);
        let position = spec.position.unwrap_or(match settings.auto_offset_reset {
            OffsetReset::Earliest => 0,
            _ => self.scenario.initial.log_end_offset,
        });
        let mut meta = ClientMeta::new();
        meta.leader = self.controller.leader;
        meta.leader_epoch = self.controller.leader_epoch;
        meta.updated_ms = self.now;
        let id = spec.id.clone();
        self.consumers.push(Shared::new(Consumer {
            spec,
            settings,
            position,
            position_epoch: None,
            records_read: 0,
            read: PVec::new(),
            fetch: None,
            meta,
            preferred: None,
            awaiting_validation: false,
            stopped: None,
        }));
        let c = self.consumers.len() - 1;
        let scenario = self.scenario.clone();
        self.net.add_consumer_links(&scenario, &id, Node::Consumer(c));
        self.send_consumer_fetch(c);
    }

    /// Where the consumer's next fetch goes: the replica the leader named while that
    /// lasts (metadata.max.age.ms), else the leader it knows of.
    fn consumer_target(&self, c: usize) -> Option<u32> {
        let consumer = &self.consumers[c];
        match consumer.preferred {
            Some((f, until)) if self.behavior.follower_fetching && self.now < until => Some(f),
            _ => consumer.meta.leader,
        }
    }

    /// `Fetcher.sendFetches`: a fetch at the consumer's position carrying the leader
    /// epoch it knows (KIP-320); first, if the leader changed, the position is
    /// validated; with no leader known it asks for metadata and retries after
    /// retry.backoff.ms.
    pub(crate) fn send_consumer_fetch(&mut self, c: usize) {
        if self.consumers[c].stopped.is_some() {
            return;
        }
        self.consumer_metadata(c, |n, out| client::maybe_update_metadata(n, Node::Consumer(c), out));
        if self.consumers[c].awaiting_validation {
            return self.validate_position(c);
        }
        let Some(broker) = self.consumer_target(c) else {
            self.consumer_metadata(c, |n, out| client::request_metadata_update(n, Node::Consumer(c), out));
            let timer =
                self.set_timer(self.now + self.consumers[c].settings.retry_backoff_ms, Timer::ConsumerRequestTimeout { consumer: c });
            self.consumers[c].fetch = Some(ConsumerFetch::Backoff { timer });
            return self.emit(Event::ConsumerWaitsForLeader { consumer: c });
        };
        let offset = self.consumers[c].position;
        let leader_epoch = self.consumers[c].meta.leader_epoch;
        let msg = self.send(Node::Consumer(c), Node::Broker(broker), Body::ConsumerFetch { offset, leader_epoch });
        let timeout =
            self.set_timer(self.now + self.consumers[c].settings.request_timeout_ms, Timer::ConsumerRequestTimeout { consumer: c });
        self.consumers[c].fetch = Some(ConsumerFetch::InFlight { broker, request: msg, timeout });
        self.emit(Event::ConsumerFetchSent { consumer: c, broker, offset, msg });
    }

    /// KIP-320 (`OffsetsForLeaderEpochUtils`): the consumer asks the leader where the
    /// epoch of its last record ends; below its position means the log was truncated.
    fn validate_position(&mut self, c: usize) {
        let consumer = &self.consumers[c];
        let (Some(epoch), Some(leader)) = (consumer.position_epoch, consumer.meta.leader) else {
            self.consumers[c].awaiting_validation = false;
            return self.send_consumer_fetch(c);
        };
        let (current_leader_epoch, request_timeout) = (consumer.meta.leader_epoch, consumer.settings.request_timeout_ms);
        let msg = self.send(Node::Consumer(c), Node::Broker(leader), Body::OffsetsForLeaderEpoch { epoch, current_leader_epoch });
        let timeout = self.set_timer(self.now + request_timeout, Timer::ConsumerRequestTimeout { consumer: c });
        self.consumers[c].fetch = Some(ConsumerFetch::Validating { broker: leader, request: msg, timeout });
        self.emit(Event::ConsumerValidates { consumer: c, broker: leader, epoch, msg });
    }

    /// The leader's answer to a consumer's OffsetsForLeaderEpoch
    /// (`SubscriptionState.maybeCompleteValidation`): an end below the position is
    /// truncation: with auto.offset.reset the consumer goes back to that end (the first
    /// offset known to diverge), without it, it stops (LogTruncationException).
    pub(crate) fn handle_consumer_validation(&mut self, msg: &Msg, request: u64, answer: Option<(i32, u64)>, error: Option<KafkaError>) {
        let Node::Consumer(c) = msg.to else { return };
        match self.consumers[c].fetch {
            Some(ConsumerFetch::Validating { request: r, timeout, .. }) if r == request => self.cancel(timeout),
            _ => return self.emit(Event::ConsumerResponseIgnored { consumer: c }),
        }
        self.consumers[c].fetch = None;
        if let Some(error) = error {
            return self.consumer_error(c, error);
        }
        let position = self.consumers[c].position;
        let reset = self.consumers[c].settings.auto_offset_reset;
        let consumer = &mut self.consumers[c];
        consumer.awaiting_validation = false;
        match answer {
            Some((_, end)) if end < position && reset == OffsetReset::None => {
                consumer.stopped = Some(KafkaError::OffsetOutOfRange);
                self.emit(Event::ConsumerTruncationDetected { consumer: c, end, position, stopped: true });
            }
            Some((epoch, end)) if end < position => {
                consumer.position = end;
                consumer.position_epoch = Some(epoch);
                self.emit(Event::ConsumerTruncationDetected { consumer: c, end, position, stopped: false });
                self.send_consumer_fetch(c);
            }
            _ => {
                self.emit(Event::ConsumerValidated { consumer: c, position });
                self.send_consumer_fetch(c);
            }
        }
    }

    /// A consumer fetch arrives at a broker (`ReplicaManager.fetchMessages`): a replica
    /// that neither leads nor is the consumer's preferred one refuses it; from 2.1
    /// (KIP-320) another leader epoch than the replica's is refused too; the leader
    /// names the preferred read replica when there is one (`findPreferredReadReplica`).
    pub(crate) fn handle_consumer_fetch(&mut self, msg: &Msg, offset: u64, leader_epoch: i32) {
        let Node::Broker(id) = msg.to else { return };
        let Node::Consumer(c) = msg.from else { return };
        let b = self.broker(id);
        let is_leader = b.lead.is_some();
        let preferred = self.consumers[c].spec.fetch_from.filter(|_| self.behavior.follower_fetching);
        // A broker not registered yet has no partitions (`getPartitionOrError`).
        if !is_leader && (preferred != Some(id) || b.broker_epoch.is_none()) {
            let error = Some(KafkaError::NotLeaderOrFollower);
            return self.answer_consumer(id, c, msg.id, offset, Vec::new(), error, Served::NotLeader);
        }
        if self.behavior.leader_epoch_fencing && leader_epoch != b.leader_epoch {
            let (error, why) = if leader_epoch < b.leader_epoch {
                (KafkaError::FencedLeaderEpoch, Served::FencedEpoch { leader_epoch: b.leader_epoch })
            } else {
                (KafkaError::UnknownLeaderEpoch, Served::UnknownEpoch { leader_epoch: b.leader_epoch })
            };
            return self.answer_consumer(id, c, msg.id, offset, Vec::new(), Some(error), why);
        }
        if let Some(to) = preferred.filter(|_| is_leader).and_then(|f| self.find_preferred_read_replica(id, f, offset)) {
            let in_isr = self.broker(id).lead.as_ref().is_some_and(|ls| ls.isr.contains(&to));
            return self.answer_consumer(id, c, msg.id, offset, Vec::new(), None, Served::Redirect { to, in_isr });
        }
        self.serve_consumer(id, c, msg.id, offset, false);
    }

    /// `ReplicaManager.findPreferredReadReplica` (2.4+, KIP-392): the leader names the
    /// consumer's preferred replica `f` when it is another live replica that has the
    /// offset and, from 3.3.2/3.4.0 (KAFKA-14372), is in the ISR.
    pub(crate) fn find_preferred_read_replica(&self, leader: u32, f: u32, offset: u64) -> Option<u32> {
        let ls = self.broker(leader).lead.as_ref()?;
        let has_offset = ls.followers.get(&f).and_then(|v| v.leo).is_some_and(|leo| leo >= offset);
        let eligible = ls.isr.contains(&f) || !self.behavior.preferred_read_replica_in_isr;
        (f != leader && eligible && has_offset && !ls.fenced.contains(&f)).then_some(f)
    }

    /// `LocalLog.read` up to the HW: records below it at once; at the HW the fetch
    /// waits; above the HW (not above the LEO) it is answered empty or waits, by preset.
    fn serve_consumer(&mut self, id: u32, c: usize, request: u64, offset: u64, expired: bool) {
        let b = self.broker(id);
        let (hw, leo, start, leader) = (b.hw, b.log.leo(), b.log.start_offset, b.lead.is_some());
        if offset > leo || offset < start {
            let error = Some(KafkaError::OffsetOutOfRange);
            return self.answer_consumer(id, c, request, offset, Vec::new(), error, Served::OutOfRange { start, leo });
        }
        if offset < hw {
            let per = self.scenario.record_bytes.max(1);
            let max = (1_048_576 / per).max(1);
            let end = hw.min(offset + max);
            let records: Vec<(u64, Option<Entry>)> = (offset..end).map(|o| (o, b.log.get(o))).collect();
            return self.answer_consumer(id, c, request, offset, records, None, Served::Records);
        }
        let wait = self.consumers[c].spec.fetch_max_wait_ms;
        let above = offset > hw;
        if !expired && wait > 0 && (!above || self.behavior.consumer_fetch_above_hw == AboveHw::Park) {
            let expire_ms = self.now + wait;
            let timer = self.set_timer(expire_ms, Timer::ConsumerFetchExpiry { broker: id, consumer: c });
            self.broker_mut(id).parked_consumers.push(ParkedConsumerFetch { consumer: c, request, offset, expire_ms, timer });
            return self.emit(Event::ConsumerFetchParked { broker: id, consumer: c, leader, offset, hw, wait, above });
        }
        let why = if expired {
            Served::Expired
        } else if above {
            Served::AboveHw
        } else {
            Served::NoWait
        };
        self.answer_consumer(id, c, request, offset, Vec::new(), None, why);
    }

    /// A broker's answer to a consumer's fetch, with its HW.
    #[allow(clippy::too_many_arguments)]
    fn answer_consumer(
        &mut self,
        id: u32,
        c: usize,
        request: u64,
        offset: u64,
        records: Vec<(u64, Option<Entry>)>,
        error: Option<KafkaError>,
        why: Served,
    ) {
        let b = self.broker(id);
        let (hw, leader, log_start) = (b.hw, b.lead.is_some(), b.log.start_offset);
        let n = records.len();
        let preferred = match why {
            Served::Redirect { to, .. } => Some(to),
            _ => None,
        };
        let resp = ConsumerFetchResponse { request, offset, records, hw, log_start, error, preferred };
        let msg = self.send(Node::Broker(id), Node::Consumer(c), Body::ConsumerFetchResponse(resp));
        self.emit(Event::ConsumerFetchAnswered { broker: id, consumer: c, leader, offset, records: n, hw, error, why, msg });
    }

    /// Releases consumer fetches parked on `id` now that its HW moved
    /// (the leader in `tryCompleteDelayedRequests`; a follower since KAFKA-14334).
    pub(crate) fn complete_consumer_fetches(&mut self, id: u32) {
        let hw = self.broker(id).hw;
        let ready: Vec<ParkedConsumerFetch> = self.broker(id).parked_consumers.iter().filter(|p| p.offset < hw).cloned().collect();
        for p in ready {
            self.broker_mut(id).parked_consumers.retain(|q| q.request != p.request);
            self.cancel(p.timer);
            let b = self.broker(id);
            let records: Vec<(u64, Option<Entry>)> = (p.offset..hw).map(|o| (o, b.log.get(o))).collect();
            let log_start = b.log.start_offset;
            let resp = ConsumerFetchResponse { request: p.request, offset: p.offset, records, hw, log_start, error: None, preferred: None };
            self.send(Node::Broker(id), Node::Consumer(p.consumer), Body::ConsumerFetchResponse(resp));
            self.emit(Event::ConsumerFetchReleased { broker: id, consumer: p.consumer });
        }
    }

    /// A consumer's parked fetch reaches fetch.max.wait.ms: `DelayedFetch.onComplete` reads again.
    pub(crate) fn expire_consumer_fetch(&mut self, id: u32, c: usize) {
        let Some(i) = self.broker(id).parked_consumers.iter().position(|p| p.consumer == c) else {
            return;
        };
        let p = self.broker_mut(id).parked_consumers.remove(i);
        self.serve_consumer(id, c, p.request, p.offset, true);
    }

    /// The consumer's `FetchCollector`: records advance its position; errors move it
    /// (auto.offset.reset), send it back to the leader, or refresh its metadata and
    /// back it off; then it fetches again.
    pub(crate) fn handle_consumer_fetch_response(&mut self, msg: &Msg, resp: &ConsumerFetchResponse) {
        let Node::Consumer(c) = msg.to else { return };
        let Node::Broker(from) = msg.from else { return };
        match self.consumers[c].fetch {
            Some(ConsumerFetch::InFlight { request, timeout, .. }) if request == resp.request => self.cancel(timeout),
            _ => return self.emit(Event::ConsumerResponseIgnored { consumer: c }),
        }
        self.consumers[c].fetch = None;
        let preferred = self.consumers[c].preferred.map(|p| p.0);
        match (resp.error, resp.preferred) {
            (Some(KafkaError::OffsetOutOfRange), _) if preferred == Some(from) => {
                self.consumers[c].preferred = None;
                self.emit(Event::ConsumerBackToLeader { consumer: c, from });
            }
            (Some(KafkaError::OffsetOutOfRange), _) => {
                let consumer = &mut self.consumers[c];
                match consumer.settings.auto_offset_reset {
                    OffsetReset::None => {
                        consumer.stopped = Some(KafkaError::OffsetOutOfRange);
                        return self.emit(Event::ConsumerStopped { consumer: c, error: KafkaError::OffsetOutOfRange });
                    }
                    OffsetReset::Earliest => consumer.position = resp.log_start,
                    OffsetReset::Latest => consumer.position = resp.hw,
                }
                consumer.position_epoch = None;
                let position = consumer.position;
                self.emit(Event::ConsumerOffsetReset { consumer: c, from, position });
            }
            (Some(error), _) => return self.consumer_error(c, error),
            (None, Some(to)) => {
                let until = self.now + self.consumers[c].settings.metadata_max_age_ms;
                self.consumers[c].preferred = Some((to, until));
                self.emit(Event::ConsumerRedirected { consumer: c, to });
            }
            (None, None) if resp.records.is_empty() => self.emit(Event::ConsumerGotNothing { consumer: c, from, hw: resp.hw }),
            (None, None) => {
                let n = resp.records.len() as u64;
                let consumer = &mut self.consumers[c];
                for (o, e) in &resp.records {
                    if let Some(e) = e {
                        consumer.read.push((*o, e.id));
                    }
                }
                consumer.position = resp.offset + n;
                consumer.position_epoch = Some(resp.records.last().and_then(|(_, e)| e.map(|e| e.epoch)).unwrap_or(0));
                consumer.records_read += n;
                let position = consumer.position;
                self.emit(Event::ConsumerReceived { consumer: c, from, count: n, position });
            }
        }
        self.send_consumer_fetch(c);
    }

    /// An error that means stale metadata or a lost replica: the consumer forgets its
    /// preferred replica, asks for new metadata and fetches again after retry.backoff.ms.
    fn consumer_error(&mut self, c: usize, error: KafkaError) {
        self.consumers[c].preferred = None;
        self.consumer_metadata(c, |n, out| client::request_metadata_update(n, Node::Consumer(c), out));
        let timer = self.set_timer(self.now + self.consumers[c].settings.retry_backoff_ms, Timer::ConsumerRequestTimeout { consumer: c });
        self.consumers[c].fetch = Some(ConsumerFetch::Backoff { timer });
        self.emit(Event::ConsumerFetchFailed { consumer: c, error });
    }

    /// No answer within request.timeout.ms (the connection is closed and new metadata
    /// wanted), or the retry backoff is over: fetch again.
    pub(crate) fn consumer_request_timeout(&mut self, c: usize) {
        let after_backoff = matches!(self.consumers[c].fetch, Some(ConsumerFetch::Backoff { .. }));
        if let Some(broker) = self.consumers[c].fetch_target() {
            self.close_conn(Node::Consumer(c), Node::Broker(broker));
            self.consumers[c].preferred = None;
            self.consumers[c].fetch = None;
            self.consumer_metadata(c, |n, out| client::disconnected(n, Node::Consumer(c), broker, out));
        }
        self.consumers[c].fetch = None;
        self.emit(Event::ConsumerRetries { consumer: c, after_backoff });
        self.send_consumer_fetch(c);
    }

    /// The broker reset the connection: the fetch in flight on it fails at once.
    pub(crate) fn consumer_connection_reset(&mut self, c: usize, broker: u32) {
        self.emit(Event::ConnectionReset {
            client: Node::Consumer(c),
            broker,
            requests: usize::from(self.consumers[c].fetch_target() == Some(broker)),
            refused: false,
        });
        self.consumer_metadata(c, |n, out| client::disconnected(n, Node::Consumer(c), broker, out));
        if self.consumers[c].fetch_target() == Some(broker) {
            if let Some(ConsumerFetch::InFlight { timeout, .. } | ConsumerFetch::Validating { timeout, .. }) = self.consumers[c].fetch {
                self.cancel(timeout);
            }
            self.consumers[c].fetch = None;
            self.consumer_error(c, KafkaError::NetworkException);
        }
    }

    /// One of the clients' metadata rules (`client.rs`, node functions) on consumer
    /// `c`, then its wake-up if the rule asks for one.
    fn consumer_metadata(&mut self, c: usize, rule: impl FnOnce(&mut Shared<Consumer>, &mut Out) -> Option<u64>) {
        if let Some(at) = self.consumer_rule(c, rule) {
            self.wake_consumer_at(c, at);
        }
    }

    /// The answer to consumer `c`'s metadata request (`client::metadata_response`).
    pub(crate) fn consumer_metadata_response(&mut self, c: usize, msg: &Msg, request: u64, leader: Option<u32>, leader_epoch: i32) {
        if let Some(changed) = self.consumer_rule(c, |n, out| client::metadata_response(n, msg, request, leader, leader_epoch, out)) {
            self.consumer_metadata_changed(c, changed);
        }
    }

    /// Consumer `c`'s metadata request timed out (`client::metadata_timeout`).
    pub(crate) fn consumer_metadata_timeout(&mut self, c: usize) {
        self.consumer_metadata(c, |n, out| client::metadata_timeout(n, Node::Consumer(c), out));
    }

    /// KIP-320 (2.1+): new metadata with a new leader epoch means the position must be
    /// validated before the next fetch; a consumer waiting for a leader fetches now.
    pub(crate) fn consumer_metadata_changed(&mut self, c: usize, changed: bool) {
        if changed && self.behavior.leader_epoch_fencing && self.consumers[c].position_epoch.is_some() {
            self.consumers[c].awaiting_validation = true;
        }
        if let Some(ConsumerFetch::Backoff { timer }) = self.consumers[c].fetch {
            if changed {
                self.cancel(timer);
                self.consumers[c].fetch = None;
                self.send_consumer_fetch(c);
            }
        }
    }

    /// A consumer's wake-up for its metadata (its refresh backoff ended, or the metadata is old).
    pub(crate) fn wake_consumer_at(&mut self, c: usize, at: u64) {
        let _ = (c, at);
        // Consumers fetch continuously; a refresh they want goes out with their next
        // fetch or retry (`maybe_update_metadata` is called there).
    }
}
