#!/usr/bin/env bash
# Every test, in order, stopping at the first failure:
#   1. build the wasm package (npm run build) and make sure chromium is installed,
#   2. cargo test (native),
#   3. node --test tests/js/  (wasm vs native traces, the JS API),
#   4. node --test e2e/       (the page in headless Chromium; e2e/docsites.test.mjs builds
#      documentation sites with mdBook, MkDocs, Zensical, Hugo and Docusaurus, from
#      install-docs-tools.sh, with the packages `npm run packages` wrote to dist-packages/),
#   5. the small oracle suite: the same scenarios on a real Kafka 4.x cluster on loopback and on the
#      simulator (scripts/oracle-suite.mjs --small; needs root, Java, Maven, nftables; Kafka's jars
#      are resolved into .tools/kafka/ the first time). HWSCOPE_SKIP_ORACLE=1 skips it, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

phase() { printf '\n== %s\n' "$*"; }

phase "build (npm run build)"
npm run --silent build

phase "packages (npm run packages: dist-packages/, from the wasm just built)"
# The crates are not verified here: e2e/docsites.test.mjs builds mdbook-hwscope from its .crate anyway.
HWSCOPE_PACKAGE_VERIFY=0 npm run --silent packages

phase "browser (install-tools --browser)"
bash scripts/install-tools.sh --browser

phase "docs tools (install-docs-tools: mdBook, MkDocs, Hugo, Docusaurus)"
bash scripts/install-docs-tools.sh

phase "cargo test"
cargo test --workspace

shopt -s nullglob
js_tests=(tests/js/*.test.mjs tests/js/*.test.js)
e2e_tests=(e2e/*.test.mjs e2e/*.test.js)
shopt -u nullglob

phase "node --test tests/js/"
if ((${#js_tests[@]} == 0)); then echo "test: no test files in tests/js/" >&2; exit 1; fi
node --test "${js_tests[@]}"

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

printf '\nall tests passed\n'
