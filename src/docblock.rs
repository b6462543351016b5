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
    /// The block's lines that gave the first step (`at=`, a share link's, else `from=`) and
    /// `to=` (0: not given), for errors found when the run is computed.
    pub at_line: usize,
    pub to_line: usize,
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
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for BlockError {}

/// An error message pushed piece by piece: the parser is in the page's
/// WebAssembly, where each `format!` would cost its own code. The documentation figures'
/// first core (feature `first`) keeps none of the words, as it keeps none of the scenario
/// reader's (`error_text!`): www/embed/live.js asks the docs core for the message to show.
struct Msg(String);

#[cfg(not(feature = "first"))]
#[inline(never)]
fn say(text: &str) -> Msg {
    Msg(text.to_string())
}

#[cfg(feature = "first")]
#[inline(always)]
fn say(_: &str) -> Msg {
    Msg(String::new())
}

impl Msg {
    #[cfg(not(feature = "first"))]
    #[inline(never)]
    fn s(mut self, text: &str) -> Msg {
        self.0.push_str(text);
        self
    }

    #[cfg(feature = "first")]
    #[inline(always)]
    fn s(self, _: &str) -> Msg {
        self
    }

    #[cfg(not(feature = "first"))]
    #[inline(never)]
    fn n(mut self, n: u64) -> Msg {
        json::write_u64(&mut self.0, n);
        self
    }

    #[cfg(feature = "first")]
    #[inline(always)]
    fn n(self, _: u64) -> Msg {
        self
    }

    /// The error, on line `line` of the block.
    fn at<T>(self, line: usize) -> Result<T, BlockError> {
        Err(BlockError { line, message: self.0 })
    }
}

pub const OPTIONS: &[&str] = &["at", "from", "to", "loop", "autoplay", "theme", "controls", "preset", "height", "title"];
const CONTROL_SETS: &[&str] = &["none", "play", "compact", "full"];
const CONTROL_PARTS: &[&str] = &["play", "step", "ends", "scrub", "speed", "reset", "text"];
const MAX_TITLE: usize = 200;

/// A word of the block and the line it is on.
struct Token<'a> {
    line: usize,
    key: &'a str,
    value: Option<&'a str>,
}

/// The text after any leading spaces and tabs.
fn skip_space(text: &str) -> &str {
    cut(text, text.bytes().take_while(u8::is_ascii_whitespace).count()).1
}

/// `text` cut at byte `at`, which is always at an ASCII byte, a line's start or the
/// end, so both parts are whole characters. `split_at_checked`, not indexing: indexing
/// links the standard library's panic for a cut inside a character, whose message
/// formats the character with `{:?}` (its Unicode tables: 3.5 KB gzipped of the full
/// core, 4.1 of the docs core; docs/performance.md, seventh pass).
fn cut(text: &str, at: usize) -> (&str, &str) {
    text.split_at_checked(at).unwrap_or((text, ""))
}

/// Where the word at the start of `text` ends: at a space, or also at `=`.
fn word_end(text: &str, at_equals: bool) -> usize {
    text.bytes().position(|b| b.is_ascii_whitespace() || (at_equals && b == b'=')).unwrap_or(text.len())
}

/// Splits line `n` of the block into `key`, `key=value` and `key="quoted value"` words.
fn tokens<'a>(line: &'a str, n: usize, out: &mut Vec<Token<'a>>) -> Result<(), BlockError> {
    let mut rest = skip_space(line);
    while !rest.is_empty() {
        let key;
        (key, rest) = cut(rest, word_end(rest, true));
        let mut value = None;
        if let Some(after) = rest.strip_prefix('=') {
            if let Some(quoted) = after.strip_prefix('"') {
                let Some(close) = quoted.find('"') else {
                    return say(key).s("=\"…: the closing quote is missing").at(n);
                };
                let (inside, closing) = cut(quoted, close);
                value = Some(inside);
                rest = closing.strip_prefix('"').unwrap_or(closing);
            } else {
                let (word, after) = cut(after, word_end(after, false));
                value = Some(word);
                rest = after;
            }
        }
        out.push(Token { line: n, key, value });
        rest = skip_space(rest);
    }
    Ok(())
}

/// Levenshtein distance (by bytes: the names are ASCII), for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.as_bytes().iter().enumerate() {
        let mut diagonal = i;
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(x != y)).min(above + 1).min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// ` (did you mean NAME?)` for the closest of `names`, if it is close enough; else nothing.
fn suggest(word: &str, names: &[&str]) -> String {
    if cfg!(feature = "first") {
        return String::new();
    }
    match names.iter().map(|n| (distance(word, n), *n)).min() {
        Some((d, n)) if d <= 2.max(word.len() / 3) => say(" (did you mean ").s(n).s("?)").0,
        _ => String::new(),
    }
}

fn step_number(t: &Token) -> Result<u64, BlockError> {
    let v = t.value.unwrap_or("");
    match v.parse::<u64>() {
        Ok(n) if v.len() <= 9 => Ok(n),
        _ => say(t.key).s("=").s(v).s(": must be a step number (0, 1, 2…)").at(t.line),
    }
}

fn flag(t: &Token) -> Result<bool, BlockError> {
    match t.value {
        None | Some("true" | "1" | "yes") => Ok(true),
        Some("false" | "0" | "no") => Ok(false),
        Some(v) => say(t.key).s("=").s(v).s(": write ").s(t.key).s(" alone, or ").s(t.key).s("=false").at(t.line),
    }
}

fn controls(t: &Token, v: &str) -> Result<String, BlockError> {
    for w in v.split(',') {
        if !CONTROL_SETS.contains(&w) && !CONTROL_PARTS.contains(&w) {
            return say("controls=")
                .s(v)
                .s(": \"")
                .s(w)
                .s("\" is not a control; use none, play, compact, full, or a comma list of ")
                .s(&CONTROL_PARTS.join(", "))
                .at(t.line);
        }
    }
    Ok(v.to_string())
}

/// Reads a block's text (the lines between the fences).
pub fn parse(text: &str) -> Result<DocBlock, BlockError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut opts = Vec::new();
    // A scenario: option lines (perhaps none), then JSON from the first line that starts with `{`.
    if let Some(j) = lines.iter().position(|l| skip_space(l).starts_with('{')) {
        for (i, line) in lines[..j].iter().enumerate() {
            tokens(line, i + 1, &mut opts)?;
        }
        // The rest of the text, from the JSON's first line (line j + 1 of the block).
        let json_text = cut(text, lines[j].as_ptr() as usize - text.as_ptr() as usize).1;
        let scenario = Scenario::from_json(json_text).map_err(|e| match json::parse(json_text) {
            Err(syntax) => BlockError { line: j + syntax.line, message: say("the scenario is not valid JSON: ").s(syntax.message).0 },
            Ok(_) => BlockError { line: j + 1, message: say("scenario: ").s(&e.to_string()).0 },
        })?;
        return finish(Source::Scenario, scenario, None, &opts);
    }
    for (i, line) in lines.iter().enumerate() {
        tokens(line, i + 1, &mut opts)?;
    }
    if opts.is_empty() {
        return say("the hwscope block is empty: write a built-in name with options (seed-walkthrough at=5), a share link (#v=1&s=…) or a scenario (JSON, format 1)").at(0);
    }
    let head = opts.remove(0);
    let word = match head.value {
        Some(v) => say(head.key).s("=").s(v).0,
        None => head.key.to_string(),
    };
    if word.starts_with('#') || word.starts_with("v=") {
        let l = link::decode(&word)
            .map_err(|e| BlockError { line: head.line, message: say("the share link cannot be read: ").s(&e.to_string()).0 })?;
        return finish(Source::Link { hash: l.hash }, l.scenario, l.at.map(|a| (head.line, a)), &opts);
    }
    if head.value.is_some() {
        return say(&word)
            .s(": a block starts with a built-in name (seed-walkthrough), a share link (#v=1&s=…) or a JSON scenario ({\"format\":1,…})")
            .at(head.line);
    }
    match builtin::json(&word) {
        Some(text) => {
            let scenario = Scenario::from_json(text).map_err(|e| BlockError { line: head.line, message: e.to_string() })?;
            finish(Source::Builtin(word), scenario, None, &opts)
        }
        None => {
            let names: Vec<&str> = builtin::names().collect();
            say("no built-in scenario \"")
                .s(&word)
                .s("\"")
                .s(&suggest(&word, &names))
                .s("; the built-ins are ")
                .s(&names.join(", "))
                .at(head.line)
        }
    }
}

/// Applies the options to the scenario and checks them against each other.
fn finish(mut source: Source, mut scenario: Scenario, link_at: Option<(usize, u64)>, opts: &[Token]) -> Result<DocBlock, BlockError> {
    let (mut from, mut to, mut looped, mut autoplay, mut theme, mut height, mut title) = (None, None, false, false, "auto", None, None);
    let mut controls_given = None;
    let mut at = link_at;
    // The line each option was given on (0: not given), in OPTIONS' order.
    let mut seen = [0; OPTIONS.len()];
    for t in opts {
        let Some(k) = OPTIONS.iter().position(|o| *o == t.key) else {
            let what = if t.key.starts_with('{') {
                say("a scenario's JSON starts on a line of its own")
            } else {
                say("unknown option \"").s(t.key).s("\"").s(&suggest(t.key, OPTIONS))
            };
            return what.s("; the options are ").s(&OPTIONS.join(", ")).at(t.line);
        };
        let name = OPTIONS[k];
        if seen[k] > 0 {
            return say(name).s(" is given twice (first on line ").n(seen[k] as u64).s(")").at(t.line);
        }
        seen[k] = t.line;
        let v = t.value.unwrap_or("");
        if v.is_empty() && !matches!(name, "loop" | "autoplay") {
            return say(name).s(" needs a value: ").s(name).s("=…").at(t.line);
        }
        match name {
            "at" => {
                if let Some((line, _)) = at {
                    return say("at is given twice: the share link on line ").n(line as u64).s(" has its own at=").at(t.line);
                }
                at = Some((t.line, step_number(t)?));
            }
            "from" => from = Some(step_number(t)?),
            "to" => to = Some(step_number(t)?),
            "loop" => looped = flag(t)?,
            "autoplay" => autoplay = flag(t)?,
            "theme" => {
                theme = match v {
                    "auto" => "auto",
                    "light" => "light",
                    "dark" => "dark",
                    _ => return say("theme=").s(v).s(": must be auto, light or dark").at(t.line),
                }
            }
            "controls" => controls_given = Some(controls(t, v)?),
            "preset" => {
                let preset = Preset::parse("preset", &json::Value::String(v.to_string()))
                    .map_err(|e| BlockError { line: t.line, message: e.to_string() })?;
                // A share link's h= names its state under the link's own preset: under
                // another one there is nothing to compare (it warned "the model changed").
                if let (Source::Link { hash }, true) = (&mut source, preset != scenario.preset) {
                    *hash = None;
                }
                scenario.preset = preset;
            }
            "height" => match v.parse::<u64>() {
                Ok(h @ 120..=2000) => height = Some(h as u32),
                _ => return say("height=").s(v).s(": must be a number of CSS pixels from 120 to 2000").at(t.line),
            },
            _ => {
                if v.chars().count() > MAX_TITLE {
                    return say("title: at most ").n(MAX_TITLE as u64).s(" characters").at(t.line);
                }
                title = Some(v.to_string());
            }
        }
    }
    if let (Some(f), Some(t)) = (from, to) {
        if f > t {
            return say("from=").n(f).s(" is after to=").n(t).at(seen[2]);
        }
    }
    let at_line = at.map_or(seen[1], |(line, _)| line);
    let at = match at {
        Some((line, a)) => {
            if from.is_some_and(|f| a < f) || to.is_some_and(|t| a > t) {
                let m = say("at=").n(a).s(" is outside from=").n(from.unwrap_or(0)).s("…to=");
                return match to {
                    Some(t) => m.n(t),
                    None => m.s("the end"),
                }
                .at(line);
            }
            a
        }
        None => from.unwrap_or(0),
    };
    Ok(DocBlock {
        source,
        scenario,
        at,
        from,
        to,
        looped,
        autoplay,
        theme,
        controls: controls_given.unwrap_or_else(|| "compact".to_string()),
        height,
        title,
        at_line,
        to_line: seen[2],
    })
}

impl DocBlock {
    /// The run at the step the block shows first, or an error when the run ends
    /// before `at` or `to` (a figure would otherwise show another step than the prose means).
    pub fn run_to_first(&self) -> Result<Run, BlockError> {
        let mut run = Run::new(self.scenario.clone());
        let target = self.to.unwrap_or(self.at).max(self.at);
        run.seek(target);
        if run.current() < target {
            let (what, line) = if self.to.is_some_and(|t| t > self.at) { ("to", self.to_line) } else { ("at", self.at_line) };
            return say(what).s("=").n(target).s(": the run ends at step ").n(run.current()).at(line);
        }
        run.seek(self.at);
        Ok(run)
    }

    /// Whether the state at `at` is the one a share link's `h=` names (None: no link or no hash).
    pub fn link_reproduced(&self, run: &Run) -> Option<bool> {
        match &self.source {
            Source::Link { hash: Some(h) } => Some(link::state_hash(run.record()) == *h),
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
        // Tabs and Windows line ends separate words too; the line numbers stay the block's.
        let b = parse("seed-walkthrough\tat=5\r\n\tto=9 loop\r\n").unwrap();
        assert_eq!((b.at, b.to, b.looped), (5, Some(9), true));
        assert_eq!(err("seed-walkthrough\r\nat=5\r\nat=6\r\n"), "line 3 of the block: at is given twice (first on line 2)");
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
        // Found when the run is computed, still on the option's own line.
        let line = |text: &str| parse(text).unwrap().run_to_first().map(|_| ()).unwrap_err().line;
        assert_eq!(line("seed-walkthrough\nloop\nat=100000"), 3);
        assert_eq!(line("seed-walkthrough\nfrom=2\nto=100000"), 3);
        assert_eq!(line("seed-walkthrough\nfrom=100000"), 2);
    }

    #[test]
    fn preset_replaces_the_scenarios() {
        let b = parse("seed-walkthrough preset=textbook").unwrap();
        assert_eq!(b.scenario.preset.name(), "textbook");
    }
}
