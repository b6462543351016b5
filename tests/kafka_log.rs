//! "What your broker log would say" (src/kafka_log.rs): the lines a step writes,
//! in the format of the preset's version, read from Kafka's source at each tag.

mod support;

use serde_json::{json, Value};
use support::*;

fn lines(name: &str, preset: &str) -> Vec<(u64, String)> {
    let v: Value = serde_json::from_str(hwscope::builtin::json(name).unwrap()).unwrap();
    lines_of(&v, preset)
}

fn lines_of(v: &Value, preset: &str) -> Vec<(u64, String)> {
    let t = Trace::of(&with_preset(v, preset));
    (0..t.len())
        .flat_map(|i| {
            let r = t.at(i);
            let step = r["step"].as_u64().unwrap();
            r["kafka_log"].as_array().cloned().unwrap_or_default().into_iter().map(move |l| (step, l.as_str().unwrap().to_string()))
        })
        .collect()
}

#[test]
fn an_isr_shrink_is_logged_as_its_version_wrote_it() {
    let new = lines("slow-follower-isr", "kafka-4.0");
    let shrink = new.iter().find(|(_, l)| l.contains("Shrinking ISR")).expect("4.0 logs the shrink");
    assert!(
        shrink.1.starts_with("broker 0 | [Partition t-0 broker=0] Shrinking ISR from 0,1,2 to 0,1. Leader: (highWatermark: ")
            && shrink.1.contains("Out of sync replicas: (brokerId: 2, endOffset: ")
            && shrink.1.contains("lastCaughtUpTimeMs: "),
        "{}",
        shrink.1
    );
    assert!(new.iter().any(|(_, l)| l.contains("ISR updated to 0,1  and version updated to")), "the committed ISR");
    let old = lines("slow-follower-isr", "kafka-0.10");
    let shrink = old.iter().find(|(_, l)| l.contains("Shrinking ISR")).expect("0.10 logs the shrink");
    assert_eq!(shrink.1, "broker 0 | Partition [t,0] on broker 0: Shrinking ISR for partition [t,0] from 0,1,2 to 0,1");
    let mid = lines("slow-follower-isr", "kafka-2.4");
    assert!(mid.iter().any(|(_, l)| l.ends_with("Expanding ISR from 0,1 to 0,1,2")), "2.4 expands the ISR itself: {mid:?}");
    assert!(lines("slow-follower-isr", "textbook").is_empty(), "the textbook models no Kafka version");
}

#[test]
fn truncation_fencing_and_leadership_are_logged() {
    let z = lines("zombie-leader", "kafka-4.0");
    // 4.0 names the broker epoch (as 4.0.2's release jar writes it); 3.8 does not.
    let fence = z.iter().find(|(_, l)| l.contains("Fencing broker 0")).expect("4.0 logs the fence");
    assert!(
        fence.1.starts_with("controller | [QuorumController id=c] Fencing broker 0 at epoch ")
            && fence.1.ends_with(" because its session has timed out."),
        "{}",
        fence.1
    );
    let z38 = lines("zombie-leader", "kafka-3.8");
    assert!(
        z38.iter().any(|(_, l)| l == "controller | [QuorumController id=c] Fencing broker 0 because its session has timed out."),
        "{z38:?}"
    );
    // The returning zombie is added at the end of the ISR, as Kafka orders it (seen in a real 4.0.2 server.log).
    assert!(z.iter().any(|(_, l)| l == "broker 1 | [Partition t-0 broker=1] ISR updated to 1,2,0  and version updated to 2"), "{z:?}");
    assert!(z
        .iter()
        .any(|(_, l)| l.starts_with("broker 1 | [Broker id=1] Leader t-0 with topic id Some(t) starts at leader epoch 1 from offset ")));
    assert!(z.iter().any(|(_, l)| l.starts_with("broker 0 | [UnifiedLog partition=t-0, dir=/tmp/kafka-logs] Truncating to offset ")));
    let k = lines("kip101-data-loss", "kafka-0.10");
    assert!(k.iter().any(|(_, l)| l == "broker 1 | Truncating log t-0 to offset 1."), "{k:?}");
    assert!(k.iter().any(|(_, l)| l.contains("deleted brokers: 0")), "ZooKeeper's session expiry, as the controller's broker change");
}

/// The ISR lines of a run, without the step numbers and the shrink's figures.
fn isr_lines(v: &Value, preset: &str) -> Vec<String> {
    lines_of(v, preset)
        .into_iter()
        .filter(|(_, l)| l.contains("Shrinking ISR") || l.contains("Expanding ISR") || l.contains("ISR updated to"))
        .map(|(_, l)| l.split(". Leader: (").next().unwrap().to_string())
        .collect()
}

/// Kafka keeps the ISR in the controller's list order: a follower that rejoins is
/// last (`Partition.maybeExpandIsr` adds to a small Scala `Set`, which keeps insertion
/// order), and a later shrink keeps the others' order, in every version's format.
/// Follower 1 is cut off and rejoins (0,2 → 0,2,1), then follower 2 is cut off: Kafka
/// writes `0,2,1 to 0,1`, not `0,1,2 to 0,1`.
#[test]
fn a_shrink_after_a_rejoin_prints_the_isr_in_kafkas_order() {
    let v: Value = serde_json::json!({
        "format": 1,
        "title": "A follower rejoins the ISR, then another leaves",
        "preset": "kafka-4.0",
        "replicas": 3,
        "config": {"replica.lag.time.max.ms": 6000},
        "producers": [{"id": "p1", "acks": 1}],
        "events": [
            {"at_ms": 0, "produce": {"producer": "p1", "records": 1}, "repeat": {"count": 30, "every_ms": 1000}},
            {"at_ms": 1000, "partition": {"between": [0, 1]}},
            {"at_ms": 12000, "heal": {"between": [0, 1]}},
            {"at_ms": 16000, "partition": {"between": [0, 2]}}
        ],
        "stop_at_ms": 30000
    });
    let b = "broker 0 | ";
    assert_eq!(
        isr_lines(&v, "kafka-0.10"),
        [
            format!("{b}Partition [t,0] on broker 0: Shrinking ISR for partition [t,0] from 0,1,2 to 0,2"),
            format!("{b}Partition [t,0] on broker 0: Expanding ISR for partition t-0 from 0,2 to 0,2,1"),
            format!("{b}Partition [t,0] on broker 0: Shrinking ISR for partition [t,0] from 0,2,1 to 0,1"),
        ]
    );
    assert_eq!(
        isr_lines(&v, "kafka-0.11"),
        [
            format!("{b}Partition [t,0] on broker 0: Shrinking ISR from 0,1,2 to 0,2"),
            format!("{b}Partition [t,0] on broker 0: Expanding ISR from 0,2 to 0,2,1"),
            format!("{b}Partition [t,0] on broker 0: Shrinking ISR from 0,2,1 to 0,1"),
        ]
    );
    let p = "broker 0 | [Partition t-0 broker=0] ";
    for preset in ["kafka-2.0", "kafka-2.4"] {
        assert_eq!(
            isr_lines(&v, preset),
            [
                format!("{p}Shrinking ISR from 0,1,2 to 0,2"),
                format!("{p}Expanding ISR from 0,2 to 0,2,1"),
                format!("{p}Shrinking ISR from 0,2,1 to 0,1"),
            ],
            "{preset}"
        );
    }
    assert_eq!(
        isr_lines(&v, "kafka-2.8"),
        [
            format!("{p}Shrinking ISR from 0,1,2 to 0,2"),
            format!("{p}ISR updated to 0,2 and version updated to [1]"),
            format!("{p}ISR updated to 0,2,1 and version updated to [2]"),
            format!("{p}Shrinking ISR from 0,2,1 to 0,1"),
            format!("{p}ISR updated to 0,1 and version updated to [3]"),
        ]
    );
    for preset in ["kafka-3.7", "kafka-4.0"] {
        assert_eq!(
            isr_lines(&v, preset),
            [
                format!("{p}Shrinking ISR from 0,1,2 to 0,2"),
                format!("{p}ISR updated to 0,2  and version updated to 1"),
                format!("{p}ISR updated to 0,2,1  and version updated to 2"),
                format!("{p}Shrinking ISR from 0,2,1 to 0,1"),
                format!("{p}ISR updated to 0,1  and version updated to 3"),
            ],
            "{preset}"
        );
    }
    // The step records keep the ISR as a set in broker order (the page, share links,
    // frozen traces and the explorer's counts read it so).
    let t = Trace::of(&with_preset(&v, "kafka-4.0"));
    let isrs: Vec<Value> = (0..t.len()).map(|i| t.at(i)["partition"]["isr"].clone()).collect();
    assert!(isrs.contains(&serde_json::json!([0, 1, 2])) && !isrs.contains(&serde_json::json!([0, 2, 1])), "{isrs:?}");
}

/// The same through the controller (KRaft): the zombie leader 0 rejoins new leader 1's
/// ISR last (the controller keeps the list 1,2,0 the leader proposed and answers with
/// it), and when follower 2 is then cut off from leader 1 the shrink keeps that order.
#[test]
fn a_rejoined_zombie_stays_last_in_the_isr() {
    let mut v: Value = serde_json::from_str(hwscope::builtin::json("zombie-leader").unwrap()).unwrap();
    v["events"][0]["repeat"]["count"] = 34.into();
    v["events"].as_array_mut().unwrap().push(serde_json::json!({"at_ms": 23000, "partition": {"between": [1, 2]}}));
    v["stop_at_ms"] = 34000.into();
    let p = "broker 1 | [Partition t-0 broker=1] ";
    for preset in ["kafka-3.7", "kafka-4.0"] {
        let l = isr_lines(&v, preset);
        let from_1 = |l: &&String| l.starts_with("broker 1 ");
        assert_eq!(
            l.iter().filter(from_1).collect::<Vec<_>>(),
            [
                &format!("{p}ISR updated to 1,2,0  and version updated to 2"),
                &format!("{p}Shrinking ISR from 1,2,0 to 1,0"),
                &format!("{p}ISR updated to 1,0  and version updated to 3"),
            ],
            "{preset}: {l:?}"
        );
    }
}

/// A refused ISR expansion, as Kafka 4.0.2 logged it in the oracle's KIP-903 run (2026-12-06):
/// the controller's `ReplicationControlManager.alterPartition` ("Rejecting AlterPartition
/// request from node 0 … ineligible replicas [1 (broker epoch mismatch: requested=12 VS
/// expected=102)]") and the leader's `Partition.handleAlterPartitionError` ("Failed to alter
/// partition to PendingExpandIsr(newInSyncReplicaId=1, …) since the controller rejected the
/// request with INELIGIBLE_REPLICA. Partition state has been reset to the latest committed
/// state …"). Before 3.5 (the switch off) the expansion is committed and neither is written.
#[test]
fn a_refused_isr_expansion_is_logged_by_the_controller_and_the_leader() {
    let s: Value = serde_json::from_str(include_str!("../oracle/scenarios/fault-kip903-stale-isr-expansion.json")).unwrap();
    let log = lines_of(&s, "kafka-4.0");
    let ctl = log.iter().position(|(_, l)| l.contains("Rejecting AlterPartition")).expect("the controller's line");
    assert_eq!(
        log[ctl].1,
        "controller | [QuorumController id=c] Rejecting AlterPartition request from node 0 for t-0 because it specified ineligible replicas [1 (broker epoch mismatch: requested=1 VS expected=2)] in the new ISR […]."
    );
    let leader = log.iter().position(|(_, l)| l.contains("Failed to alter partition")).expect("the leader's line");
    assert!(leader > ctl);
    assert_eq!(
        log[leader].1,
        "broker 0 | [Partition t-0 broker=0] Failed to alter partition to PendingExpandIsr(newInSyncReplicaId=1, …) since the controller rejected the request with INELIGIBLE_REPLICA. Partition state has been reset to the latest committed state CommittedPartitionState(isr=Set(0), leaderRecoveryState=RECOVERED)."
    );
    let mut off = s.clone();
    off["behavior"] = serde_json::json!({"alter_partition_checks_broker_epochs": false});
    let log = lines_of(&off, "kafka-4.0");
    assert!(!log.iter().any(|(_, l)| l.contains("Rejecting AlterPartition") || l.contains("Failed to alter")), "{log:?}");
    assert!(log.iter().any(|(_, l)| l.contains("ISR updated to 0,1 ")), "committed instead");
}

/// From five members Kafka's ISR is a Scala `HashSet` and logs in hash order
/// (`sim::isr_list::Members`, worked out on the JVM against each release's Scala):
/// ids iterate `0,5,1,6,2,3,4`; 0.10.2–2.1 hold `Replica`s, which iterate `2,3,6,1,4,0,5`
/// below five members once the set is a `HashSet`.
#[test]
fn five_members_or_more_log_in_scala_hash_order() {
    let run = |replicas: u32, cut: u32| {
        serde_json::json!({
            "format": 1,
            "title": "A follower of many leaves the ISR and rejoins",
            "replicas": replicas,
            "config": {"replica.lag.time.max.ms": 6000},
            "producers": [{"id": "p1", "acks": 1}],
            "events": [
                {"at_ms": 0, "produce": {"producer": "p1", "records": 1}, "repeat": {"count": 30, "every_ms": 1000}},
                {"at_ms": 1000, "partition": {"between": [0, cut]}},
                {"at_ms": 14000, "heal": {"between": [0, cut]}}
            ],
            "stop_at_ms": 30000
        })
    };
    let p = "broker 0 | [Partition t-0 broker=0] ";
    assert_eq!(
        isr_lines(&run(6, 3), "kafka-4.0"),
        [
            format!("{p}Shrinking ISR from 0,5,1,2,3,4 to 0,5,1,2,4"),
            format!("{p}ISR updated to 0,5,1,2,4  and version updated to 1"),
            format!("{p}ISR updated to 0,5,1,2,3,4  and version updated to 2"),
        ]
    );
    assert_eq!(
        isr_lines(&run(5, 1), "kafka-2.0"),
        [format!("{p}Shrinking ISR from 0,1,2,3,4 to 2,3,4,0"), format!("{p}Expanding ISR from 2,3,4,0 to 0,1,2,3,4")]
    );
    assert_eq!(
        isr_lines(&run(5, 1), "kafka-2.4"),
        [format!("{p}Shrinking ISR from 0,1,2,3,4 to 0,2,3,4"), format!("{p}Expanding ISR from 0,2,3,4 to 0,1,2,3,4")]
    );
}

/// A restarted broker in KRaft applies the metadata image it loads before it is
/// registered (`BrokerMetadataPublisher`'s first publish → `ReplicaManager.applyDelta`),
/// with new `Partition` objects (leader epoch -1): it logs a start at the image's leader
/// epoch. Leader 0 bounced inside its session is still the leader there, so it logs a
/// leader start at epoch 0 (as a real 4.0.2 broker did in the oracle's
/// fault-bounce-inside-session: epoch 0 from offset 101); follower 2 restarted logs a
/// follower start once, not again when it registers at the same epoch.
#[test]
fn a_restarted_broker_logs_the_image_it_applies_before_registering() {
    let l = lines("bounce-inside-session", "kafka-4.0");
    let starts: Vec<&(u64, String)> = l.iter().filter(|(_, l)| l.contains(" starts at leader epoch ")).collect();
    let b2: Vec<&&(u64, String)> = starts.iter().filter(|(_, l)| l.starts_with("broker 2 | ")).collect();
    assert!(
        b2[0].1.ends_with("Follower t-0 starts at leader epoch 0 from offset 101 with partition epoch 0 and high watermark 100. Current leader is 0. Previous leader Some(0) and previous leader epoch was 0."),
        "{b2:?}"
    );
    assert_eq!(b2.iter().filter(|(_, l)| l.contains("leader epoch 0 ")).count(), 1, "once at epoch 0: {b2:?}");
    let b0 = starts.iter().find(|(_, l)| l.starts_with("broker 0 | ")).expect("broker 0's restart");
    assert!(
        b0.1.contains("[Broker id=0] Leader t-0 with topic id Some(t) starts at leader epoch 0 from offset ")
            && b0.1.ends_with("Previous leader None and previous leader epoch was -1."),
        "{b0:?}"
    );
    let registered = l.iter().find(|(_, l)| l.contains("new incarnation of broker 0")).expect("broker 0 registers");
    assert!(b0.0 < registered.0, "before it is registered: {b0:?} {registered:?}");
    // The new leader's start names the leader and epoch its `Partition` object held.
    assert!(
        l.iter().any(|(_, l)| l.starts_with("broker 1 | ") && l.ends_with("Previous leader Some(0) and previous leader epoch was 0.")),
        "{l:?}"
    );
    // A ZooKeeper broker killed and started again inside its session never gets that far: its
    // registration meets the old node (NodeExists) and its startup fails.
    let zk = lines("bounce-inside-session", "kafka-2.8");
    assert!(
        zk.iter().any(|(_, l)| l.starts_with("broker 2 | Error while creating ephemeral at /brokers/ids/2, node already exists")),
        "{zk:?}"
    );
    assert!(!zk.iter().any(|(_, l)| l.contains("Newly added brokers: 2,")), "{zk:?}");
    // Started after its session expired, it knows nothing until the controller's LeaderAndIsr.
    let after = json!({
        "format": 1, "replicas": 3,
        "events": [{"at_ms": 1000, "crash": {"broker": 0}}, {"at_ms": 25000, "restart": {"broker": 0}}],
        "stop_at_ms": 30000
    });
    let zk = lines_of(&after, "kafka-2.8");
    let added = zk.iter().position(|(_, l)| l.contains("Newly added brokers: 0,")).expect("0 is back");
    // 2.8's starts give the leader epoch the broker's `Partition` held (-1 in a new process)
    // and, for a follower, no current leader (Partition.makeFollower at 2.8.2).
    let start =
        zk.iter().position(|(_, l)| l.starts_with("broker 0 | [Broker id=0] Follower t-0 starts at leader epoch 1 ")).expect("0 follows 1");
    assert!(added < start, "{zk:?}");
    let b0 = &zk[start].1;
    assert!(b0.ends_with(". Previous leader epoch was -1.") && !b0.contains("Current leader"), "{b0:?}");
}

/// The ZooKeeper controller's line for a change under /brokers/ids, per version:
/// 0.10.2 logs it under `ReplicaStateMachine.BrokerChangeListener`'s ident; 0.11 moved it
/// to `KafkaController.BrokerChange.process` (`[Controller N]: `); 1.1 renamed the ident
/// `[Controller id=N] `; 2.2 (KIP-380) added the bounced brokers. The controller is a
/// broker (here broker 2, one past the two replicas): the line is in its log, names its
/// id, and its own /brokers/ids node is among the live brokers. KRaft's stays `c`.
#[test]
fn the_zookeeper_controller_logs_a_broker_change_as_its_version_wrote_it() {
    let line = |preset: &str| {
        lines("kip101-data-loss", preset)
            .into_iter()
            .map(|(_, l)| l)
            .find(|l| l.contains("Newly added brokers: 1,"))
            .unwrap_or_else(|| panic!("{preset}: broker 1 is back"))
    };
    let tail = "Newly added brokers: 1, deleted brokers: , all live brokers: 0,1,2";
    assert_eq!(line("kafka-0.10"), format!("broker 2 (controller) | [BrokerChangeListener on Controller 2]: {tail}"));
    assert_eq!(line("kafka-0.11"), format!("broker 2 (controller) | [Controller 2]: {tail}"));
    assert_eq!(line("kafka-2.0"), format!("broker 2 (controller) | [Controller id=2] {tail}"));
    assert_eq!(line("kafka-2.1"), format!("broker 2 (controller) | [Controller id=2] {tail}"));
    assert_eq!(
        line("kafka-2.4"),
        "broker 2 (controller) | [Controller id=2] Newly added brokers: 1, deleted brokers: , bounced brokers: , all live brokers: 0,1,2"
    );
    let kraft = lines("kip101-data-loss", "kafka-4.0");
    assert!(kraft.iter().any(|(_, l)| l.starts_with("controller | [QuorumController id=c] ")), "{kraft:?}");
}
