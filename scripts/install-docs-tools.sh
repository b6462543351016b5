#!/usr/bin/env bash
# Install the documentation tools the docs-site tests build with, skipping what is present.
#
#   bash scripts/install-docs-tools.sh              # all of them
#   bash scripts/install-docs-tools.sh mdbook hugo  # only these (mdbook, mkdocs, hugo, docusaurus)
#
#   mdbook      cargo install mdbook --locked (into .tools/cargo; ~3 min cold on 2 cores)
#   mkdocs      MkDocs, pymdown-extensions and mkdocs-material in a venv at .tools/venv
#   hugo        Debian's hugo (apt-get)
#   docusaurus  npm ci in e2e/docsites/docusaurus (Docusaurus, React)
#
# Each tool is installed once per machine; a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'install-docs-tools: %s\n' "$*"; }
want=("$@")
if ((${#want[@]} == 0)); then want=(mdbook mkdocs hugo docusaurus); fi

MDBOOK_VERSION=0.5.4
mkdir -p .tools

for tool in "${want[@]}"; do
  case "$tool" in
    mdbook)
      if [[ -x .tools/cargo/bin/mdbook ]] && .tools/cargo/bin/mdbook --version | grep -q "v$MDBOOK_VERSION"; then
        say "mdbook $MDBOOK_VERSION present"
      else
        say "cargo install mdbook $MDBOOK_VERSION (a few minutes cold)"
        cargo install mdbook --version "$MDBOOK_VERSION" --locked --root .tools/cargo
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
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends hugo ||
          { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends hugo; }
      fi
      ;;
    docusaurus)
      dir=e2e/docsites/docusaurus
      if [[ -f $dir/node_modules/@docusaurus/core/package.json ]]; then
        say "docusaurus present ($(node -p "require('./$dir/node_modules/@docusaurus/core/package.json').version"))"
      else
        say "npm ci in $dir (Docusaurus; a few minutes cold)"
        (cd "$dir" && if [[ -f package-lock.json ]]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi)
      fi
      ;;
    *)
      echo "install-docs-tools: unknown tool: $tool (mdbook, mkdocs, hugo, docusaurus)" >&2
      exit 2
      ;;
  esac
done
