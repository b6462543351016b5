#!/usr/bin/env bash
# Benchmarks (placeholder): the native simulator, then the wasm build under Node.
#   bash scripts/bench.sh [--json]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

echo "== native: cargo run --release --bin hwscope -- bench"
cargo run --quiet --release --bin hwscope -- bench

echo "== wasm: node scripts/bench-wasm.mjs"
bash scripts/build-wasm.sh >/dev/null
node scripts/bench-wasm.mjs "$@"
