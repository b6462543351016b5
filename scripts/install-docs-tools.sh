#!/usr/bin/env bash
# Install the documentation tools the docs-site tests build with, skipping what is present.
#
#   bash scripts/install-docs-tools.sh              # all of them
#   bash scripts/install-docs-tools.sh mdbook hugo  # only these (mdbook, mkdocs, hugo, docusaurus, vitepress, starlight, wheels)
#
#   mdbook      cargo install mdbook --locked, with only the "search" feature: `mdbook build` as
#               the tests run it, without `serve` and `watch` (their web server and file watcher
#               are a third of its crates); into .tools/cargo
#   mkdocs      MkDocs, pymdown-extensions and mkdocs-material in a venv at .tools/venv
#   hugo        Debian's hugo (apt-get)
#   docusaurus, vitepress, starlight   the fixture's node_modules, `npm ci` from its lockfile
#               (e2e/docsites/<tool>/package-lock.json) into .tools/sites/<tool>-<lockfile hash>/
#               (e2e/packages.mjs siteModules); each test hard-links it into a fresh site
#   wheels      a wheelhouse at .tools/wheels: what a fresh venv needs to install the
#               mkdocs-hwscope wheel with MkDocs, Material or Zensical (wasmtime, …) offline,
#               and twine (into .tools/venv) to check the wheel; the wasm32-wasip1 target
#
# Each tool is installed once per machine; a second run only checks. Runs at the same time
# (scripts/test.sh starts it in the background, .ci/run earlier still) take turns: the second waits
# for the first, then finds its tools present.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
mkdir -p .tools
exec 9>"$(realpath .tools)/.install-docs-tools.lock"
flock 9

say() { printf 'install-docs-tools: %s\n' "$*"; }
want=("$@")
# mkdocs (a venv with MkDocs itself) is no longer in the default list: the tests install the
# mkdocs-hwscope wheel with MkDocs, Material or Zensical into fresh venvs from the wheelhouse.
if ((${#want[@]} == 0)); then want=(mdbook hugo docusaurus vitepress starlight wheels); fi

MDBOOK_VERSION=0.5.4
# The packed-artifact tests (e2e/docsites.test.mjs) install mkdocs-hwscope into a fresh venv
# from this wheelhouse, with these versions.
WHEELS=("mkdocs==1.6.1" "pymdown-extensions==10.21.3" "mkdocs-material==9.7.7" "zensical==0.0.52" "wasmtime==51.0.0" "twine==7.0.0")
mkdir -p .tools

for tool in "${want[@]}"; do
  case "$tool" in
    mdbook)
      if [[ -x .tools/cargo/bin/mdbook ]] && .tools/cargo/bin/mdbook --version | grep -q "v$MDBOOK_VERSION"; then
        say "mdbook $MDBOOK_VERSION present"
      else
        say "cargo install mdbook $MDBOOK_VERSION (a few minutes cold)"
        cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features --features search --root .tools/cargo
      fi
      ;;
    mkdocs)
      if [[ -x .tools/venv/bin/mkdocs ]] && .tools/venv/bin/python -c 'import pymdownx, material' 2>/dev/null; then
        say "mkdocs present ($(.tools/venv/bin/mkdocs --version | cut -d' ' -f1-3))"
      else
        say "pip install mkdocs, pymdown-extensions, mkdocs-material into .tools/venv"
        # By its real path: .tools/ may be a link to a per-machine cache (.ci/run), shared by clones.
        python3 -m venv "$(realpath .tools)/venv"
        .tools/venv/bin/pip install --quiet --disable-pip-version-check \
          "mkdocs==1.6.1" "pymdown-extensions==10.21.3" "mkdocs-material==9.7.7"
      fi
      ;;
    hugo)
      if command -v hugo >/dev/null; then
        say "hugo present ($(hugo version | cut -d' ' -f1-2))"
      else
        sudo=""
        if [[ $(id -u) != 0 ]]; then sudo="sudo"; fi
        say "apt-get install hugo"
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends hugo ||
          { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update && $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends hugo; }
      fi
      ;;
    docusaurus | vitepress | starlight)
      say "$tool: node_modules in .tools/sites (npm ci the first time, a minute or two)"
      node --input-type=module -e "const m = await import('./e2e/packages.mjs'); console.log('install-docs-tools: $tool: ' + m.siteModules('$tool'));"
      ;;
    wheels)
      stamp=".tools/wheels/.want"
      if [[ -f $stamp ]] && [[ "$(cat "$stamp")" == "${WHEELS[*]}" ]] && [[ -x .tools/venv/bin/twine ]]; then
        say "wheelhouse present (.tools/wheels, $(find .tools/wheels -name '*.whl' | wc -l) wheels)"
      else
        say "pip download ${WHEELS[*]} into .tools/wheels; twine into .tools/venv"
        mkdir -p .tools/wheels
        python3 -m pip download --quiet --disable-pip-version-check -d .tools/wheels "${WHEELS[@]}"
        [[ -x .tools/venv/bin/python ]] || python3 -m venv "$(realpath .tools)/venv"
        .tools/venv/bin/pip install --quiet --disable-pip-version-check --no-index --find-links .tools/wheels "twine==7.0.0"
        printf '%s' "${WHEELS[*]}" > "$stamp"
      fi
      rustup target list --installed 2>/dev/null | grep -qx wasm32-wasip1 || { say "rustup target add wasm32-wasip1"; rustup target add wasm32-wasip1; }
      ;;
    *)
      echo "install-docs-tools: unknown tool: $tool (mdbook, mkdocs, hugo, docusaurus, vitepress, starlight, wheels)" >&2
      exit 2
      ;;
  esac
done
