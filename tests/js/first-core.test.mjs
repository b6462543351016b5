// The page's first core (www/pkg/hwscope_first_bg.wasm, feature `first`) computes the
// same run as the full core, but writes no step records (docs/performance.md, tenth
// pass): the page shows the records the full core wrote at build time (www/pkg/first.js
// and steps/NAME.json, by scripts/first-frame.mjs), and what the first core computes is
// the run's length, its key moments and its verdicts (the scrubber's marks and strip).
// Both must be the full core's: the records of each steps file, step for step, and the
// first core's look-ahead, marks and verdicts. The page relies on it when the full core
// takes over a run (www/core/sim.js swap).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";

const ROOT = join(import.meta.dirname, "../..");
const full = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
full.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });
const first = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope_first.js")).href);
first.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_first_bg.wasm")) });

const STEPS = 400;

for (const b of full.builtinScenarios()) {
  test(`${b.name}: the steps file is the full core's records, and the first core's run is the full core's`, () => {
    const a = new full.Playground();
    const f = new first.Playground();
    for (const p of [a, f]) p.setLogTail(64);
    // The records the page shows on the first core: written at build time by the full core.
    const file = JSON.parse(readFileSync(join(ROOT, "www/pkg/steps", `${b.name}.json`), "utf8"));
    let x = a.configure(b.json);
    for (const [n, rec] of file.records.entries()) {
      assert.deepEqual(rec, x, `step ${n} of the steps file`);
      x = n + 1 < file.records.length ? a.step() : x;
    }
    if (file.end) assert.equal(a.step(), null, "the run ends where the steps file says");
    assert.equal(f.configure(b.json), null, "the first core writes no records");
    assert.equal(f.step(), null);
    // The same run: its length, its key moments and its verdicts.
    a.configure(b.json);
    f.configure(b.json);
    assert.deepEqual(f.extend(STEPS), a.extend(STEPS));
    const known = a.extend(0).steps;
    assert.deepEqual([...f.markBuckets(0, known, 64)], [...a.markBuckets(0, known, 64)]);
    assert.deepEqual(f.verdicts(), a.verdicts());
    // A seek back (from a checkpoint) lands on the same step.
    f.seek(37);
    a.seek(37);
    assert.equal(f.current(), a.current());
    a.free();
    f.free();
  });
}

// The first core keeps no error messages (`error_text!` in src/lib.rs: 6.8 KB gzipped of
// it): it reads only the built-ins' own texts, which the full core validates. A scenario
// it cannot read is still refused, with one text; the full core names the field.
test("a scenario the first core cannot read is refused, with one text; the full core names the field", () => {
  const bad = JSON.stringify({ format: 1, replicas: "three" });
  assert.throws(() => new full.Playground().configure(bad), { message: 'replicas: must be a whole number 0 or more, got "three"' });
  assert.throws(() => new first.Playground().configure(bad), { message: "the page's first core reads only the built-in scenarios" });
  assert.throws(() => new first.Playground().configure("{"), { message: "the page's first core reads only the built-in scenarios" });
});
