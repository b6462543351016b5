//! Each participant's references alone: what its walk in `nodes.rs` hashes in
//! `Mode::Refs` (message and request ids, timers by their place in the queue),
//! the same words in the same order, without walking the rest of the node again.
//! A node's content is cached (`Walker::cached`); its references are hashed
//! for every state, so this walk is the one that runs most.
//!
//! Every field is named, as in `nodes.rs`: a field that gains a reference must say
//! so here too (`tests::node_references_walked_alone` compares the two walks).

use super::Walker;
use crate::sim::state::{
    Batch, Broker, ClientMeta, Consumer, ConsumerFetch, Controller, DelayedProduce, FetcherState, LeaderState, MetadataFetch,
    ParkedConsumerFetch, ParkedFetch, ProduceRequest, Producer,
};

impl<const M: u8> Walker<'_, M> {
    pub(super) fn broker_refs(&mut self, b: &Broker) {
        let Broker {
            id: _,
            alive: _,
            silently_down: _,
            lifecycle: _,
            incarnation: _,
            broker_epoch: _,
            metadata_offset: _,
            heartbeat_timer,
            heartbeat_rpc,
            heartbeat_failures: _,
            heartbeat_phase: _,
            metadata_fetch,
            hw_checkpoint: _,
            hw_checkpoint_phase: _,
            producer_state: _,
            log: _,
            hw: _,
            hw_epoch: _,
            leader_epoch: _,
            leader: _,
            role: _,
            lead,
            fetcher,
            needs_truncation: _,
            parked_consumers,
            ghosts: _,
            kafka_partition: _,
            // Read by the narration only (a repeated OffsetsForLeaderEpoch round is told once).
            epoch_query_loop: _,
            image_partition_epoch: _,
        } = b;
        if let Some(k) = heartbeat_timer {
            self.key(*k);
        }
        if let Some((msg, k)) = heartbeat_rpc {
            self.id(*msg);
            self.key(*k);
        }
        match *metadata_fetch {
            MetadataFetch::Waiting { msg, sent: _, timer } => {
                self.id(msg.unwrap_or(0));
                self.key(timer);
            }
            MetadataFetch::Backoff { timer } => self.key(timer),
            MetadataFetch::Polling { since: _ } | MetadataFetch::Off => {}
        }
        if let Some(ls) = lead {
            self.leader_refs(ls);
        }
        match *fetcher {
            FetcherState::Fetching { request, timeout } | FetcherState::Truncating { request, timeout } => {
                self.id(request);
                self.key(timeout);
            }
            FetcherState::Waiting { timer } => self.key(timer),
            FetcherState::Idle => {}
        }
        for p in parked_consumers {
            let ParkedConsumerFetch { consumer: _, request, offset: _, expire_ms: _, timer, redirect: _ } = p;
            self.id(*request);
            self.key(*timer);
        }
    }

    fn leader_refs(&mut self, ls: &LeaderState) {
        let LeaderState {
            epoch_start_offset: _,
            isr: _,
            isr_hashed: _,
            pending: _,
            partition_epoch: _,
            followers: _,
            fenced: _,
            parked_fetches,
            delayed_produces,
            isr_timer,
            alter,
            alter_broker_epochs: _,
        } = ls;
        for p in parked_fetches {
            let ParkedFetch { follower: _, request, req: _, expire_ms: _, timer } = p;
            self.id(*request);
            self.key(*timer);
        }
        for d in delayed_produces {
            let DelayedProduce { producer: _, request, ids: _, required_offset: _, expire_ms: _, timer, duplicate: _ } = d;
            self.id(*request);
            self.key(*timer);
        }
        if let Some(k) = isr_timer {
            self.key(*k);
        }
        if let Some((request, k)) = alter {
            self.id(*request);
            self.key(*k);
        }
    }

    pub(super) fn controller_refs(&mut self, c: &Controller) {
        let Controller {
            leader: _,
            leader_epoch: _,
            isr: _,
            partition_epoch: _,
            elr: _,
            last_known_elr: _,
            fenced: _,
            registrations: _,
            metadata_offset: _,
            check_anchor: _,
            check,
            zookeeper: _,
            parked_fetches,
        } = c;
        // In new-id order, as `controller` walks them.
        for new in 0..parked_fetches.len() {
            if let Some((request, k)) = parked_fetches[self.cx.perm.from[new] as usize] {
                self.id(request);
                self.key(k);
            }
        }
        if let Some((k, _)) = check {
            self.key(*k);
        }
    }

    fn client_meta_refs(&mut self, m: &ClientMeta) {
        let ClientMeta { leader: _, leader_epoch: _, wanted: _, in_flight, last_sent_ms: _, attempts: _, updated_ms: _, blackout: _ } = m;
        if let Some((request, _, k)) = in_flight {
            self.id(*request);
            self.key(*k);
        }
    }

    pub(super) fn producer_refs(&mut self, p: &Producer) {
        let Producer {
            settings: _,
            next_n: _,
            acked: _,
            failed: _,
            pending: _,
            batches,
            requests,
            meta,
            epoch: _,
            wake,
            expiry,
            retries: _,
        } = p;
        for b in batches {
            let Batch {
                ids: _,
                created_ms: _,
                attempts: _,
                retry_at: _,
                request,
                epoch: _,
                sent_to: _,
                last_error: _,
                reenqueued_ms: _,
                unsure: _,
            } = b;
            if let Some(r) = request {
                self.id(*r);
            }
        }
        for (request, r) in requests.iter() {
            let ProduceRequest { broker: _, timeout } = *r;
            self.id(*request);
            self.key(timeout);
        }
        self.client_meta_refs(meta);
        if let Some((k, _)) = wake {
            self.key(*k);
        }
        if let Some((k, _)) = expiry {
            self.key(*k);
        }
    }

    pub(super) fn consumer_refs(&mut self, c: &Consumer) {
        let Consumer {
            spec: _,
            settings: _,
            position: _,
            position_epoch: _,
            records_read: _,
            read: _,
            fetch,
            meta,
            preferred: _,
            awaiting_validation: _,
            stopped: _,
        } = c;
        match *fetch {
            Some(ConsumerFetch::InFlight { broker: _, request, timeout })
            | Some(ConsumerFetch::Validating { broker: _, request, timeout }) => {
                self.id(request);
                self.key(timeout);
            }
            Some(ConsumerFetch::Backoff { timer }) => self.key(timer),
            None => {}
        }
        self.client_meta_refs(meta);
    }
}
