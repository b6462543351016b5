//! Helpers shared by the integration tests (each test file includes them with
//! `mod support;`). Tests read what a user sees:
//! the step records of docs/format.md, the step record; as JSON.
#![allow(dead_code)]

use hwscope::{Run, Scenario};
use serde_json::Value;

/// Parses a scenario, failing the test with the error if it is rejected.
pub fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap_or_else(|e| panic!("scenario rejected: {e}\n{json}"))
}

/// The same scenario under another preset.
pub fn with_preset(json: &Value, preset: &str) -> String {
    let mut v = json.clone();
    v["preset"] = Value::String(preset.to_string());
    v.to_string()
}

/// The same scenario under another preset, with the controller noticing a dead
/// broker as soon in a ZooKeeper-era preset as in a KRaft one: the ZooKeeper
/// session timeout pinned to the scenario's broker.session.timeout.ms (Kafka's
/// KRaft default, 9 s, if unset). For tests about truncation and elections, whose
/// timelines would otherwise shift with each era's default (6 s before 2.5, 18 s after).
pub fn with_preset_same_detection(json: &Value, preset: &str) -> String {
    let mut v: Value = serde_json::from_str(&with_preset(json, preset)).unwrap();
    let session = v["config"]["broker.session.timeout.ms"].as_u64().unwrap_or(9000);
    if v.get("config").is_none() {
        v["config"] = serde_json::json!({});
    }
    v["config"]["zookeeper.session.timeout.ms"] = Value::from(session);
    v.to_string()
}

/// A whole run: every step record (step 0 included), as the CLI prints them.
pub struct Trace {
    pub steps: Vec<Value>,
}

impl Trace {
    pub fn of(json: &str) -> Trace {
        let mut run = Run::new(scenario(json));
        let mut steps = Vec::new();
        // The text the CLI prints, read back by serde_json.
        run.for_each_record(|r| steps.push(serde_json::from_str(&r.to_json()).expect("a step record is JSON")));
        Trace { steps }
    }

    pub fn of_value(json: &Value) -> Trace {
        Trace::of(&json.to_string())
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    pub fn at(&self, i: usize) -> &Value {
        &self.steps[i]
    }

    pub fn last(&self) -> &Value {
        self.steps.last().expect("a run has step 0")
    }

    /// The first step at or after `from` whose event contains every field of `pattern`.
    pub fn find(&self, from: usize, pattern: &Value) -> usize {
        self.try_find(from, pattern).unwrap_or_else(|| panic!("no step from {from} has event {pattern}\n{}", self.summary()))
    }

    pub fn try_find(&self, from: usize, pattern: &Value) -> Option<usize> {
        (from..self.steps.len()).find(|&i| event_matches(&self.steps[i], pattern))
    }

    /// Every step whose event contains every field of `pattern`.
    pub fn all(&self, pattern: &Value) -> Vec<usize> {
        (0..self.steps.len()).filter(|&i| event_matches(&self.steps[i], pattern)).collect()
    }

    /// (step, invariant, text) of every violation Kafka's guarantees forbid reported
    /// in the run (those the configuration permits, `"allowed": true`, are in `allowed`).
    pub fn violations(&self) -> Vec<(u64, String, String)> {
        self.violations_where(false)
    }

    /// (step, invariant, text) of every loss or duplicate the configuration permits.
    pub fn allowed(&self) -> Vec<(u64, String, String)> {
        self.violations_where(true)
    }

    fn violations_where(&self, allowed: bool) -> Vec<(u64, String, String)> {
        let mut out = Vec::new();
        for r in &self.steps {
            for v in r["violations"].as_array().into_iter().flatten().filter(|v| v["allowed"].as_bool().unwrap_or(false) == allowed) {
                out.push((
                    r["step"].as_u64().unwrap_or(0),
                    v["invariant"].as_str().unwrap_or("").to_string(),
                    v["text"].as_str().unwrap_or("").to_string(),
                ));
            }
        }
        out
    }

    pub fn invariants_broken(&self) -> Vec<String> {
        let mut names: Vec<String> = self.violations().into_iter().map(|v| v.1).collect();
        names.sort();
        names.dedup();
        names
    }

    /// One line per step: enough to read a failing trace in the test output.
    pub fn summary(&self) -> String {
        self.steps.iter().map(line).collect::<Vec<_>>().join("\n")
    }
}

/// A compact line for one step record.
pub fn line(r: &Value) -> String {
    let reps: Vec<String> = r["replicas"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| format!("{}{}:{}/{}", b["broker"], if b["alive"].as_bool() == Some(true) { "" } else { "✝" }, b["leo"], b["hw"]))
        .collect();
    let mut ev = r["event"].clone();
    if let Some(o) = ev.as_object_mut() {
        o.remove("sent");
    }
    format!("{:>4} {:>6}ms {} | {} | isr {} | {}", r["step"], r["time_ms"], ev, reps.join(" "), r["partition"]["isr"], r["violations"])
}

/// Whether `actual` contains every field of `pattern` with the same value (recursively for objects).
pub fn subset(pattern: &Value, actual: &Value) -> bool {
    match (pattern, actual) {
        (Value::Object(p), Value::Object(a)) => p.iter().all(|(k, v)| a.get(k).is_some_and(|x| subset(v, x))),
        _ => pattern == actual,
    }
}

pub fn event_matches(r: &Value, pattern: &Value) -> bool {
    subset(pattern, &r["event"])
}

pub fn ty(r: &Value) -> &str {
    r["event"]["type"].as_str().unwrap_or("")
}

pub fn time(r: &Value) -> u64 {
    r["time_ms"].as_u64().expect("time_ms")
}

pub fn replica(r: &Value, b: usize) -> &Value {
    &r["replicas"][b]
}

pub fn leo(r: &Value, b: usize) -> u64 {
    r["replicas"][b]["leo"].as_u64().expect("leo")
}

pub fn hw(r: &Value, b: usize) -> u64 {
    r["replicas"][b]["hw"].as_u64().expect("hw")
}

pub fn nums(v: &Value) -> Vec<u64> {
    v.as_array().expect("an array").iter().map(|x| x.as_u64().expect("a number")).collect()
}

pub fn strs(v: &Value) -> Vec<String> {
    v.as_array().expect("an array").iter().map(|x| x.as_str().expect("a string").to_string()).collect()
}

/// The controller's committed ISR.
pub fn isr(r: &Value) -> Vec<u64> {
    nums(&r["partition"]["isr"])
}

/// The leader's maximal ISR (committed ISR plus a pending expansion).
pub fn maximal_isr(r: &Value) -> Vec<u64> {
    nums(&r["partition"]["maximal_isr"])
}

/// The ids of the produced records in broker `b`'s log, in offset order.
pub fn log_ids(r: &Value, b: usize) -> Vec<String> {
    r["replicas"][b]["log"].as_array().expect("log").iter().map(|e| e["id"].as_str().expect("id").to_string()).collect()
}

/// (offset, epoch, id) of every produced record in broker `b`'s log.
pub fn log(r: &Value, b: usize) -> Vec<(u64, i64, String)> {
    r["replicas"][b]["log"]
        .as_array()
        .expect("log")
        .iter()
        .map(|e| (e["offset"].as_u64().unwrap(), e["epoch"].as_i64().unwrap(), e["id"].as_str().unwrap().to_string()))
        .collect()
}

/// The leader's view of follower `f` (`replicas[leader].followers`).
pub fn follower_view(r: &Value, leader: usize, f: u64) -> &Value {
    r["replicas"][leader]["followers"]
        .as_array()
        .and_then(|fs| fs.iter().find(|v| v["broker"].as_u64() == Some(f)))
        .unwrap_or_else(|| panic!("broker {leader} has no view of follower {f}: {}", line(r)))
}

pub fn producer<'a>(r: &'a Value, id: &str) -> &'a Value {
    r["producers"].as_array().and_then(|ps| ps.iter().find(|p| p["id"] == id)).unwrap_or_else(|| panic!("no producer {id}"))
}

pub fn consumer<'a>(r: &'a Value, id: &str) -> &'a Value {
    r["consumers"].as_array().and_then(|cs| cs.iter().find(|c| c["id"] == id)).unwrap_or_else(|| panic!("no consumer {id}"))
}

/// The in-flight messages a step put on the wire (its event's `sent` ids).
pub fn sent(r: &Value) -> Vec<&Value> {
    let ids = r["event"]["sent"].as_array().cloned().unwrap_or_default();
    r["in_flight"].as_array().into_iter().flatten().filter(|m| ids.contains(&m["id"])).collect()
}

/// A light trace for long runs: only (step, time, event), taken from the
/// simulation after each step (the step record's `event`, without building the
/// whole record with every log).
pub struct Events {
    pub steps: Vec<(u64, u64, Value)>,
}

impl Events {
    pub fn of(json: &str) -> Events {
        let mut run = Run::new(scenario(json));
        let mut steps = Vec::new();
        while run.step() {
            let sim = run.sim();
            steps.push((
                sim.step,
                sim.now,
                serde_json::from_str(&hwscope::json::to_string(&hwscope::record::event_record(sim))).expect("event is JSON"),
            ));
        }
        Events { steps }
    }

    /// For every record id a consumer received: the time of the first
    /// `consumer_fetch_response` to `consumer` that lists it.
    pub fn delivered(&self, consumer: &str) -> std::collections::BTreeMap<String, u64> {
        let mut out = std::collections::BTreeMap::new();
        for (_, t, e) in &self.steps {
            if e["type"] == "consumer_fetch_response" && e["to"] == consumer && e["outcome"] != "ignored" {
                for id in e["records"].as_array().into_iter().flatten() {
                    out.entry(id.as_str().unwrap_or("").to_string()).or_insert(*t);
                }
            }
        }
        out
    }
}

/// Follower 1 is cut off, leaves the ISR, and the consumer that prefers it reads
/// from the leader (its preferred replica expires after metadata.max.age.ms and
/// the leader does not name a replica outside the ISR). Records arrive every 20
/// ms. After the heal follower 1 catches up and rejoins the ISR; the leader names
/// it again while its HW still trails the leader's: the consumer asks it for an
/// offset above its HW (golden G13's second scenario; tests/versions.rs runs it
/// under kafka-3.7 and 3.8 for KAFKA-16452).
pub fn g13_above_hw_scenario() -> Value {
    serde_json::json!({
        "format": 1, "replicas": 3, "initial": {"log_end_offset": 100},
        "config": {"replica.lag.time.max.ms": 1000},
        "producers": [{"id": "p1", "acks": 1}],
        "consumers": [{"id": "c-f", "fetch_from": 1, "metadata.max.age.ms": 500}],
        "events": [
            {"at_ms": 0, "partition": {"between": [0, 1]}},
            {"at_ms": 1000, "produce": {"producer": "p1", "records": 1}, "repeat": {"count": 250, "every_ms": 20}},
            {"at_ms": 3000, "heal": {"between": [0, 1]}}
        ],
        "stop_at_ms": 6500
    })
}

/// The step at which the controller learns broker `b` is gone, from `from` on: the KRaft
/// stale-broker check that fences it, or the ZooKeeper-era watch that runs onBrokerFailure
/// after ZooKeeper expired its session.
pub fn detected(t: &Trace, from: usize, b: u64) -> usize {
    (from..t.len())
        .find(|&i| {
            let e = &t.at(i)["event"];
            e["broker"] == serde_json::json!(b) && (e["outcome"] == "fenced" || e["outcome"] == "broker-failure")
        })
        .unwrap_or_else(|| panic!("no step from {from} where broker {b} is declared gone\n{}", t.summary()))
}
