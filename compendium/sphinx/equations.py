"""Equation numbers (``CONTRIBUTING.md`` §3): a labelled display equation whose LaTeX carries ``\\tag{L10}``
is a paper's equation and is numbered ``(L10)``; every other labelled display equation is the book's own
and is numbered per chapter, ``(1.4)``, chapters counted from 0 (the foundations) in the order of
``_toc.yml``'s parts. ``{eq}`` references print the same numbers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes

from compendium.sphinx.pages import chapters, toc_pos


_TAG = re.compile(r"\\tag\*?\{([^{}]+)\}")


def number_equations(app: Any, env: Any) -> list[str]:
    """Give every labelled display equation its number (see the module docstring)."""
    if not (env.config.numfig and env.config.math_numfig):
        return []
    root = Path(app.confdir)
    chapter_of = chapters(root)
    counters: dict[int, int] = {}
    for docname, _ in sorted(env.toc_fignumbers.items(), key=lambda kv: (chapter_of.get(kv[0], 99), toc_pos(root, kv[0]))):
        numbers = env.toc_fignumbers[docname].get("displaymath")
        if not numbers:
            continue
        doctree = env.get_doctree(docname)
        tags, order = {}, []
        for node in doctree.findall(nodes.math_block):
            if node["ids"] and node["ids"][0] in numbers:
                order.append(node["ids"][0])
                match = _TAG.search(node.astext())
                if match:
                    tags[node["ids"][0]] = match[1].strip()
        chapter = chapter_of.get(docname)
        for ident in order:
            if ident in tags:
                numbers[ident] = (tags[ident],)
            elif chapter is not None:
                counters[chapter] = counters.get(chapter, 0) + 1
                numbers[ident] = (chapter, counters[chapter])
    return []


def strip_tags(app: Any, doctree: Any, docname: str) -> None:
    """Drop ``\\tag{..}`` from labelled equations: Sphinx prints their number (the tag) itself."""
    for node in doctree.findall(nodes.math_block):
        if node["ids"] and _TAG.search(node.astext()):
            text = _TAG.sub("", node.astext())
            node.children = [nodes.Text(text)]
