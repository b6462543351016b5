//! The leader: answering follower Fetches, tracking each follower, moving the
//! high watermark, the ISR, parked fetches and delayed produces.
//! Kafka: `kafka.cluster.Partition`, `kafka.cluster.Replica`,
//! `ReplicaManager.fetchMessages`, `DelayedFetch`, `DelayedProduce`.

use super::log::{Entry, RecordId};
use super::{
    join_ids, set_str, Body, DelayedProduce, FetchRequest, FetchResponse, FollowerView, KafkaError, LeaderState, MsgHead, Node,
    ParkedFetch, PendingIsr, Role, Sim, Timer,
};
use crate::record::{EpochEnd, EventRecord};
use crate::scenario::{Acks, HwCounts, IsrUpdate, ResponseHw, Truncation};
use crate::sim::vecmap::{VecMap, VecSet};

impl Sim {
    pub(crate) fn ev(&mut self) -> &mut EventRecord {
        self.event.get_or_insert_with(|| EventRecord::new("none"))
    }

    fn lead(&self, leader: u32) -> &LeaderState {
        // Callers check `lead.is_some()` first; a missing state is a bug, not user input.
        self.broker(leader).lead.as_ref().expect("leader state")
    }

    fn lead_mut(&mut self, leader: u32) -> &mut LeaderState {
        self.broker_mut(leader).lead.as_mut().expect("leader state")
    }

    /// Step 0: broker 0 leads in epoch 0 with every follower caught up.
    pub(crate) fn become_leader_at_start(&mut self) {
        let n = self.scenario.replicas;
        let leo = self.scenario.initial.log_end_offset;
        let followers = (1..n)
            .map(|f| {
                (
                    f,
                    FollowerView {
                        leo: Some(leo),
                        log_start_offset: 0,
                        last_fetch_leader_leo: leo,
                        last_fetch_ms: Some(0),
                        last_caught_up_ms: Some(0),
                        last_sent_hw: leo,
                    },
                )
            })
            .collect();
        self.install_leader(0, (0..n).collect(), 0, followers, VecSet::new());
    }

    /// `Partition.makeLeader`: the epoch cache gets (epoch, LEO) before anything is
    /// written; followers' states are reset (LEO unknown; ISR members counted as
    /// caught up now); then the leader tries to move its HW.
    pub(crate) fn make_leader(&mut self, id: u32, isr: Vec<u32>, partition_epoch: u32, fenced: VecSet<u32>) {
        let now = self.now;
        let followers: VecMap<u32, FollowerView> = (0..self.scenario.replicas)
            .filter(|&f| f != id)
            .map(|f| {
                let caught = isr.contains(&f).then_some(now);
                (
                    f,
                    FollowerView {
                        leo: None,
                        log_start_offset: 0,
                        last_fetch_leader_leo: 0,
                        last_fetch_ms: None,
                        last_caught_up_ms: caught,
                        last_sent_hw: 0,
                    },
                )
            })
            .collect();
        self.install_leader(id, isr, partition_epoch, followers, fenced);
        self.maybe_increment_leader_hw(id);
    }

    fn install_leader(&mut self, id: u32, isr: Vec<u32>, partition_epoch: u32, followers: VecMap<u32, FollowerView>, fenced: VecSet<u32>) {
        let period = (self.scenario.config.replica_lag_time_max_ms / 2).max(1);
        let timer = (self.scenario.replicas > 1).then(|| self.set_timer(self.now + period, Timer::IsrExpiration { leader: id }));
        let b = self.broker_mut(id);
        let epoch = b.leader_epoch;
        let leo = b.log.leo();
        b.log.assign_epoch(epoch, leo);
        b.role = Role::Leader;
        b.leader = Some(id);
        b.needs_truncation = false;
        b.lead = Some(LeaderState {
            epoch_start_offset: leo,
            isr,
            pending: None,
            partition_epoch,
            followers,
            fenced,
            parked_fetches: Vec::new(),
            delayed_produces: Vec::new(),
            isr_timer: timer,
        });
    }

    /// `Replica.isCaughtUp`: at the leader's LEO, or caught up within replica.lag.time.max.ms.
    fn is_caught_up(&self, view: &FollowerView, leader_leo: u64) -> bool {
        view.leo == Some(leader_leo)
            || view.last_caught_up_ms.is_some_and(|t| self.now.saturating_sub(t) <= self.scenario.config.replica_lag_time_max_ms)
    }

    /// `Partition.isReplicaIsrEligible` (KRaft): not fenced, as far as the leader knows.
    fn is_isr_eligible(&self, leader: u32, follower: u32) -> bool {
        !self.lead(leader).fenced.contains(&follower)
    }

    /// `Partition.maybeIncrementLeaderHW`: HW = min LEO over the leader and the
    /// followers that count (by preset: ISR; ISR or caught up (0.10.2); maximal ISR or
    /// caught up (2.7); and ISR-eligible (3.6)); never while under min ISR (3.7);
    /// only ever upwards. Returns the move, if any.
    pub(crate) fn maybe_increment_leader_hw(&mut self, leader: u32) -> Option<(u64, u64)> {
        let b = self.broker(leader);
        let ls = b.lead.as_ref()?;
        let leo = b.log.leo();
        let rf = self.scenario.replicas;
        let effective_min_isr = self.scenario.config.min_insync_replicas.min(rf) as usize;
        if self.behavior.hw_held_under_min_isr && ls.isr.len() < effective_min_isr {
            return None;
        }
        let mut new_hw = leo;
        for (&f, view) in ls.followers.iter() {
            let counts = match self.behavior.hw_counts {
                HwCounts::Isr => ls.isr.contains(&f),
                HwCounts::IsrOrCaughtUp => ls.isr.contains(&f) || self.is_caught_up(view, leo),
                HwCounts::MaximalIsrOrCaughtUp => ls.in_maximal_isr(f) || self.is_caught_up(view, leo),
                HwCounts::MaximalIsrOrCaughtUpEligible => {
                    ls.in_maximal_isr(f) || (self.is_caught_up(view, leo) && self.is_isr_eligible(leader, f))
                }
            };
            if counts {
                match view.leo {
                    // An unknown follower LEO (just after an election) holds the HW where it is.
                    None => return None,
                    Some(f_leo) => new_hw = new_hw.min(f_leo),
                }
            }
        }
        let b = self.broker_mut(leader);
        if new_hw > b.hw {
            let old = b.hw;
            b.hw = new_hw;
            b.hw_epoch = b.leader_epoch;
            let hw_epoch = b.hw_epoch;
            self.invariants.note_committed(&self.brokers[leader as usize].log, old, new_hw, hw_epoch);
            Some((old, new_hw))
        } else {
            None
        }
    }

    /// `ReplicaManager.fetchMessages` → `Partition.fetchRecords` for a follower's Fetch.
    pub(crate) fn handle_fetch_request(&mut self, msg: &MsgHead, req: FetchRequest) {
        let Node::Broker(leader) = msg.to else { return };
        let follower = req.replica;
        self.event = Some(EventRecord {
            fetch_offset: Some(req.fetch_offset),
            last_fetched_epoch: req.last_fetched_epoch,
            ..EventRecord::message("fetch_request", msg, self)
        });
        let b = self.broker(leader);
        if b.lead.is_none() {
            return self.fetch_error(
                msg,
                req,
                KafkaError::NotLeaderOrFollower,
                say!(self, "Broker {leader} is not the leader; it answers follower {follower}'s Fetch with NOT_LEADER_OR_FOLLOWER."),
            );
        }
        let epoch = b.leader_epoch;
        if self.behavior.leader_epoch_fencing && req.current_leader_epoch != epoch {
            let (error, why) = if req.current_leader_epoch < epoch {
                (KafkaError::FencedLeaderEpoch, "an older epoch: the follower has not yet learned of the new leader epoch")
            } else {
                (KafkaError::UnknownLeaderEpoch, "a newer epoch than the leader knows: the leader has not yet learned of it")
            };
            return self.fetch_error(
                msg,
                req,
                error,
                say!(
                    self,
                    "Leader {leader} (epoch {epoch}) gets follower {follower}'s Fetch in epoch {}, {why}; it answers {} (KIP-320).",
                    req.current_leader_epoch,
                    error.name()
                ),
            );
        }
        let initial_hw = b.hw;
        let leo = b.log.leo();
        if let (Truncation::DivergingEpoch, Some(fetch_epoch)) = (self.behavior.truncation, req.last_fetched_epoch) {
            match b.log.end_offset_for(fetch_epoch) {
                None => {
                    return self.fetch_error(
                        msg,
                        req,
                        KafkaError::OffsetOutOfRange,
                        say!(self, "Leader {leader} cannot find the end of epoch {fetch_epoch} that follower {follower} last fetched; it answers OFFSET_OUT_OF_RANGE."),
                    )
                }
                Some((end_epoch, end_offset)) if end_epoch < fetch_epoch || end_offset < req.fetch_offset => {
                    return self.answer_diverging(msg, req, end_epoch, end_offset, initial_hw);
                }
                Some(_) => {}
            }
        }
        if req.fetch_offset > leo || req.fetch_offset < b.log.start_offset {
            return self.fetch_error(
                msg,
                req,
                KafkaError::OffsetOutOfRange,
                say!(
                    self,
                    "Follower {follower} fetches at {}, outside leader {leader}'s log [{}, {leo}): the leader answers OFFSET_OUT_OF_RANGE.",
                    req.fetch_offset,
                    b.log.start_offset
                ),
            );
        }
        let mut text = String::new();
        let prev = self.lead(leader).followers.get(&follower).and_then(|v| v.leo);
        let expanded = self.update_follower_fetch_state(leader, follower, req.fetch_offset, req.log_start_offset, &mut text);
        let hw_move = if prev != Some(req.fetch_offset) || expanded { self.maybe_increment_leader_hw(leader) } else { None };
        let known = match prev {
            Some(p) if p == req.fetch_offset => {
                say!(self, "Leader {leader} hears again that follower {follower} is at {}", req.fetch_offset)
            }
            _ => say!(self, "Leader {leader} learns follower {follower} is at {}", req.fetch_offset),
        };
        let hw_now = self.broker(leader).hw;
        let hw_text = match hw_move {
            Some((a, b)) => say!(self, "; HW {a} → {b}."),
            None if self.behavior.hw_held_under_min_isr && self.under_min_isr(leader) => {
                say!(self, "; HW stays {hw_now}: the ISR is under min.insync.replicas ({}).", self.scenario.config.min_insync_replicas)
            }
            None => say!(self, "; HW stays {hw_now}."),
        };
        let mut text = say!(self, "{known}{hw_text}{text}");
        self.ev().hw_before = Some(initial_hw);
        self.ev().hw_after = Some(hw_now);
        if hw_move.is_some() {
            text.push_str(&self.try_complete_delayed_requests(leader));
        }
        self.answer_or_park(msg, req, initial_hw, text);
    }

    /// The ISR size acks=all needs (`Partition.appendRecordsToLeader`,
    /// `checkEnoughReplicasReachOffset`): min.insync.replicas, capped at the replication
    /// factor (`effectiveMinIsr`) from 3.7, where the same cap holds the HW.
    fn min_isr_for_acks(&self) -> u32 {
        let min = self.scenario.config.min_insync_replicas;
        if self.behavior.hw_held_under_min_isr {
            min.min(self.scenario.replicas)
        } else {
            min
        }
    }

    fn under_min_isr(&self, leader: u32) -> bool {
        let min = self.scenario.config.min_insync_replicas.min(self.scenario.replicas) as usize;
        self.broker(leader).lead.as_ref().is_some_and(|ls| ls.isr.len() < min)
    }

    /// `Partition.updateFollowerFetchState` and `Replica.updateFetchStateOrThrow`:
    /// the follower's LEO becomes its fetch offset, lastCaughtUpTimeMs moves by the
    /// two catch-up rules, then `maybeExpandIsr`. Returns whether the ISR grew.
    fn update_follower_fetch_state(&mut self, leader: u32, follower: u32, fetch_offset: u64, log_start: u64, text: &mut String) -> bool {
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
        self.maybe_expand_isr(leader, follower, text)
    }

    /// `Partition.maybeExpandIsr`: a follower not in the ISR joins once its LEO has
    /// reached the HW and the start of the leader's epoch, and no ISR change is in flight.
    fn maybe_expand_isr(&mut self, leader: u32, follower: u32, text: &mut String) -> bool {
        let hw = self.broker(leader).hw;
        let ls = self.lead(leader);
        let Some(f_leo) = ls.followers.get(&follower).and_then(|v| v.leo) else {
            return false;
        };
        if ls.pending.is_some() || ls.isr.contains(&follower) || !self.is_isr_eligible(leader, follower) {
            return false;
        }
        if f_leo < hw || f_leo < ls.epoch_start_offset {
            return false;
        }
        let mut proposed = ls.isr.clone();
        proposed.push(follower);
        proposed.sort_unstable();
        match self.behavior.isr_update {
            IsrUpdate::Immediate => {
                let before = ls.isr.clone();
                self.commit_isr(leader, proposed.clone());
                text.push_str(&say!(
                    self,
                    " Follower {follower} has caught up: the ISR grows {} → {}.",
                    set_str(&before),
                    set_str(&proposed)
                ));
            }
            IsrUpdate::AlterPartition => {
                self.lead_mut(leader).pending = Some(PendingIsr::Expand(follower));
                let sent = self.send_alter_partition(leader, proposed.clone());
                text.push_str(&say!(
                    self,
                    " Follower {follower} has caught up: leader {leader} asks the controller to make the ISR {} (AlterPartition) and counts it in the HW meanwhile (maximal ISR).{}",
                    set_str(&proposed),
                    sent
                ));
            }
        }
        true
    }

    /// Applies a committed ISR on the leader and the controller at once (the ZooKeeper era).
    fn commit_isr(&mut self, leader: u32, isr: Vec<u32>) {
        let ls = self.lead_mut(leader);
        ls.isr = isr.clone();
        ls.pending = None;
        ls.partition_epoch += 1;
        self.controller.isr = isr;
        self.controller.partition_epoch += 1;
    }

    fn send_alter_partition(&mut self, leader: u32, isr: Vec<u32>) -> &'static str {
        let leader_epoch = self.broker(leader).leader_epoch;
        let partition_epoch = self.lead(leader).partition_epoch;
        self.send(Node::Broker(leader), Node::Controller, Body::AlterPartition { leader_epoch, partition_epoch, isr }).note()
    }

    /// `Partition.maybeShrinkIsr`, run every replica.lag.time.max.ms / 2: followers
    /// not caught up within the lag time leave the ISR. The maximal ISR stays the old
    /// one until the controller commits the change.
    pub(crate) fn maybe_shrink_isr(&mut self, leader: u32) {
        let period = (self.scenario.config.replica_lag_time_max_ms / 2).max(1);
        let lag = self.scenario.config.replica_lag_time_max_ms;
        self.event = Some(EventRecord { broker: Some(leader), timer: Some("isr-expiration"), ..EventRecord::new("timeout") });
        if self.broker(leader).lead.is_none() {
            self.text = say!(self, "Broker {leader}'s ISR check finds it no longer leads.");
            return;
        }
        let next = self.set_timer(self.now + period, Timer::IsrExpiration { leader });
        self.lead_mut(leader).isr_timer = Some(next);
        let leo = self.broker(leader).log.leo();
        let ls = self.lead(leader);
        let before = ls.isr.clone();
        let out: Vec<u32> =
            ls.isr.iter().copied().filter(|&f| f != leader && ls.followers.get(&f).is_some_and(|v| !self.is_caught_up(v, leo))).collect();
        if ls.pending.is_some() {
            self.text = say!(self, "Leader {leader} checks the ISR, but an ISR change is still in flight; it checks again in {period} ms.");
            return;
        }
        if out.is_empty() {
            self.text =
                say!(self, "Leader {leader} checks the ISR {}: every member has caught up within {lag} ms; no change.", set_str(&before));
            return;
        }
        let lagging: Vec<String> = out
            .iter()
            .map(|f| {
                let Some(v) = ls.followers.get(f) else {
                    return String::new();
                };
                say!(
                    self,
                    "{f} (last caught up at {}, at offset {})",
                    v.last_caught_up_ms.map_or("never".into(), |t| say!(self, "{t} ms")),
                    v.leo.map_or("unknown".into(), |o| o.to_string())
                )
            })
            .collect();
        let proposed: Vec<u32> = before.iter().copied().filter(|f| !out.contains(f)).collect();
        self.ev().isr_before = Some(before.clone());
        self.ev().isr = Some(proposed.clone());
        match self.behavior.isr_update {
            IsrUpdate::Immediate => {
                self.ev().kind = "isr_change";
                self.commit_isr(leader, proposed.clone());
                let mut text = say!(
                    self,
                    "Leader {leader} checks the ISR: {} has not caught up for more than {lag} ms; the ISR shrinks {} → {}.",
                    lagging.join(", "),
                    set_str(&before),
                    set_str(&proposed)
                );
                text.push_str(&self.hw_after_isr_change(leader));
                self.text = text;
            }
            IsrUpdate::AlterPartition => {
                self.ev().outcome = Some("shrink-proposed");
                self.lead_mut(leader).pending = Some(PendingIsr::Shrink(out.clone()));
                let sent = self.send_alter_partition(leader, proposed.clone());
                self.text = say!(
                    self,
                    "Leader {leader} checks the ISR: {} has not caught up for more than {lag} ms. It asks the controller to shrink the ISR to {} (AlterPartition); until that is committed, the HW still waits for the old ISR.{}",
                    lagging.join(", "),
                    set_str(&proposed),
                    sent
                );
            }
        }
    }

    /// After a committed ISR change: `maybeIncrementLeaderHW`, then complete what waited on it.
    pub(crate) fn hw_after_isr_change(&mut self, leader: u32) -> String {
        match self.maybe_increment_leader_hw(leader) {
            Some((a, b)) => {
                self.ev().hw_before = Some(a);
                self.ev().hw_after = Some(b);
                let completed = self.try_complete_delayed_requests(leader);
                say!(self, " HW {a} → {b}.{completed}")
            }
            None if self.behavior.hw_held_under_min_isr && self.under_min_isr(leader) => say!(
                self,
                " HW stays {}: the ISR is under min.insync.replicas ({}), so the HW is held (3.7+, KAFKA-15583).",
                self.broker(leader).hw,
                self.scenario.config.min_insync_replicas
            ),
            None => say!(self, " HW stays {}.", self.broker(leader).hw),
        }
    }

    /// The controller's answer to AlterPartition (`Partition.handleAlterPartitionUpdate` / `…Error`).
    pub(crate) fn handle_alter_partition_response(
        &mut self,
        msg: &MsgHead,
        leader_epoch: i32,
        partition_epoch: u32,
        isr: Vec<u32>,
        error: Option<&'static str>,
    ) {
        let Node::Broker(leader) = msg.to else { return };
        self.event = Some(EventRecord { isr: Some(isr.clone()), error, ..EventRecord::message("isr_change", msg, self) });
        let b = self.broker(leader);
        if b.lead.is_none() || b.leader_epoch != leader_epoch {
            self.ev().outcome = Some("ignored");
            self.text = say!(
                self,
                "Broker {leader} gets an AlterPartition answer for epoch {leader_epoch}, but it no longer leads in that epoch; ignored."
            );
            return;
        }
        if let Some(err) = error {
            let revert = err == "INELIGIBLE_REPLICA" || err == "OPERATION_NOT_ATTEMPTED";
            if revert {
                self.lead_mut(leader).pending = None;
            }
            self.ev().outcome = Some(if revert { "reverted" } else { "pending" });
            self.text = say!(
                self,
                "The controller refuses leader {leader}'s ISR change with {err}; {}",
                if revert {
                    "the leader goes back to its committed ISR."
                } else {
                    "the leader keeps the change pending until new metadata arrives."
                }
            );
            return;
        }
        let before = self.lead(leader).isr.clone();
        self.ev().isr_before = Some(before.clone());
        let ls = self.lead_mut(leader);
        ls.isr = isr.clone();
        ls.pending = None;
        ls.partition_epoch = partition_epoch;
        let mut text = say!(
            self,
            "The controller has committed the ISR {} → {} (partition epoch {partition_epoch}); leader {leader} applies it.",
            set_str(&before),
            set_str(&isr)
        );
        text.push_str(&self.hw_after_isr_change(leader));
        self.text = text;
    }

    /// Reads what a Fetch at `offset` returns: at least one record, at most replica.fetch.max.bytes.
    fn read_for_follower(&self, leader: u32, offset: u64) -> Vec<(u64, Option<Entry>)> {
        let log = &self.broker(leader).log;
        let per = self.scenario.record_bytes.max(1);
        let max = (self.scenario.config.replica_fetch_max_bytes / per).max(1);
        let end = log.leo().min(offset.saturating_add(max));
        (offset..end).map(|o| (o, log.get(o))).collect()
    }

    /// Answers at once, or parks the fetch in the purgatory (`DelayedFetch`).
    fn answer_or_park(&mut self, msg: &MsgHead, req: FetchRequest, initial_hw: u64, mut text: String) {
        let Node::Broker(leader) = msg.to else { return };
        let follower = req.replica;
        let c = &self.scenario.config;
        let leo = self.broker(leader).log.leo();
        let bytes = (leo - req.fetch_offset) * self.scenario.record_bytes;
        let hw = self.broker(leader).hw;
        // 2.4–2.5: `followerNeedsHwUpdate` compares the HW read before this fetch; a fetch
        // that itself moved the HW is parked and at once released by Case H, whose
        // re-read carries the new HW.
        let last_sent = self.lead(leader).followers.get(&follower).map_or(u64::MAX, |v| v.last_sent_hw);
        let case_h = self.behavior.hw_move_completes_follower_fetch && last_sent < hw;
        let stale_hw = self.behavior.hw_move_completes_follower_fetch && last_sent < initial_hw;
        let now_reason = if !self.behavior.long_poll {
            Some("")
        } else if c.replica_fetch_wait_max_ms == 0 {
            Some(" (replica.fetch.wait.max.ms is 0)")
        } else if bytes >= c.replica_fetch_min_bytes && bytes > 0 {
            Some("")
        } else if c.replica_fetch_min_bytes == 0 {
            Some(" (replica.fetch.min.bytes is 0)")
        } else if stale_hw {
            Some(" because the HW it last sent this follower is stale (KIP-392, 2.4–2.5)")
        } else if case_h {
            Some(" (parked, and released at once because the HW moved past what this follower last heard: DelayedFetch Case H, 2.4–2.5)")
        } else {
            None
        };
        match now_reason {
            Some(reason) => {
                let released_by_case_h = case_h && !stale_hw && bytes < c.replica_fetch_min_bytes.max(1) && self.behavior.long_poll;
                let hw_sent = match self.behavior.response_hw {
                    _ if released_by_case_h => hw,
                    ResponseHw::AfterFetch => hw,
                    ResponseHw::BeforeFetch => initial_hw,
                };
                let records = self.read_for_follower(leader, req.fetch_offset);
                let n = records.len();
                self.ev().outcome = Some("answered");
                let sent = self.send_fetch_response(leader, follower, msg.id, req.fetch_offset, records, hw_sent, None, None);
                let what = if n == 0 { "nothing new".to_string() } else { say!(self, "{n} record{} from {}", plural(n), req.fetch_offset) };
                let which_hw = match (self.behavior.response_hw, hw_sent == hw) {
                    (ResponseHw::BeforeFetch, false) => say!(self, "HW {hw_sent}, the value from before this fetch moved it"),
                    _ => say!(self, "HW {hw_sent}"),
                };
                text.push_str(&say!(self, " It answers at once{reason}: {what}, {which_hw}.{}", sent.note()));
            }
            None => {
                let wait = c.replica_fetch_wait_max_ms;
                let expire_ms = self.now + wait;
                let timer = self.set_timer(expire_ms, Timer::FetchExpiry { leader, follower });
                self.lead_mut(leader).parked_fetches.push(ParkedFetch { follower, request: msg.id, req, expire_ms, timer });
                self.ev().outcome = Some("parked");
                text.push_str(&say!(self, " Nothing new to send: the fetch waits up to {wait} ms (until {expire_ms} ms) for new records."));
            }
        }
        self.text = text;
    }

    #[allow(clippy::too_many_arguments)]
    fn send_fetch_response(
        &mut self,
        leader: u32,
        follower: u32,
        request: u64,
        fetch_offset: u64,
        records: Vec<(u64, Option<Entry>)>,
        hw: u64,
        error: Option<KafkaError>,
        diverging_epoch: Option<(i32, u64)>,
    ) -> super::network::Sent {
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

    fn fetch_error(&mut self, msg: &MsgHead, req: FetchRequest, error: KafkaError, text: String) {
        let Node::Broker(leader) = msg.to else { return };
        self.ev().outcome = Some("error");
        self.ev().error = Some(error.name());
        let hw = self.broker(leader).hw;
        let sent = self.send_fetch_response(leader, req.replica, msg.id, req.fetch_offset, Vec::new(), hw, Some(error), None);
        self.text = say!(self, "{text}{}", sent.note());
    }

    /// `Partition.readRecords`: the follower's last fetched epoch ends earlier on the
    /// leader, so the answer is a diverging epoch, no records, and no state update.
    fn answer_diverging(&mut self, msg: &MsgHead, req: FetchRequest, epoch: i32, end_offset: u64, initial_hw: u64) {
        let Node::Broker(leader) = msg.to else { return };
        self.ev().outcome = Some("diverging");
        self.ev().diverging_epoch = Some(EpochEnd { epoch, end_offset });
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
        self.text = say!(
            self,
            "Follower {} fetches at {} having last fetched epoch {}, but on leader {leader} epoch {} ends at {end_offset}: the logs diverge. The leader answers at once with diverging epoch ({epoch}, {end_offset}) and leaves the follower's state alone.{}",
            req.replica,
            req.fetch_offset,
            req.last_fetched_epoch.unwrap_or(-1),
            req.last_fetched_epoch.unwrap_or(-1),
            sent.note()
        );
    }

    /// A parked fetch reaches replica.fetch.wait.max.ms: `DelayedFetch.onComplete`
    /// reads again and reports the HW as it is now.
    pub(crate) fn expire_parked_fetch(&mut self, leader: u32, follower: u32) {
        self.event = Some(EventRecord {
            broker: Some(leader),
            timer: Some("fetch-expiry"),
            to: Some(crate::record::NodeName::Broker(follower)),
            ..EventRecord::new("timeout")
        });
        let Some(ls) = self.broker_mut(leader).lead.as_mut() else {
            return;
        };
        let Some(i) = ls.parked_fetches.iter().position(|p| p.follower == follower) else {
            return;
        };
        let parked = ls.parked_fetches.remove(i);
        let hw = self.broker(leader).hw;
        let records = self.read_for_follower(leader, parked.req.fetch_offset);
        let n = records.len();
        self.ev().fetch_offset = Some(parked.req.fetch_offset);
        self.ev().hw = Some(hw);
        let sent = self.send_fetch_response(leader, follower, parked.request, parked.req.fetch_offset, records, hw, None, None);
        self.text = say!(
            self,
            "Follower {follower}'s fetch at {} has waited replica.fetch.wait.max.ms ({} ms) on leader {leader}. It is answered with {} and the HW as it is now, {hw}.{}",
            parked.req.fetch_offset,
            self.scenario.config.replica_fetch_wait_max_ms,
            if n == 0 { "no records".to_string() } else { say!(self, "{n} record{}", plural(n)) },
            sent.note()
        );
    }

    /// `DelayedOperations.checkAndCompleteAll` after the HW moved: parked fetches
    /// (consumers at the HW; followers only where the preset releases them on an HW
    /// move), then delayed produces. Returns a sentence for the narration.
    pub(crate) fn try_complete_delayed_requests(&mut self, leader: u32) -> String {
        let mut text = String::new();
        text.push_str(&self.complete_consumer_fetches(leader));
        if self.behavior.hw_move_completes_follower_fetch {
            text.push_str(&self.complete_follower_fetches(leader, true));
        }
        text.push_str(&self.complete_delayed_produces(leader));
        if self.narrate && !self.behavior.hw_move_completes_follower_fetch && self.behavior.long_poll {
            let waiting: Vec<u32> =
                self.broker(leader).lead.as_ref().map_or(Vec::new(), |ls| ls.parked_fetches.iter().map(|p| p.follower).collect());
            if !waiting.is_empty() {
                text.push_str(&say!(
                    self,
                    " Follower {}'s parked fetch stays parked: an HW move does not release it (only new data or its timeout).",
                    join_ids(&waiting)
                ));
            }
        }
        text
    }

    /// Releases parked follower fetches that now have enough bytes (new data), or, with
    /// `hw_only`, whose last sent HW is stale (2.4–2.5, `DelayedFetch` Case H).
    pub(crate) fn complete_follower_fetches(&mut self, leader: u32, hw_only: bool) -> String {
        let Some(ls) = self.broker(leader).lead.as_ref() else {
            return String::new();
        };
        let leo = self.broker(leader).log.leo();
        let hw = self.broker(leader).hw;
        let min_bytes = self.scenario.config.replica_fetch_min_bytes;
        let per = self.scenario.record_bytes;
        let ready: Vec<ParkedFetch> = ls
            .parked_fetches
            .iter()
            .filter(|p| {
                let bytes = (leo.saturating_sub(p.req.fetch_offset)) * per;
                let stale =
                    self.behavior.hw_move_completes_follower_fetch && ls.followers.get(&p.follower).is_some_and(|v| v.last_sent_hw < hw);
                if hw_only {
                    stale
                } else {
                    bytes >= min_bytes.max(1) || stale
                }
            })
            .cloned()
            .collect();
        if ready.is_empty() {
            return String::new();
        }
        let mut released = Vec::new();
        for p in ready {
            if let Some(ls) = self.broker_mut(leader).lead.as_mut() {
                ls.parked_fetches.retain(|q| q.request != p.request);
            }
            self.cancel(p.timer);
            let records = self.read_for_follower(leader, p.req.fetch_offset);
            self.send_fetch_response(leader, p.follower, p.request, p.req.fetch_offset, records, hw, None, None);
            released.push(p.follower);
        }
        let why = if hw_only { "the HW moved past what they last heard" } else { "new data" };
        say!(
            self,
            " This releases the parked fetch{} of follower{} {} ({why}); the response{} carr{} HW {hw}.",
            if released.len() == 1 { "" } else { "es" },
            if released.len() == 1 { "" } else { "s" },
            join_ids(&released),
            if released.len() == 1 { "" } else { "s" },
            if released.len() == 1 { "ies" } else { "y" },
        )
    }

    /// `DelayedProduce.tryComplete` → `Partition.checkEnoughReplicasReachOffset`.
    fn complete_delayed_produces(&mut self, leader: u32) -> String {
        let Some(ls) = self.broker(leader).lead.as_ref() else {
            return String::new();
        };
        let hw = self.broker(leader).hw;
        let maximal = ls.maximal_isr().len() as u32;
        let ready: Vec<DelayedProduce> = ls.delayed_produces.iter().filter(|d| hw >= d.required_offset).cloned().collect();
        let mut text = String::new();
        for d in ready {
            if let Some(ls) = self.broker_mut(leader).lead.as_mut() {
                ls.delayed_produces.retain(|q| q.request != d.request);
            }
            self.cancel(d.timer);
            let error = (maximal < self.min_isr_for_acks()).then_some(KafkaError::NotEnoughReplicasAfterAppend);
            let pname = self.scenario.producers[d.producer].id.clone();
            let sent = self.send(
                Node::Broker(leader),
                Node::Producer(d.producer),
                Body::ProduceResponse { request: d.request, ids: d.ids.clone(), error },
            );
            text.push_str(&match error {
                None => say!(self, " The HW has passed {}: {pname}'s acks=all write is acknowledged.{}", d.required_offset, sent.note()),
                Some(e) => say!(
                    self,
                    " The HW has passed {}, but the ISR is smaller than min.insync.replicas: {pname} gets {}.{}",
                    d.required_offset,
                    e.name(),
                    sent.note()
                ),
            });
        }
        text
    }

    pub(crate) fn expire_delayed_produce(&mut self, leader: u32, request: u64) {
        self.event = Some(EventRecord { broker: Some(leader), timer: Some("produce-expiry"), ..EventRecord::new("timeout") });
        let Some(ls) = self.broker_mut(leader).lead.as_mut() else {
            return;
        };
        let Some(i) = ls.delayed_produces.iter().position(|d| d.request == request) else {
            return;
        };
        let d = ls.delayed_produces.remove(i);
        let pname = self.scenario.producers[d.producer].id.clone();
        let sent = self.send(
            Node::Broker(leader),
            Node::Producer(d.producer),
            Body::ProduceResponse { request, ids: d.ids, error: Some(KafkaError::RequestTimedOut) },
        );
        self.text = say!(
            self,
            "{pname}'s acks=all write waited its request timeout on leader {leader} without the HW reaching {}: REQUEST_TIMED_OUT (the records stay in the log).{}",
            d.required_offset,
            sent.note()
        );
    }

    /// `Partition.appendRecordsToLeader` and `ReplicaManager.appendRecords` for a produce.
    pub(crate) fn handle_produce_request(&mut self, msg: &MsgHead, ids: Vec<RecordId>, acks: Acks) {
        let Node::Broker(leader) = msg.to else { return };
        let Node::Producer(producer) = msg.from else {
            return;
        };
        let pname = self.scenario.producers[producer].id.clone();
        let names = self.ids_value(ids.iter().copied());
        self.event = Some(EventRecord { records: Some(names), acks: Some(acks), ..EventRecord::message("produce_request", msg, self) });
        let b = self.broker(leader);
        let Some(ls) = b.lead.as_ref() else {
            self.ev().outcome = Some("error");
            self.ev().error = Some(KafkaError::NotLeaderOrFollower.name());
            let sent =
                self.send(msg.to, msg.from, Body::ProduceResponse { request: msg.id, ids, error: Some(KafkaError::NotLeaderOrFollower) });
            self.text =
                say!(self, "Broker {leader} does not lead the partition: {pname}'s write gets NOT_LEADER_OR_FOLLOWER.{}", sent.note());
            return;
        };
        let min_isr = self.min_isr_for_acks();
        if acks == Acks::All && (ls.isr.len() as u32) < min_isr {
            let isr = ls.isr.clone();
            self.ev().outcome = Some("error");
            self.ev().error = Some(KafkaError::NotEnoughReplicas.name());
            let sent =
                self.send(msg.to, msg.from, Body::ProduceResponse { request: msg.id, ids, error: Some(KafkaError::NotEnoughReplicas) });
            self.text = say!(
                self,
                "Leader {leader} refuses {pname}'s acks=all write: the ISR {} has {} member{}, fewer than min.insync.replicas = {min_isr}. NOT_ENOUGH_REPLICAS; nothing is appended.{}",
                set_str(&isr),
                isr.len(),
                plural(isr.len()),
                sent.note()
            );
            return;
        }
        let epoch = b.leader_epoch;
        let first = b.log.leo();
        for id in &ids {
            self.broker_mut(leader).log.append(Entry { epoch, id: *id });
        }
        let leo = self.broker(leader).log.leo();
        self.ev().outcome = Some("appended");
        self.ev().first_offset = Some(first);
        self.ev().leo_after = Some(leo);
        let mut text = if ids.len() == 1 {
            say!(self, "Leader {leader} appends {} at offset {first} (LEO {leo}) in epoch {epoch}.", self.record_name(ids[0]))
        } else {
            say!(
                self,
                "Leader {leader} appends {pname}'s {} records at offsets {first}–{} (LEO {leo}) in epoch {epoch}.",
                ids.len(),
                leo - 1
            )
        };
        // The append path also tries the HW: it matters when the leader is alone in the ISR.
        let hw_move = self.maybe_increment_leader_hw(leader);
        if let Some((a, b)) = hw_move {
            self.ev().hw_before = Some(a);
            self.ev().hw_after = Some(b);
            text.push_str(&say!(self, " No follower counts toward the HW, so it moves at once: HW {a} → {b}."));
        }
        match acks {
            Acks::Zero => text.push_str(" acks=0: no answer is sent."),
            Acks::One => {
                let sent = self.send(msg.to, msg.from, Body::ProduceResponse { request: msg.id, ids: ids.clone(), error: None });
                text.push_str(&say!(self, " acks=1: the leader acknowledges now, before any follower has the records.{}", sent.note()));
            }
            Acks::All => {
                let timeout = self.scenario.producers[producer].request_timeout_ms;
                let expire_ms = self.now + timeout;
                let timer = self.set_timer(expire_ms, Timer::ProduceExpiry { leader, request: msg.id });
                self.lead_mut(leader).delayed_produces.push(DelayedProduce {
                    producer,
                    request: msg.id,
                    ids: ids.clone(),
                    required_offset: leo,
                    expire_ms,
                    timer,
                });
                text.push_str(&say!(self, " acks=all: the answer waits until the HW reaches {leo}."));
            }
        }
        // INCREASED: produce, then fetch purgatory; SAME: fetch purgatory (`addCompletePurgatoryAction`).
        if hw_move.is_some() {
            text.push_str(&self.complete_delayed_produces(leader));
            text.push_str(&self.complete_consumer_fetches(leader));
        }
        text.push_str(&self.complete_follower_fetches(leader, false));
        self.text = text;
    }
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
