//! A ` ```hwscope ` block as a static figure, at build time: the SVG of the
//! step the block shows first (drawn by `svg::render`, as `hwscope svg`), as an
//! `<img>` whose alt text is that step's sentence, in a box that keeps the
//! height the live figure will take, so nothing moves when `auto.js` replaces
//! it. Used by `hwscope figure`, `hwscope render-docs` and `mdbook-hwscope`.
//!
//! Also here: finding the blocks, in Markdown (fenced code, for the mdBook
//! preprocessor) and in built HTML pages (for `hwscope render-docs`, after
//! MkDocs, Hugo or Docusaurus has written them).

use crate::cli::svg;
use crate::docblock::{self, BlockError, DocBlock};

/// The least height of a figure (CSS px): below it the live stage is too small
/// to read on a phone. A block's `height=` raises (or lowers) it.
pub const MIN_HEIGHT: u32 = 380;

/// Room under the picture for the live figure's own lines (its title and status, the
/// step's sentence, the controls: ~140 px that do not scale with the column, where the
/// static picture's shrink with it). Without it the live stage was drawn smaller than
/// the picture it replaces in the columns docs themes have (VitePress 624 px: stage text
/// 7 px live against 9 px static). 80 px up to an 853 px column, none from 960 px (where
/// the picture's own height leaves the stage its full size), in between less: CSS
/// padding, so `%` is the column's width. `www/embed/auto.js` and the Hugo module's
/// render hook give the boxes they draw the same room.
pub const LIVE_ROOM: &str = "box-sizing:content-box;padding:0 0 clamp(0px,calc((960px - 100%) * .75),80px)";

/// The static figure for a block's text, or the error that the block has.
pub fn figure(text: &str) -> Result<String, BlockError> {
    drawn(text).map(|d| d.html)
}

/// A block drawn: the step's SVG, its alt text (the title, the step and its sentence),
/// and the figure's HTML (what `figure` returns).
pub struct Drawn {
    pub svg: String,
    pub alt: String,
    pub html: String,
    pub title: String,
    pub step: u64,
    /// The SVG's height at its 800 px width.
    pub height: u32,
    /// The block's least height in CSS px.
    pub min_height: u32,
}

/// A block's text drawn as its first step, or the error that the block has.
pub fn drawn(text: &str) -> Result<Drawn, BlockError> {
    let block = docblock::parse(text)?;
    let run = block.run_to_first()?;
    Ok(figure_of(&block, &run.record(), text))
}

/// Whether a share link's block still reproduces the state its `h=` names (None: nothing to check).
pub fn link_warning(text: &str) -> Option<String> {
    let block = docblock::parse(text).ok()?;
    let run = block.run_to_first().ok()?;
    match block.link_reproduced(&run) {
        Some(false) => Some(format!(
            "the share link's state at step {} differs from what this version computes (the model changed since the link was made)",
            block.at
        )),
        _ => None,
    }
}

fn figure_of(block: &DocBlock, rec: &crate::StepRecord, text: &str) -> Drawn {
    let title = block.title();
    let image = svg::render(rec, &title);
    let height =
        image.split_once("height=\"").and_then(|(_, rest)| rest.split('"').next()).and_then(|h| h.parse::<u32>().ok()).unwrap_or(600);
    let alt = format!("{title}, step {}: {}", rec.step, rec.text);
    let min = block.height.unwrap_or(MIN_HEIGHT);
    let html = format!(
        concat!(
            r#"<figure class="hwscope-figure" data-hwscope="{src}" data-hwscope-step="{step}" style="display:block;width:auto;max-width:none;margin:1em 0;padding:0">"#,
            r#"<div class="hwscope-box" style="position:relative;width:100%;aspect-ratio:800/{h};min-height:{min}px;{room}">"#,
            r#"<img class="hwscope-static" src="data:image/svg+xml,{data}" width="800" height="{h}" alt="{alt}" style="position:absolute;inset:0;width:100%;height:100%;object-fit:contain;margin:0">"#,
            r#"</div></figure>"#
        ),
        src = attr(text.trim_matches('\n')),
        step = rec.step,
        h = height,
        min = min,
        room = LIVE_ROOM,
        data = data_uri(&image),
        alt = attr(&alt),
    );
    Drawn { svg: image, alt, html, title, step: rec.step, height, min_height: min }
}

/// A block that cannot be drawn: the message and the block, visible in the page.
pub fn error_box(text: &str, message: &str) -> String {
    format!(
        concat!(
            r#"<div class="hwscope-error" role="alert" data-hwscope-error="" style="margin:1em 0;padding:.6em .9em;border:2px solid #c62828;border-radius:6px;background:#fff5f5;color:#8e1b1b;font:14px/1.45 system-ui,sans-serif">"#,
            r#"<strong>This hwscope figure cannot be drawn:</strong> {msg}"#,
            r#"<pre style="margin:.5em 0 0;padding:.4em .6em;background:#fff;color:#333;border-radius:4px;overflow:auto;white-space:pre-wrap;font:12px/1.4 ui-monospace,monospace">{src}</pre></div>"#
        ),
        msg = attr(message),
        src = attr(text.trim_matches('\n')).replace('\n', "&#10;"),
    )
}

/// Text for an HTML attribute value (or element content), on one line.
fn attr(text: &str) -> String {
    svg::escape(text).replace('\n', "&#10;").replace('\r', "")
}

/// The SVG as the body of a `data:image/svg+xml,` URL inside a double-quoted attribute.
/// svg.rs escapes quotes in text, so every `"` is an attribute delimiter and may become `'`.
fn data_uri(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() + svg.len() / 8);
    for c in svg.chars() {
        match c {
            '"' => out.push('\''),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '&' => out.push_str("&amp;"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// A block found in a document: where it starts (1-based line) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub line: usize,
    /// The line the block's first line of text is on.
    pub body_line: usize,
    pub text: String,
    /// `file:line` of the Markdown the block came from, when the page says (Hugo's hook does).
    pub source: Option<String>,
}

/// Rewrites every ` ```hwscope ` fence of a Markdown text with `draw(found)`;
/// other fenced code (a Markdown example showing a hwscope block, say) is left alone.
pub fn rewrite_markdown(md: &str, mut draw: impl FnMut(&Found) -> String) -> String {
    let lines: Vec<&str> = md.split_inclusive('\n').collect();
    let mut out = String::with_capacity(md.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        let fence_char = body.chars().next().filter(|c| *c == '`' || *c == '~');
        let Some(fc) = fence_char else {
            out.push_str(line);
            i += 1;
            continue;
        };
        let len = body.chars().take_while(|c| *c == fc).count();
        if len < 3 {
            out.push_str(line);
            i += 1;
            continue;
        }
        let info = body[len..].trim();
        // The closing fence: the same character, at least as long, nothing after it.
        let close = (i + 1..lines.len()).find(|&k| {
            let t = lines[k].trim();
            t.len() >= len && t.chars().all(|c| c == fc)
        });
        let end = close.unwrap_or(lines.len());
        let lang = info.split(|c: char| c.is_whitespace() || c == ',' || c == '{').next().unwrap_or("");
        if lang == "hwscope" {
            let text: String = lines[i + 1..end]
                .iter()
                .map(|l| {
                    let strip = l.len() - l.trim_start().len();
                    &l[strip.min(indent)..]
                })
                .collect();
            let html = draw(&Found { line: i + 1, body_line: i + 2, text, source: None });
            out.push_str(&line[..indent]);
            out.push_str(&html);
            out.push('\n');
        } else {
            for l in &lines[i..(end + 1).min(lines.len())] {
                out.push_str(l);
            }
        }
        i = end + 1;
    }
    out
}

/// Decodes the character references HTML writers use in code.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let end = rest.find(';').filter(|e| *e <= 10);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => {
                    let n = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")).map(|h| u32::from_str_radix(h, 16));
                    let n = n.or_else(|| name.strip_prefix('#').map(|d| d.parse::<u32>()));
                    n.and_then(Result::ok).and_then(char::from_u32)
                }
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text content of an HTML fragment: tags dropped (highlighters wrap code in spans), references decoded.
fn text_of(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(p) = rest.find('<') {
        out.push_str(&rest[..p]);
        rest = rest[p..].find('>').map_or("", |e| &rest[p + e + 1..]);
    }
    out.push_str(rest);
    unescape(&out)
}

/// The value of attribute `name` in a start tag's text.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(p) = tag[from..].find(name) {
        let at = from + p;
        let before = tag[..at].chars().next_back();
        let after = &tag[at + name.len()..];
        if before.is_some_and(char::is_whitespace) {
            if let Some(v) = after.strip_prefix("=\"") {
                return v.split('"').next();
            }
            if let Some(v) = after.strip_prefix("='") {
                return v.split('\'').next();
            }
        }
        from = at + name.len();
    }
    None
}

/// Where `needle` (ASCII) starts in `hay`, ignoring ASCII case.
fn find_ascii_ci(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    (0..h.len().saturating_sub(n.len() - 1)).find(|&p| h[p..p + n.len()].eq_ignore_ascii_case(n))
}

fn has_class(tag: &str, class: &str) -> bool {
    attribute(tag, "class").is_some_and(|c| c.split_whitespace().any(|w| w == class))
}

/// The attributes of `<hwscope-playground>` that a block has as options, in
/// `www/embed/auto.js`'s order (its `textOf` writes the same text in the browser).
const ELEMENT_OPTIONS: [&str; 6] = ["at", "from", "to", "controls", "theme", "height"];

/// `<hwscope-playground scenario=… at=…>` as a block's text, as `auto.js` reads it:
/// `scenario` (a built-in, default `seed-walkthrough`, or a share-link fragment), the
/// options it names, `loop` unless `loop="false"`, and `label` (or `title`) as the title.
fn element_text(tag: &str) -> String {
    let attrs = attributes(tag);
    let get = |name: &str| attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_deref().map(unescape).unwrap_or_default());
    let scenario = get("scenario").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).unwrap_or_else(|| "seed-walkthrough".into());
    let link = (scenario.starts_with("v=") || scenario.contains("&v=")) && !scenario.starts_with('#');
    let has_at = scenario.starts_with("at=") || scenario.contains("&at=");
    let mut words = vec![if link { format!("#{scenario}") } else { scenario.clone() }];
    for k in ELEMENT_OPTIONS {
        if let Some(v) = get(k) {
            if !(k == "at" && has_at) {
                words.push(format!("{k}={v}"));
            }
        }
    }
    if get("loop").is_some_and(|v| v != "false") {
        words.push("loop".into());
    }
    if let Some(label) = get("label").filter(|l| !l.is_empty()).or_else(|| get("title")).filter(|l| !l.is_empty()) {
        words.push(format!("title=\"{}\"", label.replace('"', "'")));
    }
    words.join(" ")
}

/// A start tag's attributes in order: the name (lower case) and the raw value, if it has
/// one (`loop` has none), quoted or not, as HTML reads them.
fn attributes(tag: &str) -> Vec<(String, Option<&str>)> {
    let body = tag.strip_prefix('<').unwrap_or(tag).trim_end_matches('>').trim_end_matches('/');
    let mut rest = body.split_once(char::is_whitespace).map_or("", |(_, r)| r);
    let mut out = Vec::new();
    while let Some(start) = rest.find(|c: char| !c.is_whitespace() && c != '/') {
        rest = &rest[start..];
        let end = rest.find(|c: char| c.is_whitespace() || c == '=').unwrap_or(rest.len());
        let name = rest[..end].to_ascii_lowercase();
        rest = &rest[end..];
        let mut value = None;
        if let Some(v) = rest.trim_start().strip_prefix('=') {
            let v = v.trim_start();
            let (val, after) = match v.chars().next() {
                Some(q @ ('"' | '\'')) => v[1..].find(q).map_or((&v[1..], ""), |e| (&v[1..e + 1], &v[e + 2..])),
                _ => v.find(char::is_whitespace).map_or((v, ""), |e| (&v[..e], &v[e..])),
            };
            value = Some(val);
            rest = after;
        }
        out.push((name, value));
    }
    out
}

/// Rewrites the hwscope blocks of a built HTML page with `draw(found)`:
/// `<div class="hwscope">`, `<pre class="hwscope">` and `<pre><code class="language-hwscope">`
/// (what MkDocs' superfences, Hugo's render hook, Docusaurus's theme and
/// plain Markdown writers produce), and `<hwscope-playground>` elements, whose
/// children (the no-JavaScript fallback) become the figure, inside the element:
/// `auto.js` then makes that figure live, and `embed.js`, where a page loads it
/// instead, upgrades the element to its iframe as before. Figures already drawn
/// are left alone.
pub fn rewrite_html(html: &str, mut draw: impl FnMut(&Found) -> String) -> String {
    let mut out = String::with_capacity(html.len());
    let mut i = 0;
    let bytes = html.as_bytes();
    while let Some(p) = html[i..].find('<') {
        let start = i + p;
        let Some(tag_end) = html[start..].find('>').map(|e| start + e + 1) else { break };
        let tag = &html[start..tag_end];
        let name: String = tag[1..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect::<String>().to_ascii_lowercase();
        if name == "hwscope-playground" {
            let close = "</hwscope-playground>";
            let Some(inner_end) = find_ascii_ci(&html[tag_end..], close).map(|e| tag_end + e) else {
                out.push_str(&html[i..tag_end]);
                i = tag_end;
                continue;
            };
            // Drawn by an earlier run: its figure is inside already.
            if html[tag_end..inner_end].contains("hwscope-figure") {
                out.push_str(&html[i..inner_end]);
                i = inner_end;
                continue;
            }
            let line = 1 + bytes[..start].iter().filter(|b| **b == b'\n').count();
            let source = attribute(tag, "data-hwscope-source").map(unescape);
            out.push_str(&html[i..tag_end]);
            out.push_str(&draw(&Found { line, body_line: line, text: element_text(tag), source }));
            out.push_str(close);
            i = inner_end + close.len();
            continue;
        }
        let found = match name.as_str() {
            "div" | "pre" if has_class(tag, "hwscope") => {
                html[tag_end..].find(&format!("</{name}>")).map(|e| (tag_end + e, tag_end + e + name.len() + 3))
            }
            "pre" => {
                // <pre …><code class="language-hwscope" …>…</code></pre>
                let inner = &html[tag_end..];
                let code_tag_end = inner.find('>').map(|e| e + 1);
                match code_tag_end {
                    Some(ce) if inner.starts_with("<code") && has_class(&inner[..ce], "language-hwscope") => {
                        inner.find("</pre>").map(|e| (tag_end + e, tag_end + e + 6))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match found {
            Some((content_end, block_end)) => {
                let line = 1 + bytes[..start].iter().filter(|b| **b == b'\n').count();
                let source = attribute(tag, "data-hwscope-source").map(unescape);
                let text = text_of(&html[tag_end..content_end]);
                out.push_str(&html[i..start]);
                out.push_str(&draw(&Found { line, body_line: line, text, source }));
                i = block_end;
            }
            None => {
                out.push_str(&html[i..tag_end]);
                i = tag_end;
            }
        }
    }
    out.push_str(&html[i..]);
    out
}

/// What `render_dir` did: figures drawn, and each problem as `file:line: message`.
#[derive(Debug, Default)]
pub struct Report {
    pub files: usize,
    pub figures: usize,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

/// `hwscope render-docs`: every `.html` file under `dir` gets its hwscope blocks
/// drawn as static figures (a block that cannot be drawn becomes an error box,
/// and is reported with the file and line).
/// Errors are worded as `std::io::Error` words them (`crate::cli::io`).
pub fn render_dir(dir: &std::path::Path, report: &mut Report) -> Result<(), String> {
    use crate::cli::io;
    let mut entries = io::read_dir(dir)?;
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    for e in entries {
        let path = e.path;
        if e.is_dir {
            render_dir(&path, report)?;
        } else if e.is_file && path.extension().is_some_and(|x| x == "html") {
            let html = io::read_to_string(&path)?;
            let mut changed = false;
            let out = rewrite_html(&html, |f| {
                changed = true;
                draw(&path.display().to_string(), f, report)
            });
            if changed {
                io::write(&path, &out)?;
                report.files += 1;
            }
        }
    }
    Ok(())
}

/// One block: its figure, or its error box with the problem reported as `file:line: …`.
pub fn draw(file: &str, f: &Found, report: &mut Report) -> String {
    let place = |line: usize| match &f.source {
        // `file:line` of the fence: the block's line k is the file's line + k.
        Some(s) => match s.rsplit_once(':').and_then(|(name, n)| Some((name, n.parse::<usize>().ok()?))) {
            Some((name, n)) => format!("{name}:{} (in {file}:{})", n + line, f.line),
            None => format!("{s} (in {file}:{})", f.line),
        },
        None if line > 0 => format!("{file}:{}", f.body_line + line - 1),
        None => format!("{file}:{}", f.line),
    };
    match figure(&f.text) {
        Ok(html) => {
            report.figures += 1;
            if let Some(w) = link_warning(&f.text) {
                report.warnings.push(format!("{}: {w}", place(0)));
            }
            html
        }
        Err(e) => {
            // In a built page the line is the page's: name the block by its first line too.
            let first = f.text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
            let short: String = first.chars().take(40).collect();
            let what = if file.ends_with(".html") && f.source.is_none() { format!(" `{short}`") } else { String::new() };
            report.errors.push(format!("{}: hwscope block{what}: {}", place(e.line), e.message));
            error_box(&f.text, &e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_keeps_the_block_and_an_image_with_the_steps_sentence() {
        let html = figure("seed-walkthrough at=3").unwrap();
        assert!(html.starts_with(r#"<figure class="hwscope-figure" data-hwscope="seed-walkthrough at=3" data-hwscope-step="3""#));
        assert!(html.contains(r#"src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'"#));
        assert!(!html.contains('\n'), "one line: an HTML block in Markdown ends at a blank line");
        let alt = html.split("alt=\"").nth(1).unwrap().split('"').next().unwrap();
        assert!(alt.contains(", step 3: "), "{alt}");
    }

    #[test]
    fn markdown_fences_and_only_those() {
        let md =
            "# T\n\n```hwscope\nseed-walkthrough at=1\n```\n\n````markdown\n```hwscope\nnot-this\n```\n````\n  ~~~hwscope\n  x\n  ~~~\n";
        let mut seen = Vec::new();
        let out = rewrite_markdown(md, |f| {
            seen.push((f.line, f.text.clone()));
            "<FIG>".into()
        });
        assert_eq!(seen, vec![(3, "seed-walkthrough at=1\n".to_string()), (12, "x\n".to_string())]);
        assert_eq!(out, "# T\n\n<FIG>\n\n````markdown\n```hwscope\nnot-this\n```\n````\n  <FIG>\n");
    }

    #[test]
    fn html_blocks_of_every_writer() {
        let html = "<p>a</p>\n<div class=\"hwscope\">seed-walkthrough\n at=2</div>\n<pre><code class=\"language-hwscope\"><span>idle-partition-lag</span> title=&quot;x &amp; y&quot;</code></pre><pre class=\"x\"><code class=\"language-rust\">fn</code></pre><pre class=\"hwscope\" data-hwscope-source=\"a.md:4\">#v=1</pre>";
        let mut seen = Vec::new();
        let out = rewrite_html(html, |f| {
            seen.push((f.line, f.text.clone(), f.source.clone()));
            "<FIG>".into()
        });
        assert_eq!(
            seen,
            vec![
                (2, "seed-walkthrough\n at=2".into(), None),
                (4, "idle-partition-lag title=\"x & y\"".into(), None),
                (4, "#v=1".into(), Some("a.md:4".into()))
            ]
        );
        assert_eq!(out, "<p>a</p>\n<FIG>\n<FIG><pre class=\"x\"><code class=\"language-rust\">fn</code></pre><FIG>");
    }

    #[test]
    fn the_custom_element_as_auto_js_reads_it_its_fallback_replaced_by_the_figure() {
        let html = concat!(
            "<p>a</p>\n<hwscope-playground scenario=\"kip101-data-loss\" at=5 to='9' loop label=\"KIP-101: &quot;loss&quot;\" sandbox>",
            "<a href=\"/\">fallback</a></hwscope-playground>\n",
            "<HWSCOPE-PLAYGROUND scenario=\"v=1&amp;s=bx&amp;at=3\" at=\"7\" loop=\"false\"></HWSCOPE-PLAYGROUND>",
            "<hwscope-playground></hwscope-playground>",
            "<hwscope-playground at=\"2\"><figure class=\"hwscope-figure\">drawn</figure></hwscope-playground>",
        );
        let mut seen = Vec::new();
        let out = rewrite_html(html, |f| {
            seen.push((f.line, f.text.clone()));
            "<FIG>".into()
        });
        assert_eq!(
            seen,
            vec![
                (2, "kip101-data-loss at=5 to=9 loop title=\"KIP-101: 'loss'\"".to_string()),
                (3, "#v=1&s=bx&at=3".to_string()),
                (3, "seed-walkthrough".to_string()),
            ]
        );
        assert_eq!(
            out,
            concat!(
                "<p>a</p>\n<hwscope-playground scenario=\"kip101-data-loss\" at=5 to='9' loop label=\"KIP-101: &quot;loss&quot;\" sandbox><FIG></hwscope-playground>\n",
                "<HWSCOPE-PLAYGROUND scenario=\"v=1&amp;s=bx&amp;at=3\" at=\"7\" loop=\"false\"><FIG></hwscope-playground>",
                "<hwscope-playground><FIG></hwscope-playground>",
                "<hwscope-playground at=\"2\"><figure class=\"hwscope-figure\">drawn</figure></hwscope-playground>",
            )
        );
        // The element's block draws the step its `at` names.
        let fig = figure(&seen[0].1).unwrap();
        assert!(fig.contains(r#"data-hwscope-step="5""#), "{fig}");
    }
}
