//! Share links (docs/format.md, share links): the scenario and the step shown travel in the
//! URL fragment, `v=1&s=…&at=N&h=…`. One codec serves the CLI, the tests and the
//! page.
//!
//! `s` is the scenario as JSON with every default left out, either as is
//! (`j` + base64url) or compressed (`z` + base64url of a small LZ77 stream),
//! whichever is shorter. `h` is a hash of the step record at `at`, so the page
//! can tell "reproduced exactly" from "made with different behaviour".
//! Decoding never panics: every malformed input is an error that says what is wrong.

use crate::json::{self, Value};
use crate::record::StepRecord;
use crate::scenario::{Scenario, ScenarioError};
use std::fmt;

/// The link format this build writes and reads.
pub const VERSION: u32 = 1;
/// No link is longer than this: chat clients cut longer ones.
pub const MAX_LINK: usize = 2000;
/// Fragments longer than this are refused before any decoding.
pub const MAX_FRAGMENT: usize = 16_384;
/// A decompressed scenario never exceeds this.
const MAX_JSON: usize = 262_144;

#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub scenario: Scenario,
    pub at: Option<u64>,
    pub hash: Option<String>,
}

/// What is wrong with a link, in words a reader understands.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkError {
    TooLong(usize),
    Missing(&'static str),
    FutureVersion(String),
    BadPart { part: &'static str, why: String },
    Truncated,
    Scenario(ScenarioError),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::TooLong(n) => write!(f, "the link is {n} characters long; hwscope links are at most {MAX_FRAGMENT}"),
            LinkError::Missing(part) => write!(f, "the link has no `{part}=` part"),
            LinkError::FutureVersion(v) => write!(f, "the link is format v={v}, made by a newer hwscope; this one reads v={VERSION}"),
            LinkError::BadPart { part, why } => write!(f, "the link's `{part}` part is damaged: {why}"),
            LinkError::Truncated => write!(f, "the link's scenario is cut short (was the link truncated?)"),
            LinkError::Scenario(e) => write!(f, "the link's scenario is not valid: {e}"),
        }
    }
}

impl std::error::Error for LinkError {}

/// The scenario with its defaults left out: what the link carries. Keys are
/// sorted at every level (`Value`'s order).
pub fn minimal_json(scenario: &Scenario) -> String {
    let as_value = |s: &Scenario| json::parse(&s.to_json()).unwrap_or(Value::Null);
    let mut value = as_value(scenario);
    if let Ok(default) = Scenario::from_json(r#"{"format":1}"#) {
        strip_defaults(&mut value, &as_value(&default));
    }
    value.to_string()
}

fn strip_defaults(value: &mut Value, default: &Value) {
    let Value::Object(map) = value else { return };
    map.retain(|(k, v)| k == "format" || default.get(k) != Some(v));
    for (k, v) in map.iter_mut() {
        if let Some(d) = default.get(k) {
            strip_defaults(v, d);
        }
    }
}

/// The fragment (without `#`) for a scenario, the step shown and its state hash.
pub fn encode(scenario: &Scenario, at: Option<u64>, hash: Option<&str>) -> String {
    let json = minimal_json(scenario);
    let plain = format!("j{}", base64url(json.as_bytes()));
    let mut s = format!("z{}", base64url(&compress(json.as_bytes())));
    if plain.len() <= s.len() {
        s = plain;
    }
    // A built-in changed by a few interventions is mostly the built-in's own text:
    // compressed against it, the link says little more than what changed. (A built-in
    // as it is keeps its `z` link: the page knows those without the full core.)
    // Only the built-ins of the same title (one, as a rule): trying all of them took
    // 23-33 ms per link in the page, a task longer than a frame (e2e/idle), and a
    // scenario under another title has little of a built-in's text left to share.
    let mut title = String::new();
    json::write_str(&mut title, &scenario.title);
    let titled = |text: &&(&str, &str)| !scenario.title.is_empty() && text.1.contains(title.as_str());
    let dicts: Vec<(&str, String)> = crate::builtin::BUILTINS
        .iter()
        .filter(titled)
        .filter_map(|(name, text)| Some((*name, minimal_json(&Scenario::from_json(text).ok()?))))
        .collect();
    let as_is = dicts.iter().any(|(_, dict)| *dict == json);
    for (name, dict) in dicts.iter().filter(|_| !as_is) {
        let mut both = dict.clone().into_bytes();
        both.extend_from_slice(json.as_bytes());
        let packed = format!("b{name}.{}{}", dict_check(dict), base64url(&compress_from(&both, dict.len())));
        if packed.len() < s.len() {
            s = packed;
        }
    }
    let mut out = format!("v={VERSION}&s={s}");
    if let Some(at) = at {
        out.push_str(&format!("&at={at}"));
    }
    if let Some(h) = hash {
        out.push_str(&format!("&h={h}"));
    }
    out
}

/// Reads a fragment (with or without the leading `#`).
pub fn decode(fragment: &str) -> Result<Link, LinkError> {
    if fragment.len() > MAX_FRAGMENT {
        return Err(LinkError::TooLong(fragment.len()));
    }
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let (mut v, mut s, mut at, mut h) = (None, None, None, None);
    for part in fragment.split('&').filter(|p| !p.is_empty()) {
        let (key, val) = part.split_once('=').unwrap_or((part, ""));
        match key {
            "v" => v = Some(val),
            "s" => s = Some(val),
            "at" => at = Some(val),
            "h" => h = Some(val),
            _ => {} // Presentation options may share the fragment; they are not ours.
        }
    }
    let v = v.ok_or(LinkError::Missing("v"))?;
    if v != VERSION.to_string() {
        return match v.parse::<u32>() {
            Ok(n) if n > VERSION => Err(LinkError::FutureVersion(v.chars().take(12).collect())),
            _ => Err(LinkError::BadPart {
                part: "v",
                why: format!("{} is not a version", crate::json::quoted(&v.chars().take(12).collect::<String>(), '"')),
            }),
        };
    }
    let s = s.ok_or(LinkError::Missing("s"))?;
    let json = match s.split_at_checked(1) {
        Some(("j", body)) => unbase64url(body).map_err(|why| LinkError::BadPart { part: "s", why })?,
        Some(("z", body)) => decompress(&unbase64url(body).map_err(|why| LinkError::BadPart { part: "s", why })?)?,
        Some(("b", rest)) => {
            let (name, body) = rest.split_once('.').ok_or(LinkError::BadPart { part: "s", why: "it names no built-in".into() })?;
            let quoted = || crate::json::quoted(&name.chars().take(40).collect::<String>(), '"');
            let (check, body) = body.split_at_checked(CHECK).ok_or(LinkError::Truncated)?;
            let known = || crate::builtin::json(name).is_some() || kept_texts(SUPERSEDED).any(|(n, _, _)| n == name);
            let dict = dictionary(name, check).ok_or_else(|| LinkError::BadPart {
                part: "s",
                why: if known() {
                    format!("it was written against built-in {}'s text as another hwscope had it, not as this one has it", quoted())
                } else {
                    format!("{} is not a built-in scenario of this hwscope", quoted())
                },
            })?;
            let mut out = dict.into_bytes();
            let start = out.len();
            decompress_into(&mut out, &unbase64url(body).map_err(|why| LinkError::BadPart { part: "s", why })?)?;
            out.split_off(start)
        }
        _ => return Err(LinkError::BadPart { part: "s", why: "it starts with none of `j`, `z` and `b`".into() }),
    };
    let text = String::from_utf8(json).map_err(|_| LinkError::BadPart { part: "s", why: "not UTF-8 text".into() })?;
    let scenario = Scenario::from_json(&text).map_err(LinkError::Scenario)?;
    let at = match at {
        None => None,
        Some(a) => Some(a.parse::<u64>().map_err(|_| LinkError::BadPart {
            part: "at",
            why: format!("{} is not a step number", crate::json::quoted(&a.chars().take(20).collect::<String>(), '"')),
        })?),
    };
    let hash = match h {
        None => None,
        Some(h) if h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()) => Some(h.to_ascii_lowercase()),
        Some(h) => {
            return Err(LinkError::BadPart {
                part: "h",
                why: format!("{} is not a 16-digit hex hash", crate::json::quoted(&h.chars().take(20).collect::<String>(), '"')),
            })
        }
    };
    Ok(Link { scenario, at, hash })
}

/// FNV-1a (64-bit) of the step record's JSON, without the messages' labels and
/// the lists of what was lost (ghosts, losses): the state a link points at.
/// Takes the record by value: the lists of what was lost are cleared in it (a
/// copy of a record is ~8 KB of the page's WebAssembly).
pub fn state_hash(mut record: StepRecord) -> String {
    // What was lost is history, read from the state: links made before the record
    // listed it keep their hash.
    record.lost.clear();
    record.replicas.iter_mut().for_each(|r| r.lost.clear());
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |text: &[u8]| {
        for &b in text {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    // Labels are words derived from the other fields: they say nothing of the
    // model's behaviour, and links made before they existed keep their hash. The
    // key cannot occur inside a string (its quotes would be escaped there).
    const LABEL: &[u8] = b",\"label\":\"";
    let json = record.to_json();
    let bytes = json.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b',' || !bytes[i..].starts_with(LABEL) {
            i += 1;
            continue;
        }
        mix(&bytes[start..i]);
        // Past the label's closing quote.
        i += LABEL.len();
        let mut escaped = false;
        while i < bytes.len() && (bytes[i] != b'"' || escaped) {
            escaped = bytes[i] == b'\\' && !escaped;
            i += 1;
        }
        i += 1;
        start = i.min(bytes.len());
    }
    mix(&bytes[start..]);
    // 16 hex digits (`{h:016x}`, without the formatting machinery's hex writer).
    (0..16).rev().map(|i| char::from(b"0123456789abcdef"[(h >> (4 * i)) as usize & 15])).collect()
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 3);
    for chunk in bytes.chunks(3) {
        let n = (chunk[0] as u32) << 16 | (*chunk.get(1).unwrap_or(&0) as u32) << 8 | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

pub fn unbase64url(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in text.bytes().enumerate() {
        let Some(v) = ALPHABET.iter().position(|&a| a == c) else {
            return Err(format!(
                "character {i} ({}) is not URL-safe base64",
                crate::json::quoted((c as char).encode_utf8(&mut [0; 4]), '\'')
            ));
        };
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    if bits >= 6 {
        return Err("its base64 ends mid-byte".into());
    }
    Ok(out)
}

/// Characters of a `b` link's check of the built-in's text it was compressed against.
const CHECK: usize = 4;

/// Built-ins' texts (their minimal JSON) as earlier versions of hwscope had them, one per
/// line: `name<TAB>check<TAB>text`. A `b` link is compressed against the built-in's text of
/// the hwscope that wrote it; when a built-in's text changes, its old text moves here so
/// that the links made against it keep opening. tests/link_texts.rs keeps every text a
/// link may have been written against and fails, naming the line to add, when one is lost.
pub const SUPERSEDED: &str = include_str!("link_superseded.tsv");

/// The `name<TAB>check<TAB>text` lines of a list of built-in texts (`SUPERSEDED`).
pub fn kept_texts(tsv: &str) -> impl Iterator<Item = (&str, &str, &str)> {
    tsv.lines().filter_map(|line| {
        let mut cols = line.splitn(3, '\t');
        Some((cols.next()?, cols.next()?, cols.next()?))
    })
}

/// The text a `b` link names by built-in and check: the built-in as this hwscope has it,
/// else as an earlier one had it (`SUPERSEDED`).
fn dictionary(name: &str, check: &str) -> Option<String> {
    builtin_dictionary(name).filter(|(c, _)| c == check).map(|(_, text)| text).or_else(|| {
        kept_texts(SUPERSEDED)
            .find(|&(n, c, text)| n == name && c == check && dict_check(text) == check)
            .map(|(_, _, text)| text.to_string())
    })
}

/// The check a `b` link written now carries for built-in `name`, and the text it is
/// compressed against (tests/link_texts.rs keeps every such pair a link may name).
pub fn builtin_dictionary(name: &str) -> Option<(String, String)> {
    let current = minimal_json(&Scenario::from_json(crate::builtin::json(name)?).ok()?);
    Some((dict_check(&current), current))
}

/// 24 bits of FNV-1a of a built-in's minimal JSON, as 4 base64url characters: a `b`
/// link opened by an hwscope whose built-in reads otherwise says so, not something else.
pub fn dict_check(dict: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for &b in dict.as_bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    base64url(&h.to_be_bytes()[1..])
}

/// LZ77 with varint tokens: `0 len bytes…` is a literal run, `1 dist len` copies
/// `len` bytes from `dist` back. Small, and enough for JSON's repeated keys.
pub fn compress(input: &[u8]) -> Vec<u8> {
    compress_from(input, 0)
}

/// The tokens for `input[start..]`, whose back-references may reach into
/// `input[..start]` (a dictionary the reader has too).
fn compress_from(input: &[u8], start: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut literals: Vec<u8> = Vec::new();
    let mut head = vec![usize::MAX; 4096];
    let mut prev = vec![usize::MAX; input.len()];
    let hash = |i: usize| -> usize { ((input[i] as usize) << 8 ^ (input[i + 1] as usize) << 4 ^ input[i + 2] as usize) & 4095 };
    let flush = |out: &mut Vec<u8>, lit: &mut Vec<u8>| {
        if !lit.is_empty() {
            out.push(0);
            varint(out, lit.len());
            out.append(lit);
        }
    };
    // The dictionary is only indexed.
    for (j, slot) in prev.iter_mut().enumerate().take(start) {
        if j + 3 <= input.len() {
            let h = hash(j);
            *slot = head[h];
            head[h] = j;
        }
    }
    let mut i = start;
    while i < input.len() {
        let (mut best_len, mut best_dist) = (0, 0);
        if i + 3 <= input.len() {
            let h = hash(i);
            let mut cand = head[h];
            let mut tries = 64;
            while cand != usize::MAX && tries > 0 {
                let len = input[cand..].iter().zip(&input[i..]).take(258).take_while(|(a, b)| a == b).count();
                if len > best_len {
                    best_len = len;
                    best_dist = i - cand;
                }
                cand = prev[cand];
                tries -= 1;
            }
        }
        let step = if best_len >= 4 { best_len } else { 1 };
        for (j, slot) in prev.iter_mut().enumerate().skip(i).take(step) {
            if j + 3 <= input.len() {
                let h = hash(j);
                *slot = head[h];
                head[h] = j;
            }
        }
        if best_len >= 4 {
            flush(&mut out, &mut literals);
            out.push(1);
            varint(&mut out, best_dist);
            varint(&mut out, best_len);
        } else {
            literals.push(input[i]);
        }
        i += step;
    }
    flush(&mut out, &mut literals);
    out
}

fn varint(out: &mut Vec<u8>, mut n: usize) {
    while n >= 128 {
        out.push((n as u8 & 127) | 128);
        n >>= 7;
    }
    out.push(n as u8);
}

fn read_varint(input: &[u8], pos: &mut usize) -> Result<usize, LinkError> {
    let mut n: usize = 0;
    for shift in (0..35).step_by(7) {
        let b = *input.get(*pos).ok_or(LinkError::Truncated)?;
        *pos += 1;
        n |= ((b & 127) as usize) << shift;
        if b < 128 {
            return Ok(n);
        }
    }
    Err(LinkError::BadPart { part: "s", why: "a length is too long".into() })
}

pub fn decompress(input: &[u8]) -> Result<Vec<u8>, LinkError> {
    let mut out = Vec::new();
    decompress_into(&mut out, input)?;
    Ok(out)
}

/// Appends what `input` unpacks to onto `out` (whose bytes back-references may copy).
fn decompress_into(out: &mut Vec<u8>, input: &[u8]) -> Result<(), LinkError> {
    let bad = |why: &str| LinkError::BadPart { part: "s", why: why.to_string() };
    let mut pos = 0;
    while pos < input.len() {
        let tag = input[pos];
        pos += 1;
        match tag {
            0 => {
                let len = read_varint(input, &mut pos)?;
                let end = pos.checked_add(len).ok_or(LinkError::Truncated)?;
                let bytes = input.get(pos..end).ok_or(LinkError::Truncated)?;
                out.extend_from_slice(bytes);
                pos = end;
            }
            1 => {
                let dist = read_varint(input, &mut pos)?;
                let len = read_varint(input, &mut pos)?;
                if dist == 0 || dist > out.len() {
                    return Err(bad("a back-reference points before the start"));
                }
                if len > MAX_JSON {
                    return Err(bad("a back-reference is too long"));
                }
                let start = out.len() - dist;
                for k in 0..len {
                    let b = out[start + k];
                    out.push(b);
                }
            }
            _ => return Err(bad("it has an unknown token")),
        }
        if out.len() > MAX_JSON {
            return Err(bad("it unpacks to more than 256 KB"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash is of the record as it was before messages had labels: links made
    /// then still reproduce exactly, and a label (words) never changes it.
    #[test]
    fn the_state_hash_leaves_labels_out() {
        let mut run = crate::Run::new(crate::builtin::load("seed-walkthrough").unwrap());
        run.seek(5);
        let mut record = run.record();
        assert!(record.in_flight.iter().all(|m| !m.label.is_empty()) && !record.in_flight.is_empty());
        let hash = state_hash(record.clone());
        record.in_flight.iter_mut().for_each(|m| m.label = "a \"quoted\" \\ label".into());
        assert_eq!(state_hash(record.clone()), hash);
        record.in_flight.iter_mut().for_each(|m| m.label.clear());
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in record.to_json().bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        assert_eq!(hash, format!("{h:016x}"));
        record.in_flight[0].hw = Some(7);
        assert_ne!(state_hash(record), hash, "a change of state changes the hash");
    }

    #[test]
    fn round_trip_every_builtin_under_the_limit() {
        for (name, json) in crate::builtin::BUILTINS {
            let s = Scenario::from_json(json).unwrap();
            let frag = encode(&s, Some(12), Some("00ff00ff00ff00ff"));
            assert!(frag.len() + 40 <= MAX_LINK, "{name}: {} chars", frag.len());
            let link = decode(&frag).unwrap();
            assert_eq!(link.scenario, s, "{name}");
            assert_eq!(link.at, Some(12));
            assert_eq!(link.hash.as_deref(), Some("00ff00ff00ff00ff"));
        }
    }

    /// Issue 29: a link after a typical intervention (crash, restart, cut, heal) on any
    /// built-in is within the limit with room for the page's address, and replays exactly.
    #[test]
    fn a_built_in_after_an_intervention_stays_short_and_exact() {
        let ev = |t: &str| Scenario::event_from_json(t).unwrap();
        for (name, json) in crate::builtin::BUILTINS {
            for (what, first, then) in [
                ("crash", r#"{"crash":{"broker":1}}"#, None),
                ("restart", r#"{"crash":{"broker":1}}"#, Some(r#"{"restart":{"broker":1}}"#)),
                ("cut", r#"{"partition":{"between":[0,1]}}"#, None),
                ("heal", r#"{"partition":{"between":[0,1]}}"#, Some(r#"{"heal":{"between":[0,1]}}"#)),
            ] {
                let mut run = crate::Run::new(Scenario::from_json(json).unwrap());
                run.seek(10);
                run.apply(&ev(first)).unwrap();
                if let Some(then) = then {
                    run.seek(run.current() + 3);
                    run.apply(&ev(then)).unwrap();
                }
                run.seek(run.current() + 3);
                let hash = state_hash(run.record());
                let frag = encode(&run.shared_scenario(), Some(run.current()), Some(&hash));
                assert!(frag.len() + 100 <= MAX_LINK, "{name} {what}: {} chars", frag.len());
                let link = decode(&frag).unwrap();
                assert_eq!(link.scenario, run.shared_scenario(), "{name} {what}");
                let mut again = crate::Run::new(link.scenario);
                again.seek(link.at.unwrap());
                assert_eq!(state_hash(again.record()), hash, "{name} {what}: the state at the link's step");
            }
        }
    }

    /// A `b` link read by an hwscope whose built-in reads otherwise is refused with a
    /// sentence, not read as another scenario; links in the older forms still open.
    #[test]
    fn a_built_in_link_checks_the_text_it_was_made_against() {
        let mut s = crate::builtin::load("kafka-7128").unwrap();
        s.stop_at_ms += 1;
        let frag = encode(&s, Some(3), None);
        assert!(frag.starts_with("v=1&s=bkafka-7128."), "{frag}");
        assert_eq!(decode(&frag).unwrap().scenario, s);
        let i = "v=1&s=bkafka-7128.".len();
        let wrong = format!("{}{}{}", &frag[..i], if &frag[i..i + 1] == "A" { "B" } else { "A" }, &frag[i + 1..]);
        assert!(decode(&wrong).unwrap_err().to_string().contains("another hwscope"));
        assert!(decode("v=1&s=bno-such.AAAAAA").unwrap_err().to_string().contains("not a built-in"));
        // The older forms, as written before `b` existed.
        let json = minimal_json(&s);
        for old in [format!("v=1&s=j{}", base64url(json.as_bytes())), format!("v=1&s=z{}", base64url(&compress(json.as_bytes())))] {
            assert_eq!(decode(&old).unwrap().scenario, s);
        }
    }

    /// A cut of one connection to the controller travels in the link (`partition.channel`).
    #[test]
    fn a_channel_cut_round_trips() {
        let text = r#"{"format":1,"replicas":2,"events":[{"at_ms":5,"partition":{"from":0,"to":"controller","channel":"alter_partition"}},{"at_ms":9,"heal":{"between":[1,"controller"],"channel":"heartbeat"}}]}"#;
        let s = Scenario::from_json(text).unwrap();
        let json = minimal_json(&s);
        assert!(json.contains(r#""channel":"alter_partition""#) && json.contains(r#""channel":"heartbeat""#), "{json}");
        let link = decode(&encode(&s, Some(3), None)).unwrap();
        assert_eq!(link.scenario, s);
    }

    #[test]
    fn bad_links_say_what_is_wrong() {
        let good = encode(&Scenario::from_json(r#"{"format":1,"title":"x"}"#).unwrap(), None, None);
        let cases = [
            ("v=2&s=jAA", "newer hwscope"),
            ("s=jAA", "no `v=`"),
            ("v=1", "no `s=`"),
            ("v=1&s=j!!", "not URL-safe base64"),
            ("v=1&s=xAA", "none of `j`, `z` and `b`"),
            ("v=1&s=zAQUB", "back-reference"),
        ];
        for (input, want) in cases {
            let e = decode(input).unwrap_err().to_string();
            assert!(e.contains(want), "{input}: {e}");
        }
        let cut = &good[..good.len() - 3];
        assert!(decode(cut).is_err());
        assert!(matches!(decode(&"a".repeat(MAX_FRAGMENT + 1)), Err(LinkError::TooLong(_))));
    }
}
