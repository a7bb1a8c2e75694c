"""One count, one vocabulary, on every page (issue 37): the built book's counts of claims, outcomes and
errata are ``compendium.report``'s, never typed, and no two pages disagree.

Every such count a page prints is a ``{report-count}`` (``compendium/sphinx/glance.py``): a span of
class ``report-count`` whose other class names the count (``rc-<paper>--<column>``, or
``rc-<paper>--<column>--<claim>`` for one claim). These tests read the built HTML of the pages that print
counts — the landing page, the reproduction report, the chapters' landing pages, the errata page — and
fail on a count of claims, outcomes or errata outside such a span (typed, or glued from a notebook), and on
a span whose number is not ``compendium.report``'s (so two pages cannot disagree).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

import compendium.report as report

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
PAGES = ["book/intro", "book/reproduction-report", "book/errata", "book/01-naive-bayes", "book/02-shapley-compositions",
         "book/03-same-decision-probability", "book/04-typical-value-contributions",
         "book/05-coalitional-explanations"]

pytestmark = pytest.mark.skipif(
    not (HTML / "index.html").is_file(),
    reason="the book is not built (run the README's first command); CI always builds it first",
)

_SPAN = re.compile(r'<span class="report-count (rc-[^"]+)">(\d+)</span>')
#: A count of claims, outcomes or errata in words: a number and the word it counts, or a number and a verb
#: of outcome right after it ("5 hold"); "N of the paper's M statements" counts M.
COUNT_WORDS = re.compile(
    r"(?<![\w.,])(\d[\d,]*)\s+(?:(?:of\s+)?(?:the|its|their)\s+(?:paper['’]s\s+|draft['’]s\s+)?)?"
    r"(claims?|statements?|errata|erratum|explained\s+deviations?|demonstrated\s+causes?|"
    r"hold|holds|fail|fails|untested|could\s+not\s+be\s+tested)\b", re.IGNORECASE)


def _article(page: str) -> str:
    text = (HTML / f"{page}.html").read_text(encoding="utf-8")
    start = text.find('<article class="bd-article">')
    return text[start:text.find("</article>", start)] if start != -1 else text


def _visible(fragment: str) -> str:
    fragment = re.sub(r"<(script|style)\b.*?</\1>", " ", fragment, flags=re.S)
    # the end of a block (a paragraph, a list item, a cell) is no space between a number and a word
    fragment = re.sub(r"</(?:p|li|td|th|div|dt|dd|summary|h\d)>|<br\s*/?>", " ¶ ", fragment)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def expected() -> dict[str, int]:
    """Every count a span may name, from compendium.report: ``rc-<paper>--<column>`` and, per claim, its counts."""
    from compendium.sphinx.glance import CLAIM_COUNTS  # noqa: PLC0415
    from compendium.sphinx.pages import slug  # noqa: PLC0415

    counts = report.counts(root=ROOT)
    out = {f"rc-{slug(p)}--{slug(c)}": int(v) for p in counts.index for c, v in counts.loc[p].items()}
    table = report.claims(report.reproduction_report(root=ROOT))
    out.update({f"rc-{slug(p)}--{slug(c)}--{slug(n)}": int(r[c]) for p, n, r in
                zip(table["paper"], table["name"], table.to_dict("records")) for c in CLAIM_COUNTS})
    return out


_NAMING = re.compile(r"(?:tables?|figures?|figs?\.|eqs?\.|§|footnotes?|appendix|class|claim|row|rank)\s*$", re.I)


def typed_counts(text: str) -> list[str]:
    """The counts of claims, outcomes or errata in a text, but a number that names something (Table 1)."""
    return [m[0] for m in COUNT_WORDS.finditer(text) if not _NAMING.search(text[max(0, m.start() - 12):m.start()])]


@pytest.fixture(scope="module")
def counts_of_lib() -> dict[str, int]:
    return expected()


def test_the_counting_words_are_found() -> None:
    # the detector finds what it must (and leaves what it must)
    found = typed_counts(
        "Of the draft's 4 claims that can fail, 1 hold; 6 of the paper's 10 statements; 17 errata; "
        "3 could not be tested; 56 explained deviations from 2 demonstrated causes")
    assert found == ["4 claims", "1 hold", "10 statements", "17 errata", "3 could not be tested",
                     "56 explained deviations", "2 demonstrated causes"]
    assert not typed_counts("37 of 40 numbers agree, 2 of 3 rows hold, Table 1 holds, 3.5 claims, claim 3 holds")


@pytest.mark.parametrize("page", PAGES)
def test_every_count_on_the_page_is_lib_reports(page: str, counts_of_lib: dict[str, int]) -> None:
    article = _article(page)
    spans = _SPAN.findall(article)
    wrong = [f"{key}: the page says {value}, compendium.report {counts_of_lib.get(key)}" for key, value in spans
             if counts_of_lib.get(key) != int(value)]
    assert not wrong, wrong
    typed = typed_counts(_visible(_SPAN.sub(" ", article)))
    assert not typed, f"{page}: counts of claims, outcomes or errata not taken from compendium.report.counts: {typed}"


def test_the_pages_print_their_counts() -> None:
    # the landing page, the report, every chapter's box and the errata page print counts, all from compendium.report
    for page in PAGES:
        assert _SPAN.search(_article(page)), f"{page}: no count from compendium.report"
    errata = _visible(_article("book/errata"))
    total = report.counts(root=ROOT).loc["all papers", "errata"]
    assert f"Errata ( {total} )" in errata or f"Errata ({total})" in errata


def test_readme_quotes_the_counts_of_lib_report() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = report.counts_markdown(ROOT)
    assert table in text
    typed = typed_counts(text.replace(table, " "))
    assert not typed, f"README: counts of claims, outcomes or errata typed outside compendium.report's table: {typed}"
