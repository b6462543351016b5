#!/usr/bin/env bash
# Benchmarks: native and wasm events per second in one run (scripts/bench.mjs), then
# the page-level figure: step() with full step records through the wasm facade.
#   npm run bench
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --quiet --release --bin hwscope
bash scripts/build-wasm.sh >/dev/null
echo "== engine: native vs wasm (narration off)"
node scripts/bench.mjs "$@"
echo
echo "== seek in a 170,000-step run (node scripts/bench-seek.mjs)"
node scripts/bench-seek.mjs
echo
echo "== page: Playground.step() with step records (node scripts/bench-wasm.mjs)"
node scripts/bench-wasm.mjs --min-ms 300
