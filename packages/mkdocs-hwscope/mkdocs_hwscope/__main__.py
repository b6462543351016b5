"""``python -m mkdocs_hwscope install DOCS_DIR``: hwscope's browser assets into
``DOCS_DIR/hwscope/`` (for a Python-Markdown site that copies its docs folder and
runs no plugin); ``python -m mkdocs_hwscope --version``."""

import os
import sys

from . import __version__
from .core import copy_assets


def main(argv):
    if argv[:1] == ["--version"]:
        print(f"mkdocs-hwscope {__version__}")
        return 0
    if len(argv) in (1, 2) and argv[0] == "install":
        target = argv[1] if len(argv) == 2 else "docs"
        if not os.path.isdir(target):
            print(f"mkdocs-hwscope: {target}: no such folder (give the docs folder)", file=sys.stderr)
            return 2
        copy_assets(target)
        print(f"mkdocs-hwscope: wrote hwscope's assets {__version__} to {os.path.join(target, 'hwscope')}")
        return 0
    print("usage: python -m mkdocs_hwscope install [DOCS_DIR] | --version", file=sys.stderr)
    return 2


sys.exit(main(sys.argv[1:]))
