//! The short label a message in flight carries on the stage ("Fetch 105 · e0",
//! "5 rec · HW 105"), written into its record (`label`) so that the page
//! (`www/render/messages.js`) and the SVG renderer (`cli/svg`) draw the same
//! words. (Pieces are pushed, not formatted: this is in the page's WebAssembly.)

use super::InFlightRecord;
use crate::json::{write_i64, write_u64, Value};

/// How many records a message carries: a count, or a list of ids.
fn count(v: &Option<Value>) -> u64 {
    match v {
        Some(Value::Array(a)) => a.len() as u64,
        Some(v) => v.as_u64().unwrap_or(0),
        None => 0,
    }
}

/// Builds a label from pieces.
struct Label(String);

impl Label {
    fn s(&mut self, text: &str) -> &mut Self {
        self.0.push_str(text);
        self
    }

    /// A number, or `?` when the record has none.
    fn n(&mut self, v: Option<u64>) -> &mut Self {
        match v {
            Some(v) => write_u64(&mut self.0, v),
            None => self.0.push('?'),
        }
        self
    }

    fn i(&mut self, v: i64) -> &mut Self {
        write_i64(&mut self.0, v);
        self
    }

    /// "[0, 1, 2]".
    fn list(&mut self, ids: &Option<Vec<u32>>) -> &mut Self {
        self.0.push('[');
        for (k, id) in ids.iter().flatten().enumerate() {
            if k > 0 {
                self.0.push_str(", ");
            }
            write_u64(&mut self.0, u64::from(*id));
        }
        self.0.push(']');
        self
    }

    /// "5 rec · HW 105".
    fn records_and_hw(&mut self, m: &InFlightRecord) -> &mut Self {
        self.n(Some(count(&m.records))).s(" rec · HW ").n(m.hw)
    }
}

/// The label of a message in flight, from the fields of its record.
pub fn message_label(m: &InFlightRecord) -> String {
    let mut l = Label(String::new());
    let failed = m.error.filter(|e| *e != "none");
    match (m.kind, failed) {
        ("fetch_request", _) => {
            l.s("Fetch ").n(m.fetch_offset);
            if let Some(e) = m.last_fetched_epoch {
                l.s(" · e").i(e.into());
            }
        }
        ("fetch_response", _) if m.diverging_epoch.is_some() => {
            let d = m.diverging_epoch.as_ref().expect("checked");
            l.s("diverging e").i(d.epoch.into()).s("@").n(Some(d.end_offset));
        }
        ("offsets_for_leader_epoch_response", _) if m.end_offset.is_some() => {
            let e = m.end_offset.as_ref().expect("checked");
            l.s("e").i(e.epoch.into()).s(" ends ").n(Some(e.end_offset));
        }
        (
            "fetch_response"
            | "produce_response"
            | "consumer_fetch_response"
            | "alter_partition_response"
            | "offsets_for_leader_epoch_response",
            Some(error),
        ) => {
            l.s(error);
        }
        ("fetch_response" | "consumer_fetch_response", None) => {
            l.records_and_hw(m);
        }
        ("produce_request", _) => {
            l.s("Produce ").n(Some(count(&m.records))).s(" acks=").s(m.acks.map_or("", |a| a.name()));
        }
        ("produce_response", None) => {
            l.s("ack ").n(Some(count(&m.records)));
        }
        ("consumer_fetch_request", _) => {
            l.s("Fetch ").n(m.offset);
        }
        ("alter_partition", _) => {
            l.s("AlterPartition ").list(&m.isr);
        }
        ("alter_partition_response", None) => {
            l.s("ISR ").list(&m.isr);
        }
        ("leader_and_isr", _) => {
            l.s("Leader ");
            match m.leader.flatten() {
                Some(leader) => l.n(Some(u64::from(leader))),
                None => l.s("none"),
            };
            l.s(" e").i(m.leader_epoch.unwrap_or(0).into());
        }
        ("offsets_for_leader_epoch", _) => {
            l.s("EpochEnd? e").i(m.epoch.unwrap_or(0).into());
        }
        ("offsets_for_leader_epoch_response", None) => {
            l.s("unknown epoch");
        }
        // The controller's and the clients' housekeeping (issue 11): short words on the stage.
        ("broker_heartbeat", _) => {
            l.s("heartbeat");
        }
        ("broker_heartbeat_response", _) => {
            l.s("heartbeat ok");
        }
        ("broker_registration", _) => {
            l.s("register");
        }
        ("broker_registration_response", _) => {
            l.s("registration");
        }
        // KRaft: a broker fetches the metadata log; the answer carries the partition's state.
        ("metadata_fetch", _) => {
            l.s("Fetch metadata");
        }
        ("metadata_fetch_response", _) if m.leader.is_none() => {
            l.s("nothing new");
        }
        ("metadata_fetch_response", _) => {
            l.s("Leader ");
            match m.leader.flatten() {
                Some(leader) => l.n(Some(u64::from(leader))),
                None => l.s("none"),
            };
            l.s(" e").i(m.leader_epoch.unwrap_or(0).into());
        }
        ("metadata_request", _) => {
            l.s("Metadata?");
        }
        ("metadata_response", _) => {
            l.s("Metadata");
        }
        ("connection_reset", _) => {
            l.s("RST");
        }
        // ZooKeeper (the ZooKeeper era): a session's pings, a broker's node, the controller's watch.
        ("zookeeper_ping", _) => {
            l.s("ping");
        }
        ("zookeeper_register", _) => {
            l.s("create /brokers/ids");
        }
        ("zookeeper_registered", _) => {
            l.s("created");
        }
        ("zookeeper_session_expired", _) => {
            l.s("session expired");
        }
        ("zookeeper_watch", _) => {
            l.s("watch: /brokers/ids");
        }
        (other, _) => {
            l.s(other);
        }
    }
    l.0
}
