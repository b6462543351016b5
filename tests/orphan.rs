//! A client's closed connection keeps its unsent data as a TCP orphan
//! (`connect::drop_unsent_on`, `connect::orphan_gives_up_at`): a producer's request cut
//! off (p → 0) times out and its connection is closed, but Linux goes on retransmitting
//! the request from the closed socket. Healed inside the orphan's ~102 s, the request
//! still reaches the leader, which appends it (its answer is lost), beside the retry the
//! producer sent on a new connection: a duplicate without idempotence, a duplicate
//! batch the producer state recognises with it. Healed later, nothing arrives.
//! Retransmissions of a request first sent at 1000 ms: 1200, 1600, 2400, 4000, 7200,
//! 13600, 26400, 52000 ms; the next, at 103200 ms, is past the orphan's budget.

mod support;

use serde_json::{json, Value};
use support::*;

/// p writes one record at 1 s into a cut p → 0; request.timeout.ms 3 s closes the
/// connection at 4 s; healed at `heal_ms`.
fn cut_past_the_request_timeout(idempotence: bool, heal_ms: u64) -> Value {
    json!({"format": 1, "preset": "kafka-4.0", "replicas": 3, "initial": {"log_end_offset": 10},
        "producers": [{"id": "p", "acks": "all", "request.timeout.ms": 3000, "enable.idempotence": idempotence}],
        "events": [
            {"at_ms": 800, "partition": {"from": "p", "to": 0}},
            {"at_ms": 1000, "produce": {"producer": "p", "records": 1}},
            {"at_ms": heal_ms, "heal": {"from": "p", "to": 0}}
        ],
        "stop_at_ms": heal_ms + 60_000})
}

fn copies(t: &Trace, id: &str) -> usize {
    log_ids(t.last(), 0).iter().filter(|r| r.as_str() == id).count()
}

fn text(r: &Value) -> &str {
    r["text"].as_str().unwrap_or("")
}

/// The steps at `at`, one line each, for a failing assertion's message.
fn lines(t: &Trace, at: &[usize]) -> Vec<String> {
    at.iter().map(|&i| line(t.at(i))).collect()
}

/// The leader's steps that received p's produce requests, and the answers p got.
fn requests_and_answers(t: &Trace) -> (Vec<usize>, Vec<usize>) {
    (t.all(&json!({"type": "produce_request", "from": "p", "to": 0})), t.all(&json!({"type": "produce_response", "from": 0, "to": "p"})))
}

#[test]
fn healed_inside_the_orphan_s_window_a_timed_out_request_is_appended_again_without_idempotence() {
    let t = Trace::of_value(&cut_past_the_request_timeout(false, 10_000));
    let closed = t.find(0, &json!({"type": "timeout", "producer": "p", "timer": "produce-request-timeout"}));
    assert_eq!(time(t.at(closed)), 4_000);
    let (requests, answers) = requests_and_answers(&t);
    assert_eq!(requests.len(), 2, "the retry and the orphan's retransmission: {:?}", lines(&t, &requests));
    // The retry crosses on the new connection's first SYN after the heal; the closed
    // connection's request comes at its retransmission of 13.6 s.
    let (retry, orphan) = (t.at(requests[0]), t.at(requests[1]));
    assert!(time(retry) > 10_000 && time(retry) < 13_600, "{}", line(retry));
    assert_eq!(time(orphan), 13_600 + 1, "{}", line(orphan));
    assert!(event_matches(orphan, &json!({"outcome": "appended"})), "{}", line(orphan));
    assert!(text(orphan).contains("orphan"), "{}", text(orphan));
    assert_eq!(copies(&t, "p-1"), 2, "p-1 is in the log twice: {:?}", log_ids(t.last(), 0));
    // Only the retry's answer reaches p: the orphan's goes to a closed socket.
    assert_eq!(answers.len(), 1, "{:?}", lines(&t, &answers));
}

#[test]
fn an_idempotent_producer_s_orphaned_request_is_a_duplicate_batch() {
    let t = Trace::of_value(&cut_past_the_request_timeout(true, 10_000));
    let (requests, answers) = requests_and_answers(&t);
    assert_eq!(requests.len(), 2, "{:?}", lines(&t, &requests));
    let orphan = t.at(requests[1]);
    assert_eq!(time(orphan), 13_600 + 1, "{}", line(orphan));
    assert!(event_matches(orphan, &json!({"outcome": "duplicate", "duplicate": true})), "{}", line(orphan));
    assert_eq!(copies(&t, "p-1"), 1, "{:?}", log_ids(t.last(), 0));
    assert_eq!(answers.len(), 1, "{:?}", lines(&t, &answers));
}

/// The orphan's last retransmission is its 8th, 51 s after the first send (52 s here): a
/// heal before it lets that one through, a heal after it finds the orphan gone.
#[test]
fn an_orphan_gives_up_after_its_eighth_retransmission() {
    let t = Trace::of_value(&cut_past_the_request_timeout(false, 50_000));
    let (requests, _) = requests_and_answers(&t);
    let from_orphan: Vec<usize> = requests.iter().copied().filter(|&i| text(t.at(i)).contains("orphan")).collect();
    assert_eq!(from_orphan.len(), 1, "{:?}", lines(&t, &requests));
    assert_eq!(time(t.at(from_orphan[0])), 52_000 + 1);
    assert_eq!(copies(&t, "p-1"), 2);

    let t = Trace::of_value(&cut_past_the_request_timeout(false, 60_000));
    let heal = t.find(0, &json!({"type": "heal"}));
    assert!(text(t.at(heal)).contains("1 request of a connection its client closed is gone"), "{}", text(t.at(heal)));
    let (requests, answers) = requests_and_answers(&t);
    assert_eq!(requests.len(), 1, "only the retry: {:?}", lines(&t, &requests));
    assert!(requests[0] > heal && answers.len() == 1);
    assert_eq!(copies(&t, "p-1"), 1, "{:?}", log_ids(t.last(), 0));
}

/// A request waiting on a connection that was never made has no orphan: closing the
/// attempt takes it back. c's fetch is answered into a cut (0 → c); its request timeout
/// (5 s) closes the connection, and the next fetch waits on a new attempt through the cut
/// (kafka-2.4: the kernel's, 131 s). That fetch's own timeout closes the attempt and a
/// third waits on another. Healed at 14 s, only the third reaches broker 0.
#[test]
fn a_connection_never_made_leaves_nothing_to_an_orphan() {
    let s = json!({"format": 1, "preset": "kafka-2.4", "replicas": 3, "initial": {"log_end_offset": 10},
        "consumers": [{"id": "c", "request.timeout.ms": 5000}],
        "events": [
            {"at_ms": 800, "partition": {"from": 0, "to": "c"}},
            {"at_ms": 14_000, "heal": {"from": 0, "to": "c"}}
        ],
        "stop_at_ms": 20_000});
    let t = Trace::of_value(&s);
    let heal = t.find(0, &json!({"type": "heal"}));
    let timeouts = t.all(&json!({"type": "timeout", "consumer": "c", "timer": "consumer-request-timeout"}));
    assert!(timeouts.iter().filter(|&&i| i < heal).count() >= 2, "two fetches given up before the heal");
    let after: Vec<usize> =
        t.all(&json!({"type": "consumer_fetch_request", "from": "c", "to": 0})).into_iter().filter(|&i| i > heal).collect();
    let first = after.first().copied().unwrap_or_else(|| panic!("a fetch after the heal"));
    assert!(!text(t.at(first)).contains("orphan"), "{}", text(t.at(first)));
    assert!(after.iter().all(|&i| !text(t.at(i)).contains("orphan")), "{:?}", lines(&t, &after));
}

/// As `cut_past_the_request_timeout` (idempotent, healed at 10 s), with `later` writes
/// of one record each from 12 s, every 200 ms: each its own batch, appended before
/// the orphan's retransmission of p-1 reaches the leader at 13.6 s.
fn orphan_after_later_batches(preset: &str, later: u64) -> Value {
    let mut s = cut_past_the_request_timeout(true, 10_000);
    s["preset"] = json!(preset);
    s["stop_at_ms"] = json!(20_000);
    let events = s["events"].as_array_mut().expect("events");
    events.extend((0..later).map(|i| json!({"at_ms": 12_000 + 200 * i, "produce": {"producer": "p", "records": 1}})));
    s
}

/// The step where the orphan's p-1 reaches leader 0.
fn orphan_request(t: &Trace) -> &Value {
    let (requests, _) = requests_and_answers(t);
    let orphan = requests.iter().copied().find(|&i| text(t.at(i)).contains("orphan"));
    t.at(orphan.unwrap_or_else(|| panic!("the orphan's request: {:?}", lines(t, &requests))))
}

/// The leader keeps an idempotent producer's last 5 batches (`find_duplicate_batch`,
/// `ProducerStateEntry.NUM_BATCHES_TO_RETAIN`): the orphan's p-1 behind 4 later batches
/// is one of them, a duplicate; behind 5 it is not, and it is refused
/// OUT_OF_ORDER_SEQUENCE_NUMBER (its answer lost to the closed connection). Fails with the
/// whole log scanned for the batch, as before (a duplicate both times).
#[test]
fn an_orphan_s_batch_older_than_the_5_the_leader_keeps_is_out_of_order() {
    let t = Trace::of_value(&orphan_after_later_batches("kafka-4.0", 4));
    let orphan = orphan_request(&t);
    assert_eq!(time(orphan), 13_600 + 1, "{}", line(orphan));
    assert!(event_matches(orphan, &json!({"outcome": "duplicate", "duplicate": true})), "{}", line(orphan));

    let t = Trace::of_value(&orphan_after_later_batches("kafka-4.0", 5));
    let orphan = orphan_request(&t);
    assert_eq!(time(orphan), 13_600 + 1, "{}", line(orphan));
    assert!(event_matches(orphan, &json!({"outcome": "error", "error": "OUT_OF_ORDER_SEQUENCE_NUMBER"})), "{}", line(orphan));
    assert!(text(orphan).contains("its last 5 batches"), "{}", text(orphan));
    assert_eq!(copies(&t, "p-1"), 1, "{:?}", log_ids(t.last(), 0));
    assert_eq!(log_ids(t.last(), 0), ["p-1", "p-2", "p-3", "p-4", "p-5", "p-6"]);
}

/// The answer to a request that came from a closed connection is lost, and the narration
/// says why: not a cut or a receiver down, but the client's closed connection.
#[test]
fn the_answer_to_an_orphan_s_request_is_said_lost_to_the_closed_connection() {
    let t = Trace::of_value(&cut_past_the_request_timeout(true, 10_000));
    let orphan = orphan_request(&t);
    let said = text(orphan);
    assert!(said.contains("the HW has already reached"), "answered at once: {said}");
    assert!(
        said.ends_with("That answer is lost: the client has closed the connection the request came on, and no socket takes it in."),
        "{said}"
    );
    assert!(!said.contains("the link is cut"), "{said}");
}
