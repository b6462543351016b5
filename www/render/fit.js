// The longest of a few wordings that fits a width (a narrow column says less).

import { textWidth } from "./measure.js";

/** The first of `variants` at most `max` px wide at `size`/`weight`; "" when none fits. */
export function fit(variants, max, size, weight = 400) {
  for (const v of variants) if (v && textWidth(v, size, weight) <= max) return v;
  return "";
}
