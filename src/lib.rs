//! hwscope: how Apache Kafka replicates a partition, as a deterministic simulation.
//!
//! Data flows one way: a [`scenario::Scenario`] (the input, CONTRACT.md §2) builds a
//! [`sim::Sim`]; each step runs one event chosen by the scheduler and hands it to
//! the role that owns it; [`record::StepRecord`] (CONTRACT.md §3) is what a step
//! looks like from outside. Nothing here knows how it will be drawn.
//!
//! - `scenario/`  format 1, defaults, validation, presets (behaviour switches as data)
//! - `sim/`       the engine: scheduler (the only place order is decided), network,
//!   log, and one file per role: leader, follower, controller, producer, consumer
//! - `invariants` named properties, one function each
//! - `json`       the JSON parser and writer (in place of serde_json: a smaller page)
//! - `record`     the step record and its narration
//! - `run`        a run with checkpoints: step, seek back and forth, fork
//! - `link`       the share-link codec (URL fragment)
//! - `svg`        a step as a standalone SVG (print, RSS, no-JS readers)
//! - `builtin`    the built-in scenarios (JSON files in `scenarios/`)
//! - `docblock`   a ```hwscope block in documentation (built-in + options, scenario, or link)
//! - `docfigure`  that block as a static figure, and finding blocks in Markdown and HTML
//! - `format`     the CLI's table and markdown views
//! - `wasm`       the browser facade (wasm32 only)

/// `format!` for narration: nothing is formatted while the simulation is not
/// narrating (replaying to a seek target, benchmarking).
macro_rules! say {
    ($sim:expr, $($arg:tt)*) => {
        if $sim.narrate { format!($($arg)*) } else { String::new() }
    };
}

pub mod builtin;
pub mod docblock;
/// Static figures for documentation pages (uses `svg`; not in the page's WebAssembly).
#[cfg(not(target_arch = "wasm32"))]
pub mod docfigure;
pub mod format;
pub mod invariants;
pub mod json;
pub mod link;
pub mod record;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod svg;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use record::StepRecord;
pub use run::Run;
pub use scenario::{Scenario, ScenarioError};
