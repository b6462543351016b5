//! The CLI's compact per-step views: a plain table and a Markdown table that a
//! docs author can paste into a page.

use crate::record::{EventRecord, NodeName, StepRecord};

fn node(n: &Option<NodeName>) -> String {
    match n {
        Some(NodeName::Broker(b)) => b.to_string(),
        Some(NodeName::Name(s)) => s.clone(),
        None => "?".into(),
    }
}

/// A few words for the event column: what, between whom, and the key value.
pub fn short_event(e: &Option<EventRecord>) -> String {
    let Some(e) = e else { return "start".into() };
    let arrow = format!("{}→{}", node(&e.from), node(&e.to));
    let outcome = e.outcome.map(|o| format!(" {o}")).unwrap_or_default();
    let error = e.error.map(|o| format!(" {o}")).unwrap_or_default();
    match e.kind {
        "fetch_request" => format!("Fetch {arrow} @{}{outcome}{error}", e.fetch_offset.unwrap_or(0)),
        "fetch_response" => {
            let n = e.records.as_ref().and_then(|v| v.as_u64()).unwrap_or(0);
            let div = e.diverging_epoch.as_ref().map(|d| format!(" diverging({},{})", d.epoch, d.end_offset)).unwrap_or_default();
            format!("FetchResp {arrow} {n} rec HW {}{div}{error}", e.hw.unwrap_or(0))
        }
        "produce" => format!("produce {}", e.producer.clone().unwrap_or_default()),
        "produce_request" => format!("Produce {arrow}{outcome}{error}"),
        "produce_response" => format!("ProduceResp {arrow}{}", if error.is_empty() { " ack".into() } else { error }),
        "consumer_fetch_request" => format!("CFetch {arrow} @{}{outcome}", e.offset.unwrap_or(0)),
        "consumer_fetch_response" => {
            let n = e.records.as_ref().and_then(|v| v.as_array()).map_or(0, |a| a.len());
            format!("CFetchResp {arrow} {n} rec{error}")
        }
        "timeout" => format!("timeout {}{}", e.timer.unwrap_or(""), e.broker.map(|b| format!(" b{b}")).unwrap_or_default()),
        "crash" | "restart" => format!("{} b{}", e.kind, e.broker.unwrap_or(0)),
        "partition" | "heal" => {
            let name = |n: &NodeName| match n {
                NodeName::Broker(b) => b.to_string(),
                NodeName::Name(s) => s.clone(),
            };
            let l = e.links.as_ref().and_then(|l| l.first()).map_or(("0".to_string(), "0".to_string()), |(a, b)| (name(a), name(b)));
            format!("{} {}{}{}", e.kind, l.0, if e.links.as_ref().is_some_and(|l| l.len() == 2) { "↔" } else { "→" }, l.1)
        }
        "leader_election" => {
            format!("election leader {} epoch {}", e.leader.flatten().map_or("none".into(), |l| l.to_string()), e.leader_epoch.unwrap_or(0))
        }
        "leader_and_isr" => format!("LeaderAndIsr →{}{outcome}", node(&e.to)),
        "isr_change" => format!("ISR {}", e.isr.as_ref().map(|i| set(i)).unwrap_or_default()),
        "alter_partition" => format!("AlterPartition {}{outcome}", e.isr.as_ref().map(|i| set(i)).unwrap_or_default()),
        "truncate" => format!(
            "truncate b{} → {}",
            node(&e.to).replace('?', &e.broker.map(|b| b.to_string()).unwrap_or_default()),
            e.truncate_to.unwrap_or(0)
        ),
        other => format!("{other} {arrow}"),
    }
}

fn set(ids: &[u32]) -> String {
    format!("{{{}}}", ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(","))
}

fn cells(r: &StepRecord) -> Vec<String> {
    let mut row = vec![r.step.to_string(), r.time_ms.to_string(), short_event(&r.event)];
    for rep in &r.replicas {
        row.push(if rep.alive { format!("{}/{}", rep.leo, rep.hw) } else { format!("({}/{})✝", rep.leo, rep.hw) });
    }
    row.push(set(&r.partition.isr));
    row.push(r.violations.iter().map(|v| v.invariant).collect::<Vec<_>>().join(" "));
    row
}

fn header(r: &StepRecord) -> Vec<String> {
    let mut h = vec!["step".to_string(), "t (ms)".into(), "event".into()];
    for rep in &r.replicas {
        h.push(format!("b{} LEO/HW", rep.broker));
    }
    h.push("ISR".into());
    h.push("violations".into());
    h
}

/// Writes the records as an aligned plain-text table.
pub fn table(records: &[StepRecord]) -> String {
    let Some(first) = records.first() else {
        return String::new();
    };
    let mut rows = vec![header(first)];
    rows.extend(records.iter().map(cells));
    let widths: Vec<usize> =
        (0..rows[0].len()).map(|c| rows.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let line: Vec<String> = row.iter().enumerate().map(|(i, s)| format!("{s:<w$}", w = widths[i])).collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// Writes the records as a Markdown table, each step's sentence in the last column.
pub fn markdown(records: &[StepRecord]) -> String {
    let Some(first) = records.first() else {
        return String::new();
    };
    let mut h = header(first);
    h.push("what happens".into());
    let mut out = format!("| {} |\n|{}\n", h.join(" | "), "---|".repeat(h.len()));
    for r in records {
        let mut row = cells(r);
        row.push(r.text.clone());
        let row: Vec<String> = row.into_iter().map(|c| c.replace('|', "\\|")).collect();
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}
