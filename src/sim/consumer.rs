//! Consumers, reading from the leader or from a follower (KIP-392). A replica
//! serves only records below its own HW (`FetchIsolation.HIGH_WATERMARK`).
//! Kafka: `LocalLog.read`, `DelayedFetch`, `ReplicaManager.findPreferredReadReplica`,
//! the consumer's `Fetcher` / `FetchCollector`.

use super::event::{Event, Served};
use super::log::Entry;
use super::msg::{Body, ConsumerFetchResponse, KafkaError, Msg, Node};
use super::pvec::PVec;
use super::scheduler::Timer;
use super::state::{Consumer, ConsumerFetch, ParkedConsumerFetch};
use super::Sim;
use crate::scenario::{AboveHw, ConsumerSpec};

/// The consumer's retry.backoff.ms after an error.
pub const RETRY_BACKOFF_MS: u64 = 100;

impl Sim {
    /// A consumer joins at its position and sends its first fetch.
    pub(crate) fn add_consumer(&mut self, spec: ConsumerSpec) {
        let position = spec.position.unwrap_or(self.scenario.initial.log_end_offset);
        self.consumers.push(Consumer { spec, position, records_read: 0, read: PVec::new(), fetch: None, use_leader: false });
        self.send_consumer_fetch(self.consumers.len() - 1);
    }

    /// Where the consumer's next fetch goes: its preferred follower, else the leader.
    fn consumer_target(&self, c: usize) -> Option<u32> {
        let consumer = &self.consumers[c];
        match consumer.spec.fetch_from {
            Some(f) if self.behavior.follower_fetching && !consumer.use_leader => Some(f),
            _ => self.controller.leader,
        }
    }

    /// `Fetcher.sendFetches`: a fetch at the consumer's position, or (no leader known)
    /// a retry after retry.backoff.ms.
    fn send_consumer_fetch(&mut self, c: usize) {
        let Some(broker) = self.consumer_target(c) else {
            let timer = self.set_timer(self.now + RETRY_BACKOFF_MS, Timer::ConsumerRequestTimeout { consumer: c });
            self.consumers[c].fetch = Some(ConsumerFetch::Backoff { timer });
            return self.emit(Event::ConsumerWaitsForLeader { consumer: c });
        };
        let offset = self.consumers[c].position;
        let msg = self.send(Node::Consumer(c), Node::Broker(broker), Body::ConsumerFetch { offset });
        let timeout = self.set_timer(self.now + self.consumers[c].spec.request_timeout_ms, Timer::ConsumerRequestTimeout { consumer: c });
        self.consumers[c].fetch = Some(ConsumerFetch::InFlight { broker, request: msg, timeout });
        self.emit(Event::ConsumerFetchSent { consumer: c, broker, offset, msg });
    }

    /// A consumer fetch arrives at a broker (`ReplicaManager.fetchMessages`): a replica
    /// that neither leads nor is the consumer's preferred one refuses it; the leader
    /// names the preferred read replica when there is one (`findPreferredReadReplica`).
    pub(crate) fn handle_consumer_fetch(&mut self, msg: &Msg, offset: u64) {
        let Node::Broker(id) = msg.to else { return };
        let Node::Consumer(c) = msg.from else { return };
        let is_leader = self.broker(id).lead.is_some();
        let preferred = self.consumers[c].spec.fetch_from.filter(|_| self.behavior.follower_fetching);
        if !is_leader && preferred != Some(id) {
            let error = Some(KafkaError::NotLeaderOrFollower);
            return self.answer_consumer(id, c, msg.id, offset, Vec::new(), error, Served::NotLeader);
        }
        if let Some(to) = preferred.filter(|_| is_leader).and_then(|f| self.find_preferred_read_replica(id, f, offset)) {
            self.consumers[c].use_leader = false;
            return self.answer_consumer(id, c, msg.id, offset, Vec::new(), None, Served::Redirect { to });
        }
        self.serve_consumer(id, c, msg.id, offset, false);
    }

    /// `ReplicaManager.findPreferredReadReplica` (2.4+, KIP-392): the leader names the
    /// consumer's preferred replica `f` when it is another live ISR member that has
    /// the offset.
    fn find_preferred_read_replica(&self, leader: u32, f: u32, offset: u64) -> Option<u32> {
        let ls = self.broker(leader).lead.as_ref()?;
        let has_offset = ls.followers.get(&f).and_then(|v| v.leo).is_some_and(|leo| leo >= offset);
        (f != leader && ls.isr.contains(&f) && has_offset && self.broker(f).alive).then_some(f)
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
        let (hw, leader) = (b.hw, b.lead.is_some());
        let n = records.len();
        let preferred = match why {
            Served::Redirect { to } => Some(to),
            _ => None,
        };
        let resp = ConsumerFetchResponse { request, offset, records, hw, error, preferred };
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
            let log = &self.broker(id).log;
            let records: Vec<(u64, Option<Entry>)> = (p.offset..hw).map(|o| (o, log.get(o))).collect();
            let resp = ConsumerFetchResponse { request: p.request, offset: p.offset, records, hw, error: None, preferred: None };
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

    /// The consumer's `FetchCollector`: records advance its position; errors reset it
    /// (auto.offset.reset), send it back to the leader, or back it off; then it fetches again.
    pub(crate) fn handle_consumer_fetch_response(&mut self, msg: &Msg, resp: &ConsumerFetchResponse) {
        let Node::Consumer(c) = msg.to else { return };
        let Node::Broker(from) = msg.from else { return };
        match self.consumers[c].fetch {
            Some(ConsumerFetch::InFlight { request, timeout, .. }) if request == resp.request => self.cancel(timeout),
            _ => return self.emit(Event::ConsumerResponseIgnored { consumer: c }),
        }
        self.consumers[c].fetch = None;
        match (resp.error, resp.preferred) {
            (Some(KafkaError::OffsetOutOfRange), _)
                if self.consumers[c].spec.fetch_from == Some(from) && self.broker(from).lead.is_none() =>
            {
                self.consumers[c].use_leader = true;
                self.emit(Event::ConsumerBackToLeader { consumer: c, from });
            }
            (Some(KafkaError::OffsetOutOfRange), _) => {
                let position = resp.hw.min(self.consumers[c].position);
                self.consumers[c].position = position;
                self.emit(Event::ConsumerOffsetReset { consumer: c, from, position });
            }
            (Some(error), _) => {
                let timer = self.set_timer(self.now + RETRY_BACKOFF_MS, Timer::ConsumerRequestTimeout { consumer: c });
                self.consumers[c].fetch = Some(ConsumerFetch::Backoff { timer });
                return self.emit(Event::ConsumerFetchFailed { consumer: c, error });
            }
            (None, Some(to)) => self.emit(Event::ConsumerRedirected { consumer: c, to }),
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
                consumer.records_read += n;
                let position = consumer.position;
                self.emit(Event::ConsumerReceived { consumer: c, from, count: n, position });
            }
        }
        self.send_consumer_fetch(c);
    }

    /// No answer within request.timeout.ms (or the retry backoff is over): fetch again.
    pub(crate) fn consumer_request_timeout(&mut self, c: usize) {
        let after_backoff = matches!(self.consumers[c].fetch, Some(ConsumerFetch::Backoff { .. }));
        self.consumers[c].fetch = None;
        self.emit(Event::ConsumerRetries { consumer: c, after_backoff });
        self.send_consumer_fetch(c);
    }
}
