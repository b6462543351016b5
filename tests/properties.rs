//! Properties over random scenarios:
//! - without leader failures, every preset keeps every invariant, checked both by
//!   the model's own checker (`violations`) and independently from the step records;
//! - the same scenario gives byte-identical JSON Lines twice, and seeking back to a
//!   step gives that step's record again;
//! - under kafka-2.8, 3.7 and 4.0 with clean elections, random crash / restart /
//!   partition schedules never lose an acked record and never diverge, while under
//!   kafka-0.10 the same generator finds schedules that lose data.

mod support;

use hwscope::sim::Sim;
use hwscope::Run;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use support::*;

const PRESETS: [&str; 9] =
    ["textbook", "kafka-0.10", "kafka-0.11", "kafka-2.0", "kafka-2.4", "kafka-2.8", "kafka-3.7", "kafka-4.0", "latest"];

// ---------------------------------------------------------------------------
// Random scenarios.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Gen {
    preset: &'static str,
    seed: u64,
    replicas: u32,
    initial: u64,
    wait: u64,
    min_bytes: u64,
    max_bytes: u64,
    lag: u64,
    min_isr: u32,
    socket_timeout: u64,
    backoff: u64,
    record_bytes: u64,
    latency: u64,
    jitter: u64,
    links: Vec<(u32, u32, u64)>,
    producers: Vec<(u8, u64)>,
    consumers: Vec<(Option<u32>, u64, u64)>,
    events: Vec<(u64, u8, u32, u32, u32)>,
    stop: u64,
    leader_may_fail: bool,
}

fn arb_gen(leader_may_fail: bool) -> impl Strategy<Value = Gen> {
    (
        (
            0..PRESETS.len(),
            any::<u64>(),
            1u32..=5,
            0u64..200,
            prop::sample::select(vec![0u64, 10, 100, 500]),
            prop::sample::select(vec![0u64, 1, 100, 1000]),
        ),
        (
            prop::sample::select(vec![100u64, 1000, 1_048_576]),
            prop::sample::select(vec![100u64, 1000, 10_000, 30_000]),
            1u32..=5,
            prop::sample::select(vec![300u64, 30_000]),
            prop::sample::select(vec![10u64, 1000]),
        ),
        (prop::sample::select(vec![1u64, 100, 1000]), 1u64..=20, 0u64..=5, prop::collection::vec((0u32..5, 0u32..5, 1u64..=50), 0..3)),
        (
            prop::collection::vec((0u8..3, prop::sample::select(vec![200u64, 30_000])), 1..=3),
            prop::collection::vec(
                (prop::option::of(0u32..5), prop::sample::select(vec![0u64, 100, 500]), prop::sample::select(vec![300u64, 30_000])),
                0..=3,
            ),
        ),
        (prop::collection::vec((0u64..2000, 0u8..6, 0u32..5, 0u32..5, 0u32..4), 0..16), 300u64..2000),
    )
        .prop_map(
            move |(
                (p, seed, replicas, initial, wait, min_bytes),
                (max_bytes, lag, min_isr, socket_timeout, backoff),
                (record_bytes, latency, jitter, links),
                (producers, consumers),
                (events, stop),
            )| Gen {
                preset: PRESETS[p],
                seed,
                replicas,
                initial,
                wait,
                min_bytes,
                max_bytes,
                lag,
                min_isr: min_isr.min(replicas),
                socket_timeout,
                backoff,
                record_bytes,
                latency,
                jitter,
                links,
                producers,
                consumers,
                events,
                stop,
                leader_may_fail,
            },
        )
}

impl Gen {
    fn json(&self) -> Value {
        let n = self.replicas;
        // A zero wait or zero min bytes makes fetchers spin (a fetch per round
        // trip): legal, but costly to record, so such runs are kept short.
        let spins = self.wait == 0 || self.min_bytes == 0 || self.consumers.iter().any(|c| c.1 == 0);
        let stop = if spins { self.stop.min(400) } else { self.stop };
        let links: Vec<Value> = self
            .links
            .iter()
            .filter(|(a, b, _)| a % n != b % n)
            .map(|(a, b, l)| json!({"from": a % n, "to": b % n, "latency_ms": l}))
            .collect();
        let producers: Vec<Value> = self
            .producers
            .iter()
            .enumerate()
            .map(|(i, (acks, timeout))| {
                let acks = match acks {
                    0 => json!(0),
                    1 => json!(1),
                    _ => json!("all"),
                };
                json!({"id": format!("p{}", i + 1), "acks": acks, "request.timeout.ms": timeout})
            })
            .collect();
        let consumers: Vec<Value> = self
            .consumers
            .iter()
            .enumerate()
            .map(|(i, (from, wait, timeout))| {
                let mut c = json!({"id": format!("c{}", i + 1), "fetch.max.wait.ms": wait, "request.timeout.ms": timeout});
                if let Some(f) = from {
                    c["fetch_from"] = json!(f % n);
                }
                c
            })
            .collect();
        let mut events = Vec::new();
        for &(at, kind, a, b, x) in &self.events {
            let (a, b) = (a % n, b % n);
            // Without leader failures, only followers (never broker 0) crash.
            let victim = if self.leader_may_fail {
                a
            } else if n > 1 {
                1 + a % (n - 1)
            } else {
                continue;
            };
            let e = match kind {
                0 | 1 => json!({"produce": {"producer": format!("p{}", 1 + (x as usize) % self.producers.len()), "records": 1 + x}}),
                2 if a != b => json!({"partition": {"between": [a, b]}}),
                3 if a != b => json!({"heal": {"between": [a, b]}}),
                2 | 3 if n > 1 => json!({"partition": {"from": a, "to": (a + 1) % n}}),
                4 => json!({"crash": {"broker": victim, "unflushed": x}}),
                5 => json!({"restart": {"broker": victim}}),
                _ => continue,
            };
            let mut e = e;
            e["at_ms"] = json!(at.min(stop));
            events.push(e);
        }
        json!({
            "format": 1, "title": "random", "seed": self.seed, "preset": self.preset, "replicas": n,
            "initial": {"log_end_offset": self.initial},
            "config": {
                "replica.fetch.wait.max.ms": self.wait, "replica.fetch.min.bytes": self.min_bytes,
                "replica.fetch.max.bytes": self.max_bytes, "replica.lag.time.max.ms": self.lag,
                "min.insync.replicas": self.min_isr, "replica.socket.timeout.ms": self.socket_timeout,
                "replica.fetch.backoff.ms": self.backoff
            },
            "record_bytes": self.record_bytes,
            "network": {"latency_ms": self.latency, "jitter_ms": self.jitter, "links": links},
            "producers": producers, "consumers": consumers, "events": events, "stop_at_ms": stop
        })
    }
}

// ---------------------------------------------------------------------------
// Independent checks on the step records.
// ---------------------------------------------------------------------------

/// Checks one run's records without trusting the model's own checker. With a
/// single leader for the whole run (broker 0, epoch 0), every follower's log is
/// always a prefix of the leader's.
fn check_records(steps: &[Value], single_leader: bool) -> Result<(), String> {
    let mut last_time = 0;
    let mut leader_hw: BTreeMap<(u64, i64), u64> = BTreeMap::new();
    let acks_all: BTreeSet<String> = steps[0]["producers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["acks"] == "all")
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect();
    for (i, r) in steps.iter().enumerate() {
        let fail = |what: String| Err(format!("step {i}: {what}\n{}", line(r)));
        if r["step"].as_u64() != Some(i as u64) {
            return fail("steps are numbered 0, 1, 2, …".into());
        }
        let t = time(r);
        if t < last_time {
            return fail(format!("time went back from {last_time}"));
        }
        last_time = t;
        if !r["violations"].as_array().unwrap().is_empty() {
            return fail(format!("violation {}", r["violations"]));
        }
        for m in r["in_flight"].as_array().unwrap() {
            if m["sent_ms"].as_u64().unwrap() > t || m["arrive_ms"].as_u64().unwrap() < t {
                return fail(format!("message not in flight now: {m}"));
            }
        }
        let replicas = r["replicas"].as_array().unwrap();
        for b in replicas {
            let (l, h) = (b["leo"].as_u64().unwrap(), b["hw"].as_u64().unwrap());
            if b["alive"] == true && h > l {
                return fail(format!("broker {} HW {h} > LEO {l}", b["broker"]));
            }
            let offsets: Vec<u64> = b["log"].as_array().unwrap().iter().map(|e| e["offset"].as_u64().unwrap()).collect();
            if offsets.windows(2).any(|w| w[1] != w[0] + 1) || offsets.last().is_some_and(|&o| o >= l) {
                return fail(format!("broker {} log offsets {offsets:?} (LEO {l})", b["broker"]));
            }
        }
        let Some(leader) = r["partition"]["leader"].as_u64() else { continue };
        let epoch = r["partition"]["leader_epoch"].as_i64().unwrap();
        let lr = &replicas[leader as usize];
        if lr["role"] != "leader" {
            continue;
        }
        let lhw = lr["hw"].as_u64().unwrap();
        if let Some(prev) = leader_hw.insert((leader, epoch), lhw) {
            if lhw < prev {
                return fail(format!("leader {leader}'s HW went back {prev} → {lhw} in epoch {epoch}"));
            }
        }
        let leader_log: BTreeMap<u64, (i64, String)> = lr["log"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["offset"].as_u64().unwrap(), (e["epoch"].as_i64().unwrap(), e["id"].as_str().unwrap().to_string())))
            .collect();
        let position: BTreeMap<&str, u64> = leader_log.iter().map(|(o, (_, id))| (id.as_str(), *o)).collect();
        if single_leader {
            if (leader, epoch) != (0, 0) {
                return fail("the leader changed".into());
            }
            for b in replicas.iter().filter(|b| b["broker"] != leader) {
                if b["alive"] == true && b["hw"].as_u64().unwrap() > lhw {
                    return fail(format!("follower {} HW above the leader's {lhw}", b["broker"]));
                }
                for e in b["log"].as_array().unwrap() {
                    let o = e["offset"].as_u64().unwrap();
                    if leader_log.get(&o) != Some(&(e["epoch"].as_i64().unwrap(), e["id"].as_str().unwrap().to_string())) {
                        return fail(format!("follower {} holds {e} that the leader does not", b["broker"]));
                    }
                }
            }
            // Every acks=all acknowledgement is for records below the leader's HW.
            for p in r["producers"].as_array().unwrap().iter().filter(|p| acks_all.contains(p["id"].as_str().unwrap())) {
                for id in p["acked"].as_array().unwrap() {
                    match position.get(id.as_str().unwrap()) {
                        Some(&o) if o < lhw => {}
                        _ => return fail(format!("{id} acked but not below the leader's HW {lhw}")),
                    }
                }
            }
        }
        // A consumer is only ever handed committed records, at their offsets.
        let e = &r["event"];
        if e["type"] == "consumer_fetch_response" && e["outcome"] != "ignored" {
            for (k, id) in e["records"].as_array().unwrap().iter().enumerate() {
                let o = e["offset"].as_u64().unwrap() + k as u64;
                if single_leader && (o >= lhw || leader_log.get(&o).map(|x| x.1.as_str()) != id.as_str()) {
                    return fail(format!("consumer got {id} at {o}; the leader has {:?} there, HW {lhw}", leader_log.get(&o)));
                }
            }
        }
    }
    Ok(())
}

fn records(json: &str) -> Vec<Value> {
    Trace::of(json).steps
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    /// No leader failure (broker 0 never crashes): every preset, any config,
    /// produces, consumers, cuts, follower crashes with unflushed loss. No
    /// invariant may break, and the independent checks above hold at every step.
    #[test]
    fn invariants_hold_without_leader_failures(g in arb_gen(false)) {
        let json = g.json().to_string();
        let steps = records(&json);
        if let Err(e) = check_records(&steps, true) {
            prop_assert!(false, "{e}\nscenario: {json}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// The same scenario (leaders may fail too) gives the same JSON Lines, byte
    /// for byte, twice; the scenario survives its own serialization; and seeking
    /// back to a step shows that step's record again.
    #[test]
    fn same_scenario_gives_byte_identical_jsonl_twice(g in arb_gen(true), back in 0.0f64..1.0) {
        let json = g.json().to_string();
        let parsed = scenario(&json);
        prop_assert_eq!(&scenario(&parsed.to_json()), &parsed);
        let mut runs = Vec::new();
        for _ in 0..2 {
            let mut out = String::new();
            let mut run = Run::new(scenario(&json));
            run.for_each_record(|r| { out.push_str(&r.to_json()); out.push('\n'); });
            runs.push((out, run));
        }
        let (second, mut run) = runs.pop().unwrap();
        let (first, _) = runs.pop().unwrap();
        prop_assert!(first == second, "two runs of the same scenario differ\nscenario: {}", json);
        let lines: Vec<&str> = first.lines().collect();
        let k = ((lines.len() - 1) as f64 * back) as u64;
        prop_assert!(run.seek(k));
        prop_assert_eq!(run.record().to_json(), lines[k as usize]);
    }
}

// ---------------------------------------------------------------------------
// Failover: random crash / restart / partition schedules.
// ---------------------------------------------------------------------------

/// SplitMix64: the schedules are numbered, so "N of M" is reproducible.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// Failure-schedule horizon: faults happen in [0, HORIZON); then every link heals
/// and every broker restarts, and the run goes on long enough for fencing,
/// elections and catching up.
const HORIZON: u64 = 12_000;
const SETTLE: u64 = 12_000;

/// Schedule number `i`: RF 3, a consumer on the leader, acks=all writes every
/// 200–400 ms, sessions of 1.5–9 s, and 3–10 faults on a 100 ms grid (so that faults coincide, as in
/// KIP-101's scenarios): crashes (no unflushed loss: the property is about the
/// protocol, not fsync), restarts, cuts both ways or one way, heals. Clean
/// elections only.
fn schedule(i: u64, preset: &str) -> Value {
    schedule_with(i, preset, false)
}

/// The same schedules; with `unflushed`, each crash also loses 0–2 records at the
/// tail of the broker's log (as an unclean shutdown of a broker that had not
/// flushed them).
fn schedule_with(i: u64, preset: &str, unflushed: bool) -> Value {
    let mut r = Rng(i.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0xfeed);
    let every = 200 + 100 * r.below(3);
    let mut events =
        vec![json!({"at_ms": 0, "produce": {"producer": "p1", "records": 1}, "repeat": {"count": HORIZON / every, "every_ms": every}})];
    for _ in 0..3 + r.below(8) {
        let at = 100 * r.below(HORIZON / 100);
        let a = r.below(3);
        let b = (a + 1 + r.below(2)) % 3;
        // Half the crashes hit broker 0, the first leader, so that most schedules fail over.
        let victim = if r.below(2) == 0 { 0 } else { a };
        let e = match r.below(6) {
            0 | 1 if unflushed => json!({"crash": {"broker": victim, "unflushed": r.below(3)}}),
            0 | 1 => json!({"crash": {"broker": victim}}),
            2 => json!({"restart": {"broker": a}}),
            3 => json!({"partition": {"between": [a, b]}}),
            4 => json!({"partition": {"from": a, "to": b}}),
            _ => json!({"heal": {"between": [a, b]}}),
        };
        let mut e = e;
        e["at_ms"] = json!(at);
        events.push(e);
    }
    for a in 0..3 {
        events.push(json!({"at_ms": HORIZON, "heal": {"between": [a, (a + 1) % 3]}}));
        events.push(json!({"at_ms": HORIZON, "restart": {"broker": a}}));
    }
    let lag = [2000, 10_000][r.below(2) as usize];
    // Short sessions (as low as Kafka allows in tests) so that most crashes lead to fencing and elections within the horizon.
    let session = [1500, 3000, 9000][r.below(3) as usize];
    json!({
        "format": 1, "title": format!("random failover schedule {i}"), "preset": preset, "replicas": 3,
        "config": {"min.insync.replicas": 1 + r.below(2), "replica.lag.time.max.ms": lag, "broker.session.timeout.ms": session, "broker.heartbeat.interval.ms": 500, "replica.socket.timeout.ms": 2000, "replica.fetch.backoff.ms": 100},
        "producers": [{"id": "p1", "acks": "all", "request.timeout.ms": 5000}],
        "consumers": [{"id": "c1"}],
        "events": events,
        "stop_at_ms": HORIZON + SETTLE
    })
}

#[derive(Default, Debug)]
struct Outcome {
    /// Invariants the model reported.
    reported: BTreeSet<&'static str>,
    /// Acked records missing from the final leader's log (checked here, not by the model).
    acked_missing: usize,
    /// Offsets below both HWs where two live replicas hold different records at the end.
    diverged_at_end: usize,
    /// Whether every replica ends alive with the leader's log.
    converged: bool,
    /// Whether leadership moved at least once.
    failed_over: bool,
}

fn run_schedule(json: &Value) -> Outcome {
    let mut sim = Sim::new(scenario(&json.to_string()));
    while sim.step() {}
    let mut out = Outcome {
        reported: sim.invariants.history.iter().map(|(_, v)| v.invariant).collect(),
        failed_over: sim.controller.leader_epoch > 0,
        ..Outcome::default()
    };
    let Some(l) = sim.controller.leader.filter(|&l| sim.brokers[l as usize].alive) else { return out };
    let leader = &sim.brokers[l as usize];
    let held: BTreeSet<_> = (0..leader.log.leo()).filter_map(|o| leader.log.get(o).map(|e| e.id)).collect();
    out.acked_missing = sim.producers[0].acked.iter().filter(|id| !held.contains(id)).count();
    let mut converged = true;
    for a in 0..3 {
        for b in a + 1..3 {
            let (x, y) = (&sim.brokers[a], &sim.brokers[b]);
            let below = x.hw.min(y.hw).min(x.log.leo()).min(y.log.leo());
            out.diverged_at_end += (0..below).filter(|&o| x.log.get(o) != y.log.get(o)).count();
        }
        let x = &sim.brokers[a];
        converged &= x.alive && x.log.leo() == leader.log.leo() && (0..x.log.leo()).all(|o| x.log.get(o) == leader.log.get(o));
    }
    out.converged = converged;
    out
}

/// How many schedules per preset: `HWSCOPE_SCHEDULES`, else 1000 (a debug build
/// runs about 150 a second; `cargo test --release` affords many thousands).
fn schedules() -> u64 {
    std::env::var("HWSCOPE_SCHEDULES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

fn safe_under(preset: &str) {
    let m = schedules();
    let (mut lost, mut diverged, mut unconverged, mut failed_over) = (Vec::new(), Vec::new(), 0u64, 0u64);
    for i in 0..m {
        let json = schedule(i, preset);
        let o = run_schedule(&json);
        if o.reported.contains("acked-record-lost") || o.acked_missing > 0 {
            lost.push(i);
        }
        if o.reported.contains("replicas-diverged") || o.diverged_at_end > 0 {
            diverged.push(i);
        }
        let others: Vec<_> = o.reported.iter().filter(|v| !["acked-record-lost", "replicas-diverged"].contains(v)).collect();
        assert!(others.is_empty(), "{preset}: schedule {i} broke {others:?}: {json}");
        unconverged += u64::from(!o.converged);
        failed_over += u64::from(o.failed_over);
    }
    println!(
        "{preset}: {} of {m} schedules lost an acked record, {} of {m} diverged, {unconverged} of {m} had not converged {} s after the last fault ({failed_over} of {m} changed leader)",
        lost.len(),
        diverged.len(),
        SETTLE / 1000
    );
    assert!(lost.is_empty(), "{preset}: acked records lost in schedules {lost:?}; first: {}", schedule(lost[0], preset));
    assert!(diverged.is_empty(), "{preset}: replicas diverged in schedules {diverged:?}; first: {}", schedule(diverged[0], preset));
    assert_eq!(unconverged, 0, "{preset}: every replica catches up once the faults stop");
    assert!(failed_over * 3 > m, "{preset}: too few schedules exercise a failover ({failed_over} of {m})");
}

#[test]
fn failover_schedules_lose_nothing_under_kafka_2_8() {
    safe_under("kafka-2.8");
}

#[test]
fn failover_schedules_lose_nothing_under_kafka_3_7() {
    safe_under("kafka-3.7");
}

#[test]
fn failover_schedules_lose_nothing_under_kafka_4_0() {
    safe_under("kafka-4.0");
}

/// The same generator under kafka-0.10 (truncation to the follower's own HW)
/// finds schedules that lose acknowledged records.
#[test]
fn failover_schedules_find_data_loss_under_kafka_0_10() {
    let m = schedules();
    let lost: Vec<u64> = (0..m).filter(|&i| run_schedule(&schedule(i, "kafka-0.10")).reported.contains("acked-record-lost")).collect();
    println!("kafka-0.10: {} of {m} schedules lost an acked record (first: {:?})", lost.len(), lost.iter().take(5).collect::<Vec<_>>());
    assert!(!lost.is_empty(), "HW truncation must lose data in some schedule");
    // Every one of them is safe under today's rules.
    for &i in lost.iter().take(20) {
        let o = run_schedule(&schedule(i, "kafka-4.0"));
        assert!(o.reported.is_empty() && o.acked_missing == 0, "schedule {i} under kafka-4.0: {o:?}");
    }
}

/// With unflushed tail loss in crashes, acknowledged records can be lost (every
/// replica that had them may lose them: Kafka does not fsync), but with leader
/// epochs the replicas must still never diverge below their HWs.
#[test]

fn failover_schedules_with_unflushed_loss_never_diverge_under_kafka_4_0() {
    let m = schedules() / 2;
    let (mut lost, mut diverged) = (0, Vec::new());
    for i in 0..m {
        let o = run_schedule(&schedule_with(i, "kafka-4.0", true));
        lost += u64::from(o.reported.contains("acked-record-lost") || o.acked_missing > 0);
        if o.reported.contains("replicas-diverged") || o.diverged_at_end > 0 {
            diverged.push(i);
        }
    }
    println!("kafka-4.0 with unflushed loss: {lost} of {m} schedules lost an acked record (allowed), {} of {m} diverged", diverged.len());
    assert!(diverged.is_empty(), "diverged in schedules {diverged:?}; first: {}", schedule_with(diverged[0], "kafka-4.0", true));
}

/// A schedule the generator found, kept (minimised by hand) as a regression scenario.
#[test]
fn regression_kafka_0_10_data_loss_schedule() {
    let text = include_str!("regressions/kafka-0.10-acked-record-lost.json");
    let base: Value = serde_json::from_str(text).unwrap();
    assert_eq!(base["preset"], "kafka-0.10");
    let t = Trace::of(text);
    let lost: Vec<_> = t.violations().into_iter().filter(|v| v.1 == "acked-record-lost").collect();
    assert!(!lost.is_empty(), "{}", t.summary());
    for preset in ["kafka-0.11", "kafka-2.0", "kafka-2.8", "kafka-3.7", "kafka-4.0"] {
        let t = Trace::of(&with_preset(&base, preset));
        assert!(t.violations().is_empty(), "{preset}: {:?}", t.violations());
    }
}

// ---------------------------------------------------------------------------
// Share links: scenario → link → scenario is the identity.
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Every random scenario survives the share-link codec unchanged, and its
    /// link fits the 2,000-character limit when it is no bigger than a built-in.
    #[test]
    fn share_links_round_trip(g in arb_gen(true), at in prop::option::of(0u64..100_000)) {
        let text = g.json().to_string();
        let scenario = hwscope::Scenario::from_json(&text).unwrap();
        let fragment = hwscope::link::encode(&scenario, at, Some("0123456789abcdef"));
        let link = hwscope::link::decode(&fragment).unwrap();
        prop_assert_eq!(&link.scenario, &scenario);
        prop_assert_eq!(link.at, at);
        prop_assert_eq!(link.hash.as_deref(), Some("0123456789abcdef"));
    }
}
