"""mkdocs-hwscope: ```hwscope blocks in MkDocs (plain, Material) and Zensical as static
figures of Kafka's partition replication that turn into hwscope's live playground.

MkDocs: ``plugins: [hwscope]`` (plugin.py). Zensical, or any Python-Markdown site:
``markdown_extensions: [mkdocs_hwscope]`` (extension.py).
"""

__version__ = "0.0.0"


def makeExtension(**kwargs):  # noqa: N802 - Python-Markdown's name
    from .extension import HwscopeExtension

    return HwscopeExtension(**kwargs)
