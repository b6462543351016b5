//! Rules found wrong by reading the model's runs against Kafka's sources at the
//! release tags (docs/exactness.md, "Source audit"): each test runs one scenario
//! under the presets on both sides of the version that changed the rule and checks
//! what a user sees in the step records.

mod support;

use serde_json::{json, Value};
use support::*;

fn under(v: &Value, preset: &str) -> Trace {
    Trace::of(&with_preset(v, preset))
}

// ---------------------------------------------------------------------------
// preferred_read_replica_answers_at_once: kafka-2.4, kafka-2.8 | kafka-3.7 (KAFKA-13767, 3.2.0).
// ---------------------------------------------------------------------------

/// One consumer that prefers follower 1 (KIP-392) on an idle partition, with
/// fetch.max.wait.ms 400 so that the wait is told apart from the 500 ms replica fetch wait.
fn redirect_scenario() -> Value {
    json!({
        "format": 1,
        "replicas": 3,
        "initial": {"log_end_offset": 5},
        "consumers": [{"id": "c1", "fetch_from": 1, "fetch.max.wait.ms": 400}],
        "stop_at_ms": 1000
    })
}

#[test]
fn before_3_2_the_leader_names_the_preferred_read_replica_only_after_fetch_max_wait_ms() {
    for (preset, first_outcome, redirected_at) in
        [("kafka-2.4", "parked", 402), ("kafka-2.8", "parked", 402), ("kafka-3.7", "answered", 2), ("kafka-4.0", "answered", 2)]
    {
        let t = under(&redirect_scenario(), preset);
        let first = t.find(0, &json!({"type": "consumer_fetch_request", "from": "c1", "to": 0}));
        assert!(event_matches(t.at(first), &json!({"outcome": first_outcome})), "{preset}: {}", line(t.at(first)));
        // The answer that names broker 1 reaches the consumer once the fetch stops waiting (1 ms links).
        let answer = t.find(first, &json!({"type": "consumer_fetch_response", "from": 0, "to": "c1", "preferred_read_replica": 1}));
        assert_eq!(time(t.at(answer)), redirected_at, "{preset}: {}", line(t.at(answer)));
        assert_eq!(consumer(t.at(answer), "c1")["preferred_read_replica"], json!(1), "{preset}: {}", line(t.at(answer)));
        // Then it reads from follower 1, not from the leader.
        let next = t.find(answer, &json!({"type": "consumer_fetch_request", "from": "c1"}));
        assert_eq!(t.at(next)["event"]["to"], json!(1), "{preset}: {}", line(t.at(next)));
        assert!(t.at(first)["text"].as_str().unwrap_or("").contains(if first_outcome == "parked" {
            "KAFKA-13767"
        } else {
            "preferred read replica"
        }));
    }
}

/// The leader names follower 1 only while it has the consumer's offset: if a record
/// arrives during the wait, the redirect still waits (the purgatory does not count a
/// fetch whose offset it skipped), and the answer still names broker 1.
#[test]
fn before_3_2_a_parked_redirect_is_not_released_by_new_records() {
    let mut s = redirect_scenario();
    s["events"] = json!([{"at_ms": 100, "produce": {"producer": "p1", "records": 1}}]);
    s["producers"] = json!([{"id": "p1", "acks": "all"}]);
    let t = under(&s, "kafka-2.4");
    let answer = t.find(0, &json!({"type": "consumer_fetch_response", "from": 0, "to": "c1", "preferred_read_replica": 1}));
    assert_eq!(time(t.at(answer)), 402, "{}", line(t.at(answer)));
    let next = t.find(answer, &json!({"type": "consumer_fetch_request", "from": "c1"}));
    assert_eq!(t.at(next)["event"]["to"], json!(1), "{}", line(t.at(next)));
}

// ---------------------------------------------------------------------------
// retry_skips_backoff_for_new_leader: kafka-2.4, kafka-2.8 | kafka-3.7 (KIP-951, KAFKA-15415, 3.7.0).
// ---------------------------------------------------------------------------

/// Leader 0 is killed at 1 s; one record written at 1.5 s is refused at each try (its
/// kernel refuses the connection) and retried every retry.backoff.ms (300 ms here) until
/// the producer's metadata names the new leader.
fn retry_scenario() -> Value {
    json!({
        "format": 1,
        "replicas": 3,
        "config": {"zookeeper.session.timeout.ms": 6000},
        "producers": [{"id": "p1", "acks": "all", "retry.backoff.ms": 300}],
        "events": [
            {"at_ms": 1000, "crash": {"broker": 0}},
            {"at_ms": 1500, "produce": {"producer": "p1", "records": 1}}
        ],
        "stop_at_ms": 20000
    })
}

#[test]
fn before_3_7_a_retry_waits_its_backoff_even_when_the_leader_changed() {
    for (preset, waits) in [("kafka-2.4", true), ("kafka-2.8", true), ("kafka-3.7", false), ("kafka-4.0", false)] {
        let t = under(&retry_scenario(), preset);
        // The producer's metadata names the new leader, broker 1.
        let learned = t.find(0, &json!({"type": "metadata_response", "to": "p1", "outcome": "updated", "leader": 1}));
        let arrived = t.find(learned, &json!({"type": "produce_request", "from": "p1", "to": 1}));
        let after = time(t.at(arrived)) - 1 - time(t.at(learned));
        // The try before it was refused by broker 0's kernel (a 300 ms backoff, then).
        let refused = (0..learned)
            .rev()
            .find(|&i| event_matches(t.at(i), &json!({"type": "connection_reset", "from": 0, "to": "p1"})))
            .unwrap_or_else(|| panic!("{preset}: a refused try before the new leader\n{}", t.summary()));
        if waits {
            assert_eq!(time(t.at(arrived)) - 1, time(t.at(refused)) + 300, "{preset}: sent when its backoff ends: {}", line(t.at(arrived)));
            assert!(after > 200, "{preset}: sent {after} ms after the metadata named broker 1");
        } else {
            assert_eq!(after, 0, "{preset}: sent as the metadata names broker 1: {}", line(t.at(arrived)));
        }
        assert_eq!(producer(t.last(), "p1")["acked"], json!(["p1-1"]), "{preset}");
    }
}

// ---------------------------------------------------------------------------
// Metadata.timeToAllowUpdate: every version waits after any refresh, one that named a new
// leader included (0.10.2–3.6: retry.backoff.ms; 3.7+: KIP-580's backoff(0), 80–120 ms).
// ---------------------------------------------------------------------------

/// The least time each client left between the end of a metadata refresh (its answer) and
/// its next metadata request, with where it happened.
fn shortest_refresh_gap(t: &Trace) -> Option<(u64, String)> {
    let mut answered: std::collections::BTreeMap<String, u64> = Default::default();
    let mut least: Option<(u64, String)> = None;
    for r in &t.steps {
        let e = &r["event"];
        match ty(r) {
            "metadata_response" => {
                answered.insert(e["to"].to_string(), time(r));
            }
            "metadata_request" => {
                if let Some(&at) = answered.get(&e["from"].to_string()) {
                    let gap = time(r) - at;
                    if least.as_ref().is_none_or(|(g, _)| gap < *g) {
                        least = Some((gap, line(r)));
                    }
                }
            }
            _ => {}
        }
    }
    least
}

#[test]
fn a_client_waits_retry_backoff_after_every_metadata_refresh_one_naming_a_new_leader_included() {
    let acks: Value = serde_json::from_str(include_str!("../scenarios/acks-and-min-isr.json")).unwrap();
    let elr: Value = serde_json::from_str(include_str!("../scenarios/elr.json")).unwrap();
    // (scenario, preset, the least gap Kafka allows: retry.backoff.ms before 3.7, its 0.8 jitter after)
    for (s, preset, floor) in
        [(&acks, "kafka-2.4", 100), (&acks, "kafka-2.8", 100), (&elr, "kafka-0.10", 100), (&elr, "kafka-3.7", 80), (&elr, "kafka-4.0", 80)]
    {
        let t = under(s, preset);
        let (gap, at) = shortest_refresh_gap(&t).expect("the clients refresh their metadata");
        // Before the rule a consumer fenced by the new epoch asked again 1 ms after the answer.
        assert!(gap >= floor, "{preset}: a metadata request {gap} ms after the last answer: {at}");
    }
}

// ---------------------------------------------------------------------------
// An acks=0 write is done once written, and only to a ready connection (every version:
// `Sender.sendProducerData` drains to `NetworkClient.ready` nodes only;
// `NetworkClient.handleCompletedSends` completes a request that expects no answer).
// ---------------------------------------------------------------------------

/// Leader 0 is killed at 2 s (its kernel resets its connections and refuses new ones); an
/// acks=0 producer writes one record every 500 ms from 1 s to 13.5 s.
fn acks_0_kill_scenario() -> Value {
    json!({
        "format": 1,
        "replicas": 3,
        "initial": {"log_end_offset": 100},
        "config": {"zookeeper.session.timeout.ms": 6000},
        "producers": [{"id": "p0", "acks": 0}],
        "events": [
            {"at_ms": 1000, "produce": {"producer": "p0", "records": 1}, "repeat": {"count": 26, "every_ms": 500}},
            {"at_ms": 2000, "crash": {"broker": 0}}
        ],
        "stop_at_ms": 18000
    })
}

/// Every write made while broker 0 is dead is refused at the connection, waits in the
/// accumulator and reaches broker 1 once it leads; only p0-3, written to the open
/// connection in the millisecond of the kill, is lost. (Before, each write to the dead
/// leader counted as done when sent and was lost: under 4.0, p0-3 to p0-24.)
#[test]
fn an_acks_0_write_is_not_written_to_a_broker_that_refuses_the_connection_and_reaches_the_new_leader() {
    for preset in ["kafka-0.10", "kafka-2.4", "kafka-2.8", "kafka-3.7", "kafka-4.0"] {
        let t = under(&acks_0_kill_scenario(), preset);
        // p0-4's first try is refused by broker 0's kernel, never written, and retried.
        let sent = t.find(0, &json!({"type": "produce", "producer": "p0", "records": ["p0-4"]}));
        let refused = t.find(sent, &json!({"type": "connection_reset", "from": 0, "to": "p0"}));
        let text = t.at(refused)["text"].as_str().unwrap_or("");
        assert!(text.contains("never sent") && text.contains("will retry 1 record"), "{preset}: {}", line(t.at(refused)));
        assert!(!strs(&producer(t.at(refused), "p0")["acked"]).contains(&"p0-4".to_string()), "{preset}: {}", line(t.at(refused)));
        let last = t.last();
        let p = producer(last, "p0");
        assert_eq!((&p["pending"], &p["failed"]), (&json!([]), &json!([])), "{preset}");
        let leader = last["partition"]["leader"].as_u64().unwrap_or(0) as usize;
        assert_ne!(leader, 0, "{preset}: a new leader");
        let logged = log_ids(last, leader);
        let missing: Vec<String> = (1..=26).map(|n| format!("p0-{n}")).filter(|id| !logged.contains(id)).collect();
        assert_eq!(missing, vec!["p0-3".to_string()], "{preset}: {logged:?}");
    }
}

// ---------------------------------------------------------------------------
// fetch_error_forgets_preferred_replica: kafka-2.4, kafka-2.8 | kafka-3.7 (KAFKA-14379, 3.3.2/3.4.0).
// ---------------------------------------------------------------------------

/// A consumer reads from follower 2 (KIP-392) while p1 writes every 500 ms; leader 0 is
/// killed at 1 s and broker 1 is elected in epoch 1. Follower 2 then refuses the consumer's
/// fetch, still in epoch 0, with FENCED_LEADER_EPOCH.
fn fenced_at_follower_scenario() -> Value {
    json!({
        "format": 1,
        "replicas": 3,
        "initial": {"log_end_offset": 5},
        "config": {"zookeeper.session.timeout.ms": 6000},
        "producers": [{"id": "p1", "acks": "all"}],
        "consumers": [{"id": "c1", "fetch_from": 2}],
        "events": [
            {"at_ms": 100, "produce": {"producer": "p1", "records": 1}, "repeat": {"count": 30, "every_ms": 500}},
            {"at_ms": 1000, "crash": {"broker": 0}}
        ],
        "stop_at_ms": 16000
    })
}

/// Before 3.3.2 the error only asks for new metadata: once it has validated its position
/// with leader 1, the consumer fetches from follower 2 again. From 3.3.2 it forgets the
/// replica and fetches from leader 1, which names follower 2 again.
#[test]
fn before_3_3_2_a_fetch_error_keeps_the_preferred_read_replica() {
    for (preset, keeps) in [("kafka-2.4", true), ("kafka-2.8", true), ("kafka-3.7", false), ("kafka-4.0", false)] {
        let t = under(&fenced_at_follower_scenario(), preset);
        let fenced = t.find(0, &json!({"type": "consumer_fetch_response", "from": 2, "to": "c1", "error": "FENCED_LEADER_EPOCH"}));
        let text = t.at(fenced)["text"].as_str().unwrap_or("");
        assert_eq!(text.contains("keeps broker 2 as its preferred read replica"), keeps, "{preset}: {}", line(t.at(fenced)));
        let next = t.find(fenced, &json!({"type": "consumer_fetch_request", "from": "c1"}));
        assert_eq!(t.at(next)["event"]["to"], json!(if keeps { 2 } else { 1 }), "{preset}: {}", line(t.at(next)));
        // Either way it reads from follower 2 in the end.
        let back = t.find(fenced, &json!({"type": "consumer_fetch_request", "from": "c1", "to": 2}));
        assert!(time(t.at(back)) < time(t.at(fenced)) + 1000, "{preset}: {}", line(t.at(back)));
    }
}
