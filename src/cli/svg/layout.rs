//! The stage's geometry for one record: the page's `layout()` (www/render/layout.js),
//! wide form.

use super::{CELL, HEAD, ROWS, STAGE_TOP, STRIP_TOP, TOP, WIDTH};
use crate::record::{NodeName, StepRecord};

#[derive(Clone, Copy)]
pub(super) struct Point {
    pub(super) x: f64,
    pub(super) y: f64,
}

/// The stage's geometry for one record (the page's `layout()`, wide form).
pub(super) struct Layout {
    pub(super) col_w: f64,
    pub(super) strip_w: f64,
    pub(super) strip_bottom: f64,
    pub(super) lo: u64,
    pub(super) hi: u64,
    pub(super) initial_end: u64,
    pub(super) consumers: Vec<(String, Point, usize)>,
    pub(super) producers: Vec<(String, Point)>,
    pub(super) controller: Point,
    pub(super) height: f64,
}

impl Layout {
    pub(super) fn new(rec: &StepRecord) -> Layout {
        let n = rec.replicas.len().max(1);
        let col_w = (WIDTH - 34.0) / n as f64;
        let strip_w = (col_w - 28.0 - 64.0 - 4.0).clamp(24.0, 110.0);
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
        let strip_bottom = STRIP_TOP + rows as f64 * CELL;
        let consumers_y = strip_bottom + 52.0;
        let mut stack = vec![0usize; n];
        let consumers = rec
            .consumers
            .iter()
            .map(|c| {
                let col = (c.fetch_from.or(rec.partition.leader).unwrap_or(0) as usize).min(n - 1);
                let k = stack[col];
                stack[col] += 1;
                let cx = 34.0 + col as f64 * col_w + col_w / 2.0;
                (c.id.clone(), Point { x: cx, y: consumers_y + k as f64 * 26.0 }, col)
            })
            .collect();
        let stacked = stack.iter().copied().max().unwrap_or(0).max(1) as f64;
        let producers =
            rec.producers.iter().enumerate().map(|(i, p)| (p.id.clone(), Point { x: 30.0, y: HEAD + 18.0 + i as f64 * 24.0 })).collect();
        let below = if rec.consumers.is_empty() { strip_bottom + 24.0 } else { consumers_y + stacked * 26.0 + 8.0 };
        Layout {
            col_w,
            strip_w,
            strip_bottom,
            lo,
            hi: lo + rows,
            initial_end,
            consumers,
            producers,
            controller: Point { x: WIDTH - 56.0, y: HEAD + 18.0 },
            height: below,
        }
    }

    pub(super) fn x0(&self, col: usize) -> f64 {
        34.0 + col as f64 * self.col_w
    }

    /// Left edge of a broker's log strip.
    pub(super) fn sx(&self, col: usize) -> f64 {
        self.x0(col) + 28.0_f64.max((self.col_w - self.strip_w - 92.0) / 2.0 + 28.0)
    }

    pub(super) fn cx(&self, col: usize) -> f64 {
        self.sx(col) + self.strip_w / 2.0
    }

    /// y of the boundary below offset `o`, clamped to the window.
    pub(super) fn y(&self, o: u64) -> f64 {
        self.strip_bottom - (o.clamp(self.lo, self.hi) - self.lo) as f64 * CELL
    }

    fn point(&self, name: &NodeName, other: &NodeName) -> Point {
        match name {
            NodeName::Broker(b) => {
                let col = *b as usize;
                let to_consumer = matches!(other, NodeName::Name(o) if self.consumers.iter().any(|c| &c.0 == o));
                Point { x: self.cx(col), y: if to_consumer { self.strip_bottom } else { TOP } }
            }
            NodeName::Name(id) => self
                .producers
                .iter()
                .find(|p| &p.0 == id)
                .map(|p| p.1)
                .or_else(|| self.consumers.iter().find(|c| &c.0 == id).map(|c| c.1))
                .unwrap_or(self.controller),
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
