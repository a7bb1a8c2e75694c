"""``{verdict-glance}``: what the book found, paper by paper, in sentences (:func:`compendium.report.findings`; CSS class
``verdict-glance``), then the claims counted by outcome (:func:`compendium.report.counts`; CSS class ``verdict-counts``).
The landing page opens with it; the reproduction report opens with the same counts (:func:`glance_lines`), and
each chapter's box with the same sentences.

``{report-count}`paper:column``` prints one count of :func:`compendium.report.counts` (``lemaire2023naive:errata``,
``all:holds``) in a ``report-count`` span whose class names the count (``rc-<paper>--<column>``);
``{report-count}`paper:column:claim name``` one count of one claim; ``{report-count}`paper:column@table.csv```
the claims one comparison table tests, counted by outcome (:func:`compendium.report.table_counts`: "the paper's
claims about Figure 1"). Every count of claims, outcomes and errata on a page, a notebook's prose included,
is one, so a test checks that every page agrees with ``compendium.report`` and that no count is typed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.sphinx.pages import root_of, slug

#: The report's section of each paper (a label the glance table links to).
REPORT = "/book/reproduction-report"
_DATA: dict[str, dict[str, Any]] = {}


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


def report_data(root: Path, env: Any = None) -> dict[str, Any]:
    """Everything the pages print about the claims, computed once per build by ``compendium.report``: the registry,
    the report, its claims and evidence, the counts, the findings, the causes (each page notes the files
    it depends on, so it is rebuilt when they change)."""
    import compendium.report as report

    key = str(root)
    if key not in _DATA:
        specs = report.load_registry(root=root)
        table = report.reproduction_report(specs, root=root)
        _DATA[key] = dict(
            specs=specs, table=table, claims=report.claims(table), evidence=report.evidence(table),
            counts=report.counts(table, root=root), findings=report.findings(table, root=root),
            table_counts=report.table_counts(table, specs), left_out=report.left_out(root),
            causes=report.causes(table), papers=report.load_papers(root=root),
            short=report.load_papers(root=root, short=True), errata=report.errata(root, specs),
            theses=report.load_theses(root=root))
    if env is not None:
        env.note_dependency(str(root / report.REGISTRY))
        for path in sorted((root / report.REGISTRY_DIR).glob("*.yaml")):
            env.note_dependency(str(path))
        for spec in _DATA[key]["specs"]:
            env.note_dependency(str(root / "data" / "derived" / spec.csv))
    return _DATA[key]


def count_key(paper: str, column: str) -> str:
    """The role's text for one count: ``lemaire2023naive:errata``, ``all:holds``."""
    return f"{'all' if paper == 'all papers' else paper}:{column}"


def count(paper: str, column: str) -> str:
    """One count as MyST: the ``{report-count}`` role (never the number itself)."""
    return f"{{report-count}}`{count_key(paper, column)}`"


#: The counts of one claim a page may print (``{report-count}`paper:column:claim```), from ``compendium.report.claims``.
CLAIM_COUNTS = ("numbers", "agree", "explained", "disagree", "substitute numbers", "substitute agree")


def claim_of(claims: Any, paper: str, name: str) -> Any:
    """The one claim of ``paper`` whose name (the registries' ``claims``) starts with ``name``."""
    mine = claims[(claims["paper"] == paper) & claims["name"].str.startswith(name)]
    if len(mine) != 1:
        raise ValueError(f"{len(mine)} claims of {paper} are named {name!r}...: name exactly one")
    return mine.iloc[0]


def report_count_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                      options: Any = None, content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
    """``{report-count}`paper:column```: one count of ``compendium.report.counts``, in a span that names it;
    ``{report-count}`paper:column:claim name``` one count of one claim (:data:`CLAIM_COUNTS`)."""
    import compendium.report as report

    env = inliner.document.settings.env
    data = report_data(Path(env.app.confdir), env)
    paper, _, rest = text.partition(":")
    column, _, claim = rest.partition(":")
    column, _, csv = column.partition("@")
    paper = "all papers" if paper == "all" else paper
    table = data["counts"]
    try:
        if csv:
            counted = data["table_counts"]
            column = {slug(c): c for c in counted.columns}.get(slug(column), column)
            if (paper, csv.strip()) not in counted.index or column not in counted.columns:
                raise ValueError(f"a table's counts are {list(counted.columns)}, of the registered tables "
                                 f"{[c for p, c in counted.index if p == paper]}")
            value = int(counted.loc[(paper, csv.strip()), column])
            classes = ["report-count", f"rc-{slug(paper)}--{slug(column)}--at-{slug(csv.strip())}"]
        elif claim:
            if column not in CLAIM_COUNTS:
                raise ValueError(f"a claim's counts are {CLAIM_COUNTS}")
            found = claim_of(data["claims"], paper, claim.strip())
            value = int(found[column])
            classes = ["report-count", f"rc-{slug(paper)}--{slug(column)}--{slug(found['name'])}"]
        else:
            column = {slug(c): c for c in report.COUNT_COLUMNS}.get(slug(column), column)
            if paper not in table.index or column not in table.columns:
                raise ValueError(f"papers {list(table.index)}, counts {list(table.columns)}")
            value = int(table.loc[paper, column])
            classes = ["report-count", f"rc-{slug(paper)}--{slug(column)}"]
    except ValueError as error:
        message = inliner.reporter.error(f"report-count: no count {text!r} ({error})", line=lineno)
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    return [nodes.inline(text=str(value), classes=classes)], []


def _verb(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def takeaway_lines(root: Any, env: Any) -> list[str]:
    """One take-away per paper, the five first on the landing page (issue 46): what the paper claims (the
    registry's ``thesis``), then what held and what did not, on whose set-up — each count a ``{report-count}``
    of :func:`compendium.report.counts`, the failing claims named by :func:`compendium.report.claims`, the
    reasons a substitute was used in words (:data:`compendium.registry.REASONS`)."""
    import compendium.report as report

    data = report_data(root, env)
    counts, claims = data["counts"], data["claims"]
    lines: list[str] = []
    for key, short in data["short"].items():
        if key not in counts.index:
            continue
        n = counts.loc[key]
        mine = claims[(claims["paper"] == key) & (claims["nature"] == "empirical")]
        parts = []
        held, failed = int(n["holds"]), int(n["fails"])
        if held or failed:
            parts.append(f"{count(key, 'holds')} {_verb(held, 'holds', 'hold')} and {count(key, 'fails')} "
                         f"{_verb(failed, 'fails', 'fail')} on the paper's own set-up")
        consistent, inconsistent = int(n["consistent on a substitute"]), int(n["inconsistent on a substitute"])
        if consistent or inconsistent:
            substitute = mine[mine["outcome"].isin(report.SUBSTITUTE_OUTCOMES)]
            reasons = dict.fromkeys(r.strip() for rs in substitute["reasons"] for r in str(rs).split(";") if r.strip())
            why = "; ".join(report.REASONS[r] for r in reasons)
            parts.append(f"{count(key, 'consistent on a substitute')} {_verb(consistent, 'is', 'are')} consistent and "
                         f"{count(key, 'inconsistent on a substitute')} inconsistent on a substitute"
                         + (f" ({why})" if why else ""))
        if int(n["could not be tested"]):
            parts.append(f"{count(key, 'could not be tested')} could not be tested")
        failed_claims = mine[mine["outcome"] == report.FAILS]
        failing = [name or claim for name, claim in zip(failed_claims["name"], failed_claims["claim"])]
        what = ""
        if failing:
            more = f", and {len(failing) - 1} more" if len(failing) > 1 else ""
            what = f" Fails: {report.as_markdown(failing[0])}{more}."
        thesis = data["theses"].get(key, "")
        claim = f" claim {thesis}" if thesis else ""
        lines.append(f"- **{short}**{claim}. Of {count(key, 'claims')} claims, " + "; ".join(parts) + f".{what} "
                     f"{{ref}}`Evidence <{paper_label(key)}>`")
    return lines + [""]


def findings_lines(root: Any, env: Any, papers: list[str] | None = None, *, heading: bool = True) -> list[str]:
    """Each paper's findings in sentences (:func:`compendium.report.findings`), under its name and chapter."""
    data = report_data(root, env)
    lines: list[str] = []
    for key, sentences in data["findings"].items():
        if papers is not None and key not in papers:
            continue
        if heading:
            page = chapter_of(data["specs"], key)
            where = f" · {{doc}}`its chapter <{page}>`" if page else ""
            lines += [f"**{data['short'][key]}**{where} · {{ref}}`the evidence <{paper_label(key)}>`", ""]
        lines += [f"- {s}" for s in sentences] + [""]
    return lines


def glance_lines(root: Any, env: Any, *, on_report: bool = False) -> list[str]:
    """The claims counted by outcome, one row per paper (the paper's mathematical claims in a row of their
    own), with its legend: the same lines on the landing page and the report."""
    import compendium.report as report

    data = report_data(root, env)
    table = data["counts"]
    lines = ["| paper | claims | hold | fail | con&shy;sis&shy;tent | in&shy;con&shy;sis&shy;tent | un&shy;tested |",
             "|---|---|---|---|---|---|---|"]
    for paper in table.index:
        for maths in (False, True):
            prefix = "maths " if maths else ""
            if not table.loc[paper, f"{prefix}claims"]:
                continue
            if paper == "all papers":
                name = "**all papers, maths**" if maths else "**all papers**"
            else:
                name = f"{{ref}}`{data['short'][paper]}{' (maths)' if maths else ''} <{paper_label(paper)}>`"
            cells = [count(paper, f"{prefix}claims"), *(count(paper, f"{prefix}{o}") for o in report.OUTCOMES)]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if on_report:   # the rules, folded below, say the same
        return lines
    lines += [
        "",
        "*Hold*, *fail*: on the paper's own set-up, which includes what the authors' own code, data dictionaries "
        "and demos fix. *Consistent*, *inconsistent*: on a set-up the book chose (a substitute), which can neither "
        "confirm nor refute a claim, for the reason given. *Untested*: no evidence at all, for a reason a test "
        "checks. *(maths)*: theorems and closed forms, checked against an independent "
        "computation" + ("." if on_report else
                         f". The evidence and the rules: the {{doc}}`reproduction report <{REPORT}>`."),
    ]
    return lines


class VerdictGlance(Directive):
    """One take-away per paper (CSS class ``verdict-takeaways``), then what the book found, paper by paper, in
    sentences (the verdict at a glance, CSS class ``verdict-glance``), then the claims counted by outcome (CSS
    class ``verdict-counts``)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        root = root_of(self)
        out = []
        for classes, lines in ((["verdict-takeaways"], takeaway_lines(root, env)),
                               (["verdict-glance", "findings"], findings_lines(root, env)),
                               (["verdict-counts"], glance_lines(root, env))):
            box = nodes.container(classes=classes)
            self.state.nested_parse(StringList(lines, source=env.docname), 0, box)
            out.append(box)
        return out
