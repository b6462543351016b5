//! Bad input of every kind, for every field of the scenario format (docs/format.md
//! and the documented extensions): rejected with one line, "field: what is
//! wrong", never a panic; and the same through the CLI (exit status 2) and
//! through an intervention (`Run::apply`).

mod support;

use hwscope::{Run, Scenario};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A valid scenario with one of everything, so that each case changes one field.
fn base() -> Value {
    json!({
        "format": 1, "title": "t", "description": "d", "seed": 7, "preset": "kafka-4.0",
        "behavior": {"long_poll": true},
        "replicas": 3, "initial": {"log_end_offset": 10},
        "config": {"replica.fetch.wait.max.ms": 500, "min.insync.replicas": 2},
        "record_bytes": 100,
        "network": {"latency_ms": 1, "jitter_ms": 0, "links": [{"from": 1, "to": 0, "latency_ms": 5}]},
        "producers": [{"id": "p1", "acks": "all", "request.timeout.ms": 30000}],
        "consumers": [{"id": "c1", "fetch_from": 1, "fetch.max.wait.ms": 500, "position": 5, "request.timeout.ms": 30000}],
        "events": [
            {"at_ms": 0, "produce": {"producer": "p1", "records": 2}},
            {"at_ms": 10, "crash": {"broker": 1, "unflushed": 1}},
            {"at_ms": 20, "restart": {"broker": 1}},
            {"at_ms": 30, "partition": {"between": [0, 2]}},
            {"at_ms": 40, "heal": {"from": 0, "to": 2}},
            {"at_ms": 50, "add_consumer": {"id": "c2"}},
            {"at_ms": 60, "produce": {"producer": "p1"}, "repeat": {"count": 3, "every_ms": 10}}
        ],
        "stop_at_ms": 1000
    })
}

/// Sets `path` (`/`-separated; numbers index arrays, one past the end appends;
/// the value `"-"` removes the key, or the array element) to `value`.
fn with(path: &str, value: Value) -> Value {
    let mut v = base();
    let parts: Vec<&str> = path.split('/').collect();
    let mut cur = &mut v;
    for p in &parts[..parts.len() - 1] {
        cur = match p.parse::<usize>() {
            Ok(i) => &mut cur[i],
            Err(_) => &mut cur[*p],
        };
    }
    let last = parts[parts.len() - 1];
    if value == json!("-") {
        if let Some(o) = cur.as_object_mut() {
            o.remove(last);
        } else if let (Ok(i), Some(a)) = (last.parse::<usize>(), cur.as_array_mut()) {
            if i < a.len() {
                a.remove(i);
            }
        }
    } else {
        match (last.parse::<usize>(), cur.as_array_mut()) {
            (Ok(i), Some(a)) if i == a.len() => a.push(value),
            (Ok(i), _) => cur[i] = value,
            (Err(_), _) => cur[last] = value,
        }
    }
    v
}

/// The error for `input`, checked to be one line starting with `field: `.
fn rejected(input: &str, field: &str, fragment: &str) {
    let err = match Scenario::from_json(input) {
        Ok(_) => panic!("accepted, but {field} is wrong: {input}"),
        Err(e) => e.to_string(),
    };
    assert!(!err.contains('\n'), "one line: {err:?}");
    let prefix = if field.is_empty() { String::new() } else { format!("{field}: ") };
    assert!(err.starts_with(&prefix), "{input}\n  got {err:?}\n  want it to start with {prefix:?}");
    assert!(err.contains(fragment), "{input}\n  got {err:?}\n  want it to contain {fragment:?}");
}

#[test]
fn the_base_scenario_is_valid_and_runs() {
    let s = Scenario::from_json(&base().to_string()).unwrap_or_else(|e| panic!("{e}"));
    let mut run = Run::new(s);
    let mut n = 0;
    run.for_each_record(|_| n += 1);
    assert!(n > 10);
}

#[test]
fn not_a_scenario() {
    rejected("", "", "not valid JSON");
    rejected("not json", "", "not valid JSON");
    rejected("{\"format\":1", "", "not valid JSON");
    rejected("{\"format\":1} {}", "", "");
    rejected("[1, 2]", "", "");
    rejected("{}", "", "missing field `format`");
    rejected("null", "", "");
}

#[test]
fn top_level_fields() {
    let cases: &[(&str, Value, &str, &str)] = &[
        ("format", json!(2), "format", "must be 1, got 2"),
        ("format", json!(0), "format", "must be 1"),
        ("format", json!("1"), "format", "got"),
        ("title", json!(3), "title", "got"),
        ("description", json!(["x"]), "description", "got"),
        ("seed", json!(-1), "seed", ""),
        ("seed", json!("one"), "seed", "got"),
        ("preset", json!("kafka-9"), "preset", "kafka-9"),
        ("preset", json!(4), "preset", ""),
        ("replicas", json!(0), "replicas", "must be between 1 and 7, got 0"),
        ("replicas", json!(8), "replicas", "must be between 1 and 7, got 8"),
        ("replicas", json!(40), "replicas", "must be between 1 and 7, got 40"),
        ("replicas", json!(-3), "replicas", ""),
        ("replicas", json!("3"), "replicas", "got"),
        ("record_bytes", json!(0), "record_bytes", "got 0"),
        ("record_bytes", json!(1_048_577), "record_bytes", "got 1048577"),
        ("stop_at_ms", json!(-1), "stop_at_ms", ""),
        ("stop_at_ms", json!(86_400_001u64), "stop_at_ms", "got 86400001"),
        ("replica", json!(3), "replica", "unknown field `replica`"),
    ];
    for (path, value, field, fragment) in cases {
        rejected(&with(path, value.clone()).to_string(), field, fragment);
    }
}

/// A number past u64 is read as a float's text (`1e+20`): it is said to be too large for
/// the field, not to be no whole number. Told from the text, never parsed as a float.
#[test]
fn a_number_past_u64_is_too_large() {
    let cases = [
        (r#""replicas":99999999999999999999"#, "replicas: must be at most 4294967295, got 1e+20"),
        (r#""seed":99999999999999999999"#, "seed: must be at most 18446744073709551615, got 1e+20"),
        (r#""seed":18446744073709551616"#, "seed: must be at most 18446744073709551615, got 1.8446744073709552e+19"),
        (r#""seed":2e300"#, "seed: must be at most 18446744073709551615, got 2e+300"),
        (r#""stop_at_ms":1e25"#, "stop_at_ms: must be at most 18446744073709551615, got 1e+25"),
        // Within u64 but written as floats, or negative: not whole numbers 0 or more.
        (r#""seed":1e19"#, "seed: must be a whole number 0 or more, got 1e+19"),
        (r#""seed":1.8e19"#, "seed: must be a whole number 0 or more, got 1.8e+19"),
        (r#""seed":-1e20"#, "seed: must be a whole number 0 or more, got -1e+20"),
        (r#""seed":1.5"#, "seed: must be a whole number 0 or more, got 1.5"),
    ];
    for (field, want) in cases {
        let got = Scenario::from_json(&format!(r#"{{"format":1,{field}}}"#)).map(|_| ()).unwrap_err().to_string();
        assert_eq!(got, want, "{field}");
    }
    assert!(Scenario::from_json(r#"{"format":1,"seed":18446744073709551615}"#).is_ok(), "u64::MAX itself is a seed");
}

#[test]
fn behavior_overrides() {
    rejected(&with("behavior", json!({"long_pol": true})).to_string(), "behavior.long_pol", "unknown field `long_pol`");
    for (key, bad) in [
        ("hw_counts", json!("everyone")),
        ("hw_held_under_min_isr", json!("yes")),
        ("response_hw", json!("middle")),
        ("long_poll", json!(1)),
        ("hw_move_completes_follower_fetch", json!(null)),
        ("consumer_fetch_above_hw", json!("sometimes")),
        ("follower_hw_completes_consumer_fetch", json!([])),
        ("follower_fetching", json!("no")),
        ("truncation", json!("none")),
        ("leader_epoch_fencing", json!(2)),
        ("isr_update", json!("zookeeper")),
    ] {
        rejected(&with("behavior", json!({ key: bad })).to_string(), &format!("behavior.{key}"), "");
    }
    // Every documented value of every switch is accepted.
    for (key, values) in [
        ("hw_counts", vec!["isr", "isr-or-caught-up", "maximal-isr-or-caught-up", "maximal-isr-or-caught-up-eligible"]),
        ("response_hw", vec!["after-fetch", "before-fetch"]),
        ("consumer_fetch_above_hw", vec!["park", "empty"]),
        ("truncation", vec!["high-watermark", "epoch-request", "epoch-request-multi-round", "diverging-epoch"]),
        ("isr_update", vec!["immediate", "alter-partition"]),
    ] {
        for v in values {
            Scenario::from_json(&with("behavior", json!({ key: v })).to_string()).unwrap_or_else(|e| panic!("{key}={v}: {e}"));
        }
    }
}

#[test]
fn initial_and_config() {
    rejected(&with("initial/log_end_offset", json!(-1)).to_string(), "initial.log_end_offset", "");
    rejected(&with("initial/log_end_offset", json!(1_000_000_001u64)).to_string(), "initial.log_end_offset", "got 1000000001");
    rejected(&with("initial/leo", json!(1)).to_string(), "initial.leo", "unknown field `leo`");
    let cases: &[(&str, Value, &str)] = &[
        ("replica.fetch.wait.max.ms", json!(-1), ""),
        ("replica.fetch.wait.max.ms", json!(600_001), "got 600001"),
        ("replica.fetch.min.bytes", json!(-1), ""),
        ("replica.fetch.min.bytes", json!(1_073_741_825u64), "got 1073741825"),
        ("replica.fetch.max.bytes", json!(0), "got 0"),
        ("replica.lag.time.max.ms", json!(1), "got 1"),
        ("replica.lag.time.max.ms", json!("30s"), "got"),
        ("min.insync.replicas", json!(0), "got 0"),
        ("min.insync.replicas", json!(8), "got 8"),
        ("unclean.leader.election.enable", json!("true"), "got"),
        ("broker.session.timeout.ms", json!(0), "got 0"),
        ("broker.session.timeout.ms", json!(1000), "must be at least broker.heartbeat.interval.ms (2000), got 1000"),
        ("broker.heartbeat.interval.ms", json!(0), "got 0"),
        ("replica.socket.timeout.ms", json!(0), "got 0"),
        ("replica.fetch.backoff.ms", json!(0), "got 0"),
    ];
    for (key, value, fragment) in cases {
        rejected(&with(&format!("config/{key}"), value.clone()).to_string(), &format!("config.{key}"), fragment);
    }
    rejected(&with("phases/fence_check_ms", json!(1125)).to_string(), "phases.fence_check_ms", "between 0 and 1124, got 1125");
    rejected(&with("phases/fence_check_ms", json!(-1)).to_string(), "phases.fence_check_ms", "got");
    rejected(&with("phases/heartbeat_ms", json!([1, 2])).to_string(), "phases.heartbeat_ms", "one phase per broker: 3 replicas, got 2");
    rejected(&with("phases/heartbeat_ms", json!([1, 2, 2000])).to_string(), "phases.heartbeat_ms[2]", "between 0 and 1999, got 2000");
    let mut zk = with("phases/heartbeat_ms", json!([1, 2, 3]));
    zk["preset"] = json!("kafka-2.0");
    rejected(&zk.to_string(), "phases.heartbeat_ms", "KRaft presets only");
    rejected(
        &with("config/replica.fetch.wait.ms", json!(5)).to_string(),
        "config.replica.fetch.wait.ms",
        "unknown field `replica.fetch.wait.ms`",
    );
}

#[test]
fn network() {
    rejected(&with("network/latency_ms", json!(0)).to_string(), "network.latency_ms", "got 0");
    rejected(&with("network/latency_ms", json!(60_001)).to_string(), "network.latency_ms", "got 60001");
    rejected(&with("network/jitter_ms", json!(60_001)).to_string(), "network.jitter_ms", "got 60001");
    rejected(&with("network/delay", json!(1)).to_string(), "network.delay", "unknown field `delay`");
    rejected(&with("network/links/0/from", json!(9)).to_string(), "network.links[0].from", "no broker 9: brokers are 0 to 2");
    rejected(&with("network/links/0/to", json!(3)).to_string(), "network.links[0].to", "no broker 3");
    rejected(&with("network/links/0/to", json!(1)).to_string(), "network.links[0]", "from and to must differ");
    rejected(&with("network/links/0/latency_ms", json!(0)).to_string(), "network.links[0].latency_ms", "got 0");
    rejected(&with("network/links/0/latency_ms", json!("-")).to_string(), "network.links[0]", "missing field `latency_ms`");
    rejected(&with("network/links/0/both", json!(true)).to_string(), "network.links[0].both", "unknown field `both`");
}

#[test]
fn producers() {
    rejected(&with("producers/0/id", json!("")).to_string(), "producers[0].id", "");
    rejected(&with("producers/0/id", json!("p 1")).to_string(), "producers[0].id", "\"p 1\"");
    rejected(&with("producers/0/id", json!("x".repeat(33))).to_string(), "producers[0].id", "");
    rejected(&with("producers/0/id", json!("controller")).to_string(), "producers[0].id", "reserved");
    rejected(&with("producers/0/id", json!("-")).to_string(), "producers[0]", "missing field `id`");
    rejected(&with("producers/0/acks", json!(2)).to_string(), "producers[0].acks", "must be 0, 1 or \"all\", got 2");
    rejected(&with("producers/0/acks", json!("one")).to_string(), "producers[0].acks", "must be 0, 1 or \"all\"");
    rejected(&with("producers/0/request.timeout.ms", json!(0)).to_string(), "producers[0].request.timeout.ms", "got 0");
    rejected(&with("producers/0/linger.ms", json!(3)).to_string(), "producers[0].linger.ms", "unknown field `linger.ms`");
    rejected(&with("producers/1", json!({"id": "p1"})).to_string(), "producers[1].id", "\"p1\" is used twice");
    let many: Vec<Value> = (0..9).map(|i| json!({"id": format!("p{i}")})).collect();
    let mut v = base();
    v["producers"] = json!(many);
    v["events"] = json!([]);
    rejected(&v.to_string(), "producers", "at most 8 producers, got 9");
}

#[test]
fn consumers() {
    rejected(&with("consumers/0/id", json!("c/1")).to_string(), "consumers[0].id", "");
    rejected(&with("consumers/0/fetch_from", json!(3)).to_string(), "consumers[0].fetch_from", "no broker 3");
    rejected(&with("consumers/0/fetch.max.wait.ms", json!(600_001)).to_string(), "consumers[0].fetch.max.wait.ms", "got 600001");
    rejected(&with("consumers/0/request.timeout.ms", json!(0)).to_string(), "consumers[0].request.timeout.ms", "got 0");
    rejected(&with("consumers/0/position", json!(11)).to_string(), "consumers[0].position", "must be between 0 and 10, got 11");
    rejected(&with("consumers/0/group", json!("g")).to_string(), "consumers[0].group", "unknown field `group`");
    rejected(&with("consumers/1", json!({"id": "c1"})).to_string(), "consumers[1].id", "\"c1\" is used twice");
    let many: Vec<Value> = (0..9).map(|i| json!({"id": format!("c{i}")})).collect();
    rejected(&with("consumers", json!(many)).to_string(), "consumers", "at most 8 consumers, got 9");
}

#[test]
fn events() {
    let cases: &[(&str, Value, &str, &str)] = &[
        ("events/0/at_ms", json!(-5), "events[0].at_ms", "must be 0 or more, got -5"),
        ("events/0/at_ms", json!(86_400_001u64), "events[0].at_ms", "must be at most 86400000"),
        ("events/0/at_ms", json!("soon"), "events[0].at_ms", "got"),
        (
            "events/0",
            json!({"at_ms": 5}),
            "events[0]",
            "needs exactly one of produce, crash, restart, partition, heal, add_consumer; got 0",
        ),
        ("events/0", json!({"at_ms": 5, "crash": {"broker": 0}, "restart": {"broker": 0}}), "events[0]", "got 2"),
        ("events/0/explode", json!({}), "events[0].explode", "unknown field `explode`"),
        ("events/0/produce/producer", json!("nope"), "events[0].produce.producer", "no producer \"nope\""),
        ("events/0/produce/records", json!(0), "events[0].produce.records", "got 0"),
        ("events/0/produce/records", json!(10_001), "events[0].produce.records", "got 10001"),
        ("events/0/produce/records", json!(-1), "events[0].produce.records", ""),
        ("events/0/produce/acks", json!(1), "events[0].produce.acks", "unknown field `acks`"),
        ("events/1/crash/broker", json!(3), "events[1].crash.broker", "no broker 3: brokers are 0 to 2"),
        ("events/1/crash/unflushed", json!(-1), "events[1].crash.unflushed", ""),
        ("events/1/crash/broker", json!("-"), "events[1].crash", "missing field `broker`"),
        ("events/2/restart/broker", json!(7), "events[2].restart.broker", "no broker 7"),
        ("events/3/partition/between", json!([0, 0]), "events[3].partition.between", "needs two different brokers"),
        ("events/3/partition/between", json!([0, 5]), "events[3].partition.between[1]", "no broker 5"),
        ("events/3/partition/between", json!([0]), "events[3].partition.between", ""),
        ("events/3/partition", json!({"from": 0}), "events[3].partition", "give either \"between\": [a, b] or both \"from\" and \"to\""),
        ("events/3/partition", json!({"between": [0, 1], "from": 0, "to": 1}), "events[3].partition", "give either"),
        ("events/4/heal/to", json!(0), "events[4].heal", "from and to must differ"),
        ("events/4/heal/from", json!(9), "events[4].heal.from", "no broker 9"),
        ("events/5/add_consumer/fetch_from", json!(4), "events[5].add_consumer.fetch_from", "no broker 4"),
        ("events/5/add_consumer/id", json!(""), "events[5].add_consumer.id", ""),
        ("events/6/repeat/count", json!(0), "events[6].repeat.count", "got 0"),
        ("events/6/repeat/count", json!(100_001), "events[6].repeat.count", "got 100001"),
        ("events/6/repeat/every_ms", json!(0), "events[6].repeat.every_ms", "got 0"),
        ("events/6/repeat/times", json!(2), "events[6].repeat.times", "unknown field `times`"),
    ];
    for (path, value, field, fragment) in cases {
        rejected(&with(path, value.clone()).to_string(), field, fragment);
    }
    let many: Vec<Value> = (0..10_001).map(|i| json!({"at_ms": i, "produce": {"producer": "p1"}})).collect();
    rejected(&with("events", json!(many)).to_string(), "events", "at most 10000 events, got 10001");
    // Each event within its limits, but together more records than a tab can hold.
    let flood = json!([{"at_ms": 0, "produce": {"producer": "p1", "records": 10_000}, "repeat": {"count": 101, "every_ms": 1}}]);
    rejected(&with("events", flood).to_string(), "events", "at most 1000000 records produced in all, got 1010000");
    let edge = json!([{"at_ms": 0, "produce": {"producer": "p1", "records": 10_000}, "repeat": {"count": 100, "every_ms": 1}}]);
    assert!(hwscope::Scenario::from_json(&with("events", edge).to_string()).is_ok(), "exactly 1,000,000 records is allowed");
}

/// A broker that exists in one cluster size and not in another: the error
/// tells which brokers there are.
#[test]
fn broker_ids_follow_the_cluster_size() {
    let mut v = with("replicas", json!(1));
    v["network"]["links"] = json!([]);
    v["consumers"] = json!([]);
    v["events"] = json!([{"at_ms": 1, "crash": {"broker": 1}}]);
    rejected(&v.to_string(), "events[0].crash.broker", "no broker 1: the only broker is 0");
}

/// An intervention is validated like a scenario event; a bad one changes nothing.
#[test]
fn a_bad_intervention_is_refused_and_changes_nothing() {
    let mut run = Run::new(Scenario::from_json(&base().to_string()).unwrap());
    for _ in 0..5 {
        run.step();
    }
    let before = run.record().to_json();
    for (event, field) in [
        (json!({"crash": {"broker": 9}}), "event.crash.broker: no broker 9"),
        (json!({"produce": {"producer": "ghost"}}), "event.produce.producer: no producer \"ghost\""),
        (json!({"partition": {"between": [1, 1]}}), "event.partition.between"),
        (json!({}), "event: needs exactly one of"),
    ] {
        let spec = Scenario::event_from_json(&event.to_string()).unwrap_or_else(|e| panic!("{event}: {e}"));
        let err = run.apply(&spec).expect_err(&event.to_string()).to_string();
        assert!(err.starts_with(field), "{event}: {err}");
        assert_eq!(run.record().to_json(), before, "{event} changed the run");
    }
    let ok = Scenario::event_from_json(r#"{"crash":{"broker":2}}"#).unwrap();
    run.apply(&ok).unwrap();
    assert!(run.record().to_json().contains("\"type\":\"crash\""));
}

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_hwscope")).args(args).output().expect("run hwscope")
}

/// The CLI: exit status 2 and one clear line on stderr, never a panic.
#[test]
fn the_cli_rejects_bad_input_with_status_2_and_one_line() {
    let dir = std::env::temp_dir().join(format!("hwscope-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (with("replicas", json!(40)).to_string(), "replicas: must be between 1 and 7, got 40"),
        (with("events/1/crash/broker", json!(9)).to_string(), "events[1].crash.broker: no broker 9"),
        (with("events/0/at_ms", json!(-1)).to_string(), "events[0].at_ms: must be 0 or more, got -1"),
        (with("replica", json!(3)).to_string(), "unknown field `replica`"),
        ("this is not json".to_string(), "not valid JSON"),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let path = dir.join(format!("s{i}.json"));
        std::fs::write(&path, text).unwrap();
        let out = cli(&["run", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{want}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr:?}");
        assert!(stderr.contains(want), "{stderr:?} should contain {want:?}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
    for args in [
        vec!["run", "--builtin", "no-such-scenario"],
        vec!["run", "--builtin", "seed-walkthrough", "--format", "xml"],
        vec!["run", "/no/such/file.json"],
        vec!["frobnicate"],
    ] {
        let out = cli(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{args:?}");
    }
    // `COMMAND --help` is a question, not bad input: the usage on stdout, status 0.
    for cmd in ["run", "render-docs", "figure", "link", "svg", "check", "presets"] {
        let out = cli(&[cmd, "--help"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{cmd} --help: {}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains(&format!("hwscope {cmd}")), "{cmd} --help names its command: {stdout}");
        assert!(out.stderr.is_empty(), "{cmd} --help");
    }
    // And a good file runs: one JSON line per step.
    let path = dir.join("good.json");
    std::fs::write(&path, base().to_string()).unwrap();
    let out = cli(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert!(lines.len() > 10);
    for (i, l) in lines.iter().enumerate() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["step"], i as u64);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Leaves of the base scenario, as paths, for the mutation property below.
fn leaves(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| leaves(x, if path.is_empty() { k.clone() } else { format!("{path}/{k}") }, out)),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| leaves(x, format!("{path}/{i}"), out)),
        _ => out.push(path),
    }
}

fn any_json() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-5i64..20).prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        "[a-z0-9 .-]{0,12}".prop_map(Value::from),
        Just(json!([])),
        Just(json!({})),
        Just(json!([0, 1])),
    ]
}

/// Every leaf of the base scenario, removed (a key, or an array element) or set
/// to null, one at a time: an error of one line or a scenario that runs. The
/// exhaustive companion of the random mutation property below.
#[test]
fn every_leaf_removed_or_nulled_is_an_error_or_runs() {
    let mut paths = Vec::new();
    leaves(&base(), String::new(), &mut paths);
    assert!(paths.len() > 40, "{} leaves", paths.len());
    for path in &paths {
        for value in [json!("-"), Value::Null] {
            let input = with(path, value).to_string();
            match Scenario::from_json(&input) {
                Err(e) => {
                    let text = e.to_string();
                    assert!(!text.is_empty() && !text.contains('\n'), "{path}: {text:?}");
                }
                Ok(s) => {
                    let mut run = Run::new(s);
                    let mut steps = 0;
                    while steps < 2000 && run.step() {
                        steps += 1;
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any one field of a valid scenario replaced by any JSON value: either a
    /// one-line error naming a field, or a scenario that runs without panicking.
    #[test]
    fn any_single_field_mutation_is_an_error_or_a_runnable_scenario(pick in any::<prop::sample::Index>(), value in any_json()) {
        let mut paths = Vec::new();
        leaves(&base(), String::new(), &mut paths);
        let path = pick.get(&paths);
        let input = with(path, value).to_string();
        match Scenario::from_json(&input) {
            Err(e) => {
                let text = e.to_string();
                prop_assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
            }
            Ok(s) => {
                let mut run = Run::new(s);
                let mut steps = 0;
                while steps < 2000 && run.step() {
                    steps += 1;
                }
                let _ = run.record().to_json();
            }
        }
    }

    /// Arbitrary text never panics the parser.
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = Scenario::from_json(&text);
    }
}
