//! A second checker as a witness: stateright 0.31's breadth-first checker runs
//! a `Model` over the same engine and the same choices, and must agree with
//! hwscope's explorer on every verdict, on the length of the shortest
//! counterexample, and, where no counterexample exists, on the exact number of
//! distinct states.
//!
//! What is shared: the engine (`Sim`), the moves (`Setup::moves`/`apply`) and
//! the state identity (the fingerprint with symmetry). What is independent:
//! the search itself — stateright's own queue, visited set, depth handling,
//! property checks and path reconstruction. A state here is its path from the
//! start (stateright's checker needs `Send` states; a `Sim` shares memory with
//! its copies), replayed when it is expanded, so the bounds are small.

use hwscope::check::search::Setup;
use hwscope::check::{self, Bounds, Config, FaultMenu, Move, Outcome, Target, Used};
use hwscope::scenario::{Named, Preset};
use hwscope::sim::Sim;
use hwscope::{builtin, Scenario};
use stateright::{Checker, Model, Property};
use std::hash::{Hash, Hasher};

struct Witness {
    setup: Setup,
}

#[derive(Clone, Debug)]
struct State {
    moves: Vec<Move>,
    used: Used,
    fp: u64,
    /// A targeted property fails here (the explorer's own test, on the engine's violations).
    fails: bool,
    /// Past the leader-epoch bound: counted, not expanded.
    beyond: bool,
}

/// A state is its fingerprint (as for the explorer): equal fingerprints, one state.
impl Hash for State {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.fp.hash(h);
    }
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        self.fp == other.fp
    }
}

impl Witness {
    fn replay(&self, moves: &[Move]) -> Sim {
        let mut sim = Sim::new(self.setup.base.clone());
        for &mv in moves {
            self.setup.apply(&mut sim, mv);
        }
        sim
    }
}

impl Model for Witness {
    type State = State;
    type Action = Move;

    fn init_states(&self) -> Vec<State> {
        let sim = self.replay(&[]);
        vec![State {
            moves: Vec::new(),
            used: Used::default(),
            fp: self.setup.fingerprint(&sim, Used::default()),
            fails: false,
            beyond: false,
        }]
    }

    fn actions(&self, state: &State, actions: &mut Vec<Move>) {
        if state.beyond || state.moves.len() as u32 >= self.setup.config.bounds.max_depth {
            return;
        }
        let sim = self.replay(&state.moves);
        self.setup.moves(&sim, state.used, actions);
    }

    fn next_state(&self, last: &State, mv: Move) -> Option<State> {
        let mut moves = last.moves.clone();
        moves.push(mv);
        let sim = self.replay(&moves);
        let used = last.used.after(mv);
        let fails =
            check::properties::failure(&sim, &self.setup.config.target).is_some_and(|f| !f.allowed || self.setup.config.target.allowed);
        Some(State { fp: self.setup.fingerprint(&sim, used), used, fails, beyond: self.setup.beyond_epochs(&sim), moves })
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("no counterexample", |_, s: &State| !s.fails)]
    }
}

fn config(max_depth: u32, faults: u8, property: &str, allowed: bool) -> Config {
    Config {
        bounds: Bounds { max_depth, faults, ..Bounds::default() },
        menu: FaultMenu::default(),
        target: Target { properties: Target::parse(property).unwrap(), allowed },
        symmetry: true,
        drop_faults: true,
    }
}

/// Both checkers on one scenario: (verdict, counterexample length or distinct states).
fn both(scenario: &Scenario, preset: &str, config: &Config) -> ((bool, u64), (bool, u64)) {
    let mut s = scenario.clone();
    s.preset = Preset::parse("preset", &hwscope::json::Value::String(preset.into())).unwrap();
    let (search, progress) = check::check(config.clone(), &s);
    let ours = match search.outcome() {
        Some(Outcome::Counterexample { node, .. }) => (true, search.path(*node).len() as u64),
        Some(Outcome::Exhausted) => (false, progress.distinct),
        other => panic!("{other:?}"),
    };
    let witness = Witness { setup: Setup::new(config.clone(), &s) };
    let checker = witness.checker().threads(1).spawn_bfs().join();
    let theirs = match checker.discovery("no counterexample") {
        Some(path) => (true, path.into_actions().len() as u64),
        None => (false, checker.unique_state_count() as u64),
    };
    (ours, theirs)
}

/// KIP-101 under every preset: the same verdicts, the same shortest counterexample
/// length, and the same number of distinct states where there is none.
#[test]
fn stateright_agrees_on_kip101_under_every_preset() {
    let scenario = builtin::load("kip101-data-loss").unwrap();
    let config = config(12, 3, "any", false);
    for p in Preset::ALL {
        let (ours, theirs) = both(&scenario, p.name(), &config);
        assert_eq!(ours, theirs, "{}: (counterexample?, its length or the distinct states)", p.name());
    }
}

/// A permitted loss targeted (acks=1), and the same scenario with the loss not targeted.
#[test]
fn stateright_agrees_on_the_permitted_loss() {
    let text = std::fs::read_to_string(format!("{}/tests/check/one-write-acks1.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let scenario = Scenario::from_json(&text).unwrap();
    for (allowed, want) in [(true, (true, 20)), (false, (false, 9705))] {
        let (ours, theirs) = both(&scenario, "kafka-4.0", &config(24, 2, "acked-record-lost", allowed));
        assert_eq!(ours, want);
        assert_eq!(theirs, want, "stateright, allowed={allowed}");
    }
}

/// KAFKA-7128: four replicas, the leader's crash after the write scripted, one more
/// crash or restart searched anywhere in 140 steps. Since issue 11 the loss needs 240
/// steps (tests/check.rs pins it there); replaying every path that deep is too slow
/// here, so the witness agrees on the exhausted 140-step space under both presets.
#[test]
fn stateright_agrees_on_kafka_7128() {
    let text = std::fs::read_to_string(format!("{}/tests/check/kafka-7128-one-crash.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let scenario = Scenario::from_json(&text).unwrap();
    let mut c = config(140, 1, "acked-record-lost", false);
    c.menu.cut = false;
    c.drop_faults = false;
    for (preset, want) in [("kafka-2.0", (false, 38_552)), ("kafka-2.1", (false, 39_794))] {
        let (ours, theirs) = both(&scenario, preset, &c);
        assert_eq!(ours, want, "{preset}");
        assert_eq!(theirs, want, "stateright, {preset}");
    }
}
