//! The pieces of the picture: broker headers, log strips and the words beside
//! them, the marks left of the strips, the clients' pills. Each takes its boxes
//! on the board (board.rs) before anything is placed around it.

use super::board::{fit, text_width, Anchor, Board, Rect};
use super::layout::{Layout, Pill};
use super::{escape, text, CELL, EPOCH, FONT, HEAD_H, LINE, STRIP_TOP, TOP};
use crate::record::{ReplicaRecord, StepRecord};
use std::fmt::Write;

/// Who is joining and who is leaving the ISR (the page's `www/render/isr.js`).
fn membership(rec: &StepRecord, b: u32) -> &'static str {
    let p = &rec.partition;
    let committed = p.isr.contains(&b);
    let counted = p.maximal_isr.contains(&b);
    let proposed =
        rec.in_flight.iter().find(|m| matches!(m.kind, "alter_partition" | "alter_partition_response")).and_then(|m| m.isr.as_ref());
    let leader_view = rec
        .replicas
        .iter()
        .find(|r| Some(r.broker) == p.leader)
        .and_then(|r| r.followers.as_ref())
        .and_then(|fs| fs.iter().find(|f| f.broker == b))
        .map(|f| f.in_isr);
    if committed && proposed.is_some_and(|isr| !isr.contains(&b)) {
        "leaving ISR"
    } else if !committed && counted {
        if leader_view == Some(true) {
            "leaving ISR"
        } else {
            "joining ISR"
        }
    } else if committed {
        "in ISR"
    } else if p.elr.as_ref().is_some_and(|e| e.contains(&b)) {
        // 4.1 (KIP-966): out of the ISR but still eligible to lead.
        "in ELR"
    } else {
        "out of ISR"
    }
}

pub(super) fn broker(out: &mut String, board: &mut Board, rec: &StepRecord, r: &ReplicaRecord, l: &Layout) {
    let col = r.broker as usize;
    let in_isr = rec.partition.isr.contains(&r.broker);
    let membership = membership(rec, r.broker);
    let role = if r.alive { r.role } else { "offline" };
    let class = format!("broker {role}{}{}", if in_isr { "" } else { " out" }, if r.alive { "" } else { " down" });
    let (x, w) = (l.x0(col) + 3.0, l.col_w - 6.0);
    board.take(Rect { x0: x, y0: TOP, x1: x + w, y1: TOP + HEAD_H });
    let room = w - 10.0;
    let state = if r.fenced { "fenced" } else { membership };
    let short = match state {
        "leaving ISR" => "leaving",
        "joining ISR" => "joining",
        "out of ISR" => "out",
        "in ELR" => "ELR",
        s => s,
    };
    let (n1, n2, n3) = (format!("Broker {} · {role}", r.broker), format!("B{} · {role}", r.broker), format!("B{}", r.broker));
    let (e1, e2) = (format!("e{} · {state}", r.leader_epoch), format!("e{} · {short}", r.leader_epoch));
    let (v1, v2) = (format!("LEO {} · HW {}", r.leo, r.hw), format!("{} · {}", r.leo, r.hw));
    let lines = [fit(&[&n1, &n2, &n3], room, FONT, true), fit(&[&e1, &e2, short], room, FONT, false), fit(&[&v1, &v2], room, FONT, false)];
    let _ = write!(
        out,
        r#"<g class="{class}" data-broker="{b}" data-leo="{leo}" data-hw="{hw}"><title>Broker {b}, {role}, leader epoch {e}, {membership}, LEO {leo}, HW {hw}</title><rect x="{x:.1}" y="{TOP}" width="{w:.1}" height="{HEAD_H}" rx="6"/>"#,
        b = r.broker,
        leo = r.leo,
        hw = r.hw,
        e = r.leader_epoch,
    );
    for (i, words) in lines.iter().enumerate() {
        text(
            out,
            board,
            if i == 0 { "name" } else { "" },
            (x + 6.0, TOP + 4.0 + (i + 1) as f64 * LINE - 4.0, Anchor::Start),
            words,
            i == 0,
        );
    }
    out.push_str("</g>");
}

/// A strip, its records, the block of initial records and the ghosts of records it
/// lost where the offset is empty now; the strip is taken whole.
pub(super) fn log_strip(out: &mut String, board: &mut Board, r: &ReplicaRecord, leader: Option<&ReplicaRecord>, l: &Layout) {
    let col = r.broker as usize;
    let (sx, w) = (l.sx(col), l.strip_w);
    let _ = write!(
        out,
        r#"<g class="log{}" data-broker="{}"><rect class="strip" x="{sx:.1}" y="{STRIP_TOP}" width="{w:.1}" height="{:.1}"/>"#,
        if r.alive { "" } else { " down" },
        r.broker,
        l.strip_bottom - STRIP_TOP
    );
    board.take(Rect { x0: sx, y0: STRIP_TOP, x1: sx + w, y1: l.strip_bottom });
    let init_top = l.initial_end.min(r.leo);
    let init_bottom = r.log_start_offset.max(l.lo);
    if init_top > init_bottom {
        let (yt, yb) = (l.y(init_top), l.y(init_bottom));
        let _ = write!(out, r#"<rect class="init" x="{sx:.1}" y="{yt:.1}" width="{w:.1}" height="{:.1}"/>"#, yb - yt);
        let range = format!("{}–{}", r.log_start_offset, init_top - 1);
        if yb - yt >= FONT + 2.0 && text_width(&range, FONT, false) <= w - 4.0 {
            text(out, board, "initl", (sx + w / 2.0, (yt + yb) / 2.0 + FONT / 3.0, Anchor::Middle), &range, false);
        }
    }
    for e in r.log.iter().filter(|e| e.offset >= l.lo && e.offset < l.hi) {
        let y = l.y(e.offset + 1);
        let colour = EPOCH[e.epoch.rem_euclid(6) as usize];
        let committed = e.offset < r.hw;
        let _ = write!(
            out,
            r#"<g class="rec {}"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{}" rx="2" fill="{colour}" stroke="{colour}"/>"#,
            if committed { "c" } else { "u" },
            sx + 1.0,
            y + 1.0,
            w - 2.0,
            CELL - 2.0,
        );
        let number = e.id.rsplit('-').next().unwrap_or("");
        text(
            out,
            board,
            "",
            (sx + w / 2.0, y + CELL / 2.0 + FONT / 3.0, Anchor::Middle),
            fit(&[&e.id, number], w - 4.0, FONT, false),
            false,
        );
        out.push_str("</g>");
    }
    for g in r.lost.iter().filter(|g| g.offset >= l.lo && g.offset < l.hi && g.offset >= r.leo) {
        let y = l.y(g.offset + 1);
        let _ = write!(
            out,
            r#"<g class="ghost"><title>{} was at offset {} until step {} removed it</title><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{}" rx="2"/>"#,
            escape(&g.id),
            g.offset,
            g.step,
            sx + 1.0,
            y + 1.0,
            w - 2.0,
            CELL - 2.0
        );
        let (long, short) = (format!("✕ {} #{}", g.id, g.step), format!("✕ {}", g.id));
        text(
            out,
            board,
            "",
            (sx + w / 2.0, y + CELL / 2.0 + FONT / 3.0, Anchor::Middle),
            fit(&[&long, &short, "✕"], w - 4.0, FONT, true),
            true,
        );
        out.push_str("</g>");
    }
    // The lag band: committed on the leader, not yet below this follower's HW.
    if let Some(ld) = leader.filter(|ld| ld.broker != r.broker && r.alive && ld.hw > r.hw) {
        let _ = write!(
            out,
            r#"<rect class="lag" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/>"#,
            sx - 4.0,
            l.y(ld.hw),
            w + 8.0,
            l.y(r.hw) - l.y(ld.hw)
        );
    }
    let (y_hw, y_leo, right) = (l.y(r.hw), l.y(r.leo), sx + w + 4.0);
    let _ = write!(
        out,
        r#"<line class="hwl" x1="{:.1}" x2="{right:.1}" y1="{y_hw:.1}" y2="{y_hw:.1}"/><line class="leol" x1="{:.1}" x2="{right:.1}" y1="{y_leo:.1}" y2="{y_leo:.1}"/></g>"#,
        sx - 4.0,
        sx - 4.0,
    );
}

/// A strip's words beside it, in order of importance: HW, LEO, the lag, the
/// ghosts of records replaced since; right of the strip, else left, else left out.
pub(super) fn strip_labels(out: &mut String, board: &mut Board, r: &ReplicaRecord, leader: Option<&ReplicaRecord>, l: &Layout) {
    let (sx, w) = (l.sx(r.broker as usize), l.strip_w);
    let (y_hw, y_leo, right) = (l.y(r.hw), l.y(r.leo), sx + w + 4.0);
    let sides = |y: f64| [(right + 2.0, y, Anchor::Start), (sx - 8.0, y, Anchor::End)];
    let hw = format!("HW {}", r.hw);
    if let Some(at) = board.place(&hw, FONT, true, &sides(y_hw + FONT + 1.0)) {
        text(out, board, "hwt", at, &hw, true);
    }
    let leo = format!("LEO {}", r.leo);
    if let Some(at) = board.place(&leo, FONT, false, &sides(y_leo - 3.0)) {
        text(out, board, "leot", at, &leo, false);
    }
    let lag = leader.filter(|ld| ld.broker != r.broker && r.alive).map_or(0, |ld| ld.hw.saturating_sub(r.hw));
    let lag_text = format!("lag {lag}");
    if lag > 0 {
        if let Some(at) = board.place(&lag_text, FONT, true, &[(right + 2.0, y_hw + 2.0 * FONT + 5.0, Anchor::Start)]) {
            text(out, board, "lagt", at, &lag_text, true);
        }
    }
    for g in r.lost.iter().filter(|g| g.offset >= l.lo && g.offset < l.hi && g.offset < r.leo) {
        let words = format!("✕ {} #{}", g.id, g.step);
        let y = l.y(g.offset + 1) + CELL / 2.0 + FONT / 3.0;
        if let Some(at) = board.place(&words, FONT, true, &sides(y)) {
            text(out, board, "bad", at, &words, true);
        }
    }
}

/// A mark left of a strip (a tip at offset `o`) with its words placed where free.
/// The first of `words` that has room is written.
pub(super) fn mark<S: AsRef<str>>(
    out: &mut String,
    board: &mut Board,
    class: &str,
    (x, y): (f64, f64),
    words: &[S],
    title: &str,
    right: f64,
) {
    let _ = write!(out, r#"<g class="{class}"><title>{}</title><path d="M{x:.1},{y:.1}l-5,-4v8z"/>"#, escape(title));
    board.take(Rect { x0: x - 5.0, y0: y - 4.0, x1: x, y1: y + 4.0 });
    let bold = class == "fmark";
    let c = [
        (x - 6.0, y + FONT / 3.0, Anchor::End),
        (x - 6.0, y - 3.0, Anchor::End),
        (x - 6.0, y + FONT + 3.0, Anchor::End),
        (right, y + FONT / 3.0, Anchor::Start),
    ];
    for words in words.iter().map(AsRef::as_ref) {
        if let Some(at) = board.place(words, FONT, bold, &c) {
            text(out, board, class, at, words, bold);
            break;
        }
    }
    out.push_str("</g>");
}

/// A client's pill, taken on the board.
pub(super) fn pill(out: &mut String, board: &mut Board, class: &str, p: &Pill) {
    board.take(Rect { x0: p.x0, y0: p.y - 11.0, x1: p.x1, y1: p.y + 11.0 });
    let _ = write!(
        out,
        r#"<g class="client {class}"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="22" rx="9"/>"#,
        p.x0,
        p.y - 11.0,
        p.x1 - p.x0
    );
    text(out, board, "", ((p.x0 + p.x1) / 2.0, p.y + FONT / 3.0, Anchor::Middle), &p.label, false);
    out.push_str("</g>");
}

/// The leader's view of each follower: the offset it last asked to fetch from, one
/// mark per offset naming every follower there.
pub(super) fn follower_marks(out: &mut String, board: &mut Board, rec: &StepRecord, l: &Layout) {
    for r in &rec.replicas {
        let (sx, right) = (l.sx(r.broker as usize), l.sx(r.broker as usize) + l.strip_w + 6.0);
        let mut at: Vec<(u64, Vec<u32>)> = Vec::new();
        for f in r.followers.iter().flatten() {
            let Some(o) = f.fetch_offset else { continue };
            match at.iter_mut().find(|(x, _)| *x == o) {
                Some((_, v)) => v.push(f.broker),
                None => at.push((o, vec![f.broker])),
            }
        }
        for (o, fs) in at {
            let title = fs.iter().map(|f| format!("Leader's view of follower {f}: fetch offset {o}")).collect::<Vec<_>>().join("; ");
            // As on the page (www/render/logs.js): two followers at one offset read as
            // "1 & 2", not as a number ("1,2"); where the whole list has no room, a run of
            // brokers as "1–4".
            mark(out, board, "fmark", (sx - 2.0, l.y(o)), &follower_names(&fs), &title, right);
        }
    }
}

/// The followers at one offset in words: every one ("1 & 2 & 3 & 4"), and runs of
/// three or more as a range ("1–4").
pub(super) fn follower_names(fs: &[u32]) -> [String; 2] {
    let all = fs.iter().map(u32::to_string).collect::<Vec<_>>().join(" & ");
    let mut sorted = fs.to_vec();
    sorted.sort_unstable();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for f in sorted {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == f => *end = f,
            _ => runs.push((f, f)),
        }
    }
    let short = runs
        .iter()
        .map(|&(a, b)| match b - a {
            0 => a.to_string(),
            1 => format!("{a} & {b}"),
            _ => format!("{a}–{b}"),
        })
        .collect::<Vec<_>>()
        .join(" & ");
    [all, short]
}

/// Each consumer's position on the replica it reads from (one mark per offset),
/// left of the leader's marks for its followers at the same offset.
pub(super) fn consumer_marks(out: &mut String, board: &mut Board, rec: &StepRecord, l: &Layout) {
    let mut at: Vec<(usize, u64, Vec<&str>)> = Vec::new();
    for (c, lc) in rec.consumers.iter().zip(&l.consumers) {
        match at.iter_mut().find(|(col, o, _)| *col == lc.col && *o == c.position) {
            Some((_, _, ids)) => ids.push(&c.id),
            None => at.push((lc.col, c.position, vec![&c.id])),
        }
    }
    for (col, o, ids) in at {
        let lead = rec.replicas.get(col).filter(|r| r.role == "leader");
        let taken = lead.and_then(|r| r.followers.as_ref()).is_some_and(|fs| fs.iter().any(|f| f.fetch_offset == Some(o)));
        let x = l.sx(col) - 2.0 - if taken { 16.0 } else { 0.0 };
        let words = ids.join(",");
        mark(out, board, "cmark", (x, l.y(o)), &[words], &format!("{} at offset {o}", ids.join(", ")), l.sx(col) + l.strip_w + 6.0);
    }
}
