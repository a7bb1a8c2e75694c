"""The whole book as one PDF, to cite, annotate and read offline.

Builds the book as a single HTML page (``jupyter-book build . --builder singlehtml``, the same
sources and stored outputs as the web book, with its warnings treated as errors), opens it in
Debian's headless Chromium through Playwright (served on 127.0.0.1; MathJax is bundled, so the
equations are typeset offline), laid out as it will be printed (print media, the print styles
below, a window as wide as the A4 page's text), so that MathJax breaks a display equation too
wide for the printed column into lines as the web book does on a narrow screen, checks that no
display equation runs past the column, and prints it to
``_build/pdf/shapley-compendium.pdf`` (A4, figures, tables, equations and the bibliography
included; a tagged PDF, whose figures carry the web book's alternative text; its first page names the
version, the commit and the build date, as every web page's footer does), copied beside the web book (``_build/html/shapley-compendium.pdf``) when that is
built. No LaTeX installation is needed.

    python tools/build_pdf.py              # build the single page, then the PDF
    python tools/build_pdf.py --no-build   # reuse _build/singlehtml
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
SINGLE = ROOT / "_build" / "singlehtml"
PDF = ROOT / "_build" / "pdf" / "shapley-compendium.pdf"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# The printed page: A4 (210 mm wide) with 14 mm side margins, so the text is 182 mm wide, which
# Chromium lays out as 182 / 25.4 * 96 = 688 CSS pixels (scale 1).
PAGE_WIDTH_MM, SIDE_MARGIN_MM = 210, 14
PRINT_WIDTH_PX = round((PAGE_WIDTH_MM - 2 * SIDE_MARGIN_MM) / 25.4 * 96)

# Print layout: the single page without the web navigation; wide equations and tables wrap
# inside the page instead of scrolling (paper cannot scroll).
PRINT_CSS = f"@page {{ size: A4; margin: 16mm {SIDE_MARGIN_MM}mm 18mm {SIDE_MARGIN_MM}mm; }}" + """
.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer, .bd-footer-content,
.header-article, .prev-next-area, .toc-entry, .headerlink, .copybtn, .bd-search,
.primary-toggle, .secondary-toggle, .skip-link, #pst-back-to-top { display: none !important; }
.bd-main .bd-content .bd-article-container { max-width: 100% !important; }
.bd-page-width { max-width: 100% !important; }
mjx-container[display="true"], div.math { overflow: visible !important; max-width: 100% !important; }
mjx-container[display="true"] > mjx-math { font-size: 92%; }
div.cell_output pre, pre { white-space: pre-wrap !important; word-break: break-word; }
/* a table's numbers and words are not cut inside; only its headers may break a long word */
div.cell_output table.dataframe td { word-break: normal !important; overflow-wrap: normal !important; }
div.cell_output table.dataframe th { word-break: normal !important; overflow-wrap: anywhere !important; }
/* ... but a row's label breaks between its words only (cut anywhere, a label of a wide table went
   down the page one letter a line) */
div.cell_output table.dataframe tbody th { overflow-wrap: normal !important; }
/* a claim's text wraps to whatever width the page leaves it (on screen it keeps 14em and scrolls) */
div.cell_output table.dataframe td.long-text { min-width: 0 !important; }
/* folded code (set-up, figure drawing) stays folded on paper, where it cannot be opened: its
   toggle alone on a page, before a figure moved to the next one, left an empty-looking page */
details.hide.above-input { display: none !important; }
/* a figure fits one page (a figure of stacked panels drawn for a phone is taller than the page is
   long at the column's width: kept in one piece, it left a blank page before it); a figure's
   caption stays on its page */
figure { break-inside: avoid; page-break-inside: avoid; }
figcaption { break-before: avoid; page-break-before: avoid; }
img { max-width: 100% !important; max-height: 170mm !important; width: auto !important;
      height: auto !important; object-fit: contain; page-break-inside: avoid; }
table { font-size: 80%; }
/* a long output (a table of 2^11 rows) may run over pages: never keep it in one piece; the theme's
   code blocks (div[class*=highlight-], flex columns kept in one piece) left a blank page before a
   code cell taller than the rest of a page */
div.cell, div.cell_input, div.cell_output, div.output, div.output_html, div.highlight, div[class*=highlight-],
div.literal-block-wrapper, table, tbody, pre
  { break-inside: auto !important; page-break-inside: auto !important; max-height: none !important; }
div[class*=highlight-], div.literal-block-wrapper { display: block !important; }
/* a code block or output broken over pages leaves at least three lines on each (two lines of an
   output alone at the top of a page read as a blank page); lines that know their hanging indent
   are blocks of one line each (compendium/sphinx/reading_aids.py), so no break next to the first two or
   the last two */
pre { orphans: 3; widows: 3; }
pre.hanging > span.line:nth-last-child(-n+2) { break-before: avoid; page-break-before: avoid; }
pre.hanging > span.line:nth-child(-n+2) { break-after: avoid; page-break-after: avoid; }
"""


# Added as the document is parsed, before any deferred script (MathJax) runs.
_ADD_PRINT_CSS = """(css => {
    const add = () => {
        const style = document.createElement('style');
        style.id = 'pdf-print-css';
        style.textContent = css;
        (document.head || document.documentElement).appendChild(style);
    };
    if (document.readyState === 'loading') {
        document.addEventListener('readystatechange', add, {once: true});
    } else {
        add();
    }
})(%s);"""

# Display equations whose typeset math reaches past the text column (the article's content box).
_WIDE_EQUATIONS = """() => {
    const article = document.querySelector('article.bd-article') || document.body;
    const a = article.getBoundingClientRect(), cs = getComputedStyle(article);
    const left = a.left + parseFloat(cs.paddingLeft), right = a.right - parseFloat(cs.paddingRight);
    return Array.from(document.querySelectorAll('mjx-container[display="true"] > mjx-math')).flatMap(m => {
        const r = m.getBoundingClientRect();
        if (r.left >= left - 1 && r.right <= right + 1) return [];
        const box = m.closest('div.math') || m.parentElement;
        const items = MathJax.startup.document.getMathItemsWithin(m.parentElement);
        const name = box.id || (items.length ? items[0].math.replace(/\\s+/g, ' ').trim().slice(0, 60) : '?');
        return [`${name}: ${Math.round(r.left - left)}..${Math.round(r.right - left)} px in ${Math.round(right - left)} px`];
    });
}"""

# The version, commit and build date on the first page: the footer's line (``compendium/sphinx/citation.py``; the
# web footer is not printed), with the whole commit, since paper has no link to follow.
_PINNED_FIRST_PAGE = """() => {
    const footer = document.querySelector('p.pinned-build');
    const article = document.querySelector('article.bd-article') || document.body;
    if (!footer) return false;
    const line = footer.cloneNode(true);
    line.className = 'pdf-pinned-build';
    const code = line.querySelector('code');
    if (code && footer.dataset.commit) code.textContent = footer.dataset.commit;
    line.style.fontSize = '9pt';
    article.insertBefore(line, article.firstChild);
    return true;
}"""

def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("build_pdf: Debian's chromium is needed (apt-get install chromium); no browser is downloaded")
    return exe


def build_single_html() -> None:
    exe = Path(sys.executable).parent / "jupyter-book"
    cmd = [str(exe) if exe.is_file() else "jupyter-book", "build", str(ROOT), "--builder", "singlehtml",
           "-W", "-n", "--keep-going"]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0 or not (SINGLE / "index.html").is_file():
        sys.exit(f"build_pdf: the single-page build failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")


def _root_page() -> str:
    """The single page itself: ``index.html`` only redirects to it (e.g. ``book/intro.html``)."""
    text = (SINGLE / "index.html").read_text(encoding="utf-8")
    if "url=" in text:
        return text.split("url=", 1)[1].split('"', 1)[0].strip()
    return "index.html"


def print_pdf(out: Path = PDF) -> Path:
    from playwright.sync_api import sync_playwright

    root_page = _root_page()
    prefix = "/" + root_page.rsplit("/", 1)[0] + "/" if "/" in root_page else "/"

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def translate_path(self, path: str) -> str:
            # the single page lives in a subfolder (book/intro.html) but links its assets as
            # if it were at the root (_static/, _images/): serve them from the root
            for asset in ("_static/", "_images/", "_downloads/", "_sphinx_design_static/"):
                if path.startswith(prefix + asset):
                    path = "/" + path[len(prefix):]
            return super().translate_path(path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(SINGLE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as p, tqdm(total=3, desc="PDF", unit="step") as bar:
            browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
            # laid out as printed before MathJax typesets: MathJax breaks a display equation at the
            # width of its column when it typesets (it does not re-break when the layout changes)
            page = browser.new_page(viewport={"width": PRINT_WIDTH_PX, "height": 1400})
            page.emulate_media(media="print")
            page.add_init_script(_ADD_PRINT_CSS % json.dumps(PRINT_CSS))
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/{root_page}", wait_until="load", timeout=300_000)
            bar.update()
            # wait for MathJax to start (its promise exists), then for it to finish: the promise
            # resolves to undefined in MathJax 4, so it cannot be the value waited for
            page.wait_for_function("() => Boolean(window.MathJax && MathJax.startup && MathJax.startup.promise)",
                                   timeout=120_000)
            page.evaluate("() => MathJax.startup.promise")
            errors = page.evaluate("() => document.querySelectorAll('mjx-merror').length")
            if errors:
                sys.exit(f"build_pdf: MathJax reports {errors} TeX error(s) in the book")
            if not page.evaluate("() => Boolean(document.getElementById('pdf-print-css'))"):
                sys.exit("build_pdf: the print styles were not applied before MathJax typeset the book")
            wide = page.evaluate(_WIDE_EQUATIONS)
            if wide:
                sys.exit(f"build_pdf: {len(wide)} display equation(s) run past the printed column: {wide[:5]}")
            bar.update()
            if not page.evaluate(_PINNED_FIRST_PAGE):
                sys.exit("build_pdf: the book names no version and commit (no pinned footer: compendium/sphinx/citation.py)")
            # every page of the book (each h1 after the first) starts on a new sheet
            page.evaluate("() => document.querySelectorAll('h1').forEach((h, i) => { if (i > 0) h.style.breakBefore = 'page'; })")
            # tagged: the PDF carries the page's structure, and each image its alt text (/Alt)
            page.pdf(path=str(out), format="A4", print_background=True, prefer_css_page_size=True, tagged=True,
                     display_header_footer=True, header_template="<span></span>",
                     footer_template='<div style="font-size:8px;width:100%;text-align:center">'
                                     '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')
            bar.update()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="reuse _build/singlehtml")
    parser.add_argument("--out", type=Path, default=PDF)
    args = parser.parse_args(argv)
    if not args.no_build:
        build_single_html()
    path = print_pdf(args.out)
    print(f"written {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    html = ROOT / "_build" / "html"
    if html.is_dir() and args.out == PDF:     # published beside the web book
        shutil.copyfile(path, html / PDF.name)
        print(f"copied to _build/html/{PDF.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
