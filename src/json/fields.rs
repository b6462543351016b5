//! Field lists: a type's fields, their JSON keys, how each is read and when it
//! is written, declared once ([`json_struct!`], [`json_record!`]); and the typed
//! readers they use, each error naming the field's path
//! (`config.replica.fetch.wait.max.ms: must be a whole number 0 or more, got -1`).
//! Unknown keys are refused and no deserializer is generated per type (the
//! page's WebAssembly stays small).
//!
//! A field line reads `pub name: Type = "key", READ, WRITE;` where READ is
//! `required(reader)`, `or(default, reader)` or `opt(reader)` (absent is None),
//! a reader being a [`Reader`] function, `list(reader)` or `nullable(reader)`,
//! and WRITE is `always`, `opt` (left out when None), `nonempty` (left out when
//! `is_empty()`), `nonzero`, `nonfalse` or `nondefault`. A type declared `struct Name: Default` also gets
//! a `Default` built from the fields' defaults.

use super::value::{lookup, Value};
use std::fmt;

/// A value that cannot be read: the field's path, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        #[cfg(not(feature = "first"))]
        return FieldError { field: field.into(), message: message.into() };
        // The first cores keep no messages (`error_text!`): nothing is allocated
        // here, at each of the ~90 places an error is made, and `Display` says why.
        #[cfg(feature = "first")]
        {
            let _ = (field, message);
            FieldError { field: String::new(), message: String::new() }
        }
    }
}

/// The first core's one error text (`error_text!`).
#[cfg(all(feature = "first", not(feature = "docs")))]
const FIRST_CORE_READS_BUILTINS: &str = "the page's first core reads only the built-in scenarios";
/// The documentation figures' first core's one error text: www/embed/live.js asks the docs
/// core, which has every message, for the one to show.
#[cfg(all(feature = "first", feature = "docs"))]
const FIRST_CORE_READS_BUILTINS: &str = "the documentation figures' first core keeps no messages";

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        #[cfg(feature = "first")]
        return f.write_str(FIRST_CORE_READS_BUILTINS);
        #[cfg(not(feature = "first"))]
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for FieldError {}

/// An object's entries, as written.
pub type Fields = [(String, Value)];

/// What a reader returns.
pub type Read<T> = Result<T, FieldError>;

pub fn err<T>(field: &str, message: impl Into<String>) -> Read<T> {
    Err(FieldError::new(field, message))
}

/// `path.key` (just `key` at the top).
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        error_text!("{path}.{key}")
    }
}

/// A short rendering of a bad value or key for an error message.
pub fn shown(v: &Value) -> String {
    shorten(&v.to_string())
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        error_text!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// An object whose keys are all among `allowed`. Of several unknown keys, the
/// first in sorted order is named.
pub fn object<'a>(path: &str, v: &'a Value, allowed: &[&str]) -> Read<&'a Fields> {
    let Value::Object(map) = v else {
        return err(path, error_text!("must be an object, got {}", shown(v)));
    };
    if let Some(key) = map.iter().map(|(k, _)| k).filter(|k| !allowed.contains(&k.as_str())).min() {
        return err(&join(path, key), error_text!("unknown field `{}`, expected one of {}", shorten(key), allowed.join(", ")));
    }
    Ok(map)
}

/// A reader: a value at a path, or an error naming it. Readers are plain
/// functions, so that each reading helper is compiled once per type read.
pub type Reader<T> = fn(&str, &Value) -> Read<T>;

/// The value of `key` with its path (`path.key`), if present. (Kept apart from
/// the generic readers below so that each of them compiles to very little.)
fn entry<'a>(map: &'a Fields, path: &str, key: &str) -> Option<(String, &'a Value)> {
    lookup(map, key).map(|v| (join(path, key), v))
}

/// `key`, which must be present.
pub fn read_required<T>(map: &Fields, path: &str, key: &str, read: Reader<T>) -> Read<T> {
    match entry(map, path, key) {
        None => err(path, error_text!("missing field `{key}`")),
        Some((p, v)) => read(&p, v),
    }
}

/// `key`, or `default` when it is absent.
pub fn read_or<T>(map: &Fields, path: &str, key: &str, default: T, read: Reader<T>) -> Read<T> {
    match entry(map, path, key) {
        None => Ok(default),
        Some((p, v)) => read(&p, v),
    }
}

/// `key`, or None when it is absent.
pub fn read_opt<T>(map: &Fields, path: &str, key: &str, read: Reader<T>) -> Read<Option<T>> {
    match entry(map, path, key) {
        None => Ok(None),
        Some((p, v)) => read(&p, v).map(Some),
    }
}

pub fn uint(path: &str, v: &Value) -> Read<u64> {
    whole_up_to(path, v, u64::MAX)
}

/// A whole number from 0 to `max`. One past u64 comes from the JSON reader as a float's
/// text (`1e+20`), and is said to be too large, not to be no whole number
/// (`Value::past_u64` tells from the text alone).
fn whole_up_to(path: &str, v: &Value, max: u64) -> Read<u64> {
    match v.as_u64() {
        Some(n) if n <= max => Ok(n),
        Some(n) => err(path, error_text!("must be at most {max}, got {n}")),
        // The first core says nothing (`error_text!`): no need to look.
        #[cfg(not(feature = "first"))]
        None if v.past_u64() => err(path, error_text!("must be at most {max}, got {}", shown(v))),
        None => err(path, error_text!("must be a whole number 0 or more, got {}", shown(v))),
    }
}

pub fn int(path: &str, v: &Value) -> Read<i64> {
    v.as_i64().map_or_else(|| err(path, error_text!("must be a whole number, got {}", shown(v))), Ok)
}

pub fn u32_of(path: &str, v: &Value) -> Read<u32> {
    whole_up_to(path, v, u32::MAX.into()).map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// A u32-sized number kept as a u64.
pub fn u32_as_u64(path: &str, v: &Value) -> Read<u64> {
    u32_of(path, v).map(u64::from)
}

pub fn boolean(path: &str, v: &Value) -> Read<bool> {
    v.as_bool().map_or_else(|| err(path, error_text!("must be true or false, got {}", shown(v))), Ok)
}

pub fn string(path: &str, v: &Value) -> Read<String> {
    v.as_str().map_or_else(|| err(path, error_text!("must be a string, got {}", shown(v))), |s| Ok(s.to_string()))
}

pub fn array<'a>(path: &str, v: &'a Value) -> Read<&'a Vec<Value>> {
    v.as_array().map_or_else(|| err(path, error_text!("must be a list, got {}", shown(v))), Ok)
}

/// A list, each item read with `read` at `path[i]` (a field's reader: `list(read)`).
pub fn list<T>(path: &str, v: &Value, read: Reader<T>) -> Read<Vec<T>> {
    array(path, v)?.iter().enumerate().map(|(i, x)| read(&error_text!("{path}[{i}]"), x)).collect()
}

/// `null` as None, anything else read with `read` (a field's reader: `nullable(read)`).
pub fn nullable<T>(path: &str, v: &Value, read: Reader<T>) -> Read<Option<T>> {
    if v.is_null() {
        Ok(None)
    } else {
        read(path, v).map(Some)
    }
}

/// A name from a fixed list (presets and behaviour switch values).
pub trait Named: Sized + Copy + PartialEq + 'static {
    const ALL_NAMED: &'static [(&'static str, Self)];

    /// The name a value is written with: its first in `ALL_NAMED`.
    fn name(self) -> &'static str {
        Self::ALL_NAMED.iter().find(|(_, v)| *v == self).map_or("", |(n, _)| n)
    }

    fn parse(path: &str, v: &Value) -> Read<Self> {
        let name = v.as_str().unwrap_or("");
        match Self::ALL_NAMED.iter().find(|(n, _)| *n == name) {
            Some((_, value)) => Ok(*value),
            None => {
                let names: Vec<&str> = Self::ALL_NAMED.iter().map(|(n, _)| *n).collect();
                err(path, error_text!("must be one of {}, got {}", names.join(", "), shown(v)))
            }
        }
    }
}

/// `ToJson` for `Named` types: each value is written as its name.
macro_rules! json_by_name {
    ($($t:ty),*) => {
        $(impl $crate::json::ToJson for $t {
            fn write_json(&self, out: &mut String) {
                $crate::json::write_str(out, $crate::json::Named::name(*self));
            }
        })*
    };
}

/// Declares a type that is only written: the struct, and its `ToJson` from the
/// field list (fields in order, each `always`, `opt`, `nonempty`, `nonzero` or `nonfalse`).
macro_rules! json_record {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty = $key:literal, $write:ident; )*
        }
    ) => {
        $(#[$meta])*
        $vis struct $name { $( $(#[$fmeta])* $fvis $field: $ty, )* }

        $crate::json::json_write! { $name { $( $field: $key, $write; )* } }
    };
}

/// `ToJson` from a field list, for a type declared elsewhere.
macro_rules! json_write {
    ($name:ident { $( $field:ident : $key:literal, $write:ident; )* }) => {
        impl $crate::json::ToJson for $name {
            fn write_json(&self, out: &mut String) {
                let mut o = $crate::json::Obj::new(out);
                $( $crate::json::json_write!(@field o, self, $field, $key, $write); )*
                o.end();
            }
        }
    };
    (@field $o:ident, $s:ident, $field:ident, $key:literal, always) => { $o.field($key, &$s.$field) };
    (@field $o:ident, $s:ident, $field:ident, $key:literal, opt) => { $o.opt($key, &$s.$field) };
    (@field $o:ident, $s:ident, $field:ident, $key:literal, nonempty) => { $o.field_if(!$s.$field.is_empty(), $key, &$s.$field) };
    (@field $o:ident, $s:ident, $field:ident, $key:literal, nonzero) => { $o.field_if($s.$field != 0, $key, &$s.$field) };
    (@field $o:ident, $s:ident, $field:ident, $key:literal, nonfalse) => { $o.field_if($s.$field, $key, &$s.$field) };
    (@field $o:ident, $s:ident, $field:ident, $key:literal, nondefault) => { $o.field_if($s.$field != Default::default(), $key, &$s.$field) };
}

/// Declares a type that is read and written: the struct, `KEYS`, `read` (an
/// object, fields read in order, unknown keys refused) and `ToJson`; with
/// `: Default`, a `Default` from the fields' defaults.
macro_rules! json_struct {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(: $default:ident)? {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty = $key:literal, $read:ident ( $($rarg:tt)* ), $write:ident; )*
        }
    ) => {
        $crate::json::json_record! {
            $(#[$meta])*
            $vis struct $name { $( $(#[$fmeta])* $fvis $field: $ty = $key, $write; )* }
        }

        impl $name {
            /// The keys its JSON object may have, in the order they are written.
            pub const KEYS: &'static [&'static str] = &[$($key),*];

            /// Reads one from the object at `path`: each error names its field.
            pub fn read(path: &str, v: &$crate::json::Value) -> $crate::json::Read<Self> {
                let map = $crate::json::object(path, v, Self::KEYS)?;
                Ok($name { $( $field: $crate::json::json_struct!(@read map, path, $key, $read($($rarg)*)), )* })
            }
        }

        $crate::json::json_struct!(@default [$($default)?] $name { $( $field: $read($($rarg)*); )* });
    };
    (@read $map:ident, $path:ident, $key:literal, required($r:expr)) => { $crate::json::read_required($map, $path, $key, $r)? };
    (@read $map:ident, $path:ident, $key:literal, or($d:expr, list($r:expr))) => {
        $crate::json::read_or($map, $path, $key, $d, |p, v| $crate::json::list(p, v, $r))?
    };
    (@read $map:ident, $path:ident, $key:literal, or($d:expr, nullable($r:expr))) => {
        $crate::json::read_or($map, $path, $key, $d, |p, v| $crate::json::nullable(p, v, $r))?
    };
    (@read $map:ident, $path:ident, $key:literal, or($d:expr, $r:expr)) => { $crate::json::read_or($map, $path, $key, $d, $r)? };
    (@read $map:ident, $path:ident, $key:literal, opt($r:expr)) => { $crate::json::read_opt($map, $path, $key, $r)? };
    (@default [] $name:ident { $($rest:tt)* }) => {};
    (@default [Default] $name:ident { $( $field:ident : $read:ident ( $($rarg:tt)* ); )* }) => {
        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $crate::json::json_struct!(@value $read($($rarg)*)), )* }
            }
        }
    };
    (@value or($d:expr, $r:expr)) => { $d };
    (@value opt($r:expr)) => { None };
}

pub(crate) use {json_by_name, json_record, json_struct, json_write};
