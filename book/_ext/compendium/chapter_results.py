"""``{chapter-results} <paper key>``: a chapter's results box, the outcomes of :mod:`lib.report` for one
paper, claim by claim (the same outcomes, shares and reasons as the reproduction report)."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.glance import paper_label
from compendium.pages import root_of
from compendium.report import cell, outcome_words, plural, report_label, share, tally


def causes_sentence(found: Any) -> str:
    """The chapter box's clause on causes: explained deviations per demonstrated cause, set-ups not the paper's."""
    parts = []
    demonstrated = found[found["kind"] == "demonstrated cause of a deviation"]
    setups = found[found["kind"] != "demonstrated cause of a deviation"]
    if len(demonstrated):
        n = int(demonstrated["numbers"].sum())
        k = len(demonstrated)
        parts.append("the explained deviation has one demonstrated cause" if n == 1 else
                     f"the {n} explained deviations come from {plural(k, 'demonstrated cause')}")
    if len(setups):
        parts.append(f"{plural(len(setups), 'set-up is', 'set-ups are')} not the paper's own "
                     f"({', '.join(dict.fromkeys(setups['reason']))})")
    return ("; " + " and ".join(parts)) if parts else ""


class ChapterResults(Directive):
    """A chapter's results box, generated from the registry: what the book found for one paper."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        import lib.report as report

        root = root_of(self)
        env = self.state.document.settings.env
        key = self.arguments[0].strip()
        papers = report.load_papers(root=root)
        if key not in papers:
            raise self.error(f"chapter-results: unknown paper {key!r} (registry has {sorted(papers)})")
        specs = [s for s in report.load_registry(root=root) if s.paper == key]
        for path in sorted((root / report.REGISTRY_DIR).glob("*.yaml")):
            env.note_dependency(str(path))
        box = nodes.admonition(classes=["chapter-results", "tip"])
        box += nodes.title(text="What the book found")
        if not specs:
            box += nodes.paragraph(text="No published number of this paper is compared yet.")
            return [box]
        for spec in specs:
            env.note_dependency(str(root / "data" / "derived" / spec.csv))
        table = report.reproduction_report(specs, root=root)
        claims = report.claims(table)
        evidence = report.evidence(table)
        kinds = {s.table: s for s in specs}
        scored = table[~table["status"].isin(report.APART)]
        n_checks = int((table["status"] == report.DERIVATION).sum())
        n_errata = int((table["status"] == report.ERRATUM).sum())
        empirical = claims[claims["nature"] == "empirical"]
        maths = claims[claims["nature"] == "mathematical"]
        lines = [
            f"Of the {plural(len(empirical), 'claim')} of the paper tested here (a sentence, or a published table): "
            f"{outcome_words(empirical['outcome'])}"
            + (f"; of its {plural(len(maths), 'mathematical claim')}, checked against an independent computation: "
               f"{outcome_words(maths['outcome'])}" if len(maths) else "")
            + f". Number by number, of {len(scored)}: {tally(scored['status'], report.STATUSES)}"
            + (f"; besides, {plural(n_checks, 'derivation check')} (never counted)" if n_checks else "")
            + (f"; {plural(n_errata, 'erratum', 'errata')} of the paper, shown apart" if n_errata else "")
            + causes_sentence(report.causes(table))
            + f" (the rules and the evidence: {{ref}}`the reproduction report <{paper_label(key)}>`).",
            "",
        ]
        for claim in claims.to_dict("records"):
            under = evidence[evidence["claim"] == claim["claim"]]
            numeric = all(kinds[t].kind == "numeric" for t in under["table"])
            first = kinds[under["table"].iloc[0]]
            said = cell(claim["claim"]).replace("`", "'") if numeric else f"“{cell(claim['claim']).replace('`', chr(39))}”"
            where = f" ({cell(claim['where'])})" if claim["where"] and not numeric else ""
            why = f" ({claim['reasons']})" if claim["outcome"] == report.UNTESTED else ""
            maths_mark = " (maths)" if claim["nature"] == "mathematical" else ""
            lines.append(f"- **{claim['outcome']}**{why}{maths_mark}, {share(claim, numeric)}: "
                         f"{{ref}}`{said.replace('<', '&lt;')} <{report_label(first.csv)}>`{where}")
        self.state.nested_parse(StringList(lines, source=env.docname), 0, box)
        return [box]
