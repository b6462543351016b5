//! Golden traces G1–G7 and G13–G15 of kafka-replication-semantics.md §9, the
//! seed walkthrough step by step, and the real-cluster figures of §11.
//!
//! Kafka's unit tests set partition state directly; here every state is reached
//! through a scenario (initial LEO, produces, crashes and cuts to hold a follower
//! back), and each test asserts the values the Kafka test asserts, read off the
//! step records a user sees. Where a golden cannot be reproduced exactly, the
//! test says so and checks its essence.

mod support;

use serde_json::{json, Value};
use support::*;

// ---------------------------------------------------------------------------
// The seed walkthrough (built-in `seed-walkthrough`), step by step.
// ---------------------------------------------------------------------------

/// Under `textbook`: Fetch #1 brings the five records with HW 100, the follower's
/// HW stays 100; Fetch #2 reports LEO 105, the leader moves its HW to 105 and that
/// very response carries 105 back. Then the idle follower polls every
/// replica.fetch.wait.max.ms instead of spinning.
#[test]
fn seed_walkthrough_step_by_step_under_textbook() {
    let json = hwscope::builtin::json("seed-walkthrough").expect("built-in seed-walkthrough");
    assert_eq!(scenario(json).preset.name(), "textbook");
    let t = Trace::of(json);
    let s = &t.steps;

    // Step 0: LEO = HW = 100 on both, nothing happened yet.
    assert!(s[0]["event"].is_null());
    assert_eq!((leo(&s[0], 0), hw(&s[0], 0), leo(&s[0], 1), hw(&s[0], 1)), (100, 100, 100, 100));
    assert_eq!(isr(&s[0]), vec![0, 1]);

    let names = json!(["p1-1", "p1-2", "p1-3", "p1-4", "p1-5"]);
    // Step 1 (t=0): the producer sends five records.
    assert!(event_matches(&s[1], &json!({"type": "produce", "producer": "p1", "records": names, "acks": "all"})), "{}", line(&s[1]));
    assert_eq!(time(&s[1]), 0);

    // Step 2 (t=1): the leader appends them at 100–104; its HW stays 100.
    assert!(
        event_matches(
            &s[2],
            &json!({"type": "produce_request", "from": "p1", "to": 0, "first_offset": 100, "leo_after": 105, "outcome": "appended"})
        ),
        "{}",
        line(&s[2])
    );
    assert_eq!(time(&s[2]), 1);
    assert_eq!((leo(&s[2], 0), hw(&s[2], 0), leo(&s[2], 1), hw(&s[2], 1)), (105, 100, 100, 100));
    assert_eq!(log_ids(&s[2], 0), strs(&names));
    assert!(log_ids(&s[2], 1).is_empty());

    // Step 3 (t=20): Fetch #1 (offset 100) reaches the leader; answered at once with the five records and HW 100.
    assert!(
        event_matches(
            &s[3],
            &json!({"type": "fetch_request", "from": 1, "to": 0, "fetch_offset": 100, "hw_after": 100, "outcome": "answered"})
        ),
        "{}",
        line(&s[3])
    );
    assert_eq!(time(&s[3]), 20);
    let resp = sent(&s[3]);
    assert_eq!(resp.len(), 1, "{}", line(&s[3]));
    assert!(
        subset(&json!({"type": "fetch_response", "from": 0, "to": 1, "records": 5, "hw": 100, "sent_ms": 20, "arrive_ms": 40}), resp[0]),
        "{}",
        resp[0]
    );

    // Step 4 (t=40): the follower appends; HW = min(100, 105) = 100.
    assert!(
        event_matches(&s[4], &json!({"type": "fetch_response", "from": 0, "to": 1, "records": 5, "ids": names, "hw": 100})),
        "{}",
        line(&s[4])
    );
    assert_eq!(time(&s[4]), 40);
    assert_eq!((leo(&s[4], 1), hw(&s[4], 1)), (105, 100));
    assert_eq!(log_ids(&s[4], 1), strs(&names));

    // Step 5 (t=60): Fetch #2 reports LEO 105; the leader moves its HW 100 → 105 and answers with it.
    assert!(
        event_matches(
            &s[5],
            &json!({"type": "fetch_request", "from": 1, "fetch_offset": 105, "hw_before": 100, "hw_after": 105, "outcome": "answered"})
        ),
        "{}",
        line(&s[5])
    );
    assert_eq!(time(&s[5]), 60);
    assert_eq!(hw(&s[5], 0), 105);
    assert_eq!(hw(&s[5], 1), 100, "the follower does not know yet");
    let resp = sent(&s[5]);
    let fetch_resp: Vec<_> = resp.iter().filter(|m| m["type"] == "fetch_response").collect();
    assert_eq!(fetch_resp.len(), 1);
    assert!(
        subset(&json!({"records": 0, "hw": 105, "arrive_ms": 80}), fetch_resp[0]),
        "textbook: the response carries the HW this fetch produced: {}",
        fetch_resp[0]
    );

    // Step 6 (t=61): the producer is acknowledged.
    assert!(event_matches(&s[6], &json!({"type": "produce_response", "from": 0, "to": "p1"})), "{}", line(&s[6]));
    assert_eq!(time(&s[6]), 61);
    assert_eq!(strs(&producer(&s[6], "p1")["acked"]), strs(&names));

    // Step 7 (t=80): the follower learns HW 105.
    assert!(
        event_matches(&s[7], &json!({"type": "fetch_response", "to": 1, "records": 0, "hw": 105, "hw_before": 100, "hw_after": 105})),
        "{}",
        line(&s[7])
    );
    assert_eq!(time(&s[7]), 80);
    assert_eq!((leo(&s[7], 1), hw(&s[7], 1)), (105, 105));

    // Step 8 (t=580): nothing new, so the textbook follower waited 500 ms before polling (no spinning).
    assert!(event_matches(&s[8], &json!({"type": "timeout", "timer": "fetcher-retry", "broker": 1})), "{}", line(&s[8]));
    assert_eq!(time(&s[8]), 580);
    let fetches: Vec<u64> = t.all(&json!({"type": "fetch_request"})).iter().map(|&i| time(&s[i])).collect();
    assert_eq!(fetches[..4], [20, 60, 600, 1140], "an idle textbook follower fetches once per replica.fetch.wait.max.ms + round trip");
    assert!(t.violations().is_empty(), "{:?}", t.violations());
}

/// The same scenario under `kafka-4.0`: Fetch #1 still carries HW 100, but Fetch #2
/// finds nothing new and is parked for replica.fetch.wait.max.ms; the follower
/// learns HW 105 only when it expires (560 ms + 20 ms on the wire).
#[test]
fn seed_walkthrough_under_kafka_4_0_parks_the_caught_up_fetch() {
    let base: Value = serde_json::from_str(hwscope::builtin::json("seed-walkthrough").unwrap()).unwrap();
    let t = Trace::of(&with_preset(&base, "kafka-4.0"));
    let f2 = t.find(0, &json!({"type": "fetch_request", "fetch_offset": 105}));
    assert!(event_matches(t.at(f2), &json!({"hw_before": 100, "hw_after": 105, "outcome": "parked"})), "{}", line(t.at(f2)));
    assert_eq!(time(t.at(f2)), 60);
    let parked = &replica(t.at(f2), 0)["parked"];
    assert!(
        parked.as_array().unwrap().iter().any(|p| subset(&json!({"kind": "fetch", "from": 1, "offset": 105, "expire_ms": 560}), p)),
        "{parked}"
    );
    let ack = t.find(f2, &json!({"type": "produce_response"}));
    assert_eq!(time(t.at(ack)), 61, "the producer is acked as soon as the leader's HW moves");
    let learn = t.find(f2, &json!({"type": "fetch_response", "to": 1}));
    assert_eq!(time(t.at(learn)), 580);
    assert!(event_matches(t.at(learn), &json!({"records": 0, "hw": 105, "hw_after": 105})), "{}", line(t.at(learn)));
    for i in f2..learn {
        assert_eq!(hw(t.at(i), 1), 100, "the follower's HW stays 100 until the parked fetch expires: {}", line(t.at(i)));
    }
}

// ---------------------------------------------------------------------------
// G1. HW propagation in steady state.
// ---------------------------------------------------------------------------

fn g1(variant: bool) -> Value {
    // Broker 0 → 2 takes 3 ms, so follower 2 ("F3") hears each response 2 ms after follower 1 ("F2"), as in the table.
    let mut events = vec![json!({"at_ms": 9, "produce": {"producer": "p1", "records": 1}})];
    if variant {
        events.push(json!({"at_ms": 99, "produce": {"producer": "p1", "records": 1}}));
    }
    json!({
        "format": 1, "replicas": 3, "config": {"min.insync.replicas": 2},
        "network": {"latency_ms": 1, "links": [{"from": 0, "to": 2, "latency_ms": 3}]},
        "events": events, "stop_at_ms": 600
    })
}

#[test]
fn g01_hw_propagation_in_steady_state() {
    let t = Trace::of_value(&g1(false));
    // Both followers' fetch(0) are parked before anything is written.
    for f in [1, 2] {
        let i = t.find(0, &json!({"type": "fetch_request", "from": f, "fetch_offset": 0}));
        assert!(event_matches(t.at(i), &json!({"outcome": "parked"})));
        assert_eq!(time(t.at(i)), 1);
    }
    // t=10: the record is appended; that releases both parked fetches with [0] and HW 0 (the SAME path).
    let p = t.find(0, &json!({"type": "produce_request", "outcome": "appended"}));
    assert_eq!(time(t.at(p)), 10);
    assert_eq!((leo(t.at(p), 0), hw(t.at(p), 0)), (1, 0));
    let released: Vec<&Value> = sent(t.at(p)).into_iter().filter(|m| m["type"] == "fetch_response").collect();
    assert_eq!(released.len(), 2, "{}", line(t.at(p)));
    for m in &released {
        assert!(subset(&json!({"records": 1, "hw": 0, "first_offset": 0}), m), "{m}");
    }
    // t=11: F2 appends, HW min(0, 1) = 0.
    let r1 = t.find(p, &json!({"type": "fetch_response", "to": 1}));
    assert_eq!((time(t.at(r1)), leo(t.at(r1), 1), hw(t.at(r1), 1)), (11, 1, 0));
    // t=12: the leader learns F2 is at 1; min(1, 1, 0) = 0; parked until 512.
    let f1 = t.find(r1, &json!({"type": "fetch_request", "from": 1, "fetch_offset": 1}));
    assert_eq!(time(t.at(f1)), 12);
    assert!(event_matches(t.at(f1), &json!({"hw_after": 0, "outcome": "parked"})), "{}", line(t.at(f1)));
    assert_eq!(follower_view(t.at(f1), 0, 1)["fetch_offset"], 1);
    // t=13: F3 appends.
    let r2 = t.find(f1, &json!({"type": "fetch_response", "to": 2}));
    assert_eq!((time(t.at(r2)), leo(t.at(r2), 2), hw(t.at(r2), 2)), (13, 1, 0));
    // t=14: F3's fetch(1) moves the HW to 1; F2's parked fetch stays parked (LOG_END: no new bytes).
    let f2 = t.find(r2, &json!({"type": "fetch_request", "from": 2, "fetch_offset": 1}));
    assert_eq!(time(t.at(f2)), 14);
    assert!(event_matches(t.at(f2), &json!({"hw_before": 0, "hw_after": 1, "outcome": "parked"})), "{}", line(t.at(f2)));
    assert!(sent(t.at(f2)).iter().all(|m| m["type"] != "fetch_response"), "an HW move releases no follower fetch: {}", line(t.at(f2)));
    let parked: Vec<Value> = replica(t.at(f2), 0)["parked"].as_array().unwrap().iter().filter(|p| p["kind"] == "fetch").cloned().collect();
    assert_eq!(
        parked,
        vec![
            json!({"kind": "fetch", "from": 1, "offset": 1, "expire_ms": 512}),
            json!({"kind": "fetch", "from": 2, "offset": 1, "expire_ms": 514})
        ]
    );
    // The produce is acked (the response reaches p1 at 15).
    let ack = t.find(f2, &json!({"type": "produce_response", "to": "p1"}));
    assert_eq!(time(t.at(ack)), 15);
    assert_eq!(strs(&producer(t.at(ack), "p1")["acked"]), vec!["p1-1"]);
    // The followers learn HW 1 only when their parked fetches expire (512 and 514).
    for (f, expire, arrive) in [(1u64, 512, 513), (2, 514, 517)] {
        let e = t.find(f2, &json!({"type": "timeout", "timer": "fetch-expiry", "to": f}));
        assert_eq!(time(t.at(e)), expire);
        let r = t.find(e, &json!({"type": "fetch_response", "to": f}));
        assert_eq!(time(t.at(r)), arrive);
        assert!(event_matches(t.at(r), &json!({"hw": 1, "hw_after": 1})), "{}", line(t.at(r)));
        assert_eq!(hw(t.at(r - 1), f as usize), 0, "follower {f} knew HW 0 until then");
    }
    assert!(t.violations().is_empty());
}

/// G1 variant: a produce at t=100 releases both parked fetches at once, and those
/// responses carry HW 1.
#[test]
fn g01_variant_new_data_releases_parked_fetches_carrying_the_new_hw() {
    let t = Trace::of_value(&g1(true));
    let p = t.find(0, &json!({"type": "produce_request", "records": ["p1-2"]}));
    assert_eq!(time(t.at(p)), 100);
    let released: Vec<&Value> = sent(t.at(p)).into_iter().filter(|m| m["type"] == "fetch_response").collect();
    assert_eq!(released.len(), 2, "{}", line(t.at(p)));
    for m in released {
        assert!(subset(&json!({"records": 1, "hw": 1, "first_offset": 1, "sent_ms": 100}), m), "{m}");
    }
    let r = t.find(p, &json!({"type": "fetch_response", "to": 1}));
    assert_eq!((time(t.at(r)), leo(t.at(r), 1), hw(t.at(r), 1)), (101, 2, 1));
    assert!(
        t.try_find(0, &json!({"type": "timeout", "timer": "fetch-expiry"})).is_none_or(|i| time(t.at(i)) > 100),
        "nothing expired before the produce released the fetches"
    );
}

// ---------------------------------------------------------------------------
// G2. ReplicaManagerTest.testFollowerFetchWithDefaultSelectorNoForcedHwPropagation
// ---------------------------------------------------------------------------

/// A follower's fetch that moves the leader's HW and is answered at once
/// (replica.fetch.min.bytes = 0 here, as the Kafka test sets minBytes 0) carries
/// the HW from *before* that fetch (0 here), although the producer is acked
/// (KAFKA-7104, `initialHighWatermark`). With minBytes > 0 the same fetch is parked
/// and its expiry, maxWait later, carries the new HW.
#[test]
fn g02_follower_fetch_with_default_selector_no_forced_hw_propagation() {
    // Part 1: minBytes 0 → answered at once with the HW from before.
    let t = Trace::of_value(&json!({
        "format": 1, "replicas": 2, "config": {"replica.fetch.min.bytes": 0},
        "events": [{"at_ms": 0, "produce": {"producer": "p1", "records": 2}}], "stop_at_ms": 8
    }));
    let f = t.find(0, &json!({"type": "fetch_request", "from": 1, "fetch_offset": 2}));
    assert!(event_matches(t.at(f), &json!({"hw_before": 0, "hw_after": 2, "outcome": "answered"})), "{}", line(t.at(f)));
    let resp: Vec<&Value> = sent(t.at(f)).into_iter().filter(|m| m["type"] == "fetch_response").collect();
    assert_eq!(resp.len(), 1, "{}", line(t.at(f)));
    assert_eq!(resp[0]["hw"], 0, "assertEquals(0, followerResult.assertFired.highWatermark)");
    let ack = t.find(f, &json!({"type": "produce_response", "to": "p1"}));
    assert!(t.at(ack)["event"]["error"].is_null());
    let r = t.find(f, &json!({"type": "fetch_response", "to": 1}));
    assert!(event_matches(t.at(r), &json!({"hw": 0, "hw_after": 0})), "{}", line(t.at(r)));
    assert!(time(t.at(ack)) <= time(t.at(r)), "the producer was acked while the follower heard HW 0");

    // Part 2: minBytes 1000, maxWait 1000 → fetch(2) parked; after maxWait it returns HW 2.
    let t = Trace::of_value(&json!({
        "format": 1, "replicas": 2, "record_bytes": 100,
        "config": {"replica.fetch.min.bytes": 1000, "replica.fetch.wait.max.ms": 1000},
        "events": [{"at_ms": 0, "produce": {"producer": "p1", "records": 2}}], "stop_at_ms": 2500
    }));
    // 200 bytes do not reach minBytes: the first fetch(0) waits its full maxWait too.
    let first = t.find(0, &json!({"type": "fetch_request", "fetch_offset": 0}));
    assert!(event_matches(t.at(first), &json!({"outcome": "parked"})));
    let p = t.find(0, &json!({"type": "produce_request"}));
    assert!(sent(t.at(p)).iter().all(|m| m["type"] != "fetch_response"), "200 bytes < replica.fetch.min.bytes");
    let f = t.find(0, &json!({"type": "fetch_request", "fetch_offset": 2}));
    assert!(event_matches(t.at(f), &json!({"hw_before": 0, "hw_after": 2, "outcome": "parked"})), "{}", line(t.at(f)));
    let e = t.find(f, &json!({"type": "timeout", "timer": "fetch-expiry"}));
    assert_eq!(time(t.at(e)) - time(t.at(f)), 1000, "answered only when replica.fetch.wait.max.ms expires");
    let r = t.find(e, &json!({"type": "fetch_response", "to": 1}));
    assert!(event_matches(t.at(r), &json!({"hw": 2, "hw_after": 2})), "{}", line(t.at(r)));
    for i in f..r {
        assert!(!event_matches(t.at(i), &json!({"type": "fetch_response"})), "nothing answers the parked fetch earlier: {}", line(t.at(i)));
    }
}

// ---------------------------------------------------------------------------
// G3. PartitionTest.testShouldNotShrinkIsrIfPreviousFetchIsCaughtUp
// ---------------------------------------------------------------------------

/// A follower whose every fetch offset is behind the leader's LEO *now*, but at
/// least the leader's LEO at its *previous* fetch, gets lastCaughtUpTimeMs = the
/// previous fetch's time, and so never leaves the ISR. The Kafka test's fixed
/// times (t0+5000, t0+10001) become a follower 20 ms away under a record every 5
/// ms: every fetch finds new data, none is ever at the LEO.
#[test]
fn g03_should_not_shrink_isr_if_previous_fetch_is_caught_up() {
    let t = Trace::of_value(&json!({
        "format": 1, "replicas": 2, "initial": {"log_end_offset": 10}, "config": {"replica.lag.time.max.ms": 1000},
        "network": {"latency_ms": 1, "links": [{"from": 0, "to": 1, "latency_ms": 20}, {"from": 1, "to": 0, "latency_ms": 20}]},
        "producers": [{"id": "p1", "acks": 1}],
        "events": [{"at_ms": 100, "produce": {"producer": "p1", "records": 1}, "repeat": {"count": 400, "every_ms": 5}}],
        "stop_at_ms": 2600
    }));
    let fetches = t.all(&json!({"type": "fetch_request", "from": 1}));
    assert!(fetches.len() > 50);
    let mut prev: Option<(u64, u64)> = None; // (time, leader LEO) at the previous fetch
    let mut behind = 0;
    for &i in &fetches {
        let r = t.at(i);
        let offset = r["event"]["fetch_offset"].as_u64().unwrap();
        let view = follower_view(r, 0, 1);
        if let Some((prev_time, prev_leo)) = prev {
            if (120..2100).contains(&time(r)) {
                // Never strictly caught up: the leader has moved on since.
                assert!(offset < leo(r, 0), "{}", line(r));
                assert!(offset >= prev_leo, "{}", line(r));
                behind += 1;
                // lastCaughtUp = the previous fetch's time (`Replica.updateFetchStateOrThrow`, second rule).
                assert_eq!(view["last_caught_up_ms"].as_u64(), Some(prev_time), "{}", line(r));
                // HW = the follower's fetch offset (min over the ISR).
                assert_eq!(r["event"]["hw_after"].as_u64(), Some(offset), "{}", line(r));
            }
        }
        prev = Some((time(r), leo(r, 0)));
    }
    assert!(behind > 40);
    // maybeShrinkIsr ran many times while the follower was never at the LEO: no shrink.
    let checks = t.all(&json!({"type": "timeout", "timer": "isr-expiration"}));
    assert!(checks.iter().filter(|&&i| time(t.at(i)) > 1200).count() >= 2);
    for &i in &checks {
        assert!(t.at(i)["event"]["outcome"].is_null(), "no shrink proposed: {}", line(t.at(i)));
    }
    assert!(t.steps.iter().all(|r| isr(r) == vec![0, 1]));
}

// ---------------------------------------------------------------------------
// G4. PartitionTest.testMaybeShrinkIsr
// ---------------------------------------------------------------------------

/// F2 never fetches past 0 (its link is cut), F1 fetches 10: the HW stays 0. The
/// first maybeShrinkIsr after the lag proposes {L, F1} but the maximal ISR is still
/// all three, so the HW stays 0; only the committed shrink moves it to 10 (and
/// completes the waiting acks=all produce).
#[test]
fn g04_maybe_shrink_isr() {
    let t = Trace::of_value(&json!({
        "format": 1, "replicas": 3,
        "producers": [{"id": "p1", "acks": "all", "request.timeout.ms": 60000}],
        "events": [{"at_ms": 0, "partition": {"between": [0, 2]}}, {"at_ms": 0, "produce": {"producer": "p1", "records": 10}}],
        "stop_at_ms": 46000
    }));
    let f1 = t.find(0, &json!({"type": "fetch_request", "from": 1, "fetch_offset": 10}));
    assert_eq!(t.at(f1)["event"]["hw_after"], 0);
    // Earlier checks (t0 and t0 + lag) find F2 within the lag: no change.
    let checks = t.all(&json!({"type": "timeout", "timer": "isr-expiration"}));
    let proposed = t.find(0, &json!({"type": "timeout", "timer": "isr-expiration", "outcome": "shrink-proposed"}));
    assert!(checks.iter().filter(|&&i| i < proposed).count() >= 2);
    assert_eq!(time(t.at(proposed)), 45000, "F2 last caught up at 1 ms; checks run every 15 s; out of sync once more than 30 s passed");
    assert!(event_matches(t.at(proposed), &json!({"isr_before": [0, 1, 2], "isr": [0, 1]})));
    // PendingShrink: the maximal ISR is still {0,1,2}, so the HW stays 0.
    assert_eq!(maximal_isr(t.at(proposed)), vec![0, 1, 2]);
    assert_eq!(hw(t.at(proposed), 0), 0);
    let sim_pending = t.find(proposed, &json!({"type": "alter_partition", "outcome": "committed"}));
    assert_eq!(isr(t.at(sim_pending)), vec![0, 1], "the controller has committed it");
    assert_eq!(hw(t.at(sim_pending), 0), 0, "the leader has not heard yet");
    // Commit reaches the leader: ISR {0,1}, partition epoch +1, HW 10, produce acked.
    let commit = t.find(proposed, &json!({"type": "isr_change", "to": 0}));
    assert!(event_matches(t.at(commit), &json!({"isr": [0, 1], "hw_before": 0, "hw_after": 10})), "{}", line(t.at(commit)));
    assert_eq!(
        t.at(commit)["partition"]["partition_epoch"].as_u64(),
        Some(t.at(proposed)["partition"]["partition_epoch"].as_u64().unwrap() + 1)
    );
    let ack = t.find(commit, &json!({"type": "produce_response", "to": "p1"}));
    assert!(t.at(ack)["event"]["error"].is_null());
    assert_eq!(strs(&producer(t.at(ack), "p1")["acked"]).len(), 10);
}

// ---------------------------------------------------------------------------
// G5. PartitionTest.testHighWatermarkAdvanceShouldNotAdvanceWhenUnderMinISR
// ---------------------------------------------------------------------------

fn g5() -> Value {
    // Brokers 1 ms apart, the controller 10 ms away: an AlterPartition round trip
    // (20 ms) is slower than a fetch round trip, so F2's fetch(10) arrives while
    // its expansion is still pending, as in the Kafka test.
    let mut links = Vec::new();
    for a in 0..3 {
        for b in 0..3 {
            if a != b {
                links.push(json!({"from": a, "to": b, "latency_ms": 1}));
            }
        }
    }
    json!({
        "format": 1, "replicas": 3,
        "config": {"min.insync.replicas": 3, "replica.lag.time.max.ms": 1000, "replica.socket.timeout.ms": 1000, "replica.fetch.backoff.ms": 100},
        "network": {"latency_ms": 10, "links": links},
        "producers": [{"id": "p1", "acks": 1}],
        "events": [
            {"at_ms": 0, "partition": {"between": [0, 2]}},
            {"at_ms": 2600, "produce": {"producer": "p1", "records": 10}},
            {"at_ms": 3100, "heal": {"between": [0, 2]}}
        ],
        "stop_at_ms": 4000
    })
}

#[test]
fn g05_high_watermark_advance_should_not_advance_when_under_min_isr() {
    let t = Trace::of_value(&g5());
    // The ISR is {L, F1} (F2 dropped for lag) before F1 fetches 10.
    let shrunk = t.find(0, &json!({"type": "isr_change", "isr": [0, 1]}));
    let f1 = t.find(shrunk, &json!({"type": "fetch_request", "from": 1, "fetch_offset": 10}));
    assert!(event_matches(t.at(f1), &json!({"hw_before": 0, "hw_after": 0})), "F1 fetch(10): HW 0 under min ISR: {}", line(t.at(f1)));
    assert_eq!(maximal_isr(t.at(f1)), vec![0, 1]);
    // F2 returns: its first fetch proposes the expansion (maximal ISR 3) …
    let f2a = t.find(f1, &json!({"type": "fetch_request", "from": 2}));
    assert_eq!((maximal_isr(t.at(f2a)), isr(t.at(f2a))), (vec![0, 1, 2], vec![0, 1]), "{}", line(t.at(f2a)));
    // … and F2's fetch(10), while the expansion is pending, still leaves the HW at 0.
    let f2 = t.find(f2a, &json!({"type": "fetch_request", "from": 2, "fetch_offset": 10}));
    assert!(event_matches(t.at(f2), &json!({"hw_before": 0, "hw_after": 0})), "{}", line(t.at(f2)));
    assert_eq!(maximal_isr(t.at(f2)), vec![0, 1, 2]);
    assert_eq!(follower_view(t.at(f2), 0, 2)["fetch_offset"], 10);
    assert_eq!(follower_view(t.at(f2), 0, 1)["fetch_offset"], 10);
    // The committed expansion moves it to 10.
    let commit = t.find(f2, &json!({"type": "isr_change", "to": 0}));
    assert!(event_matches(t.at(commit), &json!({"isr": [0, 1, 2], "hw_before": 0, "hw_after": 10})), "{}", line(t.at(commit)));
    assert!(t.violations().is_empty());
}

/// Before 3.7 (KAFKA-15583) nothing holds the HW under min ISR: the committed
/// shrink to {L, F1} moves it to 10 at once, while under 4.0 it stays 0.
#[test]
fn g05_before_kafka_3_7_the_hw_advances_under_min_isr() {
    for (preset, want) in [("kafka-2.8", 10), ("kafka-4.0", 0)] {
        let t = Trace::of(&with_preset(&g5(), preset));
        let shrunk = t.find(0, &json!({"type": "isr_change", "to": 0, "isr": [0, 1]}));
        assert_eq!(hw(t.at(shrunk), 0), want, "{preset}: {}", line(t.at(shrunk)));
        let f1 = t.find(shrunk, &json!({"type": "fetch_request", "from": 1, "fetch_offset": 10}));
        assert_eq!(t.at(f1)["event"]["hw_after"], want, "{preset}: {}", line(t.at(f1)));
    }
}

// ---------------------------------------------------------------------------
// G6. PartitionTest.testHighWatermarkIncreasesWithFencedOrShutdownFollower
// ---------------------------------------------------------------------------

fn g6() -> Value {
    json!({
        "format": 1, "replicas": 2, "initial": {"log_end_offset": 10},
        "producers": [{"id": "p1", "acks": 1}],
        "events": [{"at_ms": 100, "crash": {"broker": 1}}, {"at_ms": 200, "produce": {"producer": "p1", "records": 10}}],
        "stop_at_ms": 12000
    })
}

/// F is at 10 (HW 10); it stops; the leader appends 10 more (LEO 20); the
/// controller fences F and the metadata shrinks the ISR to {L} in the same leader
/// epoch. A fenced follower is not ISR-eligible, so the HW goes to 20 (3.6+,
/// KAFKA-15021). The Kafka test's unfenced case cannot be built with the scenario
/// format (only fencing takes a caught-up follower out of the ISR), so its
/// essence is shown with the rule before eligibility counted (`hw_counts`
/// `maximal-isr-or-caught-up`): the caught-up follower still holds the HW at 10.
/// Under `kafka-2.8` (ZooKeeper) the controller's removal bumps the leader epoch,
/// and the leader's `makeLeader` in that epoch counts the dead follower as never
/// caught up: the HW goes to 20 too, in leader epoch 1.
#[test]
fn g06_high_watermark_increases_with_fenced_or_shutdown_follower() {
    let before_3_6 = {
        let mut v = g6();
        v["behavior"] = json!({"hw_counts": "maximal-isr-or-caught-up"});
        v
    };
    let cases = [
        ("kafka-4.0", g6(), 20, 0, "isr-update"),
        ("kafka-3.7", g6(), 20, 0, "isr-update"),
        ("kafka-4.0", before_3_6, 10, 0, "isr-update"),
        ("kafka-2.8", g6(), 20, 1, "become-leader"),
    ];
    for (preset, scenario, want, epoch, outcome) in cases {
        let t = Trace::of(&with_preset_same_detection(&scenario, preset));
        let p = t.find(0, &json!({"type": "produce_request", "outcome": "appended"}));
        assert_eq!((leo(t.at(p), 0), hw(t.at(p), 0)), (20, 10), "{preset}");
        let fenced = detected(&t, p, 1);
        // Fencing is KRaft's; the ZooKeeper era declares the broker dead through its watch.
        let zookeeper = !t.at(fenced)["controller"]["zookeeper"].is_null();
        assert_eq!(t.at(fenced)["replicas"][1]["fenced"], !zookeeper, "{preset}");
        let meta = t.find(fenced, &json!({"type": "leader_and_isr", "to": 0}));
        assert!(
            event_matches(t.at(meta), &json!({"outcome": outcome, "isr": [0], "leader_epoch": epoch})),
            "{preset}: {}",
            line(t.at(meta))
        );
        assert_eq!(hw(t.at(meta), 0), want, "{preset}: {}", line(t.at(meta)));
        assert_eq!(hw(t.last(), 0), want, "{preset}");
    }
}

// ---------------------------------------------------------------------------
// G7. PartitionTest.testFollowerDoesNotJoinISRUntilCaughtUpToOffsetWithinCurrentLeaderEpoch
// ---------------------------------------------------------------------------

/// After a leader change the new leader's epoch starts at its LEO (5). A follower
/// at 1 (≥ the HW 1, held under min ISR) is not added; once it fetches from 5 it is
/// (pending expansion, maximal ISR), and the committed expansion moves the HW.
#[test]
fn g07_follower_does_not_join_isr_until_caught_up_to_offset_within_current_leader_epoch() {
    let t = Trace::of_value(&json!({
        "format": 1, "replicas": 3, "initial": {"log_end_offset": 1},
        "config": {"min.insync.replicas": 2, "replica.lag.time.max.ms": 1000},
        "producers": [{"id": "p1", "acks": 1}],
        "events": [
            {"at_ms": 0, "partition": {"between": [0, 1]}},
            {"at_ms": 2400, "produce": {"producer": "p1", "records": 4}},
            {"at_ms": 2600, "crash": {"broker": 0}},
            {"at_ms": 2600, "heal": {"between": [0, 1]}}
        ],
        "stop_at_ms": 12000
    }));
    // F1 (cut off) leaves the ISR; F2 gets the four records but not yet the HW.
    let shrink = t.find(0, &json!({"type": "isr_change", "to": 0, "isr": [0, 2]}));
    assert!(time(t.at(shrink)) < 2600);
    let crash = t.find(0, &json!({"type": "crash", "broker": 0}));
    assert_eq!((leo(t.at(crash), 2), hw(t.at(crash), 2), leo(t.at(crash), 1)), (5, 1, 1));
    // Broker 2 becomes leader in epoch 1; its epoch starts at 5; its HW stays 1 (ISR {2} under min ISR).
    let lead = t.find(crash, &json!({"type": "leader_and_isr", "to": 2, "outcome": "become-leader"}));
    assert_eq!(t.at(lead)["replicas"][2]["epoch_cache"], json!([[0, 0], [1, 5]]));
    assert_eq!(hw(t.at(lead), 2), 1);
    // F1 fetch(1): 1 ≥ HW but < epoch start 5 → not added.
    let f1 = t.find(lead, &json!({"type": "fetch_request", "from": 1, "to": 2, "fetch_offset": 1}));
    assert_eq!(maximal_isr(t.at(f1)), vec![2], "{}", line(t.at(f1)));
    assert!(sent(t.at(f1)).iter().all(|m| m["type"] != "alter_partition"));
    // F1 fetch(5): PendingExpand; committed ISR {2}, maximal {1, 2}.
    let f5 = t.find(f1, &json!({"type": "fetch_request", "from": 1, "to": 2, "fetch_offset": 5}));
    assert_eq!((isr(t.at(f5)), maximal_isr(t.at(f5))), (vec![2], vec![1, 2]), "{}", line(t.at(f5)));
    assert_eq!(hw(t.at(f5), 2), 1, "the committed ISR is under min ISR: the HW is held");
    let commit = t.find(f5, &json!({"type": "isr_change", "to": 2}));
    assert!(event_matches(t.at(commit), &json!({"isr": [1, 2], "hw_before": 1, "hw_after": 5})), "{}", line(t.at(commit)));
}

// ---------------------------------------------------------------------------
// G13. Fetch from follower (KIP-392), with the §11 correction.
// ---------------------------------------------------------------------------

fn g13() -> Value {
    // Follower 1 loses its last two records in a crash and is back at once (a
    // registration the controller takes straight away, the ZooKeeper era's idealised
    // bounce, `restart_inside_zookeeper_session_fails` off: a killed ZooKeeper-era broker
    // would fail with NodeExists; under KRaft a restarted broker is fenced until it has
    // caught up, and the leader never names it). Its fetches cannot reach the leader for a while (a one-way
    // cut), so the leader still believes it is at 100 and names it to the consumer,
    // whose fetch at 100 is above its LEO (98).
    json!({
        "format": 1, "replicas": 2, "initial": {"log_end_offset": 100},
        "behavior": {"broker_liveness": "zookeeper-session", "restart_inside_zookeeper_session_fails": false},
        "config": {"replica.socket.timeout.ms": 2000, "replica.fetch.backoff.ms": 100},
        "producers": [{"id": "p1", "acks": 1}],
        "consumers": [{"id": "c-f", "fetch_from": 1, "request.timeout.ms": 1000}],
        "events": [
            {"at_ms": 10, "crash": {"broker": 1, "unflushed": 2}},
            {"at_ms": 20, "partition": {"from": 1, "to": 0}},
            {"at_ms": 30, "restart": {"broker": 1}},
            {"at_ms": 300, "heal": {"from": 1, "to": 0}},
            {"at_ms": 1500, "produce": {"producer": "p1", "records": 1}}
        ],
        "stop_at_ms": 2500
    })
}

#[test]
fn g13_fetch_from_follower() {
    let t = Trace::of_value(&g13());
    // fetch(100) at F (LEO 98) → OFFSET_OUT_OF_RANGE; the consumer forgets its preferred replica and asks the leader, at the same offset.
    let oor = t.find(0, &json!({"type": "consumer_fetch_response", "from": 1, "to": "c-f", "error": "OFFSET_OUT_OF_RANGE"}));
    assert_eq!(leo(t.at(oor), 1), 98);
    assert_eq!(t.at(oor)["event"]["offset"], 100);
    let next = t.find(oor, &json!({"type": "consumer_fetch_request", "from": "c-f"}));
    assert!(event_matches(t.at(next), &json!({"to": 0, "offset": 100})), "the next fetch goes to the leader: {}", line(t.at(next)));
    assert_eq!(consumer(t.at(next), "c-f")["position"], 100, "no offset reset");
    // Once the leader hears follower 1 is at 98 it stops naming it until it has caught up.
    let learns = t.find(next, &json!({"type": "fetch_request", "from": 1, "fetch_offset": 98}));
    // (An answer already on its way when the follower catches up may still arrive; none after.)
    let caught = t.find(learns, &json!({"type": "fetch_response", "to": 1, "outcome": "appended"}));
    let late = t.all(&json!({"type": "consumer_fetch_response", "from": 1, "error": "OFFSET_OUT_OF_RANGE"}));
    assert!(late.iter().all(|&i| time(t.at(i)) <= time(t.at(caught)) + 1), "{late:?} after {}", line(t.at(caught)));
    assert_eq!(consumer(t.last(), "c-f")["read"], json!(["p1-1"]));
    assert!(t.violations().is_empty(), "{:?}", t.violations());

    let t = Trace::of_value(&g13_above_hw_scenario());
    // The fetch above F's HW (not above its LEO) is answered at once with no records
    // (DelayedFetch Case F, §11), so the consumer asks again and again.
    let above = (0..t.len())
        .find(|&i| {
            let r = t.at(i);
            let o = r["event"]["offset"].as_u64().unwrap_or(0);
            event_matches(r, &json!({"type": "consumer_fetch_request", "to": 1})) && o > hw(r, 1) && o <= leo(r, 1)
        })
        .expect("a consumer fetch above follower 1's HW");
    assert!(event_matches(t.at(above), &json!({"outcome": "answered"})), "{}", line(t.at(above)));
    let offset = t.at(above)["event"]["offset"].as_u64().unwrap();
    let learn = t.find(above, &json!({"type": "fetch_response", "to": 1, "hw_after": offset}));
    let spins =
        (above..learn).filter(|&i| event_matches(t.at(i), &json!({"type": "consumer_fetch_response", "from": 1, "records": []}))).count();
    assert!(spins >= 2, "the consumer re-fetches every round trip until F's HW catches up ({spins} empty answers)");
    // At F's HW the fetch parks; when F learns a higher HW it releases it at once (KAFKA-14334).
    let parked = t.find(learn, &json!({"type": "consumer_fetch_request", "to": 1, "outcome": "parked"}));
    let at = t.at(parked)["event"]["offset"].as_u64().unwrap();
    let moved = t.find(parked, &json!({"type": "fetch_response", "to": 1, "hw_after": at + 1}));
    let deliver = t.find(moved, &json!({"type": "consumer_fetch_response", "from": 1, "to": "c-f"}));
    assert_eq!(time(t.at(deliver)), time(t.at(moved)) + 1, "released by the follower's HW move, delivered one hop later");
    assert_eq!(t.at(deliver)["event"]["offset"], at);
    assert!(t.violations().is_empty(), "{:?}", t.violations());
}

/// Before KAFKA-14334 (3.4) and Case F, the same fetch above F's HW is parked for
/// fetch.max.wait.ms, and an HW move on the follower does not release it.
#[test]
fn g13_before_kafka_3_4_a_fetch_above_the_hw_parks() {
    // The consumer must leave the cut follower at its refresh, which 2.8's leader does
    // not allow (KAFKA-14372 came in 3.3.2), and be sent back to it at once (KAFKA-13767,
    // 3.2): those two switches are set as in 3.3.2.
    let mut s = g13_above_hw_scenario();
    s["behavior"] = json!({"preferred_read_replica_in_isr": true, "preferred_read_replica_answers_at_once": true});
    let t = Trace::of(&with_preset(&s, "kafka-2.8"));
    let above = (0..t.len())
        .find(|&i| {
            let r = t.at(i);
            let o = r["event"]["offset"].as_u64().unwrap_or(0);
            event_matches(r, &json!({"type": "consumer_fetch_request", "to": 1})) && o > hw(r, 1) && o <= leo(r, 1)
        })
        .expect("a consumer fetch above follower 1's HW");
    assert!(event_matches(t.at(above), &json!({"outcome": "parked"})), "{}", line(t.at(above)));
    let hw_move = t.find(above, &json!({"type": "fetch_response", "to": 1, "outcome": "appended"}));
    assert!(sent(t.at(hw_move)).iter().all(|m| m["type"] != "consumer_fetch_response"), "{}", line(t.at(hw_move)));
}

// ---------------------------------------------------------------------------
// G14. IsrExpirationTest.testIsrExpirationForSlowFollowers (lag 100 ms)
// ---------------------------------------------------------------------------

/// A follower that fetches one record per round trip (replica.fetch.max.bytes =
/// one record) is never at the leader's LEO and never at the LEO of its previous
/// fetch: lastCaughtUp stays put, it is out of sync after the lag, and back in the
/// ISR when a fetch reaches the leader's LEO.
#[test]
fn g14_isr_expiration_for_slow_followers() {
    let t = Trace::of_value(&json!({
        "format": 1, "replicas": 2, "record_bytes": 100,
        "config": {"replica.lag.time.max.ms": 100, "replica.fetch.max.bytes": 100},
        "network": {"latency_ms": 10},
        "producers": [{"id": "p1", "acks": 1}],
        "events": [{"at_ms": 90, "produce": {"producer": "p1", "records": 20}}],
        "stop_at_ms": 600
    }));
    let first = t.find(0, &json!({"type": "fetch_request", "fetch_offset": 0}));
    let caught_up = follower_view(t.at(first), 0, 1)["last_caught_up_ms"].as_u64().unwrap();
    assert_eq!(caught_up, time(t.at(first)));
    // Each later fetch gets one record: fetch(2), fetch(3), … never reach the LEO (20) → lastCaughtUp stays.
    for off in 2..20u64 {
        let i = t.find(0, &json!({"type": "fetch_request", "fetch_offset": off}));
        assert_eq!(follower_view(t.at(i), 0, 1)["last_caught_up_ms"].as_u64(), Some(caught_up), "fetch({off}): {}", line(t.at(i)));
        assert_eq!(
            t.at(i)["event"]["fetch_offset"].as_u64().unwrap() + 1,
            t.at(t.find(i, &json!({"type": "fetch_response"})))["event"]["leo_after"].as_u64().unwrap(),
            "one record per fetch"
        );
    }
    // Out of sync at the first check more than 100 ms after it last caught up.
    let shrink = t.find(0, &json!({"type": "timeout", "timer": "isr-expiration", "outcome": "shrink-proposed"}));
    assert!(time(t.at(shrink)) - caught_up > 100);
    assert!(time(t.at(shrink)) - caught_up <= 150, "checked every lag/2");
    let earlier = t.all(&json!({"type": "timeout", "timer": "isr-expiration"}));
    assert!(earlier.iter().any(|&i| i < shrink && time(t.at(i)) - caught_up <= 100), "a check within the lag found it in sync");
    let out = t.find(shrink, &json!({"type": "isr_change", "isr": [0]}));
    // fetch(20) reaches the LEO: back in sync, lastCaughtUp = now, ISR {0,1}.
    let f20 = t.find(out, &json!({"type": "fetch_request", "fetch_offset": 20}));
    assert_eq!(follower_view(t.at(f20), 0, 1)["last_caught_up_ms"].as_u64(), Some(time(t.at(f20))));
    assert_eq!(maximal_isr(t.at(f20)), vec![0, 1]);
    let back = t.find(f20, &json!({"type": "isr_change", "isr": [0, 1]}));
    assert_eq!(isr(t.at(back)), vec![0, 1]);
}

// ---------------------------------------------------------------------------
// G15. acks and min ISR.
// ---------------------------------------------------------------------------

/// minISR 2, ISR {L} (the follower died and was fenced): acks=all is refused with
/// NOT_ENOUGH_REPLICAS and nothing is appended; acks=1 is appended and acked. The
/// HW stays put from 3.7 (KAFKA-15583); before, it moves to the LEO (once the dead
/// follower no longer counts as caught up, 30 s after its last fetch).
#[test]
fn g15_acks_and_min_isr() {
    let base = json!({
        "format": 1, "replicas": 2, "initial": {"log_end_offset": 10}, "config": {"min.insync.replicas": 2},
        "producers": [{"id": "p-all", "acks": "all"}, {"id": "p-one", "acks": 1}],
        "events": [
            {"at_ms": 100, "crash": {"broker": 1}},
            {"at_ms": 40000, "produce": {"producer": "p-all", "records": 1}},
            {"at_ms": 40100, "produce": {"producer": "p-one", "records": 1}}
        ],
        "stop_at_ms": 40200
    });
    for (preset, hw_after) in
        [("kafka-4.0", 10), ("kafka-3.7", 10), ("kafka-2.8", 11), ("kafka-2.0", 11), ("kafka-0.10", 11), ("textbook", 11)]
    {
        let t = Trace::of(&with_preset(&base, preset));
        let all = t.find(0, &json!({"type": "produce_request", "from": "p-all"}));
        assert_eq!(isr(t.at(all)), vec![0], "{preset}");
        assert!(event_matches(t.at(all), &json!({"outcome": "error", "error": "NOT_ENOUGH_REPLICAS"})), "{preset}: {}", line(t.at(all)));
        assert_eq!(leo(t.at(all), 0), 10, "{preset}: nothing appended");
        let resp = t.find(all, &json!({"type": "produce_response", "to": "p-all"}));
        // NOT_ENOUGH_REPLICAS is retriable: Kafka's producer keeps the record and retries it
        // until delivery.timeout.ms (docs/exactness.md F5); before 2.1 `retries` is 0 (KIP-91)
        // and the write fails at once.
        if ["kafka-2.0", "kafka-0.10"].contains(&preset) {
            assert!(
                event_matches(t.at(resp), &json!({"error": "NOT_ENOUGH_REPLICAS", "outcome": "failed"})),
                "{preset}: {}",
                line(t.at(resp))
            );
            assert_eq!(strs(&producer(t.at(resp), "p-all")["failed"]), vec!["p-all-1"], "{preset}");
        } else {
            assert!(
                event_matches(t.at(resp), &json!({"error": "NOT_ENOUGH_REPLICAS", "outcome": "retry"})),
                "{preset}: {}",
                line(t.at(resp))
            );
            assert_eq!(strs(&producer(t.at(resp), "p-all")["pending"]), vec!["p-all-1"], "{preset}");
        }
        let one = t.find(all, &json!({"type": "produce_request", "from": "p-one"}));
        assert!(event_matches(t.at(one), &json!({"outcome": "appended", "leo_after": 11})), "{preset}: {}", line(t.at(one)));
        assert_eq!(hw(t.at(one), 0), hw_after, "{preset}");
        let ack = t.find(one, &json!({"type": "produce_response", "to": "p-one"}));
        assert_eq!(strs(&producer(t.at(ack), "p-one")["acked"]), vec!["p-one-1"], "{preset}");
        assert_eq!(log_ids(t.last(), 0), vec!["p-one-1"], "{preset}");
    }
    // With retries = 0 the same write fails at once.
    let mut no_retries = base.clone();
    no_retries["producers"][0]["retries"] = json!(0);
    let t = Trace::of_value(&no_retries);
    let resp = t.find(0, &json!({"type": "produce_response", "to": "p-all"}));
    assert_eq!(strs(&producer(t.at(resp), "p-all")["failed"]), vec!["p-all-1"]);
}

// ---------------------------------------------------------------------------
// §11: measured on a real Kafka cluster (4.0-SNAPSHOT, RF 3, min ISR 2).
// ---------------------------------------------------------------------------

fn measurement(wait_ms: u64, records: u64, every_ms: u64) -> String {
    json!({
        "format": 1, "replicas": 3,
        "config": {"min.insync.replicas": 2, "replica.fetch.wait.max.ms": wait_ms},
        "consumers": [{"id": "c-leader"}, {"id": "c-follower", "fetch_from": 2}],
        "events": [{"at_ms": 1000, "produce": {"producer": "p1", "records": 1}, "repeat": {"count": records, "every_ms": every_ms}}],
        "stop_at_ms": 1000 + records * every_ms + 3000
    })
    .to_string()
}

/// (record id, follower reader's time − leader reader's time), in produce order.
fn reader_lag(json: &str, records: u64) -> Vec<(String, i64)> {
    reader_lag_of(&Events::of(json), records)
}

fn reader_lag_of(ev: &Events, records: u64) -> Vec<(String, i64)> {
    let leader = ev.delivered("c-leader");
    let follower = ev.delivered("c-follower");
    (1..=records)
        .map(|n| {
            let id = format!("p1-{n}");
            let l = leader.get(&id).unwrap_or_else(|| panic!("c-leader never got {id}"));
            let f = follower.get(&id).unwrap_or_else(|| panic!("c-follower never got {id}"));
            (id, *f as i64 - *l as i64)
        })
        .collect()
}

/// Idle partition, 15 records 2 s apart: the follower's reader trails the
/// leader's by replica.fetch.wait.max.ms plus one round trip (measured 102.0,
/// 503.5 and 1002.0 ms median), within ±10 ms, for every record; the acks=all
/// producer is acknowledged within a few ms all the same.
#[test]
fn real_cluster_idle_partition_follower_reader_trails_by_the_fetch_wait() {
    let round_trip = 2;
    for wait in [100i64, 500, 1000] {
        let ev = Events::of(&measurement(wait as u64, 15, 2000));
        let lags = reader_lag_of(&ev, 15);
        for (id, lag) in &lags {
            assert!((lag - (wait + round_trip)).abs() <= 10, "wait {wait}: {id} seen {lag} ms later by the follower's reader");
        }
        // Meanwhile acks=all completes within a few ms whatever the wait (measured 5.7–24.6 ms).
        let sent: Vec<u64> = ev.steps.iter().filter(|(_, _, e)| e["type"] == "produce").map(|(_, t, _)| *t).collect();
        let acked: Vec<u64> =
            ev.steps.iter().filter(|(_, _, e)| e["type"] == "produce_response" && e["error"].is_null()).map(|(_, t, _)| *t).collect();
        assert_eq!(sent.len(), 15);
        assert_eq!(acked.len(), 15, "wait {wait}");
        for (s, a) in sent.iter().zip(&acked) {
            assert!(a - s <= 10, "wait {wait}: acks=all took {} ms", a - s);
        }
    }
}

/// A record every 20 ms for 10 s: the follower's parked fetch is released by the
/// next record and carries the HW, so the follower's reader trails by about the
/// gap between records (measured 18.3–18.6 ms), whatever the wait; the last
/// record of the burst waits the full replica.fetch.wait.max.ms again.
#[test]
fn real_cluster_under_load_follower_reader_trails_by_the_gap_between_records() {
    for wait in [100i64, 500, 1000] {
        let lags = reader_lag(&measurement(wait as u64, 500, 20), 500);
        let (last, steady) = lags.split_last().unwrap();
        for (id, lag) in steady {
            assert!(*lag > 0 && *lag < 25, "wait {wait}: {id} seen {lag} ms later by the follower's reader");
        }
        let mut sorted: Vec<i64> = steady.iter().map(|l| l.1).collect();
        sorted.sort_unstable();
        let median = sorted[sorted.len() / 2];
        assert!((15..=22).contains(&median), "wait {wait}: median {median} ms, measured ~18.5");
        assert!((last.1 - (wait + 2)).abs() <= 10, "wait {wait}: the burst's last record {} trails by {} ms", last.0, last.1);
    }
}

// ---------------------------------------------------------------------------
// kafka-2.4 (KIP-392, KAFKA-8443; removed in 2.6 by KAFKA-9952): an HW move
// answers followers whose last heard HW is stale (DelayedFetch "Case H").
// ---------------------------------------------------------------------------

/// G1 under kafka-2.4: when F3's fetch moves the HW to 1, F2's parked fetch is
/// released at once carrying HW 1, instead of waiting 500 ms.
#[test]
fn kafka_2_4_an_hw_move_releases_parked_follower_fetches() {
    let t = Trace::of(&with_preset(&g1(false), "kafka-2.4"));
    let f2 = t.find(0, &json!({"type": "fetch_request", "from": 2, "fetch_offset": 1}));
    assert!(event_matches(t.at(f2), &json!({"hw_after": 1})), "{}", line(t.at(f2)));
    let to_f2: Vec<&Value> = sent(t.at(f2)).into_iter().filter(|m| m["type"] == "fetch_response" && m["to"] == 1).collect();
    assert_eq!(to_f2.len(), 1, "{}", line(t.at(f2)));
    assert_eq!(to_f2[0]["hw"], 1);
    let heard = t.find(f2, &json!({"type": "fetch_response", "to": 1}));
    assert_eq!((time(t.at(heard)), hw(t.at(heard), 1)), (15, 1));
    // And under 4.0 the same moment releases nothing (G1).
    let t = Trace::of_value(&g1(false));
    let f2 = t.find(0, &json!({"type": "fetch_request", "from": 2, "fetch_offset": 1}));
    assert!(sent(t.at(f2)).iter().all(|m| m["type"] != "fetch_response"));
}

/// In 2.4–2.5 a follower fetch that itself moves the HW is not answered by the
/// "needs HW update" check (it compares the HW read *before* the fetch updated
/// it), so it goes to the purgatory, where `tryCompleteElseWatch` runs Case H at
/// once (the HW now exceeds the follower's last sent HW) and `onComplete` reads
/// the log again: the response carries the *new* HW (ReplicaManager.fetchMessages
/// and DelayedFetch.tryComplete, 2.4.0). The follower knows HW 2 one round trip
/// after its fetch(2).
#[test]

fn kafka_2_4_a_fetch_that_moves_the_hw_is_answered_with_the_new_hw() {
    let t = Trace::of_value(&json!({
        "format": 1, "preset": "kafka-2.4", "replicas": 2,
        "events": [{"at_ms": 0, "produce": {"producer": "p1", "records": 2}}], "stop_at_ms": 600
    }));
    let f = t.find(0, &json!({"type": "fetch_request", "from": 1, "fetch_offset": 2}));
    assert_eq!(time(t.at(f)), 3);
    assert!(event_matches(t.at(f), &json!({"hw_before": 0, "hw_after": 2, "outcome": "answered"})), "{}", line(t.at(f)));
    let resp: Vec<&Value> = sent(t.at(f)).into_iter().filter(|m| m["type"] == "fetch_response").collect();
    assert_eq!(resp.len(), 1);
    assert_eq!(resp[0]["hw"], 2, "Case H completes the fetch with the HW as it is now: {}", resp[0]);
    let r = t.find(f, &json!({"type": "fetch_response", "to": 1}));
    assert_eq!((time(t.at(r)), hw(t.at(r), 1)), (4, 2));
}

/// G15's gate uses the *effective* min ISR, min(min.insync.replicas, RF)
/// (`Partition.effectiveMinIsr`, used by `appendRecordsToLeader` and
/// `checkEnoughReplicasReachOffset` at trunk): with RF 2 and
/// min.insync.replicas 3, a full ISR of 2 accepts acks=all writes, and the HW
/// (which the model already gates on the effective value) acknowledges them.
#[test]

fn g15_acks_all_counts_against_the_effective_min_isr() {
    let t = Trace::of_value(&json!({
        "format": 1, "replicas": 2, "config": {"min.insync.replicas": 3},
        "events": [{"at_ms": 0, "produce": {"producer": "p1", "records": 1}}], "stop_at_ms": 100
    }));
    let p = t.find(0, &json!({"type": "produce_request"}));
    assert!(event_matches(t.at(p), &json!({"outcome": "appended"})), "{}", line(t.at(p)));
    let ack = t.find(p, &json!({"type": "produce_response", "to": "p1"}));
    assert!(t.at(ack)["event"]["error"].is_null(), "{}", line(t.at(ack)));
    assert_eq!(strs(&producer(t.last(), "p1")["acked"]), vec!["p1-1"]);
}
