//! The idempotent producer's drain after a failover (`producer::should_stop_drain_in_sequence`,
//! Kafka's `RecordAccumulator.shouldStopDrainBatchesForPartition`, 1.0+): three batches
//! are in flight to leader 0 when it is killed; its kernel resets the connection and all
//! three go back to the accumulator. Once broker 1 leads, the retries go one at a time,
//! first sequence first, each after the answer to the one before. Sent together, a retry
//! could arrive behind more batches than the broker's producer state keeps (5), be refused
//! OUT_OF_ORDER_SEQUENCE_NUMBER, bump the producer epoch and be appended a second time.

mod support;

use serde_json::{json, Value};
use support::*;

/// p writes one record at 1000, 1010 and 1020 ms under `preset`; broker 0 is killed at
/// 1500 ms with the three writes unanswered. `cut`: what keeps them unanswered, either
/// the followers cut off from leader 0 (the records are on leader 0 only) or the answers
/// cut off on their way to p (the followers have them, so the HW passes them).
fn three_in_flight_at_the_crash(preset: &str, cut: Value) -> Value {
    let mut events = vec![
        json!({"at_ms": 1000, "produce": {"producer": "p", "records": 1}, "repeat": {"count": 3, "every_ms": 10}}),
        json!({"at_ms": 1500, "crash": {"broker": 0}}),
    ];
    events.extend(cut.as_array().into_iter().flatten().cloned());
    json!({"format": 1, "preset": preset, "replicas": 3,
        "producers": [{"id": "p", "acks": "all", "enable.idempotence": true}],
        "events": events, "stop_at_ms": 40_000})
}

fn followers_cut_off() -> Value {
    json!([{"at_ms": 900, "partition": {"between": [0, 1]}}, {"at_ms": 900, "partition": {"between": [0, 2]}}])
}

fn answers_cut_off() -> Value {
    json!([{"at_ms": 900, "partition": {"from": 0, "to": "p"}}])
}

/// The steps where the new leader (not 0) handled p's produce requests.
fn requests_to_new_leader(t: &Trace) -> Vec<usize> {
    t.all(&json!({"type": "produce_request", "from": "p"})).into_iter().filter(|&i| t.at(i)["event"]["to"] != json!(0)).collect()
}

fn records(r: &Value) -> Vec<String> {
    strs(&r["event"]["records"])
}

/// The retries reach the new leader in sequence order, each after p had the answer to
/// the one before; the log ends with each record once.
fn assert_one_retry_per_round_trip(t: &Trace, outcome: &str) {
    let requests = requests_to_new_leader(t);
    let got: Vec<Vec<String>> = requests.iter().map(|&i| records(t.at(i))).collect();
    assert_eq!(got, [["p-1"], ["p-2"], ["p-3"]], "{}", requests.iter().map(|&i| line(t.at(i))).collect::<Vec<_>>().join("\n"));
    for pair in requests.windows(2) {
        let (before, next) = (t.at(pair[0]), t.at(pair[1]));
        assert!(event_matches(before, &json!({"outcome": outcome})), "{}", line(before));
        let answered = t.find(pair[0], &json!({"type": "produce_response", "to": "p", "records": records(before)}));
        assert!(
            answered < pair[1] && time(t.at(answered)) < time(next),
            "sent before the answer to the one before:\n{}\n{}",
            line(t.at(answered)),
            line(next)
        );
    }
    let leader = t.last()["partition"]["leader"].as_u64().expect("a leader") as usize;
    assert_eq!(log_ids(t.last(), leader), ["p-1", "p-2", "p-3"]);
    assert!(t.violations().is_empty(), "{:?}", t.violations());
}

#[test]
fn retries_to_a_new_leader_go_one_round_trip_apart_first_sequence_first() {
    for preset in ["kafka-2.8", "kafka-3.7", "kafka-4.0"] {
        let t = Trace::of_value(&three_in_flight_at_the_crash(preset, followers_cut_off()));
        assert_one_retry_per_round_trip(&t, "appended");
    }
}

#[test]
fn retries_the_new_leader_already_has_are_answered_from_its_producer_state_one_by_one() {
    for preset in ["kafka-2.8", "kafka-3.7", "kafka-4.0"] {
        let t = Trace::of_value(&three_in_flight_at_the_crash(preset, answers_cut_off()));
        assert_one_retry_per_round_trip(&t, "duplicate");
    }
}

/// Without idempotence nothing holds the retries back: all three go to the new leader in
/// the same millisecond (max.in.flight.requests.per.connection = 5).
#[test]
fn without_idempotence_the_retries_go_together() {
    let mut v = three_in_flight_at_the_crash("kafka-4.0", followers_cut_off());
    v["producers"][0]["enable.idempotence"] = json!(false);
    let t = Trace::of_value(&v);
    let requests = requests_to_new_leader(&t);
    assert_eq!(requests.len(), 3, "{}", t.summary());
    let times: Vec<u64> = requests.iter().map(|&i| time(t.at(i))).collect();
    assert_eq!(times[0], times[2], "{times:?}");
}
