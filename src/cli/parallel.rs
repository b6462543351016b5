//! The native search driver: the library's single-threaded search with
//! progress on stderr, or levels expanded on all cores.

use crate::check::{Config, Counterexample, Outcome, Progress, Search};
use std::time::Instant;

/// What a finished search reports.
pub struct Report {
    pub outcome: Outcome,
    pub progress: Progress,
    pub counterexample: Option<Counterexample>,
    pub allowed_seen: Option<String>,
    pub seconds: f64,
    pub threads: usize,
}

/// Runs the search with `threads` threads; progress on stderr unless `quiet`.
pub fn search(config: &Config, scenario: &crate::Scenario, threads: usize, start: Instant, quiet: bool) -> Report {
    let _ = threads;
    single(config, scenario, start, quiet)
}

fn single(config: &Config, scenario: &crate::Scenario, start: Instant, quiet: bool) -> Report {
    let mut search = Search::new(config.clone(), scenario);
    let mut last = 0.0;
    loop {
        let p = search.run(4096);
        let t = start.elapsed().as_secs_f64();
        if !quiet && t - last > 1.0 {
            last = t;
            eprintln!(
                "  depth {:>3}  {:>10} distinct  {:>10} explored  {:>9} queued  {:>8.0} distinct/s  ~{} MiB",
                p.depth,
                p.distinct,
                p.explored,
                p.queued,
                p.distinct as f64 / t,
                p.memory_bytes >> 20
            );
        }
        if p.done {
            break;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let progress = search.progress();
    let outcome = search.outcome().cloned().unwrap_or(Outcome::Exhausted);
    let counterexample = match &outcome {
        Outcome::Counterexample { node, failure } => Some(Counterexample::new(&search.setup, search.path(*node), failure.clone())),
        _ => None,
    };
    let allowed_seen = search.allowed_seen.as_ref().map(|(_, f)| f.text.clone());
    Report { outcome, progress, counterexample, allowed_seen, seconds, threads: 1 }
}
