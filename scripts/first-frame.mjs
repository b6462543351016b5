// The first stage, before the WebAssembly arrives (issue 13): step 0 of every
// built-in scenario as the core computes it, written at build time into
// www/pkg/first.js, which the page imports before anything else (www/main.js),
// draws at once, and replaces with the live run, same record, same size, when
// the core has loaded. Run by scripts/build-wasm.sh after the package is built.
//
//   node scripts/first-frame.mjs [www/pkg]
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { roomOf } from "../www/core/room.js";

/** Records the page asks the core for keep this many log entries (www/core/sim.js TAIL). */
const TAIL = 64;
export const DEFAULT = "seed-walkthrough";

const dir = resolve(process.argv[2] ?? "www/pkg");
const pkg = await import(pathToFileURL(resolve(dir, "hwscope.js")).href);
pkg.initSync({ module: readFileSync(resolve(dir, "hwscope_bg.wasm")) });

const first = {};
for (const b of pkg.builtinScenarios()) {
  const p = new pkg.Playground();
  p.setLogTail(TAIL);
  const record = p.configure(b.json);
  const scenario = JSON.parse(b.json);
  first[b.name] = { title: b.title, description: b.description, preset: scenario.preset ?? "kafka-4.0", seed: scenario.seed ?? 1, initialEnd: scenario.initial?.log_end_offset ?? 0, room: roomOf(scenario), record };
  p.free();
}
const text = `// Written by scripts/first-frame.mjs at build time (npm run build): step 0 of every\n// built-in, as the core computes it, for the first stage (www/main.js).\nexport const DEFAULT = ${JSON.stringify(DEFAULT)};\nexport default ${JSON.stringify(first)};\n`;
writeFileSync(resolve(dir, "first.js"), text);
// What an embed's height depends on, per built-in (www/embed/size.js): the element
// sizes its iframe from it before the playground has loaded.
const sizes = Object.fromEntries(Object.entries(first).map(([name, f]) => [name, { initialEnd: f.initialEnd, ...f.room, producers: f.record.producers.length, consumersNow: f.record.consumers.length }]));
writeFileSync(resolve(dir, "sizes.js"), `// Written by scripts/first-frame.mjs at build time: what each built-in's embed height depends on.\nexport default ${JSON.stringify(sizes)};\n`);
console.log(`first-frame: ${resolve(dir, "first.js")} (${Object.keys(first).length} built-ins, ${(text.length / 1024).toFixed(1)} KiB), sizes.js`);
