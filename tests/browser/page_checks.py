"""What the browser test reads on a rendered page, one detector per fault a reader meets.

Each detector is a JavaScript function (run in the page with Playwright's ``page.evaluate``) or a
Python function of what such a function returns; ``test_page_checks.py`` shows each one catching
a planted counter-example (and passing its repaired twin), so that no check of
``test_rendered_book.py`` can pass because it looked at nothing.

- :data:`LONG_CODE`: code shown on the page (a code cell's input or a listing; not removed, not
  folded) over :data:`MAX_CODE_LINES` lines.
- :data:`TABLE_FAULTS`: table cells cut with an ellipsis ("…" or "...") and cells showing a missing
  value (``NaN``, pandas' ``<NA>``/``NaT``) instead of an empty cell or a reason, and data cells
  holding a bare ``True``/``False`` (a table says what a boolean means, in a word or a mark).
- :data:`PAGE_OVERFLOW`: a page wider than the screen (it pans sideways), with the elements that
  make it so.
- :data:`TABLE_BOXES`: tables a reader cannot see whole (clipped, past the column, or wider than
  their scrolling box with no sign of it).
- :data:`RAW_LABELS`: a raw ``eq-`` label (a MyST target name) in the visible text.
- :data:`FIGURE_IMAGES` with :func:`svg_min_font` and :func:`shown_font_px`: the smallest text
  of each figure as shown (its SVG's smallest font size × the width the image is shown at ÷ the
  SVG's width).
- :data:`VERDICTS_OFF_SCREEN`: a verdict, status or outcome column (its header, or a verdict cell)
  that starts off-screen, so a reader must pan to see what held (issue 46).
- :data:`LONE_MARKS`: a check's ✓ or ✗ drawn on a line of its own, apart from the number it judges.
- :data:`ONE_ROW_TABLES`: a one-row table wider than its box (a record to pan through; a list reads).
- :data:`NAMES_BROKEN`: a name in a table's first column broken inside a word on a phone (the API
  reference's tables of modules and functions), not after a dot or an underscore.
- :data:`PAGE_SCREENS` with :func:`phone_screens`: a page longer than :data:`MAX_PHONE_SCREENS` phone
  screens (a reader looking for one thing scrolls through dozens of others; issue 46).
- :data:`GLANCE_TOP`: where the landing page's verdict-at-a-glance table (class
  ``verdict-glance``) starts, in screens.
- :func:`own_bytes`: a page's own bytes, its HTML and the images it shows; :func:`first_screen`:
  every byte a browser fetches to show a page's first screen.

A page reads as its idea (issue 38), on every notebook page at 400 and 1400 px:

- :data:`CODE_LINES`: a code or output line that overflows its box (it pans or is cut); on a
  desk, a shown code line wider than its box (it wraps: the code was not formatted to the column); on a
  phone, a wrapped code or output line that breaks inside a token (a name, a number: ``set_index(le`` / ``vels)``,
  ``1e-`` / ``12``).
- :data:`OUTPUT_LINES` with :func:`bare_booleans`: an output line that ends in a bare ``True`` or
  ``False`` (a check prints its number, its bound and its verdict).
- :data:`CODE_CELLS` with :func:`plumbing` and :func:`undefined_names`: a cell on the page (shown or
  folded) that calls ``glue``, writes a derived file or imports myst-nb (and, with
  :func:`derived_paths` of :data:`OUTPUT_LINES`, an output showing a derived file's path); a name a cell on the page
  uses that no cell on the page defines (an alias imported in a removed cell).
- :data:`SECTION_OPENINGS`: a section whose first content is a code cell, not a sentence.
- :data:`COMPUTED_BY`: a "Computed by …" sentence in the running prose (the code of an equation is
  a small link beside its number).
- :func:`soft_figures` (of :data:`FIGURE_IMAGES`): a figure shown from a raster image with fewer
  than two pixels per CSS pixel (a 1× PNG on a 2× screen).
- :data:`RAW_TEX`: TeX shown as text (``\\tilde{p}``, ``$\\approx$``, ``\\(f\\)``), in the prose, in a table, or
  inside typeset maths (``Lung\\_cancer``).
"""

from __future__ import annotations

import ast
import builtins
import functools
import http.server
import os
import re
import shutil
import threading
import urllib.parse
from pathlib import Path
from typing import Any

#: Debian's chromium, driven by Playwright (no browser is downloaded), and its flags
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def need_chromium() -> None:
    """Skip the calling test without chromium, except in CI (which installs it): there, fail."""
    import pytest

    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs Debian's chromium package")
        pytest.skip("chromium is not installed (apt-get install chromium); CI always runs this test")


class Served:
    """A folder served over HTTP on 127.0.0.1: ``with Served(folder) as url: ...``."""

    def __init__(self, folder: Path) -> None:
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))

    def __enter__(self) -> str:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


#: the longest code cell a page may show (CONTRIBUTING.md: longer cells are split, folded or moved to lib)
MAX_CODE_LINES = 40
#: the smallest text a figure may show on a 400 px phone, in CSS pixels
MIN_FIGURE_TEXT_PX = 8.0

# Whether an element is rendered: not display:none, not inside a closed <details> (a folded
# cell, whose contents Chromium skips with content-visibility), not visibility:hidden.
_SHOWN = """const shown = e => (e.checkVisibility
        ? e.checkVisibility({contentVisibilityAuto: true, opacityProperty: false, visibilityProperty: true})
        : e.getClientRects().length > 0) && !e.closest('details:not([open])');"""

_NAME = """const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
        + (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\\s+/).slice(0, 3).join('.') : '');"""

#: -> [{lines, first}]: every block of code the page shows (a code cell's input, a listing of
#: ``lib``'s source, a code block; not an output, not a folded cell or listing) over MAX_CODE_LINES lines
LONG_CODE = (
    """(limit) => {
    """ + _SHOWN + """
    return Array.from(document.querySelectorAll('article pre'))
        .filter(p => !p.closest('.cell_output') && shown(p))
        .map(p => {
            const text = p.textContent.replace(/\\n+$/, '');
            return {lines: text.split('\\n').length, first: text.split('\\n')[0].slice(0, 80)};
        })
        .filter(c => c.lines > limit);
}"""
)

#: -> {cut: [...], missing: [...]}: table cells ending in an ellipsis, and cells that show NaN
TABLE_FAULTS = """() => {
    const cut = [], missing = [], booleans = [], cells = [];
    document.querySelectorAll('table').forEach(t => t.querySelectorAll('td, th').forEach(c => {
        const text = c.textContent.replace(/\\s+/g, ' ').trim();
        if (/(\\u2026|\\.\\.\\.)$/.test(text)) cut.push(text.slice(-70));
        // a value that is missing: a cell that is NaN, or a NaN among a data table's numbers
        // (prose that names NaN, as a docstring's summary on the API page does, is not one)
        const data = t.classList.contains('dataframe');
        if (/^(NaN|nan|<NA>|NaT)$/.test(text) || (data && /\\bNaN\\b/.test(text))) {
            const row = c.closest('tr');
            const label = row && row.cells.length ? row.cells[0].textContent.trim().slice(0, 40) : '';
            missing.push(`${label}: ${text.slice(0, 40)}`);
        }
        // a bare boolean in a data cell: the table must say what it means, in a word or a mark
        if (c.tagName === 'TD') cells.push(text);
        if (c.tagName === 'TD' && /^(True|False)$/.test(text)) {
            const row = c.closest('tr');
            booleans.push(`${row && row.cells.length ? row.cells[0].textContent.trim().slice(0, 40) : ''}: ${text}`);
        }
    }));
    return {cut: cut, missing: missing, booleans: booleans, cells: cells};
}"""

#: -> {width, screen, culprits}: the page's scrollable width against the screen's, and the
#: outermost elements that stick out of the screen without a scrolling box around them
PAGE_OVERFLOW = (
    """() => {
    """ + _NAME + """
    const screen = document.documentElement.clientWidth;
    const width = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
    const contains = e => {
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
            if (getComputedStyle(a).overflowX !== 'visible') return true;
        }
        return false;
    };
    const culprits = [];
    if (width > screen) {
        for (const e of document.body.querySelectorAll('*')) {
            const r = e.getBoundingClientRect();
            if (r.width === 0 || !(r.right > screen + 1 || r.left < -1)) continue;
            if (getComputedStyle(e).position === 'fixed' || contains(e)) continue;
            const p = e.parentElement.getBoundingClientRect();
            if (e.parentElement !== document.body && (p.right > screen + 1 || p.left < -1)) continue;
            culprits.push(`${name(e)} spans ${Math.round(r.left)}..${Math.round(r.right)} px: `
                + (e.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60));
            if (culprits.length >= 8) break;
        }
    }
    return {width: width, screen: screen, culprits: culprits};
}"""
)

#: -> [description]: every table a reader cannot see whole: one cut by a box that clips it
#: (overflow hidden or clip) with no scrolling box in between, one that runs past the text
#: column or the screen with nothing to scroll it, one that scrolls only together with other
#: content, and one wider than its own scrolling box with no sign that more of it is there
#: (its box's wrapper, ``div.scroll-cue``, marked ``more-right`` or ``more-left`` by reading.js)
TABLE_BOXES = (
    """() => {
    """ + _SHOWN + _NAME + """
    const screen = document.documentElement.clientWidth;
    const text = e => e.textContent.replace(/\\s+/g, ' ').trim().slice(0, 50);
    const out = [];
    for (const t of document.querySelectorAll('article table')) {
        if (!shown(t) || t.parentElement.closest('table')) continue;
        const r = t.getBoundingClientRect();
        const column = t.closest('article').getBoundingClientRect();
        let box = null;
        for (let a = t.parentElement; a && a.tagName !== 'ARTICLE'; a = a.parentElement) {
            const o = getComputedStyle(a).overflowX;
            if (o === 'auto' || o === 'scroll') { box = a; break; }
            const s = a.getBoundingClientRect();
            if ((o === 'hidden' || o === 'clip') && (r.right > s.right + 1 || r.left < s.left - 1)) {
                out.push(`cut by ${name(a)} at ${Math.round(s.right)} px (table ${Math.round(r.width)} px): ${text(t)}`);
                box = a;
                break;
            }
        }
        if (box === null) {
            if (r.right > Math.min(column.right, screen) + 1) {
                out.push(`runs past the column (${Math.round(r.right)} > ${Math.round(Math.min(column.right, screen))} px) with nothing to scroll it: ${text(t)}`);
            }
            continue;
        }
        const overflow = getComputedStyle(box).overflowX;
        if (overflow !== 'auto' && overflow !== 'scroll') continue;
        if (box.scrollWidth <= box.clientWidth + 1) continue;
        if (box.innerText.trim() !== t.innerText.trim()) {
            out.push(`scrolls only with other content, in ${name(box)}: ${text(t)}`);
            continue;
        }
        const cue = box.parentElement;
        if (!(cue.classList.contains('scroll-cue') && (cue.classList.contains('more-right') || cue.classList.contains('more-left')))) {
            out.push(`${box.scrollWidth - box.clientWidth} px of it hidden past its box, with no sign of more: ${text(t)}`);
        }
    }
    return out;
}"""
)

#: -> [label]: raw equation labels (``eq-...``) in the text the page shows
RAW_LABELS = """() => Array.from(new Set(document.body.innerText.match(/\\beq-[a-z0-9]+(?:-[a-z0-9]+)*/g) || []))"""

#: -> [{src, shown, natural, href}]: every image of the page's article, the width it is shown at
#: (CSS px) and the link around it
FIGURE_IMAGES = """() => Array.from(document.querySelectorAll('article img')).map(i => ({
    src: i.currentSrc || i.src,
    shown: i.getBoundingClientRect().width,
    natural: i.naturalWidth,
    href: i.closest('a') ? i.closest('a').href : '',
}))"""

#: -> {top, screen} or null: the top of the verdict-at-a-glance table (or of its container), in
#: CSS px from the top of the page, and the screen's height
GLANCE_TOP = (
    """() => {
    """ + _SHOWN + """
    const box = document.querySelector('.verdict-glance');
    if (!box || !shown(box)) return null;
    const table = box.tagName === 'TABLE' ? box : (box.querySelector('table') || box);
    return {top: table.getBoundingClientRect().top + window.scrollY, screen: window.innerHeight,
            rows: table.tagName === 'TABLE' ? table.rows.length : 0};
}"""
)


#: Header words of a column holding a verdict, a status or an outcome.
VERDICT_HEADERS = ["verdict", "status", "outcome", "hold", "holds", "fail", "substitute", "inconsistent", "untested", "reproduced",
                   "consistent", "explained deviation", "not reproduced", "contradicted"]

#: (words) -> [str]: header cells of verdict columns (a header that is one of ``words``), and verdict cells
#: (``td.verdict``), that lie (partly) off-screen at scroll 0: past the screen or past a box that scrolls or clips
VERDICTS_OFF_SCREEN = """(words) => {
    const width = document.documentElement.clientWidth;
    const off = [];
    const clipped = e => {
        const r = e.getBoundingClientRect();
        if (r.width === 0) return false;
        if (r.left < -1 || r.right > width + 1) return true;
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
            const s = getComputedStyle(a);
            if (s.overflowX !== 'visible') {
                const b = a.getBoundingClientRect();
                if (r.right > b.right + 1 || r.left < b.left - 1) return true;
            }
        }
        return false;
    };
    document.querySelectorAll('th').forEach(th => {
        const text = th.textContent.replace(/\\s+/g, ' ').trim().toLowerCase().replace(/\\u00ad/g, '');
        if (words.includes(text) && clipped(th)) off.push('header ' + text);
    });
    document.querySelectorAll('td.verdict').forEach(td => {
        if (clipped(td)) off.push('cell ' + td.textContent.trim());
    });
    return off;
}"""

#: -> [str]: a check's verdict mark (✓ or ✗) in a code cell's output drawn on a line of its own, apart from
#: the value and bound it judges (the line broke before it)
LONE_MARKS = (
    """() => {
    """ + _SHOWN + """
    const out = [], range = document.createRange();
    const top = (node, i) => { range.setStart(node, i); range.setEnd(node, i + 1); const r = range.getClientRects(); return r.length ? r[0].top : null; };
    for (const p of document.querySelectorAll('article .cell_output pre')) {
        if (!shown(p)) continue;
        const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
        let last = null;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.data.length; i++) {
                const c = node.data[i];
                if (c === '\\n') { last = null; continue; }
                if (/\\s/.test(c)) continue;
                const here = top(node, i);
                if (here === null) continue;
                if ((c === '\u2713' || c === '\u2717') && last !== null && here > last.top + 2) {
                    out.push(`${last.text} / ${c}`);
                }
                last = {top: here, text: node.data.slice(Math.max(0, i - 23), i + 1).trim()};
            }
        }
    }
    return out;
}"""
)


#: -> [str]: a one-row data table wider than its box (a reader pans to read one record): it reads as a
#: list of "name: value" lines instead
ONE_ROW_TABLES = (
    """() => {
    """ + _SHOWN + """
    const out = [];
    for (const t of document.querySelectorAll('article table')) {
        if (!shown(t) || t.parentElement.closest('table')) continue;
        const body = t.tBodies.length ? Array.from(t.tBodies).flatMap(b => Array.from(b.rows)) : Array.from(t.rows).slice(1);
        if (body.length !== 1 || body[0].cells.length < 3) continue;
        const r = t.getBoundingClientRect();
        let right = document.documentElement.clientWidth;
        for (let a = t.parentElement; a && a.tagName !== 'ARTICLE'; a = a.parentElement) {
            if (getComputedStyle(a).overflowX !== 'visible') { right = Math.min(right, a.getBoundingClientRect().right); break; }
        }
        if (r.right > right + 1) out.push(`${Math.round(r.width)} px wide: ${t.textContent.replace(/\\s+/g, ' ').trim().slice(0, 60)}`);
    }
    return out;
}"""
)


#: the most phone screens a page may run to at 400 px (its height over the tab's, 860 px): the
#: longest notebook page, the estimators page, ran to 62 when the bound was set (the next, 52; the
#: API reference pages, one page per group of modules then, ran to 94-141); a fifth more than
#: the longest notebook page leaves room to grow, and a reader looking for one function does not
#: scroll through dozens of modules
MAX_PHONE_SCREENS = 75

#: -> {height, screen, sections}: the page's height and the screen's, in CSS px, and its three
#: tallest sections (a heading's text and its height), the places to split a page that runs too long
PAGE_SCREENS = """() => {
    const height = Math.max(document.documentElement.scrollHeight, document.body.scrollHeight);
    const sections = Array.from(document.querySelectorAll('article section'))
        .filter(s => s.querySelector(':scope > h2, :scope > h3'))
        .map(s => ({heading: s.querySelector(':scope > h2, :scope > h3').textContent.replace(/[#\\s]+$/, '').trim(),
                    height: Math.round(s.getBoundingClientRect().height)}))
        .sort((a, b) => b.height - a.height).slice(0, 3);
    return {height: height, screen: window.innerHeight, sections: sections};
}"""


#: -> [str]: a name (inline code) in a table's first column (the API reference's tables of modules and of
#: functions) drawn over two lines with the break inside a word (``lib.com`` / ``positions``,
#: ``exact_pa`` / ``th``), where it could have broken after a dot or an underscore
NAMES_BROKEN = (
    """() => {
    """ + _SHOWN + """
    const out = [], range = document.createRange();
    for (const code of document.querySelectorAll('article td:first-child code')) {
        if (!shown(code)) continue;
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        let last = null;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.data.length; i++) {
                range.setStart(node, i);
                range.setEnd(node, i + 1);
                const rects = range.getClientRects();
                if (!rects.length) continue;
                const here = {top: rects[0].top, char: node.data[i]};
                if (last && here.top > last.top + 2 && /[A-Za-z0-9]/.test(last.char) && /[A-Za-z0-9]/.test(here.char)) {
                    out.push(code.textContent.trim());
                }
                last = here;
            }
        }
    }
    return Array.from(new Set(out));
}"""
)

def phone_screens(found: dict[str, Any]) -> float:
    """How many screens the page of :data:`PAGE_SCREENS` runs to (its height over the screen's)."""
    return found["height"] / found["screen"]


# matplotlib's SVG with text as paths (compendium.plotting.save_figure: svg.fonttype "path"): each text is
# a group scaled by font size / 100 (``scale(0.1 -0.1)`` is 10 pt), whose glyphs may be scaled
# again (mathtext's sub- and superscripts: ``scale(0.7)``); with text as text, a font-size.
_GLYPH_GROUP = re.compile(r'<g transform="[^"]*?scale\(([0-9.]+) -\1\)">(.*?)</g>', re.S)
_GLYPH_SCALE = re.compile(r'<use xlink:href="#(?P<glyph>[^"]+)"[^>]*?transform="[^"]*?scale\((?P<k>[0-9.]+)\)"')
_FONT_SIZE = re.compile(r'font(?:-size)?:[^;"]*?([0-9.]+)px')
_VIEWBOX = re.compile(r'<svg\b[^>]*\bviewBox="\s*[-0-9.]+\s+[-0-9.]+\s+([0-9.]+)\s+[0-9.]+\s*"')


def svg_min_font(svg: str) -> tuple[float, float]:
    """(smallest font size, width) of an SVG, both in the SVG's user units.

    Reads matplotlib's text-as-path groups (font size = 100 × the group's scale, times a
    glyph's own scale for mathtext's smaller sub- and superscripts; the size variants of
    STIX's delimiters are drawn at their own size and left out) and ``font-size`` of text
    elements. ``ValueError`` if the SVG has no viewBox or no text at all.
    """
    width = _VIEWBOX.search(svg)
    if width is None:
        raise ValueError("the SVG has no viewBox: its width in user units is unknown")
    sizes: list[float] = []
    for group in _GLYPH_GROUP.finditer(svg):
        size = 100.0 * float(group[1])
        sizes.append(size)
        for use in _GLYPH_SCALE.finditer(group[2]):
            if not use["glyph"].startswith("STIXSize"):
                sizes.append(size * float(use["k"]))
    sizes += [float(s) for s in _FONT_SIZE.findall(svg)]
    if not sizes:
        raise ValueError("the SVG shows no text (no text-as-path group, no font-size)")
    return min(sizes), float(width[1])


def shown_font_px(svg: str, shown_width: float) -> float:
    """The smallest text of an SVG figure, in CSS px, when its image is shown ``shown_width`` px wide."""
    font, width = svg_min_font(svg)
    return font * shown_width / width


_IMG_SRC = re.compile(r'<img\b[^>]*?\bsrc="([^"]+)"')


def image_bytes(path: Path) -> int:
    """An image file's bytes as stored: what a browser fetches from a host that does not compress
    it. (GitHub Pages sends an SVG, which is text, gzip-compressed, about a third of its size; the
    budgets hold without counting on that, issue 46.)"""
    return path.stat().st_size


def own_bytes(html_file: Path, site_root: Path) -> tuple[int, dict[str, int]]:
    """A built page's own bytes: its HTML file and every image it shows (each file once), and
    the size of each image by its path under ``site_root`` (:func:`image_bytes`). An image outside
    the site (a data: URI, another host) counts its URI's length; a missing file raises
    ``FileNotFoundError``."""
    text = html_file.read_text(encoding="utf-8")
    images: dict[str, int] = {}
    for src in dict.fromkeys(_IMG_SRC.findall(text)):
        parsed = urllib.parse.urlparse(src)
        if parsed.scheme or parsed.netloc:
            images[src[:60]] = len(src)
            continue
        path = (html_file.parent / urllib.parse.unquote(parsed.path)).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"{html_file.name}: image {src} is not in the built site")
        images[path.relative_to(site_root.resolve()).as_posix()] = image_bytes(path)
    return html_file.stat().st_size + sum(images.values()), images


def first_screen(browser: object, url: str, site: str, root: Path, *, width: int = 400,
                 height: int = 860, settle_ms: int = 1500) -> dict[str, int]:
    """Every file a fresh browser tab (no cache) fetches to show the first screen of ``url``, with
    its size in bytes: the page is opened at ``width`` x ``height`` px, not scrolled, until the
    network has been idle for half a second and ``settle_ms`` more. ``site`` is the address
    ``root`` (the built site) is served at; a file from elsewhere counts 0 bytes and is listed."""
    context = browser.new_context(viewport={"width": width, "height": height})  # type: ignore[attr-defined]
    fetched: list[str] = []
    try:
        page = context.new_page()
        page.on("requestfinished", lambda request: fetched.append(request.url))
        page.goto(url, wait_until="networkidle")
        page.wait_for_timeout(settle_ms)
    finally:
        context.close()
    sizes: dict[str, int] = {}
    for address in fetched:
        if not address.startswith(site):
            sizes[address] = 0
            continue
        path = urllib.parse.unquote(address[len(site):].split("?")[0].split("#")[0]) or "index.html"
        file = root / path
        sizes[path] = file.stat().st_size if file.is_file() else 0
    return sizes


# ---------------------------------------------------------------------------------------------
# A page reads as its idea (issue 38)

#: -> {pans: [...], wraps: [...]}: every code or output block of a cell (and every listing) whose
#: content overflows its box with the page's styles (it pans sideways, or is cut), and, when
#: ``desk`` is true, every shown code cell with a line wider than its box once lines are not
#: wrapped: on a desk, code formatted to the column fits without wrapping (a listing of ``lib``
#: keeps ``lib``'s line length and wraps)
CODE_LINES = (
    """(desk) => {
    """ + _SHOWN + """
    const first = p => p.textContent.split('\\n').reduce((a, b) => (b.length > a.length ? b : a), '').trim().slice(0, 70);
    const pans = [], wraps = [], inside = [];
    // where a wrapped line of code breaks inside a word or a number: two letters or digits of one text
    // node (Pygments puts each token in a span of its own; a name's underscore separates two words), or a
    // number's sign or point and its next digit (1e- / 12), drawn on two lines of the screen
    // a token no narrowest line can hold (the 60 % a line keeps beside its deepest hanging indent, about
    // 24 of the 40 characters a phone shows: a commit's hash, a version, a 30-letter class name) must break
    const LONG_TOKEN = 24;
    const run = (t, i) => {
        let a = i, b = i;
        while (a > 0 && /\\S/.test(t[a - 1])) a--;
        while (b < t.length && /\\S/.test(t[b])) b++;
        return b - a;
    };
    const breaksInside = p => {
        const found = [], range = document.createRange();
        const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
        let top = null, previous = null;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.data.length; i++) {
                if (node.data[i] === '\\n') { top = null; continue; }
                range.setStart(node, i);
                range.setEnd(node, i + 1);
                const rects = range.getClientRects();
                if (!rects.length) continue;
                const here = rects[0].top;
                const t = node.data;
                if (top !== null && here > top + 2 && previous && previous.node === node
                        && (/[A-Za-z0-9]/.test(t[i]) && /[A-Za-z0-9]/.test(previous.char)
                            || /[0-9]/.test(t[i]) && i >= 2 && (/[-+]/.test(previous.char) && /[eE]/.test(t[i - 2])
                                                             || previous.char === '.' && /[0-9]/.test(t[i - 2])))
                        && run(t, i) < LONG_TOKEN) {
                    const text = node.data;
                    found.push(`${text.slice(Math.max(0, i - 12), i)} / ${text.slice(i, i + 12)}`);
                }
                top = here;
                previous = {node: node, char: node.data[i]};
            }
        }
        return found;
    };
    for (const p of document.querySelectorAll('article pre')) {
        if (!shown(p)) continue;
        const output = !!p.closest('.cell_output');
        const kind = output ? 'output' : 'code';
        for (const box of new Set([p, p.parentElement])) {
            if (box.scrollWidth > box.clientWidth + 1) {
                pans.push(`${kind} ${box.scrollWidth - box.clientWidth} px past its box: ${first(p)}`);
                break;
            }
        }
        if (desk && !output && p.closest('.cell_input')) {
            // the lines unwrapped (the pre and every line in it): would one be wider than the box?
            const nowrap = document.createElement('style');
            nowrap.textContent = '.measure-nowrap, .measure-nowrap * { white-space: pre !important; }';
            document.head.appendChild(nowrap);
            p.classList.add('measure-nowrap');
            const over = p.scrollWidth - p.clientWidth;
            p.classList.remove('measure-nowrap');
            nowrap.remove();
            if (over > 1) wraps.push(`${over} px too wide for the column: ${first(p)}`);
        }
        if (!desk) inside.push(...breaksInside(p).map(b => (output ? 'output ' : '') + b));
    }
    return {pans: pans, wraps: wraps, inside: inside};
}"""
)

#: -> [line]: every line of the outputs shown on the page (printed text, a result's text), not of tables
OUTPUT_LINES = (
    """() => {
    """ + _SHOWN + """
    return Array.from(document.querySelectorAll('article .cell_output pre')).filter(shown)
        .flatMap(p => p.textContent.split('\\n'));
}"""
)

_BARE_BOOLEAN = re.compile(r"\b(True|False)\s*$")
#: a check that prints a floor where its value belongs: a label, then two bounds and the verdict
#: (``max |difference| < 1e-12 < 1e-10 ✓``); rounding noise written as under its floor says so in
#: words between them (``< 1e-12 (rounding noise) < 1e-10 ✓``, the form the stored results keep so
#: that their bytes do not depend on the CPU), which this does not match
_NUMBER = r"[-+]?\d[\d.]*(?:e[-+]?\d+)?"
_FLOOR = re.compile(rf"[A-Za-z|)\]]\s*(?:<|≤|<=)\s*{_NUMBER}\s*(?:<|≤|<=)\s*{_NUMBER}\s*[✓✗]")
#: a check whose label ends in a number run into its value (``coalition 1 = 1 ✓``): which is which?
_RUN_ON = re.compile(rf"(?<![\w.])[A-Za-z]\w* \d+(?:\.\d+)? (?:=|≈) {_NUMBER}[^✓✗\n]*[✓✗]")


def hidden_values(lines: list[str]) -> list[str]:
    """The lines (an output's, a table cell's) of a check that hides its number: a floor printed
    where the measured value belongs, or a label ending in a number run into the value."""
    return [line.strip()[:100] for line in lines if _FLOOR.search(line) or _RUN_ON.search(line)]


def bare_booleans(lines: list[str]) -> list[str]:
    """The output lines that end in a bare ``True`` or ``False`` (a check printed as a boolean)."""
    return [line.strip()[-90:] for line in lines if _BARE_BOOLEAN.search(line)]


#: -> [{text, folded}]: the code of every cell on the page, in order: shown, or folded behind a
#: click (a removed cell's code is not on the page)
CODE_CELLS = """() => Array.from(document.querySelectorAll('article div.cell div.cell_input pre'))
    .map(p => ({text: p.textContent, folded: !!p.closest('details')}))"""

_PLUMBING = re.compile(r"\b(?:glue|glue_number|glue_text|write_derived)\s*\(|\bmyst_nb\b|\.to_csv\s*\(")


_DERIVED_PATH = re.compile(r"data/derived/|\bwritten\b.*\.csv", re.I)


def derived_paths(lines: list[str]) -> list[str]:
    """The output lines that show a derived file's path or say it was written (publishing plumbing
    printed on the page: a removed cell ending in a write displays the path it returns). A
    command that regenerates a stored result (a line running ``python``) is what the reader
    needs, and is not counted."""
    return [line.strip()[:90] for line in lines
            if _DERIVED_PATH.search(line) and not re.search(r"\bpython3? ", line)]


def plumbing(cells: list[dict[str, Any]]) -> list[str]:
    """The first line of every cell on the page (shown or folded) that glues a value, writes a
    derived file or imports myst-nb: publishing plumbing belongs in a removed cell."""
    found = []
    for cell in cells:
        for line in cell["text"].splitlines():
            if _PLUMBING.search(line.split("#", 1)[0]):
                found.append(("folded: " if cell["folded"] else "") + line.strip()[:90])
    return found


#: names a notebook's kernel defines without an import
KERNEL_NAMES = frozenset(dir(builtins)) | {"display", "get_ipython", "In", "Out", "_", "__", "___"}


def _source(text: str) -> ast.Module | None:
    """A cell's code parsed, IPython's magics and shell lines left out (the statement a ``%time``
    or ``%timeit`` line times is kept); ``None`` if it does not parse."""
    lines = []
    for line in text.splitlines():
        stripped = line.lstrip()
        timed = re.match(r"%(?:time|timeit)\s+(?:-\S+\s+)*(.*)", stripped)
        if timed:
            line = line[:len(line) - len(stripped)] + timed[1]
        elif stripped.startswith(("%", "!")):
            line = ""
        lines.append(line)
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def _bound(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names |= set(node.names)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
    return names


def undefined_names(cells: list[dict[str, Any]]) -> list[str]:
    """Names the code on the page uses (shown or folded cells) that no cell on the page defines
    (an import, an assignment, a ``def``), sorted: an alias imported in a removed cell (``sx``), or a
    variable made in one. A cell that does not parse is skipped (the page shows what it shows)."""
    trees = [t for t in (_source(c["text"]) for c in cells) if t is not None]
    bound = set().union(*(_bound(t) for t in trees)) if trees else set()
    used = {n.id for t in trees for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return sorted(used - bound - KERNEL_NAMES)


#: -> [heading]: every section whose first content (after its heading, past empty blocks and
#: targets) is a code cell: a section opens with a sentence saying what it shows
SECTION_OPENINGS = (
    """() => {
    """ + _SHOWN + """
    const empty = e => !shown(e) || (e.innerText.trim() === '' && !e.querySelector('img, svg, mjx-container, table'));
    const out = [];
    for (const section of document.querySelectorAll('article section')) {
        const heading = section.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5, :scope > h6');
        if (!heading) continue;
        let e = heading.nextElementSibling;
        while (e && empty(e)) e = e.nextElementSibling;
        if (e && e.matches('div.cell')) out.push(heading.textContent.replace(/[#¶]$/, '').trim().slice(0, 80));
    }
    return out;
}"""
)

#: -> [text]: sentences of the running prose (paragraphs, list items; not code, not outputs) that
#: say "Computed by …": the code of an equation is a small link beside its number
COMPUTED_BY = (
    """() => {
    """ + _SHOWN + """
    return Array.from(document.querySelectorAll('article p, article li'))
        .filter(e => shown(e) && !e.closest('.cell_output, pre, table, p.equation-code'))
        .map(e => e.innerText.replace(/\\s+/g, ' ').trim())
        .filter(t => /(^|[.!?:;]\\s+)Computed by\\b/.test(t))
        .map(t => t.slice(0, 100));
}"""
)


def soft_figures(images: list[dict[str, Any]], density: float = 2.0) -> list[str]:
    """The images of :data:`FIGURE_IMAGES` shown from a raster file (PNG, JPEG, GIF, WebP) with
    fewer than ``density`` of its pixels per CSS pixel shown: a 1× PNG, blurred on a 2× screen."""
    soft = []
    for image in images:
        path = urllib.parse.urlparse(image["src"]).path.lower()
        if image["shown"] <= 0 or not path.endswith((".png", ".jpg", ".jpeg", ".gif", ".webp")):
            continue
        if image["natural"] < density * image["shown"] - 1:
            soft.append(f"{path.rsplit('/', 1)[-1]}: {image['natural']} px shown {image['shown']:.0f} px wide")
    return soft


#: -> [text]: TeX shown as text: a control word, an escaped character, ``$…$`` or a braced script
#: in the visible text outside code and typeset maths, and a backslash inside typeset maths (its
#: assistive MathML: ``\\text{Lung\\_cancer}`` shows its backslash)
RAW_TEX = (
    """() => {
    """ + _SHOWN + """
    const tex = /\\\\(?:[A-Za-z]{2,}|[_{}$%&#^,;!()])|\\$[^$\\n]{1,80}\\$|[\\^_]\\{/;
    const out = [];
    const walker = document.createTreeWalker(document.querySelector('article') || document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const e = n.parentElement;
        if (!e || e.closest('pre, code, script, style, mjx-container, .math, kbd, samp, textarea')) continue;
        const m = n.textContent.match(tex);
        if (m && shown(e)) out.push(n.textContent.replace(/\\s+/g, ' ').trim().slice(0, 80));
    }
    for (const mml of document.querySelectorAll('article mjx-assistive-mml')) {
        const text = mml.textContent;
        if (/\\\\[A-Za-z_{}]/.test(text)) out.push('in maths: ' + text.replace(/\\s+/g, ' ').trim().slice(0, 80));
    }
    return Array.from(new Set(out));
}"""
)
