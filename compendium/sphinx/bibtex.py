"""``{bibtex-entries} key ...`` (the BibTeX source of keys of ``book/references.bib``) and ``{book-bibtex}``
(a BibTeX entry for the book itself, from ``CITATION.cff``)."""

from __future__ import annotations

import re
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive

from compendium.sphinx.pages import root_of


def bib_entries(text: str) -> dict[str, str]:
    """Raw BibTeX entries by key (brace matching, so nested braces are kept)."""
    entries = {}
    for match in re.finditer(r"@\w+\s*\{\s*([^,\s]+)\s*,", text):
        depth, i = 0, text.index("{", match.start())
        for j in range(i, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                entries[match[1]] = text[match.start() : j + 1]
                break
    return entries


def _literal(text: str) -> nodes.literal_block:
    block = nodes.literal_block(text, text)
    block["language"] = "bibtex"
    return block


class BibtexEntries(Directive):
    """The BibTeX source of the keys given as arguments, from book/references.bib."""

    required_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        path = root_of(self) / "book" / "references.bib"
        self.state.document.settings.env.note_dependency(str(path))
        entries = bib_entries(path.read_text(encoding="utf-8"))
        keys = self.arguments[0].split()
        missing = [k for k in keys if k not in entries]
        if missing:
            raise self.error(f"bibtex-entries: no entry {missing} in book/references.bib")
        return [_literal("\n\n".join(entries[k] for k in keys))]


def book_bibtex(citation: dict[str, Any]) -> str:
    """A BibTeX @software entry for the book, from the fields of CITATION.cff."""
    # an entity's name is braced, so that BibTeX does not read "authors" as a family name
    authors = " and ".join(
        "{" + a["name"] + "}" if a.get("name") else f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", ")
        for a in citation["authors"]
    )
    year = str(citation.get("date-released", ""))[:4]
    fields = [
        ("author", authors),
        ("title", citation["title"]),
        ("year", year),
        ("version", str(citation.get("version", ""))),
        ("doi", str(citation.get("doi", "") or "")),  # the concept DOI, once Zenodo has minted it
        ("url", citation.get("repository-code", "")),
        ("note", "Executable research compendium (Jupyter Book)"),
    ]
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v)
    return f"@software{{shapley_compendium,\n{body}\n}}"


class BookBibtex(Directive):
    """BibTeX for the book, generated from CITATION.cff."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        path = root_of(self) / "CITATION.cff"
        self.state.document.settings.env.note_dependency(str(path))
        citation = yaml.safe_load(path.read_text(encoding="utf-8"))
        return [_literal(book_bibtex(citation))]
