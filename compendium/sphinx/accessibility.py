"""Accessibility fixes of the theme's HTML that no configuration option reaches.

- The left sidebar's expand/collapse toggles (pydata-sphinx-theme wraps each chapter's
  sub-pages in ``<details>`` whose ``<summary>`` holds only a chevron icon) get an accessible
  name, "Sections of <chapter title>" (axe-core rule ``summary-name``, serious). The theme
  builds that HTML in Python (``generate_toctree_html``), so the function the page templates
  call is wrapped here and its output completed.
- The References page's entries carry the deprecated ARIA role ``doc-biblioentry`` inside a
  ``role="list"`` (docutils' HTML writer), which leaves the list with no item (axe-core rule
  ``aria-required-children``, critical): they become ``role="listitem"``.
- Every image gets alternative text that says what it shows (myst-nb leaves ``alt`` unset, and
  the HTML writer then writes the image's path): a figure saved by ``compendium.plotting.save_figure``
  carries a short description, which becomes the ``alt`` of the notebook's output of it (read
  from the output's metadata, ``{"image/png": {"alt": ...}}``, matched to the image by the
  sha256 myst-nb names its file after) and of its copy on the Figures page (read from the
  PNG's ``Description`` text chunk). An image with neither gets its caption: a notebook's
  figure and the Figures page's copies (whose image and caption ``figures-list`` puts in a
  container of class ``captioned-image``). The caption is taken as the page shows it, with
  its references resolved (so that runs at ``doctree-resolved``).
- The tables pandas prints leave header cells empty (axe-core rule ``empty-table-header``,
  minor): the corner over an unnamed index gets a name a screen reader reads, "row label"
  (visually hidden), and the other empty header cells, which label nothing (fillers beside
  index names, an empty index value), become data cells.
- A folded code cell's toggle (tag ``hide-input``: myst-nb's ``<summary>`` labelled "Toggle hidden
  content" over the words "Show code cell source") is named by the words it shows (axe-core rule
  ``label-content-name-mismatch``, serious): the label is dropped.
- ``book/_static/accessibility.js`` (added to every page) fixes two buttons the theme only
  shows when JavaScript runs (axe-core rule ``label-content-name-mismatch``, serious): a search
  button that shows text is named by it, and one that shows only its icon (a phone's) keeps its
  label (rule ``button-name``, critical), at whatever width.

``tests/browser/test_rendered_book.py`` runs axe-core on every page, at 400 and 1400 px, and fails
on any serious or critical violation.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from pathlib import Path
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


_HIDDEN_CELL_SUMMARY = re.compile(r'(<details class="[^"]*\bhide\b[^"]*">\s*<summary) aria-label="Toggle hidden content"')


def name_hidden_cells_by_their_text(body: str) -> str:
    """A folded cell's toggle (myst-nb's ``<summary aria-label="Toggle hidden content">`` over "Show
    code cell source") is named by the words it shows, not by another label."""
    return _HIDDEN_CELL_SUMMARY.sub(r"\1", body)


def _fix_body(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if "body" in context:
        context["body"] = name_hidden_cells_by_their_text(
            name_table_headers(list_items_for_citations(context["body"])))


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


def output_descriptions(notebook: dict[str, Any]) -> dict[str, str]:
    """sha256 of each PNG output of ``notebook`` (JSON) that carries a description -> the description."""
    found: dict[str, str] = {}
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {}).get("image/png")
            alt = output.get("metadata", {}).get("image/png", {}).get("alt")
            if data and isinstance(alt, str) and alt.strip():
                raw = base64.b64decode("".join(data) if isinstance(data, list) else data)
                found[hashlib.sha256(raw).hexdigest()] = " ".join(alt.split())
    return found


def png_description(path: Path) -> str | None:
    """The ``Description`` text chunk of the PNG at ``path`` (None if it has none or is no PNG)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            text = getattr(image, "text", {}).get("Description")
    except (OSError, UnidentifiedImageError):
        return None
    return " ".join(text.split()) if isinstance(text, str) and text.strip() else None


def describe_images(app: Any, doctree: nodes.document) -> None:
    """Set each image's alternative text to the description its figure was saved with, if any.

    Runs as each page is read (``doctree-read``), on the page's own notebook, so the stored
    doctree carries it into every builder (the single page the PDF is printed from assembles
    the pages' doctrees and resolves them once, as one)."""
    source = Path(app.env.doc2path(app.env.docname))
    described: dict[str, str] = {}
    if source.suffix == ".ipynb" and source.is_file():
        described = output_descriptions(json.loads(source.read_text(encoding="utf-8")))
    for image in doctree.findall(nodes.image):
        uri = image.get("candidates", {}).get("*") or image.get("uri", "")
        path = Path(app.srcdir) / uri.lstrip("/")
        text = described.get(path.stem)
        if text is None and path.suffix.lower() == ".png" and path.is_file():
            text = png_description(path)
        if text and is_file_name(image.get("alt", "")):
            image["alt"] = text


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
    # the description a figure was saved with; its caption where it has none
    app.connect("doctree-read", describe_images)
    app.connect("doctree-resolved", describe_figures)
    app.add_js_file("accessibility.js", loading_method="defer")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
