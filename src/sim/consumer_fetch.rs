//! A broker's side of consumer fetches: the leader, or the follower the leader
//! names (KIP-392), serves records below its own HW
//! (`FetchIsolation.HIGH_WATERMARK`); a fetch at the HW waits in the purgatory
//! until the HW moves or fetch.max.wait.ms passes. The consumer's own rules are
//! node functions in `consumer.rs`.
//! Kafka: `ReplicaManager.fetchMessages`, `ReplicaManager.findPreferredReadReplica`,
//! `LocalLog.read`, `DelayedFetch`.

use super::event::{Event, Served};
use super::log::Entry;
use super::msg::{Body, ConsumerFetchResponse, KafkaError, Msg, Node};
use super::scheduler::Timer;
use super::state::ParkedConsumerFetch;
use super::Sim;
use crate::scenario::AboveHw;

impl Sim {
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
}
