"""The book as one PDF (``python tools/build_pdf.py``): built from the same sources, checked as
a reader would open it — pages rendered to images (``pdftoppm``), text extracted (``pdftotext``).

Needs Debian's chromium and poppler-utils (``.ci/run`` installs both); without them the test is
skipped, except in CI.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
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
