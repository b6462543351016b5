//! A run: the simulation plus checkpoints, so that the page and the CLI can
//! step, seek backwards and forwards, and fork the future with an intervention.

use crate::record::StepRecord;
use crate::scenario::Action;
use crate::scenario::{EventSpec, Scenario, ScenarioError};
use crate::sim::vecmap::VecMap;
use crate::sim::Sim;

/// At most this many checkpoints are kept; their spacing doubles as a run grows.
const MAX_CHECKPOINTS: usize = 256;

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
}

impl Run {
    pub fn new(scenario: Scenario) -> Run {
        let sim = Sim::new(scenario);
        Run { checkpoints: vec![sim.clone()], sim, ahead: None, spacing: 64, known: 1, done: false, interventions: VecMap::new() }
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
        self.sim.record()
    }

    pub fn known_steps(&self) -> u64 {
        self.known
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    fn note(&mut self, sim_step: u64) {
        if sim_step + 1 > self.known {
            self.known = sim_step + 1;
        }
    }

    fn advance(sim: &mut Sim, checkpoints: &mut Vec<Sim>, spacing: &mut u64, interventions: &VecMap<u64, Action>) -> bool {
        match interventions.get(&(sim.step + 1)) {
            Some(action) => sim.apply_now(action.clone()),
            None => {
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
                return self.seek(self.sim.step + 1);
            }
            self.ahead = None;
        }
        if Self::advance(&mut self.sim, &mut self.checkpoints, &mut self.spacing, &self.interventions) {
            let s = self.sim.step;
            self.note(s);
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
            if !Self::advance(&mut sim, &mut self.checkpoints, &mut self.spacing, &self.interventions) {
                self.done = true;
                break;
            }
            let st = sim.step;
            self.note(st);
        }
        self.ahead = Some(sim);
        (self.known, self.done)
    }

    /// The simulation at `step` (clamped to the last step), from the nearest checkpoint.
    fn sim_at(&mut self, step: u64) -> Sim {
        let index = ((step / self.spacing) as usize).min(self.checkpoints.len() - 1);
        let mut sim = if self.sim.step <= step && self.sim.step >= index as u64 * self.spacing {
            self.sim.clone()
        } else {
            self.checkpoints[index].clone()
        };
        if let Some(a) = &self.ahead {
            if a.step <= step && a.step > sim.step {
                sim = a.clone();
            }
        }
        while sim.step < step {
            if !Self::advance(&mut sim, &mut self.checkpoints, &mut self.spacing, &self.interventions) {
                self.done = true;
                break;
            }
            let st = sim.step;
            self.note(st);
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
        let keep = (self.sim.step / self.spacing) as usize + 1;
        self.checkpoints.truncate(keep.max(1));
        self.ahead = None;
        self.done = false;
        let at = self.sim.step + 1;
        self.interventions.retain(|&k, _| k < at);
        self.interventions.insert(at, action.clone());
        self.sim.apply_now(action);
        self.known = self.sim.step + 1;
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

/// Steps fresh copies of the scenario with narration off until `more(events)`
/// says stop (the caller owns the clock: the core has none). Returns the events run.
pub fn bench(scenario: &Scenario, mut more: impl FnMut(u64) -> bool) -> u64 {
    let mut events = 0u64;
    loop {
        let mut sim = Sim::new(scenario.clone());
        sim.narrate = false;
        while sim.step() {
            events += 1;
        }
        if !more(events) {
            return events;
        }
    }
}
