"""Listings of ``lib`` read as the book reads: the roles of their docstrings rendered as text.

A page shows a function of ``lib`` with ``{literalinclude}`` (``:pyobject:``), docstring included.
Its docstring is written for Sphinx: ``Book: :ref:`eq-nb-shapley` (…)`` names the book's equation
by its label, ``:func:`shapley_values``` a function. In a listing those roles are plain text, so a
reader would meet the raw label. After the equations are numbered (``compendium.equations``), each
``:ref:`eq-…``` of a listing (or a label in code quotes, "book eq. ``eq-found-shapley``") becomes the equation's number as the page prints it, "Eq. (L10)", and
every other role (``:func:``, ``:class:``, ``:mod:``, ``:data:``, ``:meth:``, ``:attr:``) its target
in code quotes. Nothing else of the listing changes.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes

_EQ_ROLE = re.compile(r":(?:ref|eq|numref):`(?P<label>eq-[A-Za-z0-9_-]+)`")
_LITERAL_LABEL = re.compile(r"(?:(?:[Bb]ook|[Cc]hapter) )?(?:[Ee]q\. )?``(?P<label>eq-[a-z0-9]+(?:-[a-z0-9]+)*)``")
_PY_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|data|meth|attr|obj|exc):`~?(?P<target>[^`]+)`")


def equation_numbers(env: Any) -> dict[str, str]:
    """label -> the number the book prints for it ("L10", "1.4"), for every labelled display equation."""
    numbers: dict[str, str] = {}
    for per_doc in env.toc_fignumbers.values():
        for ident, number in per_doc.get("displaymath", {}).items():
            label = ident.removeprefix("equation-")
            numbers[label] = ".".join(str(part) for part in number)
    return numbers


def render_roles(text: str, numbers: dict[str, str]) -> str:
    """``text`` with its equation roles as "Eq. (N)" and its Python roles as ``target``."""

    def equation(match: re.Match[str]) -> str:
        number = numbers.get(match["label"])
        return f"Eq. ({number})" if number else match["label"]

    text = _LITERAL_LABEL.sub(equation, _EQ_ROLE.sub(equation, text))
    return _PY_ROLE.sub(lambda m: f"``{m['target']}``", text)


def render_listing_roles(app: Any, doctree: nodes.document, docname: str) -> None:
    """Rewrite the roles of every Python listing on the page (``doctree-resolved``)."""
    numbers = None
    for block in list(doctree.findall(nodes.literal_block)):
        text = block.astext()
        source = str(block.get("source", "")).replace("\\", "/")
        if ":`" not in text or "/lib/" not in source:      # a {literalinclude} of lib's source only
            continue
        if numbers is None:
            numbers = equation_numbers(app.env)
        new = render_roles(text, numbers)
        if new != text:
            block.rawsource = new           # else Sphinx takes it for a parsed literal and does not highlight it
            block.children = [nodes.Text(new)]
