// Where a WebAssembly module's bytes are: its sections (raw and gzipped) and its
// largest functions by their own code size (what `twiggy top` calls shallow
// size), read from the module's "name" section. No tool to install: a few dozen
// lines of the binary format. twiggy (docs/performance.md) adds dominators and
// monomorphizations; this is the estimate `npm run size` prints every time.
//
//   node scripts/wasm-sizes.mjs [FILE.wasm] [--top N]
//
// Without FILE it reads target/wasm-names/hwscope_bg.wasm: the page's core as
// scripts/build-wasm.sh writes it, after wasm-opt, with its function names kept
// (the published www/pkg/hwscope_bg.wasm has them stripped, so its functions
// can only be counted, not named). Names are demangled as far as reading goes:
// the trailing `::h0123…` hash is dropped.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { constants, gzipSync } from "node:zlib";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The page's core after wasm-opt with its names (scripts/build-wasm.sh). */
export const NAMED_CORE = join(ROOT, "target/wasm-names/hwscope_bg.wasm");

const SECTION = ["custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "datacount"];

function reader(bytes) {
  let at = 0;
  const r = {
    get at() {
      return at;
    },
    set at(v) {
      at = v;
    },
    byte: () => bytes[at++],
    u32() {
      let result = 0;
      let shift = 0;
      for (;;) {
        const b = bytes[at++];
        result += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if (b < 0x80) return result;
      }
    },
    name() {
      const n = r.u32();
      const s = Buffer.from(bytes.subarray(at, at + n)).toString("utf8");
      at += n;
      return s;
    },
  };
  return r;
}

const gz = (b) => gzipSync(b, { level: constants.Z_BEST_COMPRESSION }).length;

/** {sections: [{name, raw, gzip}], functions: [{name, size}] (largest first), imported}. */
export function wasmSizes(bytes) {
  const r = reader(bytes);
  r.at = 8;
  const sections = [];
  const bodies = [];
  const names = new Map();
  let imported = 0;
  while (r.at < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const start = r.at;
    const end = start + size;
    let name = SECTION[id] ?? `section ${id}`;
    if (id === 0) {
      const custom = r.name();
      name = `custom "${custom}"`;
      if (custom === "name") {
        while (r.at < end) {
          const sub = r.byte();
          const len = r.u32();
          const subEnd = r.at + len;
          if (sub === 1) {
            const count = r.u32();
            for (let i = 0; i < count; i++) {
              const index = r.u32();
              names.set(index, r.name());
            }
          }
          r.at = subEnd;
        }
      }
    } else if (id === 2) {
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        r.name();
        r.name();
        const kind = r.byte();
        if (kind === 0) {
          imported++;
          r.u32();
        } else if (kind === 1) {
          r.byte();
          const flags = r.u32();
          r.u32();
          if (flags & 1) r.u32();
        } else if (kind === 2) {
          const flags = r.u32();
          r.u32();
          if (flags & 1) r.u32();
        } else if (kind === 3) {
          r.byte();
          r.byte();
        } else {
          r.byte();
          r.u32();
        }
      }
    } else if (id === 10) {
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        const len = r.u32();
        bodies.push(len);
        r.at += len;
      }
    }
    sections.push({ name, raw: size, gzip: gz(bytes.subarray(start, end)) });
    r.at = end;
  }
  const functions = bodies
    .map((size, i) => ({ name: (names.get(imported + i) ?? `code[${i}]`).replace(/::h[0-9a-f]{16}$/, ""), size }))
    .sort((a, b) => b.size - a.size || a.name.localeCompare(b.name));
  return { sections, functions, named: names.size > 0 };
}

/** Lines for a report: the sections, then the `top` largest functions. */
export function sizeLines(file, top = 12) {
  const bytes = readFileSync(file);
  const { sections, functions, named } = wasmSizes(bytes);
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const lines = [];
  const shown = sections.filter((s) => s.raw >= 1024 || s.name === "code" || s.name === "data");
  lines.push(`sections (raw, gzip -9 each alone):`);
  for (const s of shown) lines.push(`  ${s.name.padEnd(24)} ${kib(s.raw).padStart(10)} ${kib(s.gzip).padStart(10)}`);
  const code = functions.reduce((t, f) => t + f.size, 0);
  lines.push(`largest of ${functions.length} functions (own code, raw; ${kib(code)} in all${named ? "" : "; no names in this file"}):`);
  for (const f of functions.slice(0, top)) {
    const name = f.name.length > 96 ? `${f.name.slice(0, 93)}...` : f.name;
    lines.push(`  ${kib(f.size).padStart(10)} ${((100 * f.size) / code).toFixed(1).padStart(5)}%  ${name}`);
  }
  return lines;
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf("--top");
  const top = topAt >= 0 ? Number(args[topAt + 1]) || 12 : 12;
  const file = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--top") ?? NAMED_CORE;
  if (!existsSync(file)) {
    console.error(`wasm-sizes: ${file} is missing (npm run build writes it)`);
    process.exit(2);
  }
  for (const line of sizeLines(file, top)) console.log(line);
}
