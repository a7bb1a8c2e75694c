"""The References page in the style of the book's citations: author–year labels, distinct years.

The book cites author–year (``bibtex_reference_style: author_year``): "[Lemaire et al., 2023]",
"Ferrettini et al. [2020]". Two things did not follow:

- The bibliography's labels were pybtex's ``alpha`` labels, "[LClerotBoulle23]". The formatting
  style ``compendium`` registered here (``bibtex_default_style`` in ``_config.yml``) is ``alpha``'s
  (same entries, same sorting by author, year and title) with the label of
  :func:`author_year_label`: the authors as the citations name them (one: "Shapley"; two:
  "Shapley and Shubik"; more: "Lemaire et al."; with no author, the editors, else the title)
  and the year, "Lemaire et al., 2023".
- Two papers of one author group in one year (Ferrettini et al.'s 2020 ADBIS and SOFSEM papers)
  were cited alike. :func:`distinct_years` gives each such group's years a letter, in the order of
  their titles, "2020a", "2020b" (as author–year styles do), and :func:`disambiguate` writes them
  into the bibliography the ``sphinxcontrib-bibtex`` domain parsed, once it is loaded
  (``builder-inited``): citations, labels and entries then all print the lettered year.
  ``book/references.bib`` itself is left as the papers print it.
"""

from __future__ import annotations

import re
import string
from collections import defaultdict
from typing import Any

from pybtex.database import BibliographyData, Entry
from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.alpha import Style as AlphaStyle
from pybtex.style.labels import BaseLabelStyle

_LETTER = re.compile(r"^(?P<year>\d{4})[a-z]$")


def _plain(latex: str) -> str:
    """LaTeX of a name or title as plain text ("Cl{\\'e}rot" -> "Clérot", "{Khiops}" -> "Khiops")."""
    return " ".join(Text.from_latex(latex).render_as("text").split())


def cited_names(entry: Entry) -> str:
    """The authors of ``entry`` as the book's author–year citations name them."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_plain(" ".join(p.prelast_names + p.last_names)) for p in persons]
    if not names:
        return _plain(entry.fields.get("title", "")) or "Anonymous"
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return f"{names[0]} et al."


def author_year_label(entry: Entry) -> str:
    """The bibliography label of ``entry``: "Lemaire et al., 2023" ("n.d." for no year)."""
    return f"{cited_names(entry)}, {entry.fields.get('year', '').strip() or 'n.d.'}"


class AuthorYearLabelStyle(BaseLabelStyle):
    """pybtex label style: :func:`author_year_label`, unique by construction of the years
    (:func:`distinct_years`); a label that still repeats is an error, not a silent duplicate."""

    def format_labels(self, sorted_entries: Any) -> Any:
        seen: dict[str, str] = {}
        for entry in sorted_entries:
            label = author_year_label(entry)
            if label in seen:
                raise ValueError(
                    f"references.bib: {entry.key} and {seen[label]} both cite as '{label}'; "
                    "give their author group's years letters (bibliography_style.distinct_years)"
                )
            seen[label] = entry.key
            yield label


class CompendiumStyle(AlphaStyle):
    """pybtex's ``alpha`` formatting style with author–year labels."""

    default_label_style = AuthorYearLabelStyle


def _bare_year(entry: Entry) -> str:
    year = entry.fields.get("year", "").strip()
    letter = _LETTER.match(year)
    return letter["year"] if letter else year


def distinct_years(bibdata: BibliographyData) -> dict[str, str]:
    """key -> year with a letter, for every entry that shares its cited names and year with
    another: "2020a", "2020b", ... in the order of their titles (then keys). Entries without a
    year are left alone; a year that already carries a letter is read without it, so applying
    the result twice changes nothing."""
    groups: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for entry in bibdata.entries.values():
        year = _bare_year(entry)
        if year:
            groups[(cited_names(entry), year)].append(entry)
    lettered: dict[str, str] = {}
    for (_, year), entries in groups.items():
        if len(entries) < 2:
            continue
        if len(entries) > len(string.ascii_lowercase):
            raise ValueError(f"more than {len(string.ascii_lowercase)} entries cite as the same author and year {year}")
        ordered = sorted(entries, key=lambda e: (_plain(e.fields.get("title", "")).lower(), e.key))
        for letter, entry in zip(string.ascii_lowercase, ordered):
            lettered[entry.key] = f"{year}{letter}"
    return lettered


def disambiguate(app: Any) -> None:
    """Write :func:`distinct_years` into the bibliography ``sphinxcontrib-bibtex`` parsed."""
    domain = app.env.get_domain("cite")
    bibdata = domain.bibdata.data
    for key, year in distinct_years(bibdata).items():
        bibdata.entries[key].fields["year"] = year


def setup(app: Any) -> dict[str, Any]:
    register_plugin("pybtex.style.formatting", "compendium", CompendiumStyle, force=True)
    # after sphinxcontrib-bibtex has parsed the .bib files (its handler runs at the default priority)
    app.connect("builder-inited", disambiguate, priority=800)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
