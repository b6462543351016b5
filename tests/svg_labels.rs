//! `hwscope svg` never overprints (issue 13, problem 5): in every step of every
//! built-in, no two lines of text in the SVG overlap and none leaves the picture.
//! The boxes are the labeller's (`src/cli/svg/board.rs`), whose widths are a
//! per-character estimate no narrower than a browser's; e2e/stage.test.mjs
//! measures the same SVGs as Chromium draws them.

use hwscope::cli::svg::text_boxes;
use hwscope::Run;

#[test]
fn no_two_texts_overlap_in_any_step_of_any_builtin() {
    let mut problems = Vec::new();
    for (name, _) in hwscope::builtin::BUILTINS.iter() {
        let scenario = hwscope::builtin::load(name).unwrap();
        let title = scenario.title.clone();
        let mut run = Run::new(scenario);
        let limit = if *name == "steady-load" { 2000 } else { u64::MAX };
        loop {
            let rec = run.record();
            let boxes = text_boxes(&rec, &title);
            for (i, (a, ra)) in boxes.iter().enumerate() {
                if ra.x0 < 0.0 || ra.y0 < 0.0 || ra.x1 > 800.0 {
                    problems.push(format!("{name} step {}: {a:?} leaves the picture", rec.step));
                }
                for (b, rb) in &boxes[i + 1..] {
                    let x = ra.x1.min(rb.x1) - ra.x0.max(rb.x0);
                    let y = ra.y1.min(rb.y1) - ra.y0.max(rb.y0);
                    if x > 0.0 && y > 0.0 {
                        problems.push(format!("{name} step {}: {a:?} overlaps {b:?}", rec.step));
                    }
                }
            }
            if problems.len() > 20 || rec.step >= limit || !run.step() {
                break;
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
