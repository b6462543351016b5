//! Puts hwscope's browser assets (the folder a book serves as `src/hwscope/`:
//! auto.js, the core, the stills) inside the binary, so that `mdbook-hwscope
//! install` needs nothing else. They are build outputs, not sources: `npm run
//! packages` (scripts/packages/crate.mjs) writes them to `mdbook-hwscope/assets/`
//! (ignored by git) before `cargo package`, and the published crate carries them.
//! `$HWSCOPE_ASSETS_DIR` names another folder. Without either (a plain `cargo
//! build` in a checkout) the binary has none and `install` asks for `--assets`.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=HWSCOPE_ASSETS_DIR");
    let here = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let dir = match std::env::var_os("HWSCOPE_ASSETS_DIR") {
        Some(d) => PathBuf::from(d),
        None => here.join("assets"),
    };
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files = Vec::new();
    if dir.join("www/embed/auto.js").is_file() {
        walk(&dir, &dir, &mut files);
        files.sort();
    }
    let mut code = String::from("/// hwscope's browser assets: (path inside the folder, bytes). Empty when built without them.\npub static ASSETS: &[(&str, &[u8])] = &[\n");
    for (rel, abs) in &files {
        println!("cargo:rerun-if-changed={}", abs.display());
        // `{:?}` writes a Rust string literal for any path.
        let _ = writeln!(code, "    ({rel:?}, include_bytes!({:?})),", abs.display().to_string());
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("assets.rs");
    std::fs::write(&out, code).expect("writing OUT_DIR/assets.rs");
}

/// Every file under `dir`, as (path relative to `root` with `/`, absolute path).
fn walk(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            walk(root, &path, files);
        } else if let Ok(rel) = path.strip_prefix(root) {
            let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            files.push((rel.join("/"), path));
        }
    }
}
