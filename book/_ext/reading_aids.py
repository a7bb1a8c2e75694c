"""Marks that make a page read at a glance, on a desk as on a phone.

- **Verdicts stand out.** A table cell that holds exactly one of the reproduction report's
  classes (``lib.report.STATUSES``: "reproduced", "consistent", "explained deviation", "not
  reproduced", "contradicted") or one of the rows kept apart ("derivation check", "erratum")
  gets the classes ``verdict verdict-<class>`` (``verdict-not-reproduced``…), which
  ``book/_static/compendium.css`` colours. The cells are found in the page's HTML, so the
  tables pandas prints in the notebooks' outputs are marked as well as the report's.
- **A paper's number says so on touch.** The ``{paper}`` role's ``abbr.paper-number`` explains
  itself in its ``title``, which a mouse shows on hover and a touch screen never does:
  ``book/_static/reading.js`` makes each one a button that shows the note after the
  number when tapped (or pressed with Enter or Space), and the stylesheet marks it visibly.
"""

from __future__ import annotations

import re
from typing import Any

from lib.report import APART, STATUSES

#: the words a verdict cell may hold, longest first (so "not reproduced" is not read as "reproduced")
VERDICTS = tuple(sorted(STATUSES + APART, key=len, reverse=True))

_CELL = re.compile(
    r"<td(?P<attrs>\s[^>]*)?>(?P<open>\s*(?:<p>)?\s*)(?P<word>"
    + "|".join(re.escape(v) for v in VERDICTS)
    + r")(?P<close>\s*(?:</p>)?\s*)</td>"
)


def verdict_class(word: str) -> str:
    """``verdict verdict-<word with hyphens>``: the classes of a cell holding a verdict."""
    return "verdict verdict-" + re.sub(r"[^a-z]+", "-", word.lower()).strip("-")


def _mark(match: re.Match[str]) -> str:
    attrs = match["attrs"] or ""
    classes = verdict_class(match["word"])
    existing = re.search(r'\bclass="([^"]*)"', attrs)
    if existing:
        attrs = attrs.replace(existing[0], f'class="{existing[1]} {classes}"')
    else:
        attrs += f' class="{classes}"'
    return f"<td{attrs}>{match['open']}{match['word']}{match['close']}</td>"


def mark_verdicts(body: str) -> str:
    """``body`` with every table cell holding exactly a verdict word marked :func:`verdict_class`."""
    return _CELL.sub(_mark, body)


def _fix_body(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if "body" in context and "<td" in context["body"]:
        context["body"] = mark_verdicts(context["body"])


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _fix_body)
    app.add_js_file("reading.js", loading_method="defer")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
