"""``{reproduction-report}``: the reproduction report computed by :mod:`lib.report` from the stored
comparison tables in ``data/derived/`` and their registry.

The page a reviewer reads in ten seconds: the glance table (:mod:`compendium.glance`, the same as the
landing page's), one line on errata and explained deviations (the same words and counts as the errata
page), then one folded section per paper (its claims with their outcome and share, the reasons it could
not test some, written once, its derivation checks and errata, and its evidence table by table, folded
again), and the rules and the number-level counts folded at the end."""

from __future__ import annotations

import math
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.glance import chapter_of, glance_lines, paper_label
from compendium.pages import root_of, slug


def report_label(csv: str) -> str:
    """The label of a comparison table's evidence on the reproduction report (for ``{ref}``)."""
    return f"report-{slug(csv)}"


_EVIDENCE_WORDS = {"tolerance": "spread", "cause": "cause"}


def human(value: Any, digits: int = 4) -> str:
    """A number as people write it: ``48,842``, ``0.9421``, ``0.0001``, never ``4.884e+04``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(x):
        return ""
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    if abs(x) >= 1e4:
        return f"{x:,.1f}"
    if abs(x) >= 1e-4:
        text = f"{x:.{digits}g}"
        return f"{x:.6f}".rstrip("0") if "e" in text else text
    return f"{x:.1e}"


def cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _evidence_cell(evidence: str) -> str:
    """``tolerance:lab cause:lab2`` -> MyST links to the labelled cells."""
    links = []
    for token in str(evidence).split():
        kind, label = token.split(":", 1)
        links.append(f"{{ref}}`{_EVIDENCE_WORDS[kind]} <{label}>`")
    return ", ".join(links)


def tally(statuses: Any, classes: Any) -> str:
    n = statuses.value_counts()
    return ", ".join(f"{n.get(s, 0)} {s}" for s in classes if n.get(s, 0)) or "nothing compared"


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def outcome_words(outcomes: Any) -> str:
    """``2 hold, 1 fails, 5 untested``: a paper's claims by outcome, as its folded section's title."""
    import lib.report as report

    n = outcomes.value_counts()
    words = {report.HOLDS: ("holds", "hold"), report.FAILS: ("fails", "fail"), report.UNTESTED: ("untested", "untested")}
    parts = [f"{int(n[o])} {words[o][0] if n[o] == 1 else words[o][1]}" for o in report.OUTCOMES if n.get(o, 0)]
    return ", ".join(parts) or "no claim tested"


def share(claim: dict[str, Any], numeric: bool) -> str:
    """``37/40 within tolerance, 1 explained`` or ``2/3 rows hold``: always beside an outcome."""
    what = "within tolerance" if numeric else ("rows hold" if claim["numbers"] > 1 else "row holds")
    text = f"{claim['agree']}/{claim['numbers']} {what}"
    return text + (f", {claim['explained']} explained" if claim["explained"] else "")


def threshold_text(t: dict[str, Any]) -> str:
    low, high = t["low"], t["high"]
    span = (f"from {human(low)} to {human(high)}" if math.isfinite(low) and math.isfinite(high) else
            f"at {human(low)} and above" if math.isfinite(low) else
            f"below {human(high)}" if math.isfinite(high) else "at any value")
    flips = "it flips within a factor of two" if t["flips_within_2"] else "it does not flip within a factor of two"
    if t.get("a_row_flips_within_2") and not t["flips_within_2"]:
        flips += " (the verdict of one of its rows does)"
    return f"threshold of ours, {t['threshold']}, t = {human(t['value'])}: the outcome stands for t {span}; {flips}"


def numbered_notes(rows: Any, setup_note: str) -> tuple[list[str], list[str]]:
    """Each distinct note of a table once (``n1``, ``n2``, ...): the column's cells and the list below it."""
    notes: dict[str, str] = {}
    cells = []
    for note in rows["note"]:
        parts = [p for p in str(note).split("\n") if p and p != setup_note]
        refs = []
        for part in parts:
            notes.setdefault(part, f"n{len(notes) + 1}")
            refs.append(notes[part])
        cells.append(", ".join(refs))
    return cells, [f"- {label}: {cell(text)}" for text, label in notes.items()]


def evidence_lines(spec: Any, rows: Any, apart: Any, reasons: dict[str, str]) -> list[str]:
    """One table's evidence, folded: where it is stored and shown, how it is judged, its rows."""
    import pandas as pd

    import lib.report as report

    if spec.setup == "identified":
        setup = "the paper's set-up is identified"
    else:
        setup = f"set-up: {reasons[spec.setup_note.strip()]} ({spec.reason})"
    if spec.kind == "claims":
        rule = "claims: a row holds or not, computed from our numbers"
    elif spec.tolerance is not None and spec.tolerance.rule == "last-digit":
        rule = "tolerance: one unit of the paper's last printed digit (a deterministic quantity)"
    else:
        rule = (f"tolerance: from the {{ref}}`measured spread <{spec.tolerance.cell}>` "
                f"(`data/derived/{spec.tolerance.source.csv}`)")
    title = f"{cell(spec.table)} — {tally(rows['status'], report.STATUSES)}"
    lines = [f"({report_label(spec.csv)})=", f"```{{dropdown}} {title}",
             f"Shown in {{doc}}`/{spec.shown_in}`, stored in `data/derived/{spec.csv}`; {setup}; {rule}.", ""]
    notes, listed = numbered_notes(rows, spec.setup_note.strip())
    if len(rows) and spec.kind == "claims":
        shown = pd.DataFrame({"test": rows["item"], "ours": rows["ours"], "status": rows["status"]})
    elif len(rows):
        if spec.tolerance is not None and spec.tolerance.rule == "last-digit":  # the paper's digits, as printed
            def printed(x: Any, tol: Any) -> str:
                decimals = max(0, round(-math.log10(float(tol)))) if float(tol) > 0 else 0
                return f"{float(x):,.{decimals}f}"
            paper = [printed(x, t) for x, t in zip(rows["paper value"], rows["tolerance"])]
        else:
            paper = rows["paper value"].map(human)
        shown = pd.DataFrame({
            "item": rows["item"], "paper": paper, "ours": rows["ours"].map(human),
            "difference": pd.to_numeric(rows["difference"], errors="coerce").round(4).map(human),
            "tolerance": rows["tolerance"].map(lambda t: human(t, 3)), "status": rows["status"],
            "evidence": rows["evidence"].map(_evidence_cell)})
        if not (shown["evidence"] != "").any():
            shown = shown.drop(columns=["evidence"])
    if len(rows):
        if any(notes):
            shown["note"] = notes
        lines += ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns)]
        lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in shown.itertuples(index=False)]
        lines += ["", *listed, ""]
    if len(apart):
        lines += ["Shown apart, never counted (derivation checks and errata):", ""]
        lines += [f"- {cell(i)} — *{s}*: {cell(n)}" for i, s, n in zip(apart["item"], apart["status"], apart["note"])]
        lines.append("")
    return lines + ["```", ""]


class ReproductionReport(Directive):
    """Renders lib.report's report: the glance table, one folded section per paper, the rules."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import lib.report as report
        from compendium.errata import counts as errata_counts

        root = root_of(self)
        env = self.state.document.settings.env
        specs = report.load_registry(root=root)
        table = report.reproduction_report(specs, root=root)
        papers = report.load_papers(root=root)
        short = report.load_papers(root=root, short=True)
        claims = report.claims(table)
        evidence = report.evidence(table)
        n_errata, n_explained, n_causes = errata_counts(root, env)
        scored = table[~table["status"].isin(report.APART)]
        out: list[nodes.Node] = []

        box = nodes.container(classes=["verdict-glance"])
        self.state.nested_parse(StringList(glance_lines(root, env, on_report=True), source=env.docname), 0, box)
        out.append(box)
        lines = [
            f"Underneath the claims, {plural(len(scored), 'published number or tested row', 'published numbers and tested rows')}; "
            f"{plural(n_explained, 'explained deviation')} from {plural(n_causes, 'demonstrated cause')}, and "
            f"{plural(n_errata, 'erratum', 'errata')} stated in the chapters, are on the {{doc}}`errata page </book/errata>`. "
            "Open a paper below for its claims, the reasons written once, and the evidence table by table.",
            "",
        ]
        for key, name in papers.items():
            lines += self.paper_lines(key, name, short[key], specs, table, claims, evidence)
        lines += self.rules_lines(table, papers, short)
        wrapper = nodes.container(classes=["reproduction-report"])
        self.state.nested_parse(StringList(lines, source=env.docname), 0, wrapper)
        out.append(wrapper)
        return out

    def paper_lines(self, key: str, name: str, short: str, specs: Any, table: Any, claims: Any, evidence: Any) -> list[str]:
        import lib.report as report

        mine_specs = [s for s in specs if s.paper == key]
        mine = claims[claims["paper"] == key]
        maths = mine[mine["nature"] == "mathematical"]
        title = f"{short}: {outcome_words(mine.loc[mine['nature'] == 'empirical', 'outcome'])}" + (
            f"; maths: {outcome_words(maths['outcome'])}" if len(maths) else "")
        reasons: dict[str, str] = {}
        for spec in mine_specs:
            if spec.setup != "identified":
                reasons.setdefault(spec.setup_note.strip(), f"R{len(reasons) + 1}")
        tables_of = {s.table: s for s in mine_specs}
        page = chapter_of(specs, key)
        lines = [f"({paper_label(key)})=", f"````{{dropdown}} {cell(title)}",
                 f"{cell(name)} {{cite:p}}`{key}`" + (f", reproduced in {{doc}}`this chapter <{page}>`." if page else "."), ""]
        for nature, heading in (("empirical", "Claims"), ("mathematical", "Mathematical claims, checked against an "
                                                                             "independent computation")):
            group = mine[mine["nature"] == nature]
            if group.empty:
                continue
            lines += [f"**{heading}**", ""]
            for i, claim in enumerate(group.to_dict("records"), start=1):
                under = evidence[(evidence["paper"] == key) & (evidence["claim"] == claim["claim"])]
                numeric = all(tables_of[t].kind == "numeric" for t in under["table"])
                said = cell(claim["claim"]) if numeric else f"“{cell(claim['claim'])}”"
                where = f" ({cell(claim['where'])})" if claim["where"] and not numeric else ""
                why = ""
                if claim["outcome"] == report.UNTESTED:
                    refs = sorted({reasons[tables_of[t].setup_note.strip()] for t, s in zip(under["table"], under["setup"])
                                   if s != "identified"})
                    why = f" ({', '.join(refs)}: {claim['reasons']})"
                links = "; ".join(
                    f"{{ref}}`{cell(t.split(':')[0])} <{report_label(tables_of[t].csv)}>` ({n}: {a} agree)"
                    for t, n, a in zip(under["table"], under["numbers"], under["agree"]))
                lines.append(f"{i}. **{claim['outcome']}**{why} · {share(claim, numeric)} · {said}{where} · evidence: {links}")
                for t in claim["thresholds"]:
                    lines.append(f"   — {cell(threshold_text(t))}")
            lines.append("")
        if reasons:
            lines += ["**Why some claims could not be tested here** (each reason once)", ""]
            lines += [f"- {label} ({next(s.reason for s in mine_specs if s.setup_note.strip() == note)}): {cell(note)}"
                      for note, label in reasons.items()]
            lines.append("")
        lines += ["**The evidence, table by table**", ""]
        for spec in mine_specs:
            everything = table[table["table"] == spec.table]
            rows = everything[~everything["status"].isin(report.APART)]
            apart = everything[everything["status"].isin(report.APART)]
            lines += evidence_lines(spec, rows, apart, reasons)
        return lines + ["````", ""]

    def rules_lines(self, table: Any, papers: dict[str, str], short: dict[str, str]) -> list[str]:
        import lib.report as report

        counts = report.summary(table, list(papers)).reset_index()
        counts["paper"] = [p if p == "all papers" else short[p] for p in counts["paper"]]
        found = report.causes(table)
        lines = ["(report-rules)=", "````{dropdown} The rules", "",
                 f"**Claims.** A claim is one sentence of a paper, quoted exactly (several rows or tables testing it are "
                 f"its evidence, and it is counted once), or one published table. {report.CLAIM_RULE}", "",
                 "**Three outcomes.** *holds*; *fails* on the paper's own set-up; *could not be tested here* (untested), "
                 "with its reason — never counted as a failure. A paper's mathematical claims (a theorem, a closed form) "
                 "checked against an independent computation are counted in their own rows.", "",
                 "**Reasons a claim could not be tested here:**", ""]
        lines += [f"- *{k}*: {v}." for k, v in report.REASONS.items()]
        lines += ["", "**Thresholds of ours.** A verdict decided by a threshold the paper did not give shows the range "
                  "of thresholds over which it stands, computed in the notebook that decides it, and says whether it "
                  "flips within a factor of two; the registry refuses such a verdict without its range.", "",
                  "**Numbers and rows**, each classified by `lib.report.classify`:", "",
                  "- *reproduced*: the paper's set-up is identified and ours is within a tolerance fixed before "
                  "comparing — one unit of the paper's last printed digit (a deterministic quantity), or derived from a "
                  "measured spread (reruns over seeds, row draws, a library version); a claims row that holds;",
                  "- *consistent*: the same, on a set-up we had to choose, or with another version of the paper's "
                  "tool: agreement, not a reproduction;",
                  "- *explained deviation*: outside the tolerance, and a cell demonstrates the cause (it changes the one "
                  "thing named and recovers the paper's number, or proves an erratum from the paper's own numbers);",
                  "- *not reproduced*: outside the tolerance with no demonstrated cause (an untested cause stays a "
                  "note), or ours missing;",
                  "- *contradicted*: a claims row that fails on the game and condition the paper states.", "",
                  "**Shown apart, never counted:** derivation checks (an identity, a consequence of the book's own "
                  "definitions, a count of coalitions or model rows), errata of a paper stated in a claims table, and "
                  "rows that are not the paper's claim (*not claimed*, *implied*, *assumption*, *set-up check*). "
                  "Nothing is typed: `lib.report` computes this page from `data/derived/reproduction/<chapter>.yaml` and "
                  "the tables the notebooks store, and the test suite checks every quote against the paper's text and "
                  "every link to a labelled cell.", "", "````", "",
                 "````{dropdown} Every number, class by class", "",
                 "| " + " | ".join(counts.columns) + " |", "|" + "---|" * len(counts.columns)]
        lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in counts.itertuples(index=False)]
        lines += ["", "Causes, each counted once (a demonstrated cause of explained deviations, or a set-up that is not "
                  "the paper's):", "", "| kind | cause | claims | numbers |", "|---|---|---|---|"]
        lines += [f"| {cell(k)} | {cell(c)} | {n} | {m} |"
                  for k, c, n, m in zip(found["kind"], found["cause"], found["claims"], found["numbers"])]
        return lines + ["", "````", ""]
