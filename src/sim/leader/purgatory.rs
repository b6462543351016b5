//! The leader's purgatories: follower fetches waiting for data (`DelayedFetch`)
//! and acks=all writes waiting for the HW (`DelayedProduce`), completed when
//! something they wait for happens and expired by their timers.

use crate::sim::event::{Event, Ready, Released};
use crate::sim::msg::{Body, KafkaError, Node};
use crate::sim::state::{DelayedProduce, ParkedFetch};
use crate::sim::Sim;

impl Sim {
    /// `DelayedFetch.tryComplete` for a follower's fetch at `fetch_offset`: the one
    /// readiness decision, at arrival and for a parked fetch. Ready when the records
    /// past it reach replica.fetch.min.bytes, or (2.4–2.5, KIP-392 / KAFKA-8443 "Case
    /// H", removed in 2.6 by KAFKA-9952) when the HW last sent to this follower is stale.
    pub(crate) fn delayed_fetch_ready(&self, leader: u32, fetch_offset: u64, last_sent_hw: u64) -> Option<Ready> {
        let b = self.broker(leader);
        let bytes = b.log.leo().saturating_sub(fetch_offset) * self.scenario.record_bytes;
        if bytes >= self.scenario.config.replica_fetch_min_bytes {
            Some(Ready::Bytes)
        } else if self.behavior.hw_move_completes_follower_fetch && last_sent_hw < b.hw {
            Some(Ready::HwStale)
        } else {
            None
        }
    }

    /// `DelayedOperations.checkAndCompleteAll` after the HW moved: parked consumer
    /// fetches, follower fetches (where the preset releases them on an HW move),
    /// then delayed produces.
    pub(crate) fn try_complete_delayed_requests(&mut self, leader: u32) {
        self.complete_consumer_fetches(leader);
        if self.behavior.hw_move_completes_follower_fetch {
            self.complete_follower_fetches(leader, Released::HwMoved);
        }
        self.complete_delayed_produces(leader);
        if !self.behavior.hw_move_completes_follower_fetch && self.behavior.long_poll {
            // Said for the narration: an HW move alone does not release them.
            let parked = self.broker(leader).lead.as_ref().map_or(0, |ls| ls.parked_fetches.len());
            for i in 0..parked {
                let follower = self.lead(leader).parked_fetches[i].follower;
                self.emit(Event::FollowerFetchStaysParked { leader, follower });
            }
        }
    }

    /// Answers the parked follower fetches that `delayed_fetch_ready` now completes,
    /// each with the records past its offset and the current HW.
    pub(crate) fn complete_follower_fetches(&mut self, leader: u32, why: Released) {
        let Some(ls) = self.broker(leader).lead.as_ref() else {
            return;
        };
        let ready: Vec<ParkedFetch> = ls
            .parked_fetches
            .iter()
            .filter(|p| {
                let last_sent = ls.followers.get(&p.follower).map_or(u64::MAX, |v| v.last_sent_hw);
                self.delayed_fetch_ready(leader, p.req.fetch_offset, last_sent).is_some()
            })
            .cloned()
            .collect();
        let hw = self.broker(leader).hw;
        for p in ready {
            if let Some(ls) = self.broker_mut(leader).lead.as_mut() {
                ls.parked_fetches.retain(|q| q.request != p.request);
            }
            self.cancel(p.timer);
            let records = self.read_for_follower(leader, p.req.fetch_offset);
            self.send_fetch_response(leader, p.follower, p.request, p.req.fetch_offset, records, hw, None, None);
            self.emit(Event::FollowerFetchReleased { leader, follower: p.follower, hw, why });
        }
    }

    /// A parked fetch reaches replica.fetch.wait.max.ms: `DelayedFetch.onExpiration` →
    /// `onComplete` reads again and reports the HW as it is now (all versions).
    pub(crate) fn expire_parked_fetch(&mut self, leader: u32, follower: u32) {
        let Some(ls) = self.broker_mut(leader).lead.as_mut() else {
            return;
        };
        let Some(i) = ls.parked_fetches.iter().position(|p| p.follower == follower) else {
            return;
        };
        let parked = ls.parked_fetches.remove(i);
        let hw = self.broker(leader).hw;
        let fetch_offset = parked.req.fetch_offset;
        let records = self.read_for_follower(leader, fetch_offset);
        let n = records.len();
        let msg = self.send_fetch_response(leader, follower, parked.request, fetch_offset, records, hw, None, None);
        self.emit(Event::ParkedFetchExpired { leader, follower, fetch_offset, records: n, hw, msg });
    }

    /// `DelayedProduce.tryComplete` → `Partition.checkEnoughReplicasReachOffset`: a
    /// write whose offset the HW has passed is answered; with an ISR below the min
    /// ISR by then, NOT_ENOUGH_REPLICAS_AFTER_APPEND.
    pub(crate) fn complete_delayed_produces(&mut self, leader: u32) {
        let Some(ls) = self.broker(leader).lead.as_ref() else {
            return;
        };
        let hw = self.broker(leader).hw;
        let maximal = ls.maximal_isr().len() as u32;
        let ready: Vec<DelayedProduce> = ls.delayed_produces.iter().filter(|d| hw >= d.required_offset).cloned().collect();
        for d in ready {
            if let Some(ls) = self.broker_mut(leader).lead.as_mut() {
                ls.delayed_produces.retain(|q| q.request != d.request);
            }
            self.cancel(d.timer);
            let error = (maximal < self.effective_min_isr()).then_some(KafkaError::NotEnoughReplicasAfterAppend);
            let body = Body::ProduceResponse { request: d.request, ids: d.ids, error, current_leader: None, duplicate: d.duplicate };
            let msg = self.send(Node::Broker(leader), Node::Producer(d.producer), body);
            self.emit(Event::ProduceCompleted { leader, producer: d.producer, required_offset: d.required_offset, error, msg });
        }
    }

    /// `DelayedProduce.onExpiration` (all versions): the write's request timeout passes
    /// without the HW reaching it: REQUEST_TIMED_OUT (the records stay in the log).
    pub(crate) fn expire_delayed_produce(&mut self, leader: u32, request: u64) {
        let Some(ls) = self.broker_mut(leader).lead.as_mut() else {
            return;
        };
        let Some(i) = ls.delayed_produces.iter().position(|d| d.request == request) else {
            return;
        };
        let d = ls.delayed_produces.remove(i);
        let body =
            Body::ProduceResponse { request, ids: d.ids, error: Some(KafkaError::RequestTimedOut), current_leader: None, duplicate: false };
        let msg = self.send(Node::Broker(leader), Node::Producer(d.producer), body);
        self.emit(Event::DelayedProduceExpired { leader, producer: d.producer, required_offset: d.required_offset, msg });
    }
}
