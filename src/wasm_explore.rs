//! The explorer's browser facade: a search the page's Web Worker drives in
//! slices (`run(budget)`), reporting progress between them; the result as the
//! same JSON the command line prints with `--json`. No search logic here.

use crate::check::{Config, Finished, Options, Search, Simulation};
use crate::json;
use crate::wasm::{json_text, text_to_js};
use crate::Scenario;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Explorer {
    search: Search,
    config: Config,
    scenario: Scenario,
}

#[wasm_bindgen]
impl Explorer {
    /// A search of `scenario` (object or JSON text) with `options` (see
    /// `check/options.rs`; `{}` for the defaults). Throws an Error naming a bad field.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario: JsValue, options: JsValue) -> Result<Explorer, JsError> {
        let scenario = Scenario::from_json(&json_text(&scenario)?).map_err(|e| JsError::new(&e.to_string()))?;
        let options = if options.is_undefined() || options.is_null() { "{}".to_string() } else { json_text(&options)? };
        let config = Options::from_json(&options).and_then(|o| o.config()).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Explorer { search: Search::new(config.clone(), &scenario), config, scenario })
    }

    /// Explores up to `budget` transitions: `{explored, distinct, queued, depth, pruned, memory_bytes, peak_bytes, done}`.
    pub fn run(&mut self, budget: f64) -> Result<JsValue, JsError> {
        let budget = if budget.is_finite() && budget >= 1.0 { budget as u64 } else { 1 };
        let progress = self.search.run(budget);
        text_to_js(&json::to_string(&progress))
    }

    /// The bounds in words, exactly as they are searched.
    pub fn bounds(&self) -> String {
        crate::check::describe_bounds(&self.config, &self.scenario)
    }

    /// The verdict, counts, and the counterexample (its scenario, link and "why" chain), once done.
    pub fn result(&self) -> Result<JsValue, JsError> {
        text_to_js(&Finished::from_search(&self.search).to_json(&self.config, &self.scenario, &[]))
    }
}

/// Seeded random walks (`check::simulate`), driven in slices like `Explorer`.
#[wasm_bindgen]
pub struct Simulator {
    simulation: Simulation,
    scenario: Scenario,
}

#[wasm_bindgen]
impl Simulator {
    /// Random walks over `scenario` with `options` (as `Explorer`'s, plus `seed` and
    /// `walks`). Throws an Error naming a bad field.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario: JsValue, options: JsValue) -> Result<Simulator, JsError> {
        let scenario = Scenario::from_json(&json_text(&scenario)?).map_err(|e| JsError::new(&e.to_string()))?;
        let options = if options.is_undefined() || options.is_null() { "{}".to_string() } else { json_text(&options)? };
        let options = Options::from_json(&options).map_err(|e| JsError::new(&e.to_string()))?;
        let config = options.config().map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Simulator { simulation: Simulation::new(config, &scenario, options.seed, options.walks), scenario })
    }

    /// Walks until about `budget` steps have been taken: `{walks, steps, deepest, finished, done}`.
    pub fn run(&mut self, budget: f64) -> Result<JsValue, JsError> {
        let budget = if budget.is_finite() && budget >= 1.0 { budget as u64 } else { 1 };
        let progress = self.simulation.run(budget);
        text_to_js(&json::to_string(&progress))
    }

    /// The ranges each walk draws from, in words.
    pub fn bounds(&self) -> String {
        self.simulation.describe(&self.scenario)
    }

    /// The verdict, counts, and a found walk shrunk (its scenario, link, seed and "why" chain).
    pub fn result(&self) -> Result<JsValue, JsError> {
        text_to_js(&self.simulation.to_json(&self.scenario, &[]))
    }
}
