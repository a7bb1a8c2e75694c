"""The rendered book, read the way a reader meets it: in a real browser.

The HTML built by the README's first command (``_build/html``) is served on 127.0.0.1
and opened in headless Chromium (Debian's ``chromium``, driven by Playwright; no browser is
downloaded). For the landing page and every page of the table of contents (every chapter's
notebooks, the landing pages, the back matter) it checks that

- the equations are typeset by MathJax, served from the book itself (no network), with no
  TeX error;
- every image has loaded (natural width > 0);
- every internal link resolves, fragment included;
- the browser logs no error and no request fails;
- notebook pages carry a Binder launch link to the configured repository and a download
  link to the notebook file;
- on a phone (400 px wide) and on a desktop (1400 px), every display equation either fits its
  box or its box scrolls sideways, its number is not clipped, and nothing around it cuts it
  off (``book/_static/compendium.css``; long equations are split, CONTRIBUTING.md §3);
- on a phone, MathJax 4 breaks a display equation too wide for the column into lines: none
  scrolls except the few listed in ``KNOWN_WIDE``, which cannot break;
- axe-core (4.14.1, vendored in ``tests/browser/axe-core/`` from the npm registry, injected into
  the page: no network) finds no *serious* or *critical* accessibility violation, on a phone
  (400 px) and on a desktop (1400 px): the theme shows other controls at each width (an icon-only
  search button on a phone, a search field on a desk); colour contrast is read at 400 px on the
  sample of ``CONTRAST_AT_PHONE`` only (see there); the others (minor, moderate) are counted
  per rule and width, printed at the end of the run, and written to ``_build/accessibility.txt``;
- the page reads as its findings (issue 30), at 400 and 1400 px: no code shown over 40 lines;
  no table cell cut with "…" or "...", none showing NaN or a bare True/False; every table seen whole (or scrolling in
  its own box, with a sign that more is there); no page wider than a phone's screen; no raw
  ``eq-`` label in the visible text; every figure opens at full size, and its smallest text is at
  least 8 px on a phone (issue 46: sub- and superscripts included); the landing page's
  verdict-at-a-glance table (class ``verdict-glance``) within its first two screens on a phone;
  no page fetches the theme scripts the book leaves out (``compendium/sphinx/light_pages.py``);
- a notebook page reads as its idea (issue 38), at 400 and 1400 px: no code or output line
  overflows its box (and on a desk no shown code line is wider than the column); no output line
  ends in a bare True/False; no cell on the page (shown or folded) glues, writes a derived file or
  imports myst-nb; every name the page's code uses is defined on the page (no alias imported in a
  removed cell); no section opens with code; no "Computed by" sentence in the prose; no figure
  shown from a 1x PNG; no raw TeX in the text;
- a reader on a phone (issue 46), at 400 px: no verdict, status or outcome column starts off-screen
  on any page (the reader would pan to see what held); no one-row table wider than the screen (a
  record reads as a list); no check's ✓ or ✗ drawn on a line of its own;
- no page runs past ``page_checks.MAX_PHONE_SCREENS`` screens at 400 px (issue 46: the API
  reference ran to 94-141; a reader looking for one function scrolls through dozens of modules);
  on the API pages, no name in a table of modules or functions breaks inside a word at 400 px;
- the byte budgets: every page's own bytes (its HTML and images) at most 600 kB, the Figures
  page's 2 MB (all of it, scrolled through), and everything a phone fetches for the Figures page's
  first screen at most 1.5 MB (bytes, not times: the load times on a throttled phone are measured
  by ``benchmarks/page_weight.py``).

Each detector of these faults is a function of ``page_checks.py``, shown catching a planted
counter-example by ``test_page_checks.py``. Faults that other open work is fixing (the notebooks'
cells, tables and figures; the landing page's glance table) are listed below as strict expected
failures, page by page, so the run shows when each one is fixed (then its entry goes).

Each width is read with one browser tab, reused from page to page. Screenshots of every page
are written to ``_build/screenshots/`` (look at them): ``<page>.png`` at 1400 px,
``<page>--400.png`` at 400 px, and ``<page>--400-math.png`` centred on the page's widest
display equation.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import http.server
import os
import re
import shutil
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import page_checks as checks
from compendium.tests.helpers import chapters as toc_chapters

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FIGURES = ROOT / "book" / "figures"
# Viewport widths: a phone, and a desktop (the theme shows both sidebars from 1200 px).
PHONE, DESKTOP = 400, 1400
# axe-core, vendored (tests/browser/axe-core/README.md): the digest axe-core publishes for 4.14.1.
AXE = Path(__file__).resolve().parent / "axe-core" / "axe.min.js"
AXE_SRI = "sha256-KTSJmUUM3yhJqOcLeRL8LahahJ2jnA0NU5T1HUqe2Vw="
# Impacts that fail the test; the others are counted and reported.
AXE_FAIL = ("serious", "critical")
REPORT = ROOT / "_build" / "accessibility.txt"


def _pages() -> list[str]:
    """The landing page and every page of the table of contents, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = ["index", toc["root"]]

    def walk(entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            pages.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc["parts"]:
        walk(part["chapters"])
    return pages


#: ``BOOK_PAGES=02-shapley-compositions/01,03-iris python -m pytest tests/browser`` reads only the
#: pages whose path contains one of the comma-separated parts (a quick look at the pages one is
#: writing); unset, every page (CI)
ONLY = [part for part in os.environ.get("BOOK_PAGES", "").split(",") if part.strip()]
PAGES = [p for p in _pages() if not ONLY or any(part.strip() in p for part in ONLY)]


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    if not (HTML / "index.html").is_file():
        pytest.fail("no built book in _build/html: run the README's first command (jupyter-book build . -W -n) first")
    checks.need_chromium()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(HTML)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(site: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=checks.CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# Every display equation (MathJax 4, CHTML output): whether it fits its boxes or they scroll, and
# whether it needs to scroll at all (MathJax breaks a display equation too wide for its column).
_DISPLAY_MATH = """() => {
    const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
    const fits = e => e.scrollWidth <= e.clientWidth + 1;
    const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
        + (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
    const screen = document.documentElement.clientWidth;
    return Array.from(document.querySelectorAll('mjx-container[display="true"]')).map(c => {
        const box = c.closest('div.math') || c;
        const r = box.getBoundingClientRect();
        const math = c.querySelector('mjx-math');
        const items = MathJax.startup.document.getMathItemsWithin(c);
        const tex = items.length ? items[0].math : '';
        const problems = [];
        for (const e of new Set([c, box])) {
            if (!fits(e) && !scrolls(e)) {
                problems.push(`${name(e)} is ${e.scrollWidth} px wide in ${e.clientWidth} px and does not scroll`);
            }
        }
        if (r.left < -1 || r.right > screen + 1) {
            problems.push(`its box spans ${Math.round(r.left)}..${Math.round(r.right)} px on a ${screen} px screen`);
        }
        for (let a = box.parentElement; a && a !== document.body; a = a.parentElement) {
            const s = a.getBoundingClientRect();
            if (getComputedStyle(a).overflowX !== 'visible' && !scrolls(a) && (r.right > s.right + 1 || r.left < s.left - 1)) {
                problems.push(`${name(a)} cuts its box off`);
            }
        }
        const number = box.querySelector('.eqno');
        if (number) {
            const n = number.getBoundingClientRect();
            if (n.width === 0 || n.left < r.left - 1 || n.right > r.right + 1) {
                problems.push(`its number ${number.textContent.trim()} is clipped`);
            }
        }
        return {
            id: box.id || '',
            text: tex.replace(/\\s+/g, ' ').trim().slice(0, 60),
            overflows: [c, box].some(e => !fits(e)),
            width: math ? Math.round(math.getBoundingClientRect().width) : 0,
            box: box.clientWidth,
            problems: problems,
        };
    });
}"""


class Reader:
    """One browser tab at one viewport width, reused for every page (loading is what takes time)."""

    def __init__(self, browser: Any, width: int, height: int) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.problems: list[str] = []
        self.fetched: list[str] = []
        self.page.on("request", lambda r: self.fetched.append(r.url))
        self.page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url}"))
        self.page.on("response", lambda r: self.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)

    def open(self, url: str, wait_until: str) -> Any:
        self.problems = []
        self.fetched = []
        self.page.goto(url, wait_until=wait_until)
        _typeset(self.page)
        return self.page


def _typeset(page: Any) -> None:
    """Wait until MathJax, if the page has it, has typeset the page."""
    page.evaluate("typeof MathJax === 'undefined' || !MathJax.startup ? null : MathJax.startup.promise")


#: how long a page may take to load what it defers (ms): a slow, loaded CI machine took more than
#: Playwright's default of 30 s on one page in a hundred
SETTLE_MS = 120_000

#: every image made eager, and whether all are loaded; run at every poll, because Chromium sometimes
#: leaves an image far down a long page deferred (still ``loading=lazy``, never complete) after the
#: first switch (seen about once in twenty page visits, on a loaded machine)
_IMAGES_LOADED = """() => {
    document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; });
    return Array.from(document.images).every(i => i.complete);
}"""


def _load_everything(page: Any) -> None:
    """Load what the page defers until the reader scrolls near it (lazy images, MathJax on the
    pages of compendium/sphinx/light_pages.py's LAZY_MATH_PAGES) and wait until it is shown."""
    lazy_math = page.evaluate("() => { if (window.compendiumLoadMath) { window.compendiumLoadMath(); return true; } return false; }")
    if lazy_math:
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=SETTLE_MS)
    _typeset(page)
    page.wait_for_function(_IMAGES_LOADED, polling=250, timeout=SETTLE_MS)


#: the pages whose colour contrast axe also checks at 400 px: the landing page, the introduction, the
#: report, the estimators page and the first notebook of every chapter. Colour contrast takes half of
#: axe's time on a page (about 4 s of 8), and what it reads changes little with the width: the book's
#: own style sheets set no colour that depends on the width (test_book_colours_do_not_depend_on_the_width),
#: and the theme's few that do are on its header and sidebars, the same on every page, read at 400 px
#: on these. On the other pages it runs at 1400 px only; every other rule runs on every page at both widths.
CONTRAST_AT_PHONE = frozenset(
    ["index", "book/intro", "book/reproduction-report", "notebooks/00-foundations/03-estimators"]
    + [min(p for p in PAGES if p.startswith(f"notebooks/{c}/")) for c in {p.split("/")[1] for p in PAGES if p.startswith("notebooks/")}]
)


def _axe(page: Any, *, contrast: bool = True) -> list[dict[str, Any]]:
    """The accessibility violations axe-core finds on the page as it stands (every rule axe-core 4.14.1
    runs by default; without ``contrast``, all but colour contrast)."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async contrast => (await axe.run(document, {resultTypes: ['violations'],
                                                       rules: {'color-contrast': {enabled: contrast}}})).violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.html.replace(/\\s+/g, ' ').slice(0, 160)),
        }))""",
        contrast,
    )


def _visit(reader: Reader, url: str, shot: str) -> dict[str, Any]:
    """Everything the tests check on a page, read at the desktop width."""
    page = reader.open(url, "networkidle")
    _load_everything(page)
    info = page.evaluate(
        """() => ({
            url: location.href,
            title: document.title,
            math: document.querySelectorAll('div.math, span.math').length,
            typeset: document.querySelectorAll('div.math mjx-container, span.math mjx-container').length,
            rawTex: Array.from(document.querySelectorAll('div.math, span.math'))
                .filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 60)),
            texErrors: Array.from(document.querySelectorAll('mjx-merror'))
                .map(e => e.getAttribute('data-mjx-error') || e.textContent.slice(0, 60)),
            mathjax: Array.from(document.scripts).map(s => s.src).filter(s => /mathjax/i.test(s)),
            images: Array.from(document.images).map(i => [i.currentSrc, i.naturalWidth]),
            links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
            ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
            names: Array.from(document.querySelectorAll('a[name]')).map(e => e.name),
        })"""
    )
    info["display"] = page.evaluate(_DISPLAY_MATH)
    info.update(_reading_checks(page, desk=True))
    info["axe"] = _axe(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{shot}.png"), full_page=False)
    figure = page.locator("figure img")
    if figure.count():
        # a second screenshot centred on the page's first numbered figure
        figure.first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"{shot}--figure.png"), full_page=False)
    info["problems"] = reader.problems
    info["fetched"] = list(reader.fetched)
    return info


def _reading_checks(page: Any, *, desk: bool) -> dict[str, Any]:
    """What a reader meets on the page as it stands (page_checks.py), at the tab's width."""
    return {
        "code": page.evaluate(checks.LONG_CODE, checks.MAX_CODE_LINES),
        "tables": page.evaluate(checks.TABLE_FAULTS),
        "boxes": page.evaluate(checks.TABLE_BOXES),
        "labels": page.evaluate(checks.RAW_LABELS),
        "figures": page.evaluate(checks.FIGURE_IMAGES),
        # a page reads as its idea (issue 38)
        "lines": page.evaluate(checks.CODE_LINES, desk),
        "booleans": checks.bare_booleans(outputs := page.evaluate(checks.OUTPUT_LINES)),
        "hidden": checks.hidden_values(outputs),
        "paths": checks.derived_paths(outputs),
        "cells": page.evaluate(checks.CODE_CELLS),
        "openings": page.evaluate(checks.SECTION_OPENINGS),
        "computed": page.evaluate(checks.COMPUTED_BY),
        "tex": page.evaluate(checks.RAW_TEX),
    }


def _visit_phone(reader: Reader, url: str, shot: str, *, contrast: bool) -> dict[str, Any]:
    """The display equations of a page on a phone, with screenshots of the top and of the widest
    one; how wide the page is, where the glance table starts, and the reading checks."""
    # MathJax is deferred, so it has started by the load event; a redirect page (the landing
    # page's meta refresh) navigates after it, so there the network must go quiet first.
    redirect = 'http-equiv="Refresh"' in (HTML / urllib.parse.urlparse(url).path.lstrip("/")).read_text(encoding="utf-8")
    page = reader.open(url, "networkidle" if redirect else "load")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{shot}--{PHONE}.png"), full_page=False)
    info: dict[str, Any] = {"glance": page.evaluate(checks.GLANCE_TOP)}
    _load_everything(page)
    display = page.evaluate(_DISPLAY_MATH)
    info["display"] = display
    info["overflow"] = page.evaluate(checks.PAGE_OVERFLOW)
    info["verdicts"] = page.evaluate(checks.VERDICTS_OFF_SCREEN, checks.VERDICT_HEADERS)
    info["one_row"] = page.evaluate(checks.ONE_ROW_TABLES)
    info["lone_marks"] = page.evaluate(checks.LONE_MARKS)
    info["screens"] = page.evaluate(checks.PAGE_SCREENS)
    info["names"] = page.evaluate(checks.NAMES_BROKEN)
    info.update(_reading_checks(page, desk=False))
    info["axe"] = _axe(page, contrast=contrast)
    if display:
        widest = max(range(len(display)), key=lambda i: display[i]["width"])
        page.evaluate(
            """i => document.querySelectorAll('mjx-container[display="true"]')[i]
                   .scrollIntoView({block: 'center'})""",
            widest,
        )
        page.screenshot(path=str(SHOTS / f"{shot}--{PHONE}-math.png"), full_page=False)
    return info


@pytest.fixture(scope="module")
def visited(browser: Any, site: str) -> dict[str, dict[str, Any]]:
    reader = Reader(browser, DESKTOP, 1400)
    try:
        pages = _read_each(lambda p: _visit(reader, site + f"{p}.html", p.replace("/", "__")))
    finally:
        reader.page.close()
    _write_report(pages, DESKTOP)
    return pages


class Visits(dict):
    """What was read on each page; a page the browser could not read (a timeout) fails the tests
    of that page only, with the browser's message, instead of every test of every page."""

    def __getitem__(self, page: str) -> dict[str, Any]:
        info = super().__getitem__(page)
        if "unreadable" in info:
            pytest.fail(f"the browser could not read {page}: {info['unreadable']}")
        return info


def _read_each(read: Any) -> Visits:
    """``read(page)`` for every page of PAGES, a page that raises kept as unreadable."""
    from playwright.sync_api import Error as PlaywrightError

    pages = Visits()
    for p in PAGES:
        try:
            pages[p] = read(p)
        except PlaywrightError as error:
            pages[p] = {"unreadable": str(error).splitlines()[0]}
    return pages


#: width -> the lines of REPORT for that width (each width's tab adds its own when it has read every page)
_REPORTED: dict[int, list[str]] = {}


def _write_report(pages: dict[str, dict[str, Any]], width: int) -> None:
    """Count the accessibility violations by impact and rule, over every page read at ``width``,
    into REPORT (beside those of the other width, if it has been read)."""
    counts: dict[tuple[str, str, str], list[int]] = {}
    for info in pages.values():
        for v in info.get("axe", []):
            pages_and_nodes = counts.setdefault((v["impact"] or "none", v["id"], v["help"]), [0, 0])
            pages_and_nodes[0] += 1
            pages_and_nodes[1] += len(v["nodes"])
    order = {"critical": 0, "serious": 1, "moderate": 2, "minor": 3}
    lines = [f"axe-core 4.14.1 on {len(pages)} pages at {width} px: violations by impact and rule"]
    for (impact, rule, help_), (npages, nodes) in sorted(counts.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1])):
        lines.append(f"  {impact:<8} {rule}: {nodes} element(s) on {npages} page(s) ({help_})")
    if not counts:
        lines.append("  none")
    _REPORTED[width] = lines
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("".join("\n".join(_REPORTED[w]) + "\n" for w in sorted(_REPORTED)), encoding="utf-8")
    print("\n" + "\n".join(lines))


@pytest.fixture(scope="module")
def on_phone(browser: Any, site: str) -> dict[str, dict[str, Any]]:
    reader = Reader(browser, PHONE, 860)
    try:
        pages = _read_each(lambda p: _visit_phone(reader, site + f"{p}.html", p.replace("/", "__"),
                                                  contrast=p in CONTRAST_AT_PHONE))
    finally:
        reader.page.close()
    _write_report(pages, PHONE)
    return pages


def test_every_chapter_and_the_back_matter_are_visited() -> None:
    if ONLY:
        pytest.skip("BOOK_PAGES names the pages to read")
    chapters = {p.split("/")[1] for p in PAGES if p.startswith("notebooks/")}
    assert chapters == set(toc_chapters())                           # every chapter of _toc.yml
    for back in ("book/reproduction-report", "book/errata", "book/how-to-cite", "book/references"):
        assert back in PAGES


@pytest.mark.parametrize("page", PAGES)
def test_no_browser_errors_and_images_load(visited: dict[str, dict[str, Any]], page: str) -> None:
    info = visited[page]
    assert info["problems"] == [], info["problems"]
    broken = [src for src, width in info["images"] if width == 0]
    assert not broken, f"images that did not load: {broken}"


@pytest.mark.parametrize("page", [p for p in PAGES if p.startswith("notebooks/")])
def test_math_is_typeset_offline(visited: dict[str, dict[str, Any]], page: str, site: str) -> None:
    info = visited[page]
    assert info["rawTex"] == [], f"equations left as raw TeX: {info['rawTex'][:3]}"
    assert info["typeset"] == info["math"]
    assert info["texErrors"] == [], f"TeX that MathJax could not typeset: {info['texErrors'][:3]}"
    if info["math"]:
        assert info["mathjax"] and all(src.startswith(site) for src in info["mathjax"]), info["mathjax"]


@pytest.mark.parametrize("page", PAGES)
def test_internal_links_resolve(visited: dict[str, dict[str, Any]], page: str, site: str) -> None:
    info = visited[page]
    missing = []
    for link in sorted(set(info["links"])):
        if not link.startswith(site):
            continue
        target, _, fragment = link.partition("#")
        path = urllib.parse.unquote(target[len(site):]) or "index.html"
        file = HTML / path
        if file.is_dir():
            file = file / "index.html"
        if not file.is_file():
            missing.append(link)
            continue
        if fragment and file.suffix == ".html":
            fragment = urllib.parse.unquote(fragment)
            if target == info["url"].partition("#")[0]:
                anchors = set(info["ids"]) | set(info["names"])
            else:
                text = file.read_text(encoding="utf-8")
                anchors = set(re.findall(r'\bid="([^"]+)"', text)) | set(re.findall(r'\bname="([^"]+)"', text))
            if fragment not in anchors:
                missing.append(link)
    assert not missing, f"internal links that do not resolve: {missing}"


@pytest.mark.parametrize("page", [p for p in PAGES if p.startswith("notebooks/")])
def test_launch_and_download_buttons(visited: dict[str, dict[str, Any]], page: str, site: str) -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repo = urllib.parse.urlparse(config["repository"]["url"]).path.strip("/")
    links = visited[page]["links"]
    binder = [ln for ln in links if ln.startswith("https://mybinder.org/v2/gh/")]
    assert binder, "no Binder launch button"
    assert all(repo in ln and f"{page}.ipynb" in urllib.parse.unquote(ln) for ln in binder), binder
    downloads = [ln for ln in links if ln.startswith(site) and ln.endswith(".ipynb")]
    assert downloads, "no download link to the notebook"
    for link in downloads:
        assert (HTML / urllib.parse.unquote(link[len(site):])).is_file(), link


def test_back_matter_pages_have_real_content(visited: dict[str, dict[str, Any]]) -> None:
    if ONLY:
        pytest.skip("BOOK_PAGES names the pages to read")
    report = (HTML / "book" / "reproduction-report.html").read_text(encoding="utf-8")
    row = re.search(r"all papers</p></td>((?:\s*<td><p>\d+</p></td>){6})", report)
    assert row, "the reproduction report has no count row"
    *classes, total = map(int, re.findall(r"<td><p>(\d+)</p></td>", row.group(1)))
    assert len(classes) == 5 and total == sum(classes) > 0
    errata = (HTML / "book" / "errata.html").read_text(encoding="utf-8")
    assert len(re.findall(r"admonition-title\">Erratum", errata)) >= 10
    cite = re.sub(r"<[^>]+>", "", (HTML / "book" / "how-to-cite.html").read_text(encoding="utf-8"))
    assert cite.count("@software{shapley_compendium") == 1
    for key in ("lemaire2023naive", "anonymous_shapley_compositions", "amoukou_brunel_game_changers",
                "anonymous_typical_value", "ferrettini2020improving"):
        assert f"{{{key}," in cite, key


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("page", PAGES)
def test_display_math_fits_or_scrolls(
    visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]], page: str, width: int
) -> None:
    display = visited[page]["display"] if width == DESKTOP else on_phone[page]["display"]
    # the phone's tab typeset the same equations as the desktop's
    assert len(on_phone[page]["display"]) == len(visited[page]["display"])
    bad = [f"{eq['id'] or eq['text']!r}: {'; '.join(eq['problems'])}" for eq in display if eq["problems"]]
    assert not bad, f"display equations cut off at {width} px: {bad}"


# Display equations MathJax cannot break to fit a phone's column, so they scroll sideways there:
# page -> the equations' ids (equation-<label>) or, unlabelled, the start of their TeX. Each is one
# unbreakable block wider than 368 px: a fraction, a cases or aligned environment, an underbrace
# (MathJax 4 breaks a display equation at its top-level relations and operators only).
KNOWN_WIDE = {
    "notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes": {
        "equation-eq-nb-efficiency",  # \underbrace{...}_{v(\emptyset)} inside aligned
        # unlabelled: the log odds ratio, a product of two fractions of products per aligned row
        r"\begin{split} \begin{aligned} \frac{P(Y_1\mid X)}{P(Y_0\mid ",
    },
}


@pytest.mark.parametrize("page", PAGES)
def test_display_math_breaks_on_a_phone(on_phone: dict[str, dict[str, Any]], page: str) -> None:
    wide = {eq["id"] or eq["text"] for eq in on_phone[page]["display"] if eq["overflows"]}
    known = KNOWN_WIDE.get(page, set())
    assert wide <= known, f"display equations that scroll at {PHONE} px instead of breaking: {sorted(wide - known)}"
    assert known <= wide, f"listed as unbreakable but fit at {PHONE} px now (update KNOWN_WIDE): {sorted(known - wide)}"


def test_axe_core_is_the_pinned_release() -> None:
    digest = base64.b64encode(hashlib.sha256(AXE.read_bytes()).digest()).decode()
    assert f"sha256-{digest}" == AXE_SRI, "tests/browser/axe-core/axe.min.js is not axe-core 4.14.1 (run fetch.sh)"


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("page", PAGES)
def test_no_serious_accessibility_violation(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                            page: str, width: int) -> None:
    violations = (on_phone if width == PHONE else visited)[page]["axe"]
    failing = [f"{v['impact']} {v['id']} ({v['help']}): {v['nodes'][:3]}" for v in violations if v["impact"] in AXE_FAIL]
    assert not failing, f"axe-core at {width} px: {failing}"


# ---------------------------------------------------------------------------------------------
# The page reads as its findings (issue 30): the checks of page_checks.py on every page, at both
# widths.

def _both(pages: list[str]) -> list[tuple[str, int]]:
    """(page, width) for every page at both widths."""
    return [(p, w) for p in pages for w in (PHONE, DESKTOP)]


def _at(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]], page: str, width: int) -> dict[str, Any]:
    return on_phone[page] if width == PHONE else visited[page]


@pytest.mark.parametrize(("page", "width"), _both(PAGES))
def test_no_code_shown_over_40_lines(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                     page: str, width: int) -> None:
    long = _at(visited, on_phone, page, width)["code"]
    assert not long, (f"code shown over {checks.MAX_CODE_LINES} lines at {width} px (fold it, split it, or move it "
                      f"to lib): {[(c['lines'], c['first']) for c in long]}")


@pytest.mark.parametrize(("page", "width"), _both(PAGES))
def test_no_table_cell_cut_or_nan(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                  page: str, width: int) -> None:
    cells = _at(visited, on_phone, page, width)["tables"]
    assert not cells["cut"], f"{len(cells['cut'])} table cells cut with an ellipsis: {cells['cut'][:5]}"
    assert not cells["missing"], f"{len(cells['missing'])} table cells show NaN: {cells['missing'][:5]}"
    assert not cells["booleans"], f"{len(cells['booleans'])} table cells show a bare True/False: {cells['booleans'][:5]}"


@pytest.mark.parametrize(("page", "width"), _both(PAGES))
def test_every_table_seen_whole(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                page: str, width: int) -> None:
    boxes = _at(visited, on_phone, page, width)["boxes"]
    assert not boxes, f"tables a reader cannot see whole at {width} px: {boxes[:5]}"


@pytest.mark.parametrize("page", PAGES)
def test_no_sideways_panning_on_a_phone(on_phone: dict[str, dict[str, Any]], page: str) -> None:
    overflow = on_phone[page]["overflow"]
    assert overflow["width"] <= overflow["screen"], (
        f"the page is {overflow['width']} px wide on a {overflow['screen']} px screen: {overflow['culprits']}")


@pytest.mark.parametrize("page", PAGES)
def test_no_verdict_column_off_screen_on_a_phone(on_phone: dict[str, dict[str, Any]], page: str) -> None:
    off = on_phone[page]["verdicts"]
    assert not off, f"at {PHONE} px a reader pans to see what held: {off[:6]}"


@pytest.mark.parametrize("page", PAGES)
def test_no_one_row_table_to_pan_on_a_phone(on_phone: dict[str, dict[str, Any]], page: str) -> None:
    wide = on_phone[page]["one_row"]
    assert not wide, f"at {PHONE} px a one-row table is wider than the screen (show it as a list): {wide}"


@pytest.mark.parametrize("page", PAGES)
def test_no_verdict_mark_alone_on_a_line_on_a_phone(on_phone: dict[str, dict[str, Any]], page: str) -> None:
    lone = on_phone[page]["lone_marks"]
    assert not lone, f"at {PHONE} px a check's mark is drawn apart from its number: {lone[:5]}"


#: pages longer than checks.MAX_PHONE_SCREENS that other work is to shorten, with why (strict: a page
#: that passes must leave the list)
LONG_PAGES: dict[str, str] = {
    # none: the Figures page was 83 screens when the bound was set, 34 once each figure's files,
    # digests and command unfolded with its citation
}


@pytest.mark.parametrize("page", PAGES)
def test_no_page_runs_past_the_bound_of_phone_screens(on_phone: dict[str, dict[str, Any]], page: str,
                                                      request: Any) -> None:
    """At 400 px no page is longer than checks.MAX_PHONE_SCREENS screens (issue 46: the API reference
    ran to 94-141): a reader looking for one function does not scroll through dozens of modules."""
    if page in LONG_PAGES:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=LONG_PAGES[page]))
    found = on_phone[page]["screens"]
    screens = checks.phone_screens(found)
    tallest = ", ".join(f"{s['heading']} {s['height'] / found['screen']:.0f}" for s in found["sections"])
    assert screens <= checks.MAX_PHONE_SCREENS, (
        f"{screens:.0f} screens of {found['screen']} px at {PHONE} px, over {checks.MAX_PHONE_SCREENS} "
        f"(split the page; its tallest sections, in screens: {tallest})")


@pytest.mark.parametrize("page", [p for p in PAGES if p.startswith("book/api")])
def test_api_names_break_between_words_on_a_phone(on_phone: dict[str, dict[str, Any]], page: str) -> None:
    """At 400 px a name in the API pages' tables of modules and functions breaks after a dot or an
    underscore, never inside a word (compendium.sphinx.api_docs.break_names, book/_static/api.css)."""
    broken = on_phone[page]["names"]
    assert not broken, f"names broken inside a word at {PHONE} px ({len(broken)}): {broken[:5]}"


#: links into the API reference kept from when its four pages held every module (before issue 46) ->
#: where they land now: an object's or a module's anchor on its module's page, a module's heading at
#: the top of its page; an anchor of the landing page itself stays
FORMER_API_LINKS = {
    "book/api.html#lib.shapley.exact_shapley": "book/api/lib.shapley.html#lib.shapley.exact_shapley",
    "book/api.html#module-lib.sampling.strata": "book/api/lib.sampling.strata.html#module-lib.sampling.strata",
    "book/api-methods.html#lib-naive-bayes-sklearn": "book/api/lib.naive_bayes_sklearn.html",
    "book/api-infrastructure.html#compendium.report.ClaimEntry": (
        "book/api/compendium.report.html#compendium.report.ClaimEntry"),
    "book/api.html#explain-your-model": "book/api.html#explain-your-model",
}


def test_a_link_into_the_former_api_pages_lands_on_the_module_page(browser: Any, site: str) -> None:
    """The API pages forward a link kept from when they held every module (compendium.sphinx.api_pages.FORWARD),
    and the anchor it names is on the page it lands on."""
    if ONLY and not any("api" in p for p in PAGES):
        pytest.skip("BOOK_PAGES leaves the API pages out")
    tab = browser.new_page(viewport={"width": PHONE, "height": 860})
    try:
        for old, new in FORMER_API_LINKS.items():
            tab.goto(site + old, wait_until="commit")
            tab.wait_for_url(site + new, wait_until="load")
            fragment = new.partition("#")[2]
            assert not fragment or tab.evaluate("id => document.getElementById(id) !== null", fragment), new
    finally:
        tab.close()


@pytest.mark.parametrize(("page", "width"), _both(PAGES))
def test_no_raw_equation_label_in_the_text(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                           page: str, width: int) -> None:
    labels = _at(visited, on_phone, page, width)["labels"]
    assert not labels, f"raw equation labels in the visible text at {width} px: {labels}"


@functools.cache
def _figure_index() -> tuple[frozenset[str], dict[str, str]]:
    """The figures of book/figures (names with an SVG), and the sha256 of each notebook output's
    PNG -> the figure it shows (its alt description is the figure's PNG's Description chunk)."""
    import base64
    import json

    from PIL import Image

    stems = frozenset(p.stem for p in FIGURES.glob("*.svg"))
    by_description: dict[str, str] = {}
    for png in FIGURES.glob("*.png"):
        with Image.open(png) as image:
            text = image.text.get("Description", "")
        by_description[" ".join(text.split())] = png.stem
    by_sha: dict[str, str] = {}
    for notebook in (ROOT / "notebooks").glob("*/*.ipynb"):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                alt = output.get("metadata", {}).get("image/png", {}).get("alt")
                stem = by_description.get(" ".join(str(alt).split())) if alt else None
                if stem and "image/png" in output.get("data", {}):
                    data = base64.b64decode("".join(output["data"]["image/png"]))
                    by_sha[hashlib.sha256(data).hexdigest()] = stem
    return stems, by_sha


def _figure_of(src: str, site: str) -> str | None:
    """The figure of book/figures an image of the built site shows: by its file name (the
    Figures page's copies) or by the sha256 of its file (a notebook's output of it)."""
    stems, by_sha = _figure_index()
    path = Path(urllib.parse.unquote(urllib.parse.urlparse(src).path))
    if path.stem in stems:
        return path.stem
    file = HTML / src[len(site):].split("?")[0] if src.startswith(site) else None
    if file is not None and file.is_file():
        return by_sha.get(hashlib.sha256(file.read_bytes()).hexdigest())
    return None


@pytest.mark.parametrize("page", PAGES)
def test_figure_text_readable_on_a_phone(on_phone: dict[str, dict[str, Any]], page: str, site: str) -> None:
    small, unknown = [], []
    for image in on_phone[page]["figures"]:
        if image["shown"] == 0:
            continue
        stem = _figure_of(image["src"], site)
        if stem is None:
            unknown.append(image["src"])
            continue
        px = checks.shown_font_px((FIGURES / f"{stem}.svg").read_text(encoding="utf-8"), image["shown"])
        if px < checks.MIN_FIGURE_TEXT_PX:
            small.append(f"{stem}: {px:.1f} px (shown {image['shown']:.0f} px wide)")
    assert not unknown, f"figures with no SVG in book/figures to measure their text by: {unknown}"
    assert not small, f"figures whose smallest text is under {checks.MIN_FIGURE_TEXT_PX} px at {PHONE} px: {small}"


@pytest.mark.parametrize("page", PAGES)
def test_figures_open_full_size(visited: dict[str, dict[str, Any]], page: str, site: str) -> None:
    """Every image of a page is a link to its figure's SVG (or, without one, to the image itself)."""
    wrong = []
    for image in visited[page]["figures"]:
        stem = _figure_of(image["src"], site)
        want = f"{site}book/figures/{stem}.svg" if stem else image["src"]
        if image["href"] != want:
            wrong.append(f"{image['src'][len(site):]} links to {image['href'] or 'nothing'}, not {want[len(site):]}")
    assert not wrong, wrong


@pytest.mark.parametrize("page", PAGES)
def test_no_unused_theme_script_is_fetched(visited: dict[str, dict[str, Any]], page: str) -> None:
    unused = [u for u in visited[page]["fetched"]
              if re.search(r"/(fontawesome\.js|searchindex\.js|searchtools\.js|language_data\.js)(\?|$)", u)
              or "/sre/" in u]
    assert not unused, f"fetched what compendium/sphinx/light_pages.py and _config.yml's MathJax options leave out: {unused}"


def test_glance_table_within_the_first_two_screens(on_phone: dict[str, dict[str, Any]]) -> None:
    if "book/intro" not in on_phone:
        pytest.skip("BOOK_PAGES leaves the landing page out")
    glance = on_phone["book/intro"]["glance"]
    assert glance is not None, "the landing page has no verdict-at-a-glance table (class verdict-glance)"
    assert glance["top"] < 2 * glance["screen"], (
        f"the glance table starts {glance['top']:.0f} px down, past the first two {glance['screen']} px screens")


#: a page's own bytes (its HTML and its images, :func:`page_checks.own_bytes`) at most, in bytes
#: (kB = 1000 bytes); the Figures page, which shows every figure, has the budget below
PAGE_BUDGET = 600_000
#: the Figures page's own bytes at most: what a reader fetches who scrolls through all of it
FIGURES_PAGE_BUDGET = 2_000_000
#: everything a phone fetches to show the Figures page's first screen at most, in bytes
FIGURES_FIRST_SCREEN_BUDGET = 1_500_000


@pytest.mark.parametrize("page", PAGES)
def test_page_weight(page: str) -> None:
    if not (HTML / f"{page}.html").is_file():
        pytest.skip("the book is not built")
    total, images = checks.own_bytes(HTML / f"{page}.html", HTML)
    biggest = sorted(images.items(), key=lambda kv: -kv[1])[:3]
    budget = FIGURES_PAGE_BUDGET if page == "book/figures" else PAGE_BUDGET
    assert total <= budget, f"{total} bytes (HTML and images), over {budget}; largest images: {biggest}"


def test_figures_page_first_screen_weight(browser: Any, site: str) -> None:
    fetched = checks.first_screen(browser, site + "book/figures.html", site, HTML)
    total = sum(fetched.values())
    biggest = sorted(fetched.items(), key=lambda kv: -kv[1])[:6]
    assert total <= FIGURES_FIRST_SCREEN_BUDGET, (
        f"the Figures page's first screen on a phone fetches {total} bytes, over {FIGURES_FIRST_SCREEN_BUDGET}: {biggest}")


# ---------------------------------------------------------------------------------------------
# A notebook page reads as its idea (issue 38): the checks of page_checks.py on every notebook
# page, at both widths. Pages still being rewritten by other open work (issue 38's second part,
# the estimators page) are listed with the checks they fail, as strict expected failures: the
# run shows when each is fixed (then its entry goes).

NOTEBOOK_PAGES = [p for p in PAGES if p.startswith("notebooks/")]

#: page -> the checks of this section it still fails (strict: a check that passes must leave the
#: list): fit (a code or output line past its box), desk (a shown code line wider than the column
#: at 1400 px),
#: booleans (an output line ending in True/False), plumbing (glue or a derived-file write in a cell
#: on the page), names (a name used on the page and defined off it), openings (a section opening
#: with code), computed ("Computed by" in the prose), sharp (a figure from a 1x PNG), tex (raw TeX)
PENDING: dict[str, set[str]] = {}


def _pending(request: Any, page: str, check: str) -> None:
    if check in PENDING.get(page, set()):
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"{page}: being rewritten (issue 38)"))


@pytest.mark.parametrize(("page", "width"), _both(NOTEBOOK_PAGES))
def test_code_and_output_lines_fit(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                   page: str, width: int, request: Any) -> None:
    _pending(request, page, "fit")
    lines = _at(visited, on_phone, page, width)["lines"]
    assert not lines["pans"], f"code or output lines past their box at {width} px: {lines['pans'][:5]}"


@pytest.mark.parametrize("page", PAGES)
def test_code_wraps_between_tokens_on_a_phone(on_phone: dict[str, dict[str, Any]], page: str) -> None:
    """At 400 px a long line of code wraps after a bracket, a comma, a dot or an operator, never inside a
    name or a number (compendium.sphinx.reading_aids.break_between_tokens)."""
    inside = on_phone[page]["lines"]["inside"]
    assert not inside, f"code lines broken inside a token at {PHONE} px ({len(inside)}): {inside[:5]}"


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_shown_code_fits_the_desk_column(visited: dict[str, dict[str, Any]], page: str, request: Any) -> None:
    """At 1400 px no shown code line is wider than its box (on a phone long lines wrap)."""
    _pending(request, page, "desk")
    wraps = visited[page]["lines"]["wraps"]
    assert not wraps, (f"shown code lines wider than the column at {DESKTOP} px (format them: "
                       f"python tools/tag_cells.py --format): {wraps[:5]}")


@pytest.mark.parametrize(("page", "width"), _both(NOTEBOOK_PAGES))
def test_checks_print_their_number(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                   page: str, width: int, request: Any) -> None:
    _pending(request, page, "booleans")
    found = _at(visited, on_phone, page, width)["booleans"]
    assert not found, f"output lines ending in a bare True/False (print the number, its bound and the verdict: compendium.page.check): {found[:5]}"


@pytest.mark.parametrize(("page", "width"), _both(PAGES))
def test_checks_show_their_value_not_a_floor(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                             page: str, width: int) -> None:
    """Issue 46, item 2: a check's output line or table cell shows the measured value, the bound and the
    verdict, never a floor in the value's place (page_checks.hidden_values)."""
    seen = _at(visited, on_phone, page, width)
    found = seen["hidden"] + checks.hidden_values(seen["tables"]["cells"])
    assert not found, f"checks that print a floor or run a label into the value: {found[:5]}"


@pytest.mark.parametrize(("page", "width"), _both(NOTEBOOK_PAGES))
def test_no_plumbing_in_a_cell_on_the_page(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                           page: str, width: int, request: Any) -> None:
    _pending(request, page, "plumbing")
    at = _at(visited, on_phone, page, width)
    found = checks.plumbing(at["cells"]) + [f"output: {line}" for line in at["paths"]]
    assert not found, (f"cells on the page that glue, write a derived file or import myst-nb (move it to a removed "
                       f"cell, as `_ = write_derived(...)`), or outputs that show a derived file's path: {found[:5]}")


@pytest.mark.parametrize(("page", "width"), _both(NOTEBOOK_PAGES))
def test_every_name_is_defined_on_the_page(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                           page: str, width: int, request: Any) -> None:
    _pending(request, page, "names")
    found = checks.undefined_names(_at(visited, on_phone, page, width)["cells"])
    assert not found, f"names the page's code uses that no cell on the page defines (import them in the shown import cell, or fold the cell that makes them): {found}"


@pytest.mark.parametrize(("page", "width"), _both(NOTEBOOK_PAGES))
def test_sections_open_with_a_sentence(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                       page: str, width: int, request: Any) -> None:
    _pending(request, page, "openings")
    found = _at(visited, on_phone, page, width)["openings"]
    assert not found, f"sections that open with code, not with a sentence saying what they show: {found}"


@pytest.mark.parametrize(("page", "width"), _both(NOTEBOOK_PAGES))
def test_no_computed_by_sentence_in_the_prose(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                              page: str, width: int, request: Any) -> None:
    _pending(request, page, "computed")
    found = _at(visited, on_phone, page, width)["computed"]
    assert not found, f"'Computed by' sentences in the prose (an equation's code is the small link beside its number): {found[:3]}"


@pytest.mark.parametrize(("page", "width"), _both(NOTEBOOK_PAGES))
def test_figures_are_sharp(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                           page: str, width: int, request: Any) -> None:
    _pending(request, page, "sharp")
    found = checks.soft_figures(_at(visited, on_phone, page, width)["figures"])
    assert not found, f"figures shown from a 1x raster image (save them with compendium.plotting.save_figure: the page shows the SVG): {found}"


@pytest.mark.parametrize(("page", "width"), _both(NOTEBOOK_PAGES))
def test_no_raw_tex_in_the_text(visited: dict[str, dict[str, Any]], on_phone: dict[str, dict[str, Any]],
                                page: str, width: int, request: Any) -> None:
    _pending(request, page, "tex")
    found = _at(visited, on_phone, page, width)["tex"]
    assert not found, f"TeX shown as text at {width} px: {found[:5]}"


def test_an_unreadable_page_fails_its_own_tests_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page the browser times out on is kept as unreadable: its tests fail with the browser's
    message, the other pages' tests read what was read on them."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    monkeypatch.setattr(f"{__name__}.PAGES", ["a", "b"])

    def read(page: str) -> dict[str, Any]:
        if page == "a":
            raise PlaywrightTimeout("Page.wait_for_function: Timeout 120000ms exceeded.\nCall log: ...")
        return {"axe": []}

    pages = _read_each(read)
    assert pages["b"] == {"axe": []}
    with pytest.raises(pytest.fail.Exception, match="could not read a: Page.wait_for_function: Timeout 120000ms exceeded.$"):
        pages["a"]


def test_book_colours_do_not_depend_on_the_width() -> None:
    """No rule of the book's own style sheets sets a colour or a background inside a media query on
    the width: what axe's colour contrast reads on a page's content at 1400 px holds at 400 px
    (CONTRAST_AT_PHONE)."""
    found = []
    for css in sorted((ROOT / "book" / "_static").glob("*.css")):
        text = re.sub(r"/\*.*?\*/", "", css.read_text(encoding="utf-8"), flags=re.S)
        for media in re.finditer(r"@media([^{]*)\{((?:[^{}]*\{[^}]*\})*)\s*\}", text):
            if "width" in media.group(1) and re.search(r"(?<![-\w])(color|background(-color)?)\s*:", media.group(2)):
                found.append(f"{css.name}: @media{media.group(1).rstrip()}")
    assert not found, f"colours that change with the width: {found}"
    assert "notebooks/00-foundations/01-shapley-values" in CONTRAST_AT_PHONE or ONLY
