//! `hwscope run … --itf FILE` and `hwscope check … --itf FILE` write the
//! Informal Trace Format (Apalache ADR-015); the `itf` crate, the Rust reader
//! Quint's and Apalache's users have, reads them back into typed states: one
//! state per step, each with its action, the ISR as a set and the replicas as a
//! map from broker to replica.

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

#[derive(Debug, Deserialize)]
struct State {
    step: i64,
    time_ms: i64,
    action: String,
    partition: Partition,
    replicas: BTreeMap<i64, Replica>,
    violations: Vec<Violation>,
}

#[derive(Debug, Deserialize)]
struct Partition {
    #[serde(default)]
    leader: Option<i64>,
    leader_epoch: i64,
    isr: BTreeSet<i64>,
}

#[derive(Debug, Deserialize)]
struct Replica {
    alive: bool,
    leo: i64,
    hw: i64,
}

#[derive(Debug, Deserialize)]
struct Violation {
    invariant: String,
}

fn hwscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hwscope")).args(args).output().expect("hwscope runs")
}

fn read(path: &std::path::Path) -> itf::Trace<State> {
    let text = std::fs::read_to_string(path).expect("the trace was written");
    itf::trace_from_str(&text).expect("a valid ITF trace")
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hwscope-itf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir.join(name)
}

#[test]
fn a_run_as_an_itf_trace_reads_back() {
    let path = temp("seed.itf.json");
    let out = hwscope(&["run", "--builtin", "seed-walkthrough", "--itf", path.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let jsonl = String::from_utf8(out.stdout).expect("utf-8");
    let trace = read(&path);
    assert_eq!(trace.meta.format.as_deref(), Some("ITF"));
    assert_eq!(trace.vars.len(), 11);
    // One state per step record, in order, each with its action.
    let records: Vec<serde_json::Value> = jsonl.lines().map(|l| serde_json::from_str(l).expect("json")).collect();
    assert_eq!(trace.states.len(), records.len());
    for (s, r) in trace.states.iter().zip(&records) {
        let s = &s.value;
        assert_eq!(s.step as u64, r["step"].as_u64().expect("step"));
        assert_eq!(s.time_ms as u64, r["time_ms"].as_u64().expect("time"));
        assert_eq!(s.action, r["event"]["type"].as_str().unwrap_or("init"));
        assert_eq!(s.partition.leader, r["partition"]["leader"].as_i64());
        assert_eq!(s.partition.leader_epoch, r["partition"]["leader_epoch"].as_i64().expect("epoch"));
        let isr: BTreeSet<i64> = r["partition"]["isr"].as_array().expect("isr").iter().map(|b| b.as_i64().expect("broker")).collect();
        assert_eq!(s.partition.isr, isr);
        for replica in r["replicas"].as_array().expect("replicas") {
            let b = &s.replicas[&replica["broker"].as_i64().expect("broker")];
            assert_eq!(
                (b.alive, b.leo, b.hw),
                (replica["alive"].as_bool().expect("alive"), replica["leo"].as_i64().expect("leo"), replica["hw"].as_i64().expect("hw"))
            );
        }
    }
    assert_eq!(trace.states[0].value.action, "init");
    assert!(trace.states.iter().any(|s| s.value.action == "fetch_response"));
}

#[test]
fn a_counterexample_as_an_itf_trace_ends_at_its_violation() {
    let path = temp("kip101.itf.json");
    let out = hwscope(&[
        "check",
        "--builtin",
        "kip101-data-loss",
        "--preset",
        "kafka-0.10",
        "--simulate",
        "--walks",
        "2000",
        "--quiet",
        "--itf",
        path.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace = read(&path);
    // The shrunk replay: step 0 to the violation (35 steps: shrinking keeps what the
    // violation needs, and moves with it when the clients' rules change what a step is);
    // the violation in the last state only.
    assert_eq!(trace.states.len(), 36);
    let (last, before) = trace.states.split_last().expect("states");
    assert!(before.iter().all(|s| s.value.violations.is_empty()));
    let names: Vec<&str> = last.value.violations.iter().map(|v| v.invariant.as_str()).collect();
    assert_eq!(names, ["acked-record-lost"]);
}
