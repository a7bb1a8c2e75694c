"""``{chapter-results} <paper key>``: a chapter's results box, the verdicts of :mod:`lib.report` for one
paper, table by table."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.pages import cell_text, root_of
from compendium.report import report_label, tally


def causes_sentence(found: Any) -> str:
    """The chapter box's clause on causes: explained deviations per demonstrated cause, set-ups not the paper's."""
    parts = []
    demonstrated = found[found["kind"] == "demonstrated cause of a deviation"]
    setups = found[found["kind"] != "demonstrated cause of a deviation"]
    if len(demonstrated):
        n = int(demonstrated["numbers"].sum())
        k = len(demonstrated)
        parts.append("the explained deviation has one demonstrated cause" if n == 1 else
                     f"the {n} explained deviations come from {k} demonstrated cause{'s' if k != 1 else ''}")
    if len(setups):
        n = int(setups["claims"].sum())
        parts.append(f"{n} claim{'s' if n != 1 else ''} could not be tested on the paper's own set-up, for "
                     f"{len(setups)} distinct reason{'s' if len(setups) != 1 else ''}")
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
        table = report.reproduction_report(specs, root=root)
        claim_table = report.claims(table)
        scored = table[~table["status"].isin(report.APART)]
        n_checks = int((table["status"] == report.DERIVATION).sum())
        n_errata = int((table["status"] == report.ERRATUM).sum())
        lines = [
            f"Of the {len(claim_table)} claims of the paper that this chapter tests (a sentence, or a "
            f"published table): {tally(claim_table['status'], report.STATUSES)}; a claim holds only "
            f"where all its numbers do. Number by number, of {len(scored)}: "
            f"{tally(scored['status'], report.STATUSES)}"
            + (f"; besides, {n_checks} derivation check{'s' if n_checks != 1 else ''} (identities, never counted)"
               if n_checks else "")
            + (f"; {n_errata} errat{'a' if n_errata != 1 else 'um'} of the paper, shown apart" if n_errata else "")
            + causes_sentence(report.causes(table))
            + f" (classes and evidence: {{doc}}`/book/reproduction-report`).",
            "",
            "| table or figure | " + " | ".join(report.STATUSES) + " |",
            "|---|" + "---|" * len(report.STATUSES),
        ]
        for spec in specs:
            env.note_dependency(str(root / "data" / "derived" / spec.csv))
            n = table.loc[table["table"] == spec.table, "status"].value_counts()
            cells = " | ".join(str(n.get(s, 0)) for s in report.STATUSES)
            title = cell_text(spec.table).replace("<", "&lt;").replace("`", "'")
            lines.append(f"| {{ref}}`{title} <{report_label(spec.csv)}>` | {cells} |")
        self.state.nested_parse(StringList(lines, source=env.docname), 0, box)
        return [box]
