//! Narration that names a cause must name the one the run shows (issue 29): a record
//! appended twice says why its producer sent it again (the error its earlier,
//! appended try was answered with, or a lost answer), and a follower whose
//! OffsetsForLeaderEpoch rounds repeat for ever (KAFKA-10706, up to 2.6.0) is told so
//! once, where it starts.

mod support;

use serde_json::Value;
use support::{with_preset, Trace};

fn builtin(name: &str) -> Value {
    serde_json::from_str(hwscope::builtin::BUILTINS.iter().find(|(n, _)| *n == name).unwrap().1).unwrap()
}

fn text(r: &Value) -> &str {
    r["text"].as_str().unwrap_or("")
}

/// acks-and-min-isr under kafka-2.8: the controller's epoch bump leaves the leader
/// alone in the ISR and p-all's waiting writes are answered
/// NOT_ENOUGH_REPLICAS_AFTER_APPEND; resent, each is appended a second time. The
/// step and its duplicate-record violation name that answer, not a lost one.
#[test]
fn a_duplicate_after_not_enough_replicas_after_append_names_that_answer() {
    let t = Trace::of(&with_preset(&builtin("acks-and-min-isr"), "kafka-2.8"));
    let dups: Vec<usize> = (0..t.len()).filter(|&i| text(t.at(i)).contains("It already had these records")).collect();
    assert_eq!(dups.len(), 2, "p-all-2 and p-all-3 are appended twice");
    for &i in &dups {
        let r = t.at(i);
        let id = r["event"]["records"][0].as_str().unwrap();
        // The answer the run gave this record's earlier try, after its append.
        let answered = (0..i).find(|&j| {
            let e = &t.at(j)["event"];
            e["type"] == "produce_response" && e["records"].as_array().is_some_and(|a| a.iter().any(|x| x == id))
        });
        let answered = answered.map(|j| t.at(j)["event"]["error"].as_str().unwrap_or("none").to_string());
        assert_eq!(answered.as_deref(), Some("NOT_ENOUGH_REPLICAS_AFTER_APPEND"), "{id}'s first answer");
        assert!(text(r).contains("answered NOT_ENOUGH_REPLICAS_AFTER_APPEND"), "step {i}: {}", text(r));
        assert!(!text(r).contains("lost answer"), "step {i}: {}", text(r));
        let v =
            r["violations"].as_array().unwrap().iter().find(|v| v["invariant"] == "duplicate-record").expect("the duplicate is reported");
        let v = v["text"].as_str().unwrap();
        assert!(v.contains("NOT_ENOUGH_REPLICAS_AFTER_APPEND") && !v.contains("lost answer"), "{v}");
    }
}

/// retry-duplicates: the answer is lost on a cut link and the request times out; the
/// duplicate's sentence says so (and nothing about an error answer).
#[test]
fn a_duplicate_after_a_lost_answer_says_so() {
    let t = Trace::of(&builtin("retry-duplicates").to_string());
    let i = (0..t.len()).find(|&i| text(t.at(i)).contains("It already had these records")).expect("a duplicate");
    assert!(text(t.at(i)).contains("a retry after a lost answer"), "{}", text(t.at(i)));
    assert!(!text(t.at(i)).contains("answered"), "{}", text(t.at(i)));
}

const SCHEDULE: &str = r#"{"behavior":{"restart_inside_zookeeper_session_fails":false},"config":{"broker.heartbeat.interval.ms":500,"broker.session.timeout.ms":9000,"min.insync.replicas":1,"replica.fetch.backoff.ms":100,"replica.lag.time.max.ms":10000,"replica.socket.timeout.ms":2000,"unclean.leader.election.enable":false,"zookeeper.session.timeout.ms":9000},"consumers":[{"id":"c1"}],"events":[{"at_ms":0,"produce":{"producer":"p1","records":1},"repeat":{"count":60,"every_ms":200}},{"at_ms":8700,"restart":{"broker":0}},{"at_ms":5700,"partition":{"from":2,"to":0}},{"at_ms":9600,"crash":{"broker":0}},{"at_ms":200,"crash":{"broker":1}},{"at_ms":8800,"crash":{"broker":2}},{"at_ms":10000,"restart":{"broker":0}},{"at_ms":0,"partition":{"between":[0,1]}},{"at_ms":12000,"heal":{"between":[0,1]}},{"at_ms":12000,"restart":{"broker":0}},{"at_ms":12000,"heal":{"between":[1,2]}},{"at_ms":12000,"restart":{"broker":1}},{"at_ms":12000,"heal":{"between":[2,0]}},{"at_ms":12000,"restart":{"broker":2}}],"format":1,"preset":"kafka-2.0","producers":[{"acks":"all","id":"p1","request.timeout.ms":5000}],"replicas":3,"stop_at_ms":16000,"title":"a follower that led epoch 2 without writing in it (random failover schedule 623 of tests/properties.rs)"}"#;

/// Under 2.0–2.4 follower 2, which led epoch 2 without writing in it, asks leader 0
/// about epoch 2 for ever; the step where the first round repeats names KAFKA-10706,
/// and no later round does. 2.8 (the fix, and the diverging epoch) never loops.
#[test]
fn kafka_10706_is_named_once_where_the_rounds_start_repeating() {
    let v: Value = serde_json::from_str(SCHEDULE).unwrap();
    for preset in ["kafka-2.0", "kafka-2.1", "kafka-2.4"] {
        let t = Trace::of(&with_preset(&v, preset));
        let named: Vec<usize> = (0..t.len()).filter(|&i| text(t.at(i)).contains("KAFKA-10706")).collect();
        assert_eq!(named.len(), 1, "{preset}: told once");
        let i = named[0];
        let rounds: Vec<usize> = (0..t.len()).filter(|&j| text(t.at(j)).contains("asks again about its own latest epoch")).collect();
        assert!(rounds.len() > 1000, "{preset}: the rounds repeat ({})", rounds.len());
        // Where it starts: the first round after which the follower asks about the same epoch it just asked about.
        let first_repeat = rounds.iter().copied().find(|&j| {
            let e = &t.at(j)["event"];
            e["type"] == "truncate" && e["to"] == 2 && e["epoch"] == 2 && e["leo_before"] == e["truncate_to"]
        });
        assert_eq!(Some(i), first_repeat, "{preset}: named at the first repeated round");
        assert!(text(t.at(i)).contains("led epoch 2 without writing in it"), "{}", text(t.at(i)));
        assert!(text(t.at(i)).contains("fixed in 2.6.1 and 2.7.0"), "{}", text(t.at(i)));
    }
    let t = Trace::of(&with_preset(&v, "kafka-2.8"));
    assert!(t.steps.iter().all(|r| !text(r).contains("KAFKA-10706")));
}
