"""Titles as a reader sees them: the page contents in words, the browser tab's title once.

- **"On this page" shows the headings as the page prints them.** Sphinx builds a page's contents
  from its headings as they were read, before references are resolved, so a heading that cites
  an equation, "Check 1: eq. {eq}`eq-nb-shapley` is the exact…", showed its raw label
  (``eq-nb-shapley``) there. Each entry of the contents whose heading holds a reference is
  replaced by the heading as resolved in the page ("Check 1: eq. (L10) is the exact…"), its
  links unwrapped (an entry of the contents is itself a link).
- **The tab's title once.** Sphinx titles a page "<page title> — <book title>", so the landing
  page, whose title is the book's, read "Shapley explanations of classifiers — an executable
  compendium — Shapley explanations of classifiers — an executable compendium". A page titled
  like the book gets no suffix, and the suffix of the others is the book's title up to its
  subtitle (the part after " — "): "Weight of evidence and Shapley values — Shapley
  explanations of classifiers". Sphinx's template computes that suffix itself, so the
  ``<title>`` of each rendered page is rewritten (the builder's template loader is wrapped).
"""

from __future__ import annotations

import html
import re
from typing import Any

from bs4 import BeautifulSoup
from docutils import nodes

_TAGS = re.compile(r"<[^>]+>")


def resolved_titles(builder: Any, doctree: nodes.document) -> dict[str, str]:
    """Section id -> HTML of its title as resolved, links unwrapped, for every section whose
    title holds a reference (the only ones whose contents entry differs from the page)."""
    titles: dict[str, str] = {}
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        if title is None or not section["ids"] or next(title.findall(nodes.reference), None) is None:
            continue
        paragraph = nodes.paragraph()
        paragraph.extend(child.deepcopy() for child in title.children)
        for reference in list(paragraph.findall(nodes.reference)):
            reference.replace_self(nodes.inline("", "", *reference.children))
        fragment = builder.render_partial(paragraph)["fragment"].strip()
        fragment = re.sub(r"^<p>|</p>$", "", fragment).strip()
        for ident in section["ids"]:
            titles[ident] = fragment
    return titles


def fix_contents(toc: str, titles: dict[str, str]) -> str:
    """The contents (HTML list of links ``#id``) with each entry whose id is in ``titles`` and
    which shows a cross-reference's raw target (``code.xref``) given that title instead."""
    if not titles or "xref" not in toc:
        return toc
    soup = BeautifulSoup(toc, "html.parser")
    changed = False
    for link in soup.find_all("a", href=True):
        ident = link["href"].lstrip("#")
        if link["href"].startswith("#") and ident in titles and link.find(class_="xref") is not None:
            link.clear()
            link.append(BeautifulSoup(titles[ident], "html.parser"))
            changed = True
    return str(soup) if changed else toc


_TITLE = re.compile(r"<title>(?P<text>.*?)</title>", re.S)


def tab_title(title: str, docstitle: str) -> str:
    """A page's tab title (plain text): its title, then " — " and the book's title without its
    subtitle; a page titled like the book (or untitled) gets the book's title alone."""
    plain = " ".join(html.unescape(_TAGS.sub("", title)).split())
    book = " ".join(html.unescape(_TAGS.sub("", docstitle)).split())
    if not plain or plain == book:
        return book
    if not book:
        return plain
    dash = " \u2014 "
    return plain + dash + book.split(dash)[0]


def retitle(page: str, title: str, docstitle: str) -> str:
    """``page`` (rendered HTML) with its ``<title>`` set to :func:`tab_title`."""
    return _TITLE.sub(lambda _: f"<title>{html.escape(tab_title(title, docstitle), quote=False)}</title>", page, count=1)


def _fix_page(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if doctree is not None and context.get("toc"):
        context["toc"] = fix_contents(context["toc"], resolved_titles(app.builder, doctree))


def _wrap_render(app: Any) -> None:
    templates = getattr(app.builder, "templates", None)
    if templates is None or getattr(templates, "_retitles", False):
        return
    original = templates.render

    def render(template: str, context: dict[str, Any]) -> str:
        page = original(template, context)
        if context.get("pagename") == "search" or "title" not in context:
            return page
        return retitle(page, str(context["title"]), str(context.get("docstitle") or ""))

    templates.render = render
    templates._retitles = True


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _fix_page)
    app.connect("builder-inited", _wrap_render)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
