//! The parser: RFC 8259, with serde_json's error texts ("EOF while parsing an
//! object at line 1 column 11") and its number forms.

use super::value::Value;
use super::write::write_number;
use std::fmt;

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
        // The first cores keep no messages (`error_text!`, src/lib.rs): nor the parser's words
        // and place, which only a message would show.
        if cfg!(feature = "first") {
            let _ = (i, message);
            return JsonError { message: "", line: 0, column: 0 };
        }
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
            // Runs end at ASCII bytes, so they are whole UTF-8 characters (`get`, not
            // indexing: no panic path, whose message links the standard library's
            // Unicode tables, ~1 KB gzipped of the page's first core).
            out.push_str(self.text.get(start..self.i - 1).unwrap_or_default());
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
    use crate::json::Value;

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
