//! A search's setup as JSON, for the page (the CLI reads flags): every key
//! optional, unknown keys refused, each error naming its field.
//!
//! `{"property":"any","allowed":false,"max_depth":28,"faults":3,"records":0,
//!   "unflushed":0,"cuts":true,"one_way":false,
//!   "controller_cuts":false,"client_cuts":false,"catch":0,"epochs":null,"max_time_ms":null,
//!   "max_states":null,"memory_mb":1024,"drop_faults":true,"symmetry":true,
//!   "seed":1,"walks":null}` (`seed` and `walks`: the simulation's, `check::simulate`)

use super::{Bounds, Config, FaultMenu, Target};
use crate::json::{self, boolean, err, json_struct, string, u32_of, uint, Read, Value};
use crate::scenario::ScenarioError;

json_struct! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Options: Default {
        pub property: String = "property", or("any".to_string(), string), always;
        pub allowed: bool = "allowed", or(false, boolean), always;
        pub max_depth: u32 = "max_depth", or(28, u32_of), always;
        pub faults: u32 = "faults", or(3, u32_of), always;
        pub records: u32 = "records", or(0, u32_of), always;
        pub unflushed: u32 = "unflushed", or(0, u32_of), always;
        pub cuts: bool = "cuts", or(true, boolean), always;
        pub one_way: bool = "one_way", or(false, boolean), always;
        pub controller_cuts: bool = "controller_cuts", or(false, boolean), always;
        pub client_cuts: bool = "client_cuts", or(false, boolean), always;
        pub catch: u32 = "catch", or(0, u32_of), always;
        pub epochs: Option<u32> = "epochs", or(None, nullable(u32_of)), opt;
        pub max_time_ms: Option<u64> = "max_time_ms", or(None, nullable(uint)), opt;
        pub max_states: Option<u64> = "max_states", or(None, nullable(uint)), opt;
        pub memory_mb: u64 = "memory_mb", or(1024, uint), always;
        pub drop_faults: bool = "drop_faults", or(true, boolean), always;
        pub symmetry: bool = "symmetry", or(true, boolean), always;
        /// Simulation only (`Simulation`): the first walk's seed, and how many walks at most.
        pub seed: u64 = "seed", or(1, uint), always;
        pub walks: Option<u64> = "walks", or(None, nullable(uint)), opt;
    }
}

fn small(path: &str, v: u32, max: u32) -> Read<u8> {
    if v > max {
        return err(path, format!("must be between 0 and {max}, got {v}"));
    }
    Ok(v as u8)
}

impl Options {
    /// Reads the options from JSON text (`{}` gives the defaults).
    pub fn from_json(text: &str) -> Result<Options, ScenarioError> {
        let value = json::parse(text).map_err(|e| ScenarioError::new("options", format!("not valid JSON: {e}")))?;
        if !matches!(value, Value::Object(_)) {
            return err("options", "must be a JSON object");
        }
        Options::read("options", &value)
    }

    /// The search's setup these options describe.
    pub fn config(&self) -> Result<Config, ScenarioError> {
        let properties = super::Target::parse(&self.property).ok_or_else(|| {
            ScenarioError::new("options.property", format!("must be any, {}, got {:?}", super::PROPERTIES.join(", "), self.property))
        })?;
        if !(1..=200).contains(&self.max_depth) {
            return err("options.max_depth", format!("must be between 1 and 200, got {}", self.max_depth));
        }
        if !(1..=1 << 20).contains(&self.memory_mb) {
            return err("options.memory_mb", format!("must be between 1 and 1048576, got {}", self.memory_mb));
        }
        Ok(Config {
            bounds: Bounds {
                max_depth: self.max_depth,
                faults: small("options.faults", self.faults, 20)?,
                records: small("options.records", self.records, 20)?,
                leader_epochs: self.epochs,
                max_time_ms: self.max_time_ms,
                max_states: self.max_states,
                memory_bytes: Some(self.memory_mb << 20),
            },
            menu: FaultMenu {
                crash: true,
                restart: true,
                cut: self.cuts,
                one_way: self.one_way,
                controller: self.controller_cuts,
                clients: self.client_cuts,
                catch: small("options.catch", self.catch, 4)?,
                unflushed: small("options.unflushed", self.unflushed, 20)?,
            },
            target: Target { properties, allowed: self.allowed },
            symmetry: self.symmetry,
            drop_faults: self.drop_faults,
        })
    }
}
