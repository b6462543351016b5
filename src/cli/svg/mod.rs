//! A step record as one standalone SVG that looks like the page's stage
//! (`www/render/`): brokers side by side, log strips on one offset ruler with
//! their LEO and HW marks, the lag band, the ISR, and the messages in flight as
//! labelled dots where they are at the step's time. For print, RSS, docs and
//! readers without JavaScript (`hwscope svg`). Every text is escaped.

mod layout;

use crate::record::{InFlightRecord, NodeName, ReplicaRecord, StepRecord};
use layout::{along, Layout, Point};
use std::fmt::Write;

const WIDTH: f64 = 800.0;
/// Offsets shown at most, as on the page (`layout.js`).
const ROWS: u64 = 16;
const CELL: f64 = 18.0;
const FONT: f64 = 11.0;
/// Height of the title and status lines above the stage.
const HEAD: f64 = 44.0;
/// The page's stage top: broker-to-broker arcs rise into the space above it.
const STAGE_TOP: f64 = 100.0;
const TOP: f64 = HEAD + STAGE_TOP;
const HEAD_H: f64 = 50.0;
const STRIP_TOP: f64 = TOP + HEAD_H + 34.0;

/// Colours and shapes, light and dark, with the page's names.
const STYLE: &str = "svg{--bg:#fbfbfa;--fg:#1d232b;--muted:#5d6673;--panel:#fff;--line:#d5d9de;--accent:#1f5fbf;--hw:#0b7a4b;--leo:#7a4bc2;--lag:#d48806;--bad:#c62828;--strip:#eef0f2;--init:#c7ced6;--produce:#c2410c;--ctrl:#6b7280}\
@media (prefers-color-scheme:dark){svg{--bg:#12161c;--fg:#e4e8ee;--muted:#9aa4b1;--panel:#1a2029;--line:#323b47;--accent:#6ea8ff;--hw:#3ddc97;--leo:#c4a3ff;--lag:#f0b43c;--bad:#ff6b6b;--strip:#202833;--init:#3a4452;--produce:#ff9a5c;--ctrl:#a0a8b4}}\
text{fill:var(--fg);font:11px system-ui,-apple-system,'Segoe UI',sans-serif}.bg{fill:var(--bg)}.title{font-size:15px;font-weight:700}.muted,.ofs,.initl{fill:var(--muted)}.ofs{text-anchor:end}.initl,.rec text,.client text{text-anchor:middle}\
.broker rect{fill:var(--panel);stroke:var(--line);stroke-width:1.5}.broker.leader rect{stroke:var(--accent);stroke-width:2.5}.broker.leader .name{fill:var(--accent)}.broker .name{font-weight:700}.broker.out rect{stroke-dasharray:4 3}.down{opacity:.42}\
.strip{fill:var(--strip)}.init{fill:var(--init)}.rec rect{stroke-width:1.2}.rec.c text{fill:#fff}.rec.u rect{fill-opacity:.25;stroke-dasharray:3 2}\
.lag{fill:var(--lag);fill-opacity:.3;stroke:var(--lag);stroke-width:1.5;stroke-dasharray:5 3}.hwl{stroke:var(--hw);stroke-width:3}.leol{stroke:var(--leo);stroke-width:1.5;stroke-dasharray:4 2}\
.hwt{fill:var(--hw);font-weight:700}.leot{fill:var(--leo)}.lagt{fill:var(--lag);font-weight:700}.fmark{fill:var(--accent);font-weight:600;text-anchor:end}.cmark{fill:var(--leo);text-anchor:end}\
.client rect{fill:var(--panel);stroke:var(--line)}.client.producer rect{stroke:var(--produce)}.client.consumer rect{stroke:var(--leo)}\
.trail{fill:none;stroke:var(--line);stroke-width:1.5;stroke-dasharray:3 3}.cut{fill:none;stroke:var(--bad);stroke-width:2;stroke-dasharray:6 4}.cutx{fill:var(--bad);font-size:14px;font-weight:700;text-anchor:middle}\
.msg{--mc:var(--ctrl)}.msg circle{fill:var(--mc);stroke:var(--bg);stroke-width:1.5}.msg text{fill:var(--mc);font-weight:600;text-anchor:middle;paint-order:stroke;stroke:var(--bg);stroke-width:3px;stroke-linejoin:round}\
.fetch{--mc:var(--accent)}.resp{--mc:var(--hw)}.produce{--mc:var(--produce)}.consume{--mc:var(--leo)}.err{--mc:var(--bad)}.bad{fill:var(--bad)}";

/// Leader epochs' colours (the page's `--e0`…`--e5`).
const EPOCH: [&str; 6] = ["#4f86c6", "#d9822b", "#3aa17e", "#b85fb1", "#c9a227", "#6b7fd6"];

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

/// Words into lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("never empty");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
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

fn label_box(out: &mut String, class: &str, p: Point, label: &str, start: bool) {
    let w = label.chars().count() as f64 * FONT * 0.6 + 12.0;
    let x = if start { p.x - 10.0 } else { p.x - w / 2.0 };
    let _ = write!(
        out,
        r#"<g class="client {class}"><rect x="{x:.1}" y="{:.1}" width="{w:.1}" height="{}" rx="9"/><text x="{:.1}" y="{:.1}">{}</text></g>"#,
        p.y - FONT / 2.0 - 5.0,
        FONT + 10.0,
        x + w / 2.0,
        p.y + FONT / 3.0,
        escape(label)
    );
}

fn broker(out: &mut String, rec: &StepRecord, r: &ReplicaRecord, l: &Layout) {
    let col = r.broker as usize;
    let in_isr = rec.partition.isr.contains(&r.broker);
    let in_elr = rec.partition.elr.as_ref().is_some_and(|e| e.contains(&r.broker));
    let membership = if in_isr {
        "in ISR"
    } else if rec.partition.maximal_isr.contains(&r.broker) {
        "joining ISR"
    } else if in_elr {
        "in ELR"
    } else {
        "out of ISR"
    };
    let role = if r.alive { r.role } else { "offline" };
    let class = format!("broker {role}{}{}", if in_isr { "" } else { " out" }, if r.alive { "" } else { " down" });
    let (x, tx) = (l.x0(col) + 3.0, l.x0(col) + 9.0);
    let lh = FONT + 4.0;
    let _ = write!(
        out,
        r#"<g class="{class}" data-broker="{b}" data-leo="{leo}" data-hw="{hw}"><title>Broker {b}, {role}, leader epoch {e}, {membership}, LEO {leo}, HW {hw}</title><rect x="{x:.1}" y="{TOP}" width="{w:.1}" height="{HEAD_H}" rx="6"/><text class="name" x="{tx:.1}" y="{y1}">Broker {b} · {role}</text><text x="{tx:.1}" y="{y2}">e{e} · {m2}</text><text x="{tx:.1}" y="{y3}">LEO {leo} · HW {hw}</text></g>"#,
        b = r.broker,
        leo = r.leo,
        hw = r.hw,
        e = r.leader_epoch,
        w = l.col_w - 6.0,
        m2 = if r.fenced { "fenced" } else { membership },
        y1 = TOP + lh,
        y2 = TOP + 2.0 * lh,
        y3 = TOP + 3.0 * lh,
    );
}

fn log_strip(out: &mut String, r: &ReplicaRecord, leader: Option<&ReplicaRecord>, l: &Layout) {
    let col = r.broker as usize;
    let (sx, w) = (l.sx(col), l.strip_w);
    let right = sx + w + 4.0;
    let _ = write!(
        out,
        r#"<g class="log{}" data-broker="{}"><rect class="strip" x="{sx:.1}" y="{STRIP_TOP}" width="{w:.1}" height="{:.1}"/>"#,
        if r.alive { "" } else { " down" },
        r.broker,
        l.strip_bottom - STRIP_TOP
    );
    let init_top = l.initial_end.min(r.leo);
    let init_bottom = r.log_start_offset.max(l.lo);
    if init_top > init_bottom {
        let (yt, yb) = (l.y(init_top), l.y(init_bottom));
        let _ = write!(out, r#"<rect class="init" x="{sx:.1}" y="{yt:.1}" width="{w:.1}" height="{:.1}"/>"#, yb - yt);
        if yb - yt >= FONT {
            let _ = write!(
                out,
                r#"<text class="initl" x="{:.1}" y="{:.1}">{}–{}</text>"#,
                sx + w / 2.0,
                (yt + yb) / 2.0 + FONT / 3.0,
                r.log_start_offset,
                init_top - 1
            );
        }
    }
    for e in r.log.iter().filter(|e| e.offset >= l.lo && e.offset < l.hi) {
        let y = l.y(e.offset + 1);
        let colour = EPOCH[e.epoch.rem_euclid(6) as usize];
        let committed = e.offset < r.hw;
        let _ = write!(
            out,
            r#"<g class="rec {}"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{}" rx="2" fill="{colour}" stroke="{colour}"/><text x="{:.1}" y="{:.1}">{}</text></g>"#,
            if committed { "c" } else { "u" },
            sx + 1.0,
            y + 1.0,
            w - 2.0,
            CELL - 2.0,
            sx + w / 2.0,
            y + CELL / 2.0 + FONT / 3.0,
            escape(&e.id)
        );
    }
    // The lag band: committed on the leader, not yet below this follower's HW.
    let lag = match leader {
        Some(ld) if ld.broker != r.broker && r.alive => ld.hw.saturating_sub(r.hw),
        _ => 0,
    };
    if let (true, Some(ld)) = (lag > 0, leader) {
        let _ = write!(
            out,
            r#"<rect class="lag" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/>"#,
            sx - 4.0,
            l.y(ld.hw),
            w + 8.0,
            l.y(r.hw) - l.y(ld.hw)
        );
    }
    let (y_hw, y_leo) = (l.y(r.hw), l.y(r.leo));
    let _ = write!(
        out,
        r#"<line class="hwl" x1="{:.1}" x2="{right:.1}" y1="{y_hw:.1}" y2="{y_hw:.1}"/><line class="leol" x1="{:.1}" x2="{right:.1}" y1="{y_leo:.1}" y2="{y_leo:.1}"/><text class="leot" x="{:.1}" y="{:.1}">LEO {}</text><text class="hwt" x="{:.1}" y="{:.1}">HW {}</text>"#,
        sx - 4.0,
        sx - 4.0,
        right + 2.0,
        y_leo - 3.0,
        r.leo,
        right + 2.0,
        y_hw + FONT + 1.0,
        r.hw
    );
    if lag > 0 {
        let _ = write!(out, r#"<text class="lagt" x="{:.1}" y="{:.1}">lag {lag}</text>"#, right + 2.0, y_hw + 2.0 * FONT + 3.0);
    }
    // The leader's view of each follower: the offset it last asked to fetch from.
    let mut seen: Vec<u64> = Vec::new();
    for f in r.followers.iter().flatten() {
        let Some(o) = f.fetch_offset else { continue };
        let k = seen.iter().filter(|&&s| s == o).count() as f64;
        seen.push(o);
        let (x, y) = (sx - 2.0 - k * 13.0, l.y(o));
        let _ = write!(
            out,
            r#"<g class="fmark"{}><title>Leader's view of follower {b}: fetch offset {o}</title><path d="M{x:.1},{y:.1}l-5,-4v8z"/><text class="fmark" x="{:.1}" y="{:.1}">{b}</text></g>"#,
            if f.in_isr { "" } else { r#" opacity=".5""# },
            x - 6.0,
            y + FONT / 3.0,
            b = f.broker
        );
    }
    out.push_str("</g>");
}

/// The state at one step as a standalone SVG document.
pub fn render(rec: &StepRecord, title: &str) -> String {
    let l = Layout::new(rec);
    let text_lines = wrap(&rec.text, 118);
    let violations: Vec<String> = rec.violations.iter().map(|v| format!("✗ {}: {}", v.invariant, v.text)).collect();
    let height = l.height + 8.0 + (text_lines.len() + violations.len()) as f64 * (FONT + 5.0);
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
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0}" width="{WIDTH}" height="{height:.0}" role="img" aria-label="{}"><title>{}</title><style>{STYLE}</style><rect class="bg" width="100%" height="100%"/>"#,
        escape(&label),
        escape(&label)
    );
    // One line of title; the whole of it is in <title> and the label.
    let shown: String = if title.chars().count() > 86 { title.chars().take(85).chain(['…']).collect() } else { title.to_string() };
    let _ = write!(
        out,
        r#"<text class="title" x="12" y="20">{}</text><text class="muted" x="12" y="37">{}</text>"#,
        escape(&shown),
        escape(&status)
    );

    for i in 0..(l.hi - l.lo) {
        let _ = write!(out, r#"<text class="ofs" x="30" y="{:.1}">{}</text>"#, l.y(l.lo + i) - CELL / 2.0 + FONT / 2.8, l.lo + i);
    }
    let leader = rec.replicas.iter().find(|r| r.role == "leader" && r.alive);
    for r in &rec.replicas {
        log_strip(&mut out, r, leader, &l);
    }
    for r in &rec.replicas {
        broker(&mut out, rec, r, &l);
    }

    for (p, (id, at)) in rec.producers.iter().zip(&l.producers) {
        let pending = if p.pending.is_empty() { String::new() } else { format!(" · {} pending", p.pending.len()) };
        label_box(&mut out, "producer", *at, &format!("{id} acks={}{pending}", p.acks.name()), true);
    }
    label_box(&mut out, "controller", l.controller, "controller", false);
    for (c, (_, at, col)) in rec.consumers.iter().zip(&l.consumers) {
        label_box(&mut out, "consumer", *at, &format!("{} · at {} · read {}", c.id, c.position, c.records_read), false);
        // On the leader, left of its marks for the followers' fetch offsets.
        let lead = rec.replicas.get(*col).filter(|r| r.role == "leader");
        let shift = lead.map_or(0.0, |r| 13.0 * r.followers.as_ref().map_or(0, Vec::len) as f64 + 4.0);
        let x = l.sx(*col) - 2.0 - shift;
        let y = l.y(c.position);
        let _ = write!(
            out,
            r#"<g class="cmark"><path d="M{x:.1},{y:.1}l-5,-4v8z"/><text class="cmark" x="{:.1}" y="{:.1}">{}</text></g>"#,
            x - 6.0,
            y + FONT / 3.0,
            escape(&c.id)
        );
    }

    for (a, b) in &p.cut_links {
        let e = l.edge(a, b);
        let mid = along(e, 0.5);
        let [s, c, t] = e;
        let _ = write!(
            out,
            r#"<path class="cut" d="M{:.1},{:.1}Q{:.1},{:.1} {:.1},{:.1}"/><text class="cutx" x="{:.1}" y="{:.1}">✕</text>"#,
            s.x,
            s.y,
            c.x,
            c.y,
            t.x,
            t.y,
            mid.x,
            mid.y + 5.0
        );
    }
    // Messages at the step's time: (t - sent) / (arrive - sent) along their edge.
    let t = rec.time_ms as f64;
    let mut placed: Vec<(f64, f64, f64)> = Vec::new();
    for m in &rec.in_flight {
        let e = l.edge(&m.from, &m.to);
        let (s, a) = (m.sent_ms as f64, m.arrive_ms as f64);
        let f = if a > s { ((t - s) / (a - s)).clamp(0.0, 1.0) } else { 1.0 };
        let pos = along(e, f);
        let [p0, c, p1] = e;
        let label = &m.label;
        let half = label.chars().count() as f64 * FONT * 0.3 + 2.0;
        let lx = pos.x.clamp(half, WIDTH - half);
        let mut ly = if pos.y < 24.0 + HEAD { pos.y + 16.0 } else { pos.y - 8.0 };
        for _ in 0..4 {
            if !placed.iter().any(|q| (q.0 - lx).abs() < q.2 + half && (q.1 - ly).abs() < FONT + 2.0) {
                break;
            }
            ly -= FONT + 3.0;
        }
        placed.push((lx, ly, half));
        let _ = write!(
            out,
            r#"<path class="trail" d="M{:.1},{:.1}Q{:.1},{:.1} {:.1},{:.1}"/><g class="msg {}" data-msg="{}"><title>{} from {} to {}: {}</title><circle cx="{:.1}" cy="{:.1}" r="5"/><text x="{lx:.1}" y="{ly:.1}">{}</text></g>"#,
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
            escape(label),
            pos.x,
            pos.y,
            escape(label)
        );
    }

    let mut y = l.height + 4.0;
    for line in &text_lines {
        y += FONT + 5.0;
        let _ = write!(out, r#"<text x="12" y="{y:.0}">{}</text>"#, escape(line));
    }
    for v in &violations {
        y += FONT + 5.0;
        let _ = write!(out, r#"<text class="bad" x="12" y="{y:.0}">{}</text>"#, escape(v));
    }
    out.push_str("</svg>\n");
    out
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
