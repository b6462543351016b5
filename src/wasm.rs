//! The browser facade (docs/api.md): a thin wrapper that turns JS values into
//! scenario JSON and step records into plain JS objects. No rule lives here.

#[cfg(not(feature = "first"))]
use crate::builtin;
#[cfg(not(feature = "first"))]
use crate::json::json_record;
use crate::json::Obj;
#[cfg(any(not(feature = "first"), feature = "docs"))]
use crate::json::{self, ToJson};
#[cfg(not(feature = "first"))]
use crate::link;
#[cfg(any(not(feature = "first"), feature = "docs"))]
use crate::record::StepRecord;
#[cfg(not(feature = "first"))]
use crate::scenario::Scenario;
#[cfg(not(feature = "first"))]
use crate::scenario::{EventSpec, Preset};
use crate::Run;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    // The page's first core goes without (1.1 KB gzipped): a panic there still stops the
    // page with "The simulation core stopped" (www/core/sim.js), without Rust's message
    // in the console; the full core, which runs the same engine, writes it.
    #[cfg(not(feature = "first"))]
    console_error_panic_hook::set_once();
}

/// Values cross the boundary as JSON text parsed by the engine's `JSON.parse`: one
/// writer (`json`, the CLI's) for everything, so records are equal field for field,
/// and no second serializer is compiled into the page's WebAssembly.
#[cfg(any(not(feature = "first"), feature = "docs"))]
fn to_js(value: &dyn ToJson) -> Result<JsValue, JsError> {
    text_to_js(&json::to_string(value))
}

pub(crate) fn text_to_js(text: &str) -> Result<JsValue, JsError> {
    js_sys::JSON::parse(text).map_err(|_| JsError::new("JSON.parse failed"))
}

/// A scenario given as a JS object or a JSON string, as JSON text.
pub(crate) fn json_text(input: &JsValue) -> Result<String, JsError> {
    if let Some(s) = input.as_string() {
        return Ok(s);
    }
    js_sys::JSON::stringify(input).map(String::from).map_err(|_| JsError::new("scenario: not JSON-serialisable"))
}

#[wasm_bindgen]
pub struct Playground {
    run: Option<Run>,
    /// The lighter record form asked for, kept across `configure`.
    log_tail: Option<usize>,
}

impl Default for Playground {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen]
impl Playground {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Playground {
        Playground { run: None, log_tail: None }
    }

    fn run(&mut self) -> Result<&mut Run, JsError> {
        self.run.as_mut().ok_or_else(|| JsError::new("call configure(scenario) first"))
    }

    /// The step record at the cursor. The page's first core writes none (null): the
    /// records of the steps it shows first were written at build time by the full core
    /// (www/pkg/first.js, steps/NAME.json), and a later one waits for the full core
    /// (www/core/sim.js; the record writer is ~15 KB of its ~120 KB gzipped: docs/performance.md,
    /// the tenth pass). The docs figures' first core (`docs`) writes them.
    fn current_record(&mut self) -> Result<JsValue, JsError> {
        #[cfg(all(feature = "first", not(feature = "docs")))]
        {
            self.run()?;
            Ok(JsValue::NULL)
        }
        #[cfg(any(not(feature = "first"), feature = "docs"))]
        {
            let r: StepRecord = self.run()?.record();
            to_js(&r)
        }
    }

    /// Sets the scenario and returns step 0. Throws an Error naming the bad field.
    pub fn configure(&mut self, scenario: JsValue) -> Result<JsValue, JsError> {
        let text = json_text(&scenario)?;
        let mut run = Run::from_json(&text).map_err(|e| JsError::new(&e.to_string()))?;
        run.set_log_tail(self.log_tail);
        self.run = Some(run);
        self.current_record()
    }

    /// The next step record, or null at the end of the run.
    pub fn step(&mut self) -> Result<JsValue, JsError> {
        if self.run()?.step() {
            self.current_record()
        } else {
            Ok(JsValue::NULL)
        }
    }

    pub fn reset(&mut self) -> Result<JsValue, JsError> {
        self.run()?.reset();
        self.current_record()
    }

    /// The record at `step` (the last step if the run ends before it).
    pub fn seek(&mut self, step: f64) -> Result<JsValue, JsError> {
        let step = if step.is_finite() && step > 0.0 { step as u64 } else { 0 };
        self.run()?.seek(step);
        self.current_record()
    }

    pub fn snapshot(&mut self) -> Result<JsValue, JsError> {
        self.current_record()
    }

    #[cfg(not(feature = "first"))]
    /// An intervention now (`{"crash":{"broker":1}}`…): returns the new step; the future forks.
    pub fn apply(&mut self, event: JsValue) -> Result<JsValue, JsError> {
        let text = json_text(&event)?;
        let spec: EventSpec = Scenario::event_from_json(&text).map_err(|e| JsError::new(&e.to_string()))?;
        self.run()?.apply(&spec).map_err(|e| JsError::new(&e.to_string()))?;
        self.current_record()
    }

    /// Computes up to `budget` more steps ahead without moving the cursor: `{steps, done}`.
    pub fn extend(&mut self, budget: f64) -> Result<JsValue, JsError> {
        let budget = if budget.is_finite() && budget > 0.0 { budget as u64 } else { 0 };
        let (steps, done) = self.run()?.extend(budget);
        let mut out = String::new();
        Obj::new(&mut out).field("steps", &steps).field("done", &done).end();
        text_to_js(&out)
    }

    pub fn current(&mut self) -> Result<f64, JsError> {
        Ok(self.run()?.current() as f64)
    }

    /// The scenario in force, as JSON text (defaults filled in).
    #[cfg(not(feature = "first"))]
    pub fn scenario(&mut self) -> Result<String, JsError> {
        Ok(self.run()?.scenario().to_json())
    }

    /// Records list only the last `n` items of each log and list (n ≤ 0: complete
    /// records). May be called before `configure`; it lasts until changed.
    #[wasm_bindgen(js_name = setLogTail)]
    pub fn set_log_tail(&mut self, n: f64) {
        self.log_tail = (n.is_finite() && n > 0.0).then_some(n as usize);
        if let Some(run) = self.run.as_mut() {
            run.set_log_tail(self.log_tail);
        }
    }

    /// The hash of the complete record at the cursor: what a share link carries in `h`.
    #[cfg(not(feature = "first"))]
    #[wasm_bindgen(js_name = stateHash)]
    pub fn state_hash(&mut self) -> Result<String, JsError> {
        let run = self.run()?;
        Ok(link::state_hash(run.sim().record()))
    }

    #[cfg(not(feature = "first"))]
    /// The share-link fragment (without `#`) for this run at the cursor: the scenario
    /// with the interventions made so far, the step, and its state hash.
    pub fn link(&mut self) -> Result<String, JsError> {
        let run = self.run()?;
        let hash = link::state_hash(run.sim().record());
        Ok(link::encode(&run.shared_scenario(), Some(run.current()), Some(&hash)))
    }

    /// The kinds of key moment (marks.rs bits) in each of `buckets` equal spans of
    /// steps `from..=to`, among the steps computed: what the scrubber draws.
    #[wasm_bindgen(js_name = markBuckets)]
    pub fn mark_buckets(&mut self, from: f64, to: f64, buckets: f64) -> Result<Vec<u8>, JsError> {
        let n = if buckets.is_finite() && buckets > 0.0 { (buckets as usize).min(8192) } else { 0 };
        Ok(self.run()?.marks().buckets(from.max(0.0) as u64, to.max(0.0) as u64, n))
    }

    /// Each property's verdict along the run, as far as it is computed: `{known,
    /// properties: [{name, tla, kind, segments: [{from, verdict, text?, record?,
    /// replica?, other?, offset?, epoch?}]}]}` (verdict.rs): the strip under the scrubber.
    pub fn verdicts(&mut self) -> Result<JsValue, JsError> {
        let text = self.run()?.verdicts_json();
        text_to_js(&text)
    }

    /// The next step after `step` (or the last before it) marked with one of the
    /// kinds in `mask`, among the steps computed; -1 if none.
    #[wasm_bindgen(js_name = nextMark)]
    pub fn next_mark(&mut self, step: f64, mask: u8, forward: bool) -> Result<f64, JsError> {
        Ok(self.run()?.marks().next(step.max(0.0) as u64, mask, forward).map_or(-1.0, |s| s as f64))
    }

    /// Lets the run go on past its script until its consequences settle (Play at
    /// the end does this; an intervention does it too).
    pub fn settle(&mut self) -> Result<(), JsError> {
        self.run()?.settle();
        Ok(())
    }

    #[cfg(not(feature = "first"))]
    /// How far the run goes and why, at the cursor: `{stop_at_ms, settling,
    /// pending: [{text, at_ms}], settled_since, ends_at_ms, quiet_since}` (sim/settle.rs;
    /// `quiet_since`: when what a user sees last changed, once nothing has for `QUIET_MS`).
    pub fn future(&mut self) -> Result<JsValue, JsError> {
        let run = self.run()?;
        let sim = run.sim();
        let pending: Vec<PendingInfo> =
            sim.pending().iter().map(|p| PendingInfo { text: crate::narrate::future::pending_text(sim, p), at_ms: p.at_ms() }).collect();
        let info = Future {
            stop_at_ms: sim.scenario.stop_at_ms,
            settling: run.is_settling(),
            pending,
            settled_since: sim.settled_since,
            ends_at_ms: (run.is_settling() && sim.settled_since.is_some()).then(|| sim.run_on_until()),
            quiet_since: (run.is_settling() && sim.quiet()).then_some(sim.last_change_ms),
        };
        to_js(&info)
    }

    /// Runs `steps` steps from a fresh start and returns how many ran (for benchmarks).
    #[cfg(not(feature = "first"))]
    #[wasm_bindgen(js_name = runSteps)]
    pub fn run_steps(&mut self, steps: f64) -> Result<f64, JsError> {
        let run = self.run()?;
        let mut fresh = Run::new(run.scenario().clone());
        let mut n = 0u64;
        while (n as f64) < steps && fresh.step() {
            n += 1;
        }
        Ok(n as f64)
    }
}

#[cfg(not(feature = "first"))]
json_record! {
    struct PendingInfo {
        text: String = "text", always;
        at_ms: Option<u64> = "at_ms", opt;
    }
}

#[cfg(not(feature = "first"))]
json_record! {
    struct Future {
        stop_at_ms: u64 = "stop_at_ms", always;
        settling: bool = "settling", always;
        pending: Vec<PendingInfo> = "pending", always;
        settled_since: Option<u64> = "settled_since", always;
        ends_at_ms: Option<u64> = "ends_at_ms", always;
        quiet_since: Option<u64> = "quiet_since", always;
    }
}

#[cfg(not(feature = "first"))]
json_record! {
    struct Builtin {
        name: &'static str = "name", always;
        title: String = "title", always;
        description: String = "description", always;
        json: &'static str = "json", always;
    }
}

/// The built-in scenarios: `[{name, title, description, json}]`. Not in the page's first
/// core: the page has each built-in's text from scripts/first-frame.mjs (www/pkg/first*).
#[cfg(not(feature = "first"))]
#[wasm_bindgen(js_name = builtinScenarios)]
pub fn builtin_scenarios() -> Result<JsValue, JsError> {
    let list: Vec<Builtin> = builtin::BUILTINS
        .iter()
        .map(|(name, json)| {
            let s = Scenario::from_json(json).ok();
            Builtin {
                name,
                title: s.as_ref().map(|s| s.title.clone()).unwrap_or_default(),
                description: s.map(|s| s.description).unwrap_or_default(),
                json,
            }
        })
        .collect();
    to_js(&list)
}

#[cfg(not(feature = "first"))]
json_record! {
    struct PresetInfo {
        name: &'static str = "name", always;
        description: &'static str = "description", always;
    }
}

/// The presets: `[{name, description}]`.
#[cfg(not(feature = "first"))]
#[wasm_bindgen]
pub fn presets() -> Result<JsValue, JsError> {
    let list: Vec<PresetInfo> = Preset::ALL.iter().map(|p| PresetInfo { name: p.name(), description: p.description() }).collect();
    to_js(&list)
}

/// Every `config` setting a scenario (JSON text) runs with:
/// `[{key, value, source, note, used}]`, `source` being "scenario", "preset" (a
/// default that changed between versions) or "default" (the same in every preset).
#[cfg(not(feature = "first"))]
#[wasm_bindgen(js_name = configInForce)]
pub fn config_in_force(scenario: &str) -> Result<JsValue, JsError> {
    let s = Scenario::from_json(scenario).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&s.config_in_force())
}

/// null if the scenario is valid, else "field: what is wrong".
#[cfg(not(feature = "first"))]
#[wasm_bindgen(js_name = validateScenario)]
pub fn validate_scenario(json: &str) -> Option<String> {
    Scenario::from_json(json).err().map(|e| e.to_string())
}

#[cfg(not(feature = "first"))]
json_record! {
    struct DecodedLink {
        scenario: String = "scenario", always;
        at: Option<u64> = "at", always;
        hash: Option<String> = "hash", always;
    }
}

/// Reads a share-link fragment: `{scenario (JSON text), at, hash}`, or throws an
/// Error that says what is wrong with the link.
#[cfg(not(feature = "first"))]
#[wasm_bindgen(js_name = decodeLink)]
pub fn decode_link(fragment: &str) -> Result<JsValue, JsError> {
    let l = link::decode(fragment).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&DecodedLink { scenario: l.scenario.to_json(), at: l.at, hash: l.hash })
}

/// The fragment for a scenario (JSON text), a step and a hash (either may be omitted).
#[cfg(not(feature = "first"))]
#[wasm_bindgen(js_name = encodeLink)]
pub fn encode_link(scenario: &str, at: Option<f64>, hash: Option<String>) -> Result<String, JsError> {
    let s = Scenario::from_json(scenario).map_err(|e| JsError::new(&e.to_string()))?;
    Ok(link::encode(&s, at.filter(|a| a.is_finite() && *a >= 0.0).map(|a| a as u64), hash.as_deref()))
}

/// Simulated events run in `millis` of wall time with narration and records off:
/// the same loop as `hwscope bench`, for the native/wasm ratio.
#[cfg(not(feature = "first"))]
#[wasm_bindgen(js_name = benchEvents)]
pub fn bench_events(scenario: &str, millis: f64) -> Result<f64, JsError> {
    let s = Scenario::from_json(scenario).map_err(|e| JsError::new(&e.to_string()))?;
    let start = js_sys::Date::now();
    Ok(crate::run::bench(&s, |_| js_sys::Date::now() - start < millis) as f64)
}

/// Reads a ```hwscope block's text for auto.js (docs/embedding.md): `{source,
/// builtin, scenario (JSON text), title, at, from, to, loop, autoplay, theme,
/// controls, height}`, or throws an Error naming what is wrong (the same
/// message `hwscope render-docs` and mdbook-hwscope give at build time).
/// Only documentation figures call it: scripts/build-wasm.sh leaves it out of
/// the page's `hwscope_bg.wasm` and keeps it in `hwscope_docs_bg.wasm`.
#[cfg(any(not(feature = "first"), feature = "docs"))]
#[wasm_bindgen(js_name = parseDocBlock)]
pub fn parse_doc_block(text: &str) -> Result<JsValue, JsError> {
    let block = crate::docblock::parse(text).and_then(|b| b.run_to_first().map(|_| b)).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&block)
}
