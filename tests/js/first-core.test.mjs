// The page's first core (www/pkg/hwscope_first_bg.wasm, feature `first`) computes the
// same run as the full core: every built-in's records are the same, step for step, but
// for what the first core leaves out (the sentence and the broker-log lines). The page
// relies on it when the full core takes over a run (www/core/sim.js swap).
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
const bare = (rec) => ({ ...rec, text: undefined, kafka_log: undefined });

for (const b of full.builtinScenarios()) {
  test(`${b.name}: the first core's steps are the full core's`, () => {
    const a = new full.Playground();
    const f = new first.Playground();
    for (const p of [a, f]) p.setLogTail(64);
    let x = a.configure(b.json);
    let y = f.configure(b.json);
    assert.equal(y.text, "", "the first core says nothing");
    for (let n = 0; n < STEPS && x; n++) {
      assert.deepEqual(bare(y), bare(x), `step ${n}`);
      x = a.step();
      y = f.step();
    }
    assert.equal(y == null, x == null, "the run ends at the same step");
    // A seek back (from a checkpoint) lands on the same record too.
    assert.deepEqual(bare(f.seek(37)), bare(a.seek(37)));
    a.free();
    f.free();
  });
}
