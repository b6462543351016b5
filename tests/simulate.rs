//! Seeded simulation (`hwscope check --simulate`): random walks whose depth,
//! fault budget and fault mix each walk draws from its own seed. Pinned: what
//! a fixed seed finds (walk, seed, length before and after shrinking), that the
//! walk seed alone walks it again, that the shrunk replay is a format-1
//! scenario `Run` replays to the same violation, and that the fixed releases
//! find nothing in the same walks.

use hwscope::check::simulate::Simulation;
use hwscope::check::{Bounds, Config, FaultMenu, Target};
use hwscope::scenario::{Named, Preset};
use hwscope::{builtin, Scenario};

fn preset(name: &str) -> Preset {
    Preset::parse("preset", &hwscope::json::Value::String(name.into())).expect("a preset")
}

fn file(name: &str) -> Scenario {
    let path = format!("{}/tests/check/{name}", env!("CARGO_MANIFEST_DIR"));
    Scenario::from_json(&std::fs::read_to_string(&path).expect("a test scenario")).expect("valid")
}

/// The command line's simulation defaults: 200 steps, 8 faults, 3 records, every kind of cut.
fn config(drop_faults: bool) -> Config {
    Config {
        bounds: Bounds { max_depth: 200, faults: 8, records: 3, ..Bounds::default() },
        menu: FaultMenu { controller: true, clients: true, one_way: true, ..FaultMenu::default() },
        target: Target::default(),
        symmetry: true,
        drop_faults,
    }
}

/// (property or "none", walks, walk seed, steps walked, replay length) after at most `walks` walks from `seed`.
fn simulate(scenario: &Scenario, preset_name: &str, drop_faults: bool, seed: u64, walks: u64) -> (String, u64, u64, usize, u64) {
    let mut s = scenario.clone();
    s.preset = preset(preset_name);
    let mut sim = Simulation::new(config(drop_faults), &s, seed, Some(walks));
    while !sim.run(1 << 20).done {}
    let p = sim.progress();
    match (sim.found(), sim.counterexample()) {
        (Some(f), Some(c)) => {
            assert!(c.replays(), "{preset_name}: the shrunk walk must replay with Run");
            assert_eq!(c.step, f.moves.len() as u64);
            (f.failure.property.to_string(), p.walks, f.seed, f.walked, c.step)
        }
        _ => ("none".into(), p.walks, 0, 0, 0),
    }
}

#[test]
fn kip101_loss_is_found_by_simulation_under_0_10_and_not_under_4_0() {
    let s = builtin::load("kip101-data-loss").expect("built-in");
    assert_eq!(simulate(&s, "kafka-0.10", true, 1, 2_000), ("acked-record-lost".into(), 94, 94, 75, 35));
    // The walk's own seed walks it again, as its first walk.
    assert_eq!(simulate(&s, "kafka-0.10", true, 94, 1), ("acked-record-lost".into(), 1, 94, 75, 35));
    assert_eq!(simulate(&s, "kafka-4.0", true, 1, 500), ("none".into(), 500, 0, 0, 0));
}

#[test]
fn kip279_divergence_with_three_replicas_is_found_by_simulation_under_0_11_only() {
    // KIP-279's fast leader change without broker 1's restart (the walks choose it), on three replicas.
    let mut s = file("kip279-restart-chosen.json");
    s.replicas = 3;
    let s = Scenario::from_json(&s.to_json()).expect("valid with three replicas");
    assert_eq!(simulate(&s, "kafka-0.11", false, 1, 1_000), ("replicas-diverged".into(), 438, 438, 181, 158));
    assert_eq!(simulate(&s, "kafka-2.0", false, 1, 300), ("none".into(), 300, 0, 0, 0));
}

#[test]
fn a_walk_draws_its_own_swarm_configuration() {
    let s = builtin::load("kip101-data-loss").expect("built-in");
    let mut sim = Simulation::new(config(true), &s, 7, Some(64));
    let mut draws = Vec::new();
    for w in 0..64 {
        let (path, _, draw) = sim.walk(7 + w);
        assert!(path.len() <= draw.depth as usize);
        assert!(draw.depth >= 50 && draw.depth <= 200 && draw.faults <= 8 && draw.records <= 3);
        draws.push(draw);
    }
    // Different walks stress different corners: depths, budgets and mixes vary.
    let distinct = |f: &dyn Fn(&hwscope::check::simulate::Draw) -> u64| {
        let mut v: Vec<u64> = draws.iter().map(f).collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    assert!(distinct(&|d| d.depth as u64) > 20);
    assert!(distinct(&|d| d.faults as u64) >= 8);
    assert!(
        distinct(&|d| (d.menu.crash as u64) | (d.menu.cut as u64) << 1 | (d.menu.controller as u64) << 2 | (d.menu.clients as u64) << 3)
            >= 8
    );
    // And the same seed draws the same walk.
    assert_eq!(sim.walk(9), sim.walk(9));
    let _ = Named::name(s.preset);
}
