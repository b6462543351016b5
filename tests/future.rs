//! A run has a future (issue 13): `stop_at_ms` ends the scripted part; an
//! intervention, or `settle()` (Play at the end), lets the run go on until the
//! consequences Kafka's timers imply have played out (sim/settle.rs), and a share
//! link replays that exactly.

mod support;

use hwscope::link;
use hwscope::{Run, Scenario};
use serde_json::Value;

fn records(run: &mut Run) -> Vec<String> {
    let mut out = Vec::new();
    run.for_each_record(|r| out.push(r.to_json()));
    out
}

fn value(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn builtin(name: &str) -> Scenario {
    hwscope::builtin::load(name).unwrap()
}

/// The issue's own case: the leader crashes at step 2 of the default scenario.
/// The run used to end at step 3; now it goes on to the controller fencing
/// broker 0 (broker.session.timeout.ms) and electing broker 1, and the producer,
/// whose connection the crash reset, delivering its write to the new leader; it
/// ends one long-poll round after nothing is pending.
#[test]
fn crashing_the_leader_plays_out_fencing_election_and_timeout() {
    let mut run = Run::new(builtin("seed-walkthrough"));
    run.seek(2);
    run.apply(&Scenario::event_from_json(r#"{"crash":{"broker":0}}"#).unwrap()).unwrap();
    assert!(run.is_settling());
    let mut recs = vec![run.record().to_json()];
    while run.step() {
        recs.push(run.record().to_json());
    }
    let stop = builtin("seed-walkthrough").stop_at_ms;
    let last = value(recs.last().unwrap());
    assert!(last["time_ms"].as_u64().unwrap() > stop, "the run goes past its script ({stop} ms)");
    let election = recs.iter().map(|r| value(r)).find(|r| r["event"]["type"] == "leader_election").expect("an election");
    assert!(election["time_ms"].as_u64().unwrap() >= 9000, "the controller fences the leader after broker.session.timeout.ms");
    assert_eq!(last["partition"]["leader"], 1);
    let delivered = recs.iter().map(|r| value(r)).any(|r| {
        r["event"]["type"] == "produce_response"
            && r["event"]["from"] == 1
            && r["time_ms"].as_u64().unwrap() > election["time_ms"].as_u64().unwrap()
    });
    assert!(delivered, "the producer retries its write and the new leader answers it");
    assert!(run.sim().settled(), "nothing is pending at the end");
    let since = run.sim().settled_since.expect("settled");
    assert!(last["time_ms"].as_u64().unwrap() <= since + 500, "the run ends one replica.fetch.wait.max.ms after it settled");
}

/// Every built-in is settled where its script ends: letting it go on changes
/// nothing (a steady long-poll cycle, heartbeats and metadata refreshes alone never
/// extend a run).
#[test]
fn built_ins_are_settled_when_their_script_ends() {
    for (name, _) in hwscope::builtin::BUILTINS.iter().filter(|(n, _)| *n != "steady-load") {
        let plain = records(&mut Run::new(builtin(name)));
        let mut s = builtin(name);
        s.after_stop = hwscope::scenario::AfterStop::Settle;
        let settled = records(&mut Run::new(s));
        assert_eq!(settled, plain, "{name}");
    }
}

/// Play at the end: `settle()` on a finished run continues it exactly as a run made
/// with `after_stop: "settle"` from the start, and its link replays it.
#[test]
fn settling_at_the_end_is_the_same_run_as_settling_from_the_start_and_links_replay_it() {
    // A follower cut off near the script's end: past it, the leader shrinks the ISR.
    let json = r#"{"format":1,"replicas":3,"config":{"replica.lag.time.max.ms":4000},
        "events":[{"at_ms":0,"produce":{"producer":"p1","records":2}},
                  {"at_ms":900,"partition":{"between":[0,2]}},
                  {"at_ms":950,"produce":{"producer":"p1","records":1}}],"stop_at_ms":1000}"#;
    let mut late = Run::new(Scenario::from_json(json).unwrap());
    while late.step() {}
    let scripted = late.known_steps();
    late.settle();
    late.extend(1_000_000);
    assert!(late.known_steps() > scripted, "the run goes on past its script");
    let mut early = Scenario::from_json(json).unwrap();
    early.after_stop = hwscope::scenario::AfterStop::Settle;
    let from_start = records(&mut Run::new(early));
    assert_eq!(late.known_steps() as usize, from_start.len());
    let last = late.known_steps() - 1;
    late.seek(last);
    assert_eq!(late.record().to_json(), from_start[last as usize]);
    let end = value(&from_start[last as usize]);
    assert_eq!(end["partition"]["isr"], serde_json::json!([0, 1]), "the cut-off follower left the ISR");

    // The link carries the extension: it reproduces the same run, hash and all.
    let fragment = link::encode(&late.shared_scenario(), Some(last), Some(&link::state_hash(late.record())));
    let l = link::decode(&fragment).unwrap();
    assert!(l.scenario.to_json().contains("\"after_stop\":\"settle\""));
    let mut replay = Run::new(l.scenario);
    replay.seek(last);
    assert_eq!(link::state_hash(replay.record()), l.hash.unwrap());
    assert!(!replay.step(), "and ends where it ended");
}

/// What keeps a run going is said, with its time where one is known.
#[test]
fn the_pending_consequences_are_named() {
    let mut run = Run::new(builtin("seed-walkthrough"));
    run.seek(2);
    run.apply(&Scenario::event_from_json(r#"{"crash":{"broker":0}}"#).unwrap()).unwrap();
    let sim = run.sim();
    let texts: Vec<String> = sim.pending().iter().map(|p| hwscope::narrate::future::pending_text(sim, p)).collect();
    assert!(texts.iter().any(|t| t.starts_with("the controller fences broker 0 at ")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("times out") && t.contains("request.timeout.ms")), "{texts:?}");
}

/// A follower cut off from the leader on an idle partition, last seen at the
/// leader's LEO, stays caught up (`Replica.isCaughtUp`): no shrink is predicted,
/// none comes, and the run ends instead of going on for a day of simulated time.
#[test]
fn a_cut_follower_at_the_leaders_leo_stays_in_the_isr_and_the_run_ends() {
    let mut run = Run::new(builtin("seed-walkthrough"));
    run.seek(1_000_000);
    let end = run.current();
    run.apply(&Scenario::event_from_json(r#"{"partition":{"between":[0,1]}}"#).unwrap()).unwrap();
    let sim = run.sim();
    let texts: Vec<String> = sim.pending().iter().map(|p| hwscope::narrate::future::pending_text(sim, p)).collect();
    assert!(!texts.iter().any(|t| t.contains("from the ISR")), "no shrink is coming: {texts:?}");
    run.seek(1_000_000);
    let last = value(&run.record().to_json());
    assert!(last["time_ms"].as_u64().unwrap() < 60_000, "the run ends soon after the cut: {}", last["time_ms"]);
    assert!(run.current() < end + 1_000, "{} steps after the cut", run.current() - end);
    assert_eq!(last["partition"]["isr"], serde_json::json!([0, 1]), "follower 1 is still in the ISR");
}

/// Cut off while behind the leader (a write it has not fetched), a follower is
/// dropped after replica.lag.time.max.ms, as predicted.
#[test]
fn a_cut_follower_behind_the_leader_is_predicted_to_leave_the_isr_and_does() {
    let mut run = Run::new(builtin("idle-partition-lag"));
    run.seek(1_000_000);
    run.apply(&Scenario::event_from_json(r#"{"partition":{"between":[0,1]}}"#).unwrap()).unwrap();
    run.apply(&Scenario::event_from_json(r#"{"produce":{"producer":"p1","records":1}}"#).unwrap()).unwrap();
    let mut predicted = false;
    let mut shrunk = false;
    for _ in 0..200_000 {
        let sim = run.sim();
        predicted |= sim.pending().iter().any(|p| hwscope::narrate::future::pending_text(sim, p).contains("drops follower 1"));
        let r = value(&run.record().to_json());
        if !r["partition"]["isr"].as_array().unwrap().contains(&serde_json::json!(1)) {
            shrunk = true;
            break;
        }
        if !run.step() {
            break;
        }
    }
    assert!(predicted, "the shrink was said to be coming");
    assert!(shrunk, "and follower 1 left the ISR");
}

/// A leader cut off from the controller for good (the zombie never hears): once the
/// controller has elected another leader, the zombie cannot catch up with metadata it
/// will never get, so it is not pending and the run ends (a held-out run went on to
/// the one-day limit, 831,826 steps).
#[test]
fn a_leader_cut_from_the_controller_for_good_does_not_keep_the_run_going() {
    let mut s = builtin("zombie-leader");
    s.events.retain(|e| e.heal.is_none());
    s.after_stop = hwscope::scenario::AfterStop::Settle;
    let stop = s.stop_at_ms;
    let mut run = Run::new(s);
    run.seek(200_000);
    let sim = run.sim();
    assert!(run.is_done(), "the run ends: {} steps, at {} ms, pending {:?}", run.current(), sim.now, sim.pending());
    assert!(sim.now < stop + 300_000, "it ends within minutes of its script: {} ms", sim.now);
    assert_eq!(sim.controller.leader, Some(1), "broker 1 leads");
    assert!(sim.broker(0).lead.is_some(), "the zombie still leads in its own view");
}

mod random_interventions {
    use super::*;
    use proptest::prelude::*;

    /// Built-ins small enough to run many times (steady-load is the benchmark).
    const BASES: [&str; 8] = [
        "seed-walkthrough",
        "idle-partition-lag",
        "slow-follower-isr",
        "zombie-leader",
        "bounce-inside-session",
        "retry-through-failover",
        "kip101-data-loss",
        "elr",
    ];
    use hwscope::scenario::Preset;
    const PRESETS: [Preset; 5] = [Preset::Kafka40, Preset::Kafka41, Preset::Kafka37, Preset::Kafka28, Preset::Kafka010];

    /// One intervention, `after` steps after the previous one.
    #[derive(Debug, Clone)]
    struct Move {
        after: u64,
        kind: u8,
        a: usize,
        b: usize,
        n: u32,
    }

    fn arb_move() -> impl Strategy<Value = Move> {
        (0u64..400, 0u8..6, 0usize..8, 0usize..8, 1u32..4).prop_map(|(after, kind, a, b, n)| Move { after, kind, a, b, n })
    }

    /// The intervention as the page sends it: endpoints among the brokers, the
    /// controller and the producers.
    fn event(s: &Scenario, m: &Move) -> String {
        let mut ends: Vec<String> = (0..s.replicas).map(|b| b.to_string()).collect();
        ends.push("\"controller\"".into());
        ends.extend(s.producers.iter().map(|p| format!("\"{}\"", p.id)));
        let broker = m.a as u32 % s.replicas;
        let (x, y) = (&ends[m.a % ends.len()], &ends[m.b % ends.len()]);
        let (x, y) = if x == y { (&ends[0], &ends[1]) } else { (x, y) };
        match m.kind {
            0 => format!(r#"{{"crash":{{"broker":{broker},"unflushed":{}}}}}"#, m.n - 1),
            1 => format!(r#"{{"restart":{{"broker":{broker}}}}}"#),
            2 => format!(r#"{{"partition":{{"between":[{x},{y}]}}}}"#),
            3 => format!(r#"{{"partition":{{"from":{x},"to":{y}}}}}"#),
            4 => format!(r#"{{"heal":{{"between":[{x},{y}]}}}}"#),
            _ => match s.producers.first() {
                Some(p) => format!(r#"{{"produce":{{"producer":"{}","records":{}}}}}"#, p.id, m.n),
                None => format!(r#"{{"restart":{{"broker":{broker}}}}}"#),
            },
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

        /// Runs always end: whatever the interventions, a run past its script ends
        /// within 150,000 steps and long before the one-day limit, or says in its
        /// pending list what keeps it going (nothing here may need that).
        #[test]
        fn runs_with_random_interventions_end(base in 0usize..BASES.len(), preset in 0usize..PRESETS.len(), moves in prop::collection::vec(arb_move(), 1..5)) {
            let mut s = builtin(BASES[base]);
            s.preset = PRESETS[preset];
            let stop = s.stop_at_ms;
            let mut run = Run::new(s.clone());
            let mut applied = Vec::new();
            for m in &moves {
                let at = run.current() + m.after;
                run.seek(at);
                let e = event(&s, m);
                if run.apply(&Scenario::event_from_json(&e).unwrap()).is_ok() {
                    applied.push(format!("step {}: {e}", run.current()));
                }
            }
            let from = run.current();
            run.seek(from + 150_000);
            let sim = run.sim();
            let texts: Vec<String> = sim.pending().iter().map(|p| hwscope::narrate::future::pending_text(sim, p)).collect();
            prop_assert!(run.is_done() && sim.now < stop + 3_600_000,
                "{} {}: still going at {} ms after {} steps; pending: {:?}\ninterventions: {:?}\nmoves: {:?}",
                BASES[base], PRESETS[preset].name(), sim.now, run.current() - from, texts, applied, moves);
        }
    }
}

/// Every pending consequence's text at every step of `json`'s run, with its step.
fn pending_texts(json: &str) -> Vec<(u64, String)> {
    let mut run = Run::new(Scenario::from_json(json).unwrap());
    let mut out = Vec::new();
    loop {
        let sim = run.sim();
        for p in sim.pending() {
            out.push((run.current(), hwscope::narrate::future::pending_text(sim, &p)));
        }
        if !run.step() {
            return out;
        }
    }
}

/// A producer cut off from the leader (both ways) writes at 1 s: its request waits on a
/// connection that never comes, and what ends the write is delivery.timeout.ms (5 s here,
/// 2.1+, KIP-91), due at 6 s. The wake-up that expires it was said to be the write's
/// request.timeout.ms. Before 2.1 a write that waits in the accumulator (here, behind the
/// one in flight, max.in.flight.requests.per.connection 1) expires after request.timeout.ms.
#[test]
fn the_pending_producer_timeout_is_the_one_that_applies_in_its_version() {
    let json = |preset: &str, producer: &str| {
        format!(
            r#"{{"format":1,"preset":"{preset}","replicas":3,"producers":[{producer}],
            "events":[{{"at_ms":500,"partition":{{"between":[0,"p"]}}}},
                      {{"at_ms":1000,"produce":{{"producer":"p","records":1}}}},
                      {{"at_ms":1100,"produce":{{"producer":"p","records":1}}}}],"stop_at_ms":3000}}"#
        )
    };
    let texts = pending_texts(&json("kafka-4.0", r#"{"id":"p","acks":"all","request.timeout.ms":3000,"delivery.timeout.ms":5000}"#));
    let at_6s: Vec<&String> = texts.iter().map(|(_, t)| t).filter(|t| t.contains(" at 6000 ms")).collect();
    assert!(!at_6s.is_empty(), "{texts:?}");
    for t in &at_6s {
        assert_eq!(t.as_str(), "p's oldest write not yet acknowledged passes delivery.timeout.ms (5000 ms) at 6000 ms and fails");
    }
    let old = r#"{"format":1,"preset":"kafka-2.0","replicas":1,"producers":[{"id":"p","acks":"all","request.timeout.ms":3000,"retries":1000}],
        "events":[{"at_ms":500,"crash":{"broker":0}},{"at_ms":1000,"produce":{"producer":"p","records":1}}],"stop_at_ms":5000}"#;
    let texts = pending_texts(old);
    assert!(!texts.iter().any(|(_, t)| t.contains("delivery.timeout.ms (")), "{texts:?}");
    assert!(
        texts.iter().any(|(_, t)| t.starts_with("p's write waiting in its accumulator expires at ")
            && t.ends_with("(request.timeout.ms, 3000 ms: before 2.1 there is no delivery.timeout.ms)")),
        "{texts:?}"
    );
    // Refused by the crashed broker, it retries after retry.backoff.ms.
    assert!(
        texts.iter().any(|(_, t)| t.starts_with("p sends its writes again at ") && t.ends_with(" ms, after retry.backoff.ms")),
        "{texts:?}"
    );
}
