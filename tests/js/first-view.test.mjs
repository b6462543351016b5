// www/core/first-view.js: which built-in and steps the first stage draws, from the
// address alone, as the live page (app.js) will show them; and www/pkg/steps.js's
// link keys, which must name each built-in as the core writes its share link.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { firstView, linkKey } from "../../www/core/first-view.js";
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
