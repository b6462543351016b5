//! What producers and consumers share: their view of the partition's leader
//! (`Metadata`), refreshed by asking a broker, whose own view may be stale; the
//! least loaded broker they ask (`NetworkClient.leastLoadedNode`); and the
//! exponential backoff with jitter they retry with (KIP-580, 3.7+).
//! Kafka: `org.apache.kafka.clients.Metadata`, `NetworkClient`, `ExponentialBackoff`.

use super::event::Event;
use super::msg::{Body, Msg, Node};
use super::scheduler::Timer;
use super::state::ClientMeta;
use super::Sim;

/// How long a client leaves a broker alone after a connection to it failed
/// (`reconnect.backoff.ms`, Kafka's default 50 ms).
const RECONNECT_BACKOFF_MS: u64 = 50;

impl Sim {
    pub(crate) fn meta(&self, client: Node) -> &ClientMeta {
        match client {
            Node::Producer(p) => &self.producers[p].meta,
            Node::Consumer(c) => &self.consumers[c].meta,
            _ => unreachable!("only clients keep metadata"),
        }
    }

    pub(crate) fn meta_mut(&mut self, client: Node) -> &mut ClientMeta {
        match client {
            Node::Producer(p) => &mut self.producers[p].meta,
            Node::Consumer(c) => &mut self.consumers[c].meta,
            _ => unreachable!("only clients keep metadata"),
        }
    }

    /// (retry.backoff.ms, retry.backoff.max.ms, metadata.max.age.ms, request.timeout.ms) of a client.
    fn client_timing(&self, client: Node) -> (u64, u64, u64, u64) {
        match client {
            Node::Producer(p) => {
                let s = &self.producers[p].settings;
                (s.retry_backoff_ms, s.retry_backoff_max_ms, s.metadata_max_age_ms, s.request_timeout_ms)
            }
            Node::Consumer(c) => {
                let s = &self.consumers[c].settings;
                let max = self.scenario.preset.defaults().retry_backoff_max_ms.unwrap_or(s.retry_backoff_ms).max(s.retry_backoff_ms);
                (s.retry_backoff_ms, max, s.metadata_max_age_ms, s.request_timeout_ms)
            }
            _ => (100, 100, 300_000, 30_000),
        }
    }

    /// `ExponentialBackoff.backoff(attempts)` (3.7+, KIP-580): `base` doubled per
    /// attempt up to `max`, times a factor in [0.8, 1.2) drawn from the seed, at most
    /// `max`; a fixed `base` when it cannot grow (before 3.7). Integer arithmetic, so
    /// that every platform draws the same.
    pub(crate) fn backoff_ms(&mut self, base: u64, max: u64, attempts: u32) -> u64 {
        if max <= base {
            return max.min(base);
        }
        let term = if attempts >= 63 { max } else { base.saturating_mul(1u64 << attempts).min(max) };
        let factor = 800 + self.rng.upto(399);
        (term * factor / 1000).min(max)
    }

    /// `Metadata.requestUpdate`: the client wants new metadata (an error that means its
    /// view is stale, a broken connection, no leader known).
    pub(crate) fn request_metadata_update(&mut self, client: Node) {
        self.meta_mut(client).wanted = true;
        self.maybe_update_metadata(client);
    }

    /// `DefaultMetadataUpdater.maybeUpdate`: if an update is wanted (or the metadata is
    /// older than metadata.max.age.ms) and none is in flight, ask the least loaded
    /// broker, once the refresh backoff allows; otherwise wake up when it does.
    pub(crate) fn maybe_update_metadata(&mut self, client: Node) {
        let (base, max, max_age, timeout) = self.client_timing(client);
        let now = self.now;
        let m = self.meta(client);
        if m.in_flight.is_some() {
            return;
        }
        let expired = now >= m.updated_ms + max_age;
        if !m.wanted && !expired {
            return self.wake_client_at(client, m.updated_ms + max_age);
        }
        let attempts = m.attempts;
        let allowed = match m.last_sent_ms {
            Some(last) if attempts > 0 => last + self.backoff_ms(base, max, attempts - 1),
            _ => now,
        };
        if allowed > now {
            return self.wake_client_at(client, allowed);
        }
        let Some(broker) = self.least_loaded_node(client) else {
            return self.wake_client_at(client, now + RECONNECT_BACKOFF_MS);
        };
        let request = self.send(client, Node::Broker(broker), Body::MetadataRequest);
        let wait = if self.net.would_wait_for_connection(client, Node::Broker(broker)) { timeout.min(10_000) } else { timeout };
        let t = self.set_timer(now + wait, Timer::MetadataTimeout { client });
        let m = self.meta_mut(client);
        m.in_flight = Some((request, broker, t));
        m.last_sent_ms = Some(now);
        self.emit(Event::MetadataRequested { client, broker, msg: request });
    }

    /// `NetworkClient.leastLoadedNode`: a broker with nothing in flight from this client
    /// and not in reconnect backoff, starting from a point drawn from the seed; else
    /// any broker not in backoff.
    fn least_loaded_node(&mut self, client: Node) -> Option<u32> {
        let n = self.scenario.replicas;
        let offset = self.rng.upto(u64::from(n) - 1) as u32;
        let now = self.now;
        let meta = self.meta(client);
        let usable = |b: u32| meta.blackout.get(&b).is_none_or(|&until| until <= now);
        let busy = |b: u32| match client {
            Node::Producer(p) => self.producers[p].requests.values().any(|r| r.broker == b),
            Node::Consumer(c) => self.consumers[c].fetch_target() == Some(b),
            _ => false,
        };
        let order: Vec<u32> = (0..n).map(|i| (i + offset) % n).collect();
        order.iter().copied().find(|&b| usable(b) && !busy(b)).or_else(|| order.iter().copied().find(|&b| usable(b)))
    }

    /// A broker answers a client's metadata request with what it knows: the leader and
    /// epoch of the metadata it has applied (stale if it has not heard the latest).
    pub(crate) fn handle_metadata_request(&mut self, msg: &Msg) {
        let Node::Broker(id) = msg.to else { return };
        let b = self.broker(id);
        let (leader, leader_epoch) = if b.broker_epoch.is_some() { (b.leader, b.leader_epoch) } else { (None, b.leader_epoch) };
        let sent = self.send(msg.to, msg.from, Body::MetadataResponse { request: msg.id, leader, leader_epoch });
        self.emit(Event::MetadataAnswered { broker: id, client: msg.from, leader, leader_epoch, msg: sent });
    }

    /// `Metadata.update`: a newer leader epoch (or the same) replaces what the client
    /// knew; an older one is ignored (KIP-320). An answer that brings nothing new
    /// counts toward the refresh backoff. Then the client acts on it.
    pub(crate) fn handle_metadata_response(&mut self, msg: &Msg, request: u64, leader: Option<u32>, leader_epoch: i32) {
        let client = msg.to;
        let Node::Broker(from) = msg.from else { return };
        let m = self.meta(client);
        let Some((req, _, timer)) = m.in_flight.filter(|(r, _, _)| *r == request) else {
            return self.emit(Event::MetadataResponseIgnored { client });
        };
        let _ = req;
        self.cancel(timer);
        let now = self.now;
        let m = self.meta_mut(client);
        m.in_flight = None;
        m.last_sent_ms = Some(now);
        let newer = leader.is_some() && (leader_epoch > m.leader_epoch || (leader_epoch == m.leader_epoch && leader != m.leader));
        let stale = leader_epoch < m.leader_epoch;
        if newer {
            m.leader = leader;
            m.leader_epoch = leader_epoch;
            m.attempts = 0;
            m.wanted = false;
        } else {
            m.attempts += 1;
            // No leader known yet: keep asking.
            m.wanted = leader.is_none() || (stale || m.leader.is_none());
        }
        m.updated_ms = now;
        self.emit(Event::MetadataUpdated { client, from, leader, leader_epoch, changed: newer, stale });
        self.client_metadata_changed(client, newer);
    }

    /// No answer to a metadata request within request.timeout.ms: the client closes
    /// that connection, leaves the broker alone a while and asks again.
    pub(crate) fn metadata_request_timeout(&mut self, client: Node) {
        let Some((_, broker, _)) = self.meta(client).in_flight else { return };
        self.close_conn(client, Node::Broker(broker));
        let now = self.now;
        let m = self.meta_mut(client);
        m.in_flight = None;
        m.attempts += 1;
        m.last_sent_ms = Some(now);
        m.blackout.insert(broker, now + RECONNECT_BACKOFF_MS);
        self.emit(Event::MetadataTimedOut { client, broker });
        self.request_metadata_update(client);
    }

    /// A connection to `broker` failed (reset, refused, timed out): the client leaves it
    /// alone for reconnect.backoff.ms and wants new metadata.
    pub(crate) fn client_disconnected(&mut self, client: Node, broker: u32) {
        let now = self.now;
        let m = self.meta_mut(client);
        m.blackout.insert(broker, now + RECONNECT_BACKOFF_MS);
        if let Some((_, b, timer)) = m.in_flight {
            if b == broker {
                m.in_flight = None;
                m.attempts += 1;
                self.cancel(timer);
            }
        }
        self.request_metadata_update(client);
    }

    /// Wakes a client at `at` (a backoff ending) unless it is already due to wake earlier.
    pub(crate) fn wake_client_at(&mut self, client: Node, at: u64) {
        match client {
            Node::Producer(p) => self.wake_producer_at(p, at),
            Node::Consumer(c) => self.wake_consumer_at(c, at),
            _ => {}
        }
    }

    /// What a client does once its metadata changed (or a refresh found nothing new).
    fn client_metadata_changed(&mut self, client: Node, changed: bool) {
        match client {
            Node::Producer(p) => self.drain(p),
            Node::Consumer(c) => self.consumer_metadata_changed(c, changed),
            _ => {}
        }
    }
}
