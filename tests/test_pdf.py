"""The book as one PDF (``python tools/build_pdf.py``): built from the same sources, checked as
a reader would open it — pages rendered to images (``pdftoppm``), text extracted (``pdftotext``),
with the position of every word (``pdftotext -bbox-layout``), and the figures' alternative text
read from the tagged PDF's structure.

Needs Debian's chromium and poppler-utils (``.ci/run`` installs both); without them the test is
skipped, except in CI.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "_build" / "pdf" / "shapley-compendium.pdf"


@pytest.fixture(scope="module")
def pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    missing = [t for t in ("chromium", "pdftoppm", "pdftotext", "pdfinfo") if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} not installed; .ci/run installs chromium and poppler-utils")
        pytest.skip(f"{missing} not installed (apt-get install chromium poppler-utils)")
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "build_pdf.py")], cwd=ROOT,
                         capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert PDF.is_file()
    return PDF


def _pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def test_the_pdf_holds_the_whole_book(pdf: Path) -> None:
    assert _pages(pdf) >= 200
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    # every part of the book, the back matter and the bibliography
    for words in ("Foundations", "Shapley compositions", "Same-decision probability", "Typical-value",
                  "Coalitional explanations", "Reproduction report", "Errata", "How to cite",
                  "Lemaire", "Ferrettini", "Noé"):
        assert words in text, f"{words!r} is not in the PDF"
    # equations are typeset (MathJax writes φ as a glyph), not left as TeX source (code cells may
    # hold TeX in strings, so only display-math source is looked for)
    assert text.count("φ") >= 10
    for tex in ("$$", r"\begin{aligned}", r"\tag{"):
        assert tex not in text, f"untypeset TeX ({tex}) in the PDF"
    images = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True).stdout
    assert len(images.splitlines()) - 2 >= 40, "the figures are missing"


def test_the_first_page_names_version_commit_and_build_date(pdf: Path) -> None:
    """As every web page's footer (compendium/sphinx/citation.py): the PDF is pinned to what built it."""
    import tomllib

    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout
    flat = " ".join(first.split())
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    match = re.search(r"Version (\S+?)(?: \(release \S+\))?, built on (\d{4}-\d{2}-\d{2}) from commit ([0-9a-f]{40})", flat)
    assert match, f"the first page does not name version, build date and commit: {flat[:300]!r}"
    assert match[1] == version
    known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{match[3]}^{{commit}}"], capture_output=True)
    assert known.returncode == 0, f"the PDF names commit {match[3]}, which this repository does not have"


def test_no_page_is_blank(pdf: Path, tmp_path: Path) -> None:
    subprocess.run(["pdftoppm", "-r", "12", "-gray", "-png", str(pdf), str(tmp_path / "p")], check=True)
    blank = []
    for png in sorted(tmp_path.glob("p-*.png")):
        page = np.asarray(Image.open(png).convert("L"), dtype=float)
        body = page[: int(page.shape[0] * 0.93)]          # above the page number
        if (body < 200).mean() < 0.002:
            blank.append(png.name)
    assert len(list(tmp_path.glob("p-*.png"))) == _pages(pdf)
    assert not blank, f"blank pages: {blank}"


# ---------------------------------------------------------------------------- long equations
_BOX = r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)"'
EQNO = re.compile(r"\((?:\d+\.\d+|[A-Z]\d+(?:\.\d+)*[a-z]?)\)")


class Word:
    def __init__(self, box: tuple[str, ...], text: str) -> None:
        self.x0, self.y0, self.x1, self.y1 = (float(v) for v in box)
        self.text = html.unescape(text)

    @property
    def y(self) -> float:
        return (self.y0 + self.y1) / 2


def _layout(pdf: Path) -> list[list[list[Word]]]:
    """Every page of the PDF as its text lines, each a list of words with their boxes (points)."""
    out = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = []
    for page in re.findall(r"<page\b.*?</page>", out, flags=re.S):
        lines = []
        for line in re.findall(r"<line\b.*?</line>", page, flags=re.S):
            lines.append([Word(m[:4], m[4]) for m in re.findall(rf"<word {_BOX}>(.*?)</word>", line)])
        pages.append([line for line in lines if line])
    return pages


@pytest.fixture(scope="module")
def layout(pdf: Path) -> list[list[list[Word]]]:
    return _layout(pdf)


# Long display equations of the book: (number, the end of the prose line before it, the start of
# the prose line after it, its first glyph, its last glyph on the main line, whether it is wider
# than the printed column on one line and so must break, as the web book breaks it on a phone).
# MathJax writes each glyph as one word of the PDF's text.
LONG_EQUATIONS = [
    # v^do_x(T) = h(E_do(...)[P(Y=1|X_A)]) = h(P(Y=1|do(X_T=x_T))), T ⊆ A: 656 px on one line,
    # the column is 600 px
    ("(3.10)", "probabilities, and", "because", "\U0001d463", "\u2286", True),
    # the widest one that fits on one line: P(y|x) = ... , P(x) = sum_y' P(y') prod_i P(x_i|y')
    ("(4.1)", "class) gives", "Marginalising", "\U0001d443", ").", False),
    # eqs. (4.4)-(4.5), which break on a 400 px phone; (4.4) is written on two aligned lines (its
    # definition, then its value), on paper as on a phone
    ("(4.4)", "ratio is", "Substituting", "\U0001d45d", ".", True),
    ("(4.5)", "eq. (4.1):", "and", "\U0001d443", ",", False),
]


def _right_edge(pages: list[list[list[Word]]]) -> float:
    """The text column's right edge: where the equation numbers end (they are set flush right)."""
    rights = Counter(round(w.x1, 1) for page in pages for line in page for w in line if EQNO.fullmatch(w.text))
    (right, count), = rights.most_common(1)
    assert count >= 20, f"the equation numbers do not share a right edge: {rights.most_common(3)}"
    return right


def _equation(pages: list[list[list[Word]]], right: float, number: str, before: str, after: str
              ) -> tuple[int, float, list[Word]]:
    """The page of the display equation numbered ``number``, the left edge of the text column
    there (where the paragraph after it starts) and the equation's glyphs: the words between the
    prose line ending ``before`` above it and the one starting ``after`` below it."""
    found = [(i, w) for i, page in enumerate(pages) for line in page for w in line
             if w.text == number and abs(w.x1 - right) < 0.5]
    assert len(found) == 1, f"equation {number}: {len(found)} flush-right numbers in the PDF"
    index, eqno = found[0]
    texts = [(" ".join(w.text for w in line), line) for line in pages[index]]
    above = [line for text, line in texts if before in text and max(w.y1 for w in line) < eqno.y1 - 1]
    below = [line for text, line in texts if text.startswith(after) and min(w.y0 for w in line) > eqno.y0]
    top = max((max(w.y1 for w in line) for line in above), default=0.0)
    if below:
        bottom = min(min(w.y0 for w in line) for line in below)
    else:
        # the equation ends its page: the paragraph after it starts the next page, and the
        # equation's glyphs end above this page's footer (its page number, "N / M")
        footer = [line for text, line in texts if re.fullmatch(r"\d+ / \d+", text)]
        assert footer, f"equation {number}: no line starting {after!r} below it and no page number"
        bottom = min(w.y0 for w in footer[-1])
        below = [line for line in pages[index + 1] if " ".join(w.text for w in line).startswith(after)][:1]
        assert below, f"equation {number}: no line starting {after!r} below it on its page or the next"
    glyphs = [w for _, line in texts for w in line if top < w.y < bottom and w is not eqno]
    return index, min(line[0].x0 for line in below), glyphs


@pytest.mark.parametrize("number, before, after, first, last, breaks", LONG_EQUATIONS, ids=[e[0] for e in LONG_EQUATIONS])
def test_long_equations_stay_inside_the_text_column(
    layout: list[list[list[Word]]], number: str, before: str, after: str, first: str, last: str, breaks: bool
) -> None:
    right = _right_edge(layout)
    index, left, glyphs = _equation(layout, right, number, before, after)
    where = f"equation {number} (page {index + 1})"
    assert len(glyphs) >= 10, f"{where}: {len(glyphs)} glyphs between its surrounding lines"
    outside = [f"{w.text}@{w.x0:.0f}-{w.x1:.0f}" for w in glyphs if w.x1 > right + 0.5 or w.x0 < left - 0.5]
    assert not outside, f"{where} runs past the text column ({left:.0f}-{right:.0f} pt): {outside}"
    starts, ends = [w for w in glyphs if w.text == first], [w for w in glyphs if w.text == last]
    assert starts and ends, f"{where}: its first glyph {first!r} or its last {last!r} is not printed"
    start = min(starts, key=lambda w: (w.x0, w.y0))
    if breaks:
        # too wide for one line of the column: it goes on below, as on a phone
        end = max(ends, key=lambda w: w.y0)
        assert end.y0 > start.y1, f"{where} is not broken into lines"
    else:
        end = max(ends, key=lambda w: w.x1)
        assert end.x0 > start.x1 and start.y0 - 2 < end.y < start.y1 + 2, f"{where} is broken although it fits"


# ---------------------------------------------------------------------------- alternative text
ALT_HEX = re.compile(rb"/Alt\s*<([0-9A-Fa-f\s]*)>")
ALT_LITERAL = re.compile(rb"/Alt\s*\(((?:\\.|[^\\()])*)\)")


def _alt_texts(pdf: Path) -> list[str]:
    """The /Alt entries of the PDF's structure elements (Chromium writes them as UTF-16 hex strings)."""
    raw = pdf.read_bytes()
    texts = []
    for m in ALT_HEX.finditer(raw):
        data = bytes.fromhex(re.sub(rb"\s", b"", m[1]).decode())
        texts.append(data[2:].decode("utf-16-be") if data[:2] == b"\xfe\xff" else data.decode("latin-1"))
    for m in ALT_LITERAL.finditer(raw):
        texts.append(re.sub(rb"\\(.)", rb"\1", m[1]).decode("latin-1"))
    return [" ".join(t.split()) for t in texts]


# Two figures (chapter 0), by the description they were saved with (compendium.plotting.save_figure)
DESCRIBED = ["found-waterfall", "found-sampling-convergence"]


def test_the_figures_carry_their_description_as_alt_text(pdf: Path) -> None:
    from compendium.plotting import FIGURE_DIR

    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"^Tagged:\s+yes", info, re.M), "the PDF is not tagged"
    alts = _alt_texts(pdf)
    for name in DESCRIBED:
        with Image.open(FIGURE_DIR / f"{name}.png") as png:
            description = " ".join(png.text["Description"].split())
        # in the chapter and on the Figures page
        assert alts.count(description) >= 2, f"{name}: its description is the /Alt of {alts.count(description)} image(s)"
    assert len(alts) >= 2 * len(list(FIGURE_DIR.glob("*.png")))
