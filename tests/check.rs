//! The explorer's findings, each pinned with its exact counts for fixed
//! bounds: it finds KIP-101 (a lost acknowledged record, diverged replicas)
//! under kafka-0.10 and the KIP-279 divergence under kafka-0.11 by itself,
//! finds nothing under kafka-4.0 within the same bounds, and finds an acks=1
//! loss, permitted, under every preset, and KAFKA-7128 under kafka-2.0 and not
//! from 2.1. Counterexamples replay with `Run`.
//!
//! The counts are the search's own (distinct states after fingerprinting and
//! symmetry; transitions explored): a change in the model or the search
//! changes them on purpose, and then they are re-pinned with the reason.

use hwscope::check::{self, Bounds, Config, Counterexample, FaultMenu, Move, Outcome, Target};
use hwscope::scenario::{Named, Preset};
use hwscope::{builtin, Run, Scenario};

fn file(name: &str) -> Scenario {
    let path = format!("{}/tests/check/{name}", env!("CARGO_MANIFEST_DIR"));
    Scenario::from_json(&std::fs::read_to_string(&path).expect("a test scenario")).expect("valid")
}

fn preset(name: &str) -> Preset {
    Preset::parse("preset", &hwscope::json::Value::String(name.into())).expect("a preset")
}

fn config(max_depth: u32, faults: u8, records: u8, cuts: bool, property: &str, allowed: bool) -> Config {
    Config {
        bounds: Bounds { max_depth, faults, records, ..Bounds::default() },
        menu: FaultMenu { cut: cuts, ..FaultMenu::default() },
        target: Target { properties: Target::parse(property).expect("a property"), allowed },
        symmetry: true,
        drop_faults: true,
    }
}

/// (what was found: a property name or "none", its step, distinct, explored) and the counterexample.
fn search(scenario: &Scenario, preset_name: &str, config: &Config) -> ((String, u64, u64, u64), Option<Counterexample>) {
    let mut s = scenario.clone();
    s.preset = preset(preset_name);
    let (search, progress) = check::check(config.clone(), &s);
    match search.outcome() {
        Some(Outcome::Counterexample { node, failure }) => {
            let c = Counterexample::new(&search.setup, search.path(*node), failure.clone());
            assert!(c.replays(), "{preset_name}: the counterexample must replay with Run");
            ((failure.property.to_string(), c.step, progress.distinct, progress.explored), Some(c))
        }
        Some(Outcome::Exhausted) => (("none".into(), 0, progress.distinct, progress.explored), None),
        other => panic!("{preset_name}: {other:?}"),
    }
}

fn row(found: &str, step: u64, distinct: u64, explored: u64) -> (String, u64, u64, u64) {
    (found.to_string(), step, distinct, explored)
}

/// KIP-101 scenario 1 found by itself: from the kip101-data-loss built-in with its
/// faults removed (one acks=all write, two replicas), up to 3 faults in 28 steps.
/// (12 steps sufficed until the controller's heartbeats, registrations and the
/// clients' metadata and retries became messages, issue 11: each is a step now.)
#[test]
fn kip101_data_loss_is_found_before_the_fix_and_not_after() {
    let scenario = builtin::load("kip101-data-loss").unwrap();
    let config = config(28, 3, 0, true, "any", false);
    let expected = [
        ("textbook", row("none", 0, 203_010, 296_993)),
        ("kafka-0.10", row("acked-record-lost", 28, 125_600, 178_000)),
        ("kafka-0.11", row("none", 0, 139_603, 193_918)),
        ("kafka-2.8", row("none", 0, 160_129, 226_628)),
        ("kafka-4.0", row("none", 0, 126_219, 181_021)),
    ];
    let runs: Vec<_> = expected.iter().map(|(name, _)| search(&scenario, name, &config)).collect();
    let got: Vec<_> = expected.iter().zip(&runs).map(|((name, _), (row, _))| (*name, row.clone())).collect();
    assert_eq!(got, expected);
    for ((name, _), (_, c)) in expected.iter().zip(runs) {
        if let Some(c) = c {
            // The shortest schedule: both brokers crash after the acknowledgement, the
            // old leader comes back and truncates to the stale HW of its checkpoint.
            let injected: Vec<Move> = c.moves.iter().copied().filter(|m| m.words().is_some()).collect();
            assert_eq!(
                injected,
                [Move::Crash { broker: 1, unflushed: 0 }, Move::Crash { broker: 0, unflushed: 0 }, Move::Restart { broker: 0 }],
                "{name}"
            );
            let why: Vec<&str> = c.why.iter().map(|w| w.text.as_str()).collect();
            assert!(why.iter().any(|t| t.contains("truncates its log to its own HW")), "{name}: {why:#?}");
            assert!(why.iter().any(|t| t.contains("elects broker 0")), "{name}: {why:#?}");
            assert_eq!(c.why[0].step, c.step, "the chain starts at the violation");
        }
    }
}

/// `textbook` (HW truncation, today's broker liveness) loses KIP-101's record again
/// since issue 26: a restarted KRaft broker acts on the metadata image it loaded before
/// its registration is accepted (`acts_on_image_before_registration`, Kafka's
/// `BrokerServer.startup` order), so the restarted follower becomes a follower and
/// truncates to its checkpointed HW while its old incarnation, still registered, keeps
/// its ISR place; the leader then dies and it is elected without p1-1. (From issue 11
/// to issue 26 the model kept a new incarnation without a role until it registered,
/// and nothing was lost here.) The timing, scripted: p1-1 acknowledged between
/// follower 1's heartbeat and leader 0's, follower 1 crashed before the answer with
/// HW 2, restarted, leader 0 crashed.
#[test]
fn textbook_loses_kip101s_record_though_brokers_heartbeat() {
    let mut run = Run::new(file("kip101-textbook-window.json"));
    let mut lost = false;
    while run.step() {
        let r = run.record().to_json();
        lost |= r.contains(r#""invariant":"acked-record-lost""#) && r.contains("p1-1 was acknowledged");
    }
    assert!(lost, "p1-1 lost");
    let sim = run.sim();
    assert_eq!(sim.brokers[1].log.leo(), 1, "follower 1 truncated p1-1 away and leads without it");
}

/// Divergence found by itself, re-scoped after issue 11 (heartbeats, registrations
/// and client retries are messages): from one write and four crashes/restarts
/// anywhere (tests/check/one-write-two-producers.json, 18 steps) the space passed
/// 1.3 M states at level 11 (over 2 GiB). Now the two stories' setups keep their
/// scripted crashes and the search chooses the last restart (whether and when) and
/// the order of everything due at once, within 120 steps:
/// - KIP-101 scenario 2: kafka-0.10 diverges by HW truncation (broker 0 returns at
///   its checkpointed HW 3 and keeps p1-2 where the new leader wrote p2-1); from
///   kafka-0.11 the epoch query truncates it first.
/// - KIP-279: kafka-0.11 diverges (one round of OffsetsForLeaderEpoch: the leader
///   never had epoch 1 and answers the start of its next); kafka-2.0 and later do not,
///   and neither does kafka-0.10 (it truncates to the HW).
#[test]
fn divergence_is_found_in_0_10_and_0_11_and_not_after_kip_279() {
    let mut config = config(120, 1, 0, false, "replicas-diverged", false);
    config.drop_faults = false;
    let kip101 = file("kip101-divergence-restart-chosen.json");
    let kip279 = file("kip279-restart-chosen.json");
    let expected = [
        (&kip101, "kafka-0.10", row("replicas-diverged", 87, 3_488, 3_890)),
        (&kip101, "kafka-0.11", row("none", 0, 5_659, 6_246)),
        (&kip101, "kafka-2.0", row("none", 0, 5_659, 6_246)),
        (&kip101, "kafka-4.0", row("none", 0, 21_624, 29_545)),
        (&kip279, "kafka-0.10", row("none", 0, 21_188, 23_605)),
        (&kip279, "kafka-0.11", row("replicas-diverged", 66, 9_255, 10_598)),
        (&kip279, "kafka-2.0", row("none", 0, 21_238, 23_655)),
        (&kip279, "kafka-4.0", row("none", 0, 23_904, 34_362)),
    ];
    for (scenario, name, want) in expected {
        let (got, c) = search(scenario, name, &config);
        assert_eq!(got, want, "{}: {name}", scenario.title);
        if let Some(c) = c {
            // The search chose the restart, and the chain shows it.
            let injected: Vec<Move> = c.moves.iter().copied().filter(|m| m.words().is_some()).collect();
            assert!(matches!(injected[..], [Move::Restart { .. }]), "{injected:?}");
            assert!(c.why.iter().any(|w| w.injected && w.text.contains("starts again")), "{:#?}", c.why);
            if name == "kafka-0.11" {
                // KIP-279's story: the leader of epoch 2 never had epoch 1.
                assert!(c.why.iter().any(|w| w.text.contains("epoch 2")), "{:#?}", c.why);
            }
        }
    }
}

/// KAFKA-7128 found by itself: the kafka-7128 setup with the leader's crash after the
/// write kept and the second crash removed; the search chooses one more fault (crash or
/// restart, anywhere in 240 steps: 140 sufficed before heartbeats, registrations and
/// client retries were messages, issue 11). Under kafka-2.0 it crashes broker 2 right after it
/// leads, and broker 1, back in the ISR at the stale HW without p1-3 and p1-4, is
/// elected; from 2.1 (a follower must reach the epoch's start to rejoin) nothing is lost.
/// (341,893 / 342,014 states until a leader ignored metadata whose partition was
/// unchanged, `Sim::local_changes_include`.)
#[test]
fn kafka_7128_is_found_before_2_1_and_not_after() {
    let scenario = file("kafka-7128-one-crash.json");
    let mut config = config(240, 1, 0, false, "acked-record-lost", false);
    config.drop_faults = false;
    let expected = [("kafka-2.0", row("acked-record-lost", 217, 105_953, 156_491)), ("kafka-2.1", row("none", 0, 121_451, 170_728))];
    let runs: Vec<_> = expected.iter().map(|(name, _)| search(&scenario, name, &config)).collect();
    let got: Vec<_> = expected.iter().zip(&runs).map(|((name, _), (row, _))| (*name, row.clone())).collect();
    assert_eq!(got, expected);
    for ((name, _), (_, c)) in expected.iter().zip(runs) {
        if let Some(c) = c {
            let injected: Vec<Move> = c.moves.iter().copied().filter(|m| m.words().is_some()).collect();
            assert_eq!(injected, [Move::Crash { broker: 2, unflushed: 0 }], "{name}");
            assert!(c.failure.text.contains("p1-3 was acknowledged with acks=all"), "{}", c.failure.text);
            // The chain reaches the cause: broker 1 rejoined the ISR at the stale HW.
            let why: Vec<&str> = c.why.iter().map(|w| w.text.as_str()).collect();
            assert!(why.iter().any(|t| t.contains("enough to rejoin before 2.0.1 (KAFKA-7128)")), "{why:#?}");
        }
    }
}

/// acks=1 promises only the leader's append: losing such a record at a failover is
/// permitted under every preset, and the explorer says so (`allowed`).
#[test]
fn acks_one_loss_is_found_and_allowed_under_every_preset() {
    let scenario = file("one-write-acks1.json");
    // 24 steps: 12 sufficed before the client's metadata and retries were messages (issue 11).
    let config = config(24, 2, 0, true, "acked-record-lost", true);
    let mut steps = Vec::new();
    for p in Preset::ALL {
        let (got, c) = search(&scenario, p.name(), &config);
        assert_eq!(got.0.as_str(), "acked-record-lost", "{}", p.name());
        steps.push((p.name(), got.1));
        let c = c.expect("a counterexample");
        assert!(c.failure.allowed, "{}", p.name());
        assert!(c.failure.text.contains("acks=1 permits this"), "{}", c.failure.text);
    }
    // The shortest failover: 12 steps under the ZooKeeper presets (9 before ZooKeeper
    // was a node of its own: the expiry, the watch and the LeaderAndIsr are steps now),
    // 20 under the KRaft presets (3.7+) and textbook (6 under every preset before issue 11).
    #[rustfmt::skip]
    let want = [("textbook", 20), ("kafka-0.10", 12), ("kafka-0.11", 12), ("kafka-2.0", 12), ("kafka-2.1", 12), ("kafka-2.4", 12),
        ("kafka-2.8", 12), ("kafka-3.7", 20), ("kafka-3.8", 20), ("kafka-4.0", 20), ("kafka-4.1", 20)];
    assert_eq!(steps, want);
    // Not asked for, a permitted loss is no counterexample: it is noted.
    let mut s = scenario.clone();
    s.preset = preset("kafka-4.0");
    let (search, progress) = check::check(Config { target: Target::default(), ..config }, &s);
    assert_eq!(search.outcome(), Some(&Outcome::Exhausted));
    assert!(search.allowed_seen.as_ref().is_some_and(|(_, f)| f.allowed));
    assert_eq!((progress.distinct, progress.explored), (9705, 13222));
}

/// Followers the scenario treats alike are one follower to the search: fewer states,
/// the same verdict.
#[test]
fn symmetry_merges_interchangeable_followers() {
    // A 3 ms ZooKeeper session pings every millisecond, and a 1 ms HW checkpoint
    // interval writes every millisecond: every heartbeat and checkpoint phase is 0.
    let text = r#"{"format":1,"preset":"kafka-0.10","replicas":3,"initial":{"log_end_offset":1},
        "config":{"zookeeper.session.timeout.ms":3,"replica.high.watermark.checkpoint.interval.ms":1},
        "events":[{"at_ms":0,"produce":{"producer":"p1","records":1}}],"stop_at_ms":13000}"#;
    let scenario = Scenario::from_json(text).unwrap();
    assert_eq!(check::symmetry::groups(&scenario), vec![vec![1, 2]]);
    let mut plain = config(8, 2, 0, false, "any", false);
    plain.symmetry = false;
    let reduced = config(8, 2, 0, false, "any", false);
    let (a, _) = search(&scenario, "kafka-0.10", &plain);
    let (b, _) = search(&scenario, "kafka-0.10", &reduced);
    assert_eq!(a.0, b.0);
    // Since issue 11 (the controller on the network) the followers also carry broker
    // epochs (the engine starts broker b at epoch b): the fingerprint hashes "its
    // initial epoch" as one token for every broker, so renamed followers merge again
    // (before that change: 6049 = 6049, nothing merged; before issue 11: 2092 → 1829).
    assert!(b.2 < a.2, "symmetry merges states here: {} vs {}", b.2, a.2);
    // 5441 / 5109 until a restart inside the ZooKeeper session failed (NodeExists, 02dda87).
    assert_eq!((a.2, b.2), (5339, 5007));
    // A follower named by the scenario is not interchangeable.
    let named = text.replace(r#""stop_at_ms""#, r#""network":{"links":[{"from":2,"to":0,"latency_ms":5}]},"stop_at_ms""#);
    assert!(check::symmetry::groups(&Scenario::from_json(&named).unwrap()).is_empty());
}

/// The fingerprint is the same on every platform and in every build: pinned (re-pinned
/// when the invariants' words became one cached content hash, and when a producer's batches
/// gained their last failed attempt under the presets before 2.1, KIP-91, and when a
/// follower's producer state began to follow what it replicates: the same states, other
/// values).
#[test]
fn fingerprints_are_stable() {
    let scenario = builtin::load("kip101-data-loss").unwrap();
    let setup = check::search::Setup::new(config(12, 3, 0, true, "any", false), &scenario);
    let mut sim = hwscope::sim::Sim::new(setup.base.clone());
    let mut prints = vec![setup.fingerprint(&sim, check::Used::default())];
    for _ in 0..6 {
        sim.step();
        prints.push(setup.fingerprint(&sim, check::Used::default()));
    }
    assert_eq!(
        prints,
        [
            7478218282123766210,
            6899083580939430557,
            10145334543454858674,
            14242924657184855716,
            4845208125969800403,
            3254694887638556004,
            9265934988117537599
        ]
    );
}

/// A memory bound stops the search with its own verdict, never a crash.
#[test]
fn memory_bound_stops_the_search() {
    let scenario = file("one-write-two-producers.json");
    let mut c = config(18, 4, 1, false, "replicas-diverged", false);
    c.bounds.memory_bytes = Some(2 << 20);
    let (search, progress) = check::check(c, &scenario);
    assert_eq!(search.outcome(), Some(&Outcome::Stopped(check::StopReason::Memory)));
    assert!(progress.memory_bytes > 2 << 20 && progress.distinct > 100, "{progress:?}");
}

/// `schedule` makes a run take another of the events due at one instant; a link keeps it.
#[test]
fn schedule_picks_replay() {
    let base = builtin::load("kip101-data-loss").unwrap();
    // At 200 ms the scenario restarts broker 1 and crashes broker 0: pick the crash first.
    let mut picked = base.clone();
    picked.schedule.push(hwscope::scenario::Pick { at_step: 8, pick: 1 });
    let mut a = Run::new(base);
    let mut b = Run::new(Scenario::from_json(&picked.to_json()).unwrap());
    a.seek(8);
    b.seek(8);
    assert!(a.record().to_json().contains(r#""type":"restart""#));
    assert!(b.record().to_json().contains(r#""type":"crash""#), "{}", b.record().to_json());
    let link = hwscope::link::encode(&picked, None, None);
    assert_eq!(hwscope::link::decode(&link).unwrap().scenario.schedule, picked.schedule);
}

/// `hwscope check --threads T` gives exactly the single-threaded answer: the same
/// counts, the same verdict and the same counterexample, on any number of threads.
#[test]
fn threads_give_the_single_threaded_answer() {
    use hwscope::cli::parallel;
    let kip101 = builtin::load("kip101-data-loss").unwrap();
    let cases = [
        (kip101.clone(), "kafka-0.10", config(12, 3, 0, true, "any", false)),
        (kip101, "kafka-4.0", config(14, 3, 0, true, "any", false)),
        (file("one-write-two-producers.json"), "kafka-0.11", config(10, 4, 1, false, "replicas-diverged", false)),
    ];
    for (scenario, name, config) in cases {
        let mut s = scenario.clone();
        s.preset = preset(name);
        let one = parallel::search(&config, &s, 1, std::time::Instant::now(), true).finished;
        let moves = |f: &hwscope::check::Finished| f.counterexample.as_ref().map(|c| c.moves.clone());
        for threads in [2, 3] {
            let many = parallel::search(&config, &s, threads, std::time::Instant::now(), true).finished;
            assert_eq!(many.outcome, one.outcome, "{name}, {threads} threads");
            let (a, b) = (&one.progress, &many.progress);
            assert_eq!(
                (b.distinct, b.explored, b.depth, b.pruned),
                (a.distinct, a.explored, a.depth, a.pruned),
                "{name}, {threads} threads"
            );
            assert_eq!(moves(&many), moves(&one), "{name}, {threads} threads");
        }
    }
}

/// Cuts between the controller and a broker and between a client and a broker
/// are moves (the generic endpoint set: every pair with a broker at one end), and
/// so is which of the messages on the wire a cut catches. Alone (no crash,
/// restart or broker–broker cut) they lose nothing in the KIP-101 setup within
/// these bounds, before the fix or after; the counts pin the moves they add.
#[test]
fn controller_and_client_cuts_and_caught_messages_are_moves() {
    let scenario = builtin::load("kip101-data-loss").expect("built-in");
    let mut c = config(28, 2, 0, false, "any", false);
    c.menu = FaultMenu { crash: false, restart: false, cut: false, controller: true, clients: true, catch: 1, ..FaultMenu::default() };
    for (name, want) in [("kafka-0.10", row("none", 0, 680, 1475)), ("kafka-4.0", row("none", 0, 2759, 4064))] {
        assert_eq!(search(&scenario, name, &c).0, want, "{name}");
    }
    // Each kind of link is offered: the search's first level has them all.
    let setup = check::search::Setup::new(c.clone(), &scenario);
    let sim = hwscope::sim::Sim::new(setup.base.clone());
    let mut moves = Vec::new();
    setup.moves(&sim, check::Used::default(), &mut moves);
    let words: Vec<String> = moves.iter().filter_map(|m| m.words()).collect();
    assert_eq!(words, ["cut 0↔controller", "cut 1↔controller", "cut 0↔producer 0", "cut 1↔producer 0"]);
}

/// A cut that catches a message on the wire: a data message is held (TCP resends
/// it after the heal), a controller message is lost; the scenario field `catch`
/// replays it, and a heal refuses one.
#[test]
fn a_cut_catches_messages_on_the_wire() {
    use hwscope::sim::{Node, Sim};
    let mut scenario = builtin::load("kip101-data-loss").expect("built-in");
    scenario.events.retain(|e| e.produce.is_some());
    let mut sim = Sim::new(scenario.clone());
    let across = |sim: &Sim| {
        sim.in_flight.values().find(|(m, _)| m.held.is_none() && m.from == Node::Broker(0) && m.to == Node::Broker(1)).map(|(m, _)| m.id)
    };
    while across(&sim).is_none() {
        assert!(sim.step(), "a message from broker 0 to broker 1");
    }
    let id = across(&sim).unwrap();
    let cut = Scenario::event_from_json(&format!(r#"{{"partition":{{"between":[0,1],"catch":[{id}]}}}}"#)).unwrap();
    sim.apply_now(scenario.action("event", &cut).unwrap());
    assert!(sim.in_flight.get(&id).is_some_and(|(m, _)| m.held.is_some()), "held, not arriving");
    let heal = Scenario::event_from_json(r#"{"heal":{"between":[0,1]}}"#).unwrap();
    sim.apply_now(scenario.action("event", &heal).unwrap());
    assert!(sim.in_flight.get(&id).is_some_and(|(m, _)| m.held.is_none()), "released at the heal");
    let bad = Scenario::event_from_json(r#"{"heal":{"between":[0,1],"catch":[3]}}"#).unwrap();
    assert_eq!(
        scenario.action("events[0]", &bad).unwrap_err().to_string(),
        "events[0].heal.catch: only a partition catches messages on the wire"
    );
}
