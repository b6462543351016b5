//! A step record as one standalone SVG that looks like the page's stage
//! (`www/render/`): brokers side by side, log strips on one offset ruler with
//! their LEO and HW marks, the lag band, the ISR, and the messages in flight as
//! labelled dots where they are at the step's time. For print, RSS, docs and
//! readers without JavaScript (`hwscope svg`). Every text is escaped.

mod board;
mod layout;
mod parts;

use crate::record::{InFlightRecord, NodeName, StepRecord};
use board::{text_box, text_width, Anchor, Board, Rect};
use layout::{along, Layout, Point};
use parts::{broker, consumer_marks, follower_marks, log_strip, pill, strip_labels};
use std::fmt::Write;

const WIDTH: f64 = 800.0;
/// Offsets shown at most, as on the page (`layout.js`).
const ROWS: u64 = 16;
/// Where along a cut link's arc its cross may go, in order of preference (the
/// page's `CUT_MARK_AT` in www/render/stage.js).
const CUT_MARK_AT: [f64; 7] = [0.5, 0.4, 0.6, 0.3, 0.7, 0.25, 0.75];
pub(super) const CELL: f64 = 18.0;
/// Text size, as on the page: 12 px.
pub(super) const FONT: f64 = 12.0;
/// Height of the title and status lines above the stage.
const HEAD: f64 = 44.0;
/// The page's stage top: broker-to-broker arcs rise into the space above it.
const STAGE_TOP: f64 = 100.0;
pub(super) const TOP: f64 = HEAD + STAGE_TOP;
pub(super) const LINE: f64 = FONT + 4.0;
pub(super) const HEAD_H: f64 = 3.0 * LINE + 8.0;
pub(super) const STRIP_TOP: f64 = TOP + HEAD_H + 34.0;

/// Colours and shapes, light and dark, with the page's names.
const STYLE: &str = "svg{--bg:#fbfbfa;--fg:#1d232b;--muted:#5d6673;--panel:#fff;--line:#d5d9de;--accent:#1f5fbf;--hw:#0b7a4b;--leo:#7a4bc2;--lag:#d48806;--warn:#8a5300;--bad:#c62828;--strip:#eef0f2;--init:#c7ced6;--produce:#c2410c;--ctrl:#6b7280}\
@media (prefers-color-scheme:dark){svg{--bg:#12161c;--fg:#e4e8ee;--muted:#9aa4b1;--panel:#1a2029;--line:#323b47;--accent:#6ea8ff;--hw:#3ddc97;--leo:#c4a3ff;--lag:#f0b43c;--warn:#f0b43c;--bad:#ff6b6b;--strip:#202833;--init:#3a4452;--produce:#ff9a5c;--ctrl:#a0a8b4}}\
text{fill:var(--fg);font:12px system-ui,-apple-system,'Segoe UI',sans-serif}.bg{fill:var(--bg)}.title{font-size:15px;font-weight:700}.muted,.ofs,.initl{fill:var(--muted)}\
.broker rect{fill:var(--panel);stroke:var(--line);stroke-width:1.5}.broker.leader rect{stroke:var(--accent);stroke-width:2.5}.broker.leader .name{fill:var(--accent)}.broker .name{font-weight:700}.broker.out rect{stroke-dasharray:4 3}.down{opacity:.42}\
.strip{fill:var(--strip)}.init{fill:var(--init)}.rec rect{stroke-width:1.2}.rec.c text{fill:#fff}.rec.u rect{fill-opacity:.25;stroke-dasharray:3 2}\
.ghost rect{fill:none;stroke:var(--bad);stroke-width:1.2;stroke-dasharray:3 2}.ghost text{fill:var(--bad);font-weight:600}\
.lag{fill:var(--lag);fill-opacity:.3;stroke:var(--lag);stroke-width:1.5;stroke-dasharray:5 3}.hwl{stroke:var(--hw);stroke-width:3}.leol{stroke:var(--leo);stroke-width:1.5;stroke-dasharray:4 2}\
.hwt{fill:var(--hw);font-weight:700}.leot{fill:var(--leo)}.lagt{fill:var(--warn);font-weight:700}.fmark{fill:var(--accent);font-weight:600}.cmark{fill:var(--leo)}\
.client rect{fill:var(--panel);stroke:var(--line)}.client.producer rect{stroke:var(--produce)}.client.consumer rect{stroke:var(--leo)}\
.trail{fill:none;stroke:var(--line);stroke-width:1.5;stroke-dasharray:3 3}.cut{fill:none;stroke:var(--bad);stroke-width:2;stroke-dasharray:6 4}.cutx{fill:var(--bad);font-size:14px;font-weight:700}\
.msg{--mc:var(--ctrl)}.msg circle{fill:var(--mc);stroke:var(--bg);stroke-width:1.5}.msg text{fill:var(--mc);font-weight:600;paint-order:stroke;stroke:var(--bg);stroke-width:3px;stroke-linejoin:round}\
.fetch{--mc:var(--accent)}.resp{--mc:var(--hw)}.produce{--mc:var(--produce)}.consume{--mc:var(--leo)}.err{--mc:var(--bad)}.bad{fill:var(--bad)}";

/// Leader epochs' colours (the page's `--e0`…`--e5`).
pub(super) const EPOCH: [&str; 6] = ["#4f86c6", "#d9822b", "#3aa17e", "#b85fb1", "#c9a227", "#6b7fd6"];

/// Text as it may appear inside an element or an attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML 1.0 at all.
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn msg_class(m: &InFlightRecord) -> &'static str {
    if m.error.is_some_and(|e| e != "none") {
        return "err";
    }
    match m.kind {
        "fetch_request" | "offsets_for_leader_epoch" => "fetch",
        "fetch_response" | "offsets_for_leader_epoch_response" => "resp",
        "produce_request" | "produce_response" => "produce",
        "consumer_fetch_request" | "consumer_fetch_response" => "consume",
        _ => "",
    }
}

fn name(n: &NodeName) -> String {
    match n {
        NodeName::Broker(b) => b.to_string(),
        NodeName::Name(s) => s.clone(),
    }
}

/// Words into lines at most `width` px wide.
fn wrap(text: &str, width: f64) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        if !line.is_empty() && text_width(&format!("{line} {word}"), FONT, false) > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// A text element at a placed spot; its box is noted on the board's list of texts.
pub(super) fn text(out: &mut String, board: &mut Board, class: &str, (x, y, a): (f64, f64, Anchor), words: &str, bold: bool) {
    if words.is_empty() {
        return;
    }
    let size = match class {
        "title" => 15.0,
        "cutx" => 14.0,
        _ => FONT,
    };
    board.texts.push((words.to_string(), text_box(words, x, y, size, a, bold)));
    let class = if class.is_empty() { String::new() } else { format!(r#" class="{class}""#) };
    let _ = write!(out, r#"<text{class} x="{x:.1}" y="{y:.1}" text-anchor="{}">{}</text>"#, a.name(), escape(words));
}

/// The state at one step as a standalone SVG document.
pub fn render(rec: &StepRecord, title: &str) -> String {
    draw(rec, title).0
}

/// Every line of text the SVG for `rec` draws, with its box (none may overlap).
pub fn text_boxes(rec: &StepRecord, title: &str) -> Vec<(String, Rect)> {
    draw(rec, title).1
}

fn draw(rec: &StepRecord, title: &str) -> (String, Vec<(String, Rect)>) {
    let l = Layout::new(rec);
    let text_lines = wrap(&rec.text, WIDTH - 24.0);
    let violations: Vec<String> =
        rec.violations.iter().flat_map(|v| wrap(&format!("✗ {}: {}", v.invariant, v.text), WIDTH - 24.0)).collect();
    let height = l.height + 8.0 + (text_lines.len() + violations.len()) as f64 * (FONT + 6.0);
    let p = &rec.partition;
    let status = format!(
        "step {} · t = {} ms · leader {} · epoch {} · ISR {{{}}}",
        rec.step,
        rec.time_ms,
        p.leader.map_or_else(|| "none".to_string(), |b| b.to_string()),
        p.leader_epoch,
        p.isr.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
    );
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    // 4.1 (KIP-966): the ELR beside the ISR, when ELR is on.
    let status = match (&p.elr, &p.last_known_elr) {
        (Some(elr), Some(last)) if !last.is_empty() => format!("{status} · ELR {{{}}} · last known leader {}", list(elr), list(last)),
        (Some(elr), _) => format!("{status} · ELR {{{}}}", list(elr)),
        _ => status,
    };
    let label = format!("{title}, {status}. {}", rec.text);
    let mut out = String::with_capacity(16 * 1024);
    let mut board = Board::new(WIDTH, height);
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0}" width="{WIDTH}" height="{height:.0}" role="img" aria-label="{}"><title>{}</title><style>{STYLE}</style><rect class="bg" width="100%" height="100%"/>"#,
        escape(&label),
        escape(&label)
    );
    // One line of title (the whole of it is in <title> and the label) and the status.
    let mut shown: String = title.to_string();
    while text_width(&shown, 15.0, true) > WIDTH - 24.0 {
        shown = shown.chars().take(shown.chars().count().saturating_sub(2)).chain(['…']).collect();
    }
    board.take(text_box(&shown, 12.0, 20.0, 15.0, Anchor::Start, true));
    board.take(text_box(&status, 12.0, 37.0, FONT, Anchor::Start, false));
    text(&mut out, &mut board, "title", (12.0, 20.0, Anchor::Start), &shown, true);
    text(&mut out, &mut board, "muted", (12.0, 37.0, Anchor::Start), &status, false);

    for i in 0..(l.hi - l.lo) {
        let at = (l.ruler - 4.0, l.y(l.lo + i) - CELL / 2.0 + FONT / 2.8, Anchor::End);
        board.take(text_box(&(l.lo + i).to_string(), at.0, at.1, FONT, Anchor::End, false));
        text(&mut out, &mut board, "ofs", at, &(l.lo + i).to_string(), false);
    }
    let leader = rec.replicas.iter().find(|r| r.role == "leader" && r.alive);
    for r in &rec.replicas {
        log_strip(&mut out, &mut board, r, leader, &l);
    }
    for r in &rec.replicas {
        broker(&mut out, &mut board, rec, r, &l);
    }
    for pr in &l.producers {
        pill(&mut out, &mut board, "producer", pr);
    }
    pill(&mut out, &mut board, "controller", &l.controller);
    for c in &l.consumers {
        pill(&mut out, &mut board, "consumer", &c.pill);
    }
    for (a, b) in &p.cut_links {
        let e = l.edge(a, b);
        // The cross at the middle of the arc, or the nearest free point along it; when
        // no point is free the red arc alone says it (as the page does).
        let mark = |p: Point| text_box("✕", p.x, p.y + 5.0, 14.0, Anchor::Middle, true);
        let mid = CUT_MARK_AT.iter().map(|&t| along(e, t)).find(|&p| board.fits(&mark(p)));
        let [s, c, t] = e;
        let _ = write!(out, r#"<path class="cut" d="M{:.1},{:.1}Q{:.1},{:.1} {:.1},{:.1}"/>"#, s.x, s.y, c.x, c.y, t.x, t.y);
        if let Some(mid) = mid {
            board.take(mark(mid));
            text(&mut out, &mut board, "cutx", (mid.x, mid.y + 5.0, Anchor::Middle), "✕", true);
        }
    }
    for r in &rec.replicas {
        strip_labels(&mut out, &mut board, r, leader, &l);
    }
    follower_marks(&mut out, &mut board, rec, &l);
    consumer_marks(&mut out, &mut board, rec, &l);

    // Messages at the step's time, (t - sent) / (arrive - sent) along their edge,
    // each label at the first free place around its dot.
    let t = rec.time_ms as f64;
    for m in &rec.in_flight {
        let e = l.edge(&m.from, &m.to);
        let (s, a) = (m.sent_ms as f64, m.arrive_ms as f64);
        let f = if a > s { ((t - s) / (a - s)).clamp(0.0, 1.0) } else { 1.0 };
        let pos = along(e, f);
        let [p0, c, p1] = e;
        let beside = (p1.x - p0.x).abs() < (p1.y - p0.y).abs();
        let (above, below) = ((pos.x, pos.y - 8.0, Anchor::Middle), (pos.x, pos.y + FONT + 6.0, Anchor::Middle));
        let (right, left) = ((pos.x + 9.0, pos.y + FONT / 3.0, Anchor::Start), (pos.x - 9.0, pos.y + FONT / 3.0, Anchor::End));
        let order = if beside { [right, left, above, below] } else { [above, below, right, left] };
        let mut candidates: Vec<(f64, f64, Anchor)> = order.to_vec();
        candidates.push((pos.x, pos.y - 8.0 - (FONT + 3.0), Anchor::Middle));
        candidates.push((pos.x, pos.y + FONT + 6.0 + FONT + 3.0, Anchor::Middle));
        // Kept on the picture: a label near an edge slides inwards.
        let half = text_width(&m.label, FONT, true) / 2.0;
        for cand in candidates.iter_mut().filter(|c| c.2 == Anchor::Middle) {
            cand.0 = cand.0.clamp(half + 1.0, WIDTH - half - 1.0);
        }
        let _ = write!(
            out,
            r#"<path class="trail" d="M{:.1},{:.1}Q{:.1},{:.1} {:.1},{:.1}"/><g class="msg {}" data-msg="{}"><title>{} from {} to {}: {}</title><circle cx="{:.1}" cy="{:.1}" r="5"/>"#,
            p0.x,
            p0.y,
            c.x,
            c.y,
            p1.x,
            p1.y,
            msg_class(m),
            m.id,
            m.kind.replace('_', " "),
            escape(&name(&m.from)),
            escape(&name(&m.to)),
            escape(&m.label),
            pos.x,
            pos.y,
        );
        if let Some(at) = board.place(&m.label, FONT, true, &candidates) {
            text(&mut out, &mut board, "", at, &m.label, true);
        }
        out.push_str("</g>");
    }

    let mut y = l.height + 4.0;
    for line in &text_lines {
        y += FONT + 6.0;
        text(&mut out, &mut board, "", (12.0, y, Anchor::Start), line, false);
    }
    for v in &violations {
        y += FONT + 6.0;
        text(&mut out, &mut board, "bad", (12.0, y, Anchor::Start), v, false);
    }
    out.push_str("</svg>\n");
    (out, board.texts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{builtin, Run, Scenario};

    fn record_at(scenario: Scenario, step: u64) -> StepRecord {
        let mut run = Run::new(scenario);
        run.seek(step);
        run.record()
    }

    /// Checks that every tag is closed in order and every attribute is quoted:
    /// enough XML to catch a broken writer without a parser dependency.
    fn well_formed(svg: &str) -> Result<(), String> {
        let mut stack: Vec<&str> = Vec::new();
        let mut rest = svg;
        while let Some(i) = rest.find('<') {
            let text = &rest[..i];
            if text.contains('>') {
                return Err(format!("stray '>' in text {text:?}"));
            }
            for (j, _) in text.match_indices('&') {
                let ent = &text[j..];
                if !["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].iter().any(|e| ent.starts_with(e)) {
                    return Err(format!("bare '&' in {text:?}"));
                }
            }
            let end = rest[i..].find('>').ok_or("unclosed tag")? + i;
            let tag = &rest[i + 1..end];
            if tag.matches('"').count() & 1 == 1 || tag[1..].contains('<') {
                return Err(format!("bad tag {tag:?}"));
            }
            if let Some(name) = tag.strip_prefix('/') {
                match stack.pop() {
                    Some(open) if open == name => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
            } else if !tag.ends_with('/') {
                stack.push(tag.split_whitespace().next().unwrap_or(""));
            }
            rest = &rest[end + 1..];
        }
        if stack.is_empty() && rest.trim().is_empty() {
            Ok(())
        } else {
            Err(format!("unclosed {stack:?}"))
        }
    }

    #[test]
    fn every_builtin_renders_well_formed_at_several_steps() {
        for name in builtin::names() {
            let scenario = builtin::load(name).unwrap();
            for step in [0, 3, 9, 40] {
                let rec = record_at(scenario.clone(), step);
                let svg = render(&rec, &scenario.title);
                assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{name}@{step}");
                well_formed(&svg).unwrap_or_else(|e| panic!("{name}@{step}: {e}"));
                for r in &rec.replicas {
                    assert!(
                        svg.contains(&format!(r#"data-broker="{}" data-leo="{}" data-hw="{}""#, r.broker, r.leo, r.hw)),
                        "{name}@{step}"
                    );
                }
            }
        }
    }

    #[test]
    fn draws_the_lag_band_and_messages_in_flight() {
        // seed-walkthrough step 5: the leader's HW is 105, the follower's still 100,
        // and the Fetch response carrying 105 is on its way.
        let rec = record_at(builtin::load("seed-walkthrough").unwrap(), 5);
        let svg = render(&rec, "t");
        assert!(svg.contains(r#"class="lag""#));
        assert!(svg.contains(">lag 5<"));
        assert!(svg.contains(">HW 105<") && svg.contains(">HW 100<"));
        assert_eq!(svg.matches("<circle").count(), rec.in_flight.len());
        assert!(!rec.in_flight.is_empty());
    }

    #[test]
    fn escapes_every_text() {
        // Scenario ids are validated to [\w.-]; titles are free text, and the
        // renderer escapes ids and narration too in case that ever changes.
        let hostile = r#"{"format":1,"title":"<script>alert('x')</script> & \"q\"","replicas":2,
            "consumers":[{"id":"c1","fetch_from":1}],"events":[{"at_ms":0,"produce":{"producer":"p1","records":2}}]}"#;
        let scenario = Scenario::from_json(hostile).unwrap();
        for step in [0, 2, 5] {
            let mut rec = record_at(scenario.clone(), step);
            rec.text = "<img src=x onerror=alert(1)>".into();
            for r in &mut rec.replicas {
                for e in &mut r.log {
                    e.id = "<b>id</b>".into();
                }
            }
            for c in &mut rec.consumers {
                c.id = "c&<i>".into();
            }
            let svg = render(&rec, &scenario.title);
            well_formed(&svg).unwrap();
            assert!(!svg.contains("<script") && !svg.contains("<b>") && !svg.contains("<i>") && !svg.contains("<img"), "{svg}");
            assert!(svg.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"));
        }
        assert_eq!(escape("a\u{1}b"), "a\u{FFFD}b");
    }

    #[test]
    fn the_same_record_gives_the_same_svg() {
        let s = builtin::load("follower-fetch-consumer").unwrap();
        assert_eq!(render(&record_at(s.clone(), 30), "x"), render(&record_at(s, 30), "x"));
    }
}
