//! The follower: its fetcher loop, `processPartitionData`, and the truncation
//! rules by version. Kafka: `AbstractFetcherThread`, `ReplicaFetcherThread`,
//! `UnifiedLog`.

use super::leader::plural;
use super::{Body, FetchRequest, FetchResponse, FetcherState, KafkaError, MsgHead, Node, Role, Sim, Timer};
use crate::record::{EpochEnd, EventRecord};
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
    pub(crate) fn send_fetch(&mut self, id: u32) -> super::network::Sent {
        self.clear_fetcher(id);
        let b = self.broker(id);
        let Some(leader) = b.leader.filter(|&l| l != id) else {
            return super::network::Sent { id: 0, lost: true };
        };
        let req = FetchRequest {
            replica: id,
            fetch_offset: b.log.leo(),
            last_fetched_epoch: if self.behavior.truncation == Truncation::DivergingEpoch { b.log.last_epoch() } else { None },
            current_leader_epoch: b.leader_epoch,
            log_start_offset: b.log.start_offset,
        };
        let sent = self.send(Node::Broker(id), Node::Broker(leader), Body::Fetch(req));
        let timeout =
            self.set_timer(self.now + self.scenario.config.replica_socket_timeout_ms, Timer::FetchRequestTimeout { follower: id });
        self.broker_mut(id).fetcher = FetcherState::Fetching { request: sent.id, timeout };
        sent
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

    fn fetch_later(&mut self, id: u32, delay_ms: u64) {
        self.clear_fetcher(id);
        let timer = self.set_timer(self.now + delay_ms, Timer::FetcherRetry { follower: id });
        self.broker_mut(id).fetcher = FetcherState::Waiting { timer };
    }

    pub(crate) fn fetcher_retry(&mut self, id: u32) {
        self.event = Some(EventRecord { broker: Some(id), timer: Some("fetcher-retry"), ..EventRecord::new("timeout") });
        self.broker_mut(id).fetcher = FetcherState::Idle;
        let b = self.broker(id);
        let Some(leader) = b.leader.filter(|_| b.alive && b.role == Role::Follower) else {
            self.text = say!(self, "Broker {id}'s fetcher wakes up, but it has no leader to fetch from.");
            return;
        };
        let offset = b.log.leo();
        if b.needs_truncation && matches!(self.behavior.truncation, Truncation::EpochRequest | Truncation::EpochRequestMultiRound) {
            self.start_fetching(id);
            self.text = say!(self, "Follower {id} asks leader {leader} again where its epoch ends (OffsetsForLeaderEpoch).");
            return;
        }
        let sent = self.send_fetch(id);
        self.text = if self.behavior.long_poll {
            say!(self, "Follower {id}'s backoff is over; it sends a Fetch at {offset} to leader {leader}.{}", sent.note())
        } else {
            say!(
                self,
                "Follower {id} polls again after waiting {} ms (textbook: no long-poll, so an idle follower waits between fetches instead of spinning): Fetch at {offset} to leader {leader}.{}",
                self.scenario.config.replica_fetch_wait_max_ms,
                sent.note()
            )
        };
    }

    /// The Fetch got no answer within replica.socket.timeout.ms: back off, then fetch again.
    pub(crate) fn fetch_request_timeout(&mut self, id: u32) {
        self.event = Some(EventRecord { broker: Some(id), timer: Some("fetch-request-timeout"), ..EventRecord::new("timeout") });
        self.broker_mut(id).fetcher = FetcherState::Idle;
        let backoff = self.scenario.config.replica_fetch_backoff_ms;
        self.fetch_later(id, backoff);
        self.text = say!(
            self,
            "Follower {id}'s request has had no answer for replica.socket.timeout.ms ({} ms): it gives up on it and tries again after replica.fetch.backoff.ms ({backoff} ms).",
            self.scenario.config.replica_socket_timeout_ms
        );
    }

    /// A Fetch response arrives at the follower.
    pub(crate) fn handle_fetch_response(&mut self, msg: &MsgHead, resp: FetchResponse) {
        let Node::Broker(id) = msg.to else { return };
        let Node::Broker(leader) = msg.from else {
            return;
        };
        let names: Vec<String> =
            if self.narrate { resp.records.iter().filter_map(|(_, e)| e.map(|e| self.record_name(e.id))).collect() } else { Vec::new() };
        self.event = Some(EventRecord {
            records: Some(crate::json::Value::UInt(resp.records.len() as u64)),
            ids: Some(names),
            first_offset: resp.records.first().map(|(o, _)| *o),
            hw: Some(resp.hw),
            error: resp.error.map(|e| e.name()),
            diverging_epoch: resp.diverging_epoch.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset }),
            ..EventRecord::message("fetch_response", msg, self)
        });
        let current = matches!(self.broker(id).fetcher, FetcherState::Fetching { request, .. } if request == resp.request);
        if !current {
            self.ev().outcome = Some("ignored");
            self.text = say!(self, "Broker {id} gets an answer from broker {leader} to a Fetch it no longer waits for; ignored.");
            return;
        }
        self.clear_fetcher(id);
        if let Some(error) = resp.error {
            return self.fetch_failed(id, leader, error, resp);
        }
        if let Some((epoch, end)) = resp.diverging_epoch {
            let leo = self.broker(id).log.leo();
            let (target, _complete) = self.offset_truncation_state(id, Some(epoch), end);
            self.truncate(id, target, "diverging-epoch");
            let sent = self.send_fetch(id);
            self.text = say!(
                self,
                "Follower {id} learns its log diverges from leader {leader}'s: epoch {epoch} ends at {end} on the leader. It truncates {leo} → {target} (the HW is not updated this round, KAFKA-14704) and fetches again at {target}.{}",
                sent.note()
            );
            return;
        }
        self.process_partition_data(id, leader, resp);
    }

    /// `ReplicaFetcherThread.processPartitionData`: append, then
    /// HW = max(log start, min(leader HW, LEO)), then the log start offset.
    fn process_partition_data(&mut self, id: u32, leader: u32, resp: FetchResponse) {
        let b = self.broker(id);
        if resp.fetch_offset != b.log.leo() {
            self.ev().outcome = Some("ignored");
            self.text = say!(self, "Follower {id}'s log end moved since it sent this Fetch; the response is dropped.");
            return self.after_response(id, leader, 0, String::new());
        }
        let hw_before = b.hw;
        let n = resp.records.len();
        for (_, entry) in &resp.records {
            let b = self.broker_mut(id);
            match entry {
                Some(e) => b.log.append(*e),
                None => b.log.append_initial(),
            }
        }
        let b = self.broker_mut(id);
        let leo = b.log.leo();
        let hw = resp.hw.min(leo).max(b.log.start_offset);
        b.hw = hw;
        b.hw_epoch = b.leader_epoch;
        if resp.log_start_offset > b.log.start_offset && resp.log_start_offset <= hw {
            b.log.start_offset = resp.log_start_offset;
        }
        self.ev().hw_before = Some(hw_before);
        self.ev().hw_after = Some(hw);
        self.ev().leo_after = Some(leo);
        self.ev().outcome = Some("appended");
        let appended =
            if n == 0 { "No records".to_string() } else { say!(self, "Follower {id} appends {n} record{} (LEO {leo})", plural(n)) };
        let hw_text = if hw == hw_before {
            say!(self, "its HW stays {hw}")
        } else if resp.hw > leo {
            say!(self, "its HW {hw_before} → {hw} (the leader's HW {} clamped to its own LEO)", resp.hw)
        } else {
            say!(self, "its HW {hw_before} → {hw}")
        };
        let mut text = if n == 0 {
            say!(self, "{appended} in leader {leader}'s answer to follower {id}; it carries HW {}, so {hw_text}.", resp.hw)
        } else {
            say!(self, "{appended}; the response carries HW {}, so {hw_text}.", resp.hw)
        };
        if hw != hw_before && self.behavior.follower_hw_completes_consumer_fetch {
            text.push_str(&self.complete_consumer_fetches(id));
        }
        self.after_response(id, leader, n, text);
    }

    /// The next Fetch goes out at once; a textbook follower with nothing new waits first.
    fn after_response(&mut self, id: u32, leader: u32, appended: usize, mut text: String) {
        if !self.behavior.long_poll && appended == 0 {
            let wait = self.scenario.config.replica_fetch_wait_max_ms;
            self.fetch_later(id, wait);
            text.push_str(&say!(self, " Nothing new, so it waits {wait} ms before polling again."));
        } else {
            let offset = self.broker(id).log.leo();
            let sent = self.send_fetch(id);
            text.push_str(&say!(self, " It sends the next Fetch at {offset} to leader {leader} right away.{}", sent.note()));
        }
        self.text = text;
    }

    fn fetch_failed(&mut self, id: u32, leader: u32, error: KafkaError, resp: FetchResponse) {
        self.ev().outcome = Some("error");
        let backoff = self.scenario.config.replica_fetch_backoff_ms;
        match error {
            KafkaError::OffsetOutOfRange => {
                // `AbstractFetcherThread.fetchOffsetAndTruncate`.
                let leo = self.broker(id).log.leo();
                if resp.leader_leo < leo {
                    self.truncate(id, resp.leader_leo, "offset-out-of-range");
                    let sent = self.send_fetch(id);
                    self.text = say!(
                        self,
                        "Follower {id} is told OFFSET_OUT_OF_RANGE: leader {leader}'s log ends at {}, before its own ({leo}). It truncates to {} and fetches again.{}",
                        resp.leader_leo,
                        resp.leader_leo,
                        sent.note()
                    );
                } else {
                    let start = resp.log_start_offset;
                    self.truncate(id, 0, "offset-out-of-range");
                    self.broker_mut(id).log.start_offset = start;
                    let sent = self.send_fetch(id);
                    self.text = say!(
                        self,
                        "Follower {id} is told OFFSET_OUT_OF_RANGE and starts over from the leader's log start {start}.{}",
                        sent.note()
                    );
                }
            }
            KafkaError::FencedLeaderEpoch => {
                self.text = say!(
                    self,
                    "Follower {id} is told FENCED_LEADER_EPOCH by broker {leader}: its leader epoch is out of date. It stops fetching until new metadata arrives."
                );
            }
            _ => {
                self.fetch_later(id, backoff);
                self.text = say!(
                    self,
                    "Follower {id} is told {} by broker {leader}; it tries again in replica.fetch.backoff.ms ({backoff} ms).",
                    error.name()
                );
            }
        }
    }

    /// `UnifiedLog.truncateTo`, then the HW clamped to the new LEO.
    pub(crate) fn truncate(&mut self, id: u32, offset: u64, rule: &'static str) {
        let b = self.broker_mut(id);
        let leo_before = b.log.leo();
        b.log.truncate_to(offset);
        if b.hw >= b.log.leo() {
            b.hw = b.log.leo();
        }
        let ev = self.ev();
        ev.leo_before = Some(leo_before);
        ev.truncate_to = Some(offset.min(leo_before));
        ev.rule = Some(rule);
        if ev.kind == "none" {
            ev.kind = "truncate";
        }
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
    pub(crate) fn truncate_on_become_follower(&mut self, id: u32) -> String {
        match self.behavior.truncation {
            Truncation::HighWatermark => {
                let b = self.broker(id);
                let (hw, leo) = (b.hw, b.log.leo());
                if hw < leo {
                    self.truncate(id, hw, "high-watermark");
                    say!(self, " It truncates its log to its own HW: {leo} → {hw} (pre-KIP-101 rule).")
                } else {
                    " Its log ends at its HW, so HW truncation removes nothing.".to_string()
                }
            }
            Truncation::EpochRequest | Truncation::EpochRequestMultiRound => {
                self.broker_mut(id).needs_truncation = true;
                " Before fetching it asks the leader where its last epoch ends (OffsetsForLeaderEpoch, KIP-101).".to_string()
            }
            Truncation::DivergingEpoch => {
                " It keeps its log and fetches from its LEO with its last fetched epoch; the leader will say if they diverge.".to_string()
            }
        }
    }

    fn send_offsets_for_leader_epoch(&mut self, id: u32) {
        self.clear_fetcher(id);
        let b = self.broker(id);
        let Some(leader) = b.leader.filter(|&l| l != id) else {
            return;
        };
        let epoch = b.log.latest_epoch();
        let current_leader_epoch = b.leader_epoch;
        let sent = self.send(Node::Broker(id), Node::Broker(leader), Body::OffsetsForLeaderEpoch { epoch, current_leader_epoch });
        let timeout =
            self.set_timer(self.now + self.scenario.config.replica_socket_timeout_ms, Timer::FetchRequestTimeout { follower: id });
        self.broker_mut(id).fetcher = FetcherState::Truncating { request: sent.id, timeout };
    }

    /// The leader answers OffsetsForLeaderEpoch (`Partition.lastOffsetForLeaderEpoch`).
    /// Before 2.0 (v0) the answer is an end offset only.
    pub(crate) fn handle_offsets_for_leader_epoch(&mut self, msg: &MsgHead, epoch: i32, current_leader_epoch: i32) {
        let Node::Broker(leader) = msg.to else { return };
        self.event = Some(EventRecord { epoch: Some(epoch), ..EventRecord::message("offsets_for_leader_epoch", msg, self) });
        let b = self.broker(leader);
        let (answer, error) = if b.lead.is_none() {
            (None, Some(KafkaError::NotLeaderOrFollower))
        } else if self.behavior.leader_epoch_fencing && current_leader_epoch < b.leader_epoch {
            (None, Some(KafkaError::FencedLeaderEpoch))
        } else {
            (b.log.end_offset_for(epoch), None)
        };
        let v0 = self.behavior.truncation == Truncation::EpochRequest;
        let answer = answer.map(|(e, o)| if v0 { (-1, o) } else { (e, o) });
        self.ev().end_offset = answer.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset });
        let sent = self.send(msg.to, msg.from, Body::OffsetsForLeaderEpochResponse { request: msg.id, requested: epoch, answer, error });
        let Node::Broker(follower) = msg.from else {
            return;
        };
        self.text = match (answer, error) {
            (_, Some(e)) => {
                say!(self, "Broker {leader} answers follower {follower}'s OffsetsForLeaderEpoch with {}.{}", e.name(), sent.note())
            }
            (None, None) => say!(self, "Leader {leader} does not know where epoch {epoch} ends (UNDEFINED).{}", sent.note()),
            (Some((_, o)), None) if v0 => say!(
                self,
                "Leader {leader} answers follower {follower}: epoch {epoch} ends at {o} in its log (v0: an offset only).{}",
                sent.note()
            ),
            (Some((e, o)), None) => say!(
                self,
                "Leader {leader} answers follower {follower}: asked about epoch {epoch}, its log says epoch {e} ends at {o}.{}",
                sent.note()
            ),
        };
    }

    /// The follower truncates by the leader's answer (`AbstractFetcherThread.truncateToEpochEndOffsets`).
    pub(crate) fn handle_offsets_for_leader_epoch_response(
        &mut self,
        msg: &MsgHead,
        request: u64,
        requested: i32,
        answer: Option<(i32, u64)>,
        error: Option<KafkaError>,
    ) {
        let Node::Broker(id) = msg.to else { return };
        self.event = Some(EventRecord {
            epoch: Some(requested),
            end_offset: answer.map(|(epoch, end_offset)| EpochEnd { epoch, end_offset }),
            error: error.map(|e| e.name()),
            ..EventRecord::message("offsets_for_leader_epoch_response", msg, self)
        });
        if !matches!(self.broker(id).fetcher, FetcherState::Truncating { request: r, .. } if r == request) {
            self.ev().outcome = Some("ignored");
            self.text = say!(self, "Broker {id} gets an OffsetsForLeaderEpoch answer it no longer waits for; ignored.");
            return;
        }
        self.clear_fetcher(id);
        if let Some(e) = error {
            self.fetch_later(id, self.scenario.config.replica_fetch_backoff_ms);
            self.text = say!(self, "Follower {id}'s OffsetsForLeaderEpoch fails with {}; it retries after a backoff.", e.name());
            return;
        }
        let leo = self.broker(id).log.leo();
        let (target, complete) = match answer {
            // UNDEFINED: fall back to the HW (`truncateToHighWatermark`).
            None => (self.broker(id).hw.min(leo), true),
            Some((-1, o)) => self.offset_truncation_state(id, None, o),
            Some((e, o)) => self.offset_truncation_state(id, Some(e), o),
        };
        self.ev().kind = "truncate";
        self.truncate(
            id,
            target,
            if self.behavior.truncation == Truncation::EpochRequest { "epoch-request" } else { "epoch-request-multi-round" },
        );
        let what = if target < leo { say!(self, "truncates {leo} → {target}") } else { say!(self, "keeps its log (LEO {leo})") };
        if complete {
            self.broker_mut(id).needs_truncation = false;
            let sent = self.send_fetch(id);
            self.text = say!(self, "Follower {id} {what} and starts fetching at {}.{}", self.broker(id).log.leo(), sent.note());
        } else {
            self.send_offsets_for_leader_epoch(id);
            self.text = say!(
                self,
                "Follower {id} {what}: the leader's epoch is not in its cache, so it asks again about its own latest epoch (KIP-279's extra round)."
            );
        }
    }
}
