"""``{reproduction-report}``: the reproduction report computed by :mod:`lib.report` from the stored
comparison tables in ``data/derived/`` and their registry."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.pages import pipe_table, root_of, section_node, slug


def report_label(csv: str) -> str:
    """The label of a comparison table's section on the reproduction report (for ``{ref}``)."""
    return f"report-{slug(csv)}"


_EVIDENCE_WORDS = {"tolerance": "spread", "cause": "cause"}


def _evidence_cell(evidence: str) -> str:
    """``tolerance:lab cause:lab2`` -> MyST links to the labelled cells."""
    links = []
    for token in str(evidence).split():
        kind, label = token.split(":", 1)
        links.append(f"{{ref}}`{_EVIDENCE_WORDS[kind]} <{label}>`")
    return ", ".join(links)


def _report_rows(rows: Any, kind: str) -> Any:
    import pandas as pd

    rows = rows.drop(columns=["paper", "table", "claim", "setup", "setup note", "cause"])
    if kind == "claims":
        rows = rows.drop(columns=["difference", "tolerance", "evidence"])
    else:
        rows = rows.assign(
            difference=pd.to_numeric(rows["difference"], errors="coerce").round(4),
            tolerance=pd.to_numeric(rows["tolerance"], errors="coerce").map(lambda t: f"{t:.3g}"),
            evidence=rows["evidence"].map(_evidence_cell),
        )
        if not (rows["evidence"] != "").any():
            rows = rows.drop(columns=["evidence"])
    if not (rows["note"] != "").any():
        rows = rows.drop(columns=["note"])
    return rows


def tally(statuses: Any, classes: Any) -> str:
    n = statuses.value_counts()
    return ", ".join(f"{n.get(s, 0)} {s}" for s in classes if n.get(s, 0)) or "nothing compared"


class ReproductionReport(Directive):
    """Renders lib.report's report: counts per paper, then each table's numbers with evidence."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import lib.report as report

        root = root_of(self)
        env = self.state.document.settings.env
        specs = report.load_registry(root=root)
        env.note_dependency(str(root / report.REGISTRY))
        for path in sorted((root / report.REGISTRY_DIR).glob("*.yaml")):
            env.note_dependency(str(path))
        table = report.reproduction_report(specs, root=root)
        papers = report.load_papers(root=root)
        counts = report.summary(table, list(papers))
        out: list[nodes.Node] = []

        claim_counts = report.claim_summary(table, list(papers))
        section = section_node("Counts per paper", "counts-per-paper")

        def named(frame: Any) -> Any:
            frame = frame.reset_index()
            frame["paper"] = [p if p == "all papers" else f"{papers[p]} {{cite:p}}`{p}`" for p in frame["paper"]]
            return frame

        lines = [
            "**Claims.** A claim is one sentence of a paper, or one published table (the message a "
            "sentence of the paper relies on); it takes the worst verdict of the numbers that test it, "
            "so it holds only where all of them do. The last column counts the claims that could not be "
            "tested as the paper did — on a set-up we had to choose, or with another version of the "
            "paper's tool — which can be consistent at most (each table below says why).",
            "",
            *pipe_table(named(claim_counts)),
            "",
            "**Numbers.** Every published number or tested row, each with its own verdict; the "
            "derivation checks (identities, consequences of the book's own definitions: they cannot "
            "fail) and the papers' errata in claims tables are counted apart and in no verdict.",
            "",
            *pipe_table(named(counts)),
        ]
        self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
        out.append(section)

        found = report.causes(table)
        demonstrated = found[found["kind"] == "demonstrated cause of a deviation"]
        setups = found[found["kind"] != "demonstrated cause of a deviation"]
        section = section_node("Causes, each counted once", "causes-counted-once")
        lines = [
            f"Many numbers can share one cause, and one cause is one finding. The "
            f"{int(demonstrated['numbers'].sum())} explained deviations come from {len(demonstrated)} "
            f"demonstrated cause{'s' if len(demonstrated) != 1 else ''}; the "
            f"{int(setups['claims'].sum())} claims tested on a set-up that is not the paper's rest on "
            f"{len(setups)} distinct differences of set-up, each stated once below with the claims and "
            "numbers it touches.",
            "",
            *pipe_table(found.drop(columns=["papers"])),
        ]
        self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
        out.append(section)

        for spec in specs:
            env.note_dependency(str(root / "data" / "derived" / spec.csv))
            everything = table[table["table"] == spec.table]
            rows = everything[~everything["status"].isin(report.APART)]
            checks = everything[everything["status"] == report.DERIVATION]
            errata = everything[everything["status"] == report.ERRATUM]
            setup = {
                "identified": "the paper's set-up is identified",
                "guessed": f"**set-up guessed**: {spec.setup_note.strip()}",
                "model-differs": f"**the model is not the paper's**: {spec.setup_note.strip()}",
            }[spec.setup]
            if spec.kind == "claims":
                rule = ("claims: reproduced when they hold on our numbers, contradicted otherwise"
                        if spec.setup == "identified" else
                        "claims: consistent when they hold on our numbers, not reproduced otherwise")
            elif spec.tolerance is not None and spec.tolerance.rule == "last-digit":
                rule = "tolerance: one unit of the paper's last printed digit (a deterministic quantity)"
            else:
                assert spec.tolerance is not None
                rule = (
                    f"tolerance: from the {{ref}}`measured spread <{spec.tolerance.cell}>` "
                    f"(`data/derived/{spec.tolerance.source.csv}`)"
                )
            section = section_node(spec.table, report_label(spec.csv))
            section["names"].append(report_label(spec.csv))
            self.state.document.note_explicit_target(section, section)  # a label {ref} can name
            lines = [
                f"{papers[spec.paper]} {{cite:p}}`{spec.paper}`, shown in {{doc}}`/{spec.shown_in}`; "
                f"stored in `data/derived/{spec.csv}`; {setup}; {rule}. "
                f"{tally(rows['status'], report.STATUSES)}"
                + (f"; {len(checks)} derivation check{'s' if len(checks) != 1 else ''}, not counted" if len(checks) else "")
                + (f"; {len(errata)} errat{'a' if len(errata) != 1 else 'um'} of the paper, not counted" if len(errata) else "")
                + ".",
                "",
            ]
            if len(rows):
                lines += [*pipe_table(_report_rows(rows, spec.kind)), ""]
            if len(checks):
                lines += ["Derivation checks (they cannot fail; shown for the reader, never counted):", "",
                          *pipe_table(_report_rows(checks, "claims").drop(columns=["status"])), ""]
            if len(errata):
                lines += ["Errata of the paper (what the paper states, and what proves it wrong; also on the "
                          "{doc}`errata page </book/errata>`; never counted):", "",
                          *pipe_table(_report_rows(errata, "claims").drop(columns=["status"])), ""]
            self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
            out.append(section)
        return out
