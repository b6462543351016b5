// scripts/wasm-sizes.mjs (what `npm run size` prints about the core): sections and
// functions read from a module made here byte by byte, with an import before the
// functions (function names count imports first) and a name section.
import assert from "node:assert/strict";
import { test } from "node:test";
import { wasmSizes } from "../../scripts/wasm-sizes.mjs";

const section = (id, bytes) => [id, bytes.length, ...bytes];
const name = (s) => [s.length, ...Buffer.from(s)];

/** A module importing `env.f` and defining `small` (body 2 bytes) and `big::h0123456789abcdef` (body 6 bytes). */
function module() {
  const type = section(1, [1, 0x60, 0, 0]);
  const imports = section(2, [1, ...name("env"), ...name("f"), 0, 0]);
  const funcs = section(3, [2, 0, 0]);
  const small = [0, 0x0b];
  const big = [0, 0x01, 0x01, 0x01, 0x01, 0x0b];
  const code = section(10, [2, small.length, ...small, big.length, ...big]);
  // Subsection 1 (function names): count, then (index, name) pairs.
  const entries = [3, 0, ...name("env_f"), 1, ...name("small"), 2, ...name("big::h0123456789abcdef")];
  const names = [1, entries.length, ...entries];
  const custom = section(0, [...name("name"), ...names]);
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...type, ...imports, ...funcs, ...code, ...custom]);
}

test("functions are named past the imports, largest first, hash dropped", () => {
  const bytes = module();
  assert.ok(new WebAssembly.Module(bytes), "the module is valid");
  const { functions, sections, named } = wasmSizes(bytes);
  assert.equal(named, true);
  assert.deepEqual(functions, [
    { name: "big", size: 6 },
    { name: "small", size: 2 },
  ]);
  assert.deepEqual(
    sections.map((s) => s.name),
    ["type", "import", "function", "code", 'custom "name"'],
  );
  assert.equal(sections.find((s) => s.name === "code").raw, 1 + 3 + 7);
});
