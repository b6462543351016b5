//! mdbook-hwscope: an mdBook preprocessor. Each ` ```hwscope ` block of a
//! chapter becomes a static figure (the SVG of the step it shows, drawn by
//! hwscope's core, with that step's sentence as alt text), which `auto.js`
//! turns into the live playground in the reader's browser.
//!
//!   mdbook-hwscope install [BOOK_DIR] [--assets DIST_DIR]   set a book up (book.toml, assets)
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
      adds [preprocessor.hwscope] and the loader script to BOOK_DIR/book.toml (default .),
      copies DIST_DIR (hwscope's `npm run dist` output; default $HWSCOPE_ASSETS) to SRC/hwscope/
  mdbook-hwscope supports RENDERER
  mdbook-hwscope               (run by mdBook: [context, book] as JSON on stdin)";

/// The versions of mdBook whose preprocessor JSON this reads (tested: 0.5.4).
const TESTED: &[&str] = &["0.4.", "0.5."];

/// The classic script book.toml's `additional-js` loads on every page: it loads
/// auto.js (a module) only on pages that have a figure.
const LOADER: &str = r#"// Added by `mdbook-hwscope install`: loads hwscope's auto.js where a page has a figure.
(function () {
  var here = document.currentScript && document.currentScript.src;
  if (!here || !document.querySelector("figure.hwscope-figure, pre > code.language-hwscope, pre.hwscope, div.hwscope")) return;
  import(new URL("hwscope/www/embed/auto.js", here).href);
})();
"#;

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
                        *content = docfigure::rewrite_markdown(content, |f: &Found| docfigure::draw(&file, f, report));
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
    std::fs::write(book.join("hwscope-loader.js"), LOADER).map_err(|e| format!("hwscope-loader.js: {e}"))?;
    let Some(assets) = assets else {
        return Err("give hwscope's published folder with --assets DIR (or $HWSCOPE_ASSETS): `npm run dist` in a hwscope checkout writes it to dist/".into());
    };
    if !assets.join("www/embed/auto.js").is_file() {
        return Err(format!("{}: no www/embed/auto.js here; --assets wants the folder `npm run dist` writes", assets.display()));
    }
    let target = book.join(&src).join("hwscope");
    if target.exists() {
        std::fs::remove_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    let n = copy_dir(&assets, &target).map_err(|e| format!("copying {} to {}: {e}", assets.display(), target.display()))?;
    eprintln!("mdbook-hwscope: copied {n} files to {}", target.display());
    Ok(())
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

/// Adds `[preprocessor.hwscope]` and `additional-js = ["hwscope-loader.js"]` under
/// `[output.html]`, keeping everything else as written. Running it twice changes nothing.
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
    match lines.iter().position(|l| l.trim().starts_with('[') && header(l) == "output.html") {
        None => {
            lines.push(String::new());
            lines.push("[output.html]".into());
            lines.push("additional-js = [\"hwscope-loader.js\"]".into());
        }
        Some(h) => {
            let end = (h + 1..lines.len()).find(|&k| lines[k].trim().starts_with('[')).unwrap_or(lines.len());
            match (h + 1..end).find(|&k| lines[k].split('=').next().is_some_and(|key| key.trim() == "additional-js")) {
                None => lines.insert(h + 1, "additional-js = [\"hwscope-loader.js\"]".into()),
                Some(k) if lines[k].contains("hwscope-loader.js") => {}
                Some(k) => {
                    let line = &lines[k];
                    let Some(close) = line.rfind(']') else {
                        return Err("book.toml: additional-js spans several lines; add \"hwscope-loader.js\" to it by hand".into());
                    };
                    let inside = line[line.find('[').map_or(0, |o| o + 1)..close].trim();
                    let sep = if inside.is_empty() { "" } else { ", " };
                    lines[k] = format!("{}{sep}\"hwscope-loader.js\"{}", &line[..close].trim_end(), &line[close..]);
                }
            }
        }
    }
    Ok(lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_toml_is_edited_once() {
        let t = "[book]\ntitle = \"T\"\n\n[output.html]\nadditional-js = [\"a.js\"]\ndefault-theme = \"light\"\n";
        let once = edit_book_toml(t).unwrap();
        assert_eq!(
            once,
            "[book]\ntitle = \"T\"\n\n[output.html]\nadditional-js = [\"a.js\", \"hwscope-loader.js\"]\ndefault-theme = \"light\"\n\n[preprocessor.hwscope]\n# on-error = \"show\"   # show a broken block's error in the page instead of failing the build\n"
        );
        assert_eq!(edit_book_toml(&once).unwrap(), once);
        let bare = edit_book_toml("[book]\ntitle = \"T\"\n").unwrap();
        assert!(bare.ends_with("[output.html]\nadditional-js = [\"hwscope-loader.js\"]\n"));
    }

    #[test]
    fn src_is_read_from_book_toml() {
        assert_eq!(toml_value("[book]\nsrc = \"pages\"\n", "book", "src").as_deref(), Some("pages"));
    }
}
