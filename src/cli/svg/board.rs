//! The SVG's labeller, the page's (`www/render/board.js`) in Rust: every piece of
//! text is a box on one board; a label goes to the first of its candidate places
//! that overlaps nothing placed before it and stays on the picture, or is left
//! out. With no font to measure, a text's width is estimated per character from
//! the advance widths of DejaVu Sans (the widest of the usual sans-serif faces),
//! so a box is never narrower than what a browser draws (e2e/stage.test.mjs
//! measures the SVG in Chromium).

/// A box on the picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

/// The font's ascent and descent per px of size (a browser's text box).
const ASCENT: f64 = 0.93;
const DESCENT: f64 = 0.24;
/// Air between two labels.
const GAP: f64 = 1.0;

/// Advance width of one character in em, bold a little wider.
fn advance(c: char, bold: bool) -> f64 {
    let w = match c {
        'i' | 'j' | 'l' | '|' | '\'' | '!' | '.' | ',' | ':' | ';' => 0.3,
        '–' => 0.5,
        'f' | 't' | 'r' | ' ' | '(' | ')' | '[' | ']' | '{' | '}' | '·' | '-' => 0.42,
        'I' | 'J' => 0.33,
        'm' | 'w' => 0.98,
        'M' | 'W' => 1.0,
        'A'..='Z' => 0.79,
        '0'..='9' | 'a'..='z' | '=' | '+' | '<' | '>' | '?' | '_' | '@' | '#' | '$' | '%' | '&' | '*' => 0.7,
        '→' | '←' | '✕' | '‖' | '…' | '↑' => 0.9,
        _ => 1.0,
    };
    if bold {
        w * 1.1
    } else {
        w
    }
}

/// Estimated width in px of `s` at `size` px.
pub fn text_width(s: &str, size: f64, bold: bool) -> f64 {
    s.chars().map(|c| advance(c, bold)).sum::<f64>() * size
}

/// Where a text anchored at (x, y) on its baseline is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    pub fn name(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// The box a line of text covers.
pub fn text_box(s: &str, x: f64, y: f64, size: f64, anchor: Anchor, bold: bool) -> Rect {
    let w = text_width(s, size, bold);
    let x0 = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - w / 2.0,
        Anchor::End => x - w,
    };
    Rect { x0, y0: y - ASCENT * size, x1: x0 + w, y1: y + DESCENT * size }
}

/// The longest of a few wordings that fits `max` px; "" when none does.
pub fn fit<'a>(variants: &[&'a str], max: f64, size: f64, bold: bool) -> &'a str {
    variants.iter().copied().find(|v| !v.is_empty() && text_width(v, size, bold) <= max).unwrap_or("")
}

/// The boxes taken so far on a picture `width` × `height`.
#[derive(Debug, Clone)]
pub struct Board {
    width: f64,
    height: f64,
    /// Everything taken: texts, and the boxes and strips no text may cover.
    pub boxes: Vec<Rect>,
    /// The texts drawn, with their boxes (what the tests check).
    pub texts: Vec<(String, Rect)>,
}

fn overlaps(a: &Rect, b: &Rect) -> bool {
    a.x0 < b.x1 + GAP && b.x0 < a.x1 + GAP && a.y0 < b.y1 + GAP && b.y0 < a.y1 + GAP
}

impl Board {
    pub fn new(width: f64, height: f64) -> Board {
        Board { width, height, boxes: Vec::new(), texts: Vec::new() }
    }

    pub fn take(&mut self, r: Rect) {
        self.boxes.push(r);
    }

    pub fn fits(&self, r: &Rect) -> bool {
        r.x0 >= 0.0 && r.y0 >= 0.0 && r.x1 <= self.width && r.y1 <= self.height && !self.boxes.iter().any(|b| overlaps(b, r))
    }

    /// The first candidate (x, y, anchor) where `s` fits is taken: its place, or None.
    pub fn place(&mut self, s: &str, size: f64, bold: bool, candidates: &[(f64, f64, Anchor)]) -> Option<(f64, f64, Anchor)> {
        if s.is_empty() {
            return None;
        }
        for &(x, y, a) in candidates {
            let r = text_box(s, x, y, size, a, bold);
            if self.fits(&r) {
                self.take(r);
                return Some((x, y, a));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_goes_where_it_is_free_or_nowhere() {
        let mut b = Board::new(200.0, 100.0);
        b.take(Rect { x0: 0.0, y0: 0.0, x1: 200.0, y1: 40.0 });
        let first = b.place("HW 105", 12.0, true, &[(10.0, 30.0, Anchor::Start), (10.0, 60.0, Anchor::Start)]);
        assert_eq!(first, Some((10.0, 60.0, Anchor::Start)));
        assert_eq!(b.place("HW 105", 12.0, true, &[(10.0, 60.0, Anchor::Start)]), None, "taken");
        assert_eq!(b.place("too wide for the picture at all", 12.0, false, &[(150.0, 90.0, Anchor::Start)]), None);
        assert_eq!(fit(&["Broker 0 · leader", "B0 · leader", "B0"], 100.0, 12.0, true), "B0 · leader");
    }
}
