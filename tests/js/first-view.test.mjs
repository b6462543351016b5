// www/core/first-view.js: which built-in and steps the first stage draws, from the
// address alone, as the live page (app.js) will show them; and www/pkg/steps.js's
// link keys, which must name each built-in as the core writes its share link.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { builtinLink, firstView, linkKey, startCore } from "../../www/core/first-view.js";
import { readOptions } from "../../www/core/options.js";

const ROOT = join(import.meta.dirname, "../..");
const pkg = await import(pathToFileURL(join(ROOT, "www/pkg/hwscope.js")).href);
pkg.initSync({ module: readFileSync(join(ROOT, "www/pkg/hwscope_bg.wasm")) });
const { LINKS, DEFAULT } = await import(pathToFileURL(join(ROOT, "www/pkg/steps.js")).href);

const view = (search, fragment) => firstView(readOptions(search), fragment, LINKS, DEFAULT);

test("every built-in's share link, at any step, is known by its key", () => {
  for (const b of pkg.builtinScenarios()) {
    const p = new pkg.Playground();
    p.configure(b.json);
    p.seek(3);
    const v = view("", `#${p.link()}`);
    assert.equal(v?.name, b.name, b.name);
    assert.deepEqual(v.steps, [p.current()]);
    assert.equal(v.hash, true);
    p.free();
  }
});

test("the address alone: the default, ?scenario=, #at=, ?from= inside ?to=", () => {
  assert.deepEqual(view("", ""), { name: DEFAULT, steps: [], s: null, hash: false });
  assert.deepEqual(view("", "#intro").steps, [], "an anchor is no link");
  assert.deepEqual(view("?scenario=elr", "#at=7"), { name: "elr", steps: [7], s: null, hash: false });
  assert.deepEqual(view("?scenario=elr&from=5", "").steps, [5]);
  assert.deepEqual(view("?scenario=elr&from=5&to=9", "#at=30").steps, [5, 9], "held inside the range, after from");
  assert.deepEqual(view("?scenario=elr&from=5", "#at=2").steps, [5]);
});

test("what only the core can read draws nothing early", () => {
  assert.equal(view("?scenario=no-such", ""), null);
  assert.equal(view("", "#at=x1"), null, "a damaged at=");
  assert.equal(view("", "#v=2&s=jAAAA"), null, "a newer link format");
  assert.equal(view("", `#v=1&s=j${Buffer.from('{"format":1,"replicas":3}').toString("base64url")}`), null, "a scenario that is no built-in");
  const b = pkg.builtinScenarios()[0];
  const fragment = pkg.encodeLink(b.json);
  assert.equal(view("", `#${fragment}&at=1e3`), null, "a damaged at= in a link");
  assert.equal(linkKey("abc"), "1a47e90b", "FNV-1a, 32 bits");
});

test("a link to a built-in as it is starts on the first core; one the core must read, on the full core", () => {
  const b = pkg.builtinScenarios().find((x) => x.name === "kip101-data-loss");
  const p = new pkg.Playground();
  p.configure(b.json);
  p.seek(20);
  const fragment = `#${p.link()}`;
  const hash = /h=([0-9a-f]{16})/.exec(fragment)[1];
  assert.deepEqual(builtinLink(fragment, LINKS), { name: b.name, at: 20, hash });
  assert.equal(startCore(fragment, LINKS).glue, "first");
  assert.equal(startCore("", LINKS).glue, "first");
  assert.equal(startCore("#at=7", LINKS).glue, "first");
  assert.equal(startCore("#at=64", LINKS).glue, "first");
  // Past the steps files: the first core writes no records of its own.
  assert.equal(startCore("#at=65", LINKS).glue, "full");
  assert.equal(startCore(fragment.replace("at=20", "at=90"), LINKS).glue, "full");
  // With an intervention the scenario is no built-in's: only the full core decodes it.
  p.apply(JSON.stringify({ crash: { broker: 0 } }));
  const changed = `#${p.link()}`;
  p.free();
  assert.equal(builtinLink(changed, LINKS), null);
  assert.equal(startCore(changed, LINKS).glue, "full");
  // What the core would refuse with a message is left to it.
  for (const damaged of [fragment.replace(/h=[0-9a-f]{16}/, "h=xyz"), fragment.replace("at=20", "at=2e1"), fragment.replace("v=1", "v=2")]) {
    assert.equal(builtinLink(damaged, LINKS), null, damaged);
    assert.equal(startCore(damaged, LINKS).glue, "full", damaged);
  }
});
