"""The Python-Markdown extension: ``markdown_extensions: [mkdocs_hwscope]``, for Zensical
(which runs Python-Markdown extensions but not MkDocs plugins) and other Python-Markdown
sites. Each ```hwscope fence becomes a static figure before any other block is read; a
page with a figure gets the one script that makes it live.

Under Zensical it also learns the page (its path and URL) and the site's folders from
Zensical's rendering context, so errors name the Markdown file and line, the script
is addressed from the page, and the assets are copied to ``SITE/hwscope/`` on first use.
Options: ``on_error: fail|show`` (as the MkDocs plugin's).

Under MkDocs with ``plugins: [hwscope]`` the plugin has drawn the fences already and
this extension finds nothing to do.
"""

from __future__ import annotations

import os

from markdown import Extension
from markdown.preprocessors import Preprocessor

from .core import copy_assets, render_markdown, script_tag


class HwscopeError(Exception):
    """A block that cannot be drawn (on_error: fail): the message names the file and line."""


_copied: set[str] = set()


class HwscopePreprocessor(Preprocessor):
    def __init__(self, md, on_error: str):
        super().__init__(md)
        self.on_error = on_error

    def _context(self):
        ctx = self.md.preprocessors["rendering_context"] if "rendering_context" in self.md.preprocessors else None
        page = getattr(ctx, "page", None)
        config = getattr(ctx, "config", None) or {}
        return page, config

    def run(self, lines):
        text = "\n".join(lines)
        if "hwscope" not in text:
            return lines
        page, config = self._context()
        docs_dir = config.get("docs_dir") if hasattr(config, "get") else None
        path = getattr(page, "path", None)
        name, source = "(page)", None
        if path:
            full = os.path.join(docs_dir, path) if docs_dir else path
            name = os.path.relpath(full).replace(os.sep, "/") if os.path.isabs(full) else full
            try:
                with open(full, encoding="utf-8") as f:
                    source = f.read().replace("\r\n", "\n")
            except OSError:
                source = None
        out, errors, warnings = render_markdown(text, name, source)
        for w in warnings:
            print(f"hwscope: warning: {w}")
        if errors and self.on_error == "fail":
            raise HwscopeError("\n".join(f"hwscope: {e}" for e in errors))
        for e in errors:
            print(f"hwscope: {e}")
        if out == text:
            return lines
        # Each figure (one line of HTML) goes into the stash, so no later step touches it.
        result = []
        for line in out.split("\n"):
            s = line.lstrip()
            if s.startswith('<figure class="hwscope-figure"') or s.startswith('<div class="hwscope-error"'):
                result.append(line[: len(line) - len(s)] + self.md.htmlStash.store(s))
            else:
                result.append(line)
        url = getattr(page, "url", None)
        result += ["", self.md.htmlStash.store(script_tag(url or "")), ""]
        site_dir = config.get("site_dir") if hasattr(config, "get") else None
        if site_dir and site_dir not in _copied:
            copy_assets(site_dir)
            _copied.add(site_dir)
        return result


class HwscopeExtension(Extension):
    def __init__(self, **kwargs):
        self.config = {"on_error": ["fail", "fail (the build stops on a broken block) or show (the page shows the error)"]}
        super().__init__(**kwargs)

    def extendMarkdown(self, md):  # noqa: N802 - Python-Markdown's name
        on_error = self.getConfig("on_error")
        if on_error not in ("fail", "show"):
            raise ValueError(f'mkdocs_hwscope: on_error must be "fail" or "show", got {on_error!r}')
        # After whitespace is normalized (30), before raw HTML (20) and fenced code (25).
        md.preprocessors.register(HwscopePreprocessor(md, on_error), "hwscope", 28)
