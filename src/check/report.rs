//! A finished search in words and as JSON, the same for the command line and
//! the page: the bounds exactly as searched, the verdict (never worded as a
//! proof when nothing was found), the counts, the counterexample.

use super::{Config, Counterexample, Outcome, Progress, Search, StopReason, WhyStep};
use crate::json::{self, json_write, Obj, ToJson, Value};
use crate::Scenario;

json_write! { WhyStep { step: "step", always; time_ms: "time_ms", always; text: "text", always; injected: "injected", always; } }

/// What a search ended with.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub outcome: Outcome,
    pub progress: Progress,
    pub counterexample: Option<Counterexample>,
    /// A permitted loss seen on the way, when those are not counterexamples.
    pub allowed_seen: Option<String>,
}

impl Finished {
    pub fn from_search(search: &Search) -> Finished {
        let outcome = search.outcome().cloned().unwrap_or(Outcome::Exhausted);
        let counterexample = match &outcome {
            Outcome::Counterexample { node, failure } => Some(Counterexample::new(&search.setup, search.path(*node), failure.clone())),
            _ => None,
        };
        let allowed_seen = search.allowed_seen.as_ref().map(|(_, f)| f.text.clone());
        Finished { outcome, progress: search.progress(), counterexample, allowed_seen }
    }

    /// `counterexample`, `none-within-bounds`, `stopped-memory` or `stopped-states`.
    pub fn verdict(&self) -> &'static str {
        match self.outcome {
            Outcome::Counterexample { .. } => "counterexample",
            Outcome::Exhausted => "none-within-bounds",
            Outcome::Stopped(StopReason::Memory) => "stopped-memory",
            Outcome::Stopped(StopReason::States) => "stopped-states",
        }
    }

    /// The verdict in one or two sentences.
    pub fn sentence(&self, config: &Config) -> String {
        let p = &self.progress;
        let counts = format!("{} distinct states ({} transitions)", thousands(p.distinct), thousands(p.explored));
        match (&self.outcome, &self.counterexample) {
            (Outcome::Counterexample { .. }, Some(c)) => {
                let allowed = if c.failure.allowed { " (permitted by the configuration)" } else { "" };
                format!("Counterexample: {}{allowed} at step {}, found after {counts}. {}", c.failure.property, c.step, c.failure.text)
            }
            (Outcome::Stopped(reason), _) => {
                let limit = match reason {
                    StopReason::Memory => format!("the memory bound ({} MiB, estimated)", config.bounds.memory_bytes.unwrap_or(0) >> 20),
                    StopReason::States => format!("the bound of {} states", config.bounds.max_states.unwrap_or(0)),
                };
                format!("Stopped at {limit} before the search was done: no counterexample among the {counts} explored so far, but the bounds were not exhausted. Tighten the bounds, or raise the limit.")
            }
            _ => format!(
                "No counterexample within these bounds: all {counts} within them were explored. This is not a proof: larger bounds (more steps, faults or records) may still find one."
            ),
        }
    }

    /// The finished search as JSON; `extra` adds the driver's figures (seconds, threads).
    pub fn to_json(&self, config: &Config, scenario: &Scenario, extra: &[(&str, &dyn ToJson)]) -> String {
        let p = &self.progress;
        let mut text = String::new();
        let mut o = Obj::new(&mut text);
        o.field("verdict", &self.verdict())
            .field("sentence", &self.sentence(config))
            .field("bounds", &describe_bounds(config, scenario))
            .field("distinct", &p.distinct)
            .field("explored", &p.explored)
            .field("depth", &p.depth)
            .field("pruned", &p.pruned)
            .field("peak_bytes", &p.peak_bytes)
            .field("bytes_per_state", &(p.peak_bytes / p.distinct.max(1)));
        for (k, v) in extra {
            o.field(k, *v);
        }
        o.opt("allowed_seen", &self.allowed_seen);
        if let Some(c) = &self.counterexample {
            c.write_fields(&mut o);
        }
        o.end();
        text
    }
}

impl Counterexample {
    /// The counterexample's fields in a search's or a simulation's JSON: the property, the step,
    /// whether `hwscope run` replays it, its link, the why chain and the scenario that replays it.
    pub(crate) fn write_fields(&self, o: &mut Obj) {
        let scenario_value = json::parse(&crate::link::minimal_json(&self.scenario)).unwrap_or(Value::Null);
        o.field("property", &self.failure.property)
            .field("allowed", &self.failure.allowed)
            .field("step", &self.step)
            .field("text", &self.failure.text)
            .field("replays", &self.replays())
            .field("link", &self.link())
            .field("why", &self.why)
            .field("scenario", &scenario_value);
    }
}

/// A search's progress as JSON (the page's progress bar).
impl ToJson for Progress {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("explored", &self.explored)
            .field("distinct", &self.distinct)
            .field("queued", &self.queued)
            .field("depth", &self.depth)
            .field("pruned", &self.pruned)
            .field("memory_bytes", &self.memory_bytes)
            .field("peak_bytes", &self.peak_bytes)
            .field("done", &self.done)
            .end();
    }
}

/// The bounds in words, exactly as searched.
pub fn describe_bounds(config: &Config, scenario: &Scenario) -> String {
    let b = &config.bounds;
    let m = &config.menu;
    let mut kinds = Vec::new();
    if m.crash {
        kinds.push(if m.unflushed > 0 { format!("crash (losing up to {} unflushed records)", m.unflushed) } else { "crash".to_string() });
    }
    if m.restart {
        kinds.push("restart".to_string());
    }
    let mut ends = Vec::new();
    if m.cut {
        ends.push("between brokers");
    }
    if m.controller {
        ends.push("controller–broker");
    }
    if m.clients {
        ends.push("client–broker");
    }
    if !ends.is_empty() {
        let ways = if m.one_way { "both ways or one" } else { "both ways" };
        let caught = if m.catch > 0 { format!(", catching up to {} messages on the wire", m.catch) } else { String::new() };
        kinds.push(format!("cut and heal {} {ways}{caught}", ends.join(", ")));
    }
    let base = config.base_scenario(scenario);
    let mut parts = vec![
        format!("{} replicas under {}", base.replicas, crate::json::Named::name(base.preset)),
        format!("at most {} steps", b.max_depth),
        format!("at most {} faults ({})", b.faults, kinds.join(", ")),
        format!("{} extra records", b.records),
        format!("simulated time up to {} ms", base.stop_at_ms),
    ];
    if let Some(e) = b.leader_epochs {
        parts.push(format!("leader epochs up to {e}"));
    }
    parts.push(if config.drop_faults {
        "the scenario's scripted faults removed".into()
    } else {
        "the scenario's scripted faults kept".into()
    });
    if config.symmetry && !super::symmetry::groups(&base).is_empty() {
        parts.push("interchangeable followers merged".into());
    }
    parts.join("; ")
}

/// 1234567 → "1,234,567".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
