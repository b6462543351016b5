//! The writer: compact JSON with serde_json's escaping and number forms.
//! [`Value`]'s `Display` writes object keys sorted, as serde_json's map did, so
//! re-serialized values are unchanged.

use super::value::Value;
use std::fmt;

/// Compact JSON, object keys sorted and each written once (serde_json's map order).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&to_string(self))
    }
}

/// A value that writes itself as compact JSON.
pub trait ToJson {
    fn write_json(&self, out: &mut String);

    /// True for `None`: [`Obj::opt`] leaves such fields out.
    fn is_none(&self) -> bool {
        false
    }
}

/// Compact JSON text of a value.
pub fn to_string(value: &dyn ToJson) -> String {
    let mut out = String::new();
    value.write_json(&mut out);
    out
}

/// Writes `{"key":value,...}`: one call per field, in order, then [`Obj::end`].
/// Keys are written as given: they are literals without quotes or control characters.
pub struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Obj<'a> {
    pub fn new(out: &'a mut String) -> Obj<'a> {
        out.push('{');
        Obj { out, first: true }
    }

    pub fn field(&mut self, key: &str, value: &dyn ToJson) -> &mut Self {
        self.key(key);
        value.write_json(self.out);
        self
    }

    /// The field unless its value is `None` (serde's `skip_serializing_if = "Option::is_none"`).
    pub fn opt(&mut self, key: &str, value: &dyn ToJson) -> &mut Self {
        if !value.is_none() {
            self.field(key, value);
        }
        self
    }

    /// The field only when `keep` holds (skipping empty lists, zeros, empty strings).
    pub fn field_if(&mut self, keep: bool, key: &str, value: &dyn ToJson) -> &mut Self {
        if keep {
            self.field(key, value);
        }
        self
    }

    pub fn end(&mut self) {
        self.out.push('}');
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
    }
}

/// A JSON string: `"` and `\` escaped, control characters as `\n`, `\t`, `\r`,
/// `\b`, `\f` or `\u00XX`; `/` and non-ASCII characters as they are.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\t' => "\\t",
            b'\r' => "\\r",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        // Runs end at ASCII bytes (whole characters): `get` has no panic path to link.
        out.push_str(s.get(start..i).unwrap_or_default());
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
}

/// `text` between `quote`s as Rust's `{:?}` writes a `str` (`'"'`) or a `char`
/// (`'\''`), for what an error message quotes: the quote, `\\`, `\n`, `\r`, `\t`,
/// `\0` escaped, other control characters as `\u{7f}`, the rest as it is (where
/// `Debug` also escapes unprintable Unicode). Messages use it instead of `Debug`,
/// whose escaping tables the page's WebAssembly then need not carry.
pub fn quoted(text: &str, quote: char) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {
                out.push_str("\\u{");
                write_u64_hex(&mut out, c as u64);
                out.push('}');
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn write_u64_hex(out: &mut String, n: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digits = (64 - n.leading_zeros()).div_ceil(4).max(1);
    for i in (0..digits).rev() {
        out.push(HEX[((n >> (4 * i)) & 15) as usize] as char);
    }
}

/// A whole number in decimal.
pub fn write_u64(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(d as char);
    }
}

/// A whole number in decimal, with `-` when negative.
pub fn write_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    write_u64(out, n.unsigned_abs());
}

/// A float in serde_json's layout (`null` when not finite), with the shortest digits
/// that read back (Rust's; the last digit of a tie may differ from serde_json's).
/// Only the CLI writes floats: the page's WebAssembly does not contain this.
pub fn write_f64(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    // `{:e}` gives the shortest digits that read back as `x`: "-1.25e-10".
    let text = format!("{x:e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let negative = mantissa.starts_with('-');
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let mut digits = &digits[..];
    while let [rest @ .., b'0'] = digits {
        digits = rest;
    }
    write_number(out, negative, digits, exp.parse().unwrap_or(0));
}

/// Writes ±d.ddd×10^sci as serde_json did (its float printer `zmij`): plain notation
/// for exponents -5 to 15 (`1000.0`, `0.00012`), else `1.5e+20`, `1e-7`. `digits` are
/// significant (no leading or trailing zeros); empty means zero.
pub(super) fn write_number(out: &mut String, negative: bool, digits: &[u8], sci: i64) {
    if negative {
        out.push('-');
    }
    let push = |out: &mut String, d: &[u8]| d.iter().for_each(|&c| out.push(c as char));
    let n = digits.len() as i64;
    if digits.is_empty() {
        out.push_str("0.0");
    } else if (-5..=15).contains(&sci) {
        if n - 1 <= sci {
            push(out, digits);
            (0..sci + 1 - n).for_each(|_| out.push('0'));
            out.push_str(".0");
        } else if sci >= 0 {
            let (int, frac) = digits.split_at(sci as usize + 1);
            push(out, int);
            out.push('.');
            push(out, frac);
        } else {
            out.push_str("0.");
            (0..-sci - 1).for_each(|_| out.push('0'));
            push(out, digits);
        }
    } else {
        out.push(digits[0] as char);
        if n > 1 {
            out.push('.');
            push(out, &digits[1..]);
        }
        out.push_str(if sci < 0 { "e-" } else { "e+" });
        write_u64(out, sci.unsigned_abs());
    }
}

impl ToJson for Value {
    fn write_json(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => b.write_json(out),
            Value::UInt(n) => write_u64(out, *n),
            Value::Int(n) => write_i64(out, *n),
            Value::Float(text) => out.push_str(text),
            Value::String(s) => write_str(out, s),
            Value::Array(items) => items.write_json(out),
            Value::Object(entries) => {
                // Sorted by key, then as written: of a repeated key only the last entry.
                let mut sorted: Vec<(&String, usize, &Value)> = entries.iter().enumerate().map(|(i, (k, v))| (k, i, v)).collect();
                crate::sort::sort_by(&mut sorted, |a, b| (a.0, a.1) < (b.0, b.1));
                out.push('{');
                let mut first = true;
                for (i, &(k, _, v)) in sorted.iter().enumerate() {
                    if sorted.get(i + 1).is_some_and(|next| next.0 == k) {
                        continue;
                    }
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    write_str(out, k);
                    out.push(':');
                    v.write_json(out);
                }
                out.push('}');
            }
        }
    }
}

/// Scalars, each written by one of the writers above.
macro_rules! scalar_to_json {
    ($($t:ty => $write:expr),* $(,)?) => {
        $(impl ToJson for $t {
            fn write_json(&self, out: &mut String) {
                ($write)(out, self)
            }
        })*
    };
}

scalar_to_json! {
    bool => |out: &mut String, v: &bool| out.push_str(if *v { "true" } else { "false" }),
    u64 => |out, v: &u64| write_u64(out, *v),
    u32 => |out, v: &u32| write_u64(out, u64::from(*v)),
    usize => |out, v: &usize| write_u64(out, *v as u64),
    i64 => |out, v: &i64| write_i64(out, *v),
    i32 => |out, v: &i32| write_i64(out, i64::from(*v)),
    // Only the CLI writes floats (see `write_f64`).
    f64 => |out, v: &f64| write_f64(out, *v),
    str => |out, v: &str| write_str(out, v),
    String => |out, v: &String| write_str(out, v),
}

/// A reference writes what it points to (`&str` fields among them).
impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }

    fn is_none(&self) -> bool {
        (**self).is_none()
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(v) => v.write_json(out),
            None => out.push_str("null"),
        }
    }

    fn is_none(&self) -> bool {
        self.is_none()
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut String) {
        write_items(out, self.len(), &|i, out| self[i].write_json(out));
    }
}

/// `[item 0,item 1,…]`, one loop for every element type: generic, it was copied
/// (with each element's writer inlined) for every list a record has, ~10 KB of
/// the page's WebAssembly (`twiggy monos`).
#[inline(never)]
fn write_items(out: &mut String, len: usize, item: &dyn Fn(usize, &mut String)) {
    out.push('[');
    for i in 0..len {
        if i > 0 {
            out.push(',');
        }
        item(i, out);
    }
    out.push(']');
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

impl<T: ToJson, const N: usize> ToJson for [T; N] {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

/// A pair as a two-element array, as serde wrote tuples.
impl<A: ToJson, B: ToJson> ToJson for (A, B) {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        self.0.write_json(out);
        out.push(',');
        self.1.write_json(out);
        out.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::quoted;

    /// `quoted` writes what `{:?}` writes for everything but unprintable Unicode.
    #[test]
    fn quoted_is_debug_for_what_messages_quote() {
        for s in ["", "v2", "abc…", "a\"b", "it's", "back\\slash", "new\nline\r\ttab", "nul\0", "bell\u{7}del\u{7f}", "é日本"] {
            assert_eq!(quoted(s, '"'), format!("{s:?}"), "{s}");
        }
        for c in ['!', '\'', '"', '\\', '\n', '\u{1}', 'é', ' '] {
            assert_eq!(quoted(c.encode_utf8(&mut [0; 4]), '\''), format!("{c:?}"), "{c}");
        }
    }
}
