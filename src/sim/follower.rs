//! The follower: its fetcher loop and `processPartitionData`.
//! Kafka: `AbstractFetcherThread`, `ReplicaFetcherThread`.

use super::event::Event;
use super::msg::{Body, FetchRequest, FetchResponse, KafkaError, Msg, Node};
use super::scheduler::Timer;
use super::state::{FetcherState, Role};
use super::Sim;
use crate::scenario::Truncation;

impl Sim {
    /// A follower (re)starts its fetcher: truncate first where the preset says so, then fetch.
    pub(crate) fn start_fetching(&mut self, id: u32) {
        let b = self.broker(id);
        if !b.alive || b.role != Role::Follower {
            return;
        }
        if b.needs_truncation && matches!(self.behavior.truncation, Truncation::EpochRequest | Truncation::EpochRequestMultiRound) {
            self.send_offsets_for_leader_epoch(id);
        } else {
            self.send_fetch(id);
        }
    }

    /// `AbstractFetcherThread.maybeFetch`: Fetch(fetch offset = LEO, last fetched epoch).
    pub(crate) fn send_fetch(&mut self, id: u32) {
        self.clear_fetcher(id);
        let b = self.broker(id);
        let fetch_offset = b.log.leo();
        let Some(leader) = b.leader.filter(|&l| l != id) else {
            return self.emit(Event::FetchSent { follower: id, leader: None, fetch_offset, msg: None });
        };
        let req = FetchRequest {
            replica: id,
            broker_epoch: b.broker_epoch.filter(|_| self.behavior.alter_partition_checks_broker_epochs),
            fetch_offset,
            last_fetched_epoch: if self.behavior.truncation == Truncation::DivergingEpoch { b.log.last_epoch() } else { None },
            current_leader_epoch: b.leader_epoch,
            log_start_offset: b.log.start_offset,
        };
        let msg = self.send(Node::Broker(id), Node::Broker(leader), Body::Fetch(req));
        let timeout = self.set_timer(self.now + self.fetcher_timeout_ms(id, leader), Timer::FetchRequestTimeout { follower: id });
        self.broker_mut(id).fetcher = FetcherState::Fetching { request: msg, timeout };
        self.emit(Event::FetchSent { follower: id, leader: Some(leader), fetch_offset, msg: Some(msg) });
    }

    /// Cancels whatever the fetcher was waiting for.
    pub(crate) fn clear_fetcher(&mut self, id: u32) {
        match self.broker(id).fetcher {
            FetcherState::Fetching { timeout, .. } | FetcherState::Truncating { timeout, .. } => self.cancel(timeout),
            FetcherState::Waiting { timer } => self.cancel(timer),
            FetcherState::Idle => {}
        }
        self.broker_mut(id).fetcher = FetcherState::Idle;
    }

    /// The fetcher waits `delay_ms` before fetching again (`AbstractFetcherThread`'s
    /// backoff; in `textbook`, the idle poll).
    pub(crate) fn fetch_later(&mut self, id: u32, delay_ms: u64) {
        self.clear_fetcher(id);
        let timer = self.set_timer(self.now + delay_ms, Timer::FetcherRetry { follower: id });
        self.broker_mut(id).fetcher = FetcherState::Waiting { timer };
    }

    /// The fetcher's wait is over (an idle poll in `textbook`, or a backoff): fetch
    /// again, or ask again where the epoch ends if truncation is not done.
    pub(crate) fn fetcher_retry(&mut self, id: u32) {
        self.broker_mut(id).fetcher = FetcherState::Idle;
        let b = self.broker(id);
        if b.leader.filter(|_| b.alive && b.role == Role::Follower).is_none() {
            return self.emit(Event::FetcherNoLeader { broker: id });
        }
        if b.needs_truncation && matches!(self.behavior.truncation, Truncation::EpochRequest | Truncation::EpochRequestMultiRound) {
            return self.start_fetching(id);
        }
        self.send_fetch(id);
    }

    /// How long the fetcher waits for an answer: the broker's request.timeout.ms
    /// (`BrokerBlockingSender`'s NetworkClient, F6 in docs/exactness.md), or, while its
    /// connection to the leader is not made, replica.socket.timeout.ms
    /// (`NetworkClientUtils.awaitReady`).
    pub(crate) fn fetcher_timeout_ms(&self, id: u32, leader: u32) -> u64 {
        let c = &self.scenario.config;
        if self.net.would_wait_for_connection(Node::Broker(id), Node::Broker(leader)) {
            c.replica_socket_timeout_ms
        } else {
            c.broker_request_timeout_ms()
        }
    }

    /// The Fetch got no answer in time: the connection is closed (what TCP held on it is
    /// gone), and the fetcher backs off replica.fetch.backoff.ms before fetching again.
    pub(crate) fn fetch_request_timeout(&mut self, id: u32) {
        if let Some(leader) = self.broker(id).leader {
            self.close_conn(Node::Broker(id), Node::Broker(leader));
        }
        self.broker_mut(id).fetcher = FetcherState::Idle;
        self.fetch_later(id, self.scenario.config.replica_fetch_backoff_ms);
        self.emit(Event::FetchRequestTimedOut { follower: id });
    }

    /// The leader's kernel reset the connection (the leader was killed): the Fetch in
    /// flight fails at once, and the fetcher backs off replica.fetch.backoff.ms.
    pub(crate) fn follower_connection_reset(&mut self, id: u32, leader: u32) {
        let waiting = matches!(self.broker(id).fetcher, FetcherState::Fetching { .. } | FetcherState::Truncating { .. });
        if !waiting || self.broker(id).leader != Some(leader) {
            return self.emit(Event::ResetIgnored { node: Node::Broker(id), from: leader });
        }
        self.clear_fetcher(id);
        self.fetch_later(id, self.scenario.config.replica_fetch_backoff_ms);
        self.emit(Event::FollowerConnectionReset { follower: id, leader });
    }

    /// A Fetch response arrives at the follower (`AbstractFetcherThread.processFetchRequest`).
    pub(crate) fn handle_fetch_response(&mut self, msg: &Msg, resp: &FetchResponse) {
        let Node::Broker(id) = msg.to else { return };
        let Node::Broker(leader) = msg.from else {
            return;
        };
        let current = matches!(self.broker(id).fetcher, FetcherState::Fetching { request, .. } if request == resp.request);
        if !current {
            return self.emit(Event::FetchResponseIgnored { follower: id, leader });
        }
        self.clear_fetcher(id);
        if let Some(error) = resp.error {
            return self.fetch_failed(id, leader, error, resp);
        }
        if let Some((epoch, end_offset)) = resp.diverging_epoch {
            return self.truncate_on_diverging_epoch(id, epoch, end_offset);
        }
        self.process_partition_data(id, leader, resp);
    }

    /// `ReplicaFetcherThread.processPartitionData` (all versions): append, then
    /// HW = max(log start, min(leader HW, LEO)), then the log start offset; from 3.4
    /// (KAFKA-14334) an HW move releases consumer fetches parked here.
    fn process_partition_data(&mut self, id: u32, leader: u32, resp: &FetchResponse) {
        let b = self.broker(id);
        if resp.fetch_offset != b.log.leo() {
            self.emit(Event::StaleFetchResponse { follower: id });
            return self.after_response(id, 0);
        }
        let hw_before = b.hw;
        let records = resp.records.len();
        let log = &mut self.broker_mut(id).log;
        for (_, entry) in &resp.records {
            match entry {
                Some(e) => log.append(*e),
                None => log.append_initial(),
            }
        }
        let (leo, start) = (log.leo(), log.start_offset);
        let hw = resp.hw.min(leo).max(start);
        let log_start = (resp.log_start_offset > start && resp.log_start_offset <= hw).then_some(resp.log_start_offset);
        self.emit(Event::FollowerAppended { follower: id, leader, records, leo, leader_hw: resp.hw, hw_before, hw, log_start });
        if hw != hw_before && self.behavior.follower_hw_completes_consumer_fetch {
            self.complete_consumer_fetches(id);
        }
        self.after_response(id, records);
    }

    /// The next Fetch goes out at once; a textbook follower with nothing new waits first.
    fn after_response(&mut self, id: u32, appended: usize) {
        if !self.behavior.long_poll && appended == 0 {
            let wait = self.scenario.config.replica_fetch_wait_max_ms;
            self.fetch_later(id, wait);
            self.emit(Event::FetcherWaits { follower: id, ms: wait });
        } else {
            self.send_fetch(id);
        }
    }

    /// An error in the Fetch response (`AbstractFetcherThread.handlePartitionsWithErrors`):
    /// OFFSET_OUT_OF_RANGE truncates; a fenced epoch waits for metadata; others back off.
    fn fetch_failed(&mut self, id: u32, leader: u32, error: KafkaError, resp: &FetchResponse) {
        self.emit(Event::FetchFailed { follower: id, leader, error });
        match error {
            KafkaError::OffsetOutOfRange => self.fetch_offset_and_truncate(id, resp),
            // It stops fetching until new metadata arrives.
            KafkaError::FencedLeaderEpoch => {}
            _ => self.fetch_later(id, self.scenario.config.replica_fetch_backoff_ms),
        }
    }
}
