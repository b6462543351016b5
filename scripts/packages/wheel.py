"""Writes the mkdocs-hwscope wheel (a zip with a .dist-info folder) without any build tool.

    python3 scripts/packages/wheel.py --version V --src packages/mkdocs-hwscope \
        --wasm target/wasm32-wasip1/release/hwscope.wasm --assets DIR --out dist-packages

Pure Python wheel (py3-none-any): the WASI core runs on every platform wasmtime has
wheels for. Timestamps are fixed, so the same inputs give the same bytes.
"""

import argparse
import base64
import hashlib
import os
import zipfile

p = argparse.ArgumentParser()
for a in ("--version", "--src", "--wasm", "--assets", "--out"):
    p.add_argument(a, required=True)
args = p.parse_args()

NAME, DIST = "mkdocs-hwscope", "mkdocs_hwscope"
V = args.version
STAMP = (2020, 1, 1, 0, 0, 0)
readme = open(os.path.join(args.src, "README.md"), encoding="utf-8").read()

files = []  # (path in the wheel, bytes)
pkg = os.path.join(args.src, DIST)
for n in sorted(os.listdir(pkg)):
    if n.endswith(".py"):
        data = open(os.path.join(pkg, n), "rb").read()
        if n == "__init__.py":
            data = data.replace(b'__version__ = "0.0.0"', f'__version__ = "{V}"'.encode())
        files.append((f"{DIST}/{n}", data))
files.append((f"{DIST}/hwscope.wasm", open(args.wasm, "rb").read()))
for root, dirs, names in os.walk(args.assets):
    dirs.sort()
    for n in sorted(names):
        full = os.path.join(root, n)
        rel = os.path.relpath(full, args.assets).replace(os.sep, "/")
        files.append((f"{DIST}/assets/{rel}", open(full, "rb").read()))

info = f"{DIST}-{V}.dist-info"
metadata = f"""Metadata-Version: 2.1
Name: {NAME}
Version: {V}
Summary: hwscope figures in MkDocs, Material for MkDocs and Zensical: Kafka partition replication, static at build time, live in the browser
License: Apache-2.0
Keywords: mkdocs,mkdocs-plugin,zensical,kafka,replication
Classifier: Framework :: MkDocs
Classifier: License :: OSI Approved :: Apache Software License
Classifier: Programming Language :: Python :: 3
Classifier: Topic :: Documentation
Requires-Python: >=3.9
Requires-Dist: wasmtime>=25
Requires-Dist: markdown>=3.3
Description-Content-Type: text/markdown

{readme}"""
files.append((f"{info}/METADATA", metadata.encode()))
files.append((f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: hwscope scripts/packages/wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
files.append((f"{info}/entry_points.txt", b"[mkdocs.plugins]\nhwscope = mkdocs_hwscope.plugin:HwscopePlugin\n"))


def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


record = "".join(f"{path},{digest(data)},{len(data)}\n" for path, data in files) + f"{info}/RECORD,,\n"
files.append((f"{info}/RECORD", record.encode()))

os.makedirs(args.out, exist_ok=True)
wheel = os.path.join(args.out, f"{DIST}-{V}-py3-none-any.whl")
with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for path, data in files:
        zi = zipfile.ZipInfo(path, STAMP)
        zi.external_attr = 0o644 << 16
        zi.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(zi, data, compresslevel=9)
print(wheel)
