//! The behaviour switches: each one a rule that changed between Kafka versions,
//! tied to the version, KIP or ticket that changed it (docs/behaviors.md). A
//! preset (`presets.rs`) is one value for every switch; a scenario may override
//! single switches in its `behavior` object.

use crate::json::{boolean, json_by_name, json_struct, Named};

/// Which followers' LEOs bound the leader's HW (`Partition.maybeIncrementLeaderHW`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HwCounts {
    /// ≤0.10.1: the committed ISR only.
    Isr,
    /// 0.10.2 (KAFKA-4485): the ISR and any follower caught up within the lag time.
    IsrOrCaughtUp,
    /// 2.7 (KIP-497): the maximal ISR (pending expansion counted) and caught-up followers.
    MaximalIsrOrCaughtUp,
    /// 3.6 (KAFKA-15021): as above, but a caught-up non-ISR follower counts only if ISR-eligible (not fenced).
    MaximalIsrOrCaughtUpEligible,
}

/// Which HW a Fetch answered at once carries (`Partition.readRecords`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseHw {
    /// The HW as updated by this very fetch (the textbook story; 1.0–1.1 under KAFKA-5758).
    AfterFetch,
    /// The HW snapshot taken before this fetch updated it (`initialHighWatermark`, KAFKA-7104).
    BeforeFetch,
}

/// What a consumer fetch above the serving replica's HW (not above its LEO) gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AboveHw {
    /// Up to 3.7: parked like a fetch at the HW (`DelayedFetch` compared segments, and
    /// an offset above the HW on the same segment matched no case).
    Park,
    /// 3.8 (KAFKA-16452): `DelayedFetch` Case F compares offsets and answers at once,
    /// with no records (measured on 4.0, semantics §11).
    Empty,
}

/// How a replica that becomes a follower finds where its log departs from the leader's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// ≤0.10.2: truncate to its own HW (`ReplicaManager.makeFollowers`).
    HighWatermark,
    /// 0.11 (KIP-101): one OffsetsForLeaderEpoch round; the leader answers an end offset only.
    EpochRequest,
    /// 2.0 (KIP-279): OffsetsForLeaderEpoch answers (epoch, end offset); repeat until the epochs match.
    EpochRequestMultiRound,
    /// 2.8 (KAFKA-10554, KAFKA-10487): the Fetch carries lastFetchedEpoch; the leader answers a diverging epoch.
    DivergingEpoch,
}

/// How an ISR change reaches the controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsrUpdate {
    /// Before 2.7 the leader wrote the ISR to ZooKeeper itself and applied it at once.
    Immediate,
    /// 2.7+ (KIP-497): AlterPartition to the controller; the leader tracks the pending (maximal) ISR meanwhile.
    AlterPartition,
}

/// How the controller learns that a broker has stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokerLiveness {
    /// The ZooKeeper era (up to 2.8 here): the broker's ZooKeeper session pings every
    /// third of zookeeper.session.timeout.ms; ZooKeeper expires it one session timeout
    /// after the last ping, deleting `/brokers/ids/N`, and the controller's watch
    /// reacts (`KafkaController.onBrokerFailure`).
    ZookeeperSession,
    /// KRaft (3.3+ in production; 3.7+ here): heartbeats every
    /// broker.heartbeat.interval.ms, fenced broker.session.timeout.ms after the last
    /// one (`BrokerHeartbeatManager`).
    BrokerHeartbeat,
}

/// Who gives a connection attempt up when its handshake gets no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionSetup {
    /// Before 2.7 the client waits on the kernel: Linux gives a SYN_SENT socket up after
    /// `tcp_syn_retries` retransmissions (`network::kernel_gives_up_after_ms`).
    Kernel,
    /// 2.7 (KIP-601): `NetworkClient.handleTimedOutConnections` gives it up after
    /// socket.connection.setup.timeout.ms, doubling per consecutive failure up to
    /// socket.connection.setup.timeout.max.ms, ±20 % (`ExponentialBackoff`, which at 2.7–3.6
    /// may jitter above the maximum).
    SetupTimeout,
    /// 3.7 (KIP-580's `ExponentialBackoff`): as above, the jittered value capped at the maximum.
    SetupTimeoutCapped,
}

/// Declares the switches once: [`Behavior`] (every switch set, what a preset is),
/// [`BehaviorOverrides`] (the scenario's `behavior` object, read and written by
/// its field list) and `apply`. A new switch is one line here, plus its value in
/// each preset (`presets.rs`).
macro_rules! switches {
    ( $( $(#[$doc:meta])* $field:ident : $ty:ty = $key:literal, $read:expr; )* ) => {
        /// The switches. Every rule in `sim/` that differs between versions reads one of these.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct Behavior { $( $(#[$doc])* pub $field: $ty, )* }

        json_struct! {
            /// Single switches a scenario overrides in its `behavior` object.
            #[derive(Debug, Clone, PartialEq)]
            pub struct BehaviorOverrides: Default {
                $( pub $field: Option<$ty> = $key, opt($read), opt; )*
            }
        }

        impl BehaviorOverrides {
            /// The switches of `b`, with these overrides.
            pub fn apply(&self, mut b: Behavior) -> Behavior {
                $( if let Some(v) = self.$field { b.$field = v; } )*
                b
            }
        }
    };
}

switches! {
    hw_counts: HwCounts = "hw_counts", HwCounts::parse;
    /// 3.7 (KAFKA-15583): the HW does not advance while the ISR is under min.insync.replicas.
    hw_held_under_min_isr: bool = "hw_held_under_min_isr", boolean;
    response_hw: ResponseHw = "response_hw", ResponseHw::parse;
    /// A caught-up Fetch is parked up to replica.fetch.wait.max.ms. Off in `textbook`:
    /// the leader answers at once, and an idle follower waits replica.fetch.wait.max.ms
    /// before fetching again, so it does not spin.
    long_poll: bool = "long_poll", boolean;
    /// 2.4–2.5 (KIP-392, KAFKA-8443; removed by KAFKA-9952 in 2.6): a follower whose last
    /// sent HW is stale is answered at once, and an HW move releases parked follower fetches.
    hw_move_completes_follower_fetch: bool = "hw_move_completes_follower_fetch", boolean;
    /// 3.8 (KAFKA-16452): a consumer fetch above the serving replica's HW is answered at once, empty.
    consumer_fetch_above_hw: AboveHw = "consumer_fetch_above_hw", AboveHw::parse;
    /// 3.4 (KAFKA-14334): a follower releases consumer fetches parked on it when its HW moves.
    follower_hw_completes_consumer_fetch: bool = "follower_hw_completes_consumer_fetch", boolean;
    /// 2.4 (KIP-392): consumers may read from followers. Before, `fetch_from` is ignored.
    follower_fetching: bool = "follower_fetching", boolean;
    /// 3.3.2/3.4.0 (KAFKA-14372, `ReplicaManager.findPreferredReadReplica`): the leader names
    /// only ISR members as a consumer's preferred read replica. Before, any replica that has
    /// the offset: a follower that left the ISR is named again at every metadata refresh.
    preferred_read_replica_in_isr: bool = "preferred_read_replica_in_isr", boolean;
    /// 3.2 (KAFKA-13767, `ReplicaManager.fetchMessages`'s `hasPreferredReadReplica`): the
    /// leader's answer naming a preferred read replica goes at once. In 2.4–3.1 it has no
    /// records, so it waits in the purgatory, where `DelayedFetch.tryComplete` skips the
    /// partition it did not read: the consumer learns its replica after fetch.max.wait.ms.
    preferred_read_replica_answers_at_once: bool = "preferred_read_replica_answers_at_once", boolean;
    /// 3.3.2/3.4.0 (KAFKA-14379, `Fetcher.requestMetadataUpdate(tp)`): a fetch answered with an
    /// error that asks for new metadata (FENCED_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER…) also
    /// forgets the consumer's preferred read replica, so its next fetch goes to the leader.
    /// In 2.4–3.3.1 `initializeCompletedFetch` only asked for metadata: the consumer fetches
    /// from the same replica again. UNKNOWN_LEADER_EPOCH forgets nothing in any version.
    fetch_error_forgets_preferred_replica: bool = "fetch_error_forgets_preferred_replica", boolean;
    truncation: Truncation = "truncation", Truncation::parse;
    /// 2.1 (KIP-320): requests carry the current leader epoch; an older one is fenced. The same
    /// change makes a follower restart its fetcher on every new leader epoch, even from the
    /// same leader (`Partition.makeFollower`); before, a follower of an unchanged leader
    /// ignored an epoch bump.
    leader_epoch_fencing: bool = "leader_epoch_fencing", boolean;
    /// 2.3 (KIP-320's consumer side, KAFKA-7747 and KAFKA-8365): the consumer's Fetch carries
    /// the leader epoch its metadata holds, and after a leader change it validates its
    /// position with OffsetsForLeaderEpoch, detecting a truncated log
    /// (`SubscriptionState.maybeValidatePositionForCurrentLeader`, `Fetcher.validateOffsetsIfNeeded`).
    /// In 2.1–2.2 the broker fences requests by epoch but the consumer's Fetch carries none
    /// (`Optional.empty()` in `Fetcher.prepareFetchRequests`) and it never validates: a
    /// truncation shows only as OFFSET_OUT_OF_RANGE beyond the new leader's log end.
    consumer_leader_epoch: bool = "consumer_leader_epoch", boolean;
    isr_update: IsrUpdate = "isr_update", IsrUpdate::parse;
    /// 2.0.1/2.1 (KAFKA-7128): a follower joins the ISR only once its LEO has reached the
    /// start offset of the leader's epoch, not just the (possibly lagging) HW.
    isr_expansion_needs_epoch_start: bool = "isr_expansion_needs_epoch_start", boolean;
    /// Up to 2.0 (KAFKA-3410's check, removed by KAFKA-7414 in 2.0.1/2.1): OFFSET_OUT_OF_RANGE
    /// from a leader whose LEO is below the follower's, with unclean leader election off,
    /// halts the follower's broker instead of truncating.
    out_of_range_halts: bool = "out_of_range_halts", boolean;
    /// How the controller learns a broker stopped: its ZooKeeper session (up to 2.8 here)
    /// or its heartbeats (KRaft).
    broker_liveness: BrokerLiveness = "broker_liveness", BrokerLiveness::parse;
    /// The ZooKeeper-era controller bumps the leader epoch when it removes a dead replica
    /// from the ISR (`ReplicaStateMachine.doRemoveReplicasFromIsr`; KRaft did so on every
    /// shrink before metadata version 3.6, `triggerLeaderEpochBumpForIsrShrinkIfNeeded`).
    controller_isr_removal_bumps_epoch: bool = "controller_isr_removal_bumps_epoch", boolean;
    /// 3.5 (KIP-903, KAFKA-14139): an AlterPartition names each ISR member with the broker
    /// epoch its last Fetch carried (AlterPartition v3, Fetch v15's ReplicaState.ReplicaEpoch),
    /// and the controller refuses with INELIGIBLE_REPLICA a member whose epoch is not the one
    /// it registered with (`ReplicationControlManager.ineligibleReplicasForIsr`). Before, an
    /// expansion built from a previous incarnation's fetches is committed once the new
    /// incarnation is registered and unfenced, though it lost what it had not flushed.
    alter_partition_checks_broker_epochs: bool = "alter_partition_checks_broker_epochs", boolean;
    /// 4.1 (KIP-966, `eligible.leader.replicas.version` on for new clusters): Eligible
    /// Leader Replicas. The controller keeps replicas that left an ISR under
    /// min.insync.replicas as electable, the ISR may become empty, and the last leader
    /// may come back (`PartitionChangeBuilder`).
    eligible_leader_replicas: bool = "eligible_leader_replicas", boolean;
    /// 4.0 (KAFKA-17793, `BrokerHeartbeatTracker`): a fenced broker's session counts, so a new
    /// incarnation is refused while a fenced one's session lasts. In 3.7–3.9
    /// `BrokerHeartbeatManager.hasValidSession` is false for a fenced broker: its new
    /// registration is accepted at once.
    fenced_broker_keeps_session: bool = "fenced_broker_keeps_session", boolean;
    /// 4.0 (metadata version 3.9-IV0 and later, `MetadataVersion.isElrSupported`): a
    /// registration of a new incarnation runs `BrokerUncleanShutdownHandler`, taking the old
    /// one out of the ISR and replacing it as leader. 3.7 has no such handler, and 3.8's
    /// (`ReplicationControlManager.handleBrokerUncleanShutdown`) returns early below that
    /// metadata version: the old incarnation keeps its ISR place and leadership.
    registration_cleans_unclean_shutdown: bool = "registration_cleans_unclean_shutdown", boolean;
    /// Every ZooKeeper-era version (0.10.2–2.8): a killed broker's session holds
    /// /brokers/ids/N until it expires, so a new process started inside it is answered
    /// NodeExists, fails to start and exits (`KafkaZkClient.CheckedEphemeral`,
    /// `ZkUtils.registerBrokerInZk` before 1.1). Off: the new session replaces the old
    /// one at once, the idealised bounce a scenario may ask for (kip101-data-loss: the
    /// fast restart KIP-101 describes). No effect in KRaft.
    restart_inside_zookeeper_session_fails: bool = "restart_inside_zookeeper_session_fails", boolean;
    /// 4.0.1 (KAFKA-19294): a heartbeat (or registration) the controller does not answer is
    /// given up after broker.heartbeat.interval.ms (`BrokerServer` gives the heartbeat
    /// channel that retry timeout) and the next goes out one interval later
    /// (`BrokerLifecycleManager.scheduleNextCommunicationAfterFailure`). 3.4–4.0.0
    /// (KAFKA-14392): given up after broker.session.timeout.ms / 2, the next after
    /// 100 ms doubling with each failure in a row, capped at the session timeout.
    heartbeat_timeout_is_interval: bool = "heartbeat_timeout_is_interval", boolean;
    /// 2.2 (KIP-380, KAFKA-7235): the ZooKeeper controller tells a restarted broker from a
    /// live one by its broker epoch, the czxid of its /brokers/ids node
    /// (`KafkaController.processBrokerChange`: an id in ZooKeeper and in the controller's
    /// live set with a newer epoch is bounced, and gets `onBrokerFailure` then
    /// `onBrokerStartup`). Before 2.2 (`BrokerChange.process`, 0.11–2.1;
    /// `BrokerChangeListener.handleChildChange`, 0.10.2) only ids are compared: a broker
    /// whose node was deleted and created again before the controller read /brokers/ids
    /// is missed. No effect in KRaft.
    controller_detects_bounced_brokers: bool = "controller_detects_bounced_brokers", boolean;
    /// 3.7 (KIP-951, Produce v10): a produce refused with NOT_LEADER_OR_FOLLOWER names the
    /// leader and leader epoch the broker knows of (`KafkaApis.handleProduceRequest`,
    /// `getCurrentLeader`), and the producer takes them into its metadata at once
    /// (`Sender.completeBatch`, `Metadata.updatePartitionLeadership`). Before, the answer
    /// names no leader and the producer waits for its metadata refresh.
    produce_response_names_leader: bool = "produce_response_names_leader", boolean;
    /// 1.0 (KAFKA-5494): the broker keeps an idempotent producer's last 5 batches and
    /// answers a retry of any of them as a duplicate (`ProducerStateEntry.findDuplicateBatch`);
    /// 0.11 keeps the last batch only, and an older one is OUT_OF_ORDER_SEQUENCE_NUMBER.
    producer_state_keeps_5_batches: bool = "producer_state_keeps_5_batches", boolean;
    /// 3.7 (KIP-951, KAFKA-15415: `RecordAccumulator.shouldBackoff` with
    /// `ProducerBatch.hasLeaderChangedForTheOngoingRetry`): a retried batch whose leader changed
    /// since its last try goes at once. Before (read at 0.10.2.2, 2.4.1, 3.6.0: `drain` and
    /// `ready` test attempts and waited time only) it waits retry.backoff.ms whatever the leader.
    retry_skips_backoff_for_new_leader: bool = "retry_skips_backoff_for_new_leader", boolean;
    /// 2.7 (KIP-601): a client (a producer, a consumer, a broker's replica fetcher) gives a
    /// connection attempt up after socket.connection.setup.timeout.ms and connects again;
    /// before, it waits until the kernel gives the handshake up (`sim/connect.rs`).
    connection_setup: ConnectionSetup = "connection_setup", ConnectionSetup::parse;
}

impl BehaviorOverrides {
    pub fn is_empty(&self) -> bool {
        *self == BehaviorOverrides::default()
    }
}

json_by_name!(HwCounts, ResponseHw, AboveHw, Truncation, IsrUpdate, BrokerLiveness, ConnectionSetup);

impl Named for ConnectionSetup {
    const ALL_NAMED: &'static [(&'static str, ConnectionSetup)] = &[
        ("kernel", ConnectionSetup::Kernel),
        ("setup-timeout", ConnectionSetup::SetupTimeout),
        ("setup-timeout-capped", ConnectionSetup::SetupTimeoutCapped),
    ];
}

impl Named for HwCounts {
    const ALL_NAMED: &'static [(&'static str, HwCounts)] = &[
        ("isr", HwCounts::Isr),
        ("isr-or-caught-up", HwCounts::IsrOrCaughtUp),
        ("maximal-isr-or-caught-up", HwCounts::MaximalIsrOrCaughtUp),
        ("maximal-isr-or-caught-up-eligible", HwCounts::MaximalIsrOrCaughtUpEligible),
    ];
}

impl Named for ResponseHw {
    const ALL_NAMED: &'static [(&'static str, ResponseHw)] =
        &[("after-fetch", ResponseHw::AfterFetch), ("before-fetch", ResponseHw::BeforeFetch)];
}

impl Named for AboveHw {
    const ALL_NAMED: &'static [(&'static str, AboveHw)] = &[("park", AboveHw::Park), ("empty", AboveHw::Empty)];
}

impl Named for Truncation {
    const ALL_NAMED: &'static [(&'static str, Truncation)] = &[
        ("high-watermark", Truncation::HighWatermark),
        ("epoch-request", Truncation::EpochRequest),
        ("epoch-request-multi-round", Truncation::EpochRequestMultiRound),
        ("diverging-epoch", Truncation::DivergingEpoch),
    ];
}

impl Named for IsrUpdate {
    const ALL_NAMED: &'static [(&'static str, IsrUpdate)] =
        &[("immediate", IsrUpdate::Immediate), ("alter-partition", IsrUpdate::AlterPartition)];
}

impl Named for BrokerLiveness {
    const ALL_NAMED: &'static [(&'static str, BrokerLiveness)] =
        &[("zookeeper-session", BrokerLiveness::ZookeeperSession), ("broker-heartbeat", BrokerLiveness::BrokerHeartbeat)];
}
