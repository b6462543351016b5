#!/usr/bin/env bash
# Install the tools the build and the tests need, skipping whatever is present.
#
#   bash scripts/install-tools.sh            # wasm32 target, wasm-bindgen CLI, npm deps
#   bash scripts/install-tools.sh --browser  # ... and Debian's chromium + chromium-driver
#   bash scripts/install-tools.sh --oracle   # ... and what the Kafka oracle needs: Java 17 (JDK),
#                                            #     Maven, nftables (Kafka's jars come later, from
#                                            #     Maven Central, into .tools/kafka/)
#
# Idempotent: on a machine that has everything it only runs a few quick checks.
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

browser=0
oracle=0
for arg in "$@"; do
  case "$arg" in
    --browser) browser=1 ;;
    --oracle) oracle=1 ;;
    -h | --help)
      sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "install-tools: unknown argument: $arg" >&2
      exit 2
      ;;
  esac
done

say() { printf 'install-tools: %s\n' "$*"; }

# 1. The wasm32 target for rustc.
if rustup target list --installed | grep -qx 'wasm32-unknown-unknown'; then
  say "wasm32-unknown-unknown target present"
else
  say "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen CLI, at exactly the version of the wasm-bindgen crate in Cargo.lock
#    (the CLI refuses to process a module built with another crate version).
wasm_bindgen_version() {
  local v=""
  if [[ -f Cargo.lock ]]; then
    v=$(awk '
      /^\[\[package\]\]/ { name = ""; next }
      /^name = /         { name = $3; gsub(/"/, "", name); next }
      /^version = / && name == "wasm-bindgen" { v = $3; gsub(/"/, "", v); print v; exit }
    ' Cargo.lock)
  fi
  if [[ -z "$v" ]]; then
    # No lockfile yet (or no wasm-bindgen in it): fall back to the exact pin in Cargo.toml.
    v=$(sed -n 's/^[[:space:]]*wasm-bindgen[[:space:]]*=[[:space:]]*"=\([0-9][0-9.]*\)".*/\1/p' Cargo.toml | head -n1)
  fi
  printf '%s' "$v"
}

want=$(wasm_bindgen_version)
if [[ -z "$want" ]]; then
  echo "install-tools: cannot find the wasm-bindgen version in Cargo.lock or an exact '=x.y.z' pin in Cargo.toml" >&2
  exit 1
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [[ "$have" == "$want" ]]; then
  say "wasm-bindgen $have present"
else
  say "installing wasm-bindgen-cli $want (found: ${have:-none}); this takes a few minutes cold"
  # No --locked: the CLI's own lockfile names a crate version the registry does not serve.
  cargo install wasm-bindgen-cli --version "$want" --force
  have=$(wasm-bindgen --version | awk '{print $2}')
  if [[ "$have" != "$want" ]]; then
    echo "install-tools: installed wasm-bindgen-cli but 'wasm-bindgen --version' says $have (PATH: $(command -v wasm-bindgen))" >&2
    exit 1
  fi
fi

# 3. npm dev dependencies (binaryen's wasm-opt, playwright-core, esbuild, axe-core).
if [[ -x node_modules/.bin/wasm-opt && -f node_modules/playwright-core/package.json && -f node_modules/esbuild/package.json && -f node_modules/axe-core/axe.min.js ]]; then
  say "node_modules present"
elif [[ -f package-lock.json ]]; then
  say "npm ci"
  npm ci --no-audit --no-fund
else
  say "npm install"
  npm install --no-audit --no-fund
fi

# 4. Optionally, the browser for the end-to-end tests. Debian's packages only:
#    `npx playwright install` downloads browser builds, which this network refuses.
if [[ $browser == 1 ]]; then
  if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
    say "chromium present ($(/usr/bin/chromium --version 2>/dev/null || echo '?'))"
  else
    sudo=""
    if [[ $(id -u) != 0 ]]; then sudo="sudo"; fi
    say "installing chromium and chromium-driver with apt-get"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-driver fonts-liberation
  fi
fi

# 5. Optionally, the Kafka oracle's tools (oracle/, npm run oracle): a JDK to run the brokers
#    and compile the client harness, Maven to resolve Kafka's jars, nftables for network cuts.
if [[ $oracle == 1 ]]; then
  missing=()
  command -v javac >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
  command -v mvn >/dev/null 2>&1 || missing+=(maven)
  command -v nft >/dev/null 2>&1 || missing+=(nftables)
  command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
  if ((${#missing[@]} == 0)); then
    say "oracle tools present (javac, mvn, nft, setpriv)"
  else
    sudo=""
    if [[ $(id -u) != 0 ]]; then sudo="sudo"; fi
    say "installing ${missing[*]} with apt-get"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  fi
fi
