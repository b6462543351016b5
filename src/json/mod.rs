//! A small JSON layer in place of serde_json (which was a large part of the
//! page's WebAssembly): a parsed [`Value`] (`value.rs`), a parser whose error
//! texts match serde_json's (`read.rs`), a compact writer with serde_json's
//! escaping and number forms (`write.rs`), and field lists that declare a type's
//! JSON once for both its reader and its writer (`fields.rs`).

mod fields;
mod read;
mod value;
mod write;

pub use fields::{
    array, boolean, err, int, join, list, nullable, object, read_opt, read_or, read_required, shown, string, u32_as_u64, u32_of, uint,
    FieldError, Fields, Named, Read,
};
pub(crate) use fields::{json_by_name, json_record, json_struct, json_write};
pub use read::{parse, JsonError};
pub use value::{lookup, Value};
pub use write::{quoted, to_string, write_f64, write_i64, write_str, write_u64, Obj, ToJson};
