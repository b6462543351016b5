//! The in-house JSON layer (`hwscope::json`) against serde_json, which the
//! library used before: the same values, the same printed text, the same error
//! messages with the same line and column, on generated inputs.

use hwscope::json;

/// A small deterministic generator (xorshift64*).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// Fewer than `max` decimal digits.
    fn digits(&mut self, max: usize) -> String {
        let n = self.below(max);
        (0..n).map(|_| char::from(b'0' + self.below(10) as u8)).collect()
    }
}

/// What a parse gives, as text: the value printed compactly, or the error.
fn ours(text: &str) -> String {
    match json::parse(text) {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

fn serde(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

fn same(text: &str) {
    assert_eq!(ours(text), serde(text), "input {text:?}");
}

#[test]
fn fragments_parse_and_fail_alike() {
    const PIECES: &[&str] = &[
        "{", "}", "[", "]", ":", ",", "\"", "\"a\"", "\"key\"", " ", "\n", "\r\n", "\t", "0", "1", "-", "12", "1.5", "e", "E+2", ".",
        "true", "tru", "false", "null", "nul", "\\", "\\u", "\\ud83d", "\\ude00", "\\n", "\\x", "00", "é", "😀", "\u{1}", "x", "/", "\\/",
        "1e400", "-0", "\u{7f}",
    ];
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for _ in 0..200_000 {
        let n = g.below(12);
        let text: String = (0..n).map(|_| g.pick(PIECES)).collect();
        same(&text);
    }
}

#[test]
fn structured_values_print_alike() {
    let mut g = Gen(42);
    for _ in 0..20_000 {
        let text = value(&mut g, 0);
        same(&text);
    }
}

fn value(g: &mut Gen, depth: usize) -> String {
    match g.below(if depth > 4 { 4 } else { 6 }) {
        0 => g.pick(&["null", "true", "false", "0", "-7", "18446744073709551615", "-9223372036854775808"]).to_string(),
        1 => g.pick(&["1.0", "-0", "1e3", "2.5E-7", "0.000012", "123.456e5", "1e16", "-1.25e+2", "0.1"]).to_string(),
        2 => format!("\"{}\"", g.pick(&["", "a", "é\\\"", "\\u00e9\\t", "\\ud83d\\ude00", "p-1", "\\u0000\\u001f"])),
        3 => format!("\"{}\"", g.pick(&["b", "a", "aa", "B", "é", "a\\u0000", ""])),
        4 => {
            let items: Vec<String> = (0..g.below(4)).map(|_| value(g, depth + 1)).collect();
            format!("[{}]", items.join(","))
        }
        _ => {
            // Repeated and unsorted keys: printed sorted, the last of a key kept.
            let items: Vec<String> = (0..g.below(5))
                .map(|_| format!("\"{}\" : {}", g.pick(&["b", "a", "aa", "B", "é", "z", ""]), value(g, depth + 1)))
                .collect();
            format!("{{ {} }}", items.join(" ,\n"))
        }
    }
}

fn number(g: &mut Gen) -> String {
    let mut s = String::new();
    if g.below(3) == 0 {
        s.push('-');
    }
    let max = if g.below(2) == 0 { 8 } else { 26 };
    match g.below(4) {
        0 => s.push('0'),
        _ => {
            s.push(char::from(b'1' + g.below(9) as u8));
            s.push_str(&g.digits(max));
        }
    }
    if g.below(2) == 0 {
        s.push('.');
        s.push(char::from(b'0' + g.below(10) as u8));
        s.push_str(&g.digits(max));
    }
    if g.below(2) == 0 {
        s.push_str(g.pick(&["e", "E", "e+", "e-", "E-"]));
        let max = if g.below(4) == 0 { 340 } else { 30 };
        s.push_str(&g.below(max).to_string());
    }
    s
}

/// Numbers serde_json read exactly (up to 15 digits, exponents up to ±22) print
/// exactly as it printed them; longer ones are compared in
/// `long_numbers_print_nearly_alike`.
#[test]
fn short_numbers_print_alike() {
    let mut g = Gen(7);
    for _ in 0..100_000 {
        let int = format!("{}{}", 1 + g.below(9), g.digits(7));
        let frac = g.digits(15 - int.len());
        let exp = g.below(23) as i64 - 11;
        let frac_exp = exp.clamp(frac.len() as i64 - 22, 22);
        for text in [format!("{int}.{frac}e{frac_exp}"), format!("-{int}e{exp}"), format!("0.{frac}1"), int.clone()] {
            same(&text);
        }
    }
}

/// Longer numbers (more than 15 digits, or an exponent beyond ±22) are shown
/// rounded to 17 digits, not through an f64 as serde_json showed them: the text
/// may differ in the last digits, never in value beyond that, nor in being an error.
#[test]
fn long_numbers_print_nearly_alike() {
    let mut g = Gen(11);
    for _ in 0..100_000 {
        let text = number(&mut g);
        let (a, b) = (ours(&text), serde(&text));
        if a != b {
            let (x, y): (f64, f64) = (a.parse().unwrap_or(f64::NAN), b.parse().unwrap_or(f64::NAN));
            assert!((x - y).abs() <= y.abs() * 1e-15, "{text}: {a} vs serde_json {b}");
        }
    }
}

#[test]
fn strings_are_escaped_alike() {
    let mut g = Gen(3);
    let chars: Vec<char> = (0u32..0x80).filter_map(char::from_u32).chain("é😀\u{2028}\u{fffd}/\\\"".chars()).collect();
    for _ in 0..20_000 {
        let s: String = (0..g.below(12)).map(|_| chars[g.below(chars.len())]).collect();
        assert_eq!(json::to_string(&s), serde_json::to_string(&s).unwrap(), "{s:?}");
    }
}

#[test]
fn depth_is_bounded_alike() {
    for n in [126, 127, 128, 129, 1000] {
        same(&"[".repeat(n));
        same(&format!("{}{}", "[".repeat(n), "]".repeat(n)));
        same(&format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n)));
    }
}

/// The CLI's floats (`hwscope bench --json`): the same layout as serde_json's, and
/// digits that read back (the last digit of a tie may differ).
#[test]
fn floats_are_written_alike() {
    let shape = |s: &str| s.chars().map(|c| if c.is_ascii_digit() { 'd' } else { c }).collect::<String>();
    let mut g = Gen(5);
    let special = [0.0, -0.0, 1.0, 0.18, 2_612_345.678, 1e15, 1e16, 1e-5, 1e-6, 5e-324, f64::MAX];
    for x in special.into_iter().chain((0..20_000).map(|_| f64::from_bits(g.next()))).filter(|x| x.is_finite()) {
        let mut ours = String::new();
        json::write_f64(&mut ours, x);
        let theirs = serde_json::to_string(&x).unwrap();
        assert_eq!(ours.parse::<f64>(), Ok(x), "{x:e}: {ours}");
        assert_eq!(shape(&ours), shape(&theirs), "{x:e}: {ours} vs {theirs}");
    }
}
