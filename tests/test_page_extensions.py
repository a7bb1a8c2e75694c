"""The book's page extensions (``compendium/sphinx``), function by function, on small inputs made for each case.

- ``bibliography_style``: author–year labels as the citations read them, lettered years for one
  author group's papers of one year;
- ``page_titles``: the contents' entries in words, the tab's title once;
- ``figure_links``: every image linked to its figure's SVG (or to itself), lazy and sized;
- ``reading_aids``: verdict cells marked, and only those;
- ``light_pages``: the theme's unused scripts left out, the search page's kept;
- ``compendium.figures.heading_of``: a figure's heading, a prefix of its caption.

The built pages are checked by ``tests/test_built_book.py`` and, in a browser, by ``tests/browser``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pybtex.database import BibliographyData, Entry, Person

from compendium.sphinx import bibliography_style as bib  # noqa: E402
from compendium.sphinx import (
    figure_links,  # noqa: E402
    light_pages,  # noqa: E402
    page_titles,  # noqa: E402
    reading_aids,  # noqa: E402
)
from compendium.sphinx.figures import heading_of  # noqa: E402


def _entry(authors: list[str], year: str | None, title: str = "T") -> Entry:
    fields = {"title": title, **({"year": year} if year else {})}
    return Entry("article", fields=fields, persons={"author": [Person(a) for a in authors]} if authors else {})


@pytest.mark.parametrize(("authors", "year", "label"), [
    (["Shapley, Lloyd S."], "1953", "Shapley, 1953"),
    (["Shapley, Lloyd S.", "Shubik, Martin"], "1954", "Shapley and Shubik, 1954"),
    (["Lemaire, Vincent", "Cl{\\'e}rot, Fabrice", "Boull{\\'e}, Marc"], "2023", "Lemaire et al., 2023"),
    (["{\\v{S}}trumbelj, Erik", "Kononenko, Igor"], "2014", "Štrumbelj and Kononenko, 2014"),
    (["{Khiops}"], "2016", "Khiops, 2016"),
    (["Amoukou, Salim Ibrahim", "Brunel, Nicolas"], None, "Amoukou and Brunel, n.d."),
    ([], "2013", "T, 2013"),
])
def test_author_year_labels(authors: list[str], year: str | None, label: str) -> None:
    assert bib.author_year_label(_entry(authors, year)) == label


def test_one_author_groups_papers_of_one_year_get_letters_by_title() -> None:
    group = ["Ferrettini, Gabriel", "Aligon, Julien", "Soul{\\'e}-Dupuy, Chantal"]
    data = BibliographyData(entries={
        "improving": _entry(group, "2020", "Improving on coalitional prediction explanation"),
        "explaining": _entry(group, "2020", "Explaining single predictions: A faster method"),
        "other": _entry(group, "2021", "Another year"),
        "alone": _entry(["Shapley, Lloyd S."], "2020", "Same year, other authors"),
        "undated": _entry(group, None),
    })
    years = bib.distinct_years(data)
    assert years == {"explaining": "2020a", "improving": "2020b"}
    for key, year in years.items():
        data.entries[key].fields["year"] = year
    assert bib.distinct_years(data) == years  # applying it again changes nothing
    labels = list(bib.AuthorYearLabelStyle().format_labels(data.entries.values()))
    assert "Ferrettini et al., 2020a" in labels and "Ferrettini et al., 2020b" in labels
    assert len(set(labels)) == len(labels)


def test_a_label_that_still_repeats_is_an_error() -> None:
    twins = [_entry(["Shapley, Lloyd S."], "1953", "A"), _entry(["Shapley, Lloyd S."], "1953", "B")]
    with pytest.raises(ValueError, match="Shapley, 1953"):
        list(bib.AuthorYearLabelStyle().format_labels(twins))


def test_the_books_bibliography_labels_are_unique() -> None:
    from pybtex.database import parse_file

    data = parse_file(str(Path(__file__).resolve().parents[1] / "book" / "references.bib"), bib_format="bibtex")
    for key, year in bib.distinct_years(data).items():
        data.entries[key].fields["year"] = year
    labels = list(bib.AuthorYearLabelStyle().format_labels(data.entries.values()))
    assert len(labels) == len(set(labels)) == len(data.entries)


BOOK = "Shapley explanations of classifiers \u2014 an executable compendium"


@pytest.mark.parametrize(("title", "tab"), [
    (BOOK, BOOK),
    ("Weight of evidence &amp; <em>Shapley</em> values", "Weight of evidence & Shapley values \u2014 Shapley explanations of classifiers"),
    ("", BOOK),
])
def test_the_tab_title_says_the_book_once(title: str, tab: str) -> None:
    assert page_titles.tab_title(title, BOOK) == tab
    page = page_titles.retitle(f"<head><title>{title} &#8212; {BOOK}</title></head>", title, BOOK)
    assert page.count(BOOK.split(" \u2014 ")[0]) == 1


def test_contents_entries_show_the_resolved_heading() -> None:
    toc = ('<ul><li><a class="reference internal" href="#check-1">Check 1: eq. <code class="xref eq docutils literal">'
           '<span class="pre">eq-nb-shapley</span></code> is exact</a></li>'
           '<li><a class="reference internal" href="#plain">Plain heading</a></li></ul>')
    fixed = page_titles.fix_contents(toc, {"check-1": "Check 1: eq. <span>(L10)</span> is exact", "plain": "other"})
    assert "eq-nb-shapley" not in fixed and "(L10)" in fixed
    assert "Plain heading" in fixed  # an entry without a raw reference is left as it is
    assert page_titles.fix_contents(toc, {}) == toc


STEMS = {"found-waterfall"}
DESCRIBED = {"Waterfall chart of one row.": "found-waterfall"}


def _link(body: str, sizes: dict[str, tuple[int, int]] | None = None) -> str:
    return figure_links.link_figures(body, lambda name: f"../../book/figures/{name}.svg", sizes or {}, STEMS, DESCRIBED)


def test_a_figure_links_to_its_svg_by_name_or_description() -> None:
    by_name = _link('<img alt="x" src="../_images/found-waterfall.png" />')
    assert by_name.startswith('<a class="reference external figure-full" href="../../book/figures/found-waterfall.svg"')
    by_description = _link('<img alt="Waterfall chart of   one row." src="../../_images/4370ec.png" />',
                           {"../../_images/4370ec.png": (900, 600)})
    assert 'href="../../book/figures/found-waterfall.svg"' in by_description
    assert 'loading="lazy"' in by_description and 'width="900" height="600"' in by_description


def test_a_figure_is_shown_from_its_svg_at_the_pngs_size() -> None:
    """A figure's image is its SVG (as sharp as the text on a 2x screen), sized as the PNG was."""
    shown = _link('<img alt="Waterfall chart of one row." src="../../_images/4370ec.png" />',
                  {"../../_images/4370ec.png": (471, 300)})
    assert 'src="../../book/figures/found-waterfall.svg"' in shown and "4370ec.png" not in shown
    assert 'width="471" height="300"' in shown
    # the page the PDF is printed from keeps the PNG; an image that is no figure keeps its own
    pdf = figure_links.link_figures('<img alt="x" src="../_images/found-waterfall.png" />',
                                    lambda name: f"book/figures/{name}.svg", {}, STEMS, DESCRIBED, sharp=False)
    assert 'src="../_images/found-waterfall.png"' in pdf
    assert 'src="../_images/photo.png"' in _link('<img alt="a photo" src="../_images/photo.png" />')


def test_the_figures_page_shows_each_figure_from_its_raster() -> None:
    """On the Figures page (``shown_href``) a figure is shown from its WebP and still opens its SVG."""
    shown = figure_links.link_figures('<img alt="x" src="../_images/found-waterfall.png" />',
                                      lambda name: f"figures/{name}.svg", {}, STEMS, DESCRIBED,
                                      shown_href=lambda name: f"figures/{name}.webp")
    assert 'src="figures/found-waterfall.webp"' in shown and 'href="figures/found-waterfall.svg"' in shown


def test_a_figures_raster_keeps_its_size_and_sharpness_in_fewer_bytes() -> None:
    """The raster of a stored figure: its PNG's pixel size, at most 256 colours, each pixel within a
    few levels of the PNG's (a line or a letter stays where it was), the same bytes twice, lighter than
    the figure's SVG."""
    import io

    import numpy as np
    from PIL import Image

    png = Path(figure_links.__file__).resolve().parents[2] / "book" / "figures" / "found-waterfall.png"
    raster = figure_links.phone_raster(png)
    assert raster == figure_links.phone_raster(png)
    with Image.open(png) as original, Image.open(io.BytesIO(raster)) as shown:
        assert shown.format == "WEBP" and shown.size == original.size
        a = np.asarray(original.convert("RGB"), dtype=int)
        b = np.asarray(shown.convert("RGB"), dtype=int)
    assert len(np.unique(b.reshape(-1, 3), axis=0)) <= figure_links.RASTER_COLOURS
    gap = np.abs(a - b).max(axis=2)
    assert np.quantile(gap, 0.999) <= 24, np.quantile(gap, 0.999)
    assert len(raster) < png.with_suffix(".svg").stat().st_size / 2


def test_spans_that_draw_nothing_are_left_out() -> None:
    """A token whose one rule is the block's own colour, in the light and in the dark style, loses its
    span (names and punctuation in the theme's styles); a coloured token keeps it; the text is the same,
    and the breaks the punctuation's spans placed stay."""
    plain = reading_aids.plain_token_classes()
    assert {"n", "p"} <= plain and not {"o", "k", "mi", "s2", "c1"} & plain
    # a style that gives names no rule of their own (Pygments' default): names keep their spans
    assert "n" not in reading_aids.plain_token_classes(("default", "a11y-high-contrast-dark"))
    code = ('<div class="highlight"><pre><span class="n">df</span><span class="o">.</span>'
            '<span class="n">set_index</span><span class="p">(</span><span class="mi">1</span>'
            '<span class="p">)</span>\n</pre></div>')
    hung = reading_aids.hang_lines(code, plain)
    assert hung == ('<div class="highlight"><pre class="hanging"><span class="line">df<span class="o">.</span><wbr>'
                    'set_index(<wbr><span class="mi">1</span>)\n</span></pre></div>')
    assert re.sub(r"<[^>]+>", "", hung) == re.sub(r"<[^>]+>", "", code)


def test_an_image_without_svg_links_to_itself_and_a_linked_image_is_left_linked() -> None:
    plain = _link('<p><img alt="a photo" src="../_images/photo.png" /></p>')
    assert 'href="../_images/photo.png"' in plain
    linked = '<a href="https://mybinder.org"><img alt="Binder" src="badge.svg" /></a>'
    assert _link(linked).count("<a ") == 1 and 'loading="lazy"' in _link(linked)


def test_code_lines_know_their_indentation() -> None:
    code = ('<div class="highlight"><pre id="codecell0"><span></span><span class="k">for</span> i:\n'
            '    <span class="n">x</span> = 1\n\n</pre></div>')
    hung = reading_aids.hang_lines(code)
    assert '<pre class="hanging" id="codecell0">' in hung
    assert hung.count('<span class="line"') == 3 and 'style="--indent:4">    <span class="n">x' in hung
    assert hung.count("--indent") == 1   # an indentation of 0 is the stylesheet's default
    assert "</span><span class=\"line\"" in hung and "\n</span>" in hung   # newlines inside the spans
    assert re.sub(r"<[^>]+>", "", hung) == re.sub(r"<[^>]+>", "", code)   # the same text, newlines kept
    # a token over several lines (a string) is left as it is
    multi = '<div class="highlight"><pre><span class="s">"""a\nb"""</span>\n</pre></div>'
    assert reading_aids.hang_lines(multi) == multi


def test_code_breaks_between_tokens_never_inside_one() -> None:
    """A wrapped line may break after a dot, an opening bracket, a comma or an assignment (a ``<wbr>``),
    never inside a name or a number, nor after a minus that may be a sign; the text is the same."""
    code = ('<div class="highlight"><pre><span class="n">df</span><span class="o">.</span>'
            '<span class="n">set_index</span><span class="p">(</span><span class="n">tol</span>'
            '<span class="o">=</span><span class="mf">1e-12</span><span class="p">),</span> '
            '<span class="o">-</span><span class="mi">1</span><span class="p">)</span>\n</pre></div>')
    hung = reading_aids.hang_lines(code)
    assert re.sub(r"<(?!wbr)[^>]+>", "", hung) == "df.<wbr>set_index(<wbr>tol=<wbr>1e-12),<wbr> -1)\n"
    assert re.sub(r"<[^>]+>", "", hung) == re.sub(r"<[^>]+>", "", code)
    # a block left unhung (a string over several lines) breaks between tokens too
    multi = ('<div class="highlight"><pre><span class="n">f</span><span class="p">(</span>'
             '<span class="s">"""a\nb"""</span>\n</pre></div>')
    assert "(</span><wbr><span" in reading_aids.hang_lines(multi)
    # a number in scientific notation, a token or in a comment, stays whole; 1e3x is no number
    comment = '<div class="highlight"><pre><span class="c1"># error 1.1e-16 ≤ 1e-10, not 1e3x</span>\n</pre></div>'
    hung = reading_aids.hang_lines(comment)
    assert re.findall(r'<span class="nobr">([^<]*)</span>', hung) == ["1.1e-16", "1e-10"]
    # a long name may break between its words; a short one moves whole to the next line
    name = ('<div class="highlight"><pre><span class="n">typical_value_contributions</span>'
            '<span class="n">tv_real_data</span>\n</pre></div>')
    assert "typical_<wbr>value_<wbr>contributions</span><span class=\"n\">tv_real_data<" in reading_aids.hang_lines(name)
    assert re.sub(r"<[^>]+>", "", hung) == re.sub(r"<[^>]+>", "", comment)
    # an output's lines are plain text, with no token spans: a check's value and bound stay whole on
    # every line, the first (after the empty span Pygments opens with) as the ones after it
    output = ('<div class="highlight"><pre><span></span>first: max |error| \u2248\u00a06.7e-16\u00a0&lt;\u00a01e-10\u00a0\u2713\n'
              'second: max |error| \u2248\u00a02.2e-16\u00a0&lt;\u00a01e-12\u00a0\u2713\n</pre></div>')
    hung = reading_aids.hang_lines(output)
    assert re.findall(r'<span class="nobr">([^<]*)</span>', hung) == ["6.7e-16", "1e-10", "2.2e-16", "1e-12"]
    assert re.sub(r"<[^>]+>", "", hung) == re.sub(r"<[^>]+>", "", output)


def test_tex_in_a_table_is_typeset_and_other_text_is_not() -> None:
    table = ('<table border="1" class="dataframe"><tr><td>the angles are $\\approx 109.5^\\circ$.</td>'
             '<td>\\tilde{p}_3 compares class 0</td><td>costs $5 and 6 $</td></tr></table>')
    done = reading_aids.typeset_table_tex("<p>$x$ in prose</p>" + table)
    assert done.startswith("<p>$x$ in prose</p>")   # only tables are touched
    assert '<span class="math notranslate nohighlight">\\(\\approx 109.5^\\circ\\)</span>.' in done
    assert '<span class="math notranslate nohighlight">\\(\\tilde{p}_3\\)</span> compares' in done
    assert re.sub(r"<[^>]+>|\\\(|\\\)", "", done) == re.sub(r"<[^>]+>", "", "<p>$x$ in prose</p>" + table).replace(
        "$\\approx 109.5^\\circ$", "\\approx 109.5^\\circ")
    assert "costs $5 and 6 $" in done   # dollars that are no TeX
    subscript = reading_aids.typeset_table_tex(
        '<table class="dataframe"><tr><td>distribute the m_{\\max} drawn samples (\\tilde{p}_3).</td></tr></table>')
    assert ('the <span class="math notranslate nohighlight">\\(m_{\\max}\\)</span> drawn samples '
            '(<span class="math notranslate nohighlight">\\(\\tilde{p}_3\\)</span>).') in subscript
    # LaTeX's own inline delimiters, as a draft's sentence holds them (chapter 4's "\\(f\\)")
    parens = reading_aids.typeset_table_tex(
        '<table class="dataframe"><tr><td>the supplied classifier \\(f\\) is well-calibrated</td></tr></table>')
    assert 'classifier <span class="math notranslate nohighlight">\\(f\\)</span> is well' in parens


@pytest.mark.parametrize(("cell", "classes"), [
    ("<td>reproduced</td>", "verdict verdict-reproduced"),
    ("<td><p>not reproduced</p></td>", "verdict verdict-not-reproduced"),
    ('<td class="x">explained deviation</td>', "x verdict verdict-explained-deviation"),
    ("<td>derivation check</td>", "verdict verdict-derivation-check"),
])
def test_verdict_cells_are_marked(cell: str, classes: str) -> None:
    assert f'class="{classes}"' in reading_aids.mark_verdicts(cell)


@pytest.mark.parametrize("cell", ["<td>reproduced in part</td>", "<td>0.837</td>", "<th>reproduced</th>",
                                  "<td>the claim is reproduced</td>"])
def test_other_cells_are_not(cell: str) -> None:
    assert reading_aids.mark_verdicts(cell) == cell


PAGE = """<head>
    <script defer src="../_static/scripts/fontawesome.js?digest=55c2"></script>
    <script src="../_static/searchtools.js"></script>
    <script src="../_static/language_data.js"></script>
    <script src="../searchindex.js"></script>
    <script defer src="../_static/scripts/bootstrap.js?digest=55c2"></script>
</head>"""


def test_unused_theme_scripts_are_left_out() -> None:
    page = light_pages.strip_unused(PAGE, search_page=False)
    assert "fontawesome" not in page and "search" not in page and "language_data" not in page
    assert "bootstrap.js" in page
    search = light_pages.strip_unused(PAGE, search_page=True)
    assert "fontawesome" not in search and search.count("search") == 2 and "language_data" in search


@pytest.mark.parametrize(("caption", "heading"), [
    ("The paper's Figure 3 reproduced: TwoNorm, normalised global Shapley values", "The paper's Figure 3 reproduced"),
    ("Exact interventional Shapley values (eq. {eq}`eq-found-value-function`) of a classifier",
     "Exact interventional Shapley values"),
    ("Projections $\\langle\\phi, c\\rangle_a$ of the compositions; dashed: uniform", "Projections $\\langle\\phi, c\\rangle_a$ of the compositions"),
    ("The LUCAS network as built by `lib.bayesnet.lucas()`: {setup}`12` variables", "The LUCAS network as built by `lib.bayesnet.lucas()`"),
    ("A caption without a clause.", "A caption without a clause"),
])
def test_a_figures_heading_is_its_captions_first_clause(caption: str, heading: str) -> None:
    assert heading_of(caption) == heading
    assert caption.startswith(heading)


def test_a_folded_cells_toggle_is_named_by_its_words() -> None:
    from compendium.sphinx import accessibility

    body = ('<details class="admonition hide above-input">\n<summary aria-label="Toggle hidden content">\n'
            '<p class="collapsed admonition-title">Show code cell source</p>')
    fixed = accessibility.name_hidden_cells_by_their_text(body)
    assert 'aria-label' not in fixed and "<summary>\n<p" in fixed
    other = '<details class="sd-dropdown"><summary aria-label="Toggle hidden content">'
    assert accessibility.name_hidden_cells_by_their_text(other) == other     # not a folded cell
