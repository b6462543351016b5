//! What the command line reads and writes: files, folders, stdin, stdout and
//! stderr. Natively that is `std`; in the npm package's WebAssembly (feature
//! `node`, `src/wasm_node.rs`) the same calls go to Node's `fs` through
//! `src/cli/node-io.js`, which words its errors as `std::io::Error` does, so both
//! command lines print the same bytes.

use std::path::{Path, PathBuf};

/// A folder entry: its path and whether it is a folder or a plain file (symbolic links are neither).
pub struct Entry {
    pub path: PathBuf,
    pub is_dir: bool,
    pub is_file: bool,
}

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
mod imp {
    use super::Entry;
    use std::io::{Read, Write};
    use std::path::Path;

    pub fn read_to_string(path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }

    pub fn write(path: &Path, text: &str) -> Result<(), String> {
        std::fs::write(path, text).map_err(|e| e.to_string())
    }

    pub fn read_dir(dir: &Path) -> Result<Vec<Entry>, String> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
            let e = e.map_err(|e| e.to_string())?;
            let kind = e.file_type().map_err(|e| e.to_string())?;
            out.push(Entry { path: e.path(), is_dir: kind.is_dir(), is_file: kind.is_file() });
        }
        Ok(out)
    }

    pub fn stdin() -> Result<String, String> {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| e.to_string())?;
        Ok(text)
    }

    /// False when the reader has gone (`hwscope … | head`).
    pub fn stdout(text: &str) -> bool {
        std::io::stdout().write_all(text.as_bytes()).is_ok()
    }

    pub fn stderr(text: &str) {
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
}

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod imp {
    use super::Entry;
    use std::path::{Path, PathBuf};
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(module = "/src/cli/node-io.js")]
    extern "C" {
        #[wasm_bindgen(catch)]
        fn io_read(path: &str) -> Result<String, JsValue>;
        #[wasm_bindgen(catch)]
        fn io_write(path: &str, text: &str) -> Result<(), JsValue>;
        /// Entries as "d name", "f name" or "o name" (other), one a string.
        #[wasm_bindgen(catch)]
        fn io_read_dir(path: &str) -> Result<Vec<String>, JsValue>;
        #[wasm_bindgen(catch)]
        fn io_stdin() -> Result<String, JsValue>;
        fn io_stdout(text: &str) -> bool;
        fn io_stderr(text: &str);
    }

    fn message(e: JsValue) -> String {
        e.as_string().unwrap_or_else(|| "input/output error".to_string())
    }

    pub fn read_to_string(path: &Path) -> Result<String, String> {
        io_read(&path.to_string_lossy()).map_err(message)
    }

    pub fn write(path: &Path, text: &str) -> Result<(), String> {
        io_write(&path.to_string_lossy(), text).map_err(message)
    }

    pub fn read_dir(dir: &Path) -> Result<Vec<Entry>, String> {
        let names = io_read_dir(&dir.to_string_lossy()).map_err(message)?;
        Ok(names
            .iter()
            .map(|n| {
                let (kind, name) = n.split_at(n.len().min(2));
                let path: PathBuf = dir.join(name);
                Entry { path, is_dir: kind == "d ", is_file: kind == "f " }
            })
            .collect())
    }

    pub fn stdin() -> Result<String, String> {
        io_stdin().map_err(message)
    }

    pub fn stdout(text: &str) -> bool {
        io_stdout(text)
    }

    pub fn stderr(text: &str) {
        io_stderr(text)
    }
}

/// A file's text; the error as `std::io::Error` words it.
pub fn read_to_string(path: impl AsRef<Path>) -> Result<String, String> {
    imp::read_to_string(path.as_ref())
}

pub fn write(path: impl AsRef<Path>, text: &str) -> Result<(), String> {
    imp::write(path.as_ref(), text)
}

/// A folder's entries, in the order the system gives them.
pub fn read_dir(dir: impl AsRef<Path>) -> Result<Vec<Entry>, String> {
    imp::read_dir(dir.as_ref())
}

pub fn stdin() -> Result<String, String> {
    imp::stdin()
}

/// Writes to stdout; false when the reader has gone.
pub fn stdout(text: &str) -> bool {
    imp::stdout(text)
}

pub fn stderr(text: &str) {
    imp::stderr(text)
}

/// Stdout through a buffer (records are many and short): flushed every 64 KiB and at the end.
pub struct Buffered {
    text: String,
}

impl Buffered {
    pub fn new() -> Self {
        Buffered { text: String::with_capacity(1 << 16) }
    }

    /// Adds text; false when the reader has gone.
    pub fn push(&mut self, s: &str) -> bool {
        self.text.push_str(s);
        self.text.len() < 1 << 16 || self.flush()
    }

    pub fn flush(&mut self) -> bool {
        let ok = self.text.is_empty() || stdout(&self.text);
        self.text.clear();
        ok
    }
}

impl Default for Buffered {
    fn default() -> Self {
        Self::new()
    }
}
