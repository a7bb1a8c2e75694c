"""Every entry of ``book/references.bib`` has a year, or its note says plainly why it has none.

The convention: an entry without a ``year`` field carries a ``note`` that starts its explanation
with ``Undated:`` followed by the reason (what the source prints and what the book could not
establish), so that the reader of the References page sees the reason beside the entry.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pybtex.database import BibliographyData, Entry, parse_file

ROOT = Path(__file__).resolve().parent.parent
BIB = ROOT / "book" / "references.bib"
REASON = re.compile(r"\bUndated:\s*(?P<why>[^.;]+)")
YEAR = re.compile(r"(1[5-9]|20)\d\d")


def missing_years(data: BibliographyData) -> list[str]:
    """Keys of the entries with neither a plausible year nor an ``Undated:`` reason of a few words."""
    bad = []
    for key, entry in data.entries.items():
        year = entry.fields.get("year", "").strip()
        if year:
            if not YEAR.fullmatch(year):
                bad.append(f"{key} (year {year!r} is not a year)")
            continue
        reason = REASON.search(" ".join(entry.fields.get("note", "").split()))
        if reason is None or len(reason["why"].split()) < 4:
            bad.append(f"{key} (no year, and no 'Undated: <reason>' in its note)")
    return bad


def test_every_entry_has_a_year_or_says_why() -> None:
    data = parse_file(str(BIB), bib_format="bibtex")
    assert len(data.entries) > 10
    assert missing_years(data) == []


@pytest.mark.parametrize(
    ("fields", "flagged"),
    [
        ({"title": "T", "year": "2021"}, False),
        ({"title": "T", "note": "Undated: the text prints no year and no venue"}, False),
        ({"title": "T"}, True),
        ({"title": "T", "note": "Code: https://example.org"}, True),
        ({"title": "T", "note": "Undated."}, True),
        ({"title": "T", "year": "n.d."}, True),
    ],
)
def test_the_check_catches_an_entry_without_a_year(fields: dict[str, str], flagged: bool) -> None:
    data = BibliographyData(entries={"k": Entry("misc", fields=fields)})
    assert bool(missing_years(data)) is flagged
