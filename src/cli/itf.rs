//! A run as an ITF trace (the Informal Trace Format of Apalache's ADR-015, which
//! Apalache, Quint and their tools read): `#meta`, `vars`, and one state per step
//! with the action that led to it, so that a TLA+ or Quint user can load a
//! counterexample next to their own model's traces.
//!
//! Built from the step records (CONTRACT §3), the public view of a run, with
//! ITF's encodings where JSON alone is ambiguous: sets as `{"#set": […]}` (the
//! ISR, the maximal ISR, the ELR), the replicas as a map from broker to replica
//! (`{"#map": [[0, {…}], …]}`), integers past 2^53 as `{"#bigint": "…"}`; ITF
//! has no null, so an absent value is left out of its record (a partition with
//! no leader has no `leader` field).
//!
//! Variables per state: `step`, `time_ms`, `action` (the event's type; `init` at
//! step 0), `partition`, `replicas`, `in_flight`, `producers`, `consumers`,
//! `controller`, `violations`, `lost`. Each state's `#meta` carries its index, the
//! step's sentence and the whole event (as JSON text: ITF readers take
//! `#meta` entries as strings).

use crate::json::{self, ToJson, Value};
use crate::record::StepRecord;
use crate::Scenario;

/// The trace's variables, in the order each state lists them.
pub const VARS: [&str; 11] =
    ["step", "time_ms", "action", "partition", "replicas", "in_flight", "producers", "consumers", "controller", "violations", "lost"];

/// Fields that are sets of brokers.
const SETS: [&str; 6] = ["isr", "maximal_isr", "elr", "last_known_elr", "isr_before", "fenced"];

/// An ITF value from a record's JSON value.
fn itf(key: &str, v: &Value) -> Option<Value> {
    Some(match v {
        Value::Null => return None,
        Value::UInt(n) if *n > (1 << 53) - 1 => Value::Object(vec![("#bigint".into(), Value::String(n.to_string()))]),
        Value::Int(n) if *n < -(1 << 53) + 1 => Value::Object(vec![("#bigint".into(), Value::String(n.to_string()))]),
        Value::Array(items) if SETS.contains(&key) => {
            Value::Object(vec![("#set".into(), Value::Array(items.iter().filter_map(|x| itf("", x)).collect()))])
        }
        Value::Array(items) => Value::Array(items.iter().filter_map(|x| itf("", x)).collect()),
        Value::Object(fields) => Value::Object(fields.iter().filter_map(|(k, x)| itf(k, x).map(|x| (k.clone(), x))).collect()),
        other => other.clone(),
    })
}

/// One step record as an ITF state.
pub fn state(index: usize, record: &StepRecord) -> Value {
    let Ok(Value::Object(fields)) = json::parse(&record.to_json()) else {
        return Value::Object(Vec::new());
    };
    let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or(Value::Null);
    let event = get("event");
    let action = match &event {
        Value::Object(e) => e.iter().find(|(k, _)| k == "type").map_or(Value::String("event".into()), |(_, t)| t.clone()),
        _ => Value::String("init".into()),
    };
    let mut meta = vec![("index".to_string(), Value::UInt(index as u64)), ("text".to_string(), get("text"))];
    // ITF readers take `#meta` entries as text: the event is its step-record JSON.
    if !matches!(event, Value::Null) {
        meta.push(("event".into(), Value::String(json::to_string(&event))));
    }
    let replicas = match get("replicas") {
        Value::Array(rs) => rs
            .iter()
            .map(|r| {
                let broker = match r {
                    Value::Object(f) => f.iter().find(|(k, _)| k == "broker").map_or(Value::UInt(0), |(_, b)| b.clone()),
                    _ => Value::UInt(0),
                };
                Value::Array(vec![broker, itf("", r).unwrap_or(Value::Object(Vec::new()))])
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut out = vec![("#meta".to_string(), Value::Object(meta))];
    for var in VARS {
        let value = match var {
            "action" => action.clone(),
            "replicas" => Value::Object(vec![("#map".into(), Value::Array(replicas.clone()))]),
            "lost" => itf("lost", &get("lost")).unwrap_or(Value::Array(Vec::new())),
            other => itf(other, &get(other)).unwrap_or(Value::Object(Vec::new())),
        };
        out.push((var.to_string(), value));
    }
    Value::Object(out)
}

/// A whole trace: the scenario's run, step 0 to `last` (inclusive), as ITF JSON text.
pub fn trace(scenario: &Scenario, last: Option<u64>, description: &str) -> String {
    let mut run = crate::Run::new(scenario.clone());
    let mut states = Vec::new();
    states.push(state(0, &run.record()));
    while last.is_none_or(|l| run.current() < l) && run.step() {
        states.push(state(states.len(), &run.record()));
    }
    let meta = Value::Object(vec![
        ("format".into(), Value::String("ITF".into())),
        ("format-description".into(), Value::String("Informal Trace Format, Apalache ADR-015".into())),
        ("source".into(), Value::String(format!("hwscope {}: {}", env!("CARGO_PKG_VERSION"), scenario.title))),
        ("description".into(), Value::String(description.to_string())),
        ("preset".into(), Value::String(crate::json::Named::name(scenario.preset).to_string())),
        // ITF readers take `#meta` entries as text: the scenario is its format-1 JSON.
        ("scenario".into(), Value::String(crate::link::minimal_json(scenario))),
    ]);
    let doc = Value::Object(vec![
        ("#meta".into(), meta),
        ("vars".into(), Value::Array(VARS.iter().map(|v| Value::String(v.to_string())).collect())),
        ("states".into(), Value::Array(states)),
    ]);
    let mut text = String::new();
    doc.write_json(&mut text);
    text.push('\n');
    text
}
