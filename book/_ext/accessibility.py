"""Accessibility fixes of the theme's HTML that no configuration option reaches.

- The left sidebar's expand/collapse toggles (pydata-sphinx-theme wraps each chapter's
  sub-pages in ``<details>`` whose ``<summary>`` holds only a chevron icon) get an accessible
  name, "Sections of <chapter title>" (axe-core rule ``summary-name``, serious). The theme
  builds that HTML in Python (``generate_toctree_html``), so the function the page templates
  call is wrapped here and its output completed.
- The References page's entries carry the deprecated ARIA role ``doc-biblioentry`` inside a
  ``role="list"`` (docutils' HTML writer), which leaves the list with no item (axe-core rule
  ``aria-required-children``, critical): they become ``role="listitem"``.
- ``book/_static/accessibility.js`` (added to every page) fixes two buttons the theme only
  shows when JavaScript runs (axe-core rule ``label-content-name-mismatch``, serious).

``tests/browser/test_rendered_book.py`` runs axe-core on every page and fails on any serious
or critical violation.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from bs4 import BeautifulSoup
from markupsafe import Markup


def name_toc_toggles(html: str) -> str:
    """Give every nameless ``<summary>`` of a table of contents the name of its section.

    A ``<summary>`` with text of its own (a caption) is left alone; one holding only the
    chevron is named after the link that precedes its ``<details>`` in the same ``<li>``.
    """
    soup = BeautifulSoup(html, "html.parser")
    for summary in soup.find_all("summary"):
        if summary.get_text(strip=True) or summary.get("aria-label"):
            continue
        details = summary.parent
        item = details.parent if details is not None else None
        link = item.find("a", recursive=False) if item is not None else None
        title = " ".join(link.get_text(" ", strip=True).split()) if link is not None else ""
        summary["aria-label"] = f"Sections of {title}" if title else "Sections"
    return str(soup)


_BIBLIOENTRY = re.compile(r'(<div class="citation"[^>]*?) role="doc-biblioentry"')


def list_items_for_citations(body: str) -> str:
    """Give the entries of a citation list the role its ``role="list"`` needs: ``listitem``."""
    return _BIBLIOENTRY.sub(r'\1 role="listitem"', body)


def _fix_body(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if "body" in context:
        context["body"] = list_items_for_citations(context["body"])


def _wrap_toctree(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    original = context.get("generate_toctree_html")
    if original is None or getattr(original, "_names_toggles", False):
        return

    @functools.wraps(original)
    def generate_toctree_html(*args: Any, **kwargs: Any) -> Markup:
        return Markup(name_toc_toggles(str(original(*args, **kwargs))))

    generate_toctree_html._names_toggles = True  # type: ignore[attr-defined]
    context["generate_toctree_html"] = generate_toctree_html


def setup(app: Any) -> dict[str, Any]:
    # after pydata-sphinx-theme puts generate_toctree_html in the context (default priority 500)
    app.connect("html-page-context", _wrap_toctree, priority=900)
    app.connect("html-page-context", _fix_body)
    app.add_js_file("accessibility.js", loading_method="defer")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
