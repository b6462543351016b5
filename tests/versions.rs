//! One golden test per version boundary: the same scenario under the preset on
//! each side of it, and the difference at a named step. Each fails if the switch
//! (or the default) is wired to the wrong preset. docs/behaviors.md lists the
//! switches and the tickets.

mod support;

use serde_json::{json, Value};
use support::*;

fn builtin(name: &str) -> Value {
    serde_json::from_str(hwscope::builtin::json(name).unwrap_or_else(|| panic!("built-in {name}"))).unwrap()
}

fn under(v: &Value, preset: &str) -> Trace {
    Trace::of(&with_preset(v, preset))
}

// ---------------------------------------------------------------------------
// consumer_fetch_above_hw: kafka-3.7 parks, kafka-3.8 answers at once (KAFKA-16452).
// ---------------------------------------------------------------------------

#[test]
fn kafka_3_7_parks_a_consumer_fetch_above_the_hw_and_3_8_answers_it() {
    for (preset, outcome) in [("kafka-3.7", "parked"), ("kafka-3.8", "answered")] {
        let t = under(&g13_above_hw_scenario(), preset);
        let above = (0..t.len())
            .find(|&i| {
                let r = t.at(i);
                let o = r["event"]["offset"].as_u64().unwrap_or(0);
                event_matches(r, &json!({"type": "consumer_fetch_request", "to": 1})) && o > hw(r, 1) && o <= leo(r, 1)
            })
            .unwrap_or_else(|| panic!("{preset}: a consumer fetch above follower 1's HW"));
        assert!(event_matches(t.at(above), &json!({ "outcome": outcome })), "{preset}: {}", line(t.at(above)));
    }
}

// ---------------------------------------------------------------------------
// isr_expansion_needs_epoch_start: kafka-2.0 | kafka-2.1 (KAFKA-7128).
// ---------------------------------------------------------------------------

#[test]
fn kafka_7128_loses_committed_records_under_2_0_and_not_under_2_1() {
    let s = builtin("kafka-7128");
    assert_eq!(s["preset"], "kafka-2.0");
    // The step where broker 1 (at 11, the new leader's HW being 10 and its epoch starting at 14) fetches from leader 2.
    for (preset, isr) in [("kafka-2.0", json!([1, 2, 3])), ("kafka-2.1", json!([2, 3]))] {
        let t = under(&s, preset);
        let join = t.find(0, &json!({"type": "fetch_request", "from": 1, "to": 2, "fetch_offset": 11}));
        assert_eq!(hw(t.at(join), 2), 10, "{preset}: the new leader's HW lags");
        assert_eq!(t.at(join)["replicas"][2]["epoch_cache"], json!([[0, 0], [1, 14]]), "{preset}");
        assert_eq!(t.at(join)["partition"]["isr"], isr, "{preset}: {}", line(t.at(join)));
    }
    // kafka-2.0: broker 1 is elected and the acknowledged p1-3 and p1-4 are gone, at the step it becomes leader.
    let t = under(&s, "kafka-2.0");
    let lost = t.violations();
    assert_eq!(lost.len(), 2, "{lost:?}");
    assert!(lost.iter().all(|v| v.1 == "acked-record-lost"), "{lost:?}");
    assert!(lost[0].2.contains("p1-3") && lost[1].2.contains("p1-4"), "{lost:?}");
    let at = t.at(lost[0].0 as usize);
    assert!(event_matches(at, &json!({"type": "leader_and_isr", "to": 1, "outcome": "become-leader"})), "{}", line(at));
    assert_eq!(lost[0].0, 221, "the step where broker 1 becomes leader (ZooKeeper's pings, expiry and watch are steps)");
    // kafka-2.1: broker 3, which has every record, is elected; nothing is lost.
    let t = under(&s, "kafka-2.1");
    assert!(t.violations().is_empty(), "{:?}", t.violations());
    t.find(0, &json!({"type": "leader_election", "leader": 3}));
    assert_eq!(log(t.last(), 1).len(), log(t.last(), 3).len(), "broker 1 catches up from broker 3");
}

// ---------------------------------------------------------------------------
// out_of_range_halts: kafka-2.0 | kafka-2.1 (KAFKA-3410's check, KAFKA-7414).
// ---------------------------------------------------------------------------

/// KIP-101 scenario 1 with HW truncation and unclean election off: broker 0 comes
/// back, truncates to its HW 2 and fetches at 2 from leader 1, whose log ends at 1.
/// (Broker 0 checkpoints its HW every 50 ms here, so that HW 2 is on disk when it
/// crashes at 200 ms: with the default 5 s it would come back with HW 1.)
fn out_of_range() -> Value {
    let mut s = builtin("kip101-data-loss");
    // (Keeping the built-in's idealised bounce, `restart_inside_zookeeper_session_fails` off.)
    s["behavior"]["truncation"] = json!("high-watermark");
    s["config"] = json!({"unclean.leader.election.enable": false, "replica.high.watermark.checkpoint.interval.ms": 50});
    s
}

#[test]
fn before_2_1_out_of_range_below_the_followers_log_end_halts_the_broker() {
    for (preset, halted) in [("kafka-2.0", true), ("kafka-2.1", false)] {
        let t = under(&out_of_range(), preset);
        let oor = t.find(0, &json!({"type": "fetch_response", "to": 0, "error": "OFFSET_OUT_OF_RANGE"}));
        let r = t.at(oor);
        assert_eq!(r["replicas"][0]["alive"] == false, halted, "{preset}: {}", line(r));
        if halted {
            assert_eq!(r["event"]["outcome"], "halted", "{}", line(r));
            let text = r["text"].as_str().unwrap();
            assert!(text.contains("halts") && text.contains("unclean.leader.election.enable is false"), "{text}");
        } else {
            assert_eq!(r["event"]["truncate_to"], 1, "{preset}: {}", line(r));
        }
    }
    // With unclean election on, 2.0 truncates too: the check only guarded against silent loss.
    let mut s = out_of_range();
    s["config"]["unclean.leader.election.enable"] = json!(true);
    let t = under(&s, "kafka-2.0");
    let oor = t.find(0, &json!({"type": "fetch_response", "to": 0, "error": "OFFSET_OUT_OF_RANGE"}));
    assert_eq!(t.at(oor)["event"]["truncate_to"], 1, "{}", line(t.at(oor)));
}

// ---------------------------------------------------------------------------
// broker_liveness and controller_isr_removal_bumps_epoch: kafka-2.8 | kafka-3.7.
// ---------------------------------------------------------------------------

fn follower_crash() -> Value {
    json!({
        "format": 1, "replicas": 3,
        "events": [{"at_ms": 1000, "crash": {"broker": 2}}],
        "stop_at_ms": 25000
    })
}

/// 2.8 (ZooKeeper): the session expires one zookeeper.session.timeout.ms (18 s from
/// 2.5) after the last ping, pings coming every third of it; 3.7 (KRaft): one
/// broker.session.timeout.ms (9 s) after the last heartbeat, every 2 s.
#[test]
fn the_zookeeper_era_detects_a_dead_broker_by_its_session_kraft_by_heartbeats() {
    for (preset, earliest, latest) in [("kafka-2.8", 12_000, 18_000), ("kafka-3.7", 7_000, 9_000), ("kafka-2.4", 4_000, 6_000)] {
        let t = under(&follower_crash(), preset);
        let crash = t.find(0, &json!({"type": "crash", "broker": 2}));
        let expiry = detected(&t, crash, 2);
        let after = time(t.at(expiry)) - time(t.at(crash));
        assert!((earliest..=latest).contains(&after), "{preset}: detected {after} ms after the crash");
        let text = t.at(crash)["text"].as_str().unwrap();
        let word = if preset == "kafka-3.7" { "heartbeat" } else { "ZooKeeper" };
        assert!(text.contains(word), "{preset}: {text}");
    }
}

/// At the removal of dead follower 2 from the ISR, the ZooKeeper-era controller
/// writes leader epoch 1 (leader 0 unchanged); KRaft keeps epoch 0. Then the leader
/// starts its new epoch at its LEO.
#[test]
fn the_zookeeper_controller_bumps_the_leader_epoch_when_it_removes_a_dead_replica() {
    for (preset, epoch) in [("kafka-2.8", 1), ("kafka-3.7", 0)] {
        let t = Trace::of(&with_preset_same_detection(&follower_crash(), preset));
        let expiry = detected(&t, 0, 2);
        let p = &t.at(expiry)["partition"];
        assert_eq!((p["leader"].clone(), p["leader_epoch"].clone(), p["isr"].clone()), (json!(0), json!(epoch), json!([0, 1])), "{preset}");
        let meta = t.find(expiry, &json!({"type": "leader_and_isr", "to": 0}));
        let want = if epoch == 1 { "become-leader" } else { "isr-update" };
        assert_eq!(t.at(meta)["event"]["outcome"], want, "{preset}: {}", line(t.at(meta)));
        let cache = t.at(meta)["replicas"][0]["epoch_cache"].as_array().unwrap().clone();
        assert_eq!(cache.last().unwrap()[0], epoch, "{preset}: {cache:?}");
    }
}

/// `Partition.makeLeader` ends by moving the HW and, when it moved,
/// `tryCompleteDelayedRequests` (every version): in the ZooKeeper era the controller's
/// LeaderAndIsr that leaves the leader alone in the ISR moves the HW to its LEO, and the
/// acks=all writes waiting on the dead followers are answered at once with
/// NOT_ENOUGH_REPLICAS_AFTER_APPEND (the ISR is under min.insync.replicas), not left to
/// time out after request.timeout.ms.
#[test]
fn the_zookeeper_leader_answers_waiting_writes_when_the_controller_leaves_it_alone_in_the_isr() {
    let t = under(&builtin("acks-and-min-isr"), "kafka-2.8");
    let alone = t.find(0, &json!({"type": "leader_and_isr", "to": 0, "outcome": "become-leader", "isr": [0]}));
    let at = t.at(alone)["time_ms"].as_u64().unwrap();
    assert_eq!(t.at(alone)["replicas"][0]["hw"], t.at(alone)["replicas"][0]["leo"], "{}", line(t.at(alone)));
    for record in ["p-all-2", "p-all-3"] {
        let answer = t.find(alone, &json!({"type": "produce_response", "to": "p-all", "records": [record]}));
        let event = &t.at(answer)["event"];
        assert_eq!(event["error"], "NOT_ENOUGH_REPLICAS_AFTER_APPEND", "{record}: {}", line(t.at(answer)));
        assert!(t.at(answer)["time_ms"].as_u64().unwrap() <= at + 2, "{record} answered at once: {}", line(t.at(answer)));
    }
}

// ---------------------------------------------------------------------------
// alter_partition_checks_broker_epochs (KIP-903, 3.5): off (3.3–3.4's controller; no
// preset, the switch overridden under kafka-3.7) | kafka-3.7, kafka-3.8, kafka-4.0.
// ---------------------------------------------------------------------------

/// Follower 1 falls out of the ISR (cut from leader 0) and is fenced (cut from the
/// controller); the leader's link to the controller takes 5 s each way, so it still
/// takes 1 for unfenced when 1 catches up at 13.2 s and asks to add it. Broker 1 then
/// crashes losing 5 unflushed records (LEO 71 → 66), comes back, registers with a new
/// broker epoch and is unfenced, but is cut from the leader again and cannot catch
/// up. The AlterPartition lands at 18.2 s naming broker 1 with the broker epoch of
/// its previous incarnation's fetch. Then leader 0 dies.
fn stale_isr_expansion(preset: &str) -> Value {
    json!({
        "format": 1, "preset": preset, "replicas": 2,
        "config": {"min.insync.replicas": 1, "replica.lag.time.max.ms": 2000},
        "network": {"latency_ms": 1, "links": [
            {"from": 0, "to": "controller", "latency_ms": 5000}, {"from": "controller", "to": 0, "latency_ms": 5000}]},
        "producers": [{"id": "p1", "acks": "all"}],
        "events": [
            {"at_ms": 0, "produce": {"producer": "p1", "records": 1}, "repeat": {"count": 95, "every_ms": 200}},
            {"at_ms": 500, "partition": {"between": [1, 0]}},
            {"at_ms": 500, "partition": {"between": [1, "controller"]}},
            {"at_ms": 10000, "heal": {"between": [1, 0]}},
            {"at_ms": 14100, "crash": {"broker": 1, "unflushed": 5}},
            {"at_ms": 14150, "restart": {"broker": 1}},
            {"at_ms": 14150, "heal": {"between": [1, "controller"]}},
            {"at_ms": 14150, "partition": {"between": [1, 0]}},
            {"at_ms": 20000, "crash": {"broker": 0}}
        ],
        "stop_at_ms": 40000
    })
}

/// `ReplicationControlManager.ineligibleReplicasForIsr` at 3.5.0 (KIP-903, KAFKA-14139)
/// compares each member's broker epoch in AlterPartition v3 with its registration; at
/// 3.4.0 it checks only that the member is registered, unfenced and not shutting down.
/// Before: the expansion is committed, broker 1 is elected when leader 0 is fenced, and
/// the five acknowledged records it lost are gone. From 3.5: INELIGIBLE_REPLICA, broker
/// 1 stays out of the ISR, and the partition waits for leader 0 instead (offline, nothing lost).
#[test]
fn from_3_5_the_controller_refuses_an_isr_expansion_naming_a_previous_incarnation() {
    let mut before = stale_isr_expansion("kafka-3.7");
    before["behavior"] = json!({"alter_partition_checks_broker_epochs": false});
    let t = Trace::of_value(&before);
    let commit = t.find(0, &json!({"type": "alter_partition", "outcome": "committed", "isr": [0, 1]}));
    let r = t.at(commit);
    assert_eq!((time(r), leo(r, 1)), (18205, 66), "committed while broker 1 lacks 66..70: {}", line(r));
    let elected = t.find(commit, &json!({"type": "leader_and_isr", "to": 1, "outcome": "become-leader"}));
    let lost = t.allowed();
    assert_eq!(lost.len(), 5, "{lost:?}");
    assert!(lost.iter().all(|v| v.0 == elected as u64 && v.1 == "acked-record-lost"), "{lost:?}");
    assert!(lost[0].2.contains("p1-67") && lost[4].2.contains("p1-71"), "{lost:?}");
    for preset in ["kafka-3.7", "kafka-3.8", "kafka-4.0"] {
        let t = Trace::of_value(&stale_isr_expansion(preset));
        let refused = t.find(0, &json!({"type": "alter_partition", "outcome": "rejected", "error": "INELIGIBLE_REPLICA"}));
        let r = t.at(refused);
        assert_eq!(time(r), 18205, "{preset}: {}", line(r));
        let text = r["text"].as_str().unwrap();
        assert!(text.contains("names broker 1 with broker epoch 1") && text.contains("KIP-903"), "{preset}: {text}");
        assert!(t.try_find(0, &json!({"type": "alter_partition", "outcome": "committed", "isr": [0, 1]})).is_none(), "{preset}");
        assert!(t.violations().is_empty() && t.allowed().is_empty(), "{preset}: {:?} {:?}", t.violations(), t.allowed());
        assert_eq!(t.last()["partition"]["leader"], Value::Null, "{preset}: waits for leader 0");
    }
}

/// The same rule as the real cluster runs it (oracle/scenarios/fault-kip903-stale-isr-expansion.json):
/// instead of a slow link, only leader 0's AlterPartition connection to the controller is cut
/// (`partition.channel`). In KRaft that is a connection of its own
/// (`AlterPartitionManager`'s `NodeToControllerChannelManagerImpl`, its own `NetworkClient`),
/// so broker 0's heartbeats and metadata fetches go on and it stays unfenced. The expansion to
/// {0, 1}, built from broker 1's fetch at broker epoch 1, is held by TCP while broker 1 crashes
/// (5 unflushed records lost), re-registers at epoch 2 and is unfenced; after the heal it gets
/// through at its connection's next retransmission (sent 6805 ms, + 200 · (2^7 − 1) ms).
/// `ReplicationControlManager.ineligibleReplicasForIsr` (3.5+) refuses it; a 3.4 controller
/// commits it and broker 1 is elected without the five acknowledged records.
#[test]
fn from_3_5_an_alter_partition_held_on_its_own_connection_across_a_re_registration_is_refused() {
    let s: Value = serde_json::from_str(include_str!("../oracle/scenarios/fault-kip903-stale-isr-expansion.json")).unwrap();
    for preset in ["kafka-3.7", "kafka-4.0"] {
        let t = under(&s, preset);
        let refused = t.find(0, &json!({"type": "alter_partition", "outcome": "rejected", "error": "INELIGIBLE_REPLICA"}));
        let r = t.at(refused);
        assert_eq!(time(r), 32206, "{preset}: {}", line(r));
        assert!(r["text"].as_str().unwrap().contains("names broker 1 with broker epoch 1"), "{preset}: {}", line(r));
        // Broker 0's other connections carried on: heartbeats answered all along, never fenced.
        let beats = (0..refused)
            .filter(|&i| event_matches(t.at(i), &json!({"type": "broker_heartbeat", "from": 0})))
            .map(|i| time(t.at(i)))
            .filter(|&at| (5000..22000).contains(&at))
            .count();
        assert!(beats >= 8, "{preset}: broker 0's heartbeats during the cut: {beats}");
        assert!(t.try_find(0, &json!({"type": "alter_partition", "outcome": "committed", "isr": [0, 1]})).is_none(), "{preset}");
        assert!(t.violations().is_empty() && t.allowed().is_empty(), "{preset}: {:?} {:?}", t.violations(), t.allowed());
        assert_eq!(t.last()["partition"]["leader"], Value::Null, "{preset}: waits for leader 0");
    }
    let mut before = s.clone();
    before["preset"] = json!("kafka-3.7");
    before["behavior"] = json!({"alter_partition_checks_broker_epochs": false});
    let t = Trace::of_value(&before);
    let commit = t.find(0, &json!({"type": "alter_partition", "outcome": "committed", "isr": [0, 1]}));
    assert_eq!((time(t.at(commit)), leo(t.at(commit), 1)), (32206, 15), "committed while broker 1 lacks 15..19: {}", line(t.at(commit)));
    let elected = t.find(commit, &json!({"type": "leader_and_isr", "to": 1, "outcome": "become-leader"}));
    let lost = t.allowed();
    assert_eq!(lost.len(), 5, "{lost:?}");
    assert!(lost.iter().all(|v| v.0 == elected as u64 && v.1 == "acked-record-lost"), "{lost:?}");
    assert!(lost[0].2.contains("p1-16") && lost[4].2.contains("p1-20"), "{lost:?}");
}

// ---------------------------------------------------------------------------
// The ZooKeeper era's conditional ISR write (0.10.2–2.6; not a version boundary:
// every preset whose leader writes its own ISR).
// ---------------------------------------------------------------------------

/// Leader 0 is cut from ZooKeeper and the controller at 1 s and keeps taking acks=all
/// writes; its session expires and broker 1 is elected (epoch 1), which leader 0 never
/// hears. At its ISR check at 20 s its followers have not fetched for the lag time, but
/// `Partition.updateIsr` writes the shrunk ISR to the partition znode only if the
/// zkVersion it cached is still the znode's (`ReplicationUtils.updateLeaderAndIsr` at
/// 0.10.2 and 2.0.0, `ZkPartitionStateStore` at 2.4): the controller wrote it at the
/// election, so the write fails and the deposed leader cannot acknowledge the writes alone.
#[test]
fn a_deposed_leader_cannot_write_its_isr_to_zookeeper() {
    let s = json!({
        "format": 1, "replicas": 3, "config": {"min.insync.replicas": 1},
        "producers": [{"id": "p1", "acks": "all"}],
        "events": [
            {"at_ms": 0, "produce": {"producer": "p1", "records": 1}, "repeat": {"count": 150, "every_ms": 200}},
            {"at_ms": 1000, "partition": {"between": [0, "zookeeper"]}},
            {"at_ms": 1000, "partition": {"between": [0, "controller"]}}
        ],
        "stop_at_ms": 30000
    });
    for preset in ["kafka-0.10", "kafka-2.1", "kafka-2.4"] {
        let t = under(&s, preset);
        let elected = t.find(0, &json!({"type": "leader_election", "leader": 1}));
        let check = t.find(elected, &json!({"type": "timeout", "broker": 0, "timer": "isr-expiration"}));
        let conflict = (check..t.len())
            .find(|&i| t.at(i)["text"].as_str().is_some_and(|x| x.contains("its write to ZooKeeper fails")))
            .unwrap_or_else(|| panic!("{preset}: no failed ISR write\n{}", t.summary()));
        let r = t.at(conflict);
        assert_eq!(r["replicas"][0]["role"], "leader", "{preset}: {}", line(r));
        let in_isr: Vec<bool> = r["replicas"][0]["followers"].as_array().unwrap().iter().map(|f| f["in_isr"] == true).collect();
        assert_eq!(in_isr, [true, true], "{preset}: the deposed leader's ISR stays {{0, 1, 2}}: {}", line(r));
        assert!(t.violations().is_empty() && t.allowed().is_empty(), "{preset}: {:?} {:?}", t.violations(), t.allowed());
    }
}

// ---------------------------------------------------------------------------
// leader_epoch_fencing (KIP-320): kafka-2.0 | kafka-2.1. With it, a follower of an
// unchanged leader restarts on a new epoch (Partition.makeFollower).
// ---------------------------------------------------------------------------

#[test]
fn from_2_1_a_follower_restarts_on_a_new_epoch_of_the_same_leader() {
    for (preset, outcome) in [("kafka-2.0", "no-change"), ("kafka-2.1", "become-follower")] {
        let t = Trace::of(&with_preset_same_detection(&follower_crash(), preset));
        let expiry = detected(&t, 0, 2);
        assert_eq!(t.at(expiry)["partition"]["leader_epoch"], 1, "{preset}");
        let meta = t.find(expiry, &json!({"type": "leader_and_isr", "to": 1}));
        assert_eq!(t.at(meta)["event"]["outcome"], outcome, "{preset}: {}", line(t.at(meta)));
        assert_eq!(t.at(meta)["replicas"][1]["leader_epoch"], 1, "{preset}");
    }
}

// ---------------------------------------------------------------------------
// Defaults that changed: replica.lag.time.max.ms (2.4 | 2.8, KIP-537),
// unclean.leader.election.enable (0.10 | 0.11, KIP-106).
// ---------------------------------------------------------------------------

/// Follower 1 is cut off at 1 s and misses a write; the leader checks every lag/2
/// and drops it once it has not caught up for the lag time.
#[test]
fn the_lag_time_default_is_10_s_before_2_5_and_30_s_after() {
    let s = json!({
        "format": 1, "replicas": 2, "producers": [{"id": "p1", "acks": 1}],
        "events": [{"at_ms": 1000, "partition": {"between": [0, 1]}}, {"at_ms": 1100, "produce": {"producer": "p1"}}],
        "stop_at_ms": 50000
    });
    for (preset, lag) in [("kafka-2.4", 10_000), ("kafka-2.8", 30_000)] {
        let t = under(&s, preset);
        let shrink = t.find(0, &json!({"isr": [0]}));
        let at = time(t.at(shrink));
        assert!(at > 1000 + lag && at <= 1000 + lag * 3 / 2, "{preset}: shrank at {at} ms");
        let config = hwscope::Scenario::from_json(&with_preset(&s, preset)).unwrap().config_in_force();
        let row = config.iter().find(|c| c.key == "replica.lag.time.max.ms").unwrap();
        assert_eq!((row.value.as_u64(), row.source.name()), (Some(lag), "preset"), "{preset}");
        assert!(row.note.contains("KIP-537"), "{}", row.note);
    }
}

/// The unclean-election built-in without its explicit setting: before 0.11 the
/// controller elects the out-of-sync follower; from 0.11 the partition waits.
#[test]
fn unclean_election_is_on_by_default_before_0_11() {
    let mut s = builtin("unclean-election");
    s["config"].as_object_mut().unwrap().remove("unclean.leader.election.enable");
    for (preset, leader) in [("kafka-0.10", json!(1)), ("kafka-0.11", Value::Null)] {
        let t = under(&s, preset);
        let fenced = detected(&t, 0, 0);
        assert_eq!(t.at(fenced)["event"]["leader"], leader, "{preset}: {}", line(t.at(fenced)));
        if leader == json!(1) {
            assert_eq!(t.at(fenced)["event"]["clean"], false, "{preset}");
        }
    }
}

// ---------------------------------------------------------------------------
// eligible_leader_replicas: kafka-4.0 | kafka-4.1 (KIP-966).
// ---------------------------------------------------------------------------

#[test]
fn kafka_4_1_elects_from_the_elr_where_4_0_stays_offline() {
    let s = builtin("elr");
    for preset in ["kafka-4.0", "kafka-4.1"] {
        let elr = preset == "kafka-4.1";
        let t = under(&s, preset);
        // The leader, cut off from both followers, shrinks the ISR to itself.
        let shrink = t.find(0, &json!({"type": "alter_partition", "isr": [0], "outcome": "committed"}));
        let p = &t.at(shrink)["partition"];
        assert_eq!(p["isr"], json!([0]), "{preset}");
        assert_eq!(p.get("elr").cloned(), elr.then(|| json!([1, 2])), "{preset}: the record shows the ELR only with ELR on");
        // The leader is fenced.
        let fenced = detected(&t, shrink, 0);
        let (e, p) = (&t.at(fenced)["event"], &t.at(fenced)["partition"]);
        if elr {
            assert!(event_matches(t.at(fenced), &json!({"leader": 1, "clean": true, "elected_from": "elr"})), "{}", line(t.at(fenced)));
            assert_eq!((p["isr"].clone(), p["elr"].clone()), (json!([1]), json!([0, 2])));
        } else {
            assert_eq!(e["leader"], Value::Null, "{}", line(t.at(fenced)));
            assert_eq!(p["isr"], json!([0]), "the last replica stays in the ISR");
        }
        // Writes resume under 4.1 long before broker 0 returns at 22 s; under 4.0 only after.
        let acked_before_return = t
            .all(&json!({"type": "produce_response", "to": "p1"}))
            .into_iter()
            .filter(|&i| time(t.at(i)) > time(t.at(fenced)) && time(t.at(i)) < 22_000 && t.at(i)["event"].get("error").is_none())
            .count();
        assert_eq!(acked_before_return > 0, elr, "{preset}: {acked_before_return} writes acknowledged while broker 0 is down");
        assert!(t.violations().is_empty(), "{preset}: {:?}", t.violations());
    }
}

/// The leader of a single-replica ISR crashes: under 4.1 the ISR empties and the
/// controller remembers it as the last known leader; when it returns it is elected
/// again, uncleanly (`canElectLastKnownLeader`). Under 4.0 it stays the ISR and is
/// elected cleanly.
#[test]
fn kafka_4_1_brings_back_the_last_known_leader() {
    let s = json!({
        "format": 1, "replicas": 1,
        "events": [{"at_ms": 100, "crash": {"broker": 0}}, {"at_ms": 15000, "restart": {"broker": 0}}],
        "stop_at_ms": 16000
    });
    for (preset, isr_offline, from) in [("kafka-4.0", json!([0]), Value::Null), ("kafka-4.1", json!([]), json!("last-known-leader"))] {
        let t = under(&s, preset);
        let fenced = detected(&t, 0, 0);
        assert_eq!(t.at(fenced)["partition"]["isr"], isr_offline, "{preset}");
        if preset == "kafka-4.1" {
            assert_eq!(t.at(fenced)["partition"]["last_known_elr"], json!([0]));
        }
        let back = t.find(fenced, &json!({"type": "leader_election", "leader": 0}));
        assert_eq!(t.at(back)["event"]["leader"], 0, "{preset}: {}", line(t.at(back)));
        assert_eq!(t.at(back)["event"].get("elected_from").cloned().unwrap_or(Value::Null), from, "{preset}");
        assert_eq!(t.at(back)["partition"]["isr"], json!([0]));
    }
}

// ---------------------------------------------------------------------------
// Client defaults: kafka-2.0 | kafka-2.1 (KIP-91), kafka-2.8 | kafka-3.7 (KIP-679),
// kafka-0.11 | kafka-2.0 (KIP-266).
// ---------------------------------------------------------------------------

/// The setting `key` in force under `preset`: (value, source, note).
fn in_force(s: &Value, preset: &str, key: &str) -> (Value, String, String) {
    let config = hwscope::Scenario::from_json(&with_preset(s, preset)).unwrap().config_in_force();
    let row = config.iter().find(|c| c.key == key).unwrap_or_else(|| panic!("{preset}: no row {key}"));
    (serde_json::from_str(&row.value.to_string()).unwrap(), row.source.name().to_string(), row.note.clone())
}

/// A write sent as the leader is killed (its kernel resets the connection:
/// NETWORK_EXCEPTION, retriable). `ProducerConfig` at 2.0.0 defaults `retries` to 0,
/// so `Sender.canRetry` is false and the batch fails at the first error; at 2.1.0
/// (KIP-91) `retries` is `Integer.MAX_VALUE` within `delivery.timeout.ms` (120 s), so
/// the write is retried until the new leader acknowledges it.
#[test]
fn before_2_1_a_write_to_a_killed_leader_fails_at_the_first_error_from_2_1_it_is_retried() {
    let s = json!({
        "format": 1, "replicas": 3, "producers": [{"id": "p1", "acks": "all"}],
        "events": [{"at_ms": 2000, "produce": {"producer": "p1"}}, {"at_ms": 2000, "crash": {"broker": 0}}],
        "stop_at_ms": 40000
    });
    for (preset, acked, failed, retries) in [("kafka-2.0", json!([]), json!(["p1-1"]), 0u64), ("kafka-2.1", json!(["p1-1"]), json!([]), 1)]
    {
        let t = under(&s, preset);
        let p = producer(t.last(), "p1");
        assert_eq!((&p["acked"], &p["failed"]), (&acked, &failed), "{preset}: {}", t.summary());
        assert!(p["retries"].as_u64().unwrap() >= retries, "{preset}: retries {}", p["retries"]);
        let (value, source, note) = in_force(&s, preset, "producers[0].retries");
        assert_eq!(source, "preset", "{preset}");
        assert_eq!(value, json!(if retries == 0 { 0 } else { 2_147_483_647u64 }), "{preset}: {note}");
        assert!(note.contains("KIP-91"), "{note}");
    }
    // The failure says why: retriable, but no retries by default.
    let t = under(&s, "kafka-2.0");
    let gave_up = (0..t.len()).find(|&i| t.at(i)["text"].as_str().unwrap_or("").contains("gives up")).expect("p1 gives up");
    assert!(t.at(gave_up)["text"].as_str().unwrap().contains("retries is 0"), "{}", line(t.at(gave_up)));
    assert_eq!(in_force(&s, "kafka-2.0", "producers[0].delivery.timeout.ms").0, Value::Null);
    assert_eq!(in_force(&s, "kafka-2.1", "producers[0].delivery.timeout.ms").0, json!(120_000));
}

/// A write to a partition with no leader for 58 s (RF 1: its only broker is killed at
/// 1 s and restarts at 60 s). Before 2.1 a batch waiting in the accumulator expires
/// once more than request.timeout.ms (30 s) has passed since it was created
/// (`RecordAccumulator.expiredBatches`, `ProducerBatch.maybeExpire` at 2.0.1; the same
/// in 0.10.2.2's `abortExpiredBatches`): it fails at 32001 ms. From 2.1 (KIP-91) only
/// delivery.timeout.ms (120 s) ends it, and the restarted leader acknowledges it.
#[test]
fn before_2_1_a_write_waiting_for_a_leader_expires_after_request_timeout_from_2_1_it_waits_delivery_timeout() {
    let s = json!({
        "format": 1, "replicas": 1, "producers": [{"id": "p1", "acks": "all"}],
        "events": [{"at_ms": 1000, "crash": {"broker": 0}}, {"at_ms": 2000, "produce": {"producer": "p1"}},
                   {"at_ms": 60000, "restart": {"broker": 0}}],
        "stop_at_ms": 70000
    });
    for (preset, acked, failed) in
        [("kafka-0.10", json!([]), json!(["p1-1"])), ("kafka-2.0", json!([]), json!(["p1-1"])), ("kafka-2.1", json!(["p1-1"]), json!([]))]
    {
        let t = under(&s, preset);
        let p = producer(t.last(), "p1");
        assert_eq!((&p["acked"], &p["failed"]), (&acked, &failed), "{preset}: {}", t.summary());
        if failed != json!([]) {
            let gave_up = (0..t.len()).find(|&i| t.at(i)["text"].as_str().unwrap_or("").contains("gives up")).expect("p1 gives up");
            assert_eq!(time(t.at(gave_up)), 2000 + 30_000 + 1, "{preset}: {}", line(t.at(gave_up)));
            let text = t.at(gave_up)["text"].as_str().unwrap();
            assert!(text.contains("request.timeout.ms") && !text.contains("retries is 0"), "{text}");
        }
    }
    // Once a request that carried it failed, the clock restarts at that attempt plus
    // retry.backoff.ms: a write sent to the leader as it is killed (retries 1) fails with
    // the reset, is retried to no leader, and expires 30 s after its retry backoff ended.
    let mut retried = s.clone();
    retried["producers"][0]["retries"] = json!(1);
    retried["events"] = json!([{"at_ms": 2000, "produce": {"producer": "p1"}}, {"at_ms": 2000, "crash": {"broker": 0}},
                               {"at_ms": 60000, "restart": {"broker": 0}}]);
    let t = under(&retried, "kafka-2.0");
    let reset = t.find(0, &json!({"type": "connection_reset"}));
    let gave_up = (0..t.len()).find(|&i| t.at(i)["text"].as_str().unwrap_or("").contains("gives up")).expect("p1 gives up");
    assert_eq!(time(t.at(gave_up)), time(t.at(reset)) + 100 + 30_000 + 1, "{}", line(t.at(gave_up)));
}

/// An acks=0 producer writes every 500 ms to leader 0, which is cut from ZooKeeper from
/// 1 s to 8 s: its session expires, broker 1 leads epoch 1, and broker 0, registered
/// again after the heal, becomes a follower at about 9.9 s. Its next acks=0 write is
/// refused; the producer expects no answer, so the broker closes the connection
/// (`KafkaApis.handleProduceRequest` at 0.10.2.2, 2.4.1 and 3.7.0, unchanged since), the
/// producer's `NetworkClient` asks for new metadata at the disconnection, and every
/// later write goes to leader 1: one write lost to the refusal, not every write until
/// metadata.max.age.ms (5 min). No produce answer is ever sent to an acks=0 producer.
#[test]
fn an_acks_0_write_refused_by_a_broker_closes_the_connection_and_the_producer_refreshes_its_metadata() {
    let s = json!({
        "format": 1, "replicas": 2, "config": {"zookeeper.session.timeout.ms": 6000},
        "producers": [{"id": "p0", "acks": 0}],
        "events": [{"at_ms": 1000, "partition": {"between": [0, "zookeeper"]}}, {"at_ms": 8000, "heal": {"between": [0, "zookeeper"]}},
                   {"at_ms": 0, "produce": {"producer": "p0"}, "repeat": {"count": 40, "every_ms": 500}}],
        "stop_at_ms": 20000
    });
    for preset in ["kafka-0.10", "kafka-2.4", "kafka-2.8"] {
        let t = under(&s, preset);
        let refused = t.find(0, &json!({"type": "produce_request", "to": 0, "outcome": "error"}));
        let r = t.at(refused);
        let text = r["text"].as_str().unwrap();
        assert!(text.contains("acks=0") && text.contains("closes its connection"), "{preset}: {text}");
        assert!(sent(r).iter().all(|m| m["type"] != "produce_response"), "{preset}: {}", line(r));
        let heard = t.find(refused, &json!({"type": "connection_reset"}));
        assert!(t.at(heard)["text"].as_str().unwrap().contains("wants new metadata"), "{preset}: {}", line(t.at(heard)));
        // Only the refused write is missing from leader 1's log: everything after it reached leader 1.
        let lost = r["event"]["records"][0].as_str().unwrap().to_string();
        let logged = log_ids(t.last(), 1);
        let after: Vec<String> = (0..t.len())
            .filter(|&i| time(t.at(i)) > time(r) && event_matches(t.at(i), &json!({"type": "produce", "producer": "p0"})))
            .map(|i| t.at(i)["event"]["records"][0].as_str().unwrap().to_string())
            .collect();
        assert!(!after.is_empty(), "{preset}");
        assert!(after.iter().all(|id| logged.contains(id)), "{preset}: {after:?} not all in {logged:?}");
        assert!(!logged.contains(&lost), "{preset}: {lost}");
        assert_eq!(t.all(&json!({"type": "produce_request", "outcome": "error"})).len(), 1, "{preset}: one refused write");
        assert!((0..t.len()).all(|i| sent(t.at(i)).iter().all(|m| m["type"] != "produce_response")), "{preset}");
    }
}

/// min.insync.replicas above the replication factor (RF 2, min.insync.replicas 3): up to
/// 3.6 `Partition.appendRecordsToLeader` compares the ISR with the topic's value as set
/// (`inSyncSize < minIsr` at 0.10.2.2, 2.8.2 and 3.6.0), so every acks=all write is refused
/// with NOT_ENOUGH_REPLICAS however healthy the partition; from 3.7 it compares with
/// `effectiveMinIsr`, capped at the replication factor (KAFKA-15583, the same commit as
/// the HW hold), and the write is acknowledged. acks=1 is accepted under both.
#[test]
fn before_3_7_min_insync_replicas_above_the_replication_factor_refuses_every_acks_all_write() {
    let s = json!({
        "format": 1, "replicas": 2, "config": {"min.insync.replicas": 3},
        "producers": [{"id": "p-all", "acks": "all"}, {"id": "p-one", "acks": 1}],
        "events": [{"at_ms": 0, "produce": {"producer": "p-all"}}, {"at_ms": 0, "produce": {"producer": "p-one"}}],
        "stop_at_ms": 1000
    });
    for (preset, refused) in [("kafka-2.1", true), ("kafka-2.8", true), ("kafka-3.7", false), ("kafka-4.0", false)] {
        let t = under(&s, preset);
        let first = t.find(0, &json!({"type": "produce_request", "from": "p-all"}));
        assert_eq!(isr(t.at(first)), vec![0, 1], "{preset}");
        let want = if refused { json!({"outcome": "error", "error": "NOT_ENOUGH_REPLICAS"}) } else { json!({"outcome": "appended"}) };
        assert!(event_matches(t.at(first), &want), "{preset}: {}", line(t.at(first)));
        let p = producer(t.last(), "p-all");
        if refused {
            assert_eq!((&p["acked"], &p["pending"]), (&json!([]), &json!(["p-all-1"])), "{preset}: retried, never written");
        } else {
            assert_eq!(p["acked"], json!(["p-all-1"]), "{preset}");
        }
        assert_eq!(producer(t.last(), "p-one")["acked"], json!(["p-one-1"]), "{preset}");
    }
}

/// KIP-320's consumer side is 2.3 (KAFKA-7747, KAFKA-8365; 2.1.0's and 2.2.0's `Fetcher`
/// send no leader epoch and never validate). Consumer c1 has read p1-1..p1-3 (offsets
/// 100-102) from leader 0, which follower 1 never got; c1 is cut from broker 1, leader 0
/// is killed, broker 1 is elected uncleanly and takes p1-4..p1-8 at 100-104. When c1
/// learns the new leader: under 2.1 it fetches on at 103 and silently skips p1-4..p1-6;
/// under 2.4 it validates its position, detects the truncation and reads from 100.
#[test]
fn from_2_3_a_consumer_validates_its_position_after_a_leader_change_before_it_reads_on() {
    let s = json!({
        "format": 1, "replicas": 2, "initial": {"log_end_offset": 100},
        "config": {"unclean.leader.election.enable": true, "replica.lag.time.max.ms": 2000},
        "producers": [{"id": "p1", "acks": 1}], "consumers": [{"id": "c1"}],
        "events": [{"at_ms": 100, "partition": {"between": [0, 1]}}, {"at_ms": 1000, "produce": {"producer": "p1", "records": 3}},
                   {"at_ms": 3000, "partition": {"between": ["c1", 1]}}, {"at_ms": 6000, "crash": {"broker": 0}},
                   {"at_ms": 12500, "produce": {"producer": "p1", "records": 5}}, {"at_ms": 14000, "heal": {"between": ["c1", 1]}}],
        "stop_at_ms": 25000
    });
    for (preset, first, records) in
        [("kafka-2.1", 103, json!(["p1-7", "p1-8"])), ("kafka-2.4", 100, json!(["p1-4", "p1-5", "p1-6", "p1-7", "p1-8"]))]
    {
        let t = under(&s, preset);
        let read = t.find(0, &json!({"type": "consumer_fetch_request", "from": "c1", "to": 1, "outcome": "answered"}));
        assert_eq!(t.at(read)["event"]["offset"], first, "{preset}: {}", line(t.at(read)));
        let got = t.find(read, &json!({"type": "consumer_fetch_response", "to": "c1"}));
        assert_eq!(t.at(got)["event"]["records"], records, "{preset}: {}", line(t.at(got)));
        let validated = t.all(&json!({"type": "offsets_for_leader_epoch_response", "to": "c1"})).len();
        assert_eq!(validated > 0, preset == "kafka-2.4", "{preset}");
    }
}

/// A broker setting left out of the scenario shows the value the run uses, not null:
/// `request.timeout.ms` 30000 and `replica.high.watermark.checkpoint.interval.ms` 5000
/// (`KafkaConfig` defaults, the same at 0.10.2.2 and 4.0.0).
#[test]
fn an_unset_broker_setting_shows_the_default_the_run_uses() {
    let s = json!({"format": 1, "replicas": 2, "events": [], "stop_at_ms": 100});
    for preset in ["kafka-0.10", "kafka-2.8", "kafka-4.0"] {
        assert_eq!(in_force(&s, preset, "request.timeout.ms").0, json!(30_000), "{preset}");
        assert_eq!(in_force(&s, preset, "replica.high.watermark.checkpoint.interval.ms").0, json!(5_000), "{preset}");
    }
}

/// A producer that names no `acks`: "1" up to 2.8, "all" from 3.0 (`ProducerConfig`
/// `ACKS_CONFIG` at 2.8.0 and 3.0.0, KIP-679), with idempotence on by default from 3.0.
#[test]
fn acks_defaults_to_1_before_3_0_and_to_all_from_3_0() {
    let s = json!({"format": 1, "replicas": 2, "producers": [{"id": "p1"}], "events": [{"at_ms": 0, "produce": {"producer": "p1"}}], "stop_at_ms": 100});
    for (preset, acks, idempotent) in [("kafka-2.8", json!(1), false), ("kafka-3.7", json!("all"), true)] {
        let t = under(&s, preset);
        assert_eq!(producer(t.at(1), "p1")["acks"], acks, "{preset}: {}", line(t.at(1)));
        assert_eq!(producer(t.at(1), "p1")["idempotent"], json!(idempotent), "{preset}");
        let (value, source, note) = in_force(&s, preset, "producers[0].acks");
        assert_eq!((value, source.as_str()), (acks, "preset"), "{preset}");
        assert!(note.contains("KIP-679"), "{note}");
    }
}

/// The consumer's request.timeout.ms: 305 s up to 1.1 (above max.poll.interval.ms,
/// KIP-62), 30 s from 2.0 (KIP-266; `ConsumerConfig` at 0.11.0.3 and 2.0.0).
#[test]
fn the_consumer_request_timeout_is_305_s_before_2_0() {
    let s = json!({"format": 1, "consumers": [{"id": "c1"}]});
    for (preset, ms) in [("kafka-0.11", 305_000), ("kafka-2.0", 30_000)] {
        let (value, source, note) = in_force(&s, preset, "consumers[0].request.timeout.ms");
        assert_eq!((value, source.as_str()), (json!(ms), "preset"), "{preset}");
        assert!(note.contains("KIP-266"), "{note}");
    }
}

/// A write sent after the leader was killed: the new connection is refused, so the
/// request is never sent (`NetworkClient` drains batches only to a ready node) and
/// does not use up `retries`. Under kafka-2.0, with retries = 0, the write waits
/// for the new leader and is acknowledged by it, as under kafka-2.1.
#[test]
fn a_refused_connection_does_not_use_up_retries() {
    let s = json!({
        "format": 1, "replicas": 3, "producers": [{"id": "p1", "acks": "all"}],
        "events": [{"at_ms": 2000, "crash": {"broker": 0}}, {"at_ms": 3000, "produce": {"producer": "p1"}}],
        "stop_at_ms": 40000
    });
    for preset in ["kafka-2.0", "kafka-2.1"] {
        let t = under(&s, preset);
        let p = producer(t.last(), "p1");
        assert_eq!((&p["acked"], &p["failed"]), (&json!(["p1-1"]), &json!([])), "{preset}: {}", t.summary());
        let refused = (0..t.len()).find(|&i| t.at(i)["text"].as_str().unwrap_or("").contains("refuses")).expect("a refused connection");
        assert!(t.at(refused)["text"].as_str().unwrap().contains("never sent"), "{}", line(t.at(refused)));
    }
}

// ---------------------------------------------------------------------------
// A late AlterPartition answer (2.7+ for the state check, 2.8+ for the partition
// epoch, 3.3+ for makeLeader's skip): no preset before 2.8 sends AlterPartition, so
// both sides of these rules are kafka-2.8 and later; the check is that the leader's
// partition epoch never goes back within one leadership, and that the answers
// Kafka ignores are ignored.
// ---------------------------------------------------------------------------

/// ISR churn (follower 2 cut from the leader every 1.5 s, a short lag time) with
/// 40 ms of jitter, so that answers and metadata from the controller overtake each other.
fn jittery_isr_churn(seed: u64, preset: &str) -> String {
    format!(
        r#"{{"format":1,"title":"ISR churn with jitter","preset":"{preset}","replicas":3,"seed":{seed},"initial":{{"log_end_offset":100}},
        "network":{{"latency_ms":5,"jitter_ms":40}},"config":{{"replica.lag.time.max.ms":300}},
        "producers":[{{"id":"p1","acks":"all"}}],
        "events":[{{"at_ms":0,"produce":{{"producer":"p1","records":1}},"repeat":{{"count":200,"every_ms":37}}}},
          {{"at_ms":500,"partition":{{"between":[0,2]}},"repeat":{{"count":5,"every_ms":1500}}}},
          {{"at_ms":1100,"heal":{{"between":[0,2]}},"repeat":{{"count":5,"every_ms":1500}}}}],
        "stop_at_ms":8000}}"#
    )
}

/// Runs a scenario and returns (how many late answers were ignored, how many older
/// metadata the leader skipped), asserting that the leader's partition epoch never
/// goes back while it leads in one epoch.
fn late_answers(json: &str) -> (usize, usize) {
    use hwscope::sim::{Event, Sim};
    let mut sim = Sim::new(scenario(json));
    let (mut stale, mut skipped) = (0, 0);
    let mut held: Option<(u32, i32, u32)> = None;
    while sim.step() {
        for e in sim.last.events() {
            match e {
                Event::AlterPartitionAnswerStale { .. } => stale += 1,
                Event::LeaderStateNewer { .. } => skipped += 1,
                _ => {}
            }
        }
        let Some(l) = sim.controller.leader else { continue };
        let b = sim.broker(l);
        let Some(ls) = b.lead.as_ref() else { continue };
        if let Some((hl, he, hp)) = held {
            assert!(
                !(hl == l && he == b.leader_epoch && ls.partition_epoch < hp),
                "step {}: partition epoch {hp} → {}",
                sim.step,
                ls.partition_epoch
            );
        }
        held = Some((l, b.leader_epoch, ls.partition_epoch));
    }
    (stale, skipped)
}

/// `Partition.submitAlterPartition`'s callback (2.7–4.1): an answer that arrives after
/// metadata replaced the proposal (`partitionState != proposedIsrState`) is ignored,
/// and the answer's ISR is not applied (seed 16: the answer commits {0, 1, 2} after
/// the metadata fetch brought a newer partition state).
#[test]
fn a_late_alter_partition_answer_is_ignored_once_the_proposal_is_replaced() {
    for preset in ["kafka-3.7", "kafka-4.0", "kafka-4.1"] {
        let (stale, _) = late_answers(&jittery_isr_churn(16, preset));
        assert!(stale > 0, "{preset}: no late answer in the jittery run");
    }
    let t = Trace::of(&jittery_isr_churn(16, "kafka-4.0"));
    let at = t.find(0, &json!({"type": "isr_change", "from": "controller", "to": 0, "outcome": "ignored"}));
    assert_eq!(t.at(at)["event"]["isr"], json!([0, 1, 2]), "{}", line(t.at(at)));
    assert_eq!(follower_view(t.at(at), 0, 2)["in_isr"], false, "the leader keeps its ISR: {}", line(t.at(at)));
}

/// `Partition.makeLeader` (3.3+): metadata older than the partition epoch an
/// AlterPartition answer gave the leader is skipped, so its ISR never goes back.
#[test]
fn a_leader_skips_metadata_older_than_its_partition_epoch() {
    // Metadata comes by the broker's fetch (one hop after the commit), so an older
    // state arrives after a newer AlterPartition answer only with a wide jitter.
    let json = jittery_isr_churn(57, "kafka-4.0").replace("\"jitter_ms\":40", "\"jitter_ms\":80");
    let (_, skipped) = late_answers(&json);
    assert!(skipped > 0, "no older metadata met in the jittery run");
}

// ---------------------------------------------------------------------------
// fenced_broker_keeps_session, registration_cleans_unclean_shutdown:
// kafka-3.7, kafka-3.8 | kafka-4.0 (KAFKA-17793; BrokerUncleanShutdownHandler at
// metadata version 3.9-IV0+).
// ---------------------------------------------------------------------------

/// Leader 0 is killed at 1 s and started again at 1.5 s; its session ends at 7000 ms
/// and the stale-broker checks run at 1124 + k·1125 ms, so its try at 7507 ms comes
/// after the session but before a check fenced it.
fn leader_registers_after_its_session() -> String {
    r#"{"format":1,"title":"t","preset":"kafka-4.0","replicas":3,"initial":{"log_end_offset":100},
     "phases":{"heartbeat_ms":[0,0,0],"fence_check_ms":1124},
     "producers":[{"id":"p1","acks":"all"}],
     "events":[{"at_ms":1000,"crash":{"broker":0}},{"at_ms":1500,"restart":{"broker":0}},
       {"at_ms":12000,"produce":{"producer":"p1","records":1}}],
     "stop_at_ms":16000}"#
        .into()
}

/// `ClusterControlManager.registerBroker`: from 4.0 the registration runs the unclean
/// shutdown handler (broker 1 elected at the registration, broker 0 out of the ISR);
/// in 3.7 (no handler) and 3.8 (it returns early below ELR's metadata version) broker
/// 0's new incarnation keeps the leadership and the ISR, and leads again once caught up.
#[test]
fn kafka_3_8_re_registration_keeps_the_isr_and_the_leader_and_4_0_cleans_up() {
    let v: Value = serde_json::from_str(&leader_registers_after_its_session()).unwrap();
    let t = under(&v, "kafka-4.0");
    let reg = t.find(0, &json!({"from": 0, "to": "controller", "outcome": "registered"}));
    assert!(event_matches(t.at(reg), &json!({"type": "leader_election", "leader": 1})), "{}", line(t.at(reg)));
    assert_eq!(t.at(reg)["partition"]["isr"], json!([1, 2]), "{}", line(t.at(reg)));
    for preset in ["kafka-3.7", "kafka-3.8"] {
        let t = under(&v, preset);
        let reg = t.find(0, &json!({"type": "broker_registration", "from": 0, "outcome": "registered"}));
        assert!(time(t.at(reg)) < 9000, "{preset}: after the session, before a check fenced it: {}", line(t.at(reg)));
        assert_eq!(t.at(reg)["partition"]["leader"], 0, "{preset}: {}", line(t.at(reg)));
        assert_eq!(t.at(reg)["partition"]["isr"], json!([0, 1, 2]), "{preset}: {}", line(t.at(reg)));
        assert!(t.try_find(0, &json!({"type": "leader_election"})).is_none(), "{preset}: nobody is elected");
        let ack = t.find(reg, &json!({"type": "produce_response", "from": 0, "to": "p1"}));
        assert!(t.at(ack)["event"]["error"].is_null(), "{preset}: leader 0 acknowledges: {}", line(t.at(ack)));
    }
}

/// Follower 2 is fenced (killed at 1 s), started again at 12 s and registered fenced,
/// killed again before the answer reaches it (the controller's link to it takes 50 ms)
/// and started again at 12.5 s.
fn fenced_broker_restarts_again() -> String {
    r#"{"format":1,"title":"t","preset":"kafka-4.0","replicas":3,"initial":{"log_end_offset":100},
     "network":{"links":[{"from":"controller","to":2,"latency_ms":50}]},
     "events":[{"at_ms":1000,"crash":{"broker":2}},{"at_ms":12000,"restart":{"broker":2}},
       {"at_ms":12020,"crash":{"broker":2}},{"at_ms":12500,"restart":{"broker":2}}],
     "stop_at_ms":16000}"#
        .into()
}

/// `BrokerHeartbeatManager.hasValidSession` (3.7–3.9: false for a fenced broker) against
/// 4.0's `BrokerHeartbeatTracker` (KAFKA-17793: the fenced incarnation's session counts).
#[test]
fn kafka_3_8_accepts_a_fenced_brokers_new_incarnation_at_once_and_4_0_refuses_it() {
    let v: Value = serde_json::from_str(&fenced_broker_restarts_again()).unwrap();
    for (preset, outcome) in [("kafka-3.7", "registered"), ("kafka-3.8", "registered"), ("kafka-4.0", "refused")] {
        let t = under(&v, preset);
        let second = t.find(0, &json!({"type": "broker_registration", "from": 2}));
        assert!(time(t.at(second)) < 12500, "{preset}: the first registration");
        let again = t.find(0, &json!({"type": "restart", "broker": 2}));
        let again = t.find(again + 1, &json!({"type": "restart", "broker": 2}));
        let reg = t.find(again, &json!({"type": "broker_registration", "from": 2}));
        assert!(event_matches(t.at(reg), &json!({ "outcome": outcome })), "{preset}: {}", line(t.at(reg)));
    }
}

// ---------------------------------------------------------------------------
// preferred_read_replica_in_isr: kafka-2.8 | kafka-3.7 and later (KAFKA-14372, 3.3.2/3.4.0).
// ---------------------------------------------------------------------------

/// The first step from `from` on where the leader answers c-follower's fetch.
fn leader_answers_c_follower(t: &Trace, from: usize) -> usize {
    (from..t.len())
        .find(|&i| {
            let r = t.at(i);
            r["event"]["type"] == "consumer_fetch_response"
                && r["event"]["to"] == "c-follower"
                && r["event"]["from"] == r["partition"]["leader"]
        })
        .unwrap_or_else(|| panic!("no answer of the leader to c-follower from step {from}\n{}", t.summary()))
}

#[test]
fn a_consumer_leaves_a_follower_out_of_the_isr_at_its_refresh_from_3_3_2_and_is_sent_back_before() {
    let s = builtin("lagging-read-replica");
    for (preset, fixed) in [("kafka-2.4", false), ("kafka-2.8", false), ("kafka-3.7", true), ("kafka-4.0", true)] {
        let t = under(&s, preset);
        // Follower 1 leaves the ISR; c-follower still reads from it, up to its stale HW.
        let shrink =
            (0..t.len()).find(|&i| !isr(t.at(i)).contains(&1)).unwrap_or_else(|| panic!("{preset}: follower 1 never leaves the ISR"));
        let stale = hw(t.at(shrink), 1);
        assert_eq!(consumer(t.at(shrink), "c-follower")["preferred_read_replica"], 1, "{preset}: {}", line(t.at(shrink)));
        // At its metadata refresh (metadata.max.age.ms after the leader named follower 1) it asks the leader.
        let back = leader_answers_c_follower(&t, shrink);
        assert!(time(t.at(back)) >= 15_000, "{preset}: {}", line(t.at(back)));
        let e = &t.at(back)["event"];
        if fixed {
            assert!(e["preferred_read_replica"].is_null(), "{preset}: only ISR members are named: {}", line(t.at(back)));
            assert!(e["records"].as_array().unwrap().len() > 10, "{preset}: the leader serves the records it missed: {}", line(t.at(back)));
        } else {
            assert_eq!(e["preferred_read_replica"], 1, "{preset}: follower 1 is named again: {}", line(t.at(back)));
            // The leader's answer is narrated where it is made: where the fetch arrives, or
            // (before 3.2, KAFKA-13767) where it has waited fetch.max.wait.ms.
            let told = (shrink..back)
                .rev()
                .find(|&i| t.at(i)["text"].as_str().unwrap().contains("tells c-follower to read from broker 1"))
                .unwrap();
            assert!(t.at(told)["text"].as_str().unwrap().contains("out of the ISR"), "{}", t.at(told)["text"]);
        }
        // Before the heal (26 s) c-follower has caught up only where the leader named ISR members alone.
        let before_heal = (0..t.len()).rev().find(|&i| time(t.at(i)) < 26_000).unwrap();
        let position = consumer(t.at(before_heal), "c-follower")["position"].as_u64().unwrap();
        if fixed {
            assert!(position > 20, "{preset}: c-follower reads from the leader at {position}");
        } else {
            assert_eq!(position, stale, "{preset}: c-follower stays at follower 1's stale HW");
        }
        // After the heal follower 1 rejoins and c-follower reads everything, under every preset.
        let last = t.last();
        assert_eq!(consumer(last, "c-follower")["position"], consumer(last, "c-leader")["position"], "{preset}: {}", line(last));
    }
}

/// ZooKeeper-era narration of a broker that comes back (`KafkaController.onBrokerStartup`
/// at 0.10.2.2 and 2.8.0): a broker whose session expired was taken out of the ISR by
/// `onBrokerFailure`, so it does not "keep its place"; and ZooKeeper has no fencing, so
/// an election on its return names its /brokers/ids node, not an unfencing.
#[test]
fn a_zookeeper_broker_back_after_its_session_expired_is_out_of_the_isr_and_not_unfenced() {
    // Under 0.10 (a 6 s session) broker 0's session expires before it restarts at 12 s.
    let t = under(&builtin("kip101-data-loss"), "kafka-0.10");
    let texts: Vec<String> = (0..t.len()).map(|i| t.at(i)["text"].as_str().unwrap_or("").to_string()).collect();
    let back = texts.iter().find(|x| x.contains("broker 0 (incarnation 1) is back")).expect("broker 0 is back");
    assert!(back.contains("It is not in the ISR {1}") && !back.contains("keeps its place"), "{back}");
    for preset in ["kafka-0.10", "kafka-2.8"] {
        let t = under(&builtin("kip101-divergence"), preset);
        for i in 0..t.len() {
            let x = t.at(i)["text"].as_str().unwrap_or("");
            assert!(!x.contains("unfenced"), "{preset}: {}", line(t.at(i)));
        }
    }
    let t = under(&builtin("kip101-divergence"), "kafka-0.10");
    assert!((0..t.len()).any(|i| t.at(i)["text"].as_str().unwrap_or("").contains("broker 1 came back (its /brokers/ids node)")));
}

// ---------------------------------------------------------------------------
// A restarted KRaft broker acts on its metadata image before it is registered
// (`acts_on_image_before_registration`, every KRaft preset: `BrokerServer.startup`
// installs the metadata publishers before it waits for the controller, 3.5.0–4.1.0).
// ---------------------------------------------------------------------------

/// bounce-inside-session: follower 2 is killed at 1 s and started again at 1.5 s, inside
/// its old session, so the controller refuses its registration until about 10 s. Kafka's
/// new process fetches the metadata log as an observer, publishes its image (leader 0,
/// epoch 0, ISR {0, 1, 2}) at the first answer, becomes a follower and fetches from
/// leader 0 with broker epoch -1 while still STARTING; its fetches move the HW, so the
/// acks=all write p1-2 (sent at 1 s, waiting for broker 2 in the ISR) is acknowledged
/// about 0.5 s after the restart, broker 2 still in the ISR — not when the leader's lag
/// check drops broker 2 (replica.lag.time.max.ms 4 s), as before.
#[test]
fn a_restarted_kraft_broker_follows_its_image_before_it_is_registered() {
    let s = builtin("bounce-inside-session");
    for preset in ["kafka-3.7", "kafka-3.8", "kafka-4.0", "kafka-4.1"] {
        let t = under(&s, preset);
        let restart = t.find(0, &json!({"type": "restart", "broker": 2}));
        let fetch = t.find(restart, &json!({"type": "fetch_request", "from": 2, "to": 0}));
        assert_eq!(replica(t.at(fetch), 2)["state"], "starting", "{preset}: fetching before it is registered: {}", line(t.at(fetch)));
        let refused = t.find(restart, &json!({"type": "broker_registration_response", "to": 2}));
        assert!(refused < fetch, "{preset}: the controller refused it first");
        let ack = (restart..t.len())
            .find(|&i| {
                event_matches(t.at(i), &json!({"type": "produce_response", "to": "p1"}))
                    && t.at(i)["event"]["records"].as_array().is_some_and(|r| r.contains(&json!("p1-2")))
            })
            .unwrap_or_else(|| panic!("{preset}: p1-2 acknowledged"));
        assert!(time(t.at(ack)) < 2500, "{preset}: p1-2 acknowledged at {}", line(t.at(ack)));
        assert_eq!(isr(t.at(ack)), vec![0, 1, 2], "{preset}: broker 2 still in the ISR");
        assert_eq!(replica(t.at(ack), 2)["state"], "starting", "{preset}");
    }
}

// ---------------------------------------------------------------------------
// A restart inside the ZooKeeper session: every ZooKeeper-era preset refuses it
// (NodeExists, the process exits); KRaft (3.7) retries until the old session is fenced.
// ---------------------------------------------------------------------------

/// Follower 2 killed at 1 s and started again at 1.5 s, well inside its ZooKeeper
/// session (6 s to 2.4, 18 s at 2.8). The new process's create of /brokers/ids/2 meets
/// the old session's node: ZooKeeper answers NodeExists, the controller's watch does not
/// fire, and the broker's startup fails and it exits (`ZKCheckedEphemeral` /
/// `ZkUtils.registerBrokerInZk` to 1.0, `KafkaZkClient.CheckedEphemeral` from 1.1; KAFKA-7165
/// at 2.2 re-creates only a node of the same process's earlier session). The controller
/// learns of the death only at the old session's expiry, and broker 2 stays down until
/// it is started again after that (at 20 s), when it registers and rejoins. The broker
/// log words the failure per version. Under 3.7 (KRaft) the same restart is refused by the
/// controller and retried until it registers.
#[test]
fn a_zookeeper_broker_restarted_inside_its_session_fails_to_start_and_kraft_retries() {
    let s = json!({
        "format": 1, "replicas": 3,
        "events": [
            {"at_ms": 1000, "crash": {"broker": 2}},
            {"at_ms": 1500, "restart": {"broker": 2}},
            {"at_ms": 20000, "restart": {"broker": 2}}
        ],
        "stop_at_ms": 30000
    });
    for (preset, session) in [("kafka-0.10", 6_000), ("kafka-2.0", 6_000), ("kafka-2.4", 6_000), ("kafka-2.8", 18_000)] {
        let t = under(&s, preset);
        let restart = t.find(0, &json!({"type": "restart", "broker": 2}));
        let exists = t.find(restart, &json!({"type": "zookeeper_node_exists", "to": 2, "outcome": "startup-failed"}));
        let r = t.at(exists);
        assert_eq!(replica(r, 2)["alive"], false, "{preset}: the process exits: {}", line(r));
        assert!(r["text"].as_str().unwrap().contains("NodeExists"), "{preset}: {}", r["text"]);
        // The controller never saw the new process: the next thing it hears is the expiry.
        let gone = detected(&t, restart, 2);
        assert!((restart..gone).all(|i| t.at(i)["event"]["outcome"] != "broker-startup"), "{preset}");
        let crash = time(t.at(t.find(0, &json!({"type": "crash", "broker": 2}))));
        let after = time(t.at(gone)) - crash;
        assert!((session * 2 / 3..=session).contains(&after), "{preset}: declared dead {after} ms after the crash");
        let again = t.find(gone, &json!({"type": "restart", "broker": 2}));
        assert_eq!(time(t.at(again)), 20_000, "{preset}: down until started again");
        assert_eq!(isr(t.at(again)), vec![0, 1], "{preset}");
        let back = t.find(again, &json!({"outcome": "broker-startup"}));
        assert!(time(t.at(back)) - 20_000 < 100, "{preset}: registers at once after the expiry");
        assert_eq!(isr(t.last()), vec![0, 1, 2], "{preset}: rejoined");
        // The broker log, per version.
        let log: Vec<String> = r["kafka_log"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect();
        let has = |x: &str| log.iter().any(|l| l.starts_with("broker 2 | ") && l.contains(x));
        assert!(has("Fatal error during KafkaServer startup. Prepare to shutdown"), "{preset}: {log:?}");
        match preset {
            "kafka-0.10" => assert!(has("[Kafka Server 2], ") && has("restarted it faster than the zookeeper timeout"), "{log:?}"),
            "kafka-2.0" => {
                assert!(has("does not match current session") && has("Result of znode creation at /brokers/ids/2 is: NODEEXISTS"))
            }
            _ => assert!(has("does not match current session") && !has("Result of znode creation"), "{preset}: {log:?}"),
        }
    }
    let t = under(&s, "kafka-3.7");
    let restart = t.find(0, &json!({"type": "restart", "broker": 2}));
    t.find(restart, &json!({"type": "broker_registration_response", "to": 2, "outcome": "refused"}));
    t.find(restart, &json!({"type": "broker_registration", "from": 2, "outcome": "registered"}));
    assert_eq!(replica(t.last(), 2)["alive"], true);
    assert!(t.try_find(0, &json!({"type": "zookeeper_node_exists"})).is_none());
}

// ---------------------------------------------------------------------------
// controller_detects_bounced_brokers: kafka-2.1 | kafka-2.4 (KIP-380, 2.2).
// ---------------------------------------------------------------------------

/// Follower 2 is killed at 1 s while ZooKeeper's notifications to the controller are
/// held (a cut from ZooKeeper to the controller, 0.5 s to 9 s). Its session expires
/// (6 s, 2.8's 18 s set to 6 s here), it is started again at 8 s and creates /brokers/ids/2 anew; the controller's
/// watch notifications arrive after the heal, and it reads /brokers/ids then: broker 2
/// is there, as it was before. `KafkaController.processBrokerChange` from 2.2 (KIP-380)
/// compares the node's czxid with the broker epoch it holds, sees the bounce, runs
/// `onBrokerFailure` (out of the ISR, a new leader epoch) then `onBrokerStartup`
/// (LeaderAndIsr to broker 2), and broker 2 follows and rejoins the ISR. Up to 2.1
/// (`BrokerChange.process`; `BrokerChangeListener` in 0.10.2) the ids are the same and
/// the bounce is missed: broker 2 never gets a LeaderAndIsr and never fetches, the
/// controller keeps it live and in the ISR until the leader drops it for lag.
#[test]
fn before_2_2_the_zookeeper_controller_misses_a_fast_bounce_and_from_2_2_it_fails_and_starts_it() {
    let s = json!({
        "format": 1, "replicas": 3,
        "config": {"zookeeper.session.timeout.ms": 6000},
        "producers": [{"id": "p1", "acks": "all"}],
        "events": [
            {"at_ms": 500, "partition": {"from": "zookeeper", "to": "controller"}},
            {"at_ms": 1000, "crash": {"broker": 2}},
            {"at_ms": 8000, "restart": {"broker": 2}},
            {"at_ms": 9000, "heal": {"from": "zookeeper", "to": "controller"}},
            {"at_ms": 10000, "produce": {"producer": "p1", "records": 1}}
        ],
        "stop_at_ms": 30000
    });
    for preset in ["kafka-0.10", "kafka-2.0", "kafka-2.1"] {
        let t = under(&s, preset);
        let restart = t.find(0, &json!({"type": "restart", "broker": 2}));
        let watch = t.find(restart, &json!({"type": "zookeeper_watch", "outcome": "bounce-missed", "incarnation": 1}));
        let r = t.at(watch);
        assert!(time(r) > 9000, "{preset}: after the heal: {}", line(r));
        assert!(r["text"].as_str().unwrap().contains("misses the restart"), "{preset}: {}", r["text"]);
        assert_eq!(isr(r), vec![0, 1, 2], "{preset}: the controller keeps it in the ISR");
        let log: Vec<&str> = r["kafka_log"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        assert!(log.iter().any(|l| l.contains("Newly added brokers: , deleted brokers: , all live brokers: 0,1,2,3")), "{preset}: {log:?}");
        assert!(t.try_find(restart, &json!({"type": "leader_and_isr", "to": 2})).is_none(), "{preset}: no LeaderAndIsr for broker 2");
        assert!(t.try_find(restart, &json!({"type": "fetch_request", "from": 2})).is_none(), "{preset}: broker 2 never fetches");
        assert!(t.try_find(0, &json!({"outcome": "broker-failure", "broker": 2})).is_none(), "{preset}");
        assert_eq!(isr(t.last()), vec![0, 1], "{preset}: the leader dropped it for lag");
        assert_eq!(leo(t.last(), 2), 0, "{preset}: its log stays as it was");
    }
    for preset in ["kafka-2.4", "kafka-2.8"] {
        let t = under(&s, preset);
        let restart = t.find(0, &json!({"type": "restart", "broker": 2}));
        let watch = t.find(restart, &json!({"type": "zookeeper_watch", "outcome": "broker-startup", "incarnation": 1}));
        let r = t.at(watch);
        assert!(time(r) > 9000, "{preset}: {}", line(r));
        assert!(r["text"].as_str().unwrap().contains("bounced (KIP-380"), "{preset}: {}", r["text"]);
        assert_eq!(isr(r), vec![0, 1], "{preset}: onBrokerFailure took it out of the ISR");
        assert_eq!(r["partition"]["leader_epoch"], 1, "{preset}: with a new leader epoch");
        let log: Vec<&str> = r["kafka_log"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        assert_eq!(log, vec!["broker 3 (controller) | [Controller id=3] Newly added brokers: , deleted brokers: , bounced brokers: 2, all live brokers: 0,1,2,3"], "{preset}");
        t.find(watch, &json!({"type": "leader_and_isr", "to": 2, "outcome": "become-follower"}));
        assert_eq!(isr(t.last()), vec![0, 1, 2], "{preset}: rejoined");
        assert_eq!(leo(t.last(), 2), 1, "{preset}: and has p1-1");
    }
}

// ---------------------------------------------------------------------------
// What a broker that does not lead answers, per version: UNKNOWN_TOPIC_OR_PARTITION
// from a ZooKeeper-era process with no partition state; code 6's name.
// ---------------------------------------------------------------------------

/// Leader 0 killed at 1 s and started again at 8 s behind a cut from ZooKeeper to the
/// controller (0.5 s to 9 s); p1 writes at 10 s.
fn bounce_of_the_leader_behind_a_zookeeper_cut() -> Value {
    json!({
        "format": 1, "replicas": 3,
        "config": {"zookeeper.session.timeout.ms": 6000},
        "producers": [{"id": "p1", "acks": "all"}],
        "events": [
            {"at_ms": 500, "partition": {"from": "zookeeper", "to": "controller"}},
            {"at_ms": 1000, "crash": {"broker": 0}},
            {"at_ms": 8000, "restart": {"broker": 0}},
            {"at_ms": 9000, "heal": {"from": "zookeeper", "to": "controller"}},
            {"at_ms": 10000, "produce": {"producer": "p1", "records": 1}}
        ],
        "stop_at_ms": 20000
    })
}

/// `bounce_of_the_leader_behind_a_zookeeper_cut`. The new process has had no LeaderAndIsr:
/// no `Partition` and an empty metadata cache, so `ReplicaManager.getPartitionOrException`
/// (2.1–2.8; `getLeaderReplicaIfLocal` at 0.10.2) answers the followers' Fetches with
/// UNKNOWN_TOPIC_OR_PARTITION under every ZooKeeper-era preset. Before 2.2 the
/// controller misses the bounce (KIP-380) and p1's write at 10 s gets it too; from 2.2
/// the controller has moved leadership to broker 1 and sent broker 0 its LeaderAndIsr,
/// so broker 0 refuses the write with error code 6, named NOT_LEADER_FOR_PARTITION up to
/// 2.5 and NOT_LEADER_OR_FOLLOWER from 2.6 (KAFKA-10223, `Errors`).
#[test]
fn a_zookeeper_era_broker_with_no_partition_state_answers_unknown_topic_or_partition() {
    let s = bounce_of_the_leader_behind_a_zookeeper_cut();
    for (preset, write_error) in [
        ("kafka-0.10", "UNKNOWN_TOPIC_OR_PARTITION"),
        ("kafka-2.1", "UNKNOWN_TOPIC_OR_PARTITION"),
        ("kafka-2.4", "NOT_LEADER_FOR_PARTITION"),
        ("kafka-2.8", "NOT_LEADER_OR_FOLLOWER"),
    ] {
        let t = under(&s, preset);
        let restart = t.find(0, &json!({"type": "restart", "broker": 0}));
        let refused = t.find(restart, &json!({"type": "fetch_request", "to": 0, "error": "UNKNOWN_TOPIC_OR_PARTITION"}));
        let text = t.at(refused)["text"].as_str().unwrap();
        assert!(text.contains("no LeaderAndIsr since it started"), "{preset}: {text}");
        t.find(refused, &json!({"type": "fetch_response", "from": 0, "error": "UNKNOWN_TOPIC_OR_PARTITION"}));
        let write = t.find(restart, &json!({"type": "produce_request", "to": 0, "from": "p1"}));
        assert_eq!(t.at(write)["event"]["error"], write_error, "{preset}: {}", line(t.at(write)));
        let text = t.at(write)["text"].as_str().unwrap();
        assert!(text.contains(write_error), "{preset}: {text}");
        for other in ["UNKNOWN_TOPIC_OR_PARTITION", "NOT_LEADER_FOR_PARTITION", "NOT_LEADER_OR_FOLLOWER"] {
            if other != write_error {
                assert!(!text.contains(other), "{preset}: {text}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// produce_response_names_leader: kafka-2.8 | kafka-3.7 (KIP-951).
// ---------------------------------------------------------------------------

/// From 3.7 (KIP-951, Produce v10) a write refused with NOT_LEADER_OR_FOLLOWER names
/// the leader the broker knows of (`KafkaApis.handleProduceRequest` → `getCurrentLeader`)
/// and the producer takes it at once (`Sender.completeBatch`); before, the answer names
/// none and the producer waits for its metadata. Under 2.4 and 2.8, broker 0 (bounced
/// behind a cut, then told that broker 1 leads) refuses p1's write and names nobody;
/// under 3.7 and 4.0 the zombie leader, stepping down, names broker 1 to the write waiting
/// on it (`DelayedProduce` answered by the same callback).
#[test]
fn from_3_7_a_refused_write_names_the_leader() {
    let s = bounce_of_the_leader_behind_a_zookeeper_cut();
    for preset in ["kafka-2.4", "kafka-2.8"] {
        let t = under(&s, preset);
        let write = t.find(0, &json!({"type": "produce_request", "to": 0, "from": "p1"}));
        let r = t.at(write);
        assert_eq!(r["partition"]["leader"], 1, "{preset}: {}", line(r));
        assert!(!r["text"].as_str().unwrap().contains("KIP-951"), "{preset}: {}", r["text"]);
        let answer = r["in_flight"].as_array().unwrap().iter().find(|m| m["type"] == "produce_response").expect("the answer");
        assert!(answer.get("leader").is_none_or(|l| l.is_null()), "{preset}: {answer}");
    }
    for preset in ["kafka-3.7", "kafka-4.0"] {
        // The zombie steps down when it learns of broker 1: its waiting acks=all write is
        // answered NOT_LEADER_OR_FOLLOWER, naming broker 1.
        let t = under(&builtin("zombie-leader"), preset);
        let answer = t.find(0, &json!({"type": "produce_response", "from": 0, "error": "NOT_LEADER_OR_FOLLOWER"}));
        let sent = t.at(answer - 1);
        let m = sent["in_flight"].as_array().unwrap().iter().find(|m| m["type"] == "produce_response").expect("the answer");
        assert_eq!(m["leader"], 1, "{preset}: {m}");
    }
}

// ---------------------------------------------------------------------------
// The producer's idempotence rules by version (`IdempotenceRules`, defaults.rs).
// ---------------------------------------------------------------------------

/// A lost answer retried by a producer that sets enable.idempotence and leaves acks
/// unset. 0.10 has no idempotent producer and ignores the setting: acks=1, and the
/// retry appends the record twice. From 0.11 to 2.8 an idempotent producer raises
/// an unset acks to all (and an unset retries to `Integer.MAX_VALUE`; 0.11 also an
/// unset max.in.flight to 1): `KafkaProducer.configureAcks` at 0.11.0.2 and 2.0.0,
/// `ProducerConfig.maybeOverrideAcksAndRetries` at 2.8.0. The leader answers the
/// retry from its producer state.
#[test]
fn an_idempotent_producer_before_3_0_raises_acks_to_all_and_0_10_ignores_the_setting() {
    let s = json!({
        "format": 1, "replicas": 3, "config": {"min.insync.replicas": 2},
        "producers": [{"id": "p1", "enable.idempotence": true, "retries": 3, "request.timeout.ms": 3000}],
        "events": [
            {"at_ms": 800, "partition": {"from": 0, "to": "p1"}},
            {"at_ms": 1000, "produce": {"producer": "p1", "records": 1}},
            {"at_ms": 6000, "heal": {"from": 0, "to": "p1"}}
        ],
        "stop_at_ms": 11000
    });
    for (preset, acks, idempotent, in_flight, copies) in [
        ("kafka-0.10", json!(1), false, 5, 2),
        ("kafka-0.11", json!("all"), true, 1, 1),
        ("kafka-2.0", json!("all"), true, 5, 1),
        ("kafka-2.8", json!("all"), true, 5, 1),
    ] {
        let t = under(&s, preset);
        let p = producer(t.at(1), "p1");
        assert_eq!((&p["acks"], &p["idempotent"]), (&acks, &json!(idempotent)), "{preset}: {}", line(t.at(1)));
        let ids = log_ids(t.last(), 0);
        assert_eq!(ids.iter().filter(|id| *id == "p1-1").count(), copies, "{preset}: {ids:?}");
        assert_eq!(in_force(&s, preset, "producers[0].max.in.flight.requests.per.connection").0, json!(in_flight), "{preset}");
        let (value, source, note) = in_force(&s, preset, "producers[0].enable.idempotence");
        assert_eq!(value, json!(idempotent), "{preset}");
        if preset == "kafka-0.10" {
            assert_eq!(source, "preset", "{preset}");
            assert!(note.contains("does not exist before 0.11"), "{note}");
        } else {
            let (_, source, note) = in_force(&s, preset, "producers[0].acks");
            assert_eq!(source, "preset", "{preset}");
            assert!(note.contains("idempotent producer before 3.0"), "{preset}: {note}");
        }
    }
}

/// max.in.flight.requests.per.connection against idempotence: 0.11 allows only 1 (an
/// error for an idempotent producer that sets 5), 1.0 up to 5 (KAFKA-5494). With
/// idempotence on by default (3.x) and 6 in flight, 3.7 and 3.8 turn the default off
/// with a warning (`postProcessAndValidateIdempotenceConfigs` at 3.7.0 and 3.8.0, after
/// KAFKA-13673); 4.0 refuses the configuration (KAFKA-17927, 4.0.2).
#[test]
fn more_than_5_in_flight_turns_default_idempotence_off_in_3_x_and_is_an_error_from_4_0() {
    let rejected = |s: &Value, preset: &str| hwscope::Scenario::from_json(&with_preset(s, preset)).err().map(|e| e.to_string());
    let five = json!({"format": 1, "producers": [{"id": "p1", "enable.idempotence": true, "max.in.flight.requests.per.connection": 5}]});
    let e = rejected(&five, "kafka-0.11").expect("0.11 refuses 5 in flight with idempotence");
    assert!(e.contains("max.in.flight.requests.per.connection") && e.contains("must be 1"), "{e}");
    assert_eq!(rejected(&five, "kafka-2.0"), None);
    let six = json!({"format": 1, "producers": [{"id": "p1", "max.in.flight.requests.per.connection": 6}], "events": [{"at_ms": 0, "produce": {"producer": "p1"}}], "stop_at_ms": 100});
    for preset in ["kafka-3.7", "kafka-3.8"] {
        assert_eq!(rejected(&six, preset), None, "{preset}");
        let t = under(&six, preset);
        assert_eq!(producer(t.at(1), "p1")["idempotent"], json!(false), "{preset}");
        let (_, _, note) = in_force(&six, preset, "producers[0].enable.idempotence");
        assert!(note.contains("more than 5"), "{preset}: {note}");
    }
    for preset in ["kafka-4.0", "kafka-4.1"] {
        let e = rejected(&six, preset).unwrap_or_else(|| panic!("{preset} refuses 6 in flight with default idempotence"));
        assert!(e.contains("max.in.flight.requests.per.connection") && e.contains("at most 5"), "{preset}: {e}");
    }
}

// ---------------------------------------------------------------------------
// connection_setup: the kernel gives a connection attempt up before 2.7; from 2.7 the
// client does, after socket.connection.setup.timeout.ms (KIP-601).
// ---------------------------------------------------------------------------

/// A producer whose answer is cut off (from leader 0 to p, at 800 ms) gives its request up
/// after request.timeout.ms (3 s) and resends it on a new connection, whose SYN-ACK the
/// cut drops: the attempt is CONNECTING until the heal at `heal_ms`.
fn new_connection_through_a_cut(heal_ms: u64) -> Value {
    json!({"format": 1, "preset": "kafka-4.0", "replicas": 3, "initial": {"log_end_offset": 10},
        "producers": [{"id": "p", "acks": "all", "request.timeout.ms": 3000, "delivery.timeout.ms": 300000}],
        "events": [
            {"at_ms": 800, "partition": {"from": 0, "to": "p"}},
            {"at_ms": 1000, "produce": {"producer": "p", "records": 1}},
            {"at_ms": heal_ms, "heal": {"from": 0, "to": "p"}}
        ],
        "stop_at_ms": heal_ms + 10_000})
}

/// The first SYN of an attempt started at `connect` that is not before `heal`: Linux's
/// schedule, 1 s apart five times, then doubling (`network::syn_retransmission_gap`).
fn syn_after(connect: u64, heal: u64) -> u64 {
    [1, 2, 3, 4, 5, 7, 11, 19, 35, 67].iter().map(|s| connect + s * 1_000).find(|&s| s >= heal).expect("a SYN before the kernel gives up")
}

/// The steps at which p starts a connection attempt (a retry sent into the cut, held for
/// the handshake) and at which one is given up.
fn attempts(t: &Trace, until: usize) -> (Vec<u64>, Vec<(u64, String)>) {
    let started = t.all(&json!({"type": "timeout", "producer": "p", "timer": "producer-wake", "retry": true}));
    let given_up = t.all(&json!({"type": "timeout", "producer": "p", "timer": "connection-setup-timeout"}));
    let text = |i: usize| t.at(i)["text"].as_str().unwrap_or_default().to_string();
    (
        started.into_iter().filter(|&i| i < until).map(|i| time(t.at(i))).collect(),
        given_up.into_iter().filter(|&i| i < until).map(|i| (time(t.at(i)), text(i))).collect(),
    )
}

/// A one-way cut of 19 s through a new connection. Kafka 2.4 waits on the kernel: the one
/// attempt's SYNs go out at 1, 2, 3, 4, 5, 7, 11, 19 s, and the resend crosses on the SYN
/// 19 s in. From 2.7 (KIP-601, here 2.8 and 4.0) the client gives the attempt up after
/// 10 s ± 20 % (`NetworkClient.handleTimedOutConnections`), the request waiting on it never
/// sent, and connects again: the new attempt's SYNs are a second or two apart, so the resend
/// crosses sooner than on the first attempt's SYN 19 s in.
#[test]
fn from_2_7_a_connection_attempt_is_given_up_after_the_setup_timeout_and_made_again() {
    let s = new_connection_through_a_cut(20_000);
    for preset in ["kafka-2.4", "kafka-2.8", "kafka-4.0"] {
        let t = under(&s, preset);
        let heal = t.find(0, &json!({"type": "heal"}));
        let resend = t.find(heal, &json!({"type": "produce_request", "from": "p", "records": ["p-1"]}));
        let (started, given_up) = attempts(&t, heal);
        assert!((4_000..4_500).contains(&started[0]), "{preset}: the first attempt after the request timeout: {started:?}");
        let last = *started.last().unwrap();
        assert_eq!(time(t.at(resend)), syn_after(last, 20_000) + 1, "{preset}: the resend crosses on the first SYN after the heal");
        if preset == "kafka-2.4" {
            assert_eq!((started.len(), given_up.len()), (1, 0), "{preset}: one attempt, on the kernel's schedule: {given_up:?}");
            assert_eq!(time(t.at(resend)), started[0] + 19_001, "{preset}");
            continue;
        }
        assert_eq!((started.len(), given_up.len()), (2, 1), "{preset}: {started:?} {given_up:?}");
        let (at, said) = &given_up[0];
        assert!((8_000..=12_000).contains(&(at - started[0])), "{preset}: given up {} ms in", at - started[0]);
        assert!(said.contains("socket.connection.setup.timeout.ms") && said.contains("never sent"), "{preset}: {said}");
        assert!(
            time(t.at(resend)) < started[0] + 19_001,
            "{preset}: the new attempt crosses before the first one's SYN 19 s in would have"
        );
    }
}

/// A cut of 149 s. Kafka 2.4: the kernel gives the handshake up after its 11th SYN, 131 s
/// in (`tcp_syn_retries` 6 plus `tcp_syn_linear_timeouts` 4 retransmissions). From 2.7 the
/// client's setup timeout doubles with each attempt given up in a row, to
/// socket.connection.setup.timeout.max.ms (30 s): 10, 20, then 30 s, each ± 20 %; from 3.7
/// (KIP-580's `ExponentialBackoff`) the jittered value is capped at 30 s, while 2.8's may
/// reach 36 s.
#[test]
fn the_kernel_gives_a_handshake_up_after_131_s_and_kip_601_doubles_its_timeout_to_30_s() {
    let s = new_connection_through_a_cut(150_000);
    let t = under(&s, "kafka-2.4");
    let (started, given_up) = attempts(&t, t.find(0, &json!({"type": "heal"})));
    assert_eq!(given_up.len(), 1, "{given_up:?}");
    assert_eq!(given_up[0].0 - started[0], 131_000);
    assert!(given_up[0].1.contains("the kernel gives the handshake up after its 11th SYN"), "{}", given_up[0].1);
    for (preset, cap) in [("kafka-2.8", 36_000), ("kafka-4.0", 30_000), ("kafka-4.1", 30_000)] {
        let t = under(&s, preset);
        let (started, given_up) = attempts(&t, t.find(0, &json!({"type": "heal"})));
        assert!(given_up.len() >= 4, "{preset}: {given_up:?}");
        for (n, (at, said)) in given_up.iter().enumerate() {
            let lasted = at - started[n];
            let nominal = [10_000, 20_000, 30_000][n.min(2)];
            assert!(lasted >= nominal * 8 / 10 && lasted <= (nominal * 12 / 10).min(cap), "{preset}: attempt {n} lasted {lasted} ms");
            assert!(said.contains(&format!("{nominal} ms ± 20 %")), "{preset}: {said}");
        }
    }
}

/// The resend of `new_connection_through_a_cut(6 s)` crosses on its attempt's first SYN
/// after the heal; its answer is then cut off again (0 → p, as the resend arrives). Kafka
/// sends a request only on a ready connection (the `Sender` drains to ready nodes) and
/// `InFlightRequests` times it out from that send: request.timeout.ms (3 s) after the
/// connection was made, not after the batch was queued for it (the model gave it up to 12 s
/// after the resend, the longest the attempt could have lasted).
#[test]
fn a_request_that_waited_on_its_connection_times_out_counting_from_when_it_was_sent() {
    for preset in ["kafka-2.4", "kafka-2.8", "kafka-4.0"] {
        let mut s = new_connection_through_a_cut(6_000);
        let t = under(&s, preset);
        let heal = t.find(0, &json!({"type": "heal"}));
        let resend = t.find(heal, &json!({"type": "produce_request", "from": "p", "records": ["p-1"]}));
        let sent = time(t.at(resend)) - 1;
        let (started, _) = attempts(&t, heal);
        assert_eq!(sent, syn_after(*started.last().unwrap(), 6_000), "{preset}: the resend goes out on the first SYN after the heal");
        s["events"].as_array_mut().unwrap().push(json!({"at_ms": sent + 1, "partition": {"from": 0, "to": "p"}}));
        let t = under(&s, preset);
        let timed_out = t.find(heal, &json!({"type": "timeout", "producer": "p", "timer": "produce-request-timeout"}));
        assert_eq!(time(t.at(timed_out)), sent + 3_000, "{preset}: request.timeout.ms from the send on the new connection");
    }
}

/// The same for a follower's fetcher: its Fetch, answer cut off (0 → 1 at 800 ms), gives up
/// after the broker's request.timeout.ms (3 s here), backs off and fetches again on a new
/// connection through the cut, waiting in `NetworkClientUtils.awaitReady` (up to
/// replica.socket.timeout.ms, 30 s). Healed at 6 s, the Fetch goes out on the next SYN;
/// its answer cut off again, it is given up request.timeout.ms after that send
/// (`sendAndReceive`), not replica.socket.timeout.ms after it began to wait.
#[test]
fn a_fetch_that_waited_on_its_connection_times_out_counting_from_when_it_was_sent() {
    let s = json!({"format": 1, "replicas": 3, "initial": {"log_end_offset": 10},
        "config": {"request.timeout.ms": 3000},
        "events": [
            {"at_ms": 800, "partition": {"from": 0, "to": 1}},
            {"at_ms": 6000, "heal": {"from": 0, "to": 1}}
        ],
        "stop_at_ms": 16_000});
    let request = json!({"type": "fetch_request", "from": 1, "to": 0});
    let timer = json!({"type": "timeout", "broker": 1, "timer": "fetch-request-timeout"});
    timed_from_the_send_after_waiting_on_its_connection(&s, &["kafka-2.4", "kafka-3.7", "kafka-4.0"], &request, &timer, 3_000);
}

/// And for a consumer's fetch: its answer cut off (0 → c at 800 ms), it is given up after
/// request.timeout.ms (5 s here) and sent again on a new connection through the cut, in
/// `ConsumerNetworkClient`'s unsent queue until the connection is ready. Healed at 6 s, it
/// goes out on the next SYN; its answer cut off again, it is given up request.timeout.ms
/// after that send, not after it was queued.
#[test]
fn a_consumer_fetch_that_waited_on_its_connection_times_out_counting_from_when_it_was_sent() {
    let s = consumer_cut_off_until(6_000, 20_000);
    let request = json!({"type": "consumer_fetch_request", "from": "c", "to": 0});
    let timer = json!({"type": "timeout", "consumer": "c", "timer": "consumer-request-timeout"});
    timed_from_the_send_after_waiting_on_its_connection(&s, &["kafka-2.4", "kafka-4.0"], &request, &timer, 5_000);
}

/// A consumer (request.timeout.ms 5 s) whose answers from leader 0 are cut off from 800 ms
/// until `heal_ms`.
fn consumer_cut_off_until(heal_ms: u64, stop_at_ms: u64) -> Value {
    json!({"format": 1, "replicas": 3, "initial": {"log_end_offset": 10},
        "consumers": [{"id": "c", "request.timeout.ms": 5000}],
        "events": [
            {"at_ms": 800, "partition": {"from": 0, "to": "c"}},
            {"at_ms": heal_ms, "heal": {"from": 0, "to": "c"}}
        ],
        "stop_at_ms": stop_at_ms})
}

/// The two tests above: in `s`, a request to broker 0 whose answer is cut off (0 → its
/// client at 800 ms) is given up (`timer`) before the heal at 6 s, and sent again
/// (`request`) on a new connection through the cut; it goes out on a SYN after the heal.
/// Its answer cut off again as it arrives, it is given up `timeout_ms` after that send.
fn timed_from_the_send_after_waiting_on_its_connection(s: &Value, presets: &[&str], request: &Value, timer: &Value, timeout_ms: u64) {
    for preset in presets {
        let t = under(s, preset);
        let heal = t.find(0, &json!({"type": "heal"}));
        assert!(t.all(timer).first().is_some_and(|&i| i < heal), "{preset}: the request in the cut is given up before the heal");
        let resent = t.find(heal, request);
        let sent = time(t.at(resent)) - 1;
        assert!(sent > 6_000, "{preset}: the request waited on its connection until a SYN after the heal");
        let mut cut_again = s.clone();
        let cut = s["events"][0]["partition"].clone();
        cut_again["events"].as_array_mut().unwrap().push(json!({"at_ms": sent + 1, "partition": cut}));
        let t = under(&cut_again, preset);
        let timed_out = t.find(resent, timer);
        assert_eq!(time(t.at(timed_out)), sent + timeout_ms, "{preset}: request.timeout.ms from the send");
    }
}

/// A consumer's request that expires unsent keeps its connection attempt: nothing closes it
/// (`ConsumerNetworkClient.failExpiredRequests`), and the next request waits on the same
/// attempt. Kafka 2.4 (no setup timeout: the kernel's SYN schedule), cut 0 → c at 800 ms,
/// request.timeout.ms 5 s: the first fetch is given up at 5502 ms and the next one waits on
/// a new connection, whose SYNs go out at 5.5, 6.5, …, 10.5, 12.5 and 16.5 s. Healed at
/// 14 s, the handshake crosses on the SYN of 16502 ms; the fetch made at 10502 ms expires
/// unsent at 15502 ms, and the next one goes out on that SYN, timed from there. The model
/// had opened the connection at the heal and sent the next fetch at 15502 ms.
#[test]
fn a_consumer_request_that_expires_unsent_keeps_its_connection_attempt() {
    let t = under(&consumer_cut_off_until(14_000, 25_000), "kafka-2.4");
    let timer = json!({"type": "timeout", "consumer": "c", "timer": "consumer-request-timeout"});
    let timeouts: Vec<u64> = t.all(&timer).iter().map(|&i| time(t.at(i))).collect();
    assert_eq!(timeouts[..3], [5_502, 10_502, 15_502], "{timeouts:?}");
    let expired = t.at(t.find(t.find(0, &json!({"type": "heal"})), &timer));
    assert!(expired["text"].as_str().unwrap().contains("never sent (its connection is still being made)"), "{}", line(expired));
    let fetch = t.find(0, &json!({"type": "consumer_fetch_request", "from": "c", "to": 0}));
    let fetches: Vec<u64> =
        t.all(&json!({"type": "consumer_fetch_request", "from": "c", "to": 0})).iter().map(|&i| time(t.at(i))).collect();
    assert!(fetch < t.find(0, &json!({"type": "heal"})), "the first fetch reached the leader before the cut");
    assert_eq!(fetches.iter().find(|&&at| at > 14_000), Some(&16_503), "the next fetch goes out on the SYN of 16502 ms: {fetches:?}");
    // Its answer comes: the consumer goes on fetching on the open connection.
    assert!(fetches.iter().filter(|&&at| at > 16_503).count() >= 2, "{fetches:?}");
}

/// A heal's retransmission outlives the connection its client closed: p's write at 1 s goes
/// into a cut (p → 0); TCP resends it at 1.2, 1.6, 2.4 and 4 s. The heal at 3.5 s releases it
/// for the resend at 4 s, when p's request.timeout.ms (3 s) closes the connection: the
/// kernel's orphaned socket sends it all the same (`connect::drop_unsent_on`), and the leader
/// appends it; its answer goes nowhere. p's retry, on a new connection, is a duplicate batch
/// to the idempotent producer's state (kafka-4.0's default): the record is in the log once.
#[test]
fn a_heal_s_retransmission_outlives_the_connection_its_client_closed() {
    let s = json!({"format": 1, "preset": "kafka-4.0", "replicas": 3, "initial": {"log_end_offset": 10},
        "producers": [{"id": "p", "acks": "all", "request.timeout.ms": 3000}],
        "events": [
            {"at_ms": 800, "partition": {"from": "p", "to": 0}},
            {"at_ms": 1000, "produce": {"producer": "p", "records": 1}},
            {"at_ms": 3500, "heal": {"from": "p", "to": 0}}
        ],
        "stop_at_ms": 8000});
    let t = under(&s, "kafka-4.0");
    let timed_out = t.find(0, &json!({"type": "timeout", "producer": "p", "timer": "produce-request-timeout"}));
    assert_eq!(time(t.at(timed_out)), 4_000);
    let arrived = t.all(&json!({"type": "produce_request", "from": "p", "to": 0}));
    let lines = || arrived.iter().map(|&i| line(t.at(i))).collect::<Vec<_>>();
    assert_eq!(arrived.len(), 2, "the orphan's resend and the retry reach the leader: {:?}", lines());
    assert_eq!(time(t.at(arrived[0])), 4_001, "{:?}", lines());
    assert!(event_matches(t.at(arrived[0]), &json!({"outcome": "appended"})), "{:?}", lines());
    assert!(event_matches(t.at(arrived[1]), &json!({"outcome": "duplicate", "duplicate": true})), "{:?}", lines());
    assert_eq!(log_ids(t.last(), 0).iter().filter(|r| r.as_str() == "p-1").count(), 1);
    assert_eq!(t.all(&json!({"type": "produce_response", "from": 0, "to": "p"})).len(), 1, "only the retry's answer reaches p");
}
