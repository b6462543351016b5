//! A run: the simulation plus checkpoints, so that the page and the CLI can
//! step, seek backwards and forwards, and fork the future with an intervention.

use crate::marks::{self, Marks};
use crate::record::StepRecord;
use crate::scenario::Action;
use crate::scenario::{AfterStop, EventSpec, Scenario, ScenarioError};
use crate::sim::vecmap::VecMap;
use crate::sim::Sim;
use crate::verdict::Verdicts;

/// At most this many checkpoints are kept; their spacing doubles as a run grows.
const MAX_CHECKPOINTS: usize = 256;

/// The checkpoints' spacing at first, in steps. A checkpoint is a copy of the world
/// (in the page's core, every node by value): at 64 a 50,000-step look-ahead made 451
/// and dropped ~190 again as the spacing doubled, ~9% of its time; at 256 it makes 195,
/// and a seek replays at most 255 steps (docs/performance.md, issue 28's eleventh pass).
const FIRST_SPACING: u64 = 256;

/// What a replay must repeat at given steps: interventions, and the schedule's picks.
struct Steps<'a> {
    interventions: &'a VecMap<u64, Action>,
    picks: &'a VecMap<u64, u32>,
}

#[derive(Debug, Clone)]
pub struct Run {
    /// The simulation at the cursor.
    sim: Sim,
    /// The furthest simulation computed (for `extend`), if ahead of the cursor.
    ahead: Option<Sim>,
    /// Checkpoints at steps that are multiples of `spacing`.
    checkpoints: Vec<Sim>,
    spacing: u64,
    /// Total steps known so far (last index + 1), and whether the run is over.
    known: u64,
    done: bool,
    /// Interventions, by the step number they became: replays must repeat them.
    interventions: VecMap<u64, Action>,
    /// The same interventions as the user gave them, with their time, for share links.
    intervention_specs: VecMap<u64, EventSpec>,
    /// The scenario's `schedule`: step → which of the events due at its instant runs.
    picks: VecMap<u64, u32>,
    /// Lists in records keep only their last `log_tail` items (the lighter form).
    log_tail: Option<usize>,
    /// The run's key moments as far as it is computed (marks.rs).
    marks: Marks,
    /// Each property's verdict at every step computed (verdict.rs).
    verdicts: Verdicts,
    /// Past the script, the run goes on until its consequences settle (an
    /// intervention or `settle()` turns it on; `after_stop` in a link).
    settling: bool,
}

impl Run {
    pub fn new(scenario: Scenario) -> Run {
        let mut interventions = VecMap::new();
        let mut intervention_specs = VecMap::new();
        for (i, e) in scenario.events.iter().enumerate() {
            if let (Some(step), Ok(action)) = (e.at_step, scenario.action(&error_text!("events[{i}]"), e)) {
                interventions.insert(step, action);
                intervention_specs.insert(step, e.clone());
            }
        }
        let picks = scenario.schedule.iter().map(|p| (p.at_step, p.pick)).collect();
        let settling = scenario.after_stop == AfterStop::Settle;
        let sim = Sim::new(scenario);
        let mut verdicts = Verdicts::default();
        verdicts.note(&sim);
        Run {
            checkpoints: vec![sim.clone()],
            sim,
            ahead: None,
            spacing: FIRST_SPACING,
            known: 1,
            done: false,
            interventions,
            intervention_specs,
            picks,
            log_tail: None,
            marks: Marks::default(),
            verdicts,
            settling,
        }
    }

    /// Whether the run goes on past its script until it settles.
    pub fn is_settling(&self) -> bool {
        self.settling
    }

    /// Lets the run go on past `stop_at_ms` for as long as its consequences need
    /// (sim/settle.rs): the steps computed so far stay as they are (the script's
    /// part is the same either way), the run is open again, and a link carries it.
    pub fn settle(&mut self) {
        if self.settling {
            return;
        }
        self.settling = true;
        self.sim.settle = true;
        for c in &mut self.checkpoints {
            c.settle = true;
        }
        if let Some(a) = &mut self.ahead {
            a.settle = true;
        }
        self.done = false;
    }

    /// The run's key moments, as far as it is computed.
    pub fn marks(&self) -> &Marks {
        &self.marks
    }

    /// Each property's verdict at every step, as far as the run is computed.
    pub fn verdicts(&self) -> &Verdicts {
        &self.verdicts
    }

    /// The verdicts as JSON (what the page's strip reads).
    pub fn verdicts_json(&self) -> String {
        crate::json::to_string(&crate::verdict::VerdictsJson { verdicts: &self.verdicts, sim: &self.sim, known: self.known })
    }

    /// Records list only the last `tail` items of each log and list (None: complete records).
    pub fn set_log_tail(&mut self, tail: Option<usize>) {
        self.log_tail = tail;
    }

    /// The scenario with the interventions made so far, each at the step it became:
    /// what a share link carries so that opening it reproduces this run exactly.
    pub fn shared_scenario(&self) -> Scenario {
        let mut s = (*self.sim.scenario).clone();
        s.events.retain(|e| e.at_step.is_none());
        s.events.extend(self.intervention_specs.values().cloned());
        s.schedule.retain(|p| self.picks.contains_key(&p.at_step));
        if self.settling {
            s.after_stop = AfterStop::Settle;
        }
        s
    }

    pub fn from_json(text: &str) -> Result<Run, ScenarioError> {
        Ok(Run::new(Scenario::from_json(text)?))
    }

    pub fn scenario(&self) -> &Scenario {
        &self.sim.scenario
    }

    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    pub fn current(&self) -> u64 {
        self.sim.step
    }

    pub fn record(&self) -> StepRecord {
        self.sim.record_with_tail(self.log_tail)
    }

    pub fn known_steps(&self) -> u64 {
        self.known
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// A step computed: it is known, and, the first time, its marks are noted.
    fn note(known: &mut u64, marks: &mut Marks, verdicts: &mut Verdicts, interventions: &VecMap<u64, Action>, sim: &Sim) {
        if sim.step + 1 > *known {
            *known = sim.step + 1;
            marks.note(sim.step, marks::kinds_of(sim, interventions.contains_key(&sim.step)));
            verdicts.note(sim);
        }
    }

    /// Runs one step (or the intervention recorded for it, or the event the
    /// schedule picks). Nothing is narrated: the record of a step, sentence
    /// included, is built when it is asked for.
    fn advance(sim: &mut Sim, checkpoints: &mut Vec<Sim>, spacing: &mut u64, steps: &Steps) -> bool {
        let next = sim.step + 1;
        match (steps.interventions.get(&next), steps.picks.get(&next)) {
            (Some(action), _) => sim.apply_now(action.clone()),
            (None, Some(&pick)) if pick > 0 => {
                // A pick past the events due runs the default's (a schedule made by another model).
                let key = sim.choices().get(pick as usize).copied();
                if !key.is_some_and(|k| sim.step_choice(k)) && !sim.step() {
                    return false;
                }
            }
            _ => {
                if !sim.step() {
                    return false;
                }
            }
        }
        if sim.step % *spacing == 0 && sim.step / *spacing == checkpoints.len() as u64 {
            checkpoints.push(sim.clone());
            if checkpoints.len() > MAX_CHECKPOINTS {
                // Keep every other checkpoint: the spacing doubles.
                let mut i = 0;
                checkpoints.retain(|_| {
                    i += 1;
                    (i - 1) % 2 == 0
                });
                *spacing *= 2;
            }
        }
        true
    }

    /// Runs the next step; false when the run is over.
    pub fn step(&mut self) -> bool {
        if let Some(ahead) = &self.ahead {
            if ahead.step > self.sim.step {
                let next = self.sim.step + 1;
                self.sim = self.sim_at(next);
                return self.sim.step == next;
            }
            self.ahead = None;
        }
        if Self::advance(
            &mut self.sim,
            &mut self.checkpoints,
            &mut self.spacing,
            &Steps { interventions: &self.interventions, picks: &self.picks },
        ) {
            Self::note(&mut self.known, &mut self.marks, &mut self.verdicts, &self.interventions, &self.sim);
            true
        } else {
            self.done = true;
            false
        }
    }

    /// Computes up to `budget` steps beyond what is known, without moving the cursor.
    pub fn extend(&mut self, budget: u64) -> (u64, bool) {
        if self.done {
            return (self.known, true);
        }
        let mut sim = match self.ahead.take() {
            Some(a) if a.step + 1 >= self.known => a,
            _ => {
                let target = self.known - 1;
                let mut s = self.sim.clone();
                if s.step != target {
                    s = self.sim_at(target);
                }
                s
            }
        };
        for _ in 0..budget {
            if !Self::advance(
                &mut sim,
                &mut self.checkpoints,
                &mut self.spacing,
                &Steps { interventions: &self.interventions, picks: &self.picks },
            ) {
                self.done = true;
                break;
            }
            Self::note(&mut self.known, &mut self.marks, &mut self.verdicts, &self.interventions, &sim);
        }
        self.ahead = Some(sim);
        (self.known, self.done)
    }

    /// The simulation at `step` (clamped to the last step), replayed from the nearest
    /// earlier state.
    fn sim_at(&mut self, step: u64) -> Sim {
        if step == 0 {
            return self.checkpoints[0].clone();
        }
        let index = (((step - 1) / self.spacing) as usize).min(self.checkpoints.len() - 1);
        let floor = index as u64 * self.spacing;
        let mut sim = if self.sim.step < step && self.sim.step >= floor { self.sim.clone() } else { self.checkpoints[index].clone() };
        if let Some(a) = &self.ahead {
            if a.step <= step && a.step > sim.step {
                sim = a.clone();
            }
        }
        while sim.step < step {
            if !Self::advance(
                &mut sim,
                &mut self.checkpoints,
                &mut self.spacing,
                &Steps { interventions: &self.interventions, picks: &self.picks },
            ) {
                self.done = true;
                // The run ended first: the last step is the answer.
                return sim;
            }
            Self::note(&mut self.known, &mut self.marks, &mut self.verdicts, &self.interventions, &sim);
        }
        sim
    }

    /// Moves the cursor to `step` (forwards or backwards). Returns false if the run
    /// ended before it (the cursor is then on the last step).
    pub fn seek(&mut self, step: u64) -> bool {
        if step == self.sim.step {
            return true;
        }
        if step > self.sim.step && step - self.sim.step <= 8 && self.ahead.as_ref().is_none_or(|a| a.step <= self.sim.step) {
            while self.sim.step < step {
                if !self.step() {
                    return false;
                }
            }
            return true;
        }
        self.sim = self.sim_at(step);
        self.sim.step == step
    }

    pub fn reset(&mut self) {
        self.sim = self.checkpoints[0].clone();
    }

    /// An intervention at the cursor: it becomes the next step, and every step
    /// after the cursor is discarded (the future forks).
    pub fn apply(&mut self, event: &EventSpec) -> Result<(), ScenarioError> {
        let action = self.sim.scenario.action("event", event)?;
        // What the intervention sets in motion plays out past the script.
        self.settle();
        let keep = (self.sim.step / self.spacing) as usize + 1;
        self.checkpoints.truncate(keep.max(1));
        self.ahead = None;
        self.done = false;
        let at = self.sim.step + 1;
        self.interventions.retain(|&k, _| k < at);
        self.interventions.insert(at, action.clone());
        self.intervention_specs.retain(|&k, _| k < at);
        self.picks.retain(|&k, _| k < at);
        self.intervention_specs.insert(at, EventSpec { at_ms: self.sim.now as i64, at_step: Some(at), repeat: None, ..event.clone() });
        self.sim.apply_now(action);
        self.marks.truncate_after(self.sim.step - 1);
        self.verdicts.truncate_after(self.sim.step - 1);
        self.known = self.sim.step;
        Self::note(&mut self.known, &mut self.marks, &mut self.verdicts, &self.interventions, &self.sim);
        let s = self.sim.step;
        if s % self.spacing == 0 && s / self.spacing == self.checkpoints.len() as u64 {
            self.checkpoints.push(self.sim.clone());
        }
        Ok(())
    }

    /// Runs to the end, calling `f` with each step's record (step 0 included).
    pub fn for_each_record(&mut self, mut f: impl FnMut(&StepRecord)) {
        f(&self.record());
        while self.step() {
            f(&self.record());
        }
    }
}

/// Steps fresh copies of the scenario (no records, so nothing is narrated) until
/// `more(events)` says stop (the caller owns the clock: the core has none).
/// Returns the events run.
pub fn bench(scenario: &Scenario, mut more: impl FnMut(u64) -> bool) -> u64 {
    let mut events = 0u64;
    loop {
        let mut sim = Sim::new(scenario.clone());
        while sim.step() {
            events += 1;
        }
        if !more(events) {
            return events;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(run: &mut Run) -> Vec<String> {
        let mut out = Vec::new();
        run.for_each_record(|r| out.push(r.to_json()));
        out
    }

    /// Seeking to any step, backwards or forwards, gives the record the step-by-step run gave.
    #[test]
    fn seek_matches_stepping() {
        for (name, json) in crate::builtin::BUILTINS.iter().filter(|(n, _)| *n != "steady-load") {
            let scenario = Scenario::from_json(json).unwrap();
            let expected = trace(&mut Run::new(scenario.clone()));
            let mut run = Run::new(scenario);
            run.extend(1_000_000);
            let n = expected.len() as u64;
            let mut targets: Vec<u64> = (0..n).rev().step_by(7).collect();
            targets.extend([n / 2, 3, n - 1, 0, n + 10]);
            for t in targets {
                run.seek(t);
                let want = &expected[t.min(n - 1) as usize];
                assert_eq!(&run.record().to_json(), want, "{name} at step {t}");
            }
        }
    }

    /// The furthest step computed by `extend` (a clone of the look-ahead) is the
    /// same record as stepping gives, text included.
    #[test]
    fn seek_to_the_furthest_step_computed_matches_stepping() {
        for name in ["seed-walkthrough", "slow-follower-isr", "temporary-hw-drop"] {
            let scenario = crate::builtin::load(name).unwrap();
            let expected = trace(&mut Run::new(scenario.clone()));
            for batch in [1, 7, 50] {
                let mut run = Run::new(scenario.clone());
                while !run.extend(batch).1 {
                    let last = run.known_steps() - 1;
                    run.seek(last);
                    assert_eq!(run.record().to_json(), expected[last as usize], "{name}, batches of {batch}, step {last}");
                    run.seek(last / 2);
                }
            }
        }
    }

    /// Marks are noted once per step as the run is computed, whatever the order of
    /// steps, seeks and look-ahead, and name what the records show.
    #[test]
    fn marks_name_the_key_moments() {
        use crate::marks::*;
        let scenario = crate::builtin::load("kip101-data-loss").unwrap();
        let records: Vec<String> = trace(&mut Run::new(scenario.clone()));
        let mut stepped = Run::new(scenario.clone());
        while stepped.step() {}
        let mut ahead = Run::new(scenario);
        ahead.extend(3);
        ahead.seek(9);
        ahead.seek(2);
        ahead.extend(1000);
        for n in 0..records.len() as u64 {
            assert_eq!(stepped.marks().at(n), ahead.marks().at(n), "step {n}");
        }
        let marked = |kind: u8| (0..records.len() as u64).filter(|&n| stepped.marks().at(n) & kind != 0).collect::<Vec<_>>();
        let with = |needle: &str| (0..records.len() as u64).filter(|&n| records[n as usize].contains(needle)).collect::<Vec<_>>();
        assert_eq!(marked(TRUNCATION), with("\"truncate_to\""), "truncations");
        assert_eq!(marked(ELECTION), with("\"type\":\"leader_election\""), "elections");
        assert_eq!(
            marked(LOSS),
            (0..records.len() as u64).filter(|&n| !records[n as usize].contains("\"violations\":[]")).collect::<Vec<_>>(),
            "losses"
        );
        assert!(!marked(HW).is_empty() && !marked(FAULT).is_empty());
        // An intervention is marked, and the future it forks is marked afresh.
        let mut run = Run::new(crate::builtin::load("idle-partition-lag").unwrap());
        run.extend(1000);
        run.seek(10);
        run.apply(&Scenario::event_from_json(r#"{"crash":{"broker":1}}"#).unwrap()).unwrap();
        assert_eq!(run.marks().at(11), INTERVENTION);
        assert!(run.marks().next(11, u8::MAX, true).is_none(), "nothing after the fork is computed yet");
        run.extend(1000);
        assert_eq!(run.marks().next(0, u8::MAX, true), Some(11), "the marks of the old future are gone");
    }

    /// An intervention forks the future; seeking back and forth replays it, and the
    /// shared scenario reproduces the same run from scratch.
    #[test]
    fn interventions_replay_and_share() {
        let scenario = crate::builtin::load("idle-partition-lag").unwrap();
        let mut run = Run::new(scenario);
        run.seek(10);
        run.apply(&Scenario::event_from_json(r#"{"crash":{"broker":1}}"#).unwrap()).unwrap();
        run.seek(30);
        let at30 = run.record().to_json();
        run.seek(2);
        run.seek(30);
        assert_eq!(run.record().to_json(), at30);
        let shared = run.shared_scenario();
        let again = Scenario::from_json(&shared.to_json()).unwrap();
        let mut replay = Run::new(again);
        replay.seek(30);
        assert_eq!(replay.record().to_json(), at30);
        assert!(at30.contains("\"alive\":false"));
    }
}
