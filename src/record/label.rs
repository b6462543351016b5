//! The short label a message in flight carries on the stage ("Fetch 105 · e0",
//! "5 rec · HW 105"), written into its record (`label`) so that the page
//! (`www/render/messages.js`) and the SVG renderer (`cli/svg`) draw the same
//! words.

use super::InFlightRecord;
use crate::json::Value;

/// How many records a message carries: a count, or a list of ids.
fn count(v: &Option<Value>) -> u64 {
    match v {
        Some(Value::Array(a)) => a.len() as u64,
        Some(v) => v.as_u64().unwrap_or(0),
        None => 0,
    }
}

/// "[0, 1, 2]".
fn list(ids: &Option<Vec<u32>>) -> String {
    let ids: Vec<String> = ids.iter().flatten().map(u32::to_string).collect();
    format!("[{}]", ids.join(", "))
}

/// The label of a message in flight, from the fields of its record.
pub fn message_label(m: &InFlightRecord) -> String {
    let failed = m.error.filter(|e| *e != "none").map(str::to_string);
    let opt = |v: Option<u64>| v.map_or_else(|| "?".to_string(), |v| v.to_string());
    match m.kind {
        "fetch_request" => {
            format!("Fetch {}{}", opt(m.fetch_offset), m.last_fetched_epoch.map_or(String::new(), |e| format!(" · e{e}")))
        }
        "fetch_response" => match &m.diverging_epoch {
            Some(d) => format!("diverging e{}@{}", d.epoch, d.end_offset),
            None => failed.unwrap_or_else(|| format!("{} rec · HW {}", count(&m.records), opt(m.hw))),
        },
        "produce_request" => format!("Produce {} acks={}", count(&m.records), m.acks.map_or("", |a| a.name())),
        "produce_response" => failed.unwrap_or_else(|| format!("ack {}", count(&m.records))),
        "consumer_fetch_request" => format!("Fetch {}", opt(m.offset)),
        "consumer_fetch_response" => failed.unwrap_or_else(|| format!("{} rec · HW {}", count(&m.records), opt(m.hw))),
        "alter_partition" => format!("AlterPartition {}", list(&m.isr)),
        "alter_partition_response" => failed.unwrap_or_else(|| format!("ISR {}", list(&m.isr))),
        "leader_and_isr" => {
            format!("Leader {} e{}", m.leader.flatten().map_or_else(|| "none".to_string(), |l| l.to_string()), m.leader_epoch.unwrap_or(0))
        }
        "offsets_for_leader_epoch" => format!("EpochEnd? e{}", m.epoch.unwrap_or(0)),
        "offsets_for_leader_epoch_response" => match &m.end_offset {
            Some(e) => format!("e{} ends {}", e.epoch, e.end_offset),
            None => failed.unwrap_or_else(|| "unknown epoch".into()),
        },
        other => other.to_string(),
    }
}
