//! The stage's geometry for one record: the page's `layout()` (www/render/layout.js),
//! wide form, with the clients' pills placed so that none touches another and
//! arrows end at a pill's edge.

use super::board::text_width;
use super::{CELL, FONT, HEAD, ROWS, STAGE_TOP, STRIP_TOP, TOP, WIDTH};
use crate::record::{NodeName, StepRecord};

#[derive(Clone, Copy)]
pub(super) struct Point {
    pub(super) x: f64,
    pub(super) y: f64,
}

/// A client's pill: its words, its left and right edges, its centre line.
pub(super) struct Pill {
    pub(super) id: String,
    pub(super) label: String,
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) y: f64,
}

impl Pill {
    fn new(id: &str, label: String, y: f64, left: f64) -> Pill {
        let w = text_width(&label, FONT, false) + 14.0;
        Pill { id: id.to_string(), label, x0: left, x1: left + w, y }
    }

    fn width(&self) -> f64 {
        self.x1 - self.x0
    }
}

pub(super) struct ConsumerAt {
    pub(super) pill: Pill,
    pub(super) col: usize,
}

/// The stage's geometry for one record (the page's `layout()`, wide form).
pub(super) struct Layout {
    pub(super) ruler: f64,
    pub(super) col_w: f64,
    pub(super) strip_w: f64,
    pub(super) strip_bottom: f64,
    pub(super) lo: u64,
    pub(super) hi: u64,
    pub(super) initial_end: u64,
    pub(super) consumers: Vec<ConsumerAt>,
    pub(super) producers: Vec<Pill>,
    pub(super) controller: Pill,
    pub(super) height: f64,
}

impl Layout {
    pub(super) fn new(rec: &StepRecord) -> Layout {
        let n = rec.replicas.len().max(1);
        // Records the scenario started with are not listed one by one: they end
        // where the first listed record starts.
        let initial_end = rec.replicas.iter().map(|r| r.log.first().map_or(r.leo, |e| e.offset)).min().unwrap_or(0);
        let mut need = 1;
        for r in &rec.replicas {
            need = need.max(r.leo + 1);
        }
        let rows = (need.saturating_sub(initial_end.saturating_sub(3)) + 2).clamp(8, ROWS);
        for c in &rec.consumers {
            need = need.max(c.position + 1);
        }
        let mut lo = initial_end.saturating_sub(3);
        if need - lo.min(need) > rows {
            lo = (need - rows).div_ceil(4) * 4;
        }
        let ruler = (text_width(&(lo + rows).to_string(), FONT, false) + 8.0).max(34.0);
        let col_w = (WIDTH - ruler) / n as f64;
        let strip_w = (col_w - 28.0 - 70.0 - 4.0).clamp(24.0, 110.0);
        let strip_bottom = STRIP_TOP + rows as f64 * CELL;
        let consumers_y = strip_bottom + 48.0;
        let mut layout = Layout {
            ruler,
            col_w,
            strip_w,
            strip_bottom,
            lo,
            hi: lo + rows,
            initial_end,
            consumers: Vec::new(),
            producers: Vec::new(),
            // The ZooKeeper era's controller is a broker (record `controller.broker_id`).
            controller: Pill::new(
                "controller",
                rec.controller.broker_id.map_or_else(|| "controller".into(), |c| format!("controller · broker {c}")),
                HEAD + 16.0,
                0.0,
            ),
            height: 0.0,
        };
        let c = &mut layout.controller;
        let w = c.width();
        c.x1 = WIDTH - 4.0;
        c.x0 = c.x1 - w;
        layout.producers = rec
            .producers
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let pending = if p.pending.is_empty() { String::new() } else { format!(" · {} pending", p.pending.len()) };
                Pill::new(&p.id, format!("{} acks={}{pending}", p.id, p.acks.name()), HEAD + 16.0 + i as f64 * 26.0, 4.0)
            })
            .collect();
        // Consumers under the replica they read from; a pill that would touch its
        // neighbour's moves aside, or a row down.
        let mut stack = vec![0usize; n];
        let mut rows_used = 1;
        for c in &rec.consumers {
            let col = (c.fetch_from.or(rec.partition.leader).unwrap_or(0) as usize).min(n - 1);
            let label = format!("{} · at {} · read {}", c.id, c.position, c.records_read);
            let mut k = stack[col];
            stack[col] += 1;
            let pill = loop {
                let y = consumers_y + k as f64 * 26.0;
                let centred = Pill::new(&c.id, label.clone(), y, 0.0);
                let w = centred.width();
                let left = (layout.cx(col) - w / 2.0).clamp(4.0, WIDTH - 4.0 - w);
                let mut tries = vec![left];
                for q in layout.consumers.iter().filter(|q| q.pill.y == y) {
                    tries.push(q.pill.x1 + 6.0);
                    tries.push(q.pill.x0 - 6.0 - w);
                }
                let free = |x0: f64| {
                    x0 >= 4.0
                        && x0 + w <= WIDTH - 4.0
                        && !layout.consumers.iter().any(|q| q.pill.y == y && x0 < q.pill.x1 + 4.0 && q.pill.x0 < x0 + w + 4.0)
                };
                match tries.into_iter().find(|&x0| free(x0)) {
                    Some(x0) => break Pill::new(&c.id, label.clone(), y, x0),
                    None if k > 16 => break Pill::new(&c.id, label.clone(), y, left),
                    None => k += 1,
                }
            };
            rows_used = rows_used.max(k + 1);
            layout.consumers.push(ConsumerAt { pill, col });
        }
        let stacked = rows_used.max(stack.iter().copied().max().unwrap_or(0)).max(1) as f64;
        layout.height = if rec.consumers.is_empty() { strip_bottom + 24.0 } else { consumers_y + (stacked - 1.0) * 26.0 + 19.0 };
        layout
    }

    pub(super) fn x0(&self, col: usize) -> f64 {
        self.ruler + col as f64 * self.col_w
    }

    /// Left edge of a broker's log strip.
    pub(super) fn sx(&self, col: usize) -> f64 {
        self.x0(col) + 28.0_f64.max((self.col_w - self.strip_w - 98.0) / 2.0 + 28.0)
    }

    pub(super) fn cx(&self, col: usize) -> f64 {
        self.sx(col) + self.strip_w / 2.0
    }

    /// y of the boundary below offset `o`, clamped to the window.
    pub(super) fn y(&self, o: u64) -> f64 {
        self.strip_bottom - (o.clamp(self.lo, self.hi) - self.lo) as f64 * CELL
    }

    /// Where a message to or from `name` (talking to `other`) meets its box.
    fn point(&self, name: &NodeName, other: &NodeName) -> Point {
        match name {
            NodeName::Broker(b) => {
                let col = *b as usize;
                let to_consumer = matches!(other, NodeName::Name(o) if self.consumers.iter().any(|c| &c.pill.id == o));
                Point { x: self.cx(col), y: if to_consumer { self.strip_bottom + 2.0 } else { TOP - 1.0 } }
            }
            NodeName::Name(id) => {
                if let Some(c) = self.consumers.iter().find(|c| &c.pill.id == id) {
                    return Point { x: (c.pill.x0 + c.pill.x1) / 2.0, y: c.pill.y - 13.0 };
                }
                match self.producers.iter().find(|p| &p.id == id) {
                    Some(p) => Point { x: p.x1 - 8.0, y: p.y + 13.0 },
                    None => Point { x: self.controller.x0 + 8.0, y: self.controller.y + 13.0 },
                }
            }
        }
    }

    /// A quadratic edge: broker links arc over the headers (rightward higher),
    /// other links bow to the sender's left.
    pub(super) fn edge(&self, from: &NodeName, to: &NodeName) -> [Point; 3] {
        let a = self.point(from, to);
        let b = self.point(to, from);
        let c = match (from, to) {
            (NodeName::Broker(f), NodeName::Broker(t)) => {
                let h = (STAGE_TOP - 26.0).min(14.0 + (a.x - b.x).abs() * 0.2) * if f < t { 1.0 } else { 0.55 };
                Point { x: (a.x + b.x) / 2.0, y: TOP - 2.0 * h }
            }
            _ => {
                let (dx, dy) = (b.x - a.x, b.y - a.y);
                let len = dx.hypot(dy).max(1.0);
                Point { x: (a.x + b.x) / 2.0 + dy / len * 16.0, y: (a.y + b.y) / 2.0 - dx / len * 16.0 }
            }
        };
        [a, c, b]
    }
}

pub(super) fn along([a, c, b]: [Point; 3], f: f64) -> Point {
    let g = 1.0 - f;
    Point { x: g * g * a.x + 2.0 * g * f * c.x + f * f * b.x, y: g * g * a.y + 2.0 * g * f * c.y + f * f * b.y }
}
