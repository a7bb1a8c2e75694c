"""Accessibility fixes of the theme's HTML that no configuration option reaches.

- The left sidebar's expand/collapse toggles (pydata-sphinx-theme wraps each chapter's
  sub-pages in ``<details>`` whose ``<summary>`` holds only a chevron icon) get an accessible
  name, "Sections of <chapter title>" (axe-core rule ``summary-name``, serious). The theme
  builds that HTML in Python (``generate_toctree_html``), so the function the page templates
  call is wrapped here and its output completed.
- The References page's entries carry the deprecated ARIA role ``doc-biblioentry`` inside a
  ``role="list"`` (docutils' HTML writer), which leaves the list with no item (axe-core rule
  ``aria-required-children``, critical): they become ``role="listitem"``.
- Every image of a figure gets its caption as alternative text when it has none, or only a
  file name: a notebook's figure (myst-nb leaves ``alt`` unset, and the HTML writer then writes
  the image's path) and the Figures page's copies (whose image and caption ``figures-list``
  puts in a container of class ``captioned-image``). The text is the caption as the page shows
  it, with its references resolved (so it runs at ``doctree-resolved``).
- The tables pandas prints leave header cells empty (axe-core rule ``empty-table-header``,
  minor): the corner over an unnamed index gets a name a screen reader reads, "row label"
  (visually hidden), and the other empty header cells, which label nothing (fillers beside
  index names, an empty index value), become data cells.
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
from docutils import nodes
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


_DATAFRAME = re.compile(r'<table\b[^>]*\bclass="dataframe[^"]*"[^>]*>.*?</table>', re.S)


def _name_headers(table: str) -> str:
    soup = BeautifulSoup(table, "html.parser")
    thead = soup.find("thead")
    corner: set[int] = set()
    rows = thead.find_all("tr") if thead is not None else []
    if rows:
        for th in rows[-1].find_all("th"):
            if th.get_text(strip=True):
                break
            corner.add(id(th))
    for th in soup.find_all("th"):
        if th.get_text(strip=True):
            continue
        if id(th) in corner:
            label = soup.new_tag("span", attrs={"class": "visually-hidden"})
            label.string = "row label"
            th.append(label)
        else:
            th.name = "td"
    return str(soup)


def name_table_headers(body: str) -> str:
    """Leave no empty header cell in the tables pandas prints (class ``dataframe``)."""
    return _DATAFRAME.sub(lambda m: _name_headers(m.group(0)) if "<th></th>" in m.group(0) else m.group(0), body)


def _fix_body(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if "body" in context:
        context["body"] = name_table_headers(list_items_for_citations(context["body"]))


# An alternative text that is a file name or path, not a description: one token of path characters.
_FILE_NAME = re.compile(r"[\w.\\/:-]*")


def is_file_name(alt: str) -> bool:
    """Whether an image's alternative text is empty or only a file name, path or identifier."""
    return _FILE_NAME.fullmatch(alt.strip()) is not None


def _captioned(doctree: nodes.document) -> list[tuple[nodes.Element, nodes.Element]]:
    """(box, caption) pairs: each figure and its caption, and each container of class
    ``captioned-image`` (the Figures page, ``figures-list``) and its paragraph."""
    pairs: list[tuple[nodes.Element, nodes.Element]] = []
    for figure in doctree.findall(nodes.figure):
        pairs += [(figure, c) for c in figure.children if isinstance(c, nodes.caption)][:1]
    for box in doctree.findall(nodes.container):
        if "captioned-image" in box["classes"]:
            pairs += [(box, c) for c in box.children if isinstance(c, nodes.paragraph)][:1]
    return pairs


def describe_figures(app: Any, doctree: nodes.document, docname: str) -> None:
    """Set the alternative text of each captioned image to its caption, where it has none (or a file name)."""
    for box, caption in _captioned(doctree):
        text = " ".join(caption.astext().split())
        for image in box.findall(nodes.image):
            if text and is_file_name(image.get("alt", "")):
                image["alt"] = text


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
    app.connect("doctree-resolved", describe_figures)
    app.add_js_file("accessibility.js", loading_method="defer")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
