#!/usr/bin/env bash
# Every test, in order, stopping at the first failure:
#   1. make sure chromium is installed, then start installing the docs tools in the background
#      (install-docs-tools.sh: mdBook, Hugo, the docs sites' node_modules, the wheelhouse; minutes
#      on a fresh machine, a few seconds of checks on a warm one), joined before the e2e tests,
#   2. build the wasm package (npm run build) and the packages (npm run packages),
#   3. cargo test (native, profile ci-test: optimized, with debug assertions and overflow checks),
#   4. node --test tests/js/  (wasm vs native traces, the JS API),
#   5. node --test e2e/       (the page in headless Chromium; e2e/docsites.test.mjs builds
#      documentation sites with mdBook, MkDocs, Zensical, Hugo and Docusaurus, from
#      install-docs-tools.sh, with the packages `npm run packages` wrote to dist-packages/),
#   6. the small oracle suite: the same scenarios on a real Kafka 4.x cluster on loopback and on the
#      simulator (scripts/oracle-suite.mjs --small; needs root, Java, Maven, nftables; Kafka's jars
#      are resolved into .tools/kafka/ the first time). HWSCOPE_SKIP_ORACLE=1 skips it, saying so.
# Each phase's time is printed when it ends, and all of them at the end (docs/performance.md, "CI time").
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

test_start=$(date +%s)
timings=()
current=""
phase_start=0
docs_pid=""
docs_log=""

finish_phase() {
  if [[ -n "$current" ]]; then
    local secs=$(($(date +%s) - phase_start))
    timings+=("$(printf '%6ds  %s' "$secs" "$current")")
    printf '== %s: %ds\n' "$current" "$secs"
  fi
  current=""
}
phase() {
  finish_phase
  current="$*"
  phase_start=$(date +%s)
  printf '\n== %s\n' "$current"
}
summary() {
  local rc=$?
  local failed="$current"
  # A failure before the join: stop the background install (its own process group) and show it.
  if [[ -n "$docs_pid" ]]; then
    kill -- "-$docs_pid" 2>/dev/null || true
    wait "$docs_pid" 2>/dev/null || true
    printf '\n== docs tools (background, stopped):\n'
    cat "$docs_log" 2>/dev/null || true
  fi
  [[ -n "$docs_log" ]] && rm -f "$docs_log"
  finish_phase
  printf '\n== test timings\n'
  printf '%s\n' "${timings[@]}"
  printf '%6ds  npm test total\n' "$(($(date +%s) - test_start))"
  if ((rc != 0)); then printf '== test FAILED in phase: %s (exit %d)\n' "${failed:-?}" "$rc"; fi
}
trap summary EXIT

phase "browser (install-tools --browser)"
# First: it may apt-get chromium, and the docs tools below may apt-get hugo at the same time.
bash scripts/install-tools.sh --browser
# npm run packages adds this target too; added here, before the background install's check of it.
rustup target list --installed | grep -qx wasm32-wasip1 || rustup target add wasm32-wasip1

phase "docs tools: started in the background (install-docs-tools.sh), joined before e2e"
docs_log=$(mktemp)
# setsid: its own process group (the pid is the group's), so a failure here stops its cargo, pip
# and npm as well. It ends its output with how long it took.
# shellcheck disable=SC2016
setsid -w bash -c 's=$(date +%s); rc=0; bash scripts/install-docs-tools.sh || rc=$?; echo "test: install-docs-tools.sh finished in $(($(date +%s) - s))s (exit $rc)"; exit $rc' >"$docs_log" 2>&1 &
docs_pid=$!

phase "build (npm run build)"
# The CLI that draws the stills (scripts/stills.mjs) in the profile cargo test uses below.
HWSCOPE_CLI_PROFILE=ci-test npm run --silent build

phase "packages (npm run packages: dist-packages/, from the wasm just built)"
# The crates are not verified here: e2e/docsites.test.mjs builds mdbook-hwscope from its .crate anyway.
HWSCOPE_PACKAGE_VERIFY=0 npm run --silent packages

phase "cargo test"
# Optimized, with the dev profile's debug assertions and overflow checks (Cargo.toml,
# profile ci-test): unoptimized, the tests that run the simulator for millions of steps
# (frozen traces, properties, the model checkers) took most of this phase.
cargo test --workspace --profile ci-test

shopt -s nullglob
js_tests=(tests/js/*.test.mjs tests/js/*.test.js)
e2e_tests=(e2e/*.test.mjs e2e/*.test.js)
shopt -u nullglob

phase "node --test tests/js/"
if ((${#js_tests[@]} == 0)); then echo "test: no test files in tests/js/" >&2; exit 1; fi
node --test "${js_tests[@]}"

phase "docs tools: join (the wait for the background install)"
# The docs-site tests skip a tool that is missing, so a failed install must stop the run here.
docs_rc=0
wait "$docs_pid" || docs_rc=$?
docs_pid=""
cat "$docs_log"
if ((docs_rc != 0)); then echo "test: install-docs-tools.sh failed (exit $docs_rc)" >&2; exit 1; fi

phase "node --test e2e/"
if ((${#e2e_tests[@]} == 0)); then echo "test: no test files in e2e/" >&2; exit 1; fi
node --test "${e2e_tests[@]}"

phase "oracle: small suite on a real Kafka cluster (scripts/oracle-suite.mjs --small)"
if [[ "${HWSCOPE_SKIP_ORACLE:-0}" == 1 ]]; then
  echo "test: HWSCOPE_SKIP_ORACLE=1: the oracle suite was NOT run"
else
  bash scripts/install-tools.sh --oracle
  HWSCOPE_ORACLE_PORT_BASE="${HWSCOPE_ORACLE_PORT_BASE:-19600}" node scripts/oracle-suite.mjs --small
fi

finish_phase
printf '\nall tests passed\n'
