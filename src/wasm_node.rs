//! The npm package's Node facade (feature `node`; scripts/packages/npm.mjs builds
//! it into a wasm package of its own, never the page's): the command line as the
//! native binary runs it (`cli`), and one block drawn as its static figure
//! (`renderBlock`, for the docs-tool adapters at build time). No rule lives here:
//! `cli::run_args` and `cli::docfigure` are the native command's own code, so both
//! print the same bytes. Reference: docs/api.md.

use crate::cli::docfigure;
use crate::json::Obj;
use wasm_bindgen::prelude::*;

/// Runs the command line with `args` (no program name); returns the exit status.
/// Output goes to the process's stdout and stderr (src/cli/node-io.js).
#[wasm_bindgen]
pub fn cli(args: Vec<String>) -> u8 {
    crate::cli::run_args(&args)
}

/// A ```hwscope block's text drawn as its first step, as JSON text:
/// `{"ok":true,"svg","alt","html","title","step","height","min_height","warning"}` or
/// `{"ok":false,"line","message","error","error_box"}` (`line`: of the block, 1-based,
/// 0 for the whole block; `error`: the message as `hwscope figure` words it).
#[wasm_bindgen(js_name = renderBlock)]
pub fn render_block(text: &str) -> String {
    let mut out = String::new();
    match docfigure::drawn(text) {
        Ok(d) => {
            Obj::new(&mut out)
                .field("ok", &true)
                .field("svg", &d.svg)
                .field("alt", &d.alt)
                .field("html", &d.html)
                .field("title", &d.title)
                .field("step", &d.step)
                .field("height", &d.height)
                .field("min_height", &d.min_height)
                .field("warning", &docfigure::link_warning(text))
                .end();
        }
        Err(e) => {
            Obj::new(&mut out)
                .field("ok", &false)
                .field("line", &(e.line as u64))
                .field("message", &e.message)
                .field("error", &e.to_string())
                .field("error_box", &docfigure::error_box(text, &e.to_string()))
                .end();
        }
    }
    out
}
