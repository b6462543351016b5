//! hwscope: how Apache Kafka replicates a partition, as a deterministic simulation.
//!
//! Data flows one way: a [`scenario::Scenario`] (the input, docs/format.md) builds a
//! [`sim::Sim`]. Each step the scheduler picks what is due; the rule that owns it
//! decides, saying what happened as typed events (applied in one place) and what the
//! world must do as commands; the invariants check. [`record::StepRecord`]
//! (docs/format.md, the step record) is what a step looks like from outside, built from the state and
//! the events, with a sentence `narrate` writes from the same events. Nothing in
//! `sim` knows how it will be told or drawn (tests/architecture.rs checks it).
//!
//! - `scenario/`  the input: types as field lists (key, default, reader, writer),
//!   validation, the behaviour switches, the presets as a table (data), and the
//!   defaults that changed between versions with the settings in force
//! - `sim/`       the engine: `mod.rs` (a step: decide, apply, check), `step.rs`
//!   (trigger, commands), `event.rs` (typed events), `scheduler.rs` (the only place
//!   order is decided), `network.rs`, `log.rs`, `msg.rs`, `state.rs`, `invariants/`
//!   (named properties); the rules: `leader/` (fetch, hw, isr, purgatory, produce),
//!   `follower.rs`, `truncation.rs`, `controller.rs`, `election.rs`, `elr.rs`,
//!   `producer.rs`, `consumer.rs`; `why.rs` (the reasons events carry)
//! - `record/`    the step record: types and JSON, built from state + events; labels
//! - `narrate/`   the step's sentence: typed events + the state after → words
//! - `json/`      value, parser, writer and field lists (in place of serde_json: a smaller page)
//! - `check/`     the counterexample explorer: breadth-first search over the engine's
//!   choices and injected faults for a state where a property fails
//! - `run`        a run with checkpoints: step, seek back and forth, fork
//! - `marks`      the run's key moments (HW, ISR, elections, truncations, losses,
//!   interventions), noted as steps are computed
//! - `verdict`    each property's verdict at every step, with its witness (the
//!   strip under the scrubber), noted as steps are computed
//! - `link`       the share-link codec (URL fragment)
//! - `builtin`    the built-in scenarios (JSON files in `scenarios/`)
//! - `docblock`   a ```hwscope block in documentation (built-in + options, scenario, or link)
//! - `cli/`       the command line, `svg` (a step as a standalone SVG), `format`
//!   (table, markdown) and `docfigure` (a docs block as a static figure, finding
//!   blocks in Markdown and HTML); not compiled for wasm32
//! - `wasm`       the browser facade (wasm32 only); `wasm_explore`: the explorer's
//!   worker facade (wasm32, feature `explore`)

/// An error message's text, as `format!` writes it; in the first cores (feature `first`)
/// an empty string, its arguments not even evaluated. The page's first core reads only the
/// built-ins' own texts, which the full core reads and validates in every build and test
/// (scripts/first-frame.mjs), so it never has a message to show, and the formatting of the
/// scenario reader's ~90 messages was 6.8 KB gzipped of its 108.8 KB (docs/performance.md,
/// issue 28's twelfth pass). The documentation figures' first core still checks a block's
/// scenario and refuses a bad one, but says why through the docs core, which has every
/// message (www/embed/live.js `whyNot`; the thirteenth pass). Only for text that ends up in
/// a [`ScenarioError`]: a field path or a message, never data a run uses.
#[cfg(feature = "first")]
macro_rules! error_text {
    ($($t:tt)*) => {{
        if false {
            let _ = ::std::format!($($t)*);
        }
        ::std::string::String::new()
    }};
}
#[cfg(not(feature = "first"))]
macro_rules! error_text {
    ($($t:tt)*) => {
        ::std::format!($($t)*)
    };
}

pub mod builtin;
pub mod check;
pub mod docblock;
pub mod json;
pub mod kafka_log;
pub mod link;
pub mod marks;
pub mod narrate;
pub mod record;
pub mod run;
pub mod scenario;
pub mod sim;
mod sort;
pub mod verdict;

/// The command line and its renderers (SVG, table, markdown, docs figures): not in
/// the page's WebAssembly (wasm32-unknown-unknown); in the npm package's (feature `node`)
/// for `hwscope/render` and the `hwscope` command that package installs; and in the WASI
/// build (wasm32-wasip1) the `mkdocs-hwscope` wheel runs to draw figures.
#[cfg(any(not(all(target_arch = "wasm32", target_os = "unknown")), feature = "node"))]
pub mod cli;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub mod wasm;
/// The explorer's facade for the page's Web Worker (wasm32, feature `explore`: a
/// second package, so that the page's own WebAssembly does not carry the search).
#[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "explore"))]
pub mod wasm_explore;
/// The npm package's Node facade (wasm32, feature `node`: a third package, built by
/// scripts/packages/npm.mjs): the command line and static figures, in Node.
#[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "node"))]
pub mod wasm_node;

pub use record::StepRecord;
pub use run::Run;
pub use scenario::{Scenario, ScenarioError};

/// The first cores' allocator (the page's, and the documentation figures'): talc, not the
/// standard library's dlmalloc. Its code is ~3 KB gzipped smaller, on the first load's
/// path, and a 50,000-step look-ahead takes as long (docs/performance.md, issue 28's
/// thirteenth pass). No rule depends on where memory is: the records are the same.
#[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "first"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
