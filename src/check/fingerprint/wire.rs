//! The fingerprint of what travels and waits: messages in flight, timers,
//! the scenario's interventions. Broker ids go through the walker's renaming.

use super::Walker;
use crate::scenario::{Action, Peer};
use crate::sim::log::Entry;
use crate::sim::msg::{Body, ConsumerFetchResponse, FetchRequest, FetchResponse, Hold, Metadata, Msg};
use crate::sim::Timer;

impl<const M: u8> Walker<'_, M> {
    pub(super) fn action(&mut self, a: &Action) {
        match a {
            Action::Produce { producer, records } => {
                self.word(1);
                self.word((*producer as u64) << 32 | *records as u64);
            }
            Action::Crash { broker, unflushed, silent } => {
                self.word(2);
                self.broker(*broker);
                self.word(*unflushed);
                self.word(*silent as u64);
            }
            Action::Restart { broker } => {
                self.word(3);
                self.broker(*broker);
            }
            Action::Partition { links, catch, channel } => {
                self.word(4);
                self.links(links);
                self.word(catch.len() as u64);
                for &id in catch {
                    self.id(id);
                }
                if let Some(c) = channel {
                    self.word(10 + *c as u64);
                }
            }
            Action::Heal { links, channel } => {
                self.word(5);
                self.links(links);
                if let Some(c) = channel {
                    self.word(10 + *c as u64);
                }
            }
            Action::AddConsumer(spec) => {
                self.word(6);
                self.text(&spec.id);
            }
        }
    }

    fn links(&mut self, links: &[(Peer, Peer)]) {
        for (x, y) in links {
            self.peer(x);
            self.peer(y);
        }
    }

    fn text(&mut self, s: &str) {
        self.word(s.len() as u64);
        for b in s.bytes() {
            self.word(b as u64);
        }
    }

    /// A link's end in an intervention.
    fn peer(&mut self, p: &Peer) {
        match p {
            Peer::Broker(b) => {
                self.word(0);
                self.broker(*b);
            }
            Peer::Controller => self.word(1),
            Peer::ZooKeeper => self.word(4),
            Peer::Producer(i) => {
                self.word(2);
                self.word(*i as u64);
            }
            Peer::Consumer(id) => {
                self.word(3);
                self.text(id);
            }
        }
    }

    fn metadata(&mut self, meta: &Metadata) {
        let Metadata { leader, leader_epoch, isr, partition_epoch, fenced, offset } = meta;
        self.opt_broker(*leader);
        self.word((*leader_epoch as u32 as u64) << 32 | *partition_epoch as u64);
        self.brokers(isr);
        self.brokers(fenced);
        self.word(*offset);
    }

    fn opt_metadata(&mut self, meta: &Option<Metadata>) {
        match meta {
            Some(m) => self.metadata(m),
            None => self.word(u64::MAX),
        }
    }

    pub(super) fn timer(&mut self, t: &Timer) {
        match *t {
            Timer::FetchExpiry { leader, follower } => {
                self.word(1);
                self.broker(leader);
                self.broker(follower);
            }
            Timer::ConsumerFetchExpiry { broker, consumer } => {
                self.word(2);
                self.broker(broker);
                self.word(consumer as u64);
            }
            Timer::ProduceExpiry { leader, request } => {
                self.word(3);
                self.broker(leader);
                self.id(request);
            }
            Timer::IsrExpiration { leader } => {
                self.word(4);
                self.broker(leader);
            }
            Timer::FetcherRetry { follower } => {
                self.word(5);
                self.broker(follower);
            }
            Timer::FetchRequestTimeout { follower } => {
                self.word(6);
                self.broker(follower);
            }
            Timer::ProduceRequestTimeout { producer, request } => {
                self.word(7);
                self.word(producer as u64);
                self.id(request);
            }
            Timer::ConsumerRequestTimeout { consumer } => {
                self.word(8);
                self.word(consumer as u64);
            }
            Timer::Heartbeat { broker } => {
                self.word(9);
                self.broker(broker);
            }
            Timer::FenceCheck => self.word(10),
            Timer::AlterPartitionRetry { leader } => {
                self.word(11);
                self.broker(leader);
            }
            Timer::ProducerWake { producer } => {
                self.word(12);
                self.word(producer as u64);
            }
            Timer::MetadataTimeout { client } => {
                self.word(13);
                self.node(client);
            }
            Timer::MetadataFetch { broker } => {
                self.word(14);
                self.broker(broker);
            }
            Timer::MetadataFetchExpiry { broker } => {
                self.word(15);
                self.broker(broker);
            }
            Timer::HeartbeatTimeout { broker } => {
                self.word(16);
                self.broker(broker);
            }
            Timer::AccumulatorExpiry { producer } => {
                self.word(17);
                self.word(producer as u64);
            }
            Timer::ConnectionSetupTimeout { client, broker } => {
                self.word(18);
                self.node(client);
                self.broker(broker);
            }
        }
    }

    pub(super) fn msg(&mut self, m: &Msg) {
        // `resent_ms` is drawn (the record's), never read by a rule; `sent_ms` is read
        // when a cut catches the message (TCP resends from it: `Sim::catch_in_flight`).
        let Msg { id, from, to, sent_ms, arrive_ms, body, held, resent_ms: _ } = m;
        self.id(*id);
        self.node(*from);
        self.node(*to);
        if self.cx.sent {
            self.time(*sent_ms);
        }
        self.time(*arrive_ms);
        // Broker epochs travel between a broker and the controller: the broker's.
        self.owner = from.broker().or(to.broker()).unwrap_or(u32::MAX);
        match held {
            Some(Hold { since, connect }) => {
                self.time(*since);
                self.word(*connect as u64);
            }
            None => self.word(u64::MAX - 1),
        }
        self.body(body);
    }

    /// A message's references: what `msg` hashes in `Mode::Refs` (its id, and the
    /// request it answers), without walking the rest of its body again. Every
    /// variant is named: one that gains a reference must say so here as in `body`
    /// (`tests::message_references_walked_alone` compares the two).
    pub(super) fn msg_refs(&mut self, m: &Msg) {
        self.id(m.id);
        let request = match &m.body {
            Body::FetchResponse(r) => Some(r.request),
            Body::ProduceResponse { request, .. } => Some(*request),
            Body::ConsumerFetchResponse(r) => Some(r.request),
            Body::AlterPartitionResponse { request, .. } => Some(*request),
            // 0: the idle round's answer, which answers no request (`body`).
            Body::MetadataFetchResponse { request, .. } => (*request != 0).then_some(*request),
            Body::OffsetsForLeaderEpochResponse { request, .. } => Some(*request),
            Body::MetadataResponse { request, .. } => Some(*request),
            Body::Fetch(_)
            | Body::Produce { .. }
            | Body::ConsumerFetch { .. }
            | Body::AlterPartition { .. }
            | Body::LeaderAndIsr(_)
            | Body::MetadataFetch { .. }
            | Body::OffsetsForLeaderEpoch { .. }
            | Body::BrokerRegistration { .. }
            | Body::BrokerRegistrationResponse { .. }
            | Body::BrokerHeartbeat { .. }
            | Body::BrokerHeartbeatResponse { .. }
            | Body::MetadataRequest
            | Body::Reset { .. }
            | Body::ZkPing { .. }
            | Body::ZkRegister { .. }
            | Body::ZkRegistered
            | Body::ZkNodeExists
            | Body::ZkSessionExpired
            | Body::ZkWatch { .. } => None,
        };
        if let Some(r) = request {
            self.id(r);
        }
    }

    pub(super) fn fetch_request(&mut self, r: &FetchRequest) {
        let FetchRequest { replica, broker_epoch, fetch_offset, last_fetched_epoch, current_leader_epoch, log_start_offset } = *r;
        self.broker(replica);
        self.opt_broker_epoch(replica, broker_epoch);
        self.word(fetch_offset);
        self.word(last_fetched_epoch.map_or(u64::MAX, |e| e as u32 as u64));
        self.word(current_leader_epoch as u32 as u64);
        self.word(log_start_offset);
    }

    pub(super) fn offset_records(&mut self, records: &[(u64, Option<Entry>)]) {
        if self.refs_only() {
            return;
        }
        self.word(records.len() as u64);
        for (o, e) in records {
            self.word(*o);
            match e {
                Some(e) => self.entry(e),
                None => self.word(u64::MAX),
            }
        }
    }

    pub(super) fn body(&mut self, b: &Body) {
        match b {
            Body::Fetch(r) => {
                self.word(1);
                self.fetch_request(r);
            }
            Body::FetchResponse(r) => {
                let FetchResponse { request, fetch_offset, records, hw, log_start_offset, leader_leo, error, diverging_epoch } = r;
                self.word(2);
                self.id(*request);
                self.word(*fetch_offset);
                self.offset_records(records);
                self.word(*hw);
                self.word(*log_start_offset);
                self.word(*leader_leo);
                self.word(error.map_or(0, |e| e as u64 + 1));
                match diverging_epoch {
                    Some((e, o)) => {
                        self.word(*e as u32 as u64);
                        self.word(*o);
                    }
                    None => self.word(u64::MAX),
                }
            }
            Body::Produce { ids, acks, producer_epoch } => {
                self.word(3);
                self.records(ids);
                self.word(*acks as u64);
                self.word(producer_epoch.map_or(u64::MAX, |e| e as u64));
            }
            Body::ProduceResponse { request, ids, error, current_leader, duplicate } => {
                self.word(4);
                self.id(*request);
                self.records(ids);
                self.word(error.map_or(0, |e| e as u64 + 1));
                match current_leader {
                    Some((b, e)) => {
                        self.broker(*b);
                        self.word(*e as u32 as u64);
                    }
                    None => self.word(u64::MAX),
                }
                self.word(*duplicate as u64);
            }
            Body::ConsumerFetch { offset, leader_epoch } => {
                self.word(5);
                self.word(*offset);
                self.word(*leader_epoch as u32 as u64);
            }
            Body::ConsumerFetchResponse(r) => {
                let ConsumerFetchResponse { request, offset, records, hw, log_start, error, preferred } = r;
                self.word(6);
                self.id(*request);
                self.word(*offset);
                self.offset_records(records);
                self.word(*hw);
                self.word(*log_start);
                self.word(error.map_or(0, |e| e as u64 + 1));
                self.opt_broker(*preferred);
            }
            Body::AlterPartition { leader_epoch, partition_epoch, isr, broker_epochs } => {
                self.word(7);
                self.word((*leader_epoch as u32 as u64) << 32 | *partition_epoch as u64);
                self.brokers(isr);
                // Each member's broker epoch, in new-id order.
                for new in 0..self.cx.brokers {
                    let old = self.cx.perm.from[new as usize] as u32;
                    if let Some(e) = isr.iter().position(|&b| b == old).and_then(|i| broker_epochs.get(i).copied().flatten()) {
                        self.word(new as u64);
                        self.opt_broker_epoch(old, Some(e));
                    }
                }
            }
            Body::AlterPartitionResponse { request, leader_epoch, partition_epoch, isr, error } => {
                self.word(8);
                self.id(*request);
                self.word((*leader_epoch as u32 as u64) << 32 | *partition_epoch as u64);
                self.brokers(isr);
                self.word(error.map_or(0, |e| e as u64 + 1));
            }
            Body::LeaderAndIsr(meta) => {
                self.word(9);
                self.metadata(meta);
            }
            Body::MetadataFetch { offset } => {
                self.word(30);
                self.word(*offset);
            }
            Body::MetadataFetchResponse { request, metadata } => {
                self.word(31);
                if *request == 0 {
                    self.word(u64::MAX - 1);
                } else {
                    self.id(*request);
                }
                self.opt_metadata(metadata);
            }
            Body::OffsetsForLeaderEpoch { epoch, current_leader_epoch } => {
                self.word(10);
                self.word((*epoch as u32 as u64) << 32 | *current_leader_epoch as u32 as u64);
            }
            Body::OffsetsForLeaderEpochResponse { request, requested, answer, error } => {
                self.word(11);
                self.id(*request);
                self.word(*requested as u32 as u64);
                match answer {
                    Some((e, o)) => {
                        self.word(*e as u32 as u64);
                        self.word(*o);
                    }
                    None => self.word(u64::MAX),
                }
                self.word(error.map_or(0, |e| e as u64 + 1));
            }
            Body::BrokerRegistration { incarnation } => {
                self.word(12);
                self.word(*incarnation as u64);
            }
            Body::BrokerRegistrationResponse { broker_epoch, metadata } => {
                self.word(13);
                match broker_epoch {
                    Some(e) => self.broker_epoch(self.owner, *e),
                    None => self.word(u64::MAX),
                }
                self.opt_metadata(metadata);
            }
            Body::BrokerHeartbeat { broker_epoch, metadata_offset } => {
                self.word(14);
                self.broker_epoch(self.owner, *broker_epoch);
                self.word(*metadata_offset);
            }
            Body::BrokerHeartbeatResponse { fenced, metadata, error } => {
                self.word(15);
                self.word(*fenced as u64);
                self.opt_metadata(metadata);
                self.word(error.map_or(0, |e| e as u64 + 1));
            }
            Body::MetadataRequest => self.word(16),
            Body::MetadataResponse { request, leader, leader_epoch } => {
                self.word(17);
                self.id(*request);
                self.opt_broker(*leader);
                self.word(*leader_epoch as u32 as u64);
            }
            // A refused connection (the request never sent) and a reset one lead apart.
            Body::Reset { refused } => self.word(if *refused { 19 } else { 18 }),
            Body::ZkPing { incarnation } => {
                self.word(20);
                self.word(*incarnation as u64);
            }
            Body::ZkRegister { incarnation } => {
                self.word(21);
                self.word(*incarnation as u64);
            }
            Body::ZkRegistered => self.word(22),
            Body::ZkNodeExists => self.word(25),
            Body::ZkSessionExpired => self.word(23),
            Body::ZkWatch { broker, incarnation } => {
                self.word(24);
                self.broker(*broker);
                self.word(incarnation.map_or(u64::MAX, |i| i as u64));
            }
        }
    }
}
