// The stage's labeller: every piece of text is a box on one board, and a label
// goes where it overlaps nothing placed before it (obstacles first, then labels
// in order of importance), or, when no place is free, is left out. So the stage
// never overprints: e2e/stage.test.mjs measures the drawn text of every step.

/** A little air between two labels. */
const GAP = 1;

const overlaps = (a, b) => a.x0 < b.x1 + GAP && b.x0 < a.x1 + GAP && a.y0 < b.y1 + GAP && b.y0 < a.y1 + GAP;

export class Board {
  /** The stage's own size: nothing is placed outside it. */
  constructor(width, height) {
    this.width = width;
    this.height = height;
    this.boxes = [];
  }

  /** A copy to place the moving labels of one frame on, over the step's static ones. */
  fork() {
    const b = new Board(this.width, this.height);
    b.boxes = this.boxes.slice();
    return b;
  }

  /** Marks a box as taken (a header, a pill, a record, a label placed by hand). */
  take(box) {
    if (box) this.boxes.push(box);
    return box;
  }

  fits(box) {
    if (box.x0 < 0 || box.y0 < 0 || box.x1 > this.width || box.y1 > this.height) return false;
    for (const b of this.boxes) if (overlaps(b, box)) return false;
    return true;
  }

  /** The first candidate box that fits is taken and returned (its index in `i`); null when none does. */
  place(candidates) {
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[i];
      if (c && this.fits(c)) {
        c.i = i;
        this.boxes.push(c);
        return c;
      }
    }
    return null;
  }
}
