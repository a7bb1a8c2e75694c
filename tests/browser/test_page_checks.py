"""Every detector of ``page_checks.py`` catches a planted counter-example and passes its repaired twin.

``test_rendered_book.py`` runs these detectors on the built book; a detector that found nothing on
every page could be one that looks at nothing. Here each one is run on a small page made to show
the fault (a 41-line code cell, a cell cut with "...", a table in a box that clips it, a figure
with 5 px text…) and on the same page without it, in the same headless Chromium.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import page_checks as checks

PHONE = {"width": 400, "height": 860}


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    checks.need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=checks.CHROMIUM, args=checks.CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture()
def tab(chromium: Any) -> Iterator[Any]:
    page = chromium.new_page(viewport=PHONE)
    try:
        yield page
    finally:
        page.close()


def _page(tab: Any, body: str, css: str = "") -> Any:
    tab.set_content(f"<!doctype html><html><head><style>body{{margin:0}} {css}</style></head>"
                    f"<body><main><article>{body}</article></main></body></html>")
    return tab


def _cell(lines: int) -> str:
    code = "\n".join(f"x{i} = {i}" for i in range(lines))
    return f'<div class="cell"><div class="cell_input"><div class="highlight"><pre>{code}\n</pre></div></div></div>'


def test_long_code_is_caught(tab: Any) -> None:
    found = _page(tab, _cell(41)).evaluate(checks.LONG_CODE, checks.MAX_CODE_LINES)
    assert [c["lines"] for c in found] == [41]
    # a listing of lib outside any cell counts too
    listing = "<div class='highlight'><pre>" + "\n".join("pass" for _ in range(50)) + "</pre></div>"
    assert [c["lines"] for c in _page(tab, listing).evaluate(checks.LONG_CODE, 40)] == [50]


def test_short_folded_or_output_code_is_not(tab: Any) -> None:
    assert _page(tab, _cell(40)).evaluate(checks.LONG_CODE, checks.MAX_CODE_LINES) == []
    folded = f"<details class='hide above-input'><summary>Show code cell source</summary>{_cell(80)}</details>"
    assert _page(tab, folded).evaluate(checks.LONG_CODE, checks.MAX_CODE_LINES) == []
    output = "<div class='cell_output'><pre>" + "\n".join("row" for _ in range(90)) + "</pre></div>"
    assert _page(tab, output).evaluate(checks.LONG_CODE, checks.MAX_CODE_LINES) == []
    hidden = f"<div style='display:none'>{_cell(80)}</div>"
    assert _page(tab, hidden).evaluate(checks.LONG_CODE, checks.MAX_CODE_LINES) == []


TABLE = "<table><tr><th>claim</th><th>ours</th></tr><tr><td>{a}</td><td>{b}</td></tr></table>"


@pytest.mark.parametrize(("a", "b", "cut", "missing"), [
    ("(iii) Fatigue and Allergy above every non-blan...", "0.5", 1, 0),
    ("the complete influence is far more expensive t\u2026", "0.5", 1, 0),
    ("Tictactoe", "NaN", 0, 1),
    ("norm", "nan", 0, 1),
    ("RevVIF", "<NA>", 0, 1),
    ("(iii) Fatigue and Allergy above every non-blank variable.", "0.5", 0, 0),
    ("Tictactoe", "", 0, 0),
    ("Nancy", "not a number, as the paper prints it", 0, 0),
    ("check_finite_inputs", "arrays of finite numbers (no NaN or inf)", 0, 0),   # prose naming NaN
])
def test_cut_and_missing_cells(tab: Any, a: str, b: str, cut: int, missing: int) -> None:
    import html

    found = _page(tab, TABLE.format(a=html.escape(a), b=html.escape(b))).evaluate(checks.TABLE_FAULTS)
    assert (len(found["cut"]), len(found["missing"])) == (cut, missing), found


def test_a_nan_among_a_data_tables_numbers_is_caught(tab: Any) -> None:
    frame = "<table class='dataframe'><tr><th>x</th></tr><tr><td>0.5 (NaN)</td></tr></table>"
    assert len(_page(tab, frame).evaluate(checks.TABLE_FAULTS)["missing"]) == 1


def test_a_bare_boolean_in_a_table_is_caught_and_a_word_is_not(tab: Any) -> None:
    frame = "<table class='dataframe'><tr><th>claim</th><th>holds</th></tr><tr><td>efficiency</td><td>{}</td></tr></table>"
    assert _page(tab, frame.format("True")).evaluate(checks.TABLE_FAULTS)["booleans"] == ["efficiency: True"]
    assert _page(tab, frame.format("\u2713 yes")).evaluate(checks.TABLE_FAULTS)["booleans"] == []


def test_a_page_wider_than_the_screen_is_caught(tab: Any) -> None:
    found = _page(tab, "<p>text</p><code style='white-space:nowrap'>lib.permutation_sampling."
                       "antithetic_shapley_with_a_name_longer_than_the_screen_is_wide</code>").evaluate(checks.PAGE_OVERFLOW)
    assert found["width"] > found["screen"] == PHONE["width"]
    assert any("code" in c for c in found["culprits"]), found


def test_a_page_that_fits_or_scrolls_inside_a_box_is_not(tab: Any) -> None:
    fits = _page(tab, "<p>short text</p>").evaluate(checks.PAGE_OVERFLOW)
    assert fits["width"] <= fits["screen"]
    boxed = _page(tab, "<div style='overflow-x:auto'><div style='width:900px'>wide</div></div>").evaluate(checks.PAGE_OVERFLOW)
    assert boxed["width"] <= boxed["screen"], boxed


WIDE = "<table style='width:900px'><tr><td>a wide table</td></tr></table>"


def test_tables_not_seen_whole_are_caught(tab: Any) -> None:
    clipped = _page(tab, f"<div style='overflow:hidden'>{WIDE}</div>").evaluate(checks.TABLE_BOXES)
    assert len(clipped) == 1 and "cut by" in clipped[0]
    loose = _page(tab, WIDE).evaluate(checks.TABLE_BOXES)
    assert len(loose) == 1 and "runs past the column" in loose[0]
    shared = _page(tab, f"<div style='overflow-x:auto'><p>text beside it</p>{WIDE}</div>").evaluate(checks.TABLE_BOXES)
    assert len(shared) == 1 and "other content" in shared[0]
    silent = _page(tab, f"<div class='scroll-cue'><div style='overflow-x:auto'>{WIDE}</div></div>").evaluate(checks.TABLE_BOXES)
    assert len(silent) == 1 and "no sign of more" in silent[0]


def test_tables_seen_whole_are_not(tab: Any) -> None:
    narrow = "<table><tr><td>a narrow table</td></tr></table>"
    assert _page(tab, narrow).evaluate(checks.TABLE_BOXES) == []
    cued = f"<div class='scroll-cue more-right'><div style='overflow-x:auto'>{WIDE}</div></div>"
    assert _page(tab, cued).evaluate(checks.TABLE_BOXES) == []


def test_a_verdict_column_off_screen_is_caught(tab: Any) -> None:
    wide = ("<table><tr><th>item</th><th>a long column</th><th>another long column</th><th>status</th></tr>"
            "<tr><td>x</td><td>" + "y " * 60 + "</td><td>" + "z" * 90 + "</td><td class='verdict'>reproduced</td></tr></table>")
    page = _page(tab, f"<div style='overflow-x:auto'>{wide}</div>")
    assert page.evaluate(checks.VERDICTS_OFF_SCREEN, checks.VERDICT_HEADERS) == ["header status", "cell reproduced"]
    first = ("<table><tr><th>status</th><th>item</th><th>a long column</th></tr>"
             "<tr><td class='verdict'>reproduced</td><td>x</td><td>" + "z" * 90 + "</td></tr></table>")
    page = _page(tab, f"<div style='overflow-x:auto'>{first}</div>")
    assert page.evaluate(checks.VERDICTS_OFF_SCREEN, checks.VERDICT_HEADERS) == []


def test_a_check_mark_alone_on_a_line_is_caught(tab: Any) -> None:
    """In a box 29 characters wide, "max |error| = 6.7e-16 < 1e-10" fills the first line and the ✓ falls
    to the next, alone; joined by no-break spaces (compendium.page), the value, bound and mark move together."""
    box = "pre{width:29ch}"
    loose = _page(tab, WRAP + _output("max |error| = 6.7e-16 &lt; 1e-10 \u2713"), box).evaluate(checks.LONE_MARKS)
    assert len(loose) == 1 and loose[0].endswith("< 1e-10 / \u2713"), loose
    joined = "max |error| =\u00a06.7e-16\u00a0&lt;\u00a01e-10\u00a0\u2713"
    assert _page(tab, WRAP + _output(joined), box).evaluate(checks.LONE_MARKS) == []


def test_a_wide_one_row_table_is_caught_and_a_narrow_or_longer_one_is_not(tab: Any) -> None:
    head = "<thead><tr><th></th>" + "".join(f"<th>column {k}</th>" for k in range(12)) + "</tr></thead>"
    row = "<tr><th>row</th>" + "".join(f"<td>{k * 1000.5}</td>" for k in range(12)) + "</tr>"
    one = f"<div style='overflow-x:auto'><table>{head}<tbody>{row}</tbody></table></div>"
    assert len(_page(tab, one).evaluate(checks.ONE_ROW_TABLES)) == 1
    two = f"<div style='overflow-x:auto'><table>{head}<tbody>{row}{row}</tbody></table></div>"
    assert _page(tab, two).evaluate(checks.ONE_ROW_TABLES) == []
    narrow = "<table><thead><tr><th>a</th><th>b</th><th>c</th></tr></thead><tbody><tr><td>1</td><td>2</td><td>3</td></tr></tbody></table>"
    assert _page(tab, narrow).evaluate(checks.ONE_ROW_TABLES) == []


def test_raw_labels_in_visible_text_are_caught(tab: Any) -> None:
    body = ("<p>Check 1: eq. <code>eq-nb-shapley</code> is exact.</p>"
            "<p style='display:none'>eq-hidden-label</p><a href='#equation-eq-nb-shapley'>(L10)</a>")
    assert _page(tab, body).evaluate(checks.RAW_LABELS) == ["eq-nb-shapley"]
    assert _page(tab, "<p>Check 1: eq. <a href='#equation-eq-nb-shapley'>(L10)</a> is exact; "
                      "the freq-domain is fine.</p>").evaluate(checks.RAW_LABELS) == []


def _svg(group_scale: float, glyph_scale: float | None = None, width: float = 200.0) -> str:
    glyph = f' transform="translate(10 0) scale({glyph_scale})"' if glyph_scale else ""
    return (f'<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="{width}pt" height="100pt" '
            f'viewBox="0 0 {width} 100" xmlns="http://www.w3.org/2000/svg">\n'
            f' <g id="text_1">\n  <!-- x -->\n  <g transform="translate(5 50) scale({group_scale} -{group_scale})">\n'
            f'   <use xlink:href="#DejaVuSans-78"/>\n   <use xlink:href="#DejaVuSans-31"{glyph}/>\n  </g>\n </g>\n</svg>\n')


def test_svg_font_sizes() -> None:
    assert checks.svg_min_font(_svg(0.1)) == (10.0, 200.0)
    assert checks.svg_min_font(_svg(0.1, 0.7)) == pytest.approx((7.0, 200.0))  # a superscript
    text = '<svg viewBox="0 0 300 100"><text style="font: 6px sans-serif">a</text></svg>'
    assert checks.svg_min_font(text) == (6.0, 300.0)
    with pytest.raises(ValueError, match="viewBox"):
        checks.svg_min_font('<svg width="10"><text style="font-size:4px">a</text></svg>')
    with pytest.raises(ValueError, match="no text"):
        checks.svg_min_font('<svg viewBox="0 0 10 10"><path d="M0 0"/></svg>')


def test_small_figure_text_is_caught() -> None:
    # a 10 pt label in a 200-unit-wide figure is 7 px when the image is shown 140 px wide
    assert checks.shown_font_px(_svg(0.1), 140) == pytest.approx(7.0)
    assert checks.shown_font_px(_svg(0.1), 100) < checks.MIN_FIGURE_TEXT_PX
    # the superscript is what is too small
    assert checks.shown_font_px(_svg(0.1, 0.7), 180) < checks.MIN_FIGURE_TEXT_PX <= checks.shown_font_px(_svg(0.1), 180)


def test_figure_images_report_their_shown_width_and_link(tab: Any) -> None:
    body = ("<a href='/book/figures/x.svg'><img alt='a' src='data:image/png;base64,' style='display:block;width:300px;height:10px'></a>"
            "<img alt='b' src='data:image/png;base64,' style='display:block;width:120px;height:10px'>")
    found = _page(tab, body).evaluate(checks.FIGURE_IMAGES)
    assert [round(f["shown"]) for f in found] == [300, 120]
    assert found[0]["href"].endswith("/book/figures/x.svg") and found[1]["href"] == ""


def test_glance_table_position(tab: Any) -> None:
    assert _page(tab, "<p>no glance table</p>").evaluate(checks.GLANCE_TOP) is None
    late = _page(tab, "<div style='height:2000px'></div><div class='verdict-glance'><table><tr><td>a</td></tr></table></div>")
    found = late.evaluate(checks.GLANCE_TOP)
    assert found["top"] >= 2 * found["screen"]
    early = _page(tab, "<h1>Title</h1><table class='verdict-glance'><tr><td>a</td></tr></table>").evaluate(checks.GLANCE_TOP)
    assert early["top"] < early["screen"] and early["rows"] == 1


def test_a_page_longer_than_the_bound_of_phone_screens_is_caught(tab: Any) -> None:
    """A page of 80 sections of one screen each runs past MAX_PHONE_SCREENS at 400 x 860 px, and the
    detector names its tallest sections; the same page cut to 10 sections does not."""
    def sections(n: int, tall: int = 1) -> str:
        return "".join(f"<section><h2>module {i}</h2><div style='height:{860 * (tall if i == 3 else 1) - 40}px'></div>"
                       f"</section>" for i in range(n))

    found = _page(tab, sections(80)).evaluate(checks.PAGE_SCREENS)
    assert found["screen"] == PHONE["height"]
    assert checks.phone_screens(found) > checks.MAX_PHONE_SCREENS
    found = _page(tab, sections(10, tall=3)).evaluate(checks.PAGE_SCREENS)
    assert 10 < checks.phone_screens(found) < checks.MAX_PHONE_SCREENS
    tallest = found["sections"][0]
    assert tallest["heading"] == "module 3" and tallest["height"] > 2 * PHONE["height"], found["sections"]


def test_a_name_broken_inside_a_word_in_a_table_is_caught(tab: Any) -> None:
    """A long name in a table's narrow first column, free to break anywhere, breaks inside a word; the
    same name with a <wbr> after each dot and underscore, kept from breaking elsewhere, does not."""
    def table(name: str, wrap: str) -> str:
        return (f"<table style='width:360px'><tr><td style='width:20%'><code style='overflow-wrap:{wrap}'>{name}</code></td>"
                "<td>a summary long enough to take the rest of the row's width at once</td></tr></table>")

    found = _page(tab, table("lib.naive_bayes_compositions", "anywhere")).evaluate(checks.NAMES_BROKEN)
    assert found == ["lib.naive_bayes_compositions"]
    name = "lib.<wbr>naive_<wbr>bayes_<wbr>compositions"
    assert _page(tab, table(name, "normal")).evaluate(checks.NAMES_BROKEN) == []
    # a name in the prose, or in a later column, is not read
    assert _page(tab, "<p style='width:60px'><code style='overflow-wrap:anywhere'>lib.naive_bayes</code></p>").evaluate(
        checks.NAMES_BROKEN) == []


def test_own_bytes(tmp_path: Path) -> None:
    (tmp_path / "_images").mkdir()
    (tmp_path / "_images" / "a.png").write_bytes(b"x" * 700_000)
    (tmp_path / "_images" / "b.png").write_bytes(b"y" * 1000)
    page = tmp_path / "page.html"
    page.write_text('<img src="_images/a.png"><img src="_images/b.png"/><img src="_images/a.png">', encoding="utf-8")
    total, images = checks.own_bytes(page, tmp_path)
    assert images == {"_images/a.png": 700_000, "_images/b.png": 1000}  # each file once
    assert total == page.stat().st_size + 701_000
    page.write_text('<img src="_images/missing.png">', encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="missing.png"):
        checks.own_bytes(page, tmp_path)


def test_first_screen_counts_what_a_phone_fetches(chromium: Any, tmp_path: Path) -> None:
    """Images far below the first screen count only if they are not lazy."""
    (tmp_path / "big.png").write_bytes(base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
        + b"\0" * 400_000)
    spacer = "<div style='height:6000px'></div>"
    (tmp_path / "lazy.html").write_text(f"<p>top</p>{spacer}" + "<img src='big.png' loading='lazy' width=10 height=10>",
                                        encoding="utf-8")
    (tmp_path / "eager.html").write_text(f"<p>top</p>{spacer}" + "<img src='big.png' width=10 height=10>", encoding="utf-8")
    with checks.Served(tmp_path) as site:
        lazy = checks.first_screen(chromium, site + "lazy.html", site, tmp_path, settle_ms=300)
        eager = checks.first_screen(chromium, site + "eager.html", site, tmp_path, settle_ms=300)
    assert "big.png" not in lazy and sum(lazy.values()) < 1000
    assert eager["big.png"] == (tmp_path / "big.png").stat().st_size


# ---------------------------------------------------------------------------------------------
# A page reads as its idea (issue 38)

WRAP = "<style>pre{white-space:pre-wrap;overflow-wrap:anywhere;font:14px monospace;padding:0;margin:0}</style>"
LONG_LINE = "result = lib.compositions.shapley_compositions(model, X, background, output=0, budget=2048)"


def _input(code: str) -> str:
    return f'<div class="cell"><div class="cell_input"><div class="highlight"><pre>{code}</pre></div></div></div>'


def _output(text: str) -> str:
    return f'<div class="cell"><div class="cell_output"><div class="output"><pre>{text}</pre></div></div></div>'


def test_a_code_or_output_line_past_its_box_is_caught(tab: Any) -> None:
    panning = _page(tab, _input(LONG_LINE) + _output("max |error| " + "9" * 80),
                    "pre{white-space:pre;overflow-x:auto;font:14px monospace}").evaluate(checks.CODE_LINES, False)
    assert len(panning["pans"]) == 2 and panning["pans"][0].startswith("code") and panning["pans"][1].startswith("output")
    # wrapped, nothing pans; but on a desk a code line wider than its box (it wraps) is caught
    wrapped = _page(tab, WRAP + _input(LONG_LINE) + _output("max |error| " + "9" * 80)).evaluate(checks.CODE_LINES, True)
    assert wrapped["pans"] == [] and len(wrapped["wraps"]) == 1 and "shapley_compositions" in wrapped["wraps"][0]


def test_a_code_line_broken_inside_a_word_or_a_number_on_a_phone_is_caught(tab: Any) -> None:
    """In a 200 px box a line of tokens with no break between them breaks inside one (``shapley_com`` /
    ``positions``, ``1e-`` / ``12``); with a <wbr> after each dot, bracket and underscore and the number kept
    whole (compendium/sphinx/reading_aids.py) it breaks between them; a token longer than the narrowest line
    (a commit's hash) may break."""
    box = "pre{width:200px}"
    tokens = ['<span class="n">lib</span>', '<span class="o">.</span>', '<span class="n">shapley_compositions</span>',
              '<span class="p">(</span>', '<span class="n">tol</span>', '<span class="o">=</span>',
              '<span class="mf">1e-12</span>', '<span class="p">)</span>']
    plain = _page(tab, WRAP + _input("".join(tokens)), box).evaluate(checks.CODE_LINES, False)
    assert plain["inside"], plain
    hashed = _page(tab, WRAP + _input('<span class="s2">"' + "a691fd9a8eeefdf615d0543f4384f25860d" * 2 + '"</span>'),
                   box).evaluate(checks.CODE_LINES, False)
    assert hashed["inside"] == [], hashed
    marked = [t.replace("shapley_compositions", "shapley_<wbr>compositions") + ("<wbr>" if t[-9:-7] in (">.", ">(", ">=") else "")
              for t in tokens]
    marked[6] = '<span class="mf"><span style="white-space:nowrap">1e-12</span></span>'
    fixed = _page(tab, WRAP + _input("".join(marked)), box).evaluate(checks.CODE_LINES, False)
    assert fixed["inside"] == [], fixed
    # an output's line too: a check's value broken after its sign, and the same line with it kept whole
    check = "max |error| \u2248\u00a0{}\u00a0&lt;\u00a01e-10\u00a0\u2713"
    broken = _page(tab, WRAP + _output("x" * 14 + check.format("6.7e-16")), box).evaluate(checks.CODE_LINES, False)
    assert [b for b in broken["inside"] if b.startswith("output ")], broken
    whole = check.format('<span style="white-space:nowrap">6.7e-16</span>').replace(
        "1e-10", '<span style="white-space:nowrap">1e-10</span>')
    kept = _page(tab, WRAP + _output("x" * 14 + whole), box).evaluate(checks.CODE_LINES, False)
    assert kept["inside"] == [], kept


def test_a_long_line_is_caught_inside_hanging_lines(tab: Any) -> None:
    """Lines in their own wrapping blocks (compendium/sphinx/reading_aids.py) are measured unwrapped too."""
    css = ("pre.hanging{font:14px monospace} "
           "pre.hanging>span.line{display:block;white-space:pre-wrap;overflow-wrap:anywhere}")
    body = f'<div class="cell"><div class="cell_input"><div class="highlight"><pre class="hanging">' \
           f'<span class="line">x = 1\n</span><span class="line">{LONG_LINE}\n</span></pre></div></div></div>'
    found = _page(tab, body, css).evaluate(checks.CODE_LINES, True)
    assert found["pans"] == [] and len(found["wraps"]) == 1


def test_code_that_fits_is_not(tab: Any) -> None:
    short = _input("result = sx.perturb(x, y)\ncheck('max |error|', err, 1e-10)")
    found = _page(tab, WRAP + short + _output("max |error| &lt; 1e-12 ≤ 1e-10 ✓")).evaluate(checks.CODE_LINES, True)
    assert found == {"pans": [], "wraps": [], "inside": []}
    folded = f"<details><summary>code</summary>{_input(LONG_LINE)}</details>"
    assert _page(tab, "<style>pre{white-space:pre}</style>" + folded).evaluate(checks.CODE_LINES, True) == {
        "pans": [], "wraps": [], "inside": []}


def test_an_output_line_ending_in_a_bare_boolean_is_caught(tab: Any) -> None:
    body = _output("⊕ = closed product: max error &lt; 1e-10: True\nx ⊕ y = [0.46 0.35 0.19]") + \
        _output("holds  False  \nTrueness of the claim: 3 of 4")
    lines = _page(tab, body).evaluate(checks.OUTPUT_LINES)
    assert checks.bare_booleans(lines) == ["⊕ = closed product: max error < 1e-10: True", "holds  False"]
    assert checks.bare_booleans(["max |error| < 1e-12 ≤ 1e-10 ✓", "True positives: 12", "Falsey"]) == []


def test_plumbing_in_a_cell_on_the_page_is_caught(tab: Any) -> None:
    body = (_input("table = compendium.report.claims_table(rows)\nwrite_derived(table, 'comp-x.csv')")
            + f"<details><summary>code</summary>{_input('glue_number(&quot;comp-x&quot;, x)')}</details>"
            + _input("from myst_nb import glue") + _input("frame.to_csv('out.csv')")
            + _input("table  # glue(...) happens in a removed cell"))
    found = checks.plumbing(_page(tab, body).evaluate(checks.CODE_CELLS))
    assert found == ["write_derived(table, 'comp-x.csv')", 'folded: glue_number("comp-x", x)',
                     "from myst_nb import glue", "frame.to_csv('out.csv')"]
    assert checks.plumbing([{"text": "check('max |error|', err, 1e-10)\nglued = 3", "folded": False}]) == []


def test_an_output_showing_a_derived_path_is_caught(tab: Any) -> None:
    body = (_output("'data/derived/comp-iris-table1-spread.csv'") + _output("written: nb-table2.csv")
            + _output("within the tolerance: 22 of 22\nthe tables of data/external are not ours")
            + _output("stored by: python benchmarks/nb_speed.py --out data/derived/benchmark-nb-speed.csv"))
    found = checks.derived_paths(_page(tab, body).evaluate(checks.OUTPUT_LINES))
    assert found == ["'data/derived/comp-iris-table1-spread.csv'", "written: nb-table2.csv"]


def test_a_name_defined_only_off_the_page_is_caught(tab: Any) -> None:
    body = _input("x = np.array([0.2, 0.3, 0.5])\nprint(sx.closure(x))") + _input("import numpy as np")
    assert checks.undefined_names(_page(tab, body).evaluate(checks.CODE_CELLS)) == ["sx"]
    defined = [
        {"text": "import numpy as np\nfrom lib import simplex as sx", "folded": False},
        {"text": "def f(a, *rest, k=1):\n    return [b for b in rest if b > a] or k\n", "folded": True},
        {"text": "try:\n    sx.ilr([0])\nexcept ValueError as err:\n    print(err, len(np.ones(2)), f(1))", "folded": False},
        {"text": "%time y = 1\nfor i, (j, k) in enumerate([(1, 2)]):\n    display(i + j + k + y)", "folded": False},
    ]
    assert checks.undefined_names(defined) == []


def test_a_section_opening_with_code_is_caught(tab: Any) -> None:
    body = ("<section><h1>Title</h1><p>What this page shows.</p>"
            "<section><h2>Check 1</h2><span id='target'></span><div class='cell tag_remove-input'></div>"
            + _input("check('e', 0, 1)") + "</section>"
            "<section><h2>Check 2</h2><p>The check below compares …</p>" + _input("x = 1") + "</section>"
            "<section><h2>Table</h2>" + _output("a table") + "</section></section>")
    assert _page(tab, body).evaluate(checks.SECTION_OPENINGS) == ["Check 1", "Table"]


def test_computed_by_in_the_prose_is_caught(tab: Any) -> None:
    body = ("<p>where g is the geometric mean. Computed by <code>difference</code> of <code>lib.simplex</code>.</p>"
            "<p>Computed by <code>shapley_values</code> of <code>lib.naive_bayes</code>.</p>"
            "<p class='equation-code'>code: <a href='#'><code>perturb</code></a></p>"
            "<p>The values computed by the closed form agree.</p>")
    found = _page(tab, body).evaluate(checks.COMPUTED_BY)
    assert len(found) == 2 and found[1].startswith("Computed by shapley_values")


def test_a_figure_from_a_1x_png_is_caught() -> None:
    images = [
        {"src": "http://h/_images/abc.png", "shown": 352.0, "natural": 471, "href": ""},      # 1.3 px per px
        {"src": "http://h/book/figures/x.svg", "shown": 352.0, "natural": 300, "href": ""},   # vector
        {"src": "http://h/_images/big.png?v=1", "shown": 300.0, "natural": 600, "href": ""},  # 2x
        {"src": "http://h/_images/hidden.png", "shown": 0.0, "natural": 10, "href": ""},
    ]
    assert checks.soft_figures(images) == ["abc.png: 471 px shown 352 px wide"]


def test_raw_tex_in_text_is_caught(tab: Any) -> None:
    body = ("<p>the angle is $\\approx 109.5^\\circ$ here</p>"
            "<table><tr><td>\\tilde{p}_3</td></tr></table>"
            "<p>a subscript x_{i} left raw</p>"
            "<table><tr><td>the classifier \\(f\\) is calibrated</td></tr></table>"
            "<p>Typeset: <span class='math'><mjx-container>x</mjx-container></span>, code <code>\\n</code>, "
            "a price of 5 $ is not TeX</p>"
            "<pre>print('\\\\tilde')</pre>"
            "<mjx-container><mjx-assistive-mml><math><mtext>Lung\\_cancer</mtext></math></mjx-assistive-mml></mjx-container>")
    found = _page(tab, body).evaluate(checks.RAW_TEX)
    assert found == ["the angle is $\\approx 109.5^\\circ$ here", "\\tilde{p}_3", "a subscript x_{i} left raw",
                     "the classifier \\(f\\) is calibrated", "in maths: Lung\\_cancer"], found


def test_images_count_as_stored(tmp_path: Path) -> None:
    """An SVG counts all of its bytes, however well it would compress (issue 46 counts a page's own
    bytes as stored): a page cannot pass its budget on a host's gzip."""
    svg = tmp_path / "f.svg"
    svg.write_text("<svg>" + "<path d='M0 0 L1 1'/>" * 5000 + "</svg>", encoding="utf-8")
    assert checks.image_bytes(svg) == svg.stat().st_size == 11 + 21 * 5000
    png = tmp_path / "f.png"
    png.write_bytes(b"\x89PNG" + bytes(range(256)) * 10)
    assert checks.image_bytes(png) == png.stat().st_size


def test_a_check_that_hides_its_number_is_caught() -> None:
    """A floor where the value belongs, or a label's number run into the value, is caught; the measured
    value with its bound, a range around a value, and noise that says it is noise are not."""
    caught = ["max |difference| < 1e-12 < 1e-10 ✓", "coalition 1 = 1 ✓", "gap ≤ 0.001 ≤ 0.01 ✗",
              "evidence: max |Eq. (L10) - enumeration| < 1e-12 < 1e-10 ✓; rows 5"]
    passed = ["max |difference| = 3.2e-15 ≤ 1e-10 ✓", "max |difference| ≈ 3.0e-15 < 1e-10 ✓",
              "coverage: 0.93 ≤ 0.942 ≤ 0.97 ✓", "max |Δ ilr| < 1e-12 (rounding noise) ≤ 1e-10 ✓",
              "coalition 1: value = 1 ✓", "largest standard error = 0.042 ≤ 0.05 ✓", "no check here < 1 < 2"]
    assert checks.hidden_values(caught) == [line[:100] for line in caught]
    assert checks.hidden_values(passed) == []
