//! A small JSON layer in place of serde_json (which was a large part of the
//! page's WebAssembly): a parsed [`Value`] (`value.rs`), a parser whose error
//! texts match serde_json's (`read.rs`), and a compact writer with serde_json's
//! escaping and number forms (`write.rs`).

mod read;
mod value;
mod write;

pub use read::{parse, JsonError};
pub use value::{lookup, Value};
pub use write::{to_string, write_f64, write_i64, write_str, write_u64, Obj, ToJson};
