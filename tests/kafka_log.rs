//! "What your broker log would say" (src/kafka_log.rs): the lines a step writes,
//! in the format of the preset's version, read from Kafka's source at each tag.

mod support;

use serde_json::Value;
use support::*;

fn lines(name: &str, preset: &str) -> Vec<(u64, String)> {
    let v: Value = serde_json::from_str(hwscope::builtin::json(name).unwrap()).unwrap();
    let t = Trace::of(&with_preset(&v, preset));
    (0..t.len())
        .flat_map(|i| {
            let r = t.at(i);
            let step = r["step"].as_u64().unwrap();
            r["kafka_log"].as_array().cloned().unwrap_or_default().into_iter().map(move |l| (step, l.as_str().unwrap().to_string()))
        })
        .collect()
}

#[test]
fn an_isr_shrink_is_logged_as_its_version_wrote_it() {
    let new = lines("slow-follower-isr", "kafka-4.0");
    let shrink = new.iter().find(|(_, l)| l.contains("Shrinking ISR")).expect("4.0 logs the shrink");
    assert!(
        shrink.1.starts_with("broker 0 | [Partition t-0 broker=0] Shrinking ISR from 0,1,2 to 0,1. Leader: (highWatermark: ")
            && shrink.1.contains("Out of sync replicas: (brokerId: 2, endOffset: ")
            && shrink.1.contains("lastCaughtUpTimeMs: "),
        "{}",
        shrink.1
    );
    assert!(new.iter().any(|(_, l)| l.contains("ISR updated to 0,1  and version updated to")), "the committed ISR");
    let old = lines("slow-follower-isr", "kafka-0.10");
    let shrink = old.iter().find(|(_, l)| l.contains("Shrinking ISR")).expect("0.10 logs the shrink");
    assert_eq!(shrink.1, "broker 0 | Partition [t,0] on broker 0: Shrinking ISR for partition [t,0] from 0,1,2 to 0,1");
    let mid = lines("slow-follower-isr", "kafka-2.4");
    assert!(mid.iter().any(|(_, l)| l.ends_with("Expanding ISR from 0,1 to 0,1,2")), "2.4 expands the ISR itself: {mid:?}");
    assert!(lines("slow-follower-isr", "textbook").is_empty(), "the textbook models no Kafka version");
}

#[test]
fn truncation_fencing_and_leadership_are_logged() {
    let z = lines("zombie-leader", "kafka-4.0");
    // 4.0 names the broker epoch (as 4.0.2's release jar writes it); 3.8 does not.
    let fence = z.iter().find(|(_, l)| l.contains("Fencing broker 0")).expect("4.0 logs the fence");
    assert!(
        fence.1.starts_with("controller | [QuorumController id=c] Fencing broker 0 at epoch ")
            && fence.1.ends_with(" because its session has timed out."),
        "{}",
        fence.1
    );
    let z38 = lines("zombie-leader", "kafka-3.8");
    assert!(
        z38.iter().any(|(_, l)| l == "controller | [QuorumController id=c] Fencing broker 0 because its session has timed out."),
        "{z38:?}"
    );
    // The returning zombie is added at the end of the ISR, as Kafka orders it (seen in a real 4.0.2 server.log).
    assert!(z.iter().any(|(_, l)| l == "broker 1 | [Partition t-0 broker=1] ISR updated to 1,2,0  and version updated to 2"), "{z:?}");
    assert!(z
        .iter()
        .any(|(_, l)| l.starts_with("broker 1 | [Broker id=1] Leader t-0 with topic id Some(t) starts at leader epoch 1 from offset ")));
    assert!(z.iter().any(|(_, l)| l.starts_with("broker 0 | [UnifiedLog partition=t-0, dir=/tmp/kafka-logs] Truncating to offset ")));
    let k = lines("kip101-data-loss", "kafka-0.10");
    assert!(k.iter().any(|(_, l)| l == "broker 1 | Truncating log t-0 to offset 1."), "{k:?}");
    assert!(k.iter().any(|(_, l)| l.contains("deleted brokers: 0")), "ZooKeeper's session expiry, as the controller's broker change");
}
