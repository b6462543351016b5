//! A counterexample as the user meets it: a format-1 scenario (the base
//! scenario, each injected action as an `at_step` intervention at its step and
//! time, each out-of-order pick in `schedule`) that `hwscope run` and the page
//! replay to the same violation at the same step; and the "why" chain: the
//! steps that led there (elections, truncations, crashes, cuts), newest first.

use super::moves::{End, Move};
use super::properties::Failure;
use super::search::Setup;
use crate::scenario::{BrokerRef, CrashSpec, EventSpec, LinkCut, Pick, ProduceSpec, Scenario};
use crate::sim::{Event, Sim};
use crate::Run;

/// One step of the "why" chain.
#[derive(Debug, Clone, PartialEq)]
pub struct WhyStep {
    pub step: u64,
    pub time_ms: u64,
    /// The step's sentence (the narration's).
    pub text: String,
    /// Whether the search injected this step (a fault or a record), rather than the model's own rules.
    pub injected: bool,
}

/// A counterexample, ready to print, replay and share.
#[derive(Debug, Clone, PartialEq)]
pub struct Counterexample {
    pub failure: Failure,
    pub moves: Vec<Move>,
    /// The scenario that replays it.
    pub scenario: Scenario,
    /// The step at which the property fails.
    pub step: u64,
    pub why: Vec<WhyStep>,
}

impl Counterexample {
    /// Builds the counterexample for the path `moves` (from the search's start).
    pub fn new(setup: &Setup, moves: Vec<Move>, failure: Failure) -> Counterexample {
        let base = &setup.base;
        let mut scenario = base.clone();
        let mut sim = Sim::new(base.clone());
        let mut why = Vec::new();
        let injected_count = moves.iter().filter(|m| m.words().is_some()).count();
        scenario.title = format!("Counterexample: {} under {}", failure.property, crate::json::Named::name(base.preset));
        let injected: Vec<String> = moves.iter().filter_map(|m| m.words()).collect();
        scenario.description =
            format!("Found by hwscope's explorer: {} steps, of which {} injected ({}).", moves.len(), injected_count, injected.join(", "));
        for &mv in &moves {
            let at_step = sim.step + 1;
            match mv {
                Move::Due(k) if k > 0 => scenario.schedule.push(Pick { at_step, pick: k as u32 }),
                _ => {}
            }
            if let Some(spec) = event_spec(&sim, mv, at_step) {
                scenario.events.push(spec);
            }
            setup.apply(&mut sim, mv);
            if let Some(text) = why_text(&sim) {
                why.push(WhyStep { step: sim.step, time_ms: sim.now, text, injected: mv.words().is_some() });
            }
        }
        let step = sim.step;
        if why.last().is_none_or(|w| w.step != step) {
            let text = format!("{} Violation, {}: {}", crate::narrate::text(&sim), failure.property, failure.text);
            why.push(WhyStep { step, time_ms: sim.now, text, injected: false });
        }
        why.reverse();
        Counterexample { failure, moves, scenario, step, why }
    }

    /// The share-link fragment (without `#`) to the violating step, with its state hash.
    pub fn link(&self) -> String {
        let mut run = Run::new(self.scenario.clone());
        run.seek(self.step);
        let hash = crate::link::state_hash(run.record());
        crate::link::encode(&self.scenario, Some(self.step), Some(&hash))
    }

    /// Whether `hwscope run` on the scenario reports the property at the step.
    pub fn replays(&self) -> bool {
        let Ok(again) = Scenario::from_json(&self.scenario.to_json()) else {
            return false;
        };
        let mut run = Run::new(again);
        if !run.seek(self.step) {
            return false;
        }
        let sim = run.sim();
        sim.invariants.new_violations.iter().any(|v| v.invariant == self.failure.property && v.allowed == self.failure.allowed)
    }
}

/// The scenario event for an injected move in `sim`, at the step it becomes.
fn event_spec(sim: &Sim, mv: Move, at_step: u64) -> Option<EventSpec> {
    let cut = |from: End, to: End, both: bool, catch: Vec<u64>| {
        let (a, b) = (from.endpoint(sim), to.endpoint(sim));
        if both {
            LinkCut { between: Some([a, b]), from: None, to: None, catch, channel: None }
        } else {
            LinkCut { between: None, from: Some(a), to: Some(b), catch, channel: None }
        }
    };
    let spec = EventSpec { at_ms: sim.now as i64, at_step: Some(at_step), ..EventSpec::default() };
    Some(match mv {
        Move::Due(_) | Move::Scripted => return None,
        Move::Crash { broker, unflushed } => {
            EventSpec { crash: Some(CrashSpec { broker: broker as u32, unflushed: unflushed as u64, silent: false }), ..spec }
        }
        Move::Restart { broker } => EventSpec { restart: Some(BrokerRef { broker: broker as u32 }), ..spec },
        Move::Cut { from, to, both, catch } => {
            EventSpec { partition: Some(cut(from, to, both, super::moves::caught(sim, from, to, both, catch))), ..spec }
        }
        Move::Heal { from, to, both } => EventSpec { heal: Some(cut(from, to, both, Vec::new())), ..spec },
        Move::Produce { producer } => EventSpec {
            produce: Some(ProduceSpec { producer: sim.scenario.producers.get(producer as usize)?.id.clone(), records: 1 }),
            ..spec
        },
    })
}

/// The step's sentence if the step is a link in a "why" chain: a leader change,
/// a truncation, an ISR change (who may be elected next), a crash or restart, a
/// cut or heal, an acknowledgement, a violation.
fn why_text(sim: &Sim) -> Option<String> {
    let relevant = !sim.invariants.new_violations.is_empty()
        || sim.last.events().iter().any(|e| {
            matches!(
                e,
                Event::Truncated { .. }
                    | Event::LeaderElected { .. }
                    | Event::PartitionOffline { .. }
                    | Event::BecameLeader { .. }
                    | Event::Crashed { .. }
                    | Event::Restarted { .. }
                    | Event::LinksCut { .. }
                    | Event::LinksHealed { .. }
                    | Event::ProduceAcked { .. }
                    | Event::Appended { .. }
                    | Event::LogStartReset { .. }
                    | Event::IsrExpanded { .. }
                    | Event::IsrShrunk { .. }
                    | Event::AlterPartitionCommitted { .. }
                    | Event::ControllerIsrShrunk { .. }
            )
        });
    relevant.then(|| {
        let mut text = crate::narrate::text(sim);
        for v in &sim.invariants.new_violations {
            text.push_str(&format!(" Violation, {}: {}", v.invariant, v.text));
        }
        text
    })
}
