//! What producers and consumers share: their view of the partition's leader
//! (`Metadata`), refreshed by asking a broker, whose own view may be stale; the
//! least loaded broker they ask (`NetworkClient.leastLoadedNode`); and the
//! exponential backoff with jitter they retry with (KIP-580, 3.7+).
//! Kafka: `org.apache.kafka.clients.Metadata`, `NetworkClient`, `ExponentialBackoff`.
//!
//! The clients' rules here are node functions (`outbox.rs`): each reads and writes
//! one client's state, and tells its caller when the client must wake or act on
//! new metadata. The producer's rules call them directly (`producer.rs`); the
//! consumer's, still `impl Sim` methods, through `Sim::consumer_rule` (`consumer.rs`).

use super::event::Event;
use super::msg::{Body, Msg, Node};
use super::outbox::Out;
use super::scheduler::Timer;
use super::shared::Shared;
use super::state::{ClientMeta, Consumer, Producer};
use super::Sim;
use crate::scenario::Scenario;

/// How long a client leaves a broker alone after a connection to it failed
/// (`reconnect.backoff.ms`, Kafka's default 50 ms).
const RECONNECT_BACKOFF_MS: u64 = 50;

/// What a client's metadata rules read of the client besides its metadata.
pub(crate) trait Client: Clone {
    fn meta(&self) -> &ClientMeta;
    fn meta_mut(&mut self) -> &mut ClientMeta;
    /// (retry.backoff.ms, retry.backoff.max.ms, metadata.max.age.ms, request.timeout.ms).
    fn timing(&self, scenario: &Scenario) -> (u64, u64, u64, u64);
    /// Whether it has a request in flight to `broker` (for `leastLoadedNode`).
    fn busy(&self, broker: u32) -> bool;
}

impl Client for Producer {
    fn meta(&self) -> &ClientMeta {
        &self.meta
    }
    fn meta_mut(&mut self) -> &mut ClientMeta {
        &mut self.meta
    }
    fn timing(&self, _: &Scenario) -> (u64, u64, u64, u64) {
        let s = &self.settings;
        (s.retry_backoff_ms, s.retry_backoff_max_ms, s.metadata_max_age_ms, s.request_timeout_ms)
    }
    fn busy(&self, broker: u32) -> bool {
        self.requests.values().any(|r| r.broker == broker)
    }
}

impl Client for Consumer {
    fn meta(&self) -> &ClientMeta {
        &self.meta
    }
    fn meta_mut(&mut self) -> &mut ClientMeta {
        &mut self.meta
    }
    fn timing(&self, scenario: &Scenario) -> (u64, u64, u64, u64) {
        let s = &self.settings;
        let max = scenario.preset.defaults().retry_backoff_max_ms.unwrap_or(s.retry_backoff_ms).max(s.retry_backoff_ms);
        (s.retry_backoff_ms, max, s.metadata_max_age_ms, s.request_timeout_ms)
    }
    fn busy(&self, broker: u32) -> bool {
        self.fetch_target() == Some(broker)
    }
}

/// `ExponentialBackoff.backoff(attempts)` (3.7+, KIP-580): `base` doubled per
/// attempt up to `max`, times a factor in [0.8, 1.2) drawn from the seed, at most
/// `max`; a fixed `base` when it cannot grow (before 3.7). Integer arithmetic, so
/// that every platform draws the same.
pub(crate) fn backoff_ms(out: &mut Out, base: u64, max: u64, attempts: u32) -> u64 {
    if max <= base {
        return max.min(base);
    }
    let term = if attempts >= 63 { max } else { base.saturating_mul(1u64 << attempts).min(max) };
    let factor = 800 + out.draw(399);
    (term * factor / 1000).min(max)
}

/// `Metadata.requestUpdate`: the client wants new metadata (an error that means its
/// view is stale, a broken connection, no leader known). Returns when it must wake.
pub(crate) fn request_metadata_update(c: &mut Shared<impl Client>, client: Node, out: &mut Out) -> Option<u64> {
    c.meta_mut().wanted = true;
    maybe_update_metadata(c, client, out)
}

/// `DefaultMetadataUpdater.maybeUpdate`: if an update is wanted (or the metadata is
/// older than metadata.max.age.ms) and none is in flight, ask the least loaded
/// broker, once the refresh backoff allows; otherwise returns when to wake up.
pub(crate) fn maybe_update_metadata(c: &mut Shared<impl Client>, client: Node, out: &mut Out) -> Option<u64> {
    let (base, max, max_age, timeout) = c.timing(out.scenario);
    let now = out.now;
    let m = c.meta();
    if m.in_flight.is_some() {
        return None;
    }
    let expired = now >= m.updated_ms + max_age;
    if !m.wanted && !expired {
        return Some(m.updated_ms + max_age);
    }
    let allowed = time_to_allow_update(m.last_sent_ms, m.attempts, base, max, out);
    if allowed > now {
        return Some(allowed);
    }
    let Some(broker) = least_loaded_node(&**c, client, out) else {
        return Some(now + RECONNECT_BACKOFF_MS);
    };
    let request = out.send(client, Node::Broker(broker), Body::MetadataRequest);
    // A request waiting for its connection is not sent yet: the attempt's own limit ends
    // it (`connect.rs`; before 2.7 the client "should" wait for a connect timeout it does
    // not have: `DefaultMetadataUpdater.maybeUpdate` at 2.4 waits on the kernel).
    let wait = out.connection_wait_bound(client, Node::Broker(broker)).map_or(timeout, |longest| timeout.max(longest + 1));
    let at = out.send_deadline(client, Node::Broker(broker), now + wait, timeout);
    let t = out.set_timer(at, Timer::MetadataTimeout { client });
    let m = c.meta_mut();
    m.in_flight = Some((request, broker, t));
    m.last_sent_ms = Some(now);
    out.emit(Event::MetadataRequested { client, broker, msg: request });
    None
}

/// `Metadata.timeToAllowUpdate`: the earliest the next refresh may go, counted from the
/// end of the last one (`lastRefreshMs`: its answer, or its failure), whatever it brought,
/// a new leader included. 0.10.2–3.6 wait retry.backoff.ms (a fixed `refreshBackoffMs`,
/// read at 0.10.2.2, 0.11.0, 2.0.1, 2.4.1, 2.8.2, 3.6.0); 3.7+ (KIP-580, read at 3.7.0 and
/// 4.0.0) wait `ExponentialBackoff.backoff(n - 1)` for `n` refreshes in a row that failed
/// or found nothing newer (`attempts`, `equivalentResponseCount`), and `backoff(0)`,
/// 80–120 ms, when `n` is 0. Before the first refresh nothing is waited. The jitter is
/// drawn once; for `n` = 0 only while the wait may still be running, so that a client
/// that waited longer draws nothing.
fn time_to_allow_update(last: Option<u64>, n: u32, base: u64, max: u64, out: &mut Out) -> u64 {
    let Some(last) = last else { return out.now };
    let longest = if max <= base { base } else { (base * 12 / 10).min(max) };
    if n == 0 && out.now >= last + longest {
        return out.now;
    }
    last + backoff_ms(out, base, max, n.saturating_sub(1))
}

/// `NetworkClient.leastLoadedNode` (the order of its choices read at 2.4.1 and 3.7.0),
/// over the brokers from a point drawn from the seed and not in reconnect backoff: the
/// first whose connection is open with nothing in flight from this client; else the
/// first open one; else the last whose connection is being made (`foundConnecting`);
/// else one it may connect to, the one whose last attempt failed longest ago first
/// (`lastConnectAttemptMs`). A connection reset or refused is not open: a client whose
/// requests to a killed leader were refused asks a live broker, not that one again.
fn least_loaded_node(c: &impl Client, client: Node, out: &mut Out) -> Option<u32> {
    let n = out.scenario.replicas;
    let offset = out.draw(u64::from(n) - 1) as u32;
    let now = out.now;
    let meta = c.meta();
    let order: Vec<u32> = (0..n).map(|i| (i + offset) % n).filter(|b| meta.blackout.get(b).is_none_or(|&until| until <= now)).collect();
    let ready = |b: &u32| out.is_connection_ready(client, Node::Broker(*b));
    let failed_at = |b: &u32| meta.blackout.get(b).copied().unwrap_or(0);
    order
        .iter()
        .copied()
        .find(|b| ready(b) && !c.busy(*b))
        .or_else(|| order.iter().copied().find(ready))
        .or_else(|| order.iter().rev().copied().find(|&b| out.is_connecting(client, Node::Broker(b))))
        .or_else(|| order.iter().copied().min_by_key(failed_at))
}

/// `Metadata.update`: a newer leader epoch (or the same) replaces what the client
/// knew; an older one is ignored (KIP-320). An answer that brings nothing new
/// counts toward the refresh backoff. Returns whether the leader changed, for the
/// client to act on (None: the answer was not to its request).
pub(crate) fn metadata_response(
    c: &mut Shared<impl Client>,
    msg: &Msg,
    request: u64,
    leader: Option<u32>,
    leader_epoch: i32,
    out: &mut Out,
) -> Option<bool> {
    let client = msg.to;
    let Node::Broker(from) = msg.from else { return None };
    let Some((_, _, timer)) = c.meta().in_flight.filter(|(r, _, _)| *r == request) else {
        out.emit(Event::MetadataResponseIgnored { client });
        return None;
    };
    out.cancel(timer);
    let now = out.now;
    let m = c.meta_mut();
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
    out.emit(Event::MetadataUpdated { client, from, leader, leader_epoch, changed: newer, stale });
    Some(newer)
}

/// No answer to a metadata request within request.timeout.ms: the client closes
/// that connection, leaves the broker alone a while and asks again.
pub(crate) fn metadata_timeout(c: &mut Shared<impl Client>, client: Node, out: &mut Out) -> Option<u64> {
    let (_, broker, _) = c.meta().in_flight?;
    out.close_conn(client, Node::Broker(broker));
    let now = out.now;
    let m = c.meta_mut();
    m.in_flight = None;
    m.attempts += 1;
    m.last_sent_ms = Some(now);
    m.blackout.insert(broker, now + RECONNECT_BACKOFF_MS);
    out.emit(Event::MetadataTimedOut { client, broker });
    request_metadata_update(c, client, out)
}

/// A connection to `broker` failed (reset, refused, timed out): the client leaves it
/// alone for reconnect.backoff.ms and wants new metadata.
pub(crate) fn disconnected(c: &mut Shared<impl Client>, client: Node, broker: u32, out: &mut Out) -> Option<u64> {
    let now = out.now;
    let m = c.meta_mut();
    m.blackout.insert(broker, now + RECONNECT_BACKOFF_MS);
    if let Some((_, b, timer)) = m.in_flight {
        if b == broker {
            // `DefaultMetadataUpdater.handleFailedRequest` → `Metadata.failedUpdate(now)`.
            m.in_flight = None;
            m.attempts += 1;
            m.last_sent_ms = Some(now);
            out.cancel(timer);
        }
    }
    request_metadata_update(c, client, out)
}

/// The connection to `broker` is made at `sent`: a metadata request that waited on it
/// goes out then (`Out::restart_request_timeout`).
pub(crate) fn connection_made(c: &mut Shared<impl Client>, client: Node, broker: u32, sent: u64, out: &mut Out) {
    let Some((request, b, timer)) = c.meta().in_flight.filter(|&(_, b, _)| b == broker) else { return };
    let timeout = c.timing(out.scenario).3;
    let timer = out.restart_request_timeout(timer, sent, timeout, Timer::MetadataTimeout { client });
    c.meta_mut().in_flight = Some((request, b, timer));
}

impl Sim {
    /// A broker answers a client's metadata request with what it knows: the leader and
    /// epoch of the metadata it has applied (stale if it has not heard the latest).
    pub(crate) fn handle_metadata_request(&mut self, msg: &Msg) {
        let Node::Broker(id) = msg.to else { return };
        let b = self.broker(id);
        let (leader, leader_epoch) = if b.broker_epoch.is_some() { (b.leader, b.leader_epoch) } else { (None, b.leader_epoch) };
        let sent = self.send(msg.to, msg.from, Body::MetadataResponse { request: msg.id, leader, leader_epoch });
        self.emit(Event::MetadataAnswered { broker: id, client: msg.from, leader, leader_epoch, msg: sent });
    }
}
