//! A ` ```hwscope ` fenced block in documentation, read once for everyone: the
//! CLI (`hwscope figure`, `hwscope render-docs`), the mdBook preprocessor and,
//! through the wasm facade, `auto.js` in the reader's browser. Three forms:
//!
//! ```text
//! seed-walkthrough at=5 from=0 to=8 loop theme=auto     a built-in with options
//! #v=1&s=zACd7…&at=5&h=4f0d38549556aff5 loop            a share-link fragment, options after it
//! at=3 to=12                                            options (optional), then
//! { "format": 1, "replicas": 2, … }                     a format-1 scenario
//! ```
//!
//! Options: `at` `from` `to` (step numbers), `loop`, `autoplay` (flags, or
//! `=true|false`), `theme=auto|light|dark`, `controls=` (as the page's `?controls=`),
//! `preset=` (a preset name, replacing the scenario's), `height=` (the figure's
//! least height in CSS px), `title="…"`. Anything else is one error naming it,
//! with the line of the block it is on.

use crate::link;
use crate::scenario::{Named, Preset, Scenario};
use crate::{builtin, json, Run};
use std::fmt;

/// Where the scenario of a block comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A built-in, by name.
    Builtin(String),
    /// A format-1 scenario written in the block.
    Scenario,
    /// A share-link fragment, with the state hash it carried.
    Link { hash: Option<String> },
}

/// What a block asks for, validated.
#[derive(Debug, Clone)]
pub struct DocBlock {
    pub source: Source,
    pub scenario: Scenario,
    /// The step shown first (the static figure's step): `at=`, else `from=`, else 0.
    pub at: u64,
    pub from: Option<u64>,
    pub to: Option<u64>,
    pub looped: bool,
    pub autoplay: bool,
    pub theme: &'static str,
    pub controls: String,
    pub height: Option<u32>,
    pub title: Option<String>,
}

/// One problem with a block: what is wrong, and on which line of the block (1-based; 0: the whole block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {} of the block: {}", self.line, self.message)
        } else {
            write!(f, "{}", self.message)
        }
    }
}

impl std::error::Error for BlockError {}

fn fail<T>(line: usize, message: impl Into<String>) -> Result<T, BlockError> {
    Err(BlockError { line, message: message.into() })
}

pub const OPTIONS: &[&str] = &["at", "from", "to", "loop", "autoplay", "theme", "controls", "preset", "height", "title"];
const THEMES: &[&str] = &["auto", "light", "dark"];
const CONTROL_SETS: &[&str] = &["none", "play", "compact", "full"];
const CONTROL_PARTS: &[&str] = &["play", "step", "ends", "scrub", "speed", "reset", "text"];
const MAX_TITLE: usize = 200;

/// A word of the block and the line it is on.
struct Token {
    line: usize,
    key: String,
    value: Option<String>,
}

/// Splits option text into `key`, `key=value` and `key="quoted value"` words.
fn tokens(text: &str, first_line: usize) -> Result<Vec<Token>, BlockError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = first_line + i;
        let mut rest = line.trim_start();
        while !rest.is_empty() {
            let end = rest.find(|c: char| c.is_whitespace() || c == '=').unwrap_or(rest.len());
            let key = rest[..end].to_string();
            rest = &rest[end..];
            let value = if let Some(after) = rest.strip_prefix('=') {
                if let Some(quoted) = after.strip_prefix('"') {
                    let Some(close) = quoted.find('"') else {
                        return fail(n, format!("{key}=\"…: the closing quote is missing"));
                    };
                    rest = &quoted[close + 1..];
                    Some(quoted[..close].to_string())
                } else {
                    let end = after.find(char::is_whitespace).unwrap_or(after.len());
                    rest = &after[end..];
                    Some(after[..end].to_string())
                }
            } else {
                None
            };
            out.push(Token { line: n, key, value });
            rest = rest.trim_start();
        }
    }
    Ok(out)
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn suggest<'a>(word: &str, names: impl Iterator<Item = &'a str>) -> String {
    let best = names.map(|n| (distance(word, n), n)).min();
    match best {
        Some((d, n)) if d <= 2.max(word.len() / 3) => format!(" (did you mean {n}?)"),
        _ => String::new(),
    }
}

fn step_number(t: &Token) -> Result<u64, BlockError> {
    let v = t.value.as_deref().unwrap_or("");
    match v.parse::<u64>() {
        Ok(n) if v.len() <= 9 => Ok(n),
        _ => fail(t.line, format!("{}={v}: must be a step number (0, 1, 2…)", t.key)),
    }
}

fn flag(t: &Token) -> Result<bool, BlockError> {
    match t.value.as_deref() {
        None | Some("true" | "1" | "yes") => Ok(true),
        Some("false" | "0" | "no") => Ok(false),
        Some(v) => fail(t.line, format!("{}={v}: write {} alone, or {}=false", t.key, t.key, t.key)),
    }
}

fn controls(t: &Token) -> Result<String, BlockError> {
    let v = t.value.as_deref().unwrap_or("");
    for w in v.split(',') {
        if !CONTROL_SETS.contains(&w) && !CONTROL_PARTS.contains(&w) {
            return fail(
                t.line,
                format!(
                    "controls={v}: {w:?} is not a control; use none, play, compact, full, or a comma list of {}",
                    CONTROL_PARTS.join(", ")
                ),
            );
        }
    }
    Ok(v.to_string())
}

/// Reads a block's text (the lines between the fences).
pub fn parse(text: &str) -> Result<DocBlock, BlockError> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(first) = lines.iter().position(|l| !l.trim().is_empty()) else {
        return fail(
            0,
            "the hwscope block is empty: write a built-in name with options (seed-walkthrough at=5), a share link (#v=1&s=…) or a scenario (JSON, format 1)",
        );
    };
    // A scenario: option lines (perhaps none), then JSON from the first line that starts with `{`.
    if let Some(j) = lines.iter().position(|l| l.trim_start().starts_with('{')) {
        let json_text = lines[j..].join("\n");
        let opts = tokens(&lines[..j].join("\n"), 1)?;
        let scenario = match json::parse(&json_text) {
            Err(e) => return fail(j + e.line, format!("the scenario is not valid JSON: {}", e.message)),
            Ok(_) => Scenario::from_json(&json_text).map_err(|e| BlockError { line: j + 1, message: format!("scenario: {e}") })?,
        };
        return finish(Source::Scenario, scenario, None, &opts);
    }
    let all = tokens(&lines[first..].join("\n"), first + 1)?;
    let (head, opts) = all.split_first().ok_or(BlockError { line: 0, message: "empty block".into() })?;
    let word = match &head.value {
        Some(v) => format!("{}={v}", head.key),
        None => head.key.clone(),
    };
    if word.starts_with('#') || word.starts_with("v=") {
        let l = link::decode(&word).map_err(|e| BlockError { line: head.line, message: format!("the share link cannot be read: {e}") })?;
        return finish(Source::Link { hash: l.hash }, l.scenario, l.at.map(|a| (head.line, a)), opts);
    }
    if head.value.is_some() {
        return fail(
            head.line,
            format!("{word}: a block starts with a built-in name (seed-walkthrough), a share link (#v=1&s=…) or a JSON scenario ({{\"format\":1,…}})"),
        );
    }
    match builtin::json(&word) {
        Some(text) => {
            let scenario = Scenario::from_json(text).map_err(|e| BlockError { line: head.line, message: e.to_string() })?;
            finish(Source::Builtin(word), scenario, None, opts)
        }
        None => fail(
            head.line,
            format!(
                "no built-in scenario {word:?}{}; the built-ins are {}",
                suggest(&word, builtin::names()),
                builtin::names().collect::<Vec<_>>().join(", ")
            ),
        ),
    }
}

/// Applies the options to the scenario and checks them against each other.
fn finish(source: Source, mut scenario: Scenario, link_at: Option<(usize, u64)>, opts: &[Token]) -> Result<DocBlock, BlockError> {
    let mut b = DocBlock {
        source,
        scenario: Scenario::from_json("{\"format\":1}").map_err(|e| BlockError { line: 0, message: e.to_string() })?,
        at: 0,
        from: None,
        to: None,
        looped: false,
        autoplay: false,
        theme: "auto",
        controls: "compact".into(),
        height: None,
        title: None,
    };
    let mut at = link_at;
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for t in opts {
        let Some(&name) = OPTIONS.iter().find(|o| **o == t.key) else {
            let what = if t.key.starts_with('{') {
                "a scenario's JSON starts on a line of its own".to_string()
            } else {
                format!("unknown option {:?}{}", t.key, suggest(&t.key, OPTIONS.iter().copied()))
            };
            return fail(t.line, format!("{what}; the options are {}", OPTIONS.join(", ")));
        };
        if let Some((_, line)) = seen.iter().find(|(n, _)| *n == name) {
            return fail(t.line, format!("{name} is given twice (first on line {line})"));
        }
        seen.push((name, t.line));
        let needs_value = !matches!(name, "loop" | "autoplay");
        if needs_value && t.value.as_deref().is_none_or(str::is_empty) {
            return fail(t.line, format!("{name} needs a value: {name}=…"));
        }
        let v = t.value.clone().unwrap_or_default();
        match name {
            "at" => {
                if let Some((line, _)) = at {
                    return fail(t.line, format!("at is given twice: the share link on line {line} has its own at="));
                }
                at = Some((t.line, step_number(t)?));
            }
            "from" => b.from = Some(step_number(t)?),
            "to" => b.to = Some(step_number(t)?),
            "loop" => b.looped = flag(t)?,
            "autoplay" => b.autoplay = flag(t)?,
            "theme" => match THEMES.iter().find(|x| **x == v) {
                Some(x) => b.theme = x,
                None => return fail(t.line, format!("theme={v}: must be auto, light or dark")),
            },
            "controls" => b.controls = controls(t)?,
            "preset" => {
                scenario.preset = Preset::parse("preset", &json::Value::String(v.clone()))
                    .map_err(|e| BlockError { line: t.line, message: e.to_string() })?
            }
            "height" => match v.parse::<u32>() {
                Ok(h) if (120..=2000).contains(&h) => b.height = Some(h),
                _ => return fail(t.line, format!("height={v}: must be a number of CSS pixels from 120 to 2000")),
            },
            "title" => {
                if v.chars().count() > MAX_TITLE {
                    return fail(t.line, format!("title: at most {MAX_TITLE} characters"));
                }
                b.title = Some(v);
            }
            _ => unreachable!("every option is handled"),
        }
    }
    let line_of = |name: &str| seen.iter().find(|(n, _)| *n == name).map_or(0, |(_, l)| *l);
    if let (Some(f), Some(t)) = (b.from, b.to) {
        if f > t {
            return fail(line_of("to"), format!("from={f} is after to={t}"));
        }
    }
    b.at = match at {
        Some((line, a)) => {
            if b.from.is_some_and(|f| a < f) || b.to.is_some_and(|t| a > t) {
                return fail(
                    line,
                    format!("at={a} is outside from={}…to={}", b.from.unwrap_or(0), b.to.map_or("the end".into(), |t| t.to_string())),
                );
            }
            a
        }
        None => b.from.unwrap_or(0),
    };
    if b.looped && b.to.is_none() && b.from.is_none() {
        // Looping the whole run is allowed: it restarts at step 0.
    }
    b.scenario = scenario;
    Ok(b)
}

impl DocBlock {
    /// The run at the step the block shows first, or an error when the run ends
    /// before `at` or `to` (a figure would otherwise show another step than the prose means).
    pub fn run_to_first(&self) -> Result<Run, BlockError> {
        let mut run = Run::new(self.scenario.clone());
        let target = self.to.unwrap_or(self.at).max(self.at);
        run.seek(target);
        if run.current() < target {
            let what = if self.to.is_some_and(|t| t > self.at) { "to" } else { "at" };
            return fail(0, format!("{what}={target}: the run ends at step {}", run.current()));
        }
        run.seek(self.at);
        Ok(run)
    }

    /// Whether the state at `at` is the one a share link's `h=` names (None: no link or no hash).
    pub fn link_reproduced(&self, run: &Run) -> Option<bool> {
        match &self.source {
            Source::Link { hash: Some(h) } => Some(link::state_hash(&run.record()) == *h),
            _ => None,
        }
    }

    /// The title a figure shows and is labelled with.
    pub fn title(&self) -> String {
        match &self.title {
            Some(t) => t.clone(),
            None if !self.scenario.title.is_empty() => self.scenario.title.clone(),
            None => "Kafka partition replication".to_string(),
        }
    }

    /// The built-in's name, if the block names one.
    pub fn builtin(&self) -> Option<&str> {
        match &self.source {
            Source::Builtin(n) => Some(n),
            _ => None,
        }
    }
}

impl json::ToJson for DocBlock {
    /// What the browser needs to play the block: the scenario as JSON text and the options.
    fn write_json(&self, out: &mut String) {
        let kind = match self.source {
            Source::Builtin(_) => "builtin",
            Source::Scenario => "scenario",
            Source::Link { .. } => "link",
        };
        json::Obj::new(out)
            .field("source", &kind)
            .field("builtin", &self.builtin())
            .field("scenario", &self.scenario.to_json())
            .field("title", &self.title())
            .field("at", &self.at)
            .field("from", &self.from)
            .field("to", &self.to)
            .field("loop", &self.looped)
            .field("autoplay", &self.autoplay)
            .field("theme", &self.theme)
            .field("controls", &self.controls.as_str())
            .field("height", &self.height.map(u64::from))
            .end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text).map(|_| ()).unwrap_err().to_string()
    }

    #[test]
    fn short_form() {
        let b = parse("seed-walkthrough at=5 from=0 to=8 loop theme=dark").unwrap();
        assert_eq!(b.builtin(), Some("seed-walkthrough"));
        assert_eq!((b.at, b.from, b.to, b.looped, b.theme), (5, Some(0), Some(8), true, "dark"));
        let b = parse("\n  idle-partition-lag\n  from=3 title=\"Idle, \\ parked\" controls=play,scrub\n").unwrap();
        assert_eq!((b.at, b.title.as_deref(), b.controls.as_str()), (3, Some("Idle, \\ parked"), "play,scrub"));
    }

    #[test]
    fn scenario_with_options_before_it() {
        let b = parse("at=2\n{\"format\":1,\"replicas\":2,\"title\":\"Two\"}").unwrap();
        assert_eq!((b.source.clone(), b.at, b.title()), (Source::Scenario, 2, "Two".to_string()));
        assert_eq!(err("{\"format\":1,\n \"replicas\": 40}"), "line 1 of the block: scenario: replicas: must be between 1 and 7, got 40");
        assert_eq!(err("at=1\n{\"format\":1,\n\"replicas\" 2}"), "line 3 of the block: the scenario is not valid JSON: expected `:`");
    }

    #[test]
    fn link_form() {
        let s = builtin::load("seed-walkthrough").unwrap();
        let frag = link::encode(&s, Some(4), None);
        let b = parse(&format!("#{frag} to=9")).unwrap();
        assert_eq!((b.at, b.to), (4, Some(9)));
        assert!(err(&format!("{frag} at=3")).contains("at is given twice"));
        assert!(err("#v=1&s=jeyJ").starts_with("line 1 of the block: the share link cannot be read"));
    }

    #[test]
    fn errors_name_what_is_wrong() {
        assert!(err("").contains("empty"));
        assert!(err("seed-walkthru at=1").contains("(did you mean seed-walkthrough?)"));
        assert_eq!(err("seed-walkthrough\n frm=2"), "line 2 of the block: unknown option \"frm\" (did you mean from?); the options are at, from, to, loop, autoplay, theme, controls, preset, height, title");
        assert_eq!(err("seed-walkthrough at=x"), "line 1 of the block: at=x: must be a step number (0, 1, 2…)");
        assert_eq!(err("seed-walkthrough from=5 to=2"), "line 1 of the block: from=5 is after to=2");
        assert_eq!(err("seed-walkthrough at=9 to=8"), "line 1 of the block: at=9 is outside from=0…to=8");
        assert!(err("seed-walkthrough theme=blue").contains("theme=blue: must be auto, light or dark"));
        assert!(err("seed-walkthrough controls=wide").contains("\"wide\" is not a control"));
        assert!(err("seed-walkthrough preset=kafka-9").contains("preset: must be one of"));
        assert!(err("seed-walkthrough at=1 at=2").contains("at is given twice (first on line 1)"));
        assert!(err("at=1 seed-walkthrough").contains("a block starts with a built-in name"));
        assert!(err("seed-walkthrough title=\"open").contains("closing quote"));
        assert!(err("seed-walkthrough height=5").contains("height=5"));
        let b = parse("seed-walkthrough at=100000").unwrap();
        assert!(b.run_to_first().map(|_| ()).unwrap_err().message.starts_with("at=100000: the run ends at step "));
    }

    #[test]
    fn preset_replaces_the_scenarios() {
        let b = parse("seed-walkthrough preset=textbook").unwrap();
        assert_eq!(b.scenario.preset.name(), "textbook");
    }
}
