"""``{verdict-glance}``: the verdict at a glance, one row per paper (claims tested, hold, fail, could not
be tested here, the one-line why, links), computed by :func:`lib.report.glance`. The landing page opens
with it and the reproduction report opens with the same table (:func:`glance_lines`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.pages import root_of

#: The report's section of each paper (a label the glance table links to).
REPORT = "/book/reproduction-report"


def paper_label(key: str) -> str:
    return f"report-paper-{key.replace('_', '-')}"


def chapter_of(specs: Any, key: str) -> str | None:
    """The landing page of the chapter that reproduces a paper (the chapter registering most of its tables;
    the foundations' tables count only when no chapter registers one)."""
    counts = Counter(s.chapter for s in specs if s.paper == key)
    own = [c for c, _ in counts.most_common() if c != "00-foundations"]
    chapter = own[0] if own else next(iter(counts), None)
    if chapter is None:
        return None
    return "/book/foundations" if chapter == "00-foundations" else f"/book/{chapter}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def glance_lines(root: Any, env: Any, *, on_report: bool = False) -> list[str]:
    """The glance table in MyST, with its legend (the same lines on the landing page and the report)."""
    import lib.report as report

    specs = report.load_registry(root=root)
    env.note_dependency(str(root / report.REGISTRY))
    for path in sorted((root / report.REGISTRY_DIR).glob("*.yaml")):
        env.note_dependency(str(path))
    for spec in specs:
        env.note_dependency(str(root / "data" / "derived" / spec.csv))
    papers = report.load_papers(root=root)
    short = report.load_papers(root=root, short=True)
    table = report.glance(report.reproduction_report(specs, root=root), list(papers))
    lines = ["| paper | claims | hold | fail | untested | why |", "|---|---|---|---|---|---|"]
    for row in table.to_dict("records"):
        maths = row["nature"] == "mathematical"
        if row["paper"] == "all papers":
            name, chapter = ("**all papers, maths**" if maths else "**all papers**"), ""
        else:
            name = f"{{ref}}`{short[row['paper']]}{' (maths)' if maths else ''} <{paper_label(row['paper'])}>`"
            page = chapter_of(specs, row["paper"])
            chapter = f" · {{doc}}`chapter <{page}>`" if page and not maths else ""
        counts = [row["claims"], *(row[o] for o in report.OUTCOMES)]
        lines.append(f"| {name}{chapter} | " + " | ".join(str(int(c)) for c in counts) + f" | {_cell(row['why'])} |")
    lines += [
        "",
        "*Claims*: a sentence of a paper, or a published table. *Untested*: could not be tested here, for the "
        "reason given (the paper's tool version cannot be installed here, other hardware, data not public, a "
        "set-up the paper does not identify), never counted as a failure. *(maths)*: the paper's theorems and "
        "closed forms, checked against an independent computation, counted apart. Every count is computed from "
        "the stored results by `lib.report`"
        + ("; the evidence and the rules are below." if on_report else
           f"; the evidence and the rules are in the {{doc}}`reproduction report <{REPORT}>`."),
    ]
    return lines


class VerdictGlance(Directive):
    """The glance table (CSS class ``verdict-glance``), computed when the book is built."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        box = nodes.container(classes=["verdict-glance"])
        self.state.nested_parse(StringList(glance_lines(root_of(self), env), source=env.docname), 0, box)
        return [box]
