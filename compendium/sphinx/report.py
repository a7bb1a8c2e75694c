"""``{reproduction-report}``: the reproduction report computed by :mod:`compendium.report` from the stored
comparison tables in ``data/derived/`` and their registry.

The page a reviewer signs on a phone: the claims counted by outcome (the landing page's table,
:mod:`compendium.glance`), the rule of what "the paper's set-up" is and one sentence on how the classes of
numbers roll up into a claim's outcome, the errata and explained deviations (the same counts as the errata
page), then one folded section per paper: each claim with its verdict word first, what it says, the one-line
reason, the share of its evidence that agrees and a link to the cell that decides it (one click: a labelled
cell, in sight when its page opens there); every reason, cause and note of the paper written once and
referred to by its label; its evidence table by table (item, verdict, paper, ours first; what disagrees
first); and the sentences of the paper left out, with why. The rules and the number-level counts are folded
at the end. Every count is a ``{report-count}`` of :func:`compendium.report.counts`."""

from __future__ import annotations

import math
import re
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.sphinx.glance import chapter_of, count, glance_lines, paper_label, report_data
from compendium.sphinx.pages import root_of, slug


def report_label(csv: str) -> str:
    """The label of a comparison table's evidence on the reproduction report (for ``{ref}``)."""
    return f"report-{slug(csv)}"


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


def md(text: Any) -> str:
    """A paper's words or our text in a MyST paragraph: its TeX as math, no stray role or table syntax."""
    import compendium.report as report

    return cell(report.as_markdown(str(text))).replace("`", "'")


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def outcome_words(paper: str, prefix: str = "") -> str:
    """``1 holds, 1 fails, 5 untested``: a paper's claims by outcome, each count a ``{report-count}``."""
    import compendium.report as report

    data_counts = _COUNTS[0]
    words = {report.HOLDS: "hold", report.FAILS: "fail", report.SUBSTITUTE: "consistent",
             report.INCONSISTENT: "inconsistent", report.UNTESTED: "untested"}
    parts = [f"{count(paper, prefix + o)} {words[o]}" for o in report.OUTCOMES
             if data_counts.loc[paper, prefix + o]]
    return ", ".join(parts) or "no claim tested"


_COUNTS: list[Any] = [None]
#: The class names as column headers that may break on a phone (soft hyphens), so the table fits 400 px.
_HEADS = {"reproduced": "repro\u00adduced", "consistent": "consis\u00adtent",
          "explained deviation": "explained devia\u00adtion", "not reproduced": "not repro\u00adduced",
          "contradicted": "contra\u00addicted", "published numbers": "all"}


def _claim_order() -> dict[str, int]:
    import compendium.report as report

    return {report.FAILS: 0, report.INCONSISTENT: 1, report.UNTESTED: 2, report.SUBSTITUTE: 3, report.HOLDS: 4}
#: A row's verdict, failures first (the order of the evidence tables).
_ORDER = {"contradicted": 0, "not reproduced": 1, "explained deviation": 2, "consistent": 3, "reproduced": 4}


def threshold_text(t: dict[str, Any]) -> str:
    low, high = t["low"], t["high"]
    span = (f"from {human(low)} to {human(high)}" if math.isfinite(low) and math.isfinite(high) else
            f"from {human(low)} up" if math.isfinite(low) else
            f"below {human(high)}" if math.isfinite(high) else "at any t")
    flips = "flips within ×2" if t["flips_within_2"] else "no flip within ×2"
    if t.get("a_row_flips_within_2") and not t["flips_within_2"]:
        flips += " (a row's verdict does)"
    return f"threshold of ours, t = {human(t['value'])} ({t['threshold']}): stands {span}; {flips}"


class Notes:
    """Every reason, cause and note of a paper's section, each written once under a label: ``R`` a reason why
    claims were tested only on a substitute (with the substitutes chosen for it, and the fact that makes it
    true), ``n`` a note on the evidence, ``D`` why rows are shown apart (with the rows)."""

    def __init__(self) -> None:
        self.labels: dict[tuple[str, str], str] = {}
        self.counts: dict[str, int] = {}
        self.links: dict[str, str] = {}
        self.facts: dict[str, str] = {}
        self.members: dict[tuple[str, str], list[str]] = {}

    def fact(self, reason: str, text: str) -> None:
        """What makes a reason true, checked by the tests: written once, with the reason."""
        self.facts.setdefault(reason, text)

    def label(self, kind: str, text: str, member: str = "") -> str:
        if (kind, text) not in self.labels:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.labels[(kind, text)] = f"{kind}{self.counts[kind]}"
            self.members[(kind, text)] = []
        if member and member not in self.members[(kind, text)]:
            self.members[(kind, text)].append(member)
        return self.labels[(kind, text)]

    def link(self, text: str, label: str) -> None:
        """Link a note to the labelled cell that demonstrates it (shown once, after the note)."""
        self.links.setdefault(text, label)

    def lines(self, kind: str, lead: str) -> list[str]:
        found = [(label, text, self.members[(k, text)]) for (k, text), label in self.labels.items() if k == kind]
        if not found:
            return []
        shown = []
        for label, text, members in found:
            line = f"- **{label}**: {text}"
            if kind == "R":
                reason = text.rsplit("(", 1)[-1].rstrip(").")
                if len(members) == 1:
                    line += f" The book's substitute: {members[0]}."
                elif members:
                    line += " The book's substitutes: " + "; ".join(f"({chr(97 + i)}) {m}" for i, m in enumerate(members)) + "."
                if reason in self.facts:
                    line += f" *Checked*: {md(self.facts[reason])}."
            elif kind == "D" and members:
                line += " — " + ("; ".join(members) if len(members) <= 3 else
                                 f"{len(members)} rows, such as “{members[0]}”")
            if text in self.links:
                line += f" ({{ref}}`shown here <{self.links[text]}>`)"
            shown.append(line)
        return [f"**{lead}**", "", *shown, ""]


def setup_text(own: Any, root: Any, notes: "Notes") -> str:
    """A substitute set-up's label (``R1``), one per reason: the reason in words; what the book chose is
    listed under it, and the fact that makes the reason true is written once with it."""
    import compendium.report as report

    if own.fact:
        notes.fact(own.reason, report.reason_fact_text(own, root))
    reasons = "; ".join(f"*{report.REASONS[r]}* ({r})" for r in own.reasons)
    return notes.label("R", f"{reasons}.", md(own.note).rstrip("."))


def claim_lines(i: int, claim: dict[str, Any], under: Any, tables_of: dict[str, Any], notes: Notes, root: Any) -> list[str]:
    """One claim: its verdict first, what it says, the one-line reason, its evidence share, where to check."""
    import compendium.report as report

    tables = [t for t in under["table"] if t in tables_of]   # a claim with no evidence has no table
    numeric = bool(tables) and all(tables_of[t].kind == "numeric" for t in tables)
    maths = " (maths)" if claim["nature"] == "mathematical" else ""
    if numeric:   # a published table: its name says what it claims
        lines = [f"{i}. **{claim['outcome']}**{maths} · {md(claim['name'] or claim['claim'])}\\"]
    else:         # a sentence: the paper's words
        where = f" ({cell(claim['where'])})" if claim["where"] else ""
        lines = [f"{i}. **{claim['outcome']}**{maths} · “{md(claim['claim'])}”{where}\\"]
    if claim["outcome"] == report.UNTESTED:
        untested = [u for u in report.load_untested(root) if u.claim == claim["claim"]]
        labels = [setup_text(u.setup(), root, notes) for u in untested]
        why = f"no evidence at all, why: {', '.join(sorted(set(labels)))}, {claim['reasons']}"
    elif claim["outcome"] in report.SUBSTITUTE_OUTCOMES:
        setups = {}
        for t in dict.fromkeys(under["table"]):
            spec = tables_of[t]
            for s in spec.setups():
                if s.setup != "identified":
                    setups[(s.reason, s.note)] = s
        labels = [setup_text(s, root, notes) for s in setups.values() if s.reason in str(claim["reasons"])]
        why = f"why: {', '.join(sorted(set(labels)))}, {claim['reasons']}"
    elif claim["outcome"] == report.FAILS:
        causes = [n for n in under["cause"] if n] if "cause" in under else []
        why = f"what disagrees: {md(report.why_not(claim))}" + ("" if causes else "; no cause demonstrated")
    else:
        why = "on the paper's own set-up"
    evidence = ", ".join(f"{{ref}}`{cell(t.split(':')[0])} <{report_label(tables_of[t].csv)}>`"
                         for t in dict.fromkeys(under["table"]) if t in tables_of)
    share = report.share(claim) if claim["outcome"] != report.UNTESTED else "nothing compared"
    if claim["outcome"] in report.SUBSTITUTE_OUTCOMES:
        share = "on the substitute, " + share
    decides = f"{{ref}}`→ the cell that decides it <{claim['cell']}>`" if claim.get("cell") else ""
    lines.append("   " + " · ".join(x for x in (why, share, decides, evidence) if x))
    for t in claim["thresholds"]:
        lines[-1] += "\\"
        lines.append(f"   {cell(threshold_text(t))}")
    return lines + [""]


def evidence_lines(spec: Any, rows: Any, apart: Any, numbers: dict[str, int], notes: Notes, root: Any) -> list[str]:
    """One table's evidence, folded: its rows (item, verdict, paper, ours first; what disagrees first), how it
    is judged, the labels of its notes (written once in the paper's section), its rows shown apart."""
    import pandas as pd

    import compendium.report as report

    if spec.kind == "claims":
        rule = "rows that hold or not, computed from our numbers"
    elif spec.tolerance is not None and spec.tolerance.rule == "last-digit":
        rule = "tolerance: the paper's last printed digit"
    else:
        rule = f"tolerance: the {{ref}}`measured spread <{spec.tolerance.cell}>`"
    setups = [s for s in spec.setups() if s.setup != "identified"]
    where = ("the paper's own set-up" if not setups else
             "a substitute (" + ", ".join(dict.fromkeys(setup_text(s, root, notes) for s in setups)) + ")")
    apart_labels = []
    for item, status, note in zip(apart["item"], apart["status"], apart["note"]):
        apart_labels.append(notes.label("D", f"*{status}*: {md(note)}", cell(item).replace("`", "'")))
    if not len(rows):   # nothing scored: its rows are listed with the reasons they are shown apart
        return []
    also = f" · shown apart: {', '.join(dict.fromkeys(apart_labels))}" if apart_labels else ""
    lines = [f"({report_label(spec.csv)})=", f"::::{{dropdown}} {cell(spec.table)}",
             f"{{doc}}`The notebook </{spec.shown_in}>` · {where} · {rule}{also}.", ""]
    if len(rows):
        rows = rows.assign(_o=rows["status"].map(_ORDER)).sort_values("_o", kind="stable")
        cells = []
        for note in rows["note"]:
            parts = [p for p in str(note).split("\n") if p and p not in {s.note.strip() for s in setups}]
            said = []
            for part in parts:
                unconfirmed = re.match(r"^cause not confirmed \(([^)]*)\): (.*)$", part, flags=re.S)
                if unconfirmed:   # the cause once; the number it gives, row by row
                    said.append(f"{notes.label('n', md(unconfirmed[2]))} not confirmed ({unconfirmed[1]})")
                else:
                    said.append(notes.label("n", md(part)))
            cells.append(", ".join(said))
        if spec.kind == "claims":
            shown = pd.DataFrame({"item": rows["item"].map(cell), "verdict": rows["status"],
                                  "paper": [f"claim {numbers[c]}" for c in rows["claim"]], "ours": rows["ours"].map(cell)})
        else:
            if spec.tolerance is not None and spec.tolerance.rule == "last-digit":  # the paper's digits, as printed
                def printed(x: Any, tol: Any) -> str:
                    decimals = max(0, round(-math.log10(float(tol)))) if float(tol) > 0 else 0
                    return f"{float(x):,.{decimals}f}"
                paper = [printed(x, t) for x, t in zip(rows["paper value"], rows["tolerance"])]
            else:
                paper = list(rows["paper value"].map(human))
            shown = pd.DataFrame({"item": rows["item"], "verdict": rows["status"], "paper": paper,
                                  "ours": rows["ours"].map(human)})
            if spec.tolerance is not None and spec.tolerance.rule != "last-digit":  # a measured tolerance, row by row
                cells = [", ".join(x for x in (f"±{human(t, 2)}", c) if x) for t, c in zip(rows["tolerance"], cells)]
            for note, evidence in zip(rows["note"], rows["evidence"]):   # the cause's cell, linked once in its note
                for token in str(evidence).split():
                    kind, label = token.split(":", 1)
                    if kind == "cause":
                        notes.link(md(str(note).split("\n")[-1]), label)
        if any(cells):   # the notes' labels (and a measured tolerance) beside the item, not in a column of their own
            shown["item"] = [f"{i} ({c})" if c else i for i, c in zip(shown["item"], cells)]
        table = ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns)]
        table += ["| " + " | ".join(cell(v) for v in r) + " |" for r in shown.itertuples(index=False)]
        if spec.kind == "claims":   # long texts: on a phone each row stacks (report.css), its verdict on screen
            table = [":::{container} claims-evidence", *table, ":::"]
        lines += [*table, ""]
    return lines + ["::::", ""]


class ReproductionReport(Directive):
    """Renders compendium.report's report: the counts, one folded section per paper, the rules."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import compendium.report as report

        root = root_of(self)
        env = self.state.document.settings.env
        data = report_data(root, env)
        _COUNTS[0] = data["counts"]
        out: list[nodes.Node] = []
        box = nodes.container(classes=["verdict-counts"])
        self.state.nested_parse(StringList(glance_lines(root, env, on_report=True), source=env.docname), 0, box)
        out.append(box)
        lines = [
            f"**The paper's set-up.** {report.SETUP_RULE}", "",
            f"**How numbers make outcomes.** {report.ROLL_UP}", "",
            f"Underneath the claims, {count('all papers', 'numbers')} published numbers and tested rows; "
            f"{count('all papers', 'explained deviations')} explained deviations from "
            f"{count('all papers', 'demonstrated causes')} demonstrated causes, and {count('all papers', 'errata')} "
            "errata stated in the chapters, are on the {doc}`errata page </book/errata>`. Open a paper below for "
            "its claims, each reason and cause written once, and the evidence table by table.",
            "",
        ]
        for key, name in data["papers"].items():
            lines += self.paper_lines(key, name, data, root)
        lines += self.rescience_lines(data, root, env)
        lines += self.rules_lines(data)
        wrapper = nodes.container(classes=["reproduction-report"])
        self.state.nested_parse(StringList(lines, source=env.docname), 0, wrapper)
        out.append(wrapper)
        return out

    def paper_lines(self, key: str, name: str, data: dict[str, Any], root: Any) -> list[str]:
        import compendium.report as report

        specs, table, evidence = data["specs"], data["table"], data["evidence"]
        mine_specs = [s for s in specs if s.paper == key]
        mine = data["claims"][data["claims"]["paper"] == key]
        counts = data["counts"]
        title = f"{data['short'][key]}: {outcome_words(key)}" + (
            f"; maths: {outcome_words(key, 'maths ')}" if counts.loc[key, "maths claims"] else "")
        tables_of = {s.table: s for s in mine_specs}
        page = chapter_of(specs, key)
        notes = Notes()
        lines = [f"({paper_label(key)})=", f":::::{{dropdown}} {cell(title)}",
                 f"{cell(name)} {{cite:p}}`{key}`" + (f" ({{doc}}`its chapter <{page}>`)" if page else "")
                 + f"; {count(key, 'errata')} errata. **Claims**, maths first, then what fails:", ""]
        numbers: dict[str, int] = {}
        body: list[str] = []
        ranked = mine.assign(_o=mine["outcome"].map(_claim_order())).sort_values(
            ["nature", "_o"], ascending=[False, True], kind="stable")
        for i, claim in enumerate(ranked.to_dict("records"), start=1):
            numbers[claim["claim"]] = i
            rows = table[(table["paper"] == key) & (table["claim"] == claim["claim"]) & ~table["status"].isin(report.APART)]
            body += claim_lines(i, claim, rows, tables_of, notes, root)
        lines += body
        tables: list[str] = []
        for spec in mine_specs:
            everything = table[table["table"] == spec.table]
            rows = everything[~everything["status"].isin(report.APART)]
            apart = everything[everything["status"].isin(report.APART)]
            tables += evidence_lines(spec, rows, apart, numbers, notes, root)
        left = data["left_out"][data["left_out"]["paper"] == key]
        if len(left):
            lines += ["**Sentences left out**, and why (not registered as claims):", ""]
            lines += [f"- “{md(r['sentence'])}” ({cell(r['where'])}): {md(r['why'])}" for r in left.to_dict("records")]
            lines += [""]
        else:
            lines += ["**Sentences left out**: none; every sentence of the paper that states a result is a claim above.", ""]
        lines += notes.lines("R", "Why tested only on a substitute, or not at all")
        lines += notes.lines("n", "Notes on the evidence")
        lines += notes.lines("D", "Shown apart, never counted")
        lines += ["**The evidence**, table by table, what disagrees first", "", *tables]
        return lines + [":::::", ""]

    def rescience_lines(self, data: dict[str, Any], root: Any, env: Any) -> list[str]:
        """ReScience C's criteria for each paper, as ``compendium.rescience`` computes them from the claims."""
        from compendium.rescience import rescience

        env.note_dependency(str(root / "codecheck.yml"))
        criteria = rescience(data["table"], root=root)
        lines = ["(report-rescience)=", "````{dropdown} ReScience C's criteria, paper by paper", "",
                 "What a ReScience C review asks of a replication — what was replicated, what was not, what could "
                 "not be and why, and whether it reruns — for each paper, computed from the claims above.", ""]
        for key in data["papers"]:
            if key not in criteria:
                continue
            lines += [f"**{cell(data['short'][key])}** {{cite:p}}`{key}`", ""]
            lines += [f"- *{what.capitalize()}*: {said}." for what, said in criteria[key].items()]
            lines += [""]
        return lines + ["````", ""]

    def rules_lines(self, data: dict[str, Any]) -> list[str]:
        import compendium.report as report

        counts = report.summary(data["table"], list(data["papers"])).reset_index()
        counts["paper"] = [p if p == "all papers" else data["short"][p] for p in counts["paper"]]
        shown = ["paper", *report.STATUSES, "published numbers"]
        lines = ["(report-rules)=", "````{dropdown} The rules", "",
                 f"**Claims.** A claim is one sentence of a paper, quoted exactly (a clause of it when the sentence bundles "
                 f"claims that can differ), or one published table; every row "
                 f"or table testing it is its evidence. {report.CLAIM_RULE} Aims, recommendations and assumptions "
                 "cannot fail: shown, never scored. Mathematical claims, checked against an independent computation, "
                 "are counted apart.", "",
                 f"**The paper's set-up.** {report.SETUP_RULE}", "",
                 "**Why a claim was tested only on a substitute, or not at all**, from one declared list, each reason a "
                 "fact a test checks on its own, independently of the outcome it excuses (the version the tool installed "
                 "here reports against the one the authors' files name, a fetch of the paper's data attempted, the "
                 "paper's text, the authors' repositories, a stored benchmark): "
                 + "; ".join(f"*{k}*, {v}" for k, v in report.REASONS.items()) + ".", "",
                 "**Thresholds of ours** (the paper gave none) come with the range over which the outcome stands.", "",
                 "**Numbers and rows** (`compendium.report.classify`): *reproduced*, the paper's set-up and ours within a "
                 "tolerance fixed before comparing (one unit of the paper's last printed digit, or a measured spread); "
                 "*consistent*, the same on a substitute; *explained deviation*, outside, and a cell demonstrates the "
                 "cause; *not reproduced*, outside with no demonstrated cause, or a row failing on a substitute; "
                 "*contradicted*, a row failing on the paper's own set-up. Derivation checks, errata, aims and rows "
                 "that are not the paper's claim are shown apart, never counted. Nothing is typed: `compendium.report` "
                 "computes this page from `data/derived/reproduction/` and the tables the notebooks store.", "",
                 "````", "",
                 "````{dropdown} Every number, class by class", "", ":::{container} class-counts",
                 "| " + " | ".join(_HEADS.get(c, c) for c in shown) + " |", "|" + "---|" * len(shown)]
        lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in counts[shown].itertuples(index=False)]
        lines += [":::"]
        found = data["causes"]
        found = found[found["kind"] == "demonstrated cause of a deviation"]
        lines += ["", "Demonstrated causes of explained deviations, each once (the set-ups that are not the paper's are "
                  "written once in each paper's section):", ""]
        lines += [f"- {md(c)} ({plural(m, 'number')} of {plural(t, 'table')})"
                  for c, t, m in zip(found["cause"], found["tables"], found["numbers"])]
        return lines + ["", "````", ""]
