#!/usr/bin/env bash
# Build the wasm package the page loads: www/pkg/hwscope.js + www/pkg/hwscope_bg.wasm,
# and www/pkg/hwscope_docs_bg.wasm, the same core with what only documentation
# figures use (parseDocBlock: www/embed/live.js loads it with the same hwscope.js).
#
#   bash scripts/build-wasm.sh            # release build, wasm-bindgen --target web, wasm-opt -Oz
#   bash scripts/build-wasm.sh --no-opt   # skip wasm-opt (faster, bigger)
#
# Installs the tools it needs first (scripts/install-tools.sh, without the browser).
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

opt=1
for arg in "$@"; do
  case "$arg" in
    --no-opt) opt=0 ;;
    *)
      echo "build-wasm: unknown argument: $arg" >&2
      exit 2
      ;;
  esac
done

bash scripts/install-tools.sh

target_dir="${CARGO_TARGET_DIR:-target}"
# The page's core is built with the `page` profile (Cargo.toml: release, tuned for
# size, panic = "abort"); the explorer's worker below with `release` (tuned for
# speed). Two profiles, two cached builds: switching between them rebuilds nothing.
wasm_in="$target_dir/wasm32-unknown-unknown/page/hwscope.wasm"
out_dir="www/pkg"

# Keep the wasm unstripped for wasm-bindgen: with `strip = true` the target_features
# section is gone, wasm-bindgen cannot see that reference types are on (and warns).
# wasm-opt --strip-debug below removes names and debug info.
# The page's core is built for size: opt-level "z" with LLVM's inline threshold lowered
# to 40 (this crate only: `cargo rustc` passes it). Since issue 28's eleventh pass made the
# look-ahead ~30% faster, "z" fits the page's budget (a 50,000-step look-ahead <= 50 ms):
# 10.9 KB gzipped smaller than "s", the look-ahead 8% slower (45.0 against 41.7 ms of CPU,
# as fast as the first core's; docs/performance.md, "The look-ahead under 50 ms").
# WASM_OPT_LEVEL and WASM_INLINE_THRESHOLD override them, to measure another trade.
page_opt_level="${WASM_OPT_LEVEL:-z}"
page_inline="${WASM_INLINE_THRESHOLD:-40}"
echo "build-wasm: cargo rustc --lib --target wasm32-unknown-unknown --profile page (opt-level $page_opt_level, inline threshold $page_inline)"
CARGO_PROFILE_PAGE_OPT_LEVEL="$page_opt_level" cargo rustc --lib --crate-type cdylib --target wasm32-unknown-unknown --profile page \
  -- -C llvm-args=-inline-threshold="$page_inline"

echo "build-wasm: wasm-bindgen --target web --out-dir $out_dir"
rm -rf "$out_dir"
wasm-bindgen --target web --out-dir "$out_dir" --out-name hwscope "$wasm_in"

# wasm-opt from the npm package `binaryen` (Debian's wasm-opt 108 emits modules that fail
# to load). Enable exactly the features rustc's wasm32-unknown-unknown target emits by
# default (Rust >= 1.82/1.87): without them wasm-opt rejects the module or, worse, lowers
# it into something the wasm-bindgen glue cannot instantiate. Every feature listed is
# supported by Node 20 and current Chromium, Firefox and Safari.
wasm_features=(
  --enable-bulk-memory
  --enable-bulk-memory-opt
  --enable-multivalue
  --enable-mutable-globals
  --enable-nontrapping-float-to-int
  --enable-reference-types
  --enable-sign-ext
)
wasm="$out_dir/hwscope_bg.wasm"
docs="$out_dir/hwscope_docs_bg.wasm"
# Each core the page or a docs figure downloads is written without its target_features
# section (--strip-target-features, ~100 B gzipped): wasm-bindgen, which reads it, has run.
# Exports only documentation figures call. The page's core leaves them out and
# wasm-opt drops the code only they reach (the docs block parser is ~7 KB gzipped
# that every playground page would otherwise download).
docs_only=(--remove-exports --pass-arg=remove-exports@parseDocBlock)
if [[ $opt == 1 ]]; then
  before=$(wc -c <"$wasm")
  echo "build-wasm: wasm-opt -Oz"
  node_modules/.bin/wasm-opt "$wasm" -o "$docs" -Oz "${wasm_features[@]}" \
    --strip-debug --strip-producers --strip-target-features
  # The page's core is optimized with its function names kept (-g), for `npm run
  # size` (scripts/wasm-sizes.mjs: its largest functions), then stripped. -Oz twice:
  # the second pass finds ~1 KB more (gzipped) in what the first left, and
  # --converge (the passes again until nothing shrinks) ~1 KB more still.
  # --low-memory-unused (~0.9 KB): addresses below 1 KiB are never used, so constant
  # offsets fold into loads and stores. Rust's wasm32 layout puts the 1 MiB stack
  # first, growing down to 0, and the data above it: the low 1 KiB is the stack's far
  # end, reached only by a run 1 MiB deep, which would overflow the stack anyway.
  mkdir -p "$target_dir/wasm-names"
  node_modules/.bin/wasm-opt "$wasm" -o "$target_dir/wasm-names/hwscope_bg.wasm" "${docs_only[@]}" -Oz -Oz --converge --low-memory-unused -g "${wasm_features[@]}" \
    --strip-producers
  node_modules/.bin/wasm-opt "$target_dir/wasm-names/hwscope_bg.wasm" -o "$wasm" "${wasm_features[@]}" \
    --strip-debug --strip-producers --strip-target-features
  echo "build-wasm: hwscope_bg.wasm $before -> $(wc -c <"$wasm") bytes (the page), hwscope_docs_bg.wasm $(wc -c <"$docs") bytes (docs figures)"
else
  cp "$wasm" "$docs"
  node_modules/.bin/wasm-opt "$wasm" -o "$wasm.opt" "${docs_only[@]}" --remove-unused-module-elements "${wasm_features[@]}"
  mv "$wasm.opt" "$wasm"
fi

# Fail the build here, not in the browser, if the package does not instantiate.
node scripts/check-pkg.mjs "$out_dir"

# The page's FIRST core (feature `first`): the same engine, records and scenario reader
# without the words (narration, broker-log lines, what is pending) and without what only
# Settings, Share, interventions and Learn call (the settings in force, presets,
# validation, share links, apply). The page's first load downloads it; the full core
# above comes once the page is idle and takes over the same run (www/core/sim.js swap,
# docs/performance.md "Two cores"). Its own wasm-bindgen glue (hwscope_first.js), so
# that the two instances never share a module.
# Built with opt-level "z": the look-ahead takes about as long as at "s" (3%, CPU time of
# `node scripts/compare-cores.mjs`), 5.6 KB gzipped less (docs/performance.md). LLVM's
# inline threshold 35 (40 for the full core): 0.6 KB gzipped less, the look-ahead as
# fast (69.4 against 69.1 ms of CPU); 25 was 1.5 KB less but 8.5% slower.
first_opt_level="${WASM_FIRST_OPT_LEVEL:-z}"
first_inline="${WASM_FIRST_INLINE_THRESHOLD:-35}"
echo "build-wasm: cargo rustc --lib --features first (the first core, opt-level $first_opt_level, inline threshold $first_inline)"
CARGO_PROFILE_PAGE_OPT_LEVEL="$first_opt_level" cargo rustc --lib --crate-type cdylib --target wasm32-unknown-unknown --profile page --features first \
  -- -C llvm-args=-inline-threshold="$first_inline"
wasm-bindgen --target web --out-dir "$out_dir" --out-name hwscope_first "$wasm_in"
first="$out_dir/hwscope_first_bg.wasm"
if [[ $opt == 1 ]]; then
  node_modules/.bin/wasm-opt "$first" -o "$target_dir/wasm-names/hwscope_first_bg.wasm" -Oz -Oz --converge --low-memory-unused -g "${wasm_features[@]}" \
    --strip-producers
  node_modules/.bin/wasm-opt "$target_dir/wasm-names/hwscope_first_bg.wasm" -o "$first" "${wasm_features[@]}" \
    --strip-debug --strip-producers --strip-target-features
  echo "build-wasm: hwscope_first_bg.wasm $(wc -c <"$first") bytes (the page's first core)"
fi
node scripts/check-pkg.mjs "$out_dir" --first

# The documentation figures' first core (features `first` and `docs`): the first core with
# the block parser (parseDocBlock, and the built-ins' texts, the link reader and the
# scenario checks it needs). www/embed/live.js starts a page's figures on it (~144 KB
# gzipped against the docs core's ~205 KB) and swaps them to the docs core (narration
# included) once the first is live (docs/performance.md, issue 28's ninth pass).
echo "build-wasm: cargo rustc --lib --features first,docs (the docs figures' first core)"
CARGO_PROFILE_PAGE_OPT_LEVEL="$first_opt_level" cargo rustc --lib --crate-type cdylib --target wasm32-unknown-unknown --profile page --features first,docs \
  -- -C llvm-args=-inline-threshold="$first_inline"
wasm-bindgen --target web --out-dir "$out_dir" --out-name hwscope_docs_first "$wasm_in"
docs_first="$out_dir/hwscope_docs_first_bg.wasm"
if [[ $opt == 1 ]]; then
  node_modules/.bin/wasm-opt "$docs_first" -o "$docs_first.opt" -Oz -Oz --converge --low-memory-unused "${wasm_features[@]}" \
    --strip-debug --strip-producers --strip-target-features
  mv "$docs_first.opt" "$docs_first"
  echo "build-wasm: hwscope_docs_first_bg.wasm $(wc -c <"$docs_first") bytes (the docs figures' first core)"
fi
rm -f "$out_dir"/hwscope_docs_first.d.ts "$out_dir"/hwscope_docs_first_bg.wasm.d.ts
node scripts/check-pkg.mjs "$out_dir" --docs-first

# The explorer's package (feature `explore`): the page's Web Worker for Explore
# loads it on demand (www/explore/worker.js); the page itself never does.
explore_dir="www/pkg-explore"
# Built for speed (a search runs millions of steps): the release profile at opt-level 2,
# as before the page's core moved to its own profile.
echo "build-wasm: cargo build --lib --features explore --release (the explorer's worker package)"
CARGO_PROFILE_RELEASE_OPT_LEVEL=2 CARGO_PROFILE_RELEASE_STRIP=false cargo build --lib --target wasm32-unknown-unknown --release --features explore
rm -rf "$explore_dir"
wasm-bindgen --target web --out-dir "$explore_dir" --out-name hwscope "$target_dir/wasm32-unknown-unknown/release/hwscope.wasm"
if [[ $opt == 1 ]]; then
  node_modules/.bin/wasm-opt "$explore_dir/hwscope_bg.wasm" -o "$explore_dir/hwscope_bg.wasm.opt" "${docs_only[@]}" -O2 "${wasm_features[@]}" \
    --strip-debug --strip-producers
  mv "$explore_dir/hwscope_bg.wasm.opt" "$explore_dir/hwscope_bg.wasm"
fi
node scripts/check-pkg.mjs "$explore_dir" --explorer
# The first stage, drawn before the wasm arrives: step 0 of every built-in (www/main.js).
node scripts/first-frame.mjs "$out_dir"

# For a document with an opaque origin (<iframe sandbox>) on a host without CORS headers:
# the page as one classic script with the core inside (www/boot.js loads it), and the
# pictures an embed shows under its message when it cannot start (issue 18).
node scripts/standalone.mjs "$out_dir"
node scripts/stills.mjs "$out_dir"
