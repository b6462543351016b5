//! Loss stays visible (issue 13): a record a replica's log loses leaves a ghost
//! in that replica's record (`replicas[].lost`: where it was, the step that
//! removed it) until the same record stands there again, and a record
//! acknowledged or read, then lost, stays in the run's `lost` list from the step
//! it was found on. Neither moves a share link's state hash.

mod support;

use hwscope::link::state_hash;
use hwscope::{Run, Scenario};
use serde_json::Value;
use support::Trace;

fn replica(rec: &Value, b: u64) -> &Value {
    rec["replicas"].as_array().unwrap().iter().find(|r| r["broker"] == b).unwrap()
}

fn ghosts(rec: &Value, b: u64) -> Vec<(u64, String, u64)> {
    replica(rec, b)["lost"]
        .as_array()
        .map(|a| {
            a.iter().map(|g| (g["offset"].as_u64().unwrap(), g["id"].as_str().unwrap().to_string(), g["step"].as_u64().unwrap())).collect()
        })
        .unwrap_or_default()
}

/// KIP-101 scenario 1 under 0.10: the truncation to the stale HW takes p1-1 off a
/// replica (a ghost at offset 1, named with the truncating step), and the
/// acknowledged record's loss is listed from the step it is found on, to the end.
#[test]
fn kip101_truncation_leaves_a_ghost_and_the_loss_stays_listed() {
    let json = hwscope::builtin::BUILTINS.iter().find(|(n, _)| *n == "kip101-data-loss").unwrap().1;
    let t = Trace::of(json);
    let truncated = t.steps.iter().position(|r| r["event"]["truncate_to"].is_u64()).expect("a truncation");
    // The truncating replica: the event's broker, or the one a controller answer makes a follower.
    let event = &t.steps[truncated]["event"];
    let broker = event["broker"].as_u64().or_else(|| event["to"].as_u64()).expect("the truncating broker");
    let gone = ghosts(&t.steps[truncated], broker);
    assert!(gone.iter().any(|(o, id, s)| *o == 1 && id == "p1-1" && *s == truncated as u64), "ghost of p1-1 at step {truncated}: {gone:?}");
    assert!(ghosts(&t.steps[truncated - 1], broker).is_empty(), "no ghost before the truncation");

    let found =
        t.steps.iter().position(|r| r["violations"].as_array().unwrap().iter().any(|v| v["invariant"] == "acked-record-lost")).unwrap();
    for (n, rec) in t.steps.iter().enumerate() {
        let lost = rec["lost"].as_array().cloned().unwrap_or_default();
        if n < found {
            assert!(lost.is_empty(), "step {n}: nothing lost yet");
        } else {
            assert_eq!(lost.len(), 1, "step {n}: the loss stays listed");
            assert_eq!(lost[0]["id"], "p1-1");
            assert_eq!(lost[0]["step"], found as u64);
            assert_eq!(lost[0]["invariant"], "acked-record-lost");
            assert_eq!(lost[0]["offset"], 1);
        }
    }
}

/// Unflushed records lost at a crash are ghosts until the replica fetches the same
/// records back at the same offsets (after the restart inside its session registers,
/// once the old session has expired: `registerBroker`, KRaft).
#[test]
fn a_ghost_goes_when_the_same_record_is_back() {
    let json = r#"{"format":1,"replicas":2,"events":[
        {"at_ms":0,"produce":{"producer":"p1","records":3}},
        {"at_ms":100,"crash":{"broker":1,"unflushed":2}},
        {"at_ms":200,"restart":{"broker":1}}],"stop_at_ms":15000}"#;
    let t = Trace::of(json);
    let crash = t.steps.iter().position(|r| r["event"]["type"] == "crash").unwrap();
    let g = ghosts(&t.steps[crash], 1);
    assert_eq!(g.iter().map(|(o, id, _)| (*o, id.as_str())).collect::<Vec<_>>(), vec![(1, "p1-2"), (2, "p1-3")]);
    assert!(g.iter().all(|(_, _, s)| *s == crash as u64));
    let last = t.steps.last().unwrap();
    assert_eq!(replica(last, 1)["leo"], 3, "the follower caught up again");
    assert!(ghosts(last, 1).is_empty(), "the same records are back: no ghost");
}

/// What was lost is history read from the state: a link's hash does not move with it.
#[test]
fn the_state_hash_leaves_what_was_lost_out() {
    let json = hwscope::builtin::BUILTINS.iter().find(|(n, _)| *n == "kip101-data-loss").unwrap().1;
    let mut run = Run::new(Scenario::from_json(json).unwrap());
    let mut last = run.record();
    while run.step() {
        last = run.record();
    }
    assert!(!last.lost.is_empty() && last.replicas.iter().any(|r| !r.lost.is_empty()));
    let hash = state_hash(last.clone());
    let mut bare = last.clone();
    bare.lost.clear();
    bare.replicas.iter_mut().for_each(|r| r.lost.clear());
    assert_eq!(state_hash(bare.clone()), hash);
    assert!(!bare.to_json().contains("\"lost\""), "empty lists are left out of the record");
}
