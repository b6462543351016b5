"""The MkDocs plugin: ``plugins: [search, hwscope]`` is the whole setup (a plugins
list replaces MkDocs' default ``[search]``, so it names search too).

- Each ```hwscope fence of a page becomes a static figure while the site is built
  (the SVG of the step it shows, with that step's sentence as alt text), drawn by
  hwscope's own renderer inside this wheel (core.py). Works with any theme and
  without pymdownx: the fences are drawn before Markdown runs.
- A page with a figure gets one module script, ``hwscope/www/embed/auto.js``, which
  makes its figures live when the reader scrolls to them; other pages load nothing
  of hwscope. The assets are copied to ``SITE/hwscope/``.
- A block that cannot be drawn fails the build, naming the Markdown file and line;
  ``on_error: show`` puts the error in the page instead.
"""

from __future__ import annotations

import json
import logging
import os

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.utils import get_relative_url

from . import __version__
from .core import ASSETS, CoreMissing, assets_version, copy_assets, render_markdown

log = logging.getLogger("mkdocs.plugins.hwscope")

AUTO = "hwscope/www/embed/auto.js"


class HwscopeConfig(Config):
    on_error = c.Choice(("fail", "show"), default="fail")


class HwscopePlugin(BasePlugin[HwscopeConfig]):
    supports_multiple_instances = False

    def on_config(self, config):
        self.pages: set[str] = set()
        version = assets_version()
        if version is None:
            raise PluginError(f"hwscope: {ASSETS}/hwscope-assets.json is missing: the mkdocs-hwscope {__version__} install is broken (reinstall it)")
        if version != __version__:
            raise PluginError(f"hwscope: the assets inside mkdocs-hwscope {__version__} are version {version} (a broken install: reinstall it)")
        stale = os.path.join(config.docs_dir, "hwscope", "hwscope-assets.json")
        if os.path.isfile(stale):
            try:
                theirs = json.load(open(stale, encoding="utf-8")).get("version")
            except ValueError:
                theirs = "unknown"
            if theirs != __version__:
                log.warning(
                    "hwscope: %s holds hwscope's assets version %s; the plugin (%s) writes its own to the site, so remove that folder",
                    os.path.dirname(stale), theirs, __version__,
                )
        return config

    def on_page_markdown(self, markdown, page, config, files):
        if "hwscope" not in markdown:
            return markdown
        base = os.path.dirname(config.config_file_path or "") or os.getcwd()
        name = os.path.relpath(page.file.abs_src_path, base) if page.file.abs_src_path else page.file.src_uri
        name = name.replace(os.sep, "/")
        try:
            source = page.file.content_string.replace("\r\n", "\n")
        except (OSError, AttributeError, TypeError):
            source = None
        try:
            out, errors, warnings = render_markdown(markdown, name, source)
        except CoreMissing as e:
            raise PluginError(str(e)) from e
        for w in warnings:
            log.warning("hwscope: %s", w)
        if errors:
            if self.config.on_error == "fail":
                raise PluginError(
                    "\n".join(f"hwscope: {e}" for e in errors)
                    + "\nFix the block, or set `on_error: show` under the hwscope plugin to show the error in the page instead."
                )
            for e in errors:
                log.warning("hwscope: %s", e)
        if out != markdown:
            self.pages.add(page.file.src_uri)
        return out

    def on_page_content(self, html, page, config, files):
        if page.file.src_uri not in self.pages:
            return html
        # Inside the page's content: MkDocs Material's instant navigation runs the
        # scripts of the content it swaps in, so a figure page reached that way loads
        # it too; auto.js then notices figures of later pages by itself.
        src = get_relative_url(AUTO, page.url)
        return f'{html}\n<script type="module" src="{src}"></script>\n'

    def on_post_build(self, config):
        if not self.pages:
            return
        copy_assets(config.site_dir)
