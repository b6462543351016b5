//! The faults a Kafka engineer tries first (issue 11), as built-ins with golden
//! assertions: a zombie leader cut off from the controller, a bounce inside the
//! session (follower, then leader), a retry after a lost answer with and without
//! idempotence, and retries through a failover. Also the controller's figures
//! (§11) with heartbeats as messages and the periodic stale-broker check.

mod support;

use serde_json::{json, Value};
use support::*;

fn builtin(name: &str) -> Trace {
    Trace::of(hwscope::builtin::json(name).unwrap_or_else(|| panic!("built-in {name}")))
}

fn role(r: &Value, b: usize) -> &str {
    replica(r, b)["role"].as_str().unwrap_or("")
}

fn text(r: &Value) -> &str {
    r["text"].as_str().unwrap_or("")
}

/// Zombie leader: the controller elects broker 1 while broker 0, cut off from it,
/// still leads in its own view and acknowledges acks=1 writes alone; acks=all
/// cannot complete there; at the heal it learns, truncates and rejoins.
#[test]
fn zombie_leader() {
    let t = builtin("zombie-leader");
    assert!(t.violations().is_empty(), "nothing Kafka forbids: {:?}", t.violations());
    let cut = t.find(0, &json!({"type": "partition"}));
    assert_eq!(t.at(cut)["partition"]["cut_links"], json!([[0, "controller"], ["controller", 0]]));
    // Fenced 9 s after its last heartbeat that arrived, at a stale-broker check.
    let elected = t.find(cut, &json!({"type": "leader_election", "timer": "fence-check", "broker": 0, "leader": 1}));
    let at = time(t.at(elected));
    // (Its last heartbeat arrived before the cut, at most 2 s before it.)
    assert!((8_000..=11_200).contains(&at), "fenced at {at} ms");
    // Two leaders in two views: the controller's (partition.leader) and broker 0's own.
    let zombie = t.find(elected, &json!({"type": "produce_response", "from": 0, "to": "p1"}));
    let r = t.at(zombie);
    assert_eq!(r["partition"]["leader"], 1);
    assert_eq!((role(r, 0), role(r, 1)), ("leader", "leader"), "{}", line(r));
    // Its acks=1 acknowledgements are permitted losses, named at their step.
    let lost = t.allowed();
    assert!(lost.iter().any(|v| v.0 == zombie as u64 && v.1 == "acked-record-lost" && v.2.contains("acks=1")), "{lost:?}");
    // acks=all cannot complete on the zombie: p2's write waits until the heal.
    let p2 = t.find(elected, &json!({"type": "produce_request", "from": "p2", "to": 0, "outcome": "appended"}));
    assert!(t
        .all(&json!({"type": "produce_response", "from": 0, "to": "p2"}))
        .iter()
        .all(|&i| i < p2 || t.at(i)["event"]["error"].is_string()));
    // Its AlterPartition (shrinking the ISR to itself) is lost on the cut link.
    let shrink = t.find(elected, &json!({"type": "timeout", "broker": 0, "timer": "isr-expiration", "outcome": "shrink-proposed"}));
    assert!(text(t.at(shrink)).contains("AlterPartition"), "{}", text(t.at(shrink)));
    let heal = t.find(shrink, &json!({"type": "heal"}));
    assert!(t.all(&json!({"type": "alter_partition", "from": 0})).iter().all(|&i| i < shrink || i > heal), "lost on the cut link");
    // After the heal, a resent AlterPartition is refused (its leader epoch is stale).
    let refused = t.all(&json!({"type": "alter_partition", "from": 0, "outcome": "rejected"}));
    assert!(refused.iter().all(|&i| t.at(i)["event"]["error"] == "FENCED_LEADER_EPOCH"), "{refused:?}");
    // The heal: the next heartbeat answer brings the metadata; it steps down, truncates, rejoins.
    let down = t.find(heal, &json!({"type": "leader_and_isr", "to": 0, "outcome": "become-follower"}));
    assert!(time(t.at(down)) - time(t.at(heal)) <= 2_100, "within a heartbeat interval");
    let cut_log = t.find(down, &json!({"to": 0, "truncate_to": 12}));
    assert_eq!(role(t.at(cut_log), 0), "follower");
    let rejoined = t.find(cut_log, &json!({"type": "alter_partition", "outcome": "committed"}));
    assert_eq!(isr(t.at(rejoined)), vec![0, 1, 2]);
    let last = t.last();
    assert_eq!(log(last, 0), log(last, 1));
    assert!(strs(&producer(last, "p2")["acked"]).len() == 3, "p2's writes all delivered through the new leader");
}

/// A bounce inside the session: the new incarnation is refused while the old
/// session lasts, then registers fenced, catches up, is unfenced and rejoins the
/// ISR; a bounced leader is replaced at the fence, not at the restart.
#[test]
fn bounce_inside_session() {
    let t = builtin("bounce-inside-session");
    assert!(t.violations().is_empty(), "{:?}", t.violations());
    // Part 1: follower 2.
    let restart = t.find(0, &json!({"type": "restart", "broker": 2}));
    let refused = t.find(restart, &json!({"type": "broker_registration_response", "to": 2, "outcome": "refused"}));
    assert_eq!(t.at(refused)["event"]["error"], "DUPLICATE_BROKER_REGISTRATION");
    assert!(text(t.at(refused)).contains("DUPLICATE_BROKER_REGISTRATION"));
    assert_eq!(replica(t.at(refused), 2)["state"], "starting");
    let registered = t.find(refused, &json!({"type": "broker_registration", "from": 2, "outcome": "registered"}));
    // Only once the old session has expired (9 s after its last heartbeat, at most one
    // interval before the crash): a stale-broker check fenced it first, or this
    // registration cleans up its unclean shutdown. Each refusal is retried one heartbeat
    // interval after it arrives (4.0.2, measured).
    let crash2 = time(t.at(t.find(0, &json!({"type": "crash", "broker": 2}))));
    assert!(time(t.at(registered)) > crash2 + 9_000 - 2_000, "registered at {}", time(t.at(registered)));
    let answers: Vec<u64> = t.all(&json!({"type": "broker_registration_response", "to": 2})).iter().map(|&i| time(t.at(i))).collect();
    let asks: Vec<u64> = t.all(&json!({"type": "broker_registration", "from": 2})).iter().map(|&i| time(t.at(i))).collect();
    assert!(asks.len() >= 3 && asks.windows(2).zip(&answers).all(|(w, &a)| w[1] == a + 2_000 + 1), "asks {asks:?}, answers {answers:?}");
    let unfenced = t.find(registered, &json!({"type": "broker_heartbeat", "from": 2, "outcome": "unfenced"}));
    let back = t.find(unfenced, &json!({"type": "alter_partition", "outcome": "committed"}));
    assert_eq!(isr(t.at(back)), vec![0, 1, 2]);
    // Part 2: leader 0. The controller keeps it as leader until its old session expires.
    let crash = t.find(back, &json!({"type": "crash", "broker": 0}));
    let restart0 = t.find(crash, &json!({"type": "restart", "broker": 0}));
    assert_eq!(t.at(restart0)["partition"]["leader"], 0, "not replaced at the restart");
    let elected = t.find(restart0, &json!({"type": "leader_election", "timer": "fence-check", "broker": 0, "leader": 1}));
    let since = time(t.at(elected)) - time(t.at(crash));
    assert!((7_000..=11_200).contains(&since), "replaced at the fence, {since} ms after the crash");
    for i in restart0..elected {
        assert_eq!(t.at(i)["partition"]["leader"], 0, "{}", line(t.at(i)));
    }
    let rejoin = t.find(elected, &json!({"type": "alter_partition", "outcome": "committed"}));
    assert_eq!(isr(t.at(rejoin)), vec![0, 1, 2]);
    assert_eq!(role(t.last(), 0), "follower");
    // Writes refused meanwhile were retried and delivered: nothing lost, nothing twice.
    let p = producer(t.last(), "p1");
    assert!(p["pending"].as_array().unwrap().len() <= 2 && p["failed"].as_array().unwrap().is_empty(), "{p}");
    assert!(t.allowed().is_empty(), "{:?}", t.allowed());
}

/// A lost answer retried: without idempotence the record is appended twice under
/// its one id (permitted, named); with it the leader answers from its producer
/// state and appends nothing.
#[test]
fn retry_duplicates() {
    let t = builtin("retry-duplicates");
    assert!(t.violations().is_empty(), "{:?}", t.violations());
    let dup = t.find(0, &json!({"type": "produce_request", "from": "p-idem", "outcome": "duplicate"}));
    assert!(text(t.at(dup)).contains("Nothing is appended"), "{}", text(t.at(dup)));
    let again = t.find(0, &json!({"type": "produce_request", "from": "p-plain", "records": ["p-plain-2"], "outcome": "appended"}));
    let again = t.find(again + 1, &json!({"type": "produce_request", "from": "p-plain", "records": ["p-plain-2"], "outcome": "appended"}));
    let allowed = t.allowed();
    assert_eq!(allowed.len(), 1, "{allowed:?}");
    assert_eq!((allowed[0].0, allowed[0].1.as_str()), (again as u64, "duplicate-record"));
    assert!(allowed[0].2.contains("enable.idempotence"), "{}", allowed[0].2);
    let ids = log_ids(t.last(), 0);
    assert_eq!(ids.iter().filter(|id| *id == "p-plain-2").count(), 2, "{ids:?}");
    assert_eq!(ids.iter().filter(|id| *id == "p-idem-2").count(), 1, "{ids:?}");
    for b in 1..3 {
        assert_eq!(log_ids(t.last(), b), ids, "replicated as is");
    }
    // Both producers saw a timeout and one retry.
    for p in ["p-plain", "p-idem"] {
        assert_eq!(producer(t.last(), p)["retries"], 1, "{p}");
        assert_eq!(strs(&producer(t.last(), p)["acked"]).len(), 3, "{p}");
    }
}

/// Writes sent into a dead leader are retried with backoff and delivered to the
/// new leader at the producer's next metadata refresh after the election (the
/// refresh backoff is at most retry.backoff.max.ms, 1 s: the answers naming broker 0
/// were all alike), in order, each once; its metadata requests go to live brokers,
/// not to the killed leader that refused it.
#[test]
fn retry_through_failover() {
    let t = builtin("retry-through-failover");
    assert!(t.violations().is_empty() && t.allowed().is_empty(), "{:?} {:?}", t.violations(), t.allowed());
    let crash = t.find(0, &json!({"type": "crash", "broker": 0}));
    let refused = t.find(crash, &json!({"type": "connection_reset", "to": "p1"}));
    assert!(time(t.at(refused)) - time(t.at(crash)) < 50, "a killed broker refuses at once");
    let backoffs: Vec<u64> =
        t.all(&json!({"to": "p1", "outcome": "reset"})).iter().filter_map(|&i| t.at(i)["event"]["backoff_ms"].as_u64()).collect();
    assert!(backoffs.iter().any(|&b| b > 100) && backoffs.iter().all(|&b| b <= 1000), "exponential, capped: {backoffs:?}");
    let elected = t.find(crash, &json!({"type": "leader_election", "leader": 1}));
    let first = t.find(elected, &json!({"type": "produce_response", "from": 1, "to": "p1"}));
    let delay = time(t.at(first)) - time(t.at(elected));
    assert!(delay <= 1000 + 20, "delivered {delay} ms after the election");
    let asked: Vec<u64> =
        t.all(&json!({"type": "metadata_request", "from": "p1"})).iter().filter_map(|&i| t.at(i)["event"]["to"].as_u64()).collect();
    assert!(!asked.is_empty() && asked.iter().all(|&b| b != 0), "metadata asked of {asked:?}");
    let last = t.last();
    let acked = strs(&producer(last, "p1")["acked"]);
    assert_eq!(acked.len(), 26, "{acked:?}");
    let ids = log_ids(last, 1);
    let written: Vec<&String> = ids.iter().filter(|id| id.starts_with("p1-")).collect();
    assert_eq!(written.len(), 26, "each once: {ids:?}");
    let mut sorted = written.clone();
    sorted.sort_by_key(|id| id[3..].parse::<u32>().unwrap());
    assert_eq!(written, sorted, "in order");
}

/// §11 with heartbeats as messages: a follower isolated from the controller (not
/// from its leader) leaves the ISR 7–11 s after its last heartbeat, at a
/// stale-broker check; a stopped follower 7.2–9.1 s after the stop.
#[test]
fn isolated_from_the_controller_leaves_the_isr_in_time() {
    for seed in 0..20u64 {
        let t = Trace::of_value(&json!({
            "format": 1, "seed": seed, "replicas": 3,
            "events": [{"at_ms": 1000, "partition": {"between": [2, "controller"]}}],
            "stop_at_ms": 14000
        }));
        let last_beat = t
            .all(&json!({"type": "broker_heartbeat", "from": 2}))
            .into_iter()
            .filter(|&i| time(t.at(i)) < 1000)
            .map(|i| time(t.at(i)))
            .max()
            .unwrap_or(0);
        let out = t.find(0, &json!({"timer": "fence-check", "broker": 2}));
        let after = time(t.at(out)) - last_beat;
        assert!((7_000..=11_000).contains(&after), "seed {seed}: out {after} ms after its last heartbeat");
        assert_eq!(isr(t.at(out)), vec![0, 1]);
        let t = Trace::of_value(&json!({
            "format": 1, "seed": seed, "replicas": 3,
            "events": [{"at_ms": 1000, "crash": {"broker": 2}}],
            "stop_at_ms": 14000
        }));
        let out = t.find(0, &json!({"timer": "fence-check", "broker": 2}));
        let after = time(t.at(out)) - 1000;
        assert!((7_200..=9_100 + 1_125).contains(&after), "seed {seed}: stopped follower out {after} ms after the stop");
    }
}

/// `phases.fence_check_ms` (written by the oracle) pins the controller's
/// stale-broker check grid: the zombie's fence moves to the first check of that
/// grid after its deadline, and nothing else the seed drew moves.
#[test]
fn a_pinned_fence_check_phase_moves_the_fence_to_its_grid() {
    let base: Value = serde_json::from_str(hwscope::builtin::json("zombie-leader").unwrap_or("{}")).unwrap_or_default();
    let fence = |t: &Trace| time(t.at(t.find(0, &json!({"timer": "fence-check", "broker": 0}))));
    let drawn = fence(&Trace::of_value(&base));
    let mut firsts = Vec::new();
    for phase in [0u64, 400, 1_124] {
        let mut s = base.clone();
        s["phases"] = json!({"fence_check_ms": phase});
        let t = Trace::of_value(&s);
        let at = fence(&t);
        assert_eq!(at % 1_125, phase, "fenced at {at} ms, on the grid from {phase}");
        firsts.push(at);
        // The heartbeats (the fence's deadline) are where the seed put them.
        let beat = |t: &Trace| time(t.at(t.find(0, &json!({"type": "broker_heartbeat", "from": 0, "to": "controller"}))));
        assert_eq!(beat(&t), beat(&Trace::of_value(&base)));
    }
    // One check period spans every phase: the fences lie within it, the drawn one too.
    let (lo, hi) = (*firsts.iter().min().unwrap_or(&0), *firsts.iter().max().unwrap_or(&0));
    assert!(hi - lo < 1_125 && (lo..=lo + 1_125).contains(&drawn), "{firsts:?}, drawn {drawn}");
}

/// `phases.heartbeat_ms` pins when each broker heartbeats (the oracle writes the
/// real cluster's): the zombie's last heartbeat before the cut, and so its fence,
/// move with its phase.
#[test]
fn pinned_heartbeat_phases_move_the_heartbeats_and_the_fence() {
    let base: Value = serde_json::from_str(hwscope::builtin::json("zombie-leader").unwrap_or("{}")).unwrap_or_default();
    for (phase0, fenced) in [(100u64, 10_125u64), (900, 10_125), (1_900, 9_000)] {
        let mut s = base.clone();
        s["phases"] = json!({"heartbeat_ms": [phase0, 10, 20], "fence_check_ms": 0});
        let t = Trace::of_value(&s);
        let beats: Vec<u64> =
            t.all(&json!({"type": "broker_heartbeat", "from": 0, "to": "controller"})).iter().map(|&i| time(t.at(i))).collect();
        assert_eq!(beats.first().map(|b| (b - 1) % 2_000), Some(phase0), "{beats:?}");
        let fence = time(t.at(t.find(0, &json!({"timer": "fence-check", "broker": 0}))));
        assert_eq!(fence, fenced, "phase {phase0}");
    }
}

/// The new fields (client endpoints, producer and consumer settings, `crash.silent`)
/// survive the share-link codec.
#[test]
fn share_links_carry_the_new_fields() {
    let mut texts: Vec<String> = ["zombie-leader", "bounce-inside-session", "retry-duplicates", "retry-through-failover"]
        .iter()
        .map(|n| hwscope::builtin::json(n).unwrap().to_string())
        .collect();
    texts.push(
        json!({
            "format": 1, "replicas": 3,
            "producers": [{"id": "p1", "acks": "all", "enable.idempotence": true, "retries": 7, "delivery.timeout.ms": 60000,
                "retry.backoff.ms": 50, "retry.backoff.max.ms": 800, "metadata.max.age.ms": 10000, "max.in.flight.requests.per.connection": 3}],
            "consumers": [{"id": "c1", "metadata.max.age.ms": 5000, "retry.backoff.ms": 20, "auto.offset.reset": "earliest"}],
            "network": {"links": [{"from": "p1", "to": 0, "latency_ms": 30}, {"from": 1, "to": "controller", "latency_ms": 5}]},
            "config": {"request.timeout.ms": 20000, "replica.high.watermark.checkpoint.interval.ms": 1000},
            "phases": {"fence_check_ms": 321},
            "events": [
                {"at_ms": 10, "crash": {"broker": 1, "silent": true}},
                {"at_ms": 20, "partition": {"from": "c1", "to": 2}},
                {"at_ms": 30, "heal": {"between": [0, "controller"]}}
            ]
        })
        .to_string(),
    );
    for text in texts {
        let scenario = hwscope::Scenario::from_json(&text).unwrap();
        let link = hwscope::link::decode(&hwscope::link::encode(&scenario, Some(5), None)).unwrap();
        assert_eq!(link.scenario, scenario);
    }
}

/// KIP-320: after an unclean election the new leader's log ends below what a
/// consumer read; the consumer validates its position (OffsetsForLeaderEpoch),
/// detects the truncation and moves back to where the logs diverge, instead of
/// reading on from an offset the new leader fills with other records.
#[test]
fn a_consumer_detects_truncation_after_a_leader_change() {
    let t = Trace::of_value(&json!({
        "format": 1, "replicas": 2, "initial": {"log_end_offset": 100},
        "config": {"unclean.leader.election.enable": true, "replica.lag.time.max.ms": 2000},
        "producers": [{"id": "p1", "acks": 1}], "consumers": [{"id": "c1"}],
        "events": [
            {"at_ms": 100, "partition": {"between": [0, 1]}},
            {"at_ms": 1000, "produce": {"producer": "p1", "records": 3}},
            {"at_ms": 6000, "crash": {"broker": 0}},
            {"at_ms": 20000, "produce": {"producer": "p1", "records": 1}}
        ],
        "stop_at_ms": 22000
    }));
    let read = t.find(0, &json!({"type": "consumer_fetch_response", "to": "c1", "records": ["p1-1", "p1-2", "p1-3"]}));
    assert_eq!(consumer(t.at(read), "c1")["position"], 103);
    let elected = t.find(read, &json!({"type": "leader_election", "leader": 1, "clean": false}));
    let detected = t.find(elected, &json!({"type": "offsets_for_leader_epoch_response", "to": "c1", "outcome": "truncation-detected"}));
    assert_eq!(consumer(t.at(detected), "c1")["position"], 100, "{}", line(t.at(detected)));
    assert!(text(t.at(detected)).contains("KIP-320"), "{}", text(t.at(detected)));
    let next = t.find(detected, &json!({"type": "consumer_fetch_response", "from": 1, "to": "c1", "records": ["p1-4"]}));
    assert_eq!(t.at(next)["event"]["offset"], 100, "it reads the new leader's record at 100, not past it");
}

/// F9: a one-way cut that drops a broker's answers also drops its SYN-ACK, so the
/// producer's new connection waits for the kernel's SYN retransmissions. Linux's
/// `tcp_retransmit_timer` (6.5+, `tcp_syn_linear_timeouts` = 4) resends a SYN every
/// second five times before doubling, and Kafka's `NetworkClient` keeps the attempt
/// (CONNECTING) for `socket.connection.setup.timeout.ms` (10 s): the resend crosses at
/// the first whole second of the attempt after the heal. The real producer connected
/// 190 ms after a heal at 6 s (docs/exactness.md, F9); with doubling SYN gaps (1, 2, 4 s)
/// it would wait until 7.1 s.
#[test]
fn a_new_connection_crosses_at_the_syn_retransmission_after_the_heal() {
    let t = builtin("retry-duplicates");
    let heal = t.find(0, &json!({"type": "heal"}));
    let retry = t.find(0, &json!({"type": "timeout", "producer": "p-plain", "timer": "producer-wake", "retry": true}));
    let connect = time(t.at(retry));
    let again = t.find(heal, &json!({"type": "produce_request", "from": "p-plain", "records": ["p-plain-2"], "outcome": "appended"}));
    let arrived = time(t.at(again));
    // SYNs at connect + 1 s, + 2 s …: the first after the heal at 6 s, one hop later.
    let syn = (connect..).step_by(1_000).find(|&s| s >= time(t.at(heal))).unwrap();
    assert!((4_000..5_000).contains(&connect), "the connect after the request timeout: {connect}");
    assert_eq!(arrived, syn + 1, "the resend arrives on the SYN of {syn} ms (connect at {connect})");
    let acked = t.find(again, &json!({"type": "produce_response", "to": "p-plain", "records": ["p-plain-2"]}));
    assert!(time(t.at(acked)) - time(t.at(heal)) < 200, "acknowledged within 200 ms of the heal: {}", time(t.at(acked)));
    // The heal's sentence gives the handshake's schedule, not the data resend's.
    let said = text(t.at(heal));
    assert!(said.contains("next SYN") && !said.contains("200 ms after the first send"), "{said}");
}

/// A step's `held` names only what that step sent into a cut or caught on the wire:
/// it does not grow along the run (a checkpoint copies the step).
#[test]
fn a_steps_held_messages_are_its_own() {
    let text = hwscope::builtin::json("zombie-leader").expect("built-in zombie-leader");
    let mut sim = hwscope::sim::Sim::new(hwscope::scenario::Scenario::from_json(text).expect("its scenario"));
    let (mut steps, mut most) = (0, 0);
    while sim.step() && steps < 5_000 {
        steps += 1;
        most = most.max(sim.last.held().len());
        for id in sim.last.held() {
            assert!(sim.in_flight.get(id).is_some_and(|(m, _)| m.held.is_some()), "step {}: message {id} is held now", sim.step);
        }
    }
    assert!(most > 0, "the zombie's cut holds something");
}

/// Two followers leaving the ISR at one check are named with a plural verb (the zombie's
/// KRaft runs: "… 1 (last caught up at …), 2 (…) have not caught up …").
#[test]
fn an_isr_shrink_of_two_followers_says_have() {
    let zombie: Value = serde_json::from_str(hwscope::builtin::json("zombie-leader").expect("built-in")).expect("JSON");
    let t = Trace::of(&with_preset(&zombie, "kafka-4.0"));
    let two = (0..t.len())
        .map(|i| text(t.at(i)))
        .find(|s| s.contains("checks the ISR:") && s.contains("), 2 ("))
        .expect("a check naming two lagging followers");
    assert!(two.contains(") have not caught up"), "{two}");
    assert!(!two.contains(") has not caught up"), "{two}");
}

/// An unanswered heartbeat is given up on the heartbeat channel's own timeout, whichever
/// connections the cut takes (`heartbeat_timeout_is_interval`): from 4.0.1 after
/// broker.heartbeat.interval.ms, the next one interval later (`BrokerServer`,
/// `BrokerLifecycleManager.scheduleNextCommunicationAfterFailure`, KAFKA-19294); in 3.4–4.0.0
/// after broker.session.timeout.ms / 2 (KAFKA-14392), the next 100 ms later, then 200, 400 ….
/// A cut of the metadata connection alone gives up no heartbeat and fences nobody: the raft
/// client keeps its leader (`KafkaRaftClient.pollFollowerAsObserver`) and the controller does
/// not fence for a lagging metadata offset (`BrokerHeartbeatManager.calculateNextBrokerState`).
/// The session runs out and the controller fences broker 1 in the other cuts all the same.
#[test]
fn an_unanswered_heartbeat_is_given_up_on_the_heartbeat_channels_timeout() {
    // (ms from the first heartbeat sent after the cut to its give-up, the gap to the next
    // heartbeat, and whether broker 1 was fenced)
    let gave_up = |preset: &str, cut: Value| {
        let t = Trace::of_value(&json!({
            "format": 1, "preset": preset, "replicas": 2, "producers": [{"id": "p1", "acks": "all"}],
            "events": [{"at_ms": 1000, "partition": cut}], "stop_at_ms": 15000
        }));
        let due = json!({"type": "timeout", "broker": 1, "timer": "heartbeat"});
        let sent = (0..t.len()).find(|&i| time(t.at(i)) > 1000 && event_matches(t.at(i), &due)).unwrap();
        let fenced = (0..t.len()).any(|i| t.at(i)["text"].as_str().is_some_and(|x| x.contains("It fences broker 1.")));
        let Some(given) =
            (sent..t.len()).find(|&i| t.at(i)["text"].as_str().is_some_and(|x| x.starts_with("Broker 1's heartbeat has had no answer")))
        else {
            return (None, None, fenced);
        };
        let next = (given + 1..t.len()).find(|&i| event_matches(t.at(i), &due)).unwrap();
        (Some(time(t.at(given)) - time(t.at(sent))), Some(time(t.at(next)) - time(t.at(given))), fenced)
    };
    let heartbeat = json!({"from": 1, "to": "controller", "channel": "heartbeat"});
    let whole = json!({"from": 1, "to": "controller"});
    let metadata = json!({"between": [1, "controller"], "channel": "metadata"});
    assert_eq!(gave_up("kafka-4.0", heartbeat.clone()), (Some(2000), Some(2000), true));
    assert_eq!(gave_up("kafka-4.0", whole.clone()), (Some(2000), Some(2000), true));
    assert_eq!(gave_up("kafka-4.0", metadata.clone()), (None, None, false));
    for preset in ["kafka-3.7", "kafka-3.8"] {
        assert_eq!(gave_up(preset, heartbeat.clone()), (Some(4500), Some(100), true), "{preset}");
        assert_eq!(gave_up(preset, whole.clone()), (Some(4500), Some(100), true), "{preset}");
        assert_eq!(gave_up(preset, metadata.clone()), (None, None, false), "{preset}");
    }
}

/// A restarted KRaft broker opens its listeners only once the controller has unfenced
/// it (`BrokerServer.startup` before `SocketServer.enableRequestProcessing`; `Acceptor.start`
/// binds a fixed port only then: read at 3.7.0 and 3.8.0, and in 4.0.2's sources). In
/// bounce-inside-session leader 0 restarts at 20.5 s and is refused registration while its
/// old session lasts; producers and followers still sent to it get a refused connection, a
/// network error on their side, never an answer from the broker (it had answered
/// NOT_LEADER_OR_FOLLOWER). Once it is unfenced it answers again.
#[test]
fn a_restarted_kraft_broker_refuses_connections_until_it_is_unfenced() {
    for preset in ["kafka-3.7", "kafka-4.0", "kafka-4.1"] {
        let s: Value = serde_json::from_str(hwscope::builtin::json("bounce-inside-session").unwrap()).unwrap();
        let t = Trace::of(&with_preset(&s, preset));
        let restart = t.find(0, &json!({"type": "restart", "broker": 0}));
        let running = (restart..t.len()).find(|&i| replica(t.at(i), 0)["state"] == "running").expect("unfenced");
        for i in restart..running {
            let r = t.at(i);
            let e = &r["event"];
            assert!(
                !(e["from"] == 0 && (ty(r) == "produce_response" || ty(r) == "fetch_response")),
                "{preset}: broker 0 answers: {}",
                line(r)
            );
        }
        let p = t.find(restart, &json!({"type": "connection_reset", "from": 0, "to": "p1", "error": "NETWORK_EXCEPTION"}));
        assert!(p < running && text(t.at(p)).contains("has not opened its listeners yet"), "{preset}: {}", text(t.at(p)));
        let f = t.find(restart, &json!({"type": "connection_reset", "from": 0, "to": 1}));
        assert!(f < running && text(t.at(f)).contains("a network error, not an answer from the broker"), "{preset}: {}", text(t.at(f)));
        // After it is unfenced, a follower fetches from it normally.
        t.find(running, &json!({"type": "fetch_response", "from": 1, "to": 0}));
    }
}
