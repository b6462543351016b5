//! A broker's registration and heartbeats: the grid they run on, what a broker does
//! when one is due, answered or given up. Node functions of the broker (`outbox.rs`):
//! each reads and writes the broker's own state and writes its effects to `Out`.
//! Kafka (KRaft, 3.x–4.x): `BrokerLifecycleManager`. In the ZooKeeper era the grid is
//! the broker's ZooKeeper client's pings (its rules are at the end; ZooKeeper's side
//! and the controller's are in `zookeeper.rs`).

use super::event::Event;
use super::msg::{Body, KafkaError, Metadata, Node};
use super::outbox::Out;
use super::role;
use super::scheduler::Timer;
use super::shared::Shared;
use super::state::{Broker, Lifecycle};
use crate::scenario::BrokerLiveness;

/// The next heartbeat (or registration attempt, or ZooKeeper ping), on the broker's
/// grid: its phase plus a multiple of broker.heartbeat.interval.ms.
pub(crate) fn schedule_heartbeat(b: &mut Shared<Broker>, out: &mut Out) {
    let interval = out.scenario.config.broker_heartbeat_interval_ms;
    let (now, phase) = (out.now, b.heartbeat_phase);
    let next = if now < phase { phase } else { now + interval - (now - phase) % interval };
    b.heartbeat_timer = Some(out.set_timer(next, Timer::Heartbeat { broker: b.id }));
}

/// After an answer, the next heartbeat on the grid, unless one is already set.
fn schedule_next_heartbeat(b: &mut Shared<Broker>, out: &mut Out) {
    if b.heartbeat_timer.is_none() && b.alive {
        schedule_heartbeat(b, out);
    }
}

/// A heartbeat is due (`BrokerLifecycleManager`'s communication event): a broker not
/// registered yet tries to register; a registered one heartbeats with the metadata
/// offset it has applied. In the ZooKeeper era its ZooKeeper client pings instead
/// (`zookeeper_ping_due`), and the next ping is set on the grid.
pub(crate) fn heartbeat_due(b: &mut Shared<Broker>, out: &mut Out) {
    b.heartbeat_timer = None;
    if !b.alive {
        return;
    }
    if out.behavior.broker_liveness == BrokerLiveness::ZookeeperSession {
        schedule_heartbeat(b, out);
        return zookeeper_ping_due(b, out);
    }
    // KRaft: the next is scheduled when this one is answered or given up.
    match b.broker_epoch {
        None => send_registration(b, out),
        Some(epoch) => send_heartbeat(b, epoch, out),
    }
}

/// A new incarnation asks the controller to register it (`BrokerLifecycleManager.start`).
pub(crate) fn send_registration(b: &mut Shared<Broker>, out: &mut Out) {
    let (id, incarnation) = (b.id, b.incarnation);
    let msg = out.send(Node::Broker(id), Node::Controller, Body::BrokerRegistration { incarnation });
    await_heartbeat_answer(b, msg, out);
    out.emit(Event::RegistrationSent { broker: id, incarnation, msg });
}

fn send_heartbeat(b: &mut Shared<Broker>, broker_epoch: u64, out: &mut Out) {
    let (id, metadata_offset) = (b.id, b.metadata_offset);
    let msg = out.send(Node::Broker(id), Node::Controller, Body::BrokerHeartbeat { broker_epoch, metadata_offset });
    await_heartbeat_answer(b, msg, out);
    out.emit(Event::HeartbeatSent { broker: id, msg });
}

/// How long a heartbeat (or registration) waits for its answer before the broker gives
/// it up ("Unable to send a heartbeat because the RPC got timed out before it could be
/// sent", `BrokerLifecycleManager.BrokerHeartbeatResponseHandler.onTimeout`). The heartbeat
/// channel's `NodeToControllerChannelManagerImpl` has its own `NetworkClient`, whose
/// request timeout is min(controller.socket.timeout.ms, the channel's retry timeout); a
/// request that times out disconnects the channel ("Recorded new KRaft controller" as it
/// reconnects) and, older than the retry timeout, is given up. That retry timeout is
/// broker.heartbeat.interval.ms from 4.0.1 (`BrokerServer`, KAFKA-19294; 4.0.2 and 4.1.0
/// read) and broker.session.timeout.ms / 2 in 3.4–4.0.0 (KAFKA-14392; 3.7.0, 3.8.0,
/// 3.9.1 and 4.0.0 read). The raft client's connection plays no part: it is the same
/// whether the whole link or the heartbeat connection alone is cut (the kept zombie
/// run on 4.0.2 gave up 2010 ms after each heartbeat was sent, the interval).
pub(crate) fn heartbeat_give_up_ms(out: &Out) -> u64 {
    let c = &out.scenario.config;
    if out.behavior.heartbeat_timeout_is_interval {
        c.broker_heartbeat_interval_ms
    } else {
        c.broker_session_timeout_ms / 2
    }
}

/// When the next heartbeat goes out after one was given up
/// (`BrokerLifecycleManager.scheduleNextCommunicationAfterFailure`): one
/// broker.heartbeat.interval.ms later from 4.0.1 (KAFKA-19294; measured on 4.0.2, the
/// kept zombie run: given up at 3873, 7877, 11881 and 15902 ms for heartbeats due from
/// 1863); in 3.4–4.0.0 after `ExponentialBackoff(100, 2, broker.session.timeout.ms, 0.02)`
/// of the failures in a row before this one (100, 200, 400 ms …; the 2 % jitter is left out).
fn heartbeat_retry_after_failure_ms(failures_before: u32, out: &Out) -> u64 {
    let c = &out.scenario.config;
    if out.behavior.heartbeat_timeout_is_interval {
        return c.broker_heartbeat_interval_ms;
    }
    let doubled = 100u64.checked_shl(failures_before.min(40)).unwrap_or(u64::MAX);
    doubled.min(c.broker_session_timeout_ms)
}

/// A heartbeat (or registration) is on its way: it is given up if unanswered.
fn await_heartbeat_answer(b: &mut Shared<Broker>, msg: u64, out: &mut Out) {
    let timer = out.set_timer(out.now + heartbeat_give_up_ms(out), Timer::HeartbeatTimeout { broker: b.id });
    if let Some((_, old)) = b.heartbeat_rpc.replace((msg, timer)) {
        out.cancel(old);
    }
}

/// The answer to the heartbeat (or registration) arrived: nothing to give up.
fn heartbeat_answered(b: &mut Shared<Broker>, out: &mut Out) {
    if let Some((_, timer)) = b.heartbeat_rpc.take() {
        out.cancel(timer);
    }
    if b.heartbeat_failures != 0 {
        b.heartbeat_failures = 0;
    }
}

/// `BrokerLifecycleManager` after a heartbeat (or registration) was given up: the held
/// request is dropped with its connection and the next is scheduled
/// (`heartbeat_retry_after_failure_ms`); the heartbeat grid moves there.
pub(crate) fn heartbeat_timed_out(b: &mut Shared<Broker>, out: &mut Out) {
    let Some((msg, _)) = b.heartbeat_rpc.take() else { return };
    out.drop_held_message(msg);
    if let Some(key) = b.heartbeat_timer.take() {
        out.cancel(key);
    }
    let failures_before = b.heartbeat_failures;
    b.heartbeat_failures = failures_before.saturating_add(1);
    let interval = out.scenario.config.broker_heartbeat_interval_ms;
    let at = out.now + heartbeat_retry_after_failure_ms(failures_before, out);
    b.heartbeat_phase = at % interval.max(1);
    b.heartbeat_timer = Some(out.set_timer(at, Timer::Heartbeat { broker: b.id }));
    out.emit(Event::HeartbeatTimedOut { broker: b.id, next_at: at });
}

/// `BrokerLifecycleManager` after DUPLICATE_BROKER_REGISTRATION (4.0.2, measured by
/// the oracle: refusals 2005–2038 ms apart with the default 2 s interval): the next
/// attempt is broker.heartbeat.interval.ms after the refusal arrives, not on the
/// heartbeat grid.
fn retry_refused_registration(b: &mut Shared<Broker>, out: &mut Out) {
    if let Some(key) = b.heartbeat_timer.take() {
        out.cancel(key);
    }
    let at = out.now + out.scenario.config.broker_heartbeat_interval_ms;
    b.heartbeat_timer = Some(out.set_timer(at, Timer::Heartbeat { broker: b.id }));
    out.emit(Event::RegistrationRetries { broker: b.id, at });
}

/// The controller's answer to a registration: refused while the previous
/// incarnation's session lasts (DuplicateBrokerRegistrationException; the broker
/// tries again `retry_refused_registration`), or registered fenced with the metadata
/// to catch up from. Caught up, the broker takes its role and, ready to be unfenced,
/// heartbeats at once (`setReadyToUnfence`).
pub(crate) fn handle_registration_response(b: &mut Shared<Broker>, broker_epoch: Option<u64>, meta: Option<&Metadata>, out: &mut Out) {
    heartbeat_answered(b, out);
    if b.lifecycle != Lifecycle::Starting {
        schedule_next_heartbeat(b, out);
        return out.emit(Event::RegistrationResponseIgnored { broker: b.id });
    }
    let Some(epoch) = broker_epoch else {
        return retry_refused_registration(b, out);
    };
    b.broker_epoch = Some(epoch);
    b.lifecycle = Lifecycle::Recovery;
    out.emit(Event::RegistrationAccepted { broker: b.id, broker_epoch: epoch });
    if let Some(meta) = meta {
        role::apply_metadata(b, meta, out);
    }
    send_heartbeat(b, epoch, out);
}

/// The controller's answer to a heartbeat: metadata the broker missed (applied),
/// and whether it is fenced; a broker in recovery that is unfenced now runs.
pub(crate) fn handle_heartbeat_response(
    b: &mut Shared<Broker>,
    fenced: bool,
    meta: Option<&Metadata>,
    error: Option<KafkaError>,
    out: &mut Out,
) {
    heartbeat_answered(b, out);
    schedule_next_heartbeat(b, out);
    if error.is_some() || b.broker_epoch.is_none() {
        return out.emit(Event::HeartbeatResponseIgnored { broker: b.id });
    }
    let caught_up = meta.filter(|m| m.offset > b.metadata_offset);
    let running = !fenced && b.lifecycle == Lifecycle::Recovery;
    if running {
        b.lifecycle = Lifecycle::Running;
    }
    out.emit(Event::HeartbeatAnswered { broker: b.id, fenced, running, caught_up: caught_up.map(|m| m.offset) });
    if let Some(meta) = caught_up {
        role::apply_metadata(b, meta, out);
    }
}

// The ZooKeeper era: the broker's ZooKeeper client (`zookeeper.rs` for ZooKeeper's side).

/// The broker's ZooKeeper client, on its ping grid (a third of the session
/// timeout): a process without a session creates one and its /brokers/ids node;
/// one with a session pings it.
pub(crate) fn zookeeper_ping_due(b: &mut Shared<Broker>, out: &mut Out) {
    let (id, incarnation) = (b.id, b.incarnation);
    if b.broker_epoch.is_none() {
        let msg = out.send(Node::Broker(id), Node::ZooKeeper, Body::ZkRegister { incarnation });
        return out.emit(Event::RegistrationSent { broker: id, incarnation, msg });
    }
    let msg = out.send(Node::Broker(id), Node::ZooKeeper, Body::ZkPing { incarnation });
    out.emit(Event::HeartbeatSent { broker: id, msg });
}

/// A broker's ZooKeeper client hears that its session expired: it opens a new
/// session and registers again at once (`KafkaZkClient` after a session expiry,
/// KAFKA-7165's re-registration).
pub(crate) fn zookeeper_session_lost(b: &mut Shared<Broker>, out: &mut Out) {
    if b.broker_epoch.is_none() {
        return out.emit(Event::ZkAnswerIgnored { broker: b.id });
    }
    b.record(Event::ZkSessionLost { broker: b.id }, out);
    zookeeper_ping_due(b, out);
}

/// ZooKeeper's answer to the create: the broker is registered (its LeaderAndIsr
/// comes from the controller, whose watch fired).
pub(crate) fn zookeeper_registered(b: &mut Shared<Broker>, out: &mut Out) {
    if b.broker_epoch.is_some() {
        return out.emit(Event::ZkAnswerIgnored { broker: b.id });
    }
    b.record(Event::ZkRegistered { broker: b.id, incarnation: b.incarnation }, out);
}
