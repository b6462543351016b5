//! Serving a follower's Fetch: validation, the follower's fetch state, then an
//! answer at once or a place in the fetch purgatory.
//! Kafka: `ReplicaManager.fetchMessages`, `Partition.fetchRecords` / `readRecords`.

use crate::scenario::{ResponseHw, Truncation};
use crate::sim::event::{Answered, Event, HwCause, Ready, Rejection};
use crate::sim::log::Entry;
use crate::sim::msg::{Body, FetchRequest, FetchResponse, KafkaError, Msg, Node};
use crate::sim::scheduler::Timer;
use crate::sim::state::ParkedFetch;
use crate::sim::Sim;

impl Sim {
    /// `ReplicaManager.fetchMessages` → `Partition.fetchRecords` for a follower's Fetch
    /// (all versions): refuse it (`fetch_request_error`, out of range), answer a
    /// diverging epoch (2.8+), or record the follower's fetch state, move the HW,
    /// complete what that releases, and answer or park.
    pub(crate) fn handle_fetch_request(&mut self, msg: &Msg, req: &FetchRequest) {
        let Node::Broker(leader) = msg.to else { return };
        if let Some((error, why)) = self.fetch_request_error(leader, req) {
            return self.reject_fetch(msg, req, error, why);
        }
        let b = self.broker(leader);
        let initial_hw = b.hw;
        if let (Truncation::DivergingEpoch, Some(fetch_epoch)) = (self.behavior.truncation, req.last_fetched_epoch) {
            match b.log.end_offset_for(fetch_epoch) {
                None => {
                    return self.reject_fetch(msg, req, KafkaError::OffsetOutOfRange, Rejection::NoEpochEnd { epoch: fetch_epoch });
                }
                Some((end_epoch, end_offset)) if end_epoch < fetch_epoch || end_offset < req.fetch_offset => {
                    return self.answer_diverging(msg, req, end_epoch, end_offset, initial_hw);
                }
                Some(_) => {}
            }
        }
        let (start, leo) = (b.log.start_offset, b.log.leo());
        if req.fetch_offset > leo || req.fetch_offset < start {
            return self.reject_fetch(msg, req, KafkaError::OffsetOutOfRange, Rejection::OutOfRange { start, leo });
        }
        let follower = req.replica;
        let previous = self.lead(leader).followers.get(&follower).and_then(|v| v.leo);
        self.emit(Event::FollowerFetched { leader, follower, previous, fetch_offset: req.fetch_offset });
        let expanded = self.update_follower_fetch_state(leader, follower, req);
        let moved =
            if previous != Some(req.fetch_offset) || expanded { self.maybe_increment_leader_hw(leader, HwCause::Fetch) } else { None };
        match moved {
            Some(_) => self.try_complete_delayed_requests(leader),
            None => self.hw_stays(leader),
        }
        self.answer_or_park(msg, req, initial_hw);
    }

    /// `Partition.fetchRecords` → `getLocalLog`: NOT_LEADER_OR_FOLLOWER on a broker
    /// that does not lead (all versions); from 2.1 (KIP-320) FENCED_LEADER_EPOCH or
    /// UNKNOWN_LEADER_EPOCH for a Fetch in another leader epoch.
    fn fetch_request_error(&self, leader: u32, req: &FetchRequest) -> Option<(KafkaError, Rejection)> {
        let b = self.broker(leader);
        if b.lead.is_none() {
            return Some((KafkaError::NotLeaderOrFollower, Rejection::NotLeader));
        }
        let epoch = b.leader_epoch;
        if self.behavior.leader_epoch_fencing && req.current_leader_epoch != epoch {
            return Some(if req.current_leader_epoch < epoch {
                (KafkaError::FencedLeaderEpoch, Rejection::FencedEpoch { leader_epoch: epoch })
            } else {
                (KafkaError::UnknownLeaderEpoch, Rejection::UnknownEpoch { leader_epoch: epoch })
            });
        }
        None
    }

    /// `Partition.updateFollowerFetchState` and `Replica.updateFetchStateOrThrow`
    /// (3.x–4.0; every preset uses them): the follower's LEO becomes its fetch offset,
    /// lastCaughtUpTimeMs moves by the two catch-up rules, the broker epoch the Fetch
    /// carried is kept (3.5+, KIP-903), then `maybeExpandIsr`.
    /// Returns whether the ISR grew.
    fn update_follower_fetch_state(&mut self, leader: u32, follower: u32, req: &FetchRequest) -> bool {
        let (fetch_offset, log_start) = (req.fetch_offset, req.log_start_offset);
        let keeps_epoch = self.behavior.alter_partition_checks_broker_epochs;
        let now = self.now;
        let leo = self.broker(leader).log.leo();
        let ls = self.lead_mut(leader);
        let Some(view) = ls.followers.get_mut(&follower) else {
            return false;
        };
        if fetch_offset >= leo {
            view.last_caught_up_ms = Some(view.last_caught_up_ms.map_or(now, |t| t.max(now)));
        } else if let Some(last) = view.last_fetch_ms.filter(|_| fetch_offset >= view.last_fetch_leader_leo) {
            view.last_caught_up_ms = Some(view.last_caught_up_ms.map_or(last, |t| t.max(last)));
        }
        view.last_fetch_leader_leo = view.last_fetch_leader_leo.max(leo);
        view.last_fetch_ms = Some(now);
        view.leo = Some(fetch_offset);
        view.log_start_offset = log_start;
        if keeps_epoch {
            view.broker_epoch = req.broker_epoch;
        }
        self.maybe_expand_isr(leader, follower)
    }

    /// `Partition.readRecords` for a follower: from `offset`, at least one record and
    /// at most replica.fetch.max.bytes (all versions).
    pub(crate) fn read_for_follower(&self, leader: u32, offset: u64) -> Vec<(u64, Option<Entry>)> {
        let log = &self.broker(leader).log;
        let per = self.scenario.record_bytes.max(1);
        let max = (self.scenario.config.replica_fetch_max_bytes / per).max(1);
        let end = log.leo().min(offset.saturating_add(max));
        (offset..end).map(|o| (o, log.get(o))).collect()
    }

    /// `ReplicaManager.fetchMessages`' last step (all versions): respond at once unless
    /// long-poll may wait (replica.fetch.wait.max.ms > 0; none in `textbook`) and
    /// `delayed_fetch_ready` finds nothing to complete; otherwise park in the fetch
    /// purgatory. The answer carries the HW read before this fetch moved it
    /// (`initialHighWatermark`, KAFKA-7104) or after it, by `response_hw`.
    fn answer_or_park(&mut self, msg: &Msg, req: &FetchRequest, initial_hw: u64) {
        let Node::Broker(leader) = msg.to else { return };
        let follower = req.replica;
        let wait = self.scenario.config.replica_fetch_wait_max_ms;
        let (leo, hw) = (self.broker(leader).log.leo(), self.broker(leader).hw);
        let bytes = (leo - req.fetch_offset) * self.scenario.record_bytes;
        let last_sent = self.lead(leader).followers.get(&follower).map_or(u64::MAX, |v| v.last_sent_hw);
        // 2.4–2.5: `followerNeedsHwUpdate` compares the HW read before this fetch; a fetch
        // that itself moved the HW is parked and at once released by Case H.
        let stale_before = self.behavior.hw_move_completes_follower_fetch && last_sent < initial_hw;
        let why = if !self.behavior.long_poll {
            Some(Answered::NoLongPoll)
        } else if wait == 0 {
            Some(Answered::NoWait)
        } else {
            self.delayed_fetch_ready(leader, req.fetch_offset, last_sent).map(|ready| match ready {
                Ready::Bytes if bytes > 0 => Answered::Data,
                Ready::Bytes => Answered::MinBytesZero,
                Ready::HwStale if stale_before => Answered::StaleHw,
                Ready::HwStale => Answered::CaseH,
            })
        };
        let Some(why) = why else {
            let expire_ms = self.now + wait;
            let timer = self.set_timer(expire_ms, Timer::FetchExpiry { leader, follower });
            self.lead_mut(leader).parked_fetches.push(ParkedFetch { follower, request: msg.id, req: *req, expire_ms, timer });
            return self.emit(Event::FetchParked { leader, follower, hw_before: initial_hw, hw, wait, expire_ms });
        };
        // A Case H release re-reads the HW: the response carries the current one.
        let case_h = self.behavior.long_poll
            && self.behavior.hw_move_completes_follower_fetch
            && last_sent < hw
            && !stale_before
            && bytes < self.scenario.config.replica_fetch_min_bytes.max(1);
        let hw_sent = match self.behavior.response_hw {
            _ if case_h => hw,
            ResponseHw::AfterFetch => hw,
            ResponseHw::BeforeFetch => initial_hw,
        };
        let records = self.read_for_follower(leader, req.fetch_offset);
        let n = records.len();
        let sent = self.send_fetch_response(leader, follower, msg.id, req.fetch_offset, records, hw_sent, None, None);
        self.emit(Event::FetchAnswered {
            leader,
            follower,
            fetch_offset: req.fetch_offset,
            records: n,
            hw_before: initial_hw,
            hw_sent,
            hw,
            why,
            msg: sent,
        });
    }

    /// The leader's Fetch response to a follower; it remembers the HW it sent
    /// (`lastSentHighWatermark`, what 2.4–2.5's Case H compares).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn send_fetch_response(
        &mut self,
        leader: u32,
        follower: u32,
        request: u64,
        fetch_offset: u64,
        records: Vec<(u64, Option<Entry>)>,
        hw: u64,
        error: Option<KafkaError>,
        diverging_epoch: Option<(i32, u64)>,
    ) -> u64 {
        let b = self.broker(leader);
        let resp = FetchResponse {
            request,
            fetch_offset,
            records,
            hw,
            log_start_offset: b.log.start_offset,
            leader_leo: b.log.leo(),
            error,
            diverging_epoch,
        };
        if let Some(v) = self.broker_mut(leader).lead.as_mut().and_then(|ls| ls.followers.get_mut(&follower)) {
            v.last_sent_hw = hw;
        }
        self.send(Node::Broker(leader), Node::Broker(follower), Body::FetchResponse(resp))
    }

    /// An error answer, with no records and the leader's HW.
    fn reject_fetch(&mut self, msg: &Msg, req: &FetchRequest, error: KafkaError, why: Rejection) {
        let Node::Broker(leader) = msg.to else { return };
        let hw = self.broker(leader).hw;
        let sent = self.send_fetch_response(leader, req.replica, msg.id, req.fetch_offset, Vec::new(), hw, Some(error), None);
        self.emit(Event::FetchRejected { leader, follower: req.replica, error, why, msg: sent });
    }

    /// `Partition.readRecords` (2.8+, KAFKA-10554): the follower's last fetched epoch
    /// ends earlier on the leader, so the answer is a diverging epoch, no records, and
    /// no update of the follower's state.
    fn answer_diverging(&mut self, msg: &Msg, req: &FetchRequest, epoch: i32, end_offset: u64, initial_hw: u64) {
        let Node::Broker(leader) = msg.to else { return };
        let sent = self.send_fetch_response(
            leader,
            req.replica,
            msg.id,
            req.fetch_offset,
            Vec::new(),
            initial_hw,
            None,
            Some((epoch, end_offset)),
        );
        self.emit(Event::DivergingAnswered { leader, follower: req.replica, epoch, end_offset, msg: sent });
    }
}
