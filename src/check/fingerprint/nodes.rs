//! The fingerprint of each participant's state: brokers (their log, leader
//! and fetcher state, KRaft lifecycle, producer state), the controller, the
//! producers and consumers. Broker ids go through the walker's renaming.

use super::Walker;
use crate::sim::state::{
    Batch, Broker, ClientMeta, Consumer, ConsumerFetch, Controller, DelayedProduce, FetcherState, FollowerView, LeaderState, Lifecycle,
    MetadataFetch, ParkedConsumerFetch, ParkedFetch, PendingIsr, ProduceRequest, Producer, ProducerEntry, Registration, Role,
};

impl<const M: u8> Walker<'_, M> {
    pub(super) fn broker_state(&mut self, b: &Broker) {
        let Broker {
            id,
            alive,
            silently_down,
            lifecycle,
            incarnation,
            broker_epoch,
            metadata_offset,
            heartbeat_timer,
            heartbeat_rpc,
            heartbeat_failures,
            // Not hashed, as when the controller kept each broker's grid: it moves only where
            // a heartbeat is given up, which `heartbeat_failures` and the timer tell already.
            heartbeat_phase: _,
            metadata_fetch,
            hw_checkpoint,
            hw_checkpoint_phase,
            producer_state,
            log,
            hw,
            hw_epoch,
            leader_epoch,
            leader,
            role,
            lead,
            fetcher,
            needs_truncation,
            parked_consumers,
            // Drawn only: records this replica truncated or lost, kept for the page.
            ghosts: _,
            // Read by the broker log only (which start lines Kafka would print).
            kafka_partition: _,
            // Read by the narration only (a repeated OffsetsForLeaderEpoch round is told once).
            epoch_query_loop: _,
            image_partition_epoch,
        } = b;
        self.word(image_partition_epoch.map_or(u64::MAX, u64::from));
        self.broker(*id);
        self.word(
            *alive as u64 | (*needs_truncation as u64) << 1 | (matches!(role, Role::Leader) as u64) << 2 | (*silently_down as u64) << 3,
        );
        self.word(match lifecycle {
            Lifecycle::Starting => 0,
            Lifecycle::Recovery => 1,
            Lifecycle::Running => 2,
        });
        self.word(*incarnation as u64);
        match broker_epoch {
            Some(e) => self.broker_epoch(*id, *e),
            None => self.word(u64::MAX),
        }
        self.word(*metadata_offset);
        self.opt_key(*heartbeat_timer);
        match heartbeat_rpc {
            Some((msg, k)) => {
                self.id(*msg);
                self.key(*k);
            }
            None => self.word(u64::MAX),
        }
        self.word(u64::from(*heartbeat_failures));
        match *metadata_fetch {
            MetadataFetch::Polling { since } => {
                self.word(1);
                self.time(since);
            }
            MetadataFetch::Waiting { msg, sent, timer } => {
                self.word(2);
                self.id(msg.unwrap_or(0));
                self.time(sent);
                self.key(timer);
            }
            MetadataFetch::Backoff { timer } => {
                self.word(3);
                self.key(timer);
            }
            MetadataFetch::Off => self.word(4),
        }
        self.time(hw_checkpoint.0);
        self.word(hw_checkpoint.1);
        self.word(*hw_checkpoint_phase);
        self.word(producer_state.len() as u64);
        let refs = self.refs_only();
        for (p, e) in producer_state.iter().filter(|_| !refs) {
            let ProducerEntry { epoch, last_n } = *e;
            self.word((*p as u64) << 48 | (epoch as u64) << 32 | last_n as u64);
        }
        self.log(log);
        self.word(*hw);
        self.word((*hw_epoch as u32 as u64) << 32 | *leader_epoch as u32 as u64);
        self.opt_broker(*leader);
        match lead {
            Some(ls) => self.leader_state(ls),
            None => self.word(u64::MAX),
        }
        self.fetcher(fetcher);
        self.word(parked_consumers.len() as u64);
        for p in parked_consumers {
            let ParkedConsumerFetch { consumer, request, offset, expire_ms, timer, redirect } = p;
            self.word(*consumer as u64);
            self.id(*request);
            self.word(*offset);
            self.time(*expire_ms);
            self.key(*timer);
            self.opt_broker(*redirect);
        }
    }

    pub(super) fn fetcher(&mut self, f: &FetcherState) {
        match *f {
            FetcherState::Idle => self.word(0),
            FetcherState::Fetching { request, timeout } => {
                self.word(1);
                self.id(request);
                self.key(timeout);
            }
            FetcherState::Waiting { timer } => {
                self.word(2);
                self.key(timer);
            }
            FetcherState::Truncating { request, timeout } => {
                self.word(3);
                self.id(request);
                self.key(timeout);
            }
        }
    }

    pub(super) fn leader_state(&mut self, ls: &LeaderState) {
        let LeaderState {
            epoch_start_offset,
            isr,
            isr_hashed,
            pending,
            partition_epoch,
            followers,
            fenced,
            parked_fetches,
            delayed_produces,
            isr_timer,
            alter,
            alter_broker_epochs,
        } = ls;
        self.word(*epoch_start_offset);
        self.brokers(isr);
        // A Scala `HashSet` (five members or more, ever): a word only then, so the
        // fingerprints of smaller clusters stay as they were.
        if let Some(m) = isr_hashed {
            self.word(0x5e7 + *m as u64);
        }
        match pending {
            None => self.word(0),
            Some(PendingIsr::Expand(b)) => {
                self.word(1);
                self.broker(*b);
            }
            Some(PendingIsr::Shrink(out)) => {
                self.word(2);
                self.brokers(out);
            }
        }
        self.word(*partition_epoch as u64);
        // Followers in new-id order (no references in them: skipped when walking those).
        for new in 0..if self.refs_only() || followers.is_empty() { 0 } else { self.cx.brokers } {
            let old = self.cx.perm.from[new as usize] as u32;
            if let Some(v) = followers.get(&old) {
                let FollowerView {
                    leo,
                    log_start_offset,
                    last_fetch_leader_leo,
                    last_fetch_ms,
                    last_caught_up_ms,
                    last_sent_hw,
                    broker_epoch,
                } = *v;
                self.word(new as u64);
                self.word(leo.map_or(u64::MAX, |l| l));
                self.word(log_start_offset);
                self.word(last_fetch_leader_leo);
                self.opt_time(last_fetch_ms);
                self.opt_time(last_caught_up_ms);
                self.word(last_sent_hw);
                self.opt_broker_epoch(old, broker_epoch);
            }
        }
        self.brokers(fenced.iter());
        for new in 0..if self.refs_only() || alter_broker_epochs.is_empty() { 0 } else { self.cx.brokers } {
            let old = self.cx.perm.from[new as usize] as u32;
            if let Some(&(_, e)) = alter_broker_epochs.iter().find(|(b, _)| *b == old) {
                self.word(new as u64);
                self.opt_broker_epoch(old, e);
            }
        }
        // Parked fetches and delayed produces are answered in their list's order.
        for p in parked_fetches {
            let ParkedFetch { follower, request, req, expire_ms, timer } = p;
            self.broker(*follower);
            self.id(*request);
            self.fetch_request(req);
            self.time(*expire_ms);
            self.key(*timer);
        }
        self.word(u64::MAX - 2);
        for d in delayed_produces {
            let DelayedProduce { producer, request, ids, required_offset, expire_ms, timer, duplicate } = d;
            self.word(*producer as u64 | (*duplicate as u64) << 32);
            self.id(*request);
            self.records(ids);
            self.word(*required_offset);
            self.time(*expire_ms);
            self.key(*timer);
        }
        self.opt_key(*isr_timer);
        match alter {
            Some((request, k)) => {
                self.id(*request);
                self.key(*k);
            }
            None => self.word(u64::MAX - 4),
        }
    }

    pub(super) fn controller(&mut self, c: &Controller) {
        // The heartbeat phases are drawn from the seed once (the symmetry groups compare them).
        let Controller {
            leader,
            leader_epoch,
            isr,
            partition_epoch,
            elr,
            last_known_elr,
            fenced,
            registrations,
            metadata_offset,
            check_anchor,
            check,
            zookeeper,
            parked_fetches,
        } = c;
        self.opt_broker(*leader);
        self.word(*leader_epoch as u32 as u64);
        self.brokers(isr.iter());
        self.brokers(elr.iter());
        self.brokers(last_known_elr.iter());
        self.word(*partition_epoch as u64);
        self.brokers(fenced.iter());
        // Registrations in new-id order (no references in them, nor in ZooKeeper's sessions).
        for new in 0..if self.refs_only() { 0 } else { registrations.len() } {
            let old = self.cx.perm.from[new] as u32;
            let Registration { incarnation, broker_epoch, fenced, session_deadline, registered_at } = registrations[old as usize];
            self.word(incarnation as u64 | (fenced as u64) << 32);
            self.broker_epoch(old, broker_epoch);
            self.opt_time(session_deadline);
            self.word(registered_at);
        }
        // ZooKeeper's sessions in new-id order.
        for new in 0..if self.refs_only() { 0 } else { zookeeper.len() } {
            let s = zookeeper[self.cx.perm.from[new] as usize];
            self.word(s.incarnation as u64);
            self.opt_time(s.deadline);
        }
        self.word(*metadata_offset);
        // Parked metadata Fetches in new-id order.
        for new in 0..parked_fetches.len() {
            match parked_fetches[self.cx.perm.from[new] as usize] {
                Some((request, k)) => {
                    self.id(request);
                    self.key(k);
                }
                None => self.word(u64::MAX - 6),
            }
        }
        self.time(*check_anchor);
        match check {
            Some((k, at)) => {
                self.key(*k);
                self.time(*at);
            }
            None => self.word(u64::MAX - 5),
        }
    }

    pub(super) fn client_meta(&mut self, m: &ClientMeta) {
        let ClientMeta { leader, leader_epoch, wanted, in_flight, last_sent_ms, attempts, updated_ms, blackout } = m;
        self.opt_broker(*leader);
        self.word(*leader_epoch as u32 as u64 | (*wanted as u64) << 32);
        match in_flight {
            Some((request, broker, k)) => {
                self.id(*request);
                self.broker(*broker);
                self.key(*k);
            }
            None => self.word(u64::MAX),
        }
        self.opt_time(*last_sent_ms);
        self.word(*attempts as u64);
        self.time(*updated_ms);
        for new in 0..if self.refs_only() || blackout.is_empty() { 0 } else { self.cx.brokers } {
            if let Some(&until) = blackout.get(&(self.cx.perm.from[new as usize] as u32)) {
                self.word(new as u64);
                self.time(until);
            }
        }
        self.word(u64::MAX - 6);
    }

    pub(super) fn producer(&mut self, p: &Producer) {
        // `settings` are the scenario's; `retries` only counts, for the record.
        let Producer { settings, next_n, acked, failed, pending, batches, requests, meta, epoch, wake, expiry, retries: _ } = p;
        // A batch's last failed attempt decides its expiry only before KIP-91 (2.1).
        let before_kip_91 = settings.delivery_timeout_ms.is_none();
        self.word(*next_n as u64);
        if !self.refs_only() {
            self.word(acked.len() as u64);
            for id in acked.iter() {
                self.record(*id);
            }
            self.word(failed.len() as u64);
            for id in failed.iter() {
                self.record(*id);
            }
        }
        self.records(pending);
        self.word(batches.len() as u64);
        for b in batches {
            // `unsure` is read only by the narration (why a record is in the log twice).
            let Batch { ids, created_ms, attempts, retry_at, request, epoch, sent_to, last_error, reenqueued_ms, unsure: _ } = b;
            self.records(ids);
            self.time(*created_ms);
            self.word(*attempts as u64 | (*epoch as u64) << 32);
            self.time(*retry_at);
            match request {
                Some(r) => self.id(*r),
                None => self.word(u64::MAX),
            }
            match sent_to {
                Some((b, e)) => {
                    self.broker(*b);
                    self.word(*e as u32 as u64);
                }
                None => self.word(u64::MAX),
            }
            self.word(last_error.map_or(0, |e| e as u64 + 1));
            if before_kip_91 {
                self.opt_time(*reenqueued_ms);
            }
        }
        self.word(requests.len() as u64);
        for (request, r) in requests.iter() {
            let ProduceRequest { broker, timeout } = *r;
            self.id(*request);
            self.broker(broker);
            self.key(timeout);
        }
        self.client_meta(meta);
        self.word(*epoch as u64);
        match wake {
            Some((k, at)) => {
                self.key(*k);
                self.time(*at);
            }
            None => self.word(u64::MAX - 5),
        }
        // Only ever set before KIP-91 (2.1).
        if let Some((k, at)) = expiry {
            self.key(*k);
            self.time(*at);
        }
    }

    pub(super) fn consumer(&mut self, c: &Consumer) {
        let Consumer {
            spec: _,
            settings: _,
            position,
            position_epoch,
            records_read,
            read,
            fetch,
            meta,
            preferred,
            awaiting_validation,
            stopped,
        } = c;
        self.word(*position);
        self.word(position_epoch.map_or(u64::MAX, |e| e as u32 as u64));
        self.word(*records_read);
        if !self.refs_only() {
            for (o, id) in read.iter() {
                self.word(*o);
                self.record(*id);
            }
        }
        match *fetch {
            None => self.word(0),
            Some(ConsumerFetch::InFlight { broker, request, timeout }) => {
                self.word(1);
                self.broker(broker);
                self.id(request);
                self.key(timeout);
            }
            Some(ConsumerFetch::Backoff { timer }) => {
                self.word(2);
                self.key(timer);
            }
            Some(ConsumerFetch::Validating { broker, request, timeout }) => {
                self.word(3);
                self.broker(broker);
                self.id(request);
                self.key(timeout);
            }
        }
        self.client_meta(meta);
        match preferred {
            Some((b, until)) => {
                self.broker(*b);
                self.time(*until);
            }
            None => self.word(u64::MAX),
        }
        self.word(*awaiting_validation as u64);
        self.word(stopped.map_or(0, |e| e as u64 + 1));
    }
}
