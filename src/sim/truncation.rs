//! Where a follower's log departs from the leader's, by version: its own HW
//! (≤0.10), OffsetsForLeaderEpoch (0.11 KIP-101, 2.0 KIP-279), the diverging
//! epoch in the Fetch response (2.8+), and OFFSET_OUT_OF_RANGE.
//! Kafka: `AbstractFetcherThread`, `Partition.lastOffsetForLeaderEpoch`, `UnifiedLog.truncateTo`.

use super::event::{Event, TruncationRule};
use super::msg::{Body, FetchResponse, KafkaError, Msg, Node};
use super::scheduler::Timer;
use super::state::FetcherState;
use super::Sim;
use crate::scenario::Truncation;

impl Sim {
    /// `UnifiedLog.truncateTo`, then the HW clamped to the new LEO (applied by `emit`).
    pub(crate) fn truncate(&mut self, id: u32, offset: u64, rule: TruncationRule) {
        let leo_before = self.broker(id).log.leo();
        self.emit(Event::Truncated { broker: id, leo_before, to: offset.min(leo_before), rule });
    }

    /// `AbstractFetcherThread.truncateOnFetchResponse` (2.8+, KAFKA-10554): the leader
    /// answered a diverging epoch (E, O); the follower truncates where its own log
    /// agrees with it (`getOffsetTruncationState`), without taking an HW this round
    /// (KAFKA-14704), and fetches again.
    pub(crate) fn truncate_on_diverging_epoch(&mut self, id: u32, epoch: i32, end_offset: u64) {
        let (target, _complete) = self.offset_truncation_state(id, Some(epoch), end_offset);
        self.truncate(id, target, TruncationRule::DivergingEpoch);
        self.send_fetch(id);
    }

    /// `AbstractFetcherThread.fetchOffsetAndTruncate` after OFFSET_OUT_OF_RANGE: a
    /// leader whose log ends before the follower's (its LEO stands in for the
    /// ListOffsets round trip) makes it truncate to that end, unless the broker halts
    /// (`halt_if_truncation_not_allowed`, up to 2.0); otherwise the follower starts
    /// over from the leader's log start.
    pub(crate) fn fetch_offset_and_truncate(&mut self, id: u32, resp: &FetchResponse) {
        let leo = self.broker(id).log.leo();
        if resp.leader_leo < leo {
            if self.halt_if_truncation_not_allowed(id, resp.leader_leo, leo) {
                return;
            }
            self.truncate(id, resp.leader_leo, TruncationRule::OffsetOutOfRange);
        } else {
            self.truncate(id, 0, TruncationRule::OffsetOutOfRange);
            self.emit(Event::LogStartReset { broker: id, start: resp.log_start_offset });
        }
        self.send_fetch(id);
    }

    /// `ReplicaFetcherThread.handleOffsetOutOfRange` up to 2.0 (the check KAFKA-3410
    /// added; KAFKA-7414 removed it in 2.0.1/2.1): a leader whose log ends before the
    /// follower's, with unclean.leader.election.enable off, would mean truncating
    /// records the follower may have had committed, so the broker exits ("Exiting
    /// because log truncation is not allowed"). It stops as a crash does: the
    /// controller notices when its session expires. Returns whether it halted.
    fn halt_if_truncation_not_allowed(&mut self, id: u32, leader_leo: u64, leo: u64) -> bool {
        if !self.behavior.out_of_range_halts || self.settings.unclean_leader_election_enable {
            return false;
        }
        self.emit(Event::Halted { broker: id, leader_leo, leo });
        self.crash(id, 0, false);
        true
    }

    /// `AbstractFetcherThread.getOffsetTruncationState` for a leader's answer
    /// (E_l, O_l): where to truncate, and whether truncation is complete (KIP-279).
    fn offset_truncation_state(&self, id: u32, leader_epoch: Option<i32>, leader_end: u64) -> (u64, bool) {
        let log = &self.broker(id).log;
        let leo = log.leo();
        let Some(e_l) = leader_epoch else {
            return (leader_end.min(leo), true);
        };
        match log.end_offset_for(e_l) {
            None => (leader_end.min(leo), true),
            Some((e_f, o_f)) if e_f != e_l => (o_f.min(leo), false),
            Some((_, o_f)) => (o_f.min(leader_end).min(leo), true),
        }
    }

    /// Becoming a follower under the preset's truncation rule.
    /// `kafka-0.10`: `ReplicaManager.makeFollowers` truncates to the replica's own HW.
    /// `kafka-0.11`/`2.0`: truncation waits for OffsetsForLeaderEpoch.
    /// `kafka-2.8`+: nothing here; the Fetch's last fetched epoch finds any divergence.
    pub(crate) fn truncate_on_become_follower(&mut self, id: u32) {
        match self.behavior.truncation {
            Truncation::HighWatermark => {
                let b = self.broker(id);
                if b.hw < b.log.leo() {
                    self.truncate(id, b.hw, TruncationRule::HighWatermark);
                }
            }
            Truncation::EpochRequest | Truncation::EpochRequestMultiRound => self.broker_mut(id).needs_truncation = true,
            Truncation::DivergingEpoch => {}
        }
    }

    /// `AbstractFetcherThread.maybeTruncate` (0.11–2.7): OffsetsForLeaderEpoch for the
    /// follower's latest epoch.
    pub(crate) fn send_offsets_for_leader_epoch(&mut self, id: u32) {
        self.clear_fetcher(id);
        let b = self.broker(id);
        let Some(leader) = b.leader.filter(|&l| l != id) else {
            return;
        };
        let epoch = b.log.latest_epoch();
        let current_leader_epoch = b.leader_epoch;
        let msg = self.send(Node::Broker(id), Node::Broker(leader), Body::OffsetsForLeaderEpoch { epoch, current_leader_epoch });
        let timeout = self.set_timer(self.now + self.fetcher_timeout_ms(id, leader), Timer::FetchRequestTimeout { follower: id });
        self.broker_mut(id).fetcher = FetcherState::Truncating { request: msg, timeout };
        self.emit(Event::EpochQuerySent { follower: id, leader, epoch, msg });
    }

    /// The leader answers OffsetsForLeaderEpoch (0.11+, KIP-101, `Partition.lastOffsetForLeaderEpoch`).
    /// Before 2.0 (v0) the answer is an end offset only; from 2.1 (KIP-320) a request in
    /// an older leader epoch is fenced.
    pub(crate) fn handle_offsets_for_leader_epoch(&mut self, msg: &Msg, epoch: i32, current_leader_epoch: i32) {
        let Node::Broker(leader) = msg.to else { return };
        let b = self.broker(leader);
        let (answer, error) = if b.lead.is_none() {
            (None, Some(KafkaError::NotLeaderOrFollower))
        } else if self.behavior.leader_epoch_fencing && current_leader_epoch < b.leader_epoch {
            (None, Some(KafkaError::FencedLeaderEpoch))
        } else if self.behavior.leader_epoch_fencing && current_leader_epoch > b.leader_epoch {
            (None, Some(KafkaError::UnknownLeaderEpoch))
        } else {
            (b.log.end_offset_for(epoch), None)
        };
        let v0 = self.behavior.truncation == Truncation::EpochRequest;
        let answer = answer.map(|(e, o)| if v0 { (-1, o) } else { (e, o) });
        let body = Body::OffsetsForLeaderEpochResponse { request: msg.id, requested: epoch, answer, error };
        let sent = self.send(msg.to, msg.from, body);
        self.emit(Event::EpochEndAnswered { leader, requester: msg.from, epoch, answer, error, msg: sent });
    }

    /// The follower truncates by the leader's answer (`AbstractFetcherThread.truncateToEpochEndOffsets`):
    /// complete, it fetches; otherwise (KIP-279) it asks again about its own latest epoch.
    pub(crate) fn handle_offsets_for_leader_epoch_response(
        &mut self,
        msg: &Msg,
        request: u64,
        answer: Option<(i32, u64)>,
        error: Option<KafkaError>,
    ) {
        let Node::Broker(id) = msg.to else { return };
        if !matches!(self.broker(id).fetcher, FetcherState::Truncating { request: r, .. } if r == request) {
            return self.emit(Event::EpochEndIgnored { follower: id });
        }
        self.clear_fetcher(id);
        if let Some(error) = error {
            self.fetch_later(id, self.scenario.config.replica_fetch_backoff_ms);
            return self.emit(Event::EpochQueryFailed { follower: id, error });
        }
        let leo = self.broker(id).log.leo();
        let (target, complete) = match answer {
            // UNDEFINED: fall back to the HW (`truncateToHighWatermark`).
            None => (self.broker(id).hw.min(leo), true),
            Some((-1, o)) => self.offset_truncation_state(id, None, o),
            Some((e, o)) => self.offset_truncation_state(id, Some(e), o),
        };
        let rule = if self.behavior.truncation == Truncation::EpochRequest {
            TruncationRule::EpochRequest
        } else {
            TruncationRule::EpochRequestMultiRound
        };
        self.truncate(id, target, rule);
        if complete {
            self.broker_mut(id).needs_truncation = false;
            self.send_fetch(id);
        } else {
            self.send_offsets_for_leader_epoch(id);
        }
    }
}
