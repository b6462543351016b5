//! A small JSON layer in place of serde_json (which was a large part of the
//! page's WebAssembly): a parsed [`Value`], a parser whose error texts match
//! serde_json's ("EOF while parsing an object at line 1 column 11"), and a
//! compact writer with serde_json's escaping and number forms.
//!
//! Objects keep their keys as written; [`Value`]'s `Display` writes them sorted,
//! as serde_json's map did, so re-serialized values are unchanged.

use std::fmt;

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

/// Compact JSON, object keys sorted and each written once (serde_json's map order).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&to_string(self))
    }
}

// ---------------------------------------------------------------------------
// Writing

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
        out.push_str(&s[start..i]);
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
    out.push_str(&s[start..]);
    out.push('"');
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
fn write_number(out: &mut String, negative: bool, digits: &[u8], sci: i64) {
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
                sorted.sort_unstable_by(|a, b| a.0.cmp(b.0).then(a.1.cmp(&b.1)));
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
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.write_json(out);
        }
        out.push(']');
    }
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

// ---------------------------------------------------------------------------
// Parsing

/// Deeper input is refused (serde_json's limit: 127 nested arrays or objects).
const MAX_DEPTH: u32 = 127;

/// A syntax error: what was expected and where (1-based line; byte column, as serde_json).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub message: &'static str,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {} column {}", self.message, self.line, self.column)
    }
}

impl std::error::Error for JsonError {}

const EOF_VALUE: &str = "EOF while parsing a value";
const EOF_LIST: &str = "EOF while parsing a list";
const EOF_OBJECT: &str = "EOF while parsing an object";
const EOF_STRING: &str = "EOF while parsing a string";
const EXPECTED_COLON: &str = "expected `:`";
const EXPECTED_LIST_END: &str = "expected `,` or `]`";
const EXPECTED_OBJECT_END: &str = "expected `,` or `}`";
const EXPECTED_IDENT: &str = "expected ident";
const EXPECTED_VALUE: &str = "expected value";
const INVALID_ESCAPE: &str = "invalid escape";
const INVALID_NUMBER: &str = "invalid number";
const OUT_OF_RANGE: &str = "number out of range";
const CONTROL_CHARACTER: &str = "control character (\\u0000-\\u001F) found while parsing a string";
const KEY_NOT_STRING: &str = "key must be a string";
const LONE_SURROGATE: &str = "lone leading surrogate in hex escape";
const TRAILING_COMMA: &str = "trailing comma";
const TRAILING_CHARACTERS: &str = "trailing characters";
const HEX_ESCAPE_END: &str = "unexpected end of hex escape";
const TOO_DEEP: &str = "recursion limit exceeded";

/// Parses one JSON value (RFC 8259; whitespace around it allowed, nothing else).
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut p = Parser { text, bytes: text.as_bytes(), i: 0, depth: 0 };
    let value = p.value()?;
    match p.skip_space() {
        Some(_) => Err(p.peek_error(TRAILING_CHARACTERS)),
        None => Ok(value),
    }
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// The next byte to read.
    i: usize,
    depth: u32,
}

impl Parser<'_> {
    /// An error at the byte before `i` (the one just read), as serde_json places it.
    fn error(&self, message: &'static str) -> JsonError {
        self.error_at(self.i, message)
    }

    /// An error at the byte `i` (looked at, not read).
    fn peek_error(&self, message: &'static str) -> JsonError {
        self.error_at((self.i + 1).min(self.bytes.len()), message)
    }

    fn error_at(&self, i: usize, message: &'static str) -> JsonError {
        let before = &self.bytes[..i];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let line = 1 + before[..line_start].iter().filter(|&&b| b == b'\n').count();
        JsonError { message, line, column: i - line_start }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    fn skip_space(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
        self.peek()
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        let Some(b) = self.skip_space() else {
            return Err(self.peek_error(EOF_VALUE));
        };
        match b {
            b'n' => self.word("null", Value::Null),
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'-' => {
                self.i += 1;
                self.number(true)
            }
            b'0'..=b'9' => self.number(false),
            b'"' => {
                self.i += 1;
                self.string().map(Value::String)
            }
            b'[' | b'{' => {
                if self.depth == MAX_DEPTH {
                    return Err(self.peek_error(TOO_DEEP));
                }
                self.depth += 1;
                self.i += 1;
                let value = if b == b'[' { self.array() } else { self.object() }?;
                self.depth -= 1;
                Ok(value)
            }
            _ => Err(self.peek_error(EXPECTED_VALUE)),
        }
    }

    fn word(&mut self, word: &str, value: Value) -> Result<Value, JsonError> {
        self.i += 1;
        for &want in &word.as_bytes()[1..] {
            match self.next() {
                None => return Err(self.error(EOF_VALUE)),
                Some(b) if b != want => return Err(self.error(EXPECTED_IDENT)),
                Some(_) => {}
            }
        }
        Ok(value)
    }

    /// After `[`.
    fn array(&mut self) -> Result<Value, JsonError> {
        let mut items = Vec::new();
        loop {
            match self.skip_space() {
                None => return Err(self.peek_error(EOF_LIST)),
                Some(b']') => break,
                Some(b) if !items.is_empty() => {
                    if b != b',' {
                        return Err(self.peek_error(EXPECTED_LIST_END));
                    }
                    self.i += 1;
                    match self.skip_space() {
                        Some(b']') => return Err(self.peek_error(TRAILING_COMMA)),
                        None => return Err(self.peek_error(EOF_VALUE)),
                        Some(_) => {}
                    }
                }
                Some(_) => {}
            }
            items.push(self.value()?);
        }
        self.i += 1;
        Ok(Value::Array(items))
    }

    /// After `{`.
    fn object(&mut self) -> Result<Value, JsonError> {
        let mut entries = Vec::new();
        loop {
            match self.skip_space() {
                None => return Err(self.peek_error(EOF_OBJECT)),
                Some(b'}') => break,
                Some(b) if !entries.is_empty() => {
                    if b != b',' {
                        return Err(self.peek_error(EXPECTED_OBJECT_END));
                    }
                    self.i += 1;
                    match self.skip_space() {
                        Some(b'"') => {}
                        Some(b'}') => return Err(self.peek_error(TRAILING_COMMA)),
                        Some(_) => return Err(self.peek_error(KEY_NOT_STRING)),
                        None => return Err(self.peek_error(EOF_VALUE)),
                    }
                }
                Some(b'"') => {}
                Some(_) => return Err(self.peek_error(KEY_NOT_STRING)),
            }
            self.i += 1;
            let key = self.string()?;
            match self.skip_space() {
                Some(b':') => self.i += 1,
                Some(_) => return Err(self.peek_error(EXPECTED_COLON)),
                None => return Err(self.peek_error(EOF_OBJECT)),
            }
            entries.push((key, self.value()?));
        }
        self.i += 1;
        Ok(Value::Object(entries))
    }

    /// After the opening `"`.
    fn string(&mut self) -> Result<String, JsonError> {
        let mut out = String::new();
        let mut start = self.i;
        loop {
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            let Some(b) = self.next() else {
                return Err(self.error(EOF_STRING));
            };
            // Runs end at ASCII bytes, so they are whole UTF-8 characters.
            out.push_str(&self.text[start..self.i - 1]);
            match b {
                b'"' => return Ok(out),
                b'\\' => self.escape(&mut out)?,
                _ => return Err(self.error(CONTROL_CHARACTER)),
            }
            start = self.i;
        }
    }

    /// After a `\` in a string.
    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        let Some(b) = self.next() else {
            return Err(self.error(EOF_STRING));
        };
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => self.unicode_escape()?,
            _ => return Err(self.error(INVALID_ESCAPE)),
        };
        out.push(c);
        Ok(())
    }

    /// After `\u`: one character, or a surrogate pair `\uD83D\uDE00`.
    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let high = self.hex4()?;
        if !(0xD800..=0xDBFF).contains(&high) {
            // A trailing surrogate alone is refused; anything else is a character.
            return char::from_u32(high).ok_or_else(|| self.error(LONE_SURROGATE));
        }
        for want in [b'\\', b'u'] {
            match self.next() {
                None => return Err(self.error(EOF_STRING)),
                Some(b) if b != want => return Err(self.error(HEX_ESCAPE_END)),
                Some(_) => {}
            }
        }
        let low = self.hex4()?;
        if !(0xDC00..=0xDFFF).contains(&low) {
            return Err(self.error(LONE_SURROGATE));
        }
        char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)).ok_or_else(|| self.error(LONE_SURROGATE))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let Some(four) = self.bytes.get(self.i..self.i + 4) else {
            self.i = self.bytes.len();
            return Err(self.error(EOF_STRING));
        };
        self.i += 4;
        let mut n = 0;
        for &b in four {
            let d = (b as char).to_digit(16).ok_or_else(|| self.error(INVALID_ESCAPE))?;
            n = n * 16 + d;
        }
        Ok(n)
    }

    /// A number (after its `-`, if any), with serde_json's checks and error positions.
    fn number(&mut self, negative: bool) -> Result<Value, JsonError> {
        let start = self.i;
        match self.next() {
            None => return Err(self.error(EOF_VALUE)),
            Some(b'0') => {
                if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(self.peek_error(INVALID_NUMBER));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            Some(_) => return Err(self.error(INVALID_NUMBER)),
        }
        let int = start..self.i;
        let mut frac = self.i..self.i;
        if self.peek() == Some(b'.') {
            self.i += 1;
            let from = self.i;
            self.digits();
            if self.i == from {
                let message = if self.peek().is_some() { INVALID_NUMBER } else { EOF_VALUE };
                return Err(self.peek_error(message));
            }
            frac = from..self.i;
        }
        let has_exp = matches!(self.peek(), Some(b'e' | b'E'));
        if frac.is_empty() && !has_exp {
            if let Some(n) = whole_number(&self.bytes[int.clone()], negative) {
                return Ok(n);
            }
        }
        let mut digits: Vec<u8> = self.bytes[int].iter().chain(&self.bytes[frac.clone()]).copied().collect();
        let mut exp: i64 = 0;
        if has_exp {
            self.i += 1;
            let negative_exp = self.peek() == Some(b'-');
            if matches!(self.peek(), Some(b'-' | b'+')) {
                self.i += 1;
            }
            match self.next() {
                None => return Err(self.error(EOF_VALUE)),
                Some(d @ b'0'..=b'9') => exp = (d - b'0') as i64,
                Some(_) => return Err(self.error(INVALID_NUMBER)),
            }
            while let Some(d @ b'0'..=b'9') = self.peek() {
                self.i += 1;
                exp = exp * 10 + (d - b'0') as i64;
                if exp > i32::MAX as i64 {
                    // serde_json's exponent is an i32: past it, out of range or zero.
                    if !negative_exp && digits.iter().any(|&d| d != b'0') {
                        return Err(self.error(OUT_OF_RANGE));
                    }
                    self.digits();
                    digits.clear();
                    break;
                }
            }
            if negative_exp {
                exp = -exp;
            }
        }
        float_text(negative, &digits, exp - frac.len() as i64).map(Value::Float).ok_or_else(|| self.error(OUT_OF_RANGE))
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
    }
}

/// An integer that fits (-0 and others beyond 64 bits are floats, as in serde_json).
fn whole_number(digits: &[u8], negative: bool) -> Option<Value> {
    let mut n: u64 = 0;
    for &d in digits {
        n = n.checked_mul(10)?.checked_add((d - b'0') as u64)?;
    }
    match (negative, n) {
        (false, n) => Some(Value::UInt(n)),
        (true, 0) => None,
        (true, n) => 0i64.checked_sub_unsigned(n).map(Value::Int),
    }
}

/// How serde_json printed a number that is not a 64-bit integer (the f64 it read,
/// in its shortest form); None when that is infinite. `digits` × 10^`exp` is the
/// number as written.
///
/// Numbers of up to 15 significant digits with an exponent within ±22 are read
/// exactly, so their shortest form is their own digits: these print as before.
/// Longer ones are rounded to 17 significant digits, the most an f64 needs, without
/// the binary round trip (which would add kilobytes to the page): their text may
/// differ from serde_json's in the last digits (`0.1000000000000000055511` now
/// shows as `0.10000000000000001`, was `0.1`). Only error messages show such numbers.
fn float_text(negative: bool, digits: &[u8], exp: i64) -> Option<String> {
    let mut out = String::new();
    let (Some(first), Some(last)) = (digits.iter().position(|&d| d != b'0'), digits.iter().rposition(|&d| d != b'0')) else {
        write_number(&mut out, negative, &[], 0);
        return Some(out);
    };
    // The number is d.ddd × 10^sci.
    let sci = exp.saturating_add((digits.len() - 1 - first) as i64);
    let significant = &digits[first..=last];
    if sci > 308 || (sci == 308 && significant > b"17976931348623157".as_slice()) {
        return None;
    }
    if sci < -324 {
        write_number(&mut out, negative, &[], 0);
        return Some(out);
    }
    let (shown, sci) = rounded(significant, sci);
    write_number(&mut out, negative, &shown, sci);
    Some(out)
}

/// Significant `digits` (d.ddd × 10^sci) rounded half up to 17, trailing zeros dropped.
fn rounded(digits: &[u8], sci: i64) -> (Vec<u8>, i64) {
    const KEEP: usize = 17;
    let mut kept = digits[..KEEP.min(digits.len())].to_vec();
    let mut sci = sci;
    if digits.get(KEEP).is_some_and(|&d| d >= b'5') {
        match kept.iter().rposition(|&d| d != b'9') {
            Some(i) => {
                kept[i] += 1;
                kept.truncate(i + 1);
            }
            None => {
                kept = vec![b'1'];
                sci += 1;
            }
        }
    }
    while kept.last() == Some(&b'0') {
        kept.pop();
    }
    (kept, sci)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> String {
        match parse(text) {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn numbers_print_as_serde_json_printed_them() {
        let cases = [
            ("1.0", "1.0"),
            ("1e3", "1000.0"),
            ("-0", "-0.0"),
            ("0e5", "0.0"),
            ("1e15", "1000000000000000.0"),
            ("1e16", "1e+16"),
            ("1.5e16", "1.5e+16"),
            ("123456789012345678", "123456789012345678"),
            ("18446744073709551616", "1.8446744073709552e+19"),
            ("-9223372036854775808", "-9223372036854775808"),
            // serde_json: -9.223372036854776e+18 (the shortest form of its f64).
            ("-9223372036854775809", "-9.2233720368547758e+18"),
            ("99999999999999999999", "1e+20"),
            ("1e-5", "0.00001"),
            ("1e-6", "1e-6"),
            ("-1.25e-10", "-1.25e-10"),
            ("1e300", "1e+300"),
            ("1e400", "error: number out of range at line 1 column 5"),
            ("1e-400", "0.0"),
        ];
        for (input, want) in cases {
            assert_eq!(shown(input), want, "{input}");
        }
    }

    #[test]
    fn errors_say_where() {
        let cases = [
            ("", "EOF while parsing a value at line 1 column 0"),
            ("{\"format\":1", "EOF while parsing an object at line 1 column 11"),
            ("[1,]", "trailing comma at line 1 column 4"),
            ("{\"a\" 1}", "expected `:` at line 1 column 6"),
            ("\"\\ud800x\"", "unexpected end of hex escape at line 1 column 8"),
            ("\"\\udc00\"", "lone leading surrogate in hex escape at line 1 column 7"),
            ("1 x", "trailing characters at line 1 column 3"),
            ("{\n\"a\":\n", "EOF while parsing a value at line 3 column 0"),
        ];
        for (input, want) in cases {
            assert_eq!(shown(input), format!("error: {want}"), "{input:?}");
        }
        assert_eq!(shown(&"[".repeat(200)), "error: recursion limit exceeded at line 1 column 128");
        assert!(parse(&format!("{}{}", "[".repeat(127), "]".repeat(127))).is_ok());
    }

    #[test]
    fn strings_round_trip() {
        let text = r#"{"b":"\u00e9\ud83d\ude00\/\"\\\n\u0001","a":[true,null,-3]}"#;
        assert_eq!(shown(text), r#"{"a":[true,null,-3],"b":"é😀/\"\\\n\u0001"}"#);
    }

    #[test]
    fn last_repeated_key_counts() {
        let v = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(v.get("a"), Some(&Value::UInt(3)));
        assert_eq!(v.to_string(), r#"{"a":3,"b":2}"#);
    }
}
