//! ZooKeeper, in the ZooKeeper-era presets (`broker_liveness: zookeeper-session`):
//! its own node on the network. A broker's ZooKeeper client keeps a session with
//! pings and holds the ephemeral node /brokers/ids/N; ZooKeeper expires a session
//! one `zookeeper.session.timeout.ms` after the last ping it received and deletes
//! the node; the controller's watch on /brokers/ids tells it (a `zookeeper_watch`
//! message), and the controller runs `KafkaController.onBrokerFailure` or, for a
//! node a new session created, `onBrokerStartup`, and sends LeaderAndIsr. A
//! process started while its killed predecessor's session lives is answered
//! NodeExists and exits (`zookeeper_node_exists`).
//! There is no broker heartbeat, fencing, broker lifecycle (RECOVERY → RUNNING) or
//! registration answer with a broker epoch: those are KRaft's (`BrokerLifecycleManager`).
//!
//! Kafka: `KafkaZkClient.registerBroker`, `ZooKeeperClient` (the session),
//! `KafkaController.processBrokerChange`, `onBrokerFailure`, `onBrokerStartup`
//! (0.10.2–2.8). ZooKeeper's own answers to pings are not modelled (a session
//! lives on what reaches ZooKeeper); the controller's own ZooKeeper session is not
//! modelled (it never loses the controllership).

use super::controller::reschedule_fence_check;
use super::event::{ElectionCause, Event};
use super::msg::{Body, Msg, Node};
use super::Sim;

pub use super::state::ZkSession;

impl Sim {
    /// The ZooKeeper-era controller is a broker: every broker runs a `KafkaController`,
    /// and the one whose create of /controller succeeds leads (`KafkaController.elect`,
    /// `ZookeeperLeaderElector` to 1.0, `KafkaZkClient.registerControllerAndIncrementControllerEpoch`
    /// from 1.1), logging as `[Controller id=N]` (`[Controller N]: ` before 1.1) and holding
    /// its own /brokers/ids node. hwscope's controller never fails and holds no replica
    /// of the partition, so it is the broker after the partition's replicas: id `replicas`
    /// (a cluster of replicas + 1 brokers). None in KRaft, whose controller is a quorum
    /// node of its own.
    pub fn zookeeper_controller_id(&self) -> Option<u32> {
        self.zookeeper().then_some(self.scenario.replicas)
    }

    /// ZooKeeper receives a ping: the owner's live session is renewed; a ping of a
    /// session ZooKeeper has expired (or never had) is told so.
    pub(crate) fn zookeeper_handle_ping(&mut self, msg: &Msg, incarnation: u32) {
        let Node::Broker(id) = msg.from else { return };
        let s = self.controller.zookeeper[id as usize];
        if s.incarnation == incarnation && s.deadline.is_some() {
            let deadline = self.now + self.liveness().1;
            self.emit(Event::ZkSessionRenewed { broker: id, deadline });
            return self.controller_rule(reschedule_fence_check);
        }
        let sent = self.send(Node::ZooKeeper, msg.from, Body::ZkSessionExpired);
        self.emit(Event::ZkPingOfExpiredSession { broker: id, msg: sent });
    }

    /// ZooKeeper receives a create of /brokers/ids/N from a new session. The node is
    /// created and the controller's watch fires, unless a previous process's session
    /// still holds it: a killed broker's session lives until it expires, so a new
    /// process started inside it is answered NodeExists and nothing fires.
    /// (With `restart_inside_zookeeper_session_fails` off, a scenario's idealised bounce,
    /// the new session replaces the old one at once and the narration says so.)
    pub(crate) fn zookeeper_handle_register(&mut self, msg: &Msg, incarnation: u32) {
        let Node::Broker(id) = msg.from else { return };
        let old = self.controller.zookeeper[id as usize];
        let held = old.deadline.filter(|_| old.incarnation != incarnation);
        if let Some(until) = held.filter(|_| self.behavior.restart_inside_zookeeper_session_fails) {
            let answer = self.send(Node::ZooKeeper, msg.from, Body::ZkNodeExists);
            return self.emit(Event::ZkNodeExists { broker: id, incarnation, owner: old.incarnation, until, msg: answer });
        }
        let deadline = self.now + self.liveness().1;
        self.emit(Event::ZkSessionCreated { broker: id, incarnation, deadline, replaced: held });
        let answer = self.send(Node::ZooKeeper, msg.from, Body::ZkRegistered);
        let watch = self.send(Node::ZooKeeper, Node::Controller, Body::ZkWatch { broker: id, incarnation: Some(incarnation) });
        self.emit(Event::ZkWatchFired { broker: id, gone: false, answer: Some(answer), msg: watch });
        self.controller_rule(reschedule_fence_check);
    }

    /// A broker restarted inside its previous process's ZooKeeper session cannot
    /// register: its create of /brokers/ids/N meets the old session's node. Kafka
    /// 0.10.2–2.8 (every ZooKeeper-era version) checks the node's ephemeral owner
    /// against its own session and, as the owner is another session, fails:
    /// `ZKCheckedEphemeral.create` → `ZkUtils.registerBrokerInZk` throws "A broker is
    /// already registered on the path /brokers/ids/N … restarted it faster than the
    /// zookeeper timeout" (0.10.2–1.0); `KafkaZkClient.CheckedEphemeral.getAfterNodeExists`
    /// logs "node already exists and owner … does not match current session" and
    /// `checkedEphemeralCreate` throws NodeExists (1.1–2.8). KAFKA-7165 (2.2) deletes and
    /// re-creates the node only when its owner is the same process's earlier session
    /// (`shouldReCreateEphemeralZNode`; a new process's remembered session id is -1), so
    /// not here. `KafkaServer.startup` logs "Fatal error during KafkaServer startup.
    /// Prepare to shutdown" and the process exits (`KafkaServerStartable`/`Kafka.main`,
    /// exit code 1): the broker is down again, and the controller, which never saw it,
    /// learns of the death when the old session expires. Only a start after that
    /// expiry registers.
    pub(crate) fn zookeeper_node_exists(&mut self, msg: &Msg) {
        let Node::Broker(id) = msg.to else { return };
        let b = self.broker(id);
        if !b.alive || b.broker_epoch.is_some() {
            return self.emit(Event::ZkAnswerIgnored { broker: id });
        }
        let incarnation = b.incarnation;
        let until = self.controller.zookeeper[id as usize].deadline.unwrap_or(self.now);
        self.emit(Event::StartupFailed { broker: id, incarnation, until });
        self.crash(id, 0, false);
    }

    /// ZooKeeper's session timer: the session whose deadline came expires, its
    /// ephemeral node is deleted, and the controller's watch fires.
    pub(crate) fn zookeeper_expire_session(&mut self) {
        self.controller.check = None;
        let now = self.now;
        let due = (0..self.scenario.replicas)
            .filter_map(|b| self.controller.zookeeper[b as usize].deadline.filter(|&d| d <= now).map(|d| (d, b)))
            .min();
        if let Some((deadline, id)) = due {
            self.emit(Event::ZkSessionExpired { broker: id, deadline });
            let watch = self.send(Node::ZooKeeper, Node::Controller, Body::ZkWatch { broker: id, incarnation: None });
            self.emit(Event::ZkWatchFired { broker: id, gone: true, answer: None, msg: watch });
        }
        self.controller_rule(reschedule_fence_check);
    }

    /// The controller's watch on /brokers/ids fired: `KafkaController.processBrokerChange`
    /// (2.2–2.8; `BrokerChange.process` 0.11–2.1, `BrokerChangeListener.handleChildChange`
    /// 0.10.2). The controller reads /brokers/ids as it is when it handles the event, not
    /// as it was when the watch fired (a watch fires once and says nothing of what
    /// changed), and compares it with the brokers it holds live: an id gone is a dead
    /// broker (`onBrokerFailure`), a new id a started one (`onBrokerStartup`). An id in
    /// both whose node a new session created (the broker died and started again between
    /// the watch and the read, or a scenario's idealised bounce) is a bounce: from 2.2
    /// (KIP-380, `controller_detects_bounced_brokers`) its broker epoch, the node's czxid,
    /// is newer than the one the controller holds, and it is failed then started; before
    /// 2.2 ids alone are compared and the bounce is missed: the new process gets no
    /// LeaderAndIsr and the controller keeps it in the ISR and as leader.
    /// (hwscope reads the one broker the notification is about. With
    /// `restart_inside_zookeeper_session_fails` off, the idealised bounce is kept as
    /// KIP-101's story tells it: `idealised_broker_change`.)
    pub(crate) fn process_broker_change(&mut self, broker: u32, notified: Option<u32>) {
        let reg = self.controller.registrations[broker as usize];
        let zk = self.controller.zookeeper[broker as usize];
        let live = !reg.fenced;
        if !self.behavior.restart_inside_zookeeper_session_fails {
            return self.idealised_broker_change(broker, notified);
        }
        match (live, zk.deadline.is_some()) {
            (false, false) => self.emit(Event::ZkWatchStale { broker }),
            (true, false) => {
                let deadline = self.controller.zookeeper[broker as usize].deadline.map_or(self.now, |d| d.min(self.now));
                self.on_broker_failure(broker, deadline)
            }
            (false, true) => self.on_broker_startup(broker, zk.incarnation),
            (true, true) if zk.incarnation == reg.incarnation => self.emit(Event::ZkWatchStale { broker }),
            (true, true) => {
                let seen = self.behavior.controller_detects_bounced_brokers;
                self.emit(Event::ZkBrokerBounced { broker, incarnation: zk.incarnation, seen });
                if seen {
                    self.on_broker_failure(broker, self.now);
                    self.on_broker_startup(broker, zk.incarnation);
                }
            }
        }
    }

    /// The idealised bounce's controller (`restart_inside_zookeeper_session_fails` off):
    /// each notification is handled as what it announced, a node gone or created, so a
    /// bounce is a startup that leaves the ISR as it is, in every version.
    fn idealised_broker_change(&mut self, broker: u32, notified: Option<u32>) {
        let reg = self.controller.registrations[broker as usize];
        match notified {
            None if reg.fenced => self.emit(Event::ZkWatchStale { broker }),
            None => {
                let deadline = self.controller.zookeeper[broker as usize].deadline.map_or(self.now, |d| d.min(self.now));
                self.on_broker_failure(broker, deadline)
            }
            Some(inc) if inc == reg.incarnation && !reg.fenced => self.emit(Event::ZkWatchStale { broker }),
            Some(inc) => self.on_broker_startup(broker, inc),
        }
    }

    /// `KafkaController.onBrokerStartup`: the broker is live again, keeps its place in
    /// the ISR (it is not removed from it by a restart it was not declared dead for);
    /// a restarted leader is replaced in a new epoch (the first other live ISR member,
    /// or itself), and a partition without a leader gets one. Every live broker,
    /// the new one included, gets the partition's state (UpdateMetadata, LeaderAndIsr).
    fn on_broker_startup(&mut self, id: u32, incarnation: u32) {
        let broker_epoch = self.controller.metadata_offset + 1;
        let session_deadline = self.controller.zookeeper[id as usize].deadline.unwrap_or(self.now);
        self.emit(Event::BrokerRegistered {
            broker: id,
            broker_epoch,
            incarnation,
            session_deadline,
            fenced: false,
            expired_unfenced: None,
        });
        let cause = match self.controller.leader {
            Some(l) if l == id => Some(ElectionCause::LeaderRestarted { old: id }),
            None => Some(ElectionCause::Unfenced { broker: id }),
            Some(_) => None,
        };
        if let Some(cause) = cause {
            self.controller_rule(|c, out| super::election::elect(c, cause, None, out));
        }
        self.send_metadata_except(None);
    }
}
