"""``{chapter-results} <paper key>``: a chapter's results box, what :mod:`compendium.report` found for one paper: the
same sentences as the landing page (:func:`compendium.report.findings`), then each claim with its outcome first and
the share of its evidence that agrees, linked to its section of the reproduction report. Every count is a
``{report-count}`` of :func:`compendium.report.counts`."""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.sphinx.glance import count, findings_lines, paper_label, report_data
from compendium.sphinx.pages import root_of
from compendium.sphinx.report import md, report_label


class ChapterResults(Directive):
    """A chapter's results box, generated from the registry: what the book found for one paper."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        import compendium.report as report

        root = root_of(self)
        env = self.state.document.settings.env
        key = self.arguments[0].strip()
        data = report_data(root, env)
        if key not in data["papers"]:
            raise self.error(f"chapter-results: unknown paper {key!r} (registry has {sorted(data['papers'])})")
        box = nodes.admonition(classes=["chapter-results", "tip"])
        box += nodes.title(text="What the book found")
        mine = data["claims"][data["claims"]["paper"] == key]
        if mine.empty:
            box += nodes.paragraph(text="No published number of this paper is compared yet.")
            return [box]
        tables = {s.table: s for s in data["specs"] if s.paper == key}
        evidence = data["evidence"]
        lines = findings_lines(root, env, [key], heading=False)
        lines += [f"Claim by claim, what fails first ({count(key, 'numbers')} published numbers and tested rows; "
                  f"{count(key, 'errata')} errata of the paper, on the {{doc}}`errata page </book/errata>`; the rules "
                  f"and the evidence: {{ref}}`the reproduction report <{paper_label(key)}>`):", ""]
        order = {report.FAILS: 0, report.UNTESTED: 1, report.SUBSTITUTE: 2, report.HOLDS: 3}
        ranked = mine.assign(_o=mine["outcome"].map(order)).sort_values(["nature", "_o"], ascending=[False, True],
                                                                        kind="stable")
        for claim in ranked.to_dict("records"):
            first = tables[evidence.loc[(evidence["paper"] == key) & (evidence["claim"] == claim["claim"]), "table"].iloc[0]]
            share = report.share(claim)
            if claim["outcome"] in report.SUBSTITUTE_OUTCOMES:
                share = f"on the substitute, {share} ({claim['reasons']})"
            maths = " (maths)" if claim["nature"] == "mathematical" else ""
            lines.append(f"- **{claim['outcome']}**{maths} · {md(claim['name'] or claim['claim'])} · {share} · "
                         f"{{ref}}`evidence <{report_label(first.csv)}>`")
        self.state.nested_parse(StringList(lines, source=env.docname), 0, box)
        return [box]
