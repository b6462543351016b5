//! The findings issue 27 asked to pin, each with its replay (a format-1 scenario
//! `Run` replays to the same violation) and its link (the share-link fragment,
//! which decodes to that scenario at the violating step). Breadth-first ones are
//! pinned in tests/check.rs (KIP-101 under 0.10, KIP-279 under 0.11 on two
//! replicas, KAFKA-7128 under 2.0 and not 2.1); here the ones random walks find
//! (tests/simulate.rs has their shrinking), KIP-966's case under 4.0 and 4.1, and
//! nothing under kafka-4.1 within the stated bounds.

use hwscope::check::simulate::Simulation;
use hwscope::check::{Bounds, Config, Counterexample, FaultMenu, Target};
use hwscope::json::Named;
use hwscope::scenario::Preset;
use hwscope::verdict::Verdict;
use hwscope::{builtin, Run, Scenario};

fn with_preset(s: &Scenario, name: &str) -> Scenario {
    let mut s = s.clone();
    s.preset = Preset::parse("preset", &hwscope::json::Value::String(name.into())).expect("a preset");
    s
}

fn file(name: &str) -> Scenario {
    let path = format!("{}/tests/check/{name}", env!("CARGO_MANIFEST_DIR"));
    Scenario::from_json(&std::fs::read_to_string(&path).expect("a test scenario")).expect("valid")
}

/// Simulation's defaults (200 steps, 8 faults, 3 records); `cuts_to_controller` adds controller and client cuts.
fn config(drop_faults: bool, cuts_to_controller: bool, max_depth: u32) -> Config {
    Config {
        bounds: Bounds { max_depth, faults: 8, records: 3, ..Bounds::default() },
        menu: FaultMenu { controller: cuts_to_controller, clients: cuts_to_controller, one_way: true, ..FaultMenu::default() },
        target: Target::default(),
        symmetry: true,
        drop_faults,
    }
}

/// Walks from seed 1; the counterexample if one is found, with the walks run.
fn walk(s: &Scenario, config: Config, walks: u64) -> (u64, Option<Counterexample>) {
    let mut sim = Simulation::new(config, s, 1, Some(walks));
    while !sim.run(1 << 20).done {}
    (sim.progress().walks, sim.counterexample())
}

/// The counterexample replays, and its link decodes to its scenario at its step.
fn replays_and_links(c: &Counterexample) {
    assert!(c.replays());
    let link = hwscope::link::decode(&c.link()).expect("the link decodes");
    assert_eq!(link.at, Some(c.step));
    let mut run = Run::new(link.scenario);
    assert!(run.seek(c.step));
    assert!(run.sim().invariants.new_violations.iter().any(|v| v.invariant == c.failure.property));
}

#[test]
fn kip101_divergence_under_0_10_by_simulation_and_none_under_4_1() {
    let s = file("kip101-divergence-restart-chosen.json");
    let (walks, c) = walk(&with_preset(&s, "kafka-0.10"), config(false, true, 200), 2_000);
    let c = c.expect("found");
    assert_eq!((walks, c.failure.property, c.step), (278, "replicas-diverged", 82));
    replays_and_links(&c);
    let (walks, c) = walk(&with_preset(&s, "kafka-4.1"), config(false, true, 200), 1_000);
    assert_eq!((walks, c.map(|c| c.step)), (1_000, None));
}

#[test]
fn kip101_loss_and_kip279_are_replayable_links() {
    let (_, c) = walk(&with_preset(&builtin::load("kip101-data-loss").expect("built-in"), "kafka-0.10"), config(true, true, 200), 1_000);
    replays_and_links(&c.expect("found"));
    let mut s = file("kip279-restart-chosen.json");
    s.replicas = 3;
    let s = Scenario::from_json(&s.to_json()).expect("valid");
    let (_, c) = walk(&with_preset(&s, "kafka-0.11"), config(false, true, 200), 1_000);
    replays_and_links(&c.expect("found"));
}

/// KIP-966's case, the last replica standing: under kafka-4.0 the partition is
/// offline for 154 steps (17,466–22,002 ms; 173 before the idempotent producer retried one
/// batch at a time, `should_stop_drain_in_sequence`: fewer retries refused by the dead
/// leader's kernel; 171 until the restarted broker fetched the metadata log before it
/// registered) until the crashed leader is back; under kafka-4.1 the controller elects the
/// Eligible Leader Replica at step 449 (485 before the one-at-a-time retries; 486 before a
/// closed connection's answers were lost: p1's REQUEST_TIMED_OUT answer to a write on the
/// connection it had closed no longer reaches it) and it is never offline. Nothing is lost under either, and no property breaks.
#[test]
fn kip966_last_replica_standing_offline_under_4_0_elected_under_4_1() {
    let s = builtin::load("elr").expect("built-in");
    let mut seen = Vec::new();
    for preset in ["kafka-4.0", "kafka-4.1"] {
        let mut run = Run::new(with_preset(&s, preset));
        let (mut offline, mut from_elr) = (0u64, Vec::new());
        run.for_each_record(|r| {
            offline += r.partition.leader.is_none() as u64;
            if let Some(e) = &r.event {
                if e.elected_from == Some("elr") {
                    from_elr.push(r.step);
                }
            }
        });
        let v = run.verdicts();
        for p in hwscope::verdict::PROPERTIES {
            assert_eq!(v.first_broken(p.name).map(|s| s.verdict), None, "{preset}: {} breaks", p.name);
        }
        assert_eq!(v.at("isr-member-incomplete", run.known_steps() - 1), Verdict::Holds);
        seen.push((Named::name(run.scenario().preset).to_string(), offline, from_elr));
    }
    assert_eq!(seen, [("kafka-4.0".to_string(), 158, vec![]), ("kafka-4.1".to_string(), 0, vec![448])]);
}

/// Nothing under kafka-4.1 within the stated bounds: random walks from seed 1 with
/// up to 8 faults (every kind of cut), 200 steps, 3 extra records.
#[test]
fn none_under_4_1_within_these_walks() {
    let kip101 = builtin::load("kip101-data-loss").expect("built-in");
    assert_eq!(walk(&with_preset(&kip101, "kafka-4.1"), config(true, true, 200), 1_000).1.map(|c| c.step), None);
    let mut kip279 = file("kip279-restart-chosen.json");
    kip279.replicas = 3;
    let kip279 = Scenario::from_json(&kip279.to_json()).expect("valid");
    assert_eq!(walk(&with_preset(&kip279, "kafka-4.1"), config(false, true, 200), 300).1.map(|c| c.step), None);
    let k7128 = file("kafka-7128-one-crash.json");
    assert_eq!(walk(&with_preset(&k7128, "kafka-4.1"), config(false, true, 300), 300).1.map(|c| c.step), None);
}
