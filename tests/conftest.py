"""Print the accessibility report of the browser test at the end of the run.

``browser/test_rendered_book.py`` writes ``_build/accessibility.txt`` (axe-core's violations counted by
impact and rule; serious and critical ones fail the test, the others are only counted). The
report is printed in pytest's summary, also when the test ran in a pytest-xdist worker.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

REPORT = Path(__file__).resolve().parents[1] / "_build" / "accessibility.txt"
_START = time.time()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if REPORT.is_file() and REPORT.stat().st_mtime >= _START:
        terminalreporter.write_sep("-", "accessibility (axe-core)")
        terminalreporter.write(REPORT.read_text(encoding="utf-8"))
