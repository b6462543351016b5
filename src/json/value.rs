//! A parsed JSON value: objects keep their keys as written (a repeated key
//! keeps its entries; the last one counts).

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// A whole number from 0 to `u64::MAX`.
    UInt(u64),
    /// A negative whole number from `i64::MIN`.
    Int(i64),
    /// Any other number, as its text is shown (`1.0`, `1000.0`, `1.5e+20`; see `float_text`).
    Float(String),
    String(String),
    Array(Vec<Value>),
    /// Entries as written. A repeated key keeps its entries; the last one counts.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// A whole number 0 or more (not `1.0`, not `-1`).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::UInt(n) => Some(n),
            _ => None,
        }
    }

    /// Whether this is a number past u64::MAX, told from the text the reader keeps
    /// (`float_text`: from 1e16 on, `d.ddde+N`, at most 17 significant digits) without
    /// reading it as a float (an f64 parse costs the page's core ~15 KB gzipped):
    /// positive, and past 18446744073709551615 (at 10^19 its digits are compared with
    /// u64::MAX's). A number within a rounding of u64::MAX that is not whole
    /// (`18446744073709551614.9`) shows as `1.8446744073709552e+19` and counts as past it.
    pub fn past_u64(&self) -> bool {
        // Bytes, not `str` methods: those would link Unicode tables into the page's core.
        let Value::Float(text) = self else { return false };
        let text = text.as_bytes();
        let Some(e) = text.iter().position(|&b| b == b'e') else { return false };
        let (Some(mantissa), Some(b'+'), Some(exp)) = (text.get(..e), text.get(e + 1), text.get(e + 2..)) else { return false };
        if mantissa.first() == Some(&b'-') {
            return false;
        }
        let exp = exp.iter().fold(0u32, |n, d| n.saturating_mul(10).saturating_add(u32::from(d.wrapping_sub(b'0'))));
        let digits = mantissa.iter().copied().filter(u8::is_ascii_digit).chain(std::iter::repeat(b'0')).take(20);
        match exp {
            0..=18 => false,
            19 => digits.gt(b"18446744073709551615".iter().copied()),
            _ => true,
        }
    }

    /// A whole number that fits in an i64 (not `1.0`).
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::UInt(n) => i64::try_from(n).ok(),
            Value::Int(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(entries) => lookup(entries, key),
            _ => None,
        }
    }
}

/// The value of `key` among an object's entries (the last one if the key is repeated).
pub fn lookup<'a>(entries: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
    entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}
