"""hwscope's figure renderer, run from the wheel: the hwscope command line built for
WASI (``hwscope.wasm``, wasm32-wasip1), run by the ``wasmtime`` package. No Rust or
Node is needed: the same Rust code that draws figures for mdBook and ``hwscope
render-docs`` draws them here, byte for byte.

The module is compiled once per Python process (and the compiled form is kept in
the user's cache folder, so later builds skip the compile); each call is a fresh
instance with its own stdin, stdout and stderr.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
WASM = HERE / "hwscope.wasm"
ASSETS = HERE / "assets"


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


class CoreMissing(RuntimeError):
    pass


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mkdocs-hwscope"


class Core:
    """The WASI module, compiled once; ``run(args, stdin)`` runs the command line."""

    def __init__(self) -> None:
        try:
            import wasmtime
        except ImportError as e:  # pragma: no cover - a broken install
            raise CoreMissing(f"mkdocs-hwscope needs the wasmtime package: {e}") from e
        if not WASM.is_file():
            raise CoreMissing(f"mkdocs-hwscope: {WASM} is missing (a broken install: reinstall mkdocs-hwscope)")
        self._w = wasmtime
        self.engine = wasmtime.Engine()
        data = WASM.read_bytes()
        key = hashlib.sha256(data + getattr(wasmtime, "__version__", "?").encode()).hexdigest()[:24]
        cached = _cache_dir() / f"hwscope-{key}.cwasm"
        self.module = None
        if cached.is_file():
            try:
                self.module = wasmtime.Module.deserialize_file(self.engine, str(cached))
            except Exception:
                self.module = None
        if self.module is None:
            self.module = wasmtime.Module(self.engine, data)
            try:
                cached.parent.mkdir(parents=True, exist_ok=True)
                tmp = cached.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_bytes(self.module.serialize())
                os.replace(tmp, cached)
            except OSError:
                pass
        self.linker = wasmtime.Linker(self.engine)
        self.linker.define_wasi()

    def run(self, args: list[str], stdin: str = "") -> Result:
        w = self._w
        with tempfile.TemporaryDirectory(prefix="mkdocs-hwscope-") as tmp:
            paths = [os.path.join(tmp, n) for n in ("in", "out", "err")]
            Path(paths[0]).write_text(stdin, encoding="utf-8")
            wasi = w.WasiConfig()
            wasi.argv = ["hwscope", *args]
            wasi.stdin_file = paths[0]
            wasi.stdout_file = paths[1]
            wasi.stderr_file = paths[2]
            store = w.Store(self.engine)
            store.set_wasi(wasi)
            instance = self.linker.instantiate(store, self.module)
            start = instance.exports(store)["_start"]
            code = 0
            try:
                start(store)
            except w.ExitTrap as e:
                code = e.code
            out = Path(paths[1]).read_text(encoding="utf-8")
            err = Path(paths[2]).read_text(encoding="utf-8")
        return Result(code, out, err)


_core: Core | None = None


def core() -> Core:
    global _core
    if _core is None:
        _core = Core()
    return _core


def render_markdown(markdown: str, name: str, source: str | None = None) -> tuple[str, list[str], list[str]]:
    """The page's ```hwscope fences drawn as static figures; (markdown, errors, warnings),
    each message ``NAME:line: hwscope block: …``. ``source``, the file's whole text, gives
    the lines the tool cut before handing the page over (front matter), so lines are the file's."""
    skip = 0
    if source is not None and source.endswith(markdown) and len(source) > len(markdown):
        skip = source[: len(source) - len(markdown)].count("\n")
    r = core().run(["render-markdown", "--file", name, "--allow-errors"], "\n" * skip + markdown)
    errors, warnings = [], []
    for line in r.stderr.splitlines():
        if line.startswith("hwscope: warning: "):
            warnings.append(line[len("hwscope: warning: "):])
        elif line.startswith("hwscope: "):
            errors.append(line[len("hwscope: "):])
        elif line.strip():
            errors.append(line)
    if r.code != 0 and not errors:
        errors.append(f"{name}: hwscope's renderer stopped (exit {r.code})")
    return r.stdout[skip:], errors, warnings


def script_tag(page_url: str) -> str:
    """The one script a page with a figure loads, relative to the page's URL (``a/b/``, ``/a/b/`` or ``a/b.html``)."""
    depth = page_url.lstrip("/").count("/")
    return f'<script type="module" src="{"../" * depth}hwscope/www/embed/auto.js"></script>'


def copy_assets(site_dir: str) -> None:
    """The browser assets to ``SITE/hwscope/``."""
    import shutil

    shutil.copytree(ASSETS, os.path.join(site_dir, "hwscope"), dirs_exist_ok=True)


def assets_version() -> str | None:
    """The version stamped in the wheel's assets (hwscope-assets.json)."""
    import json

    try:
        return json.loads((ASSETS / "hwscope-assets.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
