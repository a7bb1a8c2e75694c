"""The book's Sphinx extension: the pages it builds from the repository, one directive per module.

``{errata-list}`` (:mod:`compendium.errata`)
    Every erratum and explained deviation the notebooks state, in reading order.
``{reproduction-report}`` (:mod:`compendium.report`)
    The reproduction report computed by :mod:`compendium.report`.
``{chapter-results} <paper key>`` (:mod:`compendium.chapter_results`)
    A chapter's results box: the outcomes of :mod:`compendium.report` for one paper.
``{verdict-glance}`` (:mod:`compendium.glance`)
    What the book found, paper by paper, in sentences, then the claims counted by outcome (the landing page).
``{report-count}`paper:column``` (:mod:`compendium.glance`)
    One count of ``compendium.report.counts``: every count of claims, outcomes and errata on a page is one.
``{figures-list}`` (:mod:`compendium.figures`)
    Every figure of the book with its caption, source cell, sha256 and citation.
``{bibtex-entries}``, ``{book-bibtex}`` (:mod:`compendium.bibtex`)
    BibTeX of the papers (``book/references.bib``) and of the book (``CITATION.cff``).
``{paper}`0.837```, ``{setup}`14``` (:mod:`compendium.roles`)
    A number the paper publishes; a number that defines the set-up.
Equation numbers (:mod:`compendium.equations`)
    ``(L10)`` for a paper's equation, ``(1.4)`` for the book's own.
Listings of ``lib`` (:mod:`compendium.listings`)
    their docstrings' roles rendered as text ("Eq. (L10)", not ``:ref:`eq-nb-shapley```).
Equations' code (:mod:`compendium.equation_links`)
    Under every labelled equation ``lib`` computes, the function that does, linked to its source.

What they share (the pages of ``_toc.yml``, their text, table helpers) is :mod:`compendium.pages`.
Registered as a local extension in ``_config.yml`` (``sphinx: local_extensions``), which puts
``book/_ext`` on ``sys.path``.
"""

from __future__ import annotations

from typing import Any

from compendium.sphinx.bibtex import BibtexEntries, BookBibtex
from compendium.sphinx.chapter_results import ChapterResults
from compendium.sphinx.equation_links import show_code
from compendium.sphinx.equations import number_equations, strip_tags
from compendium.sphinx.errata import ErrataList
from compendium.sphinx.figures import FiguresList
from compendium.sphinx.listings import render_listing_roles
from compendium.sphinx.glance import VerdictGlance, report_count_role
from compendium.sphinx.report import ReproductionReport
from compendium.sphinx.roles import paper_role, setup_role
from compendium.sphinx.scripts import unique_scripts


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", unique_scripts, priority=900)
    app.add_directive("errata-list", ErrataList)
    app.add_directive("reproduction-report", ReproductionReport)
    app.add_directive("bibtex-entries", BibtexEntries)
    app.add_directive("book-bibtex", BookBibtex)
    app.add_directive("chapter-results", ChapterResults)
    app.add_directive("figures-list", FiguresList)
    app.add_directive("verdict-glance", VerdictGlance)
    app.add_role("paper", paper_role)
    app.add_role("setup", setup_role)
    app.add_role("report-count", report_count_role)
    app.connect("env-get-updated", number_equations, priority=900)
    app.connect("doctree-resolved", strip_tags)
    app.connect("doctree-resolved", render_listing_roles)
    app.connect("doctree-resolved", show_code)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
