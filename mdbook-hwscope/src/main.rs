//! mdbook-hwscope: an mdBook preprocessor. Each ` ```hwscope ` block of a
//! chapter becomes a static figure (the SVG of the step it shows, drawn by
//! hwscope's core, with that step's sentence as alt text), which `auto.js`
//! turns into the live playground in the reader's browser.
//!
//!   mdbook-hwscope install [BOOK_DIR] [--assets DIST_DIR]   set a book up (book.toml, assets)
//!
//! The published crate carries hwscope's browser assets (build.rs puts them in the
//! binary), so `install` writes them to the book's `src/hwscope/` with nothing else
//! to fetch. A chapter with a figure gets one inline module script that loads
//! `hwscope/www/embed/auto.js` (relative to mdBook's `path_to_root`); chapters
//! without one load nothing of hwscope. Each build checks that `src/hwscope/` holds
//! the assets of this version (`hwscope-assets.json`) and says which when not.
//!   mdbook-hwscope supports RENDERER                         mdBook asks: html only
//!   mdbook-hwscope                                           mdBook's JSON on stdin, the book on stdout
//!
//! mdBook's protocol: `[context, book]` in, the book out. 0.5 names the book's
//! list `items`, 0.4 named it `sections` (with a `__non_exhaustive` field); the
//! book is read and written as JSON values, so both work unchanged.
//!
//! book.toml, `[preprocessor.hwscope]`: `on-error = "fail"` (the default: a block
//! that cannot be drawn stops the build, naming the file and line) or `"show"`
//! (the page shows the error in place of the figure; the build goes on).

use hwscope::cli::docfigure::{self, Found};
use hwscope::json::{self, Value};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage:
  mdbook-hwscope install [BOOK_DIR] [--assets DIST_DIR]
      adds [preprocessor.hwscope] to BOOK_DIR/book.toml (default .) and writes hwscope's
      browser assets to SRC/hwscope/: the ones inside this binary, or DIST_DIR's
      (hwscope's `npm run dist:docs` output; default $HWSCOPE_ASSETS)
  mdbook-hwscope supports RENDERER
  mdbook-hwscope               (run by mdBook: [context, book] as JSON on stdin)";

/// The versions of mdBook whose preprocessor JSON this reads (tested: 0.5.4).
const TESTED: &[&str] = &["0.4.", "0.5."];

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/assets.rs"));
}

/// The version stamp inside the assets folder: `{"name":"hwscope-assets","version":"X.Y.Z"}`.
const STAMP: &str = "hwscope-assets.json";

/// Appended once to a chapter that has a figure: loads auto.js from the book's
/// `hwscope/` folder (mdBook's `path_to_root` says where the book's root is from
/// this page, print.html included). One line, so Markdown keeps it as raw HTML.
const LOADER: &str = r#"<script type="module">import("./" + (typeof path_to_root === "string" ? path_to_root : "") + "hwscope/www/embed/auto.js");</script>"#;

/// The version a `hwscope-assets.json` names.
fn stamp_version(json_text: &str) -> Option<String> {
    let v = json::parse(json_text).ok()?;
    v.get("version").and_then(Value::as_str).map(String::from)
}

/// Build time: `src/hwscope/` must hold assets of this version; says what is missing or which versions differ.
fn check_assets(root: &Path, src: &str) -> Result<(), String> {
    let dir = root.join(src).join("hwscope");
    let shown = format!("{src}/hwscope");
    if !dir.join("www/embed/auto.js").is_file() {
        return Err(format!(
            "{shown}/www/embed/auto.js is missing: the figures cannot go live. Run `mdbook-hwscope install` in the book's folder"
        ));
    }
    let mine = env!("CARGO_PKG_VERSION");
    match std::fs::read_to_string(dir.join(STAMP)) {
        Err(_) => {
            eprintln!("mdbook-hwscope: warning: {shown}/{STAMP} is missing: cannot tell which version of hwscope's assets the book has (this is mdbook-hwscope {mine}); `mdbook-hwscope install` writes them");
            Ok(())
        }
        Ok(text) => match stamp_version(&text) {
            Some(v) if v == mine => Ok(()),
            Some(v) => Err(format!(
                "{shown}/ holds hwscope's assets version {v}, this is mdbook-hwscope {mine}: run `mdbook-hwscope install` again to replace them"
            )),
            None => Err(format!("{shown}/{STAMP} has no \"version\": run `mdbook-hwscope install` again")),
        },
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("supports") => return if args.get(1).is_some_and(|r| r == "html") { ExitCode::SUCCESS } else { ExitCode::FAILURE },
        Some("install") => install(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some("--version" | "-V") => {
            println!("mdbook-hwscope {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        None => preprocess(),
        Some(other) => Err(format!("unknown command {other:?}\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("mdbook-hwscope: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn get<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

/// Reads `[context, book]`, draws the figures, writes the book.
fn preprocess() -> Result<(), String> {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).map_err(|e| format!("reading stdin: {e}"))?;
    let value = json::parse(&input).map_err(|e| format!("mdBook's input is not JSON: {e}"))?;
    let Value::Array(mut pair) = value else { return Err("mdBook's input is not [context, book]".into()) };
    if pair.len() != 2 {
        return Err("mdBook's input is not [context, book]".into());
    }
    let mut book = pair.pop().unwrap_or(Value::Null);
    let ctx = pair.pop().unwrap_or(Value::Null);
    let version = get(&ctx, &["mdbook_version"]).and_then(Value::as_str).unwrap_or("?");
    if !TESTED.iter().any(|t| version.starts_with(t)) {
        eprintln!("mdbook-hwscope: warning: made for mdBook 0.4 and 0.5 (tested with 0.5.4); this is mdBook {version}");
    }
    let src = get(&ctx, &["config", "book", "src"]).and_then(Value::as_str).unwrap_or("src").to_string();
    let show = match get(&ctx, &["config", "preprocessor", "hwscope", "on-error"]).and_then(Value::as_str) {
        None | Some("fail") => false,
        Some("show") => true,
        Some(other) => return Err(format!("book.toml: [preprocessor.hwscope] on-error = {other:?}: must be \"fail\" or \"show\"")),
    };
    let root = get(&ctx, &["root"]).and_then(Value::as_str).map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    let mut report = docfigure::Report::default();
    let list = if book.get("items").is_some() { "items" } else { "sections" };
    if let Value::Object(entries) = &mut book {
        for (k, v) in entries.iter_mut() {
            if k == list {
                walk(v, &src, &mut report);
            }
        }
    }
    for w in &report.warnings {
        eprintln!("mdbook-hwscope: warning: {w}");
    }
    for e in &report.errors {
        eprintln!("mdbook-hwscope: {e}");
    }
    if !report.errors.is_empty() && !show {
        return Err(format!(
            "{} hwscope block(s) cannot be drawn (see above). Fix them, or set on-error = \"show\" under [preprocessor.hwscope] to show the errors in the pages instead",
            report.errors.len()
        ));
    }
    if report.figures + report.errors.len() > 0 {
        check_assets(&root, &src)?;
    }
    let mut out = String::with_capacity(input.len());
    json::ToJson::write_json(&book, &mut out);
    std::io::stdout().write_all(out.as_bytes()).map_err(|e| format!("writing stdout: {e}"))
}

/// Every chapter, depth first: `{"Chapter": {"content", "source_path", "sub_items"}}`.
fn walk(items: &mut Value, src: &str, report: &mut docfigure::Report) {
    let Value::Array(items) = items else { return };
    for item in items {
        let Value::Object(entries) = item else { continue };
        for (kind, chapter) in entries.iter_mut() {
            if kind != "Chapter" {
                continue;
            }
            let file = match get(chapter, &["source_path"]).or_else(|| get(chapter, &["path"])).and_then(Value::as_str) {
                Some(p) => format!("{src}/{p}"),
                None => format!("{src}/(draft chapter)"),
            };
            let Value::Object(fields) = chapter else { continue };
            for (k, v) in fields.iter_mut() {
                match (k.as_str(), v) {
                    ("content", Value::String(content)) if content.contains("hwscope") => {
                        let mut blocks = 0;
                        let drawn = docfigure::rewrite_markdown(content, |f: &Found| {
                            blocks += 1;
                            docfigure::draw(&file, f, report)
                        });
                        *content = drawn;
                        if blocks > 0 {
                            content.push_str("\n\n");
                            content.push_str(LOADER);
                            content.push('\n');
                        }
                    }
                    ("sub_items", sub) => walk(sub, src, report),
                    _ => {}
                }
            }
        }
    }
}

/// `mdbook-hwscope install`: the preprocessor and the loader in book.toml, the assets in the book.
fn install(args: &[String]) -> Result<(), String> {
    let mut book = PathBuf::from(".");
    let mut assets = std::env::var_os("HWSCOPE_ASSETS").map(PathBuf::from);
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--assets" => {
                i += 1;
                assets = Some(PathBuf::from(args.get(i).ok_or("--assets needs a folder")?));
            }
            a if a.starts_with('-') => return Err(format!("unknown option {a}\n{USAGE}")),
            a => book = PathBuf::from(a),
        }
        i += 1;
    }
    let toml_path = book.join("book.toml");
    let toml =
        std::fs::read_to_string(&toml_path).map_err(|e| format!("{}: {e} (is {} an mdBook?)", toml_path.display(), book.display()))?;
    let src = toml_value(&toml, "book", "src").unwrap_or_else(|| "src".into());
    let edited = edit_book_toml(&toml)?;
    if edited != toml {
        std::fs::write(&toml_path, &edited).map_err(|e| format!("{}: {e}", toml_path.display()))?;
        eprintln!("mdbook-hwscope: updated {}", toml_path.display());
    }
    // An older install loaded auto.js from every page through this file; chapters now load it themselves.
    let _ = std::fs::remove_file(book.join("hwscope-loader.js"));
    let target = book.join(&src).join("hwscope");
    let from = match assets {
        Some(dir) => {
            if !dir.join("www/embed/auto.js").is_file() {
                return Err(format!("{}: no www/embed/auto.js here; --assets wants the folder `npm run dist:docs` writes", dir.display()));
            }
            Some(dir)
        }
        None if embedded::ASSETS.is_empty() => {
            return Err("this mdbook-hwscope was built without hwscope's browser assets (a build from a git checkout): give the folder with --assets DIR (`npm run dist:docs` writes dist-docs/), or install the published crate".into());
        }
        None => None,
    };
    if target.exists() {
        std::fs::remove_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    let n = match &from {
        Some(dir) => copy_dir(dir, &target).map_err(|e| format!("copying {} to {}: {e}", dir.display(), target.display()))?,
        None => write_embedded(&target).map_err(|e| format!("writing {}: {e}", target.display()))?,
    };
    eprintln!("mdbook-hwscope: wrote {n} files to {}", target.display());
    match std::fs::read_to_string(target.join(STAMP)).ok().as_deref().and_then(stamp_version) {
        Some(v) if v != env!("CARGO_PKG_VERSION") => {
            eprintln!("mdbook-hwscope: warning: those assets are hwscope {v}, this is mdbook-hwscope {}", env!("CARGO_PKG_VERSION"))
        }
        _ => {}
    }
    Ok(())
}

/// The assets inside the binary, written under `to`.
fn write_embedded(to: &Path) -> std::io::Result<usize> {
    for (rel, bytes) in embedded::ASSETS {
        let path = to.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, bytes)?;
    }
    Ok(embedded::ASSETS.len())
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(to)?;
    let mut n = 0;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let name = e.file_name();
        // Host-specific files of the published site are not the book's.
        if matches!(name.to_str(), Some("_headers" | ".nojekyll")) {
            continue;
        }
        if e.file_type()?.is_dir() {
            n += copy_dir(&e.path(), &to.join(&name))?;
        } else {
            std::fs::copy(e.path(), to.join(&name))?;
            n += 1;
        }
    }
    Ok(n)
}

/// A `key = "value"` of a `[table]` in book.toml (top-level strings only).
fn toml_value(toml: &str, table: &str, key: &str) -> Option<String> {
    let mut current = String::new();
    for line in toml.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            current = t.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        } else if current == table {
            if let Some((k, v)) = t.split_once('=') {
                if k.trim() == key {
                    return Some(v.trim().trim_matches('"').to_string());
                }
            }
        }
    }
    None
}

/// Adds `[preprocessor.hwscope]`, keeping everything else as written, and takes out the
/// `"hwscope-loader.js"` an older install put in `additional-js`. Running it twice changes nothing.
fn edit_book_toml(toml: &str) -> Result<String, String> {
    let mut lines: Vec<String> = toml.lines().map(String::from).collect();
    let header = |l: &str| l.trim().trim_matches(|c| c == '[' || c == ']').trim().to_string();
    if !lines.iter().any(|l| l.trim().starts_with('[') && header(l) == "preprocessor.hwscope") {
        if lines.last().is_some_and(|l| !l.trim().is_empty()) {
            lines.push(String::new());
        }
        lines.push("[preprocessor.hwscope]".into());
        lines.push("# on-error = \"show\"   # show a broken block's error in the page instead of failing the build".into());
    }
    lines.retain(|l| l.replace(' ', "") != "additional-js=[\"hwscope-loader.js\"]");
    for l in &mut lines {
        if l.trim_start().starts_with("additional-js") && l.contains("\"hwscope-loader.js\"") {
            *l = l.replace(", \"hwscope-loader.js\"", "").replace("\"hwscope-loader.js\", ", "");
        }
    }
    Ok(lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_toml_is_edited_once() {
        let t = "[book]\ntitle = \"T\"\n\n[output.html]\nadditional-js = [\"a.js\", \"hwscope-loader.js\"]\ndefault-theme = \"light\"\n";
        let once = edit_book_toml(t).unwrap();
        assert_eq!(
            once,
            "[book]\ntitle = \"T\"\n\n[output.html]\nadditional-js = [\"a.js\"]\ndefault-theme = \"light\"\n\n[preprocessor.hwscope]\n# on-error = \"show\"   # show a broken block's error in the page instead of failing the build\n"
        );
        assert_eq!(edit_book_toml(&once).unwrap(), once);
        let old = edit_book_toml("[book]\n[output.html]\nadditional-js = [\"hwscope-loader.js\"]\n").unwrap();
        assert!(!old.contains("additional-js"), "{old}");
    }

    #[test]
    fn src_is_read_from_book_toml() {
        assert_eq!(toml_value("[book]\nsrc = \"pages\"\n", "book", "src").as_deref(), Some("pages"));
    }
}
