//! The source tree's shape, checked by reading `src/`:
//! - no import circle: among the crate's top-level modules, and among the
//!   files of each directory module (a child using its parent's items is not
//!   an edge; re-exports are followed to the module that defines the item);
//! - `sim/` never reaches the step record, the narration, the JSON layer or the
//!   command line: the engine knows nothing of how it is told or drawn;
//! - no rule in `sim/` writes a sentence (`format!` is for the record name and
//!   the invariants' texts only);
//! - no source file is over 600 lines;
//! - every function docs/behaviors.md names for a rule is in the file it names.
//!
//! Run alone with `cargo test --test architecture`; on failure it prints the
//! module graph it read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 600;

/// A module path: `[]` is the crate root, `["sim", "leader"]` is `crate::sim::leader`.
type Module = Vec<String>;

struct Source {
    path: PathBuf,
    module: Module,
    /// Whether the file is a directory module's `mod.rs` (or `lib.rs`).
    is_dir: bool,
    code: String,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The library's sources (the binary's thin `main` is its own crate).
fn sources() -> Vec<Source> {
    let root = src_dir();
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter(|p| !p.starts_with(root.join("bin")))
        .map(|path| {
            let rel = path.strip_prefix(&root).expect("under src/").with_extension("");
            let mut module: Module = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
            let is_dir = matches!(module.last().map(String::as_str), Some("mod" | "lib"));
            if is_dir {
                module.pop();
            }
            let code = strip_comments_and_strings(&std::fs::read_to_string(&path).expect("readable"));
            Source { path, module, is_dir, code }
        })
        .collect()
}

/// The code with comments removed and string and char literals emptied, so that
/// paths are found only where they are code.
fn strip_comments_and_strings(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some(raw) = rest.strip_prefix("r#\"") {
            i += 3 + raw.find("\"#").map_or(raw.len(), |e| e + 2);
            out.push_str("\"\"");
        } else if rest.starts_with('"') || rest.starts_with("b\"") || rest.starts_with("r\"") {
            let mut j = if rest.starts_with('"') { 1 } else { 2 };
            while j < rest.len() {
                match b[i + j] {
                    b'\\' => j += 2,
                    b'"' => break,
                    _ => j += 1,
                }
            }
            i += j + 1;
            out.push_str("\"\"");
        } else if let Some(quoted) = rest.strip_prefix('\'') {
            // A char literal ('x', '\n', '"'), or a lifetime ('a).
            let close = match quoted.strip_prefix('\\') {
                Some(escaped) => escaped.find('\'').map(|e| e + 3),
                None => quoted.char_indices().nth(1).filter(|&(_, c)| c == '\'').map(|(k, _)| k + 2),
            };
            match close {
                Some(n) => {
                    i += n;
                    out.push_str("' '");
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths of every `use` statement (braces expanded) and every inline
/// `crate::…`, `super::…` and `self::…` path.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    // `use` statements.
    while let Some(i) = find_word(rest, "use") {
        let after = &rest[i + 3..];
        let end = after.find(';').unwrap_or(after.len());
        expand(&after[..end], Vec::new(), &mut out);
        rest = &after[end..];
    }
    // Inline paths.
    for start in ["crate::", "super::", "self::"] {
        let mut rest = code;
        while let Some(i) = rest.find(start) {
            let before = rest[..i].chars().next_back();
            let path_text: String = rest[i..].chars().take_while(|&c| is_ident(c) || c == ':').collect();
            if !before.is_some_and(|c| is_ident(c) || c == ':') {
                out.push(path_text.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect());
            }
            rest = &rest[i + path_text.len().max(1)..];
        }
    }
    out
}

fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(is_ident) && after.is_some_and(char::is_whitespace) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// `a::{b, c::{d}}` → a::b, a::c::d (with `prefix` in front).
fn expand(tree: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let mut head = prefix;
        head.extend(tree[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string));
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..i], head.clone(), out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], head, out);
    } else {
        let path = tree.split(" as ").next().unwrap_or("");
        let mut p = prefix;
        p.extend(path.split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string));
        if !p.is_empty() {
            out.push(p);
        }
    }
}

struct Crate {
    modules: BTreeSet<Module>,
    /// (module, name) → the path a `pub use` in that module points to.
    reexports: BTreeMap<(Module, String), Vec<String>>,
}

impl Crate {
    fn new(sources: &[Source]) -> Crate {
        let modules = sources.iter().map(|s| s.module.clone()).collect();
        let mut reexports = BTreeMap::new();
        for s in sources {
            let mut rest = s.code.as_str();
            while let Some(i) = rest.find("pub use ") {
                let after = &rest[i + 8..];
                let end = after.find(';').unwrap_or(after.len());
                let mut paths = Vec::new();
                expand(&after[..end], Vec::new(), &mut paths);
                for p in paths {
                    if let Some(name) = p.last() {
                        reexports.insert((s.module.clone(), name.clone()), p.clone());
                    }
                }
                rest = &after[end..];
            }
        }
        Crate { modules, reexports }
    }

    /// The module a path written in module `from` refers to, if it is in this crate.
    fn resolve(&self, from: &Module, path: &[String], depth: usize) -> Option<Module> {
        let (base, rest): (Module, &[String]) = match path.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &path[1..]),
            Some("self") => (from.clone(), &path[1..]),
            Some("super") => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                (from[..from.len().saturating_sub(ups)].to_vec(), &path[ups..])
            }
            Some(first) => {
                // A relative path names a child module, or another crate.
                let mut child = from.clone();
                child.push(first.to_string());
                if !self.modules.contains(&child) {
                    return None;
                }
                (from.clone(), path)
            }
            None => return None,
        };
        self.follow(base, rest, depth)
    }

    /// Walks a path down the modules; an item ends it, a re-exported one is followed.
    fn follow(&self, mut module: Module, rest: &[String], depth: usize) -> Option<Module> {
        for seg in rest {
            let mut next = module.clone();
            next.push(seg.clone());
            if self.modules.contains(&next) {
                module = next;
                continue;
            }
            if let Some(target) = self.reexports.get(&(module.clone(), seg.clone())).filter(|_| depth < 8) {
                return self.resolve(&module, target, depth + 1).or(Some(module));
            }
            return Some(module);
        }
        Some(module)
    }
}

/// Whether the graph has a cycle; returns one if so.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == m).unwrap_or(0);
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(m, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if state.get(n).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// Every reference from a source file to another module of the crate.
fn references(sources: &[Source]) -> Vec<(Module, Module)> {
    let krate = Crate::new(sources);
    let mut out = Vec::new();
    for s in sources {
        for p in paths(&s.code) {
            if let Some(target) = krate.resolve(&s.module, &p, 0) {
                if target != s.module {
                    out.push((s.module.clone(), target));
                }
            }
        }
    }
    out
}

/// The graph among the children of `parent` (each child with everything under it).
fn graph_under(refs: &[(Module, Module)], parent: &[String]) -> BTreeMap<String, BTreeSet<String>> {
    let child =
        |m: &Module| -> Option<String> { (m.len() > parent.len() && m[..parent.len()] == *parent).then(|| m[parent.len()].clone()) };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in refs {
        if let (Some(a), Some(b)) = (child(from), child(to)) {
            if a != b {
                edges.entry(a).or_default().insert(b);
            }
        }
    }
    edges
}

fn show(edges: &BTreeMap<String, BTreeSet<String>>) -> String {
    edges.iter().map(|(a, bs)| format!("  {a} → {}", bs.iter().cloned().collect::<Vec<_>>().join(", "))).collect::<Vec<_>>().join("\n")
}

#[test]
fn no_import_circle() {
    let sources = sources();
    let refs = references(&sources);
    let dirs: BTreeSet<Module> = sources.iter().filter(|s| s.is_dir).map(|s| s.module.clone()).collect();
    let mut problems = Vec::new();
    for dir in &dirs {
        let edges = graph_under(&refs, dir);
        if let Some(cycle) = find_cycle(&edges) {
            problems.push(format!("circle among the modules of {}: {}\n{}", name(dir), cycle.join(" → "), show(&edges)));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    // The check sees the edges that matter (a broken parser would find none).
    let top = graph_under(&refs, &[]);
    for (a, b) in [("record", "sim"), ("record", "narrate"), ("narrate", "sim"), ("sim", "scenario"), ("run", "sim")] {
        assert!(top.get(a).is_some_and(|bs| bs.contains(b)), "expected an edge {a} → {b}:\n{}", show(&top));
    }
    let sim = graph_under(&refs, &["sim".to_string()]);
    assert!(sim.get("leader").is_some_and(|bs| bs.contains("event")), "expected sim::leader → sim::event:\n{}", show(&sim));
}

#[test]
fn the_engine_knows_nothing_of_records_narration_json_or_the_cli() {
    let sources = sources();
    let refs = references(&sources);
    let forbidden = ["record", "narrate", "json", "cli", "run", "link", "wasm", "builtin"];
    let bad: Vec<String> = refs
        .iter()
        .filter(|(from, to)| from.first().map(String::as_str) == Some("sim") && to.first().is_some_and(|t| forbidden.contains(&t.as_str())))
        .map(|(from, to)| format!("{} uses {}", name(from), name(to)))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The command line is a leaf: no other module uses it (it is not in the page's
    // WebAssembly); only its Node entry point, wasm_node (the npm package's command), calls it.
    let uses_cli: Vec<String> = refs
        .iter()
        .filter(|(from, to)| {
            !from.is_empty() && from[0] != "cli" && from[0] != "wasm_node" && to.first().map(String::as_str) == Some("cli")
        })
        .map(|(from, to)| format!("{} uses {}", name(from), name(to)))
        .collect();
    assert!(uses_cli.is_empty(), "{}", uses_cli.join("\n"));
}

#[test]
fn no_rule_writes_a_sentence() {
    let root = src_dir().join("sim");
    let mut bad = Vec::new();
    for s in sources() {
        let Ok(rel) = s.path.strip_prefix(&root) else { continue };
        // The record name and the invariants' violation texts are not narration.
        if rel == Path::new("mod.rs") || rel.starts_with("invariants") {
            continue;
        }
        for needle in ["format!", "say!", "write!", "to_string()"] {
            if s.code.contains(needle) {
                bad.push(format!("src/sim/{}: {needle}", rel.display()));
            }
        }
    }
    assert!(bad.is_empty(), "sentences belong in src/narrate/:\n{}", bad.join("\n"));
}
#[test]
fn no_source_file_is_over_600_lines() {
    let mut paths = Vec::new();
    walk(&src_dir(), &mut paths);
    let mut long: Vec<String> = paths
        .iter()
        .map(|p| (p, std::fs::read_to_string(p).map_or(0, |t| t.lines().count())))
        .filter(|(_, n)| *n > MAX_LINES)
        .map(|(p, n)| format!("{}: {n} lines", p.display()))
        .collect();
    long.sort();
    assert!(long.is_empty(), "over {MAX_LINES} lines:\n{}", long.join("\n"));
}

/// Every function docs/behaviors.md names for a rule or a switch is in the file it
/// names (`name` (file) and `a`, `b` (file), paths under src/sim/).
#[test]
fn the_rules_table_names_real_functions() {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/behaviors.md")).expect("docs/behaviors.md");
    let mut checked = 0;
    let mut missing = Vec::new();
    for line in docs.lines().filter(|l| l.starts_with('|')) {
        // Each "`f`, `g` (file.rs)" group in the row.
        let mut rest = line;
        while let Some(open) = rest.find(".rs)") {
            let group = &rest[..open + 3];
            let file_start = group.rfind('(').expect("a file in parentheses");
            let file = &group[file_start + 1..];
            let names_part = &group[..file_start];
            let names_start = names_part.rfind(['|', ';']).map_or(0, |i| i + 1);
            let source = std::fs::read_to_string(src_dir().join("sim").join(file)).unwrap_or_default();
            for name in names_part[names_start..].split('`').skip(1).step_by(2) {
                let name = name.split(' ').next().unwrap_or("").trim_end_matches("(_response)");
                if name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    checked += 1;
                    if !source.contains(&format!("fn {name}(")) {
                        missing.push(format!("{name} ({file})"));
                    }
                }
            }
            rest = &rest[open + 4..];
        }
    }
    assert!(checked > 50, "read only {checked} names from docs/behaviors.md");
    assert!(missing.is_empty(), "docs/behaviors.md names functions that are not there:\n{}", missing.join("\n"));
}
