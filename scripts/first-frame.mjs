// The first stage, before the WebAssembly arrives (issue 13): step 0 of every
// built-in scenario as the core computes it, written at build time: the default
// built-in's into www/pkg/first.js, which the page imports before anything else
// (www/main.js), draws at once, and replaces with the live run, same record, same
// size, when the core has loaded; every built-in's into www/pkg/first/NAME.json,
// which the page fetches when its address names another built-in (www/prefetch.js
// asks for it first: ~0.4 KB gzipped each, where all of them in first.js were 6.8 KB
// of every first load). Also www/pkg/steps/NAME.json, steps 0..64 of each, which
// the page fetches when its address asks for a later step of a built-in (a share
// link, an embed's #at=, ?from=) to draw that step before the core arrives.
// Run by scripts/build-wasm.sh after the package is built.
//
//   node scripts/first-frame.mjs [www/pkg]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { roomOf } from "../www/core/room.js";
import { linkKey } from "../www/core/first-view.js";

/** Records the page asks the core for keep this many log entries (www/core/sim.js TAIL). */
const TAIL = 64;
export const DEFAULT = "seed-walkthrough";
/** The last step written for each built-in (the stills go as far: scripts/stills.mjs). */
const STEPS_LAST = 64;

const dir = resolve(process.argv[2] ?? "www/pkg");
const pkg = await import(pathToFileURL(resolve(dir, "hwscope.js")).href);
pkg.initSync({ module: readFileSync(resolve(dir, "hwscope_bg.wasm")) });

const first = {};
const urls = [];
const links = {};
const firsts = [];
mkdirSync(resolve(dir, "steps"), { recursive: true });
mkdirSync(resolve(dir, "first"), { recursive: true });
for (const b of pkg.builtinScenarios()) {
  const p = new pkg.Playground();
  p.setLogTail(TAIL);
  const record = p.configure(b.json);
  const scenario = JSON.parse(b.json);
  // Steps 1..STEPS_LAST (or to the run's end): a share link or an embed's #at= of the
  // built-in, unchanged, draws its step from these before the core arrives.
  const records = [record];
  let end = false;
  while (records.length <= STEPS_LAST) {
    const next = p.step();
    if (!next || next.step !== records.length) {
      end = true;
      break;
    }
    records.push(next);
  }
  // A share link names the scenario by its `s=` part: the built-in's, as the core writes it.
  const s = new URLSearchParams(pkg.encodeLink(b.json)).get("s");
  writeFileSync(resolve(dir, "steps", `${b.name}.json`), JSON.stringify({ s, end, records }));
  // A function: the classic bundle (scripts/standalone.mjs) has no import.meta.url to resolve it against.
  urls.push(`${JSON.stringify(b.name)}: () => new URL(${JSON.stringify(`./steps/${b.name}.json`)}, import.meta.url)`);
  links[b.name] = linkKey(s);
  first[b.name] = { title: b.title, description: b.description, json: b.json, preset: scenario.preset ?? "kafka-4.0", seed: scenario.seed ?? 1, initialEnd: scenario.initial?.log_end_offset ?? 0, room: roomOf(scenario), record };
  writeFileSync(resolve(dir, "first", `${b.name}.json`), JSON.stringify(first[b.name]));
  firsts.push(`${JSON.stringify(b.name)}: () => new URL(${JSON.stringify(`./first/${b.name}.json`)}, import.meta.url)`);
  p.free();
}
// The default built-in's only (first/NAME.json has each one's; scripts/standalone.mjs
// puts them all in the classic bundle, which fetches nothing).
// With every built-in's title (the picker's, before the full core has the built-ins):
// only main.js reads them, so they are not in steps.js, which www/prefetch.js imports.
const titles = Object.fromEntries(Object.entries(first).map(([name, f]) => [name, f.title]));
const text = `// Written by scripts/first-frame.mjs at build time (npm run build): step 0 of the\n// default built-in, as the core computes it, for the first stage (www/main.js), and\n// every built-in's title; the others' step 0 are in first/NAME.json.\nexport const DEFAULT = ${JSON.stringify(DEFAULT)};\nexport const TITLES = ${JSON.stringify(titles)};\nexport default ${JSON.stringify({ [DEFAULT]: first[DEFAULT] })};\n`;
// Small, for www/prefetch.js too: which built-in a share link names, and where its steps are.
const stepsText = `// Written by scripts/first-frame.mjs at build time (npm run build): each built-in's\n// share-link key (core/first-view.js linkKey of its s= part) and its steps 0..${STEPS_LAST}\n// (steps/NAME.json: {s, end, records}), for the first stage of a later step, and its\n// step 0 (first/NAME.json: what first.js has of the default one).\nexport const DEFAULT = ${JSON.stringify(DEFAULT)};\nexport const LINKS = ${JSON.stringify(links)};\nexport const STEPS = {\n  ${urls.join(",\n  ")},\n};\nexport const FIRSTS = {\n  ${firsts.join(",\n  ")},\n};\n`;
writeFileSync(resolve(dir, "steps.js"), stepsText);
writeFileSync(resolve(dir, "first.js"), text);
// What an embed's height depends on, per built-in (www/embed/size.js): the element
// sizes its iframe from it before the playground has loaded.
const sizes = Object.fromEntries(Object.entries(first).map(([name, f]) => [name, { initialEnd: f.initialEnd, ...f.room, producers: f.record.producers.length, consumersNow: f.record.consumers.length }]));
writeFileSync(resolve(dir, "sizes.js"), `// Written by scripts/first-frame.mjs at build time: what each built-in's embed height depends on.\nexport default ${JSON.stringify(sizes)};\n`);
console.log(`first-frame: ${resolve(dir, "first.js")} (${Object.keys(first).length} built-ins, ${(text.length / 1024).toFixed(1)} KiB), sizes.js`);
