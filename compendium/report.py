"""The reproduction report: every published number and claim the book compares, with its verdict.

The chapters write their comparison tables (the paper's numbers beside ours, or the paper's
sentences beside our test of them) as CSV files under ``data/derived/``. Each chapter's registry,
``data/derived/reproduction/<chapter>.yaml``, says for each table which paper it belongs to, which
columns hold the paper's value and ours, whether the paper's set-up is identified (and if not,
why it could not be), the tolerance, and the causes of deviations that a cell demonstrates. This
module reads the registries and the CSV files and classifies everything; the book's pages, the
chapters' results boxes and the tests call it, so no verdict is ever typed. The registry itself is
read and validated by :mod:`compendium.registry`, and the classes and outcomes, with their rules, are
:mod:`compendium.verdicts`'s; this module re-exports the names of both.

Two levels (rules stated in ``CONTRIBUTING.md`` §1):

**Numbers and rows** take one of five classes (:data:`~compendium.verdicts.STATUSES`,
:func:`~compendium.verdicts.classify`): ``reproduced`` (identified set-up, within a tolerance fixed before comparing; a claims row that
holds), ``consistent`` (the same on a set-up or model that is not the paper's), ``explained
deviation`` (outside, and a cell demonstrates the cause), ``not reproduced`` (outside, no
demonstrated cause), ``contradicted`` (a claims row that fails on the paper's own set-up).

**Claims** take one of five outcomes (:data:`~compendium.verdicts.OUTCOMES`, :func:`claims`). A claim is one
sentence of a paper, quoted exactly (every row and every table that tests it is its evidence), a clause of one
that can differ from the sentence's other clauses, or one published table; the rule
:data:`~compendium.verdicts.CLAIM_RULE` turns its evidence into ``holds`` or ``fails`` on the paper's set-up (:data:`SETUP_RULE`: what the paper
and the authors' own code, dictionaries and demos fix), ``consistent`` or ``inconsistent on a
substitute`` (with the registry's ``reason``, never counted as holding or failing), and a claim with no
evidence at all (the registry's ``untested``) ``could not be tested``.
A paper's mathematical claims (a theorem, a closed form checked against an independent
computation) are counted apart from its empirical ones. :func:`claims_table` builds a claims
table from the paper's sentences, our numbers and the computed ``holds``; a verdict decided by a
threshold the paper did not give carries the range of thresholds over which it stands
(:class:`Threshold`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from compendium.claims import THRESHOLD_COLUMNS as _THRESHOLD_COLUMNS
from compendium.claims import Claim, Threshold, claims_table, show_claims
from compendium.registry import (
    AIM,
    DERIVATION,
    ERRATUM,
    MODEL_WORDS,
    REASON_FACTS,
    REASONS,
    REGISTRY,
    REGISTRY_DIR,
    SETUP_RULE,
    ClaimEntry,
    Evidence,
    Explanation,
    LeftOut,
    SetUp,
    TableSpec,
    Tolerance,
    Untested,
    anchor_problems,
    attempt_fetch,
    check_evidence,
    fact_keys,
    last_digit_tolerance,
    load_authors_code,
    load_claim_entries,
    load_left_out,
    load_papers,
    load_registry,
    load_theses,
    load_untested,
    notebook_anchors,
    matches,
    notebook_labels,
    read_table,
    reason_fact_text,
    reason_problems,
    repo_root,
    truthy,
)
from compendium.verdicts import (  # re-exported: the classes and outcomes, and their rules
    APART, BOOK_INFERENCE, CLAIM_RULE, FAILS, HOLDS, INCONSISTENT, NATURES, NO_EVIDENCE, NOT_A_CLAIM, NOT_SCORED,
    OUTCOMES, OWN_OUTCOMES, ROLL_UP, SET_UP_CHECK, STATUSES, SUBSTITUTE, SUBSTITUTE_OUTCOMES, UNTESTED, classify,
    is_paper_claim,
)

__all__ = [
    "AIM",
    "INCONSISTENT",
    "NO_EVIDENCE",
    "SETUP_RULE",
    "ClaimEntry",
    "LeftOut",
    "Untested",
    "anchor_problems",
    "attempt_fetch",
    "fact_keys",
    "left_out",
    "load_authors_code",
    "load_claim_entries",
    "load_left_out",
    "load_untested",
    "notebook_anchors",
    "COUNT_COLUMNS",
    "MODEL_WORDS",
    "OWN_OUTCOMES",
    "REASON_FACTS",
    "ROLL_UP",
    "SUBSTITUTE",
    "SUBSTITUTE_OUTCOMES",
    "SetUp",
    "as_markdown",
    "chapter_papers",
    "counts",
    "counts_markdown",
    "table_counts",
    "errata",
    "findings",
    "reason_fact_text",
    "reason_problems",
    "share",
    "why_not",
    "REGISTRY",
    "REGISTRY_DIR",
    "STATUSES",
    "OUTCOMES",
    "HOLDS",
    "FAILS",
    "UNTESTED",
    "CLAIM_RULE",
    "REASONS",
    "NATURES",
    "BOOK_INFERENCE",
    "APART",
    "DERIVATION",
    "ERRATUM",
    "NOT_A_CLAIM",
    "NOT_SCORED",
    "SET_UP_CHECK",
    "Claim",
    "Evidence",
    "Explanation",
    "TableSpec",
    "Threshold",
    "Tolerance",
    "causes",
    "check_evidence",
    "claim_summary",
    "claims",
    "claims_table",
    "show_claims",
    "classify",
    "evidence",
    "glance",
    "is_paper_claim",
    "last_digit_tolerance",
    "load_papers",
    "load_registry",
    "load_theses",
    "notebook_labels",
    "reproduction_report",
    "summary",
    "table_rows",
]

_AGREE = ("reproduced", "consistent")
_DISAGREE = ("not reproduced", "contradicted")
REPORT_COLUMNS = [
    "paper",
    "table",
    "item",
    "paper value",
    "ours",
    "difference",
    "tolerance",
    "status",
    "note",
    "evidence",
    "claim",
    "where",
    "nature",
    "setup",
    "setup note",
    "reason",
    "cause",
    "name",
    "threshold",
    "threshold value",
    "stands from",
    "stands to",
]


def _float(text: str) -> float:
    text = str(text).strip()
    return float(text) if text != "" else float("nan")


def _evidence_links(spec: TableSpec, explanation: Explanation | None) -> str:
    links = []
    if spec.tolerance is not None and spec.tolerance.cell:
        links.append(f"tolerance:{spec.tolerance.cell}")
    if explanation is not None:
        links.append(f"cause:{explanation.cell}")
    return " ".join(links)


def _split(text: str) -> list[str]:
    return [t.strip() for t in str(text).split(";")] if str(text).strip() else []


def _threshold_fields(spec: TableSpec, item: str, values: Mapping[str, str], used: set[str]) -> dict[str, str]:
    """The threshold columns of a claims row, checked against the registry's ``thresholds``."""
    why = spec.threshold(item)
    given = {c: str(values.get(c, "")).strip() for c in _THRESHOLD_COLUMNS}
    if why is None:
        if given["threshold"]:
            raise ValueError(f"{spec.csv}, row {item!r}: a threshold is recorded ({given['threshold']!r}) but not "
                             "registered: name the row under 'thresholds' in the chapter's registry, with why it is ours")
        return {}
    used.update(p for p in spec.thresholds if matches(item, p))
    if not all(given.values()):
        raise ValueError(
            f"{spec.csv}, row {item!r}: its verdict rests on a threshold of ours ({why}) registered without the "
            f"range of thresholds over which it stands: build the table with compendium.report.claims_table and give the "
            f"claim its compendium.report.Threshold (columns {list(_THRESHOLD_COLUMNS)})")
    lists = [_split(given[c]) for c in _THRESHOLD_COLUMNS]
    if len({len(x) for x in lists}) != 1:
        raise ValueError(f"{spec.csv}, row {item!r}: the threshold columns list different numbers of thresholds")
    for low, value, high in zip(lists[2], lists[1], lists[3]):
        if not float(low) <= float(value) <= float(high):
            raise ValueError(f"{spec.csv}, row {item!r}: our threshold {value} lies outside its range [{low}, {high}]")
    return given


def _setup_fields(own: Any) -> dict[str, str]:
    return {"setup": own.setup, "setup note": own.note.strip() if own.setup != "identified" else "",
            "reason": own.reason}


def table_rows(spec: TableSpec, root: str | Path | None = None) -> pd.DataFrame:
    """One registered table in the report's long form (one row per published number).

    Rows whose paper value is empty (or, in a claims table, not a claim) are skipped: the paper
    did not publish that number. The ``evidence`` column names the labelled cells the verdict
    rests on (``tolerance:<label>``, ``cause:<label>``).
    """
    root = Path(root) if root is not None else repo_root()
    frame = read_table(root, spec.csv, f"registered table (shown in {spec.shown_in})")
    if spec.index_column:
        frame = frame.rename(columns={frame.columns[0]: spec.key[0]})
    needed = list(spec.key) + [spec.paper_column, spec.ours_column]
    needed += [spec.holds_column] if spec.kind == "claims" else []
    missing = [c for c in dict.fromkeys(needed) if c not in frame.columns]
    if missing:
        raise ValueError(f"{spec.csv}: missing column(s) {missing}; it has {list(frame.columns)}")
    cache: dict[str, pd.DataFrame] = {}
    records = []
    used: set[str] = set()
    for _, row in frame.iterrows():
        item = " / ".join(str(row[k]) for k in spec.key if str(row[k]) != "")
        if spec.excluded(item):
            continue
        values = {c: str(row[c]) for c in frame.columns}
        own = spec.setup_of(item)
        note = own.note if own.setup != "identified" else ""
        apart = spec.apart(item)
        if apart is not None:
            status, pattern, why = apart
            used.add(pattern)
            records.append(dict(item=item, **{"paper value": row[spec.paper_column]}, ours=row[spec.ours_column],
                                difference="", tolerance="", status=status, note=why, evidence="", cause="",
                                where=values.get("where", ""), **_setup_fields(own)))
            continue
        if spec.kind == "claims":
            if not is_paper_claim(row[spec.paper_column]):
                continue
            holds = truthy(row[spec.holds_column])
            status = (("reproduced" if holds else "contradicted") if own.setup == "identified"
                      else ("consistent" if holds else "not reproduced"))  # nor can a guessed set-up or another model
            records.append(dict(item=item, **{"paper value": row[spec.paper_column]}, ours=row[spec.ours_column],
                                difference="", tolerance="", status=status, note=note, evidence="", cause="",
                                where=values.get("where", ""), **_setup_fields(own),
                                **_threshold_fields(spec, item, values, used)))
            continue
        paper_text = row[spec.paper_column].strip()
        if paper_text == "":
            continue
        paper, ours = float(paper_text), _float(row[spec.ours_column])
        assert spec.tolerance is not None
        tol = spec.tolerance.value(paper_text, values, root, cache)
        explanation = spec.explanation(item)
        recovered = erratum = None
        if explanation is not None and explanation.recovered is not None:
            recovered = _float(explanation.recovered.lookup(root, values, cache))
        if explanation is not None and explanation.erratum is not None:
            erratum = truthy(explanation.erratum.lookup(root, values, cache))
        status = classify(paper, ours, tol, setup=spec.setup, recovered=recovered, erratum=erratum)
        notes = [note] if note else []
        if status == "explained deviation" and explanation is not None:
            notes.append(explanation.cause)
        elif status == "not reproduced":
            if explanation is not None:
                shown = f"{recovered:.4g}" if recovered is not None else "not proved"
                notes.append(f"cause not confirmed ({shown}): {explanation.cause}")
            hypothesis = spec.hypothesis(item)
            if hypothesis:
                notes.append(f"hypothesis, untested: {hypothesis}")
        records.append(dict(item=item, **{"paper value": paper}, ours=ours, difference=ours - paper,
                            tolerance=tol, status=status, note="\n".join(notes),
                            evidence=_evidence_links(spec, explanation if status == "explained deviation" else None),
                            cause=explanation.cause if status == "explained deviation" and explanation else "",
                            **_setup_fields(own)))
    used.update(p for p in spec.rows if any(matches(r["item"], p) for r in records))
    unused = [p for p in [*spec.derivation, *spec.errata, *spec.thresholds, *spec.aims, *spec.rows] if p not in used]
    if unused:
        raise ValueError(f"{spec.csv}: derivation check, erratum, aim, threshold or rows pattern(s) {unused} match no row")
    if not records:
        raise ValueError(f"{spec.csv}: no published number found (every paper value is empty)")
    out = pd.DataFrame.from_records(records)
    # the claim each row tests (see claims()): a numeric table is one claim; in a claims table, every
    # row quoting one sentence tests one claim, in this table and in any other
    if spec.kind == "numeric":
        out["claim"] = spec.table
        out["where"] = spec.table.split(":")[0].strip()
        out["nature"] = "empirical"
    else:
        out["claim"] = out["paper value"].astype(str).str.strip()
        out["nature"] = [spec.nature(i) for i in out["item"]]
    out["name"] = [spec.name(c) for c in out["claim"]]
    for column in _THRESHOLD_COLUMNS:
        out[column] = out[column].fillna("") if column in out else ""
    out.insert(0, "table", spec.table)
    out.insert(0, "paper", spec.paper)
    return out[REPORT_COLUMNS]


def reproduction_report(specs: Sequence[TableSpec] | None = None, root: str | Path | None = None) -> pd.DataFrame:
    """Every registered published number, classified; columns :data:`REPORT_COLUMNS`. A claim with no evidence
    at all (the registries' ``untested``) has one row of status :data:`~compendium.verdicts.NO_EVIDENCE`, which is
    no number."""
    specs = load_registry(root=root) if specs is None else specs
    frames = [table_rows(s, root) for s in specs]
    untested = load_untested(root)
    if untested:
        frames.append(pd.DataFrame.from_records([
            {**{c: "" for c in REPORT_COLUMNS}, "paper": u.paper, "item": u.name, "paper value": u.claim,
             "status": NO_EVIDENCE, "note": "", "claim": u.claim, "where": u.where, "nature": "empirical",
             "setup": "none", "reason": u.reason, "name": u.name, "evidence": f"cell:{u.cell}"} for u in untested],
            columns=REPORT_COLUMNS))
    out = pd.concat(frames, ignore_index=True)
    out.attrs["_root"] = str(Path(root) if root is not None else repo_root())
    return out


def left_out(root: str | Path | None = None) -> pd.DataFrame:
    """The sentences of the papers that state a result and are not registered as claims, each with why (the
    registries' ``left_out``): columns ``paper``, ``sentence``, ``where``, ``why``. The report lists them."""
    rows = load_left_out(root)
    return pd.DataFrame.from_records([dict(paper=r.paper, sentence=r.sentence, where=r.where, why=r.why) for r in rows],
                                     columns=["paper", "sentence", "where", "why"])


def summary(report: pd.DataFrame, papers: Sequence[str] | None = None) -> pd.DataFrame:
    """Number-level counts of each status per paper (in ``papers`` order if given) and a total row.

    Derivation checks (:data:`DERIVATION`), rows of a claims table that state an erratum (:data:`ERRATUM`;
    the errata themselves are counted by :func:`errata`) and aims (:data:`AIM`) are not published numbers
    the book tests: they are counted in their own columns, outside ``published numbers``.
    """
    report = report[report["status"] != NO_EVIDENCE]
    unknown = set(report["status"]) - set(STATUSES) - set(APART)
    if unknown:
        raise ValueError(f"unknown status value(s): {sorted(unknown)}")
    counts = (
        pd.crosstab(report["paper"], pd.Categorical(report["status"], categories=STATUSES + APART),
                    dropna=False)
        .reindex(columns=list(STATUSES + APART), fill_value=0)
        .rename_axis(index="paper", columns=None)
    )
    order = [p for p in (papers or dict.fromkeys(report["paper"])) if p in counts.index]
    counts = counts.reindex(order)
    counts["published numbers"] = counts[list(STATUSES)].sum(axis=1)
    counts = counts.rename(columns={DERIVATION: "derivation checks", ERRATUM: "erratum rows", AIM: "aims"})
    counts = counts[list(STATUSES) + ["published numbers", "derivation checks", "erratum rows", "aims"]]
    counts.loc["all papers"] = counts.sum(axis=0)
    return counts.astype(int)


# --------------------------------------------------------------------------- claims
def _outcome(statuses: Sequence[str], setups: Sequence[str]) -> str:
    """:data:`~compendium.verdicts.CLAIM_RULE` on one claim's evidence (the statuses of its rows, and their set-ups)."""
    rows = [(s, u) for s, u in zip(statuses, setups) if s not in APART and s != NO_EVIDENCE]
    own = [s for s, u in rows if u == "identified"]
    if own:
        return FAILS if any(s in _DISAGREE for s in own) else HOLDS
    if not rows:
        return UNTESTED
    return INCONSISTENT if any(s in _DISAGREE for s, _ in rows) else SUBSTITUTE


_FLIP = {"reproduced": "contradicted", "contradicted": "reproduced",
         "consistent": "not reproduced", "not reproduced": "consistent"}


def _floats(text: str) -> list[float]:
    return [float(t) for t in _split(text)]


def _claim_thresholds(group: pd.DataFrame) -> list[dict[str, Any]]:
    """For each threshold of ours deciding a claim: our value and the range over which the claim's
    outcome stands (each row's verdict flips where its own range ends)."""
    found: dict[str, list[tuple[int, float, float, float]]] = {}
    for index, row in group.iterrows():
        for name, value, low, high in zip(_split(row["threshold"]), _floats(row["threshold value"]),
                                          _floats(row["stands from"]), _floats(row["stands to"])):
            found.setdefault(name, []).append((index, value, low, high))
    out = []
    for name, entries in found.items():
        values = {v for _, v, _, _ in entries}
        if len(values) != 1:
            raise ValueError(f"claim {group['claim'].iloc[0][:60]!r}: threshold {name!r} at several values {sorted(values)}")
        t0 = values.pop()

        def outcome_at(t: float, entries: list[tuple[int, float, float, float]] = entries) -> str:
            statuses = group["status"].copy()
            for index, _, low, high in entries:
                if not low <= t <= high:
                    statuses[index] = _FLIP[statuses[index]]
            return _outcome(list(statuses), list(group["setup"]))

        base = outcome_at(t0)
        ends = sorted({b for _, _, lo, hi in entries for b in (lo, hi) if math.isfinite(b)})

        def beyond(edge: float, sign: int) -> float:
            nxt = [b for b in ends if (b - edge) * sign > 0]
            if nxt:
                return (edge + (min(nxt) if sign > 0 else max(nxt))) / 2
            return edge + sign * max(1.0, abs(edge))

        high = next((b for b in ends if b > t0 and outcome_at(beyond(b, +1)) != base), math.inf)
        low = next((b for b in reversed(ends) if b < t0 and outcome_at(beyond(b, -1)) != base), -math.inf)
        rows_flip = any(lo > t0 / 2 or hi < 2 * t0 for _, _, lo, hi in entries)
        out.append(dict(threshold=name, value=t0, low=low, high=high, flips_within_2=bool(low > t0 / 2 or high < 2 * t0),
                        a_row_flips_within_2=bool(rows_flip)))
    return out


def _short_number(x: Any) -> str:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    return f"{int(v):,}" if v == int(v) and abs(v) < 1e15 else f"{v:.4g}"


def claims(report: pd.DataFrame) -> pd.DataFrame:
    """The report at the level of claims: one row per claim, its outcome and its evidence counted.

    A claim is one sentence of a paper (the quoted ``paper value`` of claims-table rows: every row
    quoting it, in any table, is its evidence) or one published table (its numbers); :func:`table_rows`
    writes it in the ``claim`` column, and its name in words (the registries' ``claims``) in ``name``.
    Its outcome follows :data:`~compendium.verdicts.CLAIM_RULE`. Derivation checks, errata and aims are not evidence and are
    left out. Columns: ``paper``, ``claim``, ``name``, ``where``, ``nature`` (:data:`~compendium.verdicts.NATURES`),
    ``outcome`` (:data:`~compendium.verdicts.OUTCOMES`), ``reasons`` (why the paper's set-up could not be used, from its
    tables' ``reason``, for a claim decided on a substitute), ``tables``, ``numbers`` (rows or numbers of
    the evidence that decides: the paper's set-up when it is among them, else every one), ``agree``
    (reproduced or consistent), ``explained`` (explained deviations), ``disagree``, ``kind`` (``numbers``
    or ``rows``), ``substitute numbers`` and ``substitute agree`` (evidence on a substitute, whatever
    decides), ``against`` (the rows that disagree and decide, one a line: ``item: ours against the paper's x``),
    and ``thresholds`` (a list: for each threshold of ours that decides it, our ``value``, the range
    ``low``-``high`` over which the outcome stands, and ``flips_within_2``; ``a_row_flips_within_2``
    when the verdict of one of its rows does).
    """
    rows = report[~report["status"].isin(APART)]
    entries = _claim_entries(report)
    records = []
    for (paper, claim), group in rows.groupby(["paper", "claim"], sort=False):
        natures = set(group["nature"])
        if len(natures) != 1:
            raise ValueError(f"{paper}: claim {claim[:60]!r} is registered both mathematical and empirical")
        if (group["status"] == NO_EVIDENCE).any() and (group["status"] != NO_EVIDENCE).any():
            raise ValueError(f"{paper}: claim {claim[:60]!r} is registered under 'untested' (no evidence) and has "
                             f"evidence in {sorted(set(group['table']) - {''})}: a claim with compared numbers is "
                             "never 'could not be tested'")
        untested_row = group[group["status"] == NO_EVIDENCE]
        group = group[group["status"] != NO_EVIDENCE]
        outcome = _outcome(list(group["status"]), list(group["setup"]))
        own = group[group["setup"] == "identified"]
        decides = own if len(own) else group
        substitute = group[group["setup"] != "identified"]
        reasons = list(dict.fromkeys(r for r in substitute["reason"] if r)) if outcome in SUBSTITUTE_OUTCOMES else []
        if outcome == UNTESTED:
            reasons = list(dict.fromkeys(untested_row["reason"]))
            group = untested_row
        against = decides[decides["status"].isin(_DISAGREE)]
        numeric = (group["difference"].astype(str) != "").any()
        said = [f"{i}: {_short_number(o)} against the paper's {_short_number(p)}" if numeric else f"{i}: {o}"
                for i, o, p in zip(against["item"], against["ours"], against["paper value"])]
        name = next((n for n in group["name"] if n), "")
        entry = entries.get((paper, claim))
        cell = entry.cell if entry else ""
        if outcome == UNTESTED:   # the cell that shows why there is no evidence
            cell = str(untested_row["evidence"].iloc[0]).removeprefix("cell:")
        records.append(dict(
            paper=paper, claim=claim, name=name, cell=cell, split=entry.split if entry else "",
            where=" / ".join(dict.fromkeys(w for w in group["where"] if w)),
            nature=natures.pop(), outcome=outcome, reasons="; ".join(reasons),
            tables=int(group.loc[group["table"] != "", "table"].nunique()),
            numbers=int(len(decides)) if outcome != UNTESTED else 0,
            agree=int(decides["status"].isin(_AGREE).sum()),  # an untested claim has none
            explained=int((decides["status"] == "explained deviation").sum()),
            disagree=int(decides["status"].isin(_DISAGREE).sum()),
            kind="numbers" if numeric else "rows",
            **{"substitute numbers": int(len(substitute)),
               "substitute agree": int(substitute["status"].isin(_AGREE).sum())},
            against="\n".join(said),
            thresholds=_claim_thresholds(group) if (group["threshold"] != "").any() else []))
    columns = ["paper", "claim", "name", "cell", "split", "where", "nature", "outcome", "reasons", "tables", "numbers",
               "agree", "explained", "disagree", "kind", "substitute numbers", "substitute agree", "against", "thresholds"]
    return pd.DataFrame.from_records(records, columns=columns)


def _claim_entries(report: pd.DataFrame) -> dict[tuple[str, str], ClaimEntry]:
    """(paper, claim) -> its ``claims:`` entry (name, cell, split), for every claim of the report that has one."""
    root = Path(report.attrs.get("_root") or repo_root())
    try:
        entries = load_claim_entries(root)
    except FileNotFoundError:
        return {}
    out: dict[tuple[str, str], ClaimEntry] = {}
    for paper, claim in report[["paper", "claim"]].drop_duplicates().itertuples(index=False):
        found = next((e for e in entries if matches(str(claim), e.claim)), None)
        if found is not None:
            out[(paper, claim)] = found
    return out


def share(claim: Mapping[str, Any]) -> str:
    """The share of a claim's deciding evidence that agrees, in words, always shown beside its outcome:
    ``37 of 40 numbers agree, 1 explained, 2 do not``; ``its one row holds``; ``2 of 3 rows hold, 1 does not``."""
    n, ok, e, bad = (int(claim[k]) for k in ("numbers", "agree", "explained", "disagree"))
    if claim["kind"] == "rows":
        if n == 1:
            return "its one row holds" if ok else "its one row does not hold"
        return f"{ok} of {n} rows hold" + (f", {bad} {'does' if bad == 1 else 'do'} not" if bad else "")
    if n == 1:
        return "its one number agrees" if ok else ("its one number is explained" if e else "its one number does not agree")
    parts = [f"{ok} of {n} numbers agree"] + ([f"{e} explained"] if e else []) + (
        [f"{bad} {'does' if bad == 1 else 'do'} not"] if bad else [])
    return ", ".join(parts)


def evidence(report: pd.DataFrame) -> pd.DataFrame:
    """The tables under each claim, with their own counts: one row per (paper, claim, table, set-up)."""
    rows = report[~report["status"].isin(APART) & (report["status"] != NO_EVIDENCE)]
    grouped = rows.assign(agree=rows["status"].isin(_AGREE), explained=rows["status"] == "explained deviation",
                          disagree=rows["status"].isin(_DISAGREE))
    out = (grouped.groupby(["paper", "claim", "table", "setup"], sort=False)
           .agg(numbers=("status", "size"), agree=("agree", "sum"), explained=("explained", "sum"),
                disagree=("disagree", "sum")).reset_index())
    return out.astype({"numbers": int, "agree": int, "explained": int, "disagree": int})


def claim_summary(report: pd.DataFrame, papers: Sequence[str] | None = None) -> pd.DataFrame:
    """Claims per paper and nature: how many were tested, and how many took each outcome.

    One row per paper with empirical claims, one more per paper with mathematical claims (counted
    apart), and a total row for each nature (``paper`` = ``all papers``).
    """
    table = claims(report)
    order = [p for p in (papers or dict.fromkeys(table["paper"])) if p in set(table["paper"])]
    records = []
    for nature in NATURES:
        sub = table[table["nature"] == nature]
        for paper in [*order, "all papers"]:
            mine = sub if paper == "all papers" else sub[sub["paper"] == paper]
            if mine.empty:
                continue
            counts = mine["outcome"].value_counts()
            records.append(dict(paper=paper, nature=nature, claims=len(mine),
                                **{o: int(counts.get(o, 0)) for o in OUTCOMES}))
    return pd.DataFrame.from_records(records, columns=["paper", "nature", "claims", *OUTCOMES])


def glance(report: pd.DataFrame, papers: Sequence[str] | None = None) -> pd.DataFrame:
    """:func:`claim_summary` with a one-line ``why`` per row: the names of what fails, and the reasons
    (short names) the claims decided on a substitute could not use the paper's set-up."""
    table = claims(report)
    out = claim_summary(report, papers)
    whys = []
    for paper, nature in zip(out["paper"], out["nature"]):
        mine = table[table["nature"] == nature]
        mine = mine if paper == "all papers" else mine[mine["paper"] == paper]
        parts = []
        failed = mine[mine["outcome"] == FAILS]
        if len(failed):
            parts.append("fails: " + ", ".join(n or w or c for n, w, c in zip(failed["name"], failed["where"], failed["claim"])))
        reasons = [r for rs in mine.loc[mine["outcome"].isin(SUBSTITUTE_OUTCOMES), "reasons"] for r in _split(rs)]
        if reasons:
            parts.append("substitute: " + ", ".join(dict.fromkeys(reasons)))
        untested = [r for rs in mine.loc[mine["outcome"] == UNTESTED, "reasons"] for r in _split(rs)]
        if untested:
            parts.append("no evidence: " + ", ".join(dict.fromkeys(untested)))
        whys.append("; ".join(parts) or ("every claim holds" if len(mine) > 1 else "the claim holds"))
    return out.assign(why=whys)


def causes(report: pd.DataFrame) -> pd.DataFrame:
    """Independent causes, each counted once, with how many claims and numbers each accounts for.

    Two kinds (issue 20, §5): a **demonstrated cause** of explained deviations (the registry's
    ``cause`` of an explanation, which a cell demonstrates), and a **set-up that is not the
    paper's** (the ``setup_note`` of a guessed or model-differs table: why those claims could not
    be tested as the paper did). Rows naming the same cause, in one table or several, are one
    cause: one cause behind 56 numbers is one finding, not 56. Columns: ``kind``, ``cause``,
    ``reason``, ``cells`` (the labelled cells demonstrating it), ``papers``, ``tables``, ``claims``
    (distinct claims with at least one such row) and ``numbers``; the largest first.
    """
    rows = report[~report["status"].isin(APART) & (report["status"] != NO_EVIDENCE)]
    parts = [
        ("demonstrated cause of a deviation", rows[rows["cause"] != ""], "cause"),
        ("set-up not the paper's", rows[rows["setup note"] != ""], "setup note"),
    ]
    records = []
    for kind, frame, column in parts:
        for cause, group in frame.groupby(column, sort=False):
            cells = dict.fromkeys(t.split(":", 1)[1] for e in group["evidence"] for t in str(e).split() if t.startswith("cause:"))
            records.append(dict(
                kind=kind, cause=str(cause), reason=str(group["reason"].iloc[0]) if kind != parts[0][0] else "",
                cells=" ".join(cells),
                papers=int(group["paper"].nunique()), tables=int(group["table"].nunique()),
                claims=int(group[["paper", "claim"]].drop_duplicates().shape[0]), numbers=int(len(group))))
    columns = ["kind", "cause", "reason", "cells", "papers", "tables", "claims", "numbers"]
    out = pd.DataFrame.from_records(records, columns=columns)
    order = {kind: i for i, (kind, _, _) in enumerate(parts)}
    out = out.assign(_k=out["kind"].map(order)).sort_values(["_k", "claims", "numbers", "cause"],
                                                            ascending=[True, False, False, True], kind="stable")
    return out.drop(columns="_k").reset_index(drop=True)




# --------------------------------------------------------------------------- errata, counts, findings
_ADMONITION = re.compile(r"^(?P<fence>`{3,}|:{3,})\{admonition\}\s*(?P<title>.*)$")


def _erratum_titles(lines: Sequence[str]) -> list[str]:
    titles = []
    for line in lines:
        match = _ADMONITION.match(line.rstrip())
        if match and match["title"].strip().startswith("Erratum"):
            titles.append(match["title"].strip())
    return titles


def chapter_papers(specs: Sequence[TableSpec]) -> dict[str, str]:
    """Chapter -> the paper it reproduces: the paper most of the chapter's tables belong to (the
    foundations, whose tables serve several papers, have none)."""
    out = {}
    for chapter in dict.fromkeys(s.chapter for s in specs):
        if chapter == "00-foundations":
            continue
        papers = [s.paper for s in specs if s.chapter == chapter]
        out[chapter] = max(dict.fromkeys(papers), key=papers.count)
    return out


def errata(root: str | Path | None = None, specs: Sequence[TableSpec] | None = None) -> pd.DataFrame:
    """Every erratum the book states: each admonition titled "Erratum …" in a notebook's markdown
    (``notebooks/<chapter>/*.ipynb``) or a chapter's landing page (``book/<chapter>.md``), in reading order,
    with the paper it corrects (the chapter's paper; in the foundations, the paper its title names by its
    short name). Columns ``paper``, ``page``, ``title``. The errata page lists these, and every count of
    errata on any page is theirs (:func:`counts`). Raises ``ValueError`` for an erratum no paper owns."""
    root = Path(root) if root is not None else repo_root()
    specs = load_registry(root=root) if specs is None else specs
    owner = chapter_papers(specs)
    short = load_papers(root=root, short=True)
    records = []
    for path in sorted((root / "notebooks").glob("*/*.ipynb")) + sorted((root / "book").glob("0*.md")):
        chapter = path.parent.name if path.suffix == ".ipynb" else path.stem
        if path.suffix == ".ipynb":
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            lines = [ln for c in cells if c["cell_type"] == "markdown" for ln in "".join(c["source"]).splitlines()]
        else:
            lines = path.read_text(encoding="utf-8").splitlines()
        for title in _erratum_titles(lines):
            paper = owner.get(chapter) or next((k for k, v in short.items() if v in title), "")
            if not paper:
                raise ValueError(f"{path.relative_to(root)}: erratum {title!r}: no paper owns it (a chapter's paper, or "
                                 f"a paper's short name in its title: {sorted(short.values())})")
            records.append(dict(paper=paper, page=path.relative_to(root).with_suffix("").as_posix(), title=title))
    return pd.DataFrame.from_records(records, columns=["paper", "page", "title"])


#: The columns of :func:`counts`: claims and their outcomes (empirical; the paper's mathematical claims
#: apart, ``maths ...``), the published numbers and tested rows they rest on, the explained deviations and
#: their demonstrated causes, and the errata.
COUNT_COLUMNS = ("claims", *OUTCOMES, "maths claims", *(f"maths {o}" for o in OUTCOMES), "numbers",
                 "explained deviations", "demonstrated causes", "errata")


def counts(report: pd.DataFrame | None = None, root: str | Path | None = None) -> pd.DataFrame:
    """Every count any page prints: one row per paper (BibTeX key, in the book's order) and ``all papers``,
    columns :data:`COUNT_COLUMNS`. The landing page, the reproduction report, the chapters' boxes, the
    errata page and README take their counts of claims, outcomes and errata from here, and nowhere else."""
    root = Path(root) if root is not None else repo_root()
    specs = load_registry(root=root)
    report = reproduction_report(specs, root=root) if report is None else report
    table = claims(report)
    stated = errata(root, specs)
    found = causes(report)
    demonstrated = found[found["kind"] == "demonstrated cause of a deviation"]
    scored = report[~report["status"].isin(APART) & (report["status"] != NO_EVIDENCE)]
    papers = list(load_papers(root=root))
    records = []
    for paper in [*papers, "all papers"]:
        def mine(frame: pd.DataFrame, column: str = "paper") -> pd.DataFrame:
            return frame if paper == "all papers" else frame[frame[column] == paper]

        empirical = mine(table)[mine(table)["nature"] == "empirical"]
        maths = mine(table)[mine(table)["nature"] == "mathematical"]
        causes_here = demonstrated if paper == "all papers" else demonstrated[[
            paper in set(report.loc[report["cause"] == c, "paper"]) for c in demonstrated["cause"]]]
        records.append(dict(
            paper=paper, claims=len(empirical), **{o: int((empirical["outcome"] == o).sum()) for o in OUTCOMES},
            **{"maths claims": len(maths)}, **{f"maths {o}": int((maths["outcome"] == o).sum()) for o in OUTCOMES},
            numbers=len(mine(scored)), **{"explained deviations": int((mine(scored)["status"] == "explained deviation").sum()),
                                          "demonstrated causes": len(causes_here), "errata": len(mine(stated))}))
    return pd.DataFrame.from_records(records).set_index("paper")[list(COUNT_COLUMNS)].astype(int)


def table_counts(report: pd.DataFrame, specs: Sequence[TableSpec]) -> pd.DataFrame:
    """The claims a comparison table tests, counted by outcome: one row per (paper, csv), columns ``claims`` and
    :data:`~compendium.verdicts.OUTCOMES` (every claim with at least one row in the table; empirical and mathematical
    together). A page that counts "the paper's claims about Figure 1" prints these (``{report-count}`paper:claims@table.csv```)."""
    table = claims(report).set_index(["paper", "claim"])
    rows = report[~report["status"].isin(APART) & (report["status"] != NO_EVIDENCE)]
    records = []
    for spec in specs:
        keys = rows.loc[(rows["paper"] == spec.paper) & (rows["table"] == spec.table), ["paper", "claim"]].drop_duplicates()
        outcomes = [table.loc[(p, c), "outcome"] for p, c in keys.itertuples(index=False)]
        records.append(dict(paper=spec.paper, csv=spec.csv, claims=len(outcomes),
                            **{o: sum(x == o for x in outcomes) for o in OUTCOMES}))
    return pd.DataFrame.from_records(records, columns=["paper", "csv", "claims", *OUTCOMES]).set_index(["paper", "csv"])


def counts_markdown(root: str | Path | None = None) -> str:
    """README's table of the claims per paper and their outcomes, from :func:`counts` (a test keeps README's
    copy equal to it)."""
    table = counts(root=root)
    short = load_papers(root=root, short=True)
    head = ["paper", "claims", "hold", "fail", "consistent on a substitute", "inconsistent on a substitute",
            "could not be tested", "maths (hold)", "errata"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for paper, row in table.iterrows():
        name = "all papers" if paper == "all papers" else short[paper]
        maths = f"{row['maths claims']} ({row['maths ' + HOLDS]})" if row["maths claims"] else "0"
        lines.append(f"| {name} | {row['claims']} | {row[HOLDS]} | {row[FAILS]} | {row[SUBSTITUTE]} | {row[INCONSISTENT]} "
                     f"| {row[UNTESTED]} | {maths} | {row['errata']} |")
    return "\n".join(lines)


_TEX_INLINE = re.compile(r"\\\(\s*(.*?)\s*\\\)")
_TEX_BARE = re.compile(r"(?<![\w$\\])((?:\\[A-Za-z]+(?:\{[^{}]*\})*|[A-Za-z](?=[_^]))(?:[_^](?:\{[^{}]*\}|[A-Za-z0-9]))*)")


def as_markdown(text: str) -> str:
    """A paper's sentence as the book shows it: its TeX as MyST math (``\\( \\log f_{-i} \\)`` and a bare
    ``m_{\\max}`` become ``$…$``), an escaped underscore as the underscore it stands for."""
    text = str(text).replace("\\_", "_")
    parts = re.split(r"(\$[^$]*\$)", _TEX_INLINE.sub(lambda m: f"${m[1]}$", text))
    out = []
    for part in parts:
        if part.startswith("$") and part.endswith("$") and len(part) > 1:
            out.append(part)
            continue
        out.append(_TEX_BARE.sub(lambda m: f"${m[1]}$" if ("\\" in m[1] or re.search(r"[_^]", m[1])) else m[1], part))
    return "".join(out)


def _list(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def why_not(claim: Mapping[str, Any], most: int = 3) -> str:
    """What disagrees in a claim that fails, in words: its rows' findings, or its numbers beside the paper's."""
    said = [s for s in str(claim["against"]).split("\n") if s]
    if claim["kind"] == "rows":
        said = [s.split(": ", 1)[1] if ": " in s else s for s in said]
    shown = said[:most] + ([f"{len(said) - most} more"] if len(said) > most else [])
    return _list(shown) if shown else ""


def findings(report: pd.DataFrame | None = None, root: str | Path | None = None) -> dict[str, list[str]]:
    """What the book found for each paper, in sentences (MyST markdown), from the report's claims: what
    holds on the paper's own set-up (its mathematical claims first), what fails and what disagrees, what
    is consistent or inconsistent on a substitute, with why and what the substitute found, and what could
    not be tested at all, with why. Claims are named by what they say (the registries' ``claims``). The landing page and each
    chapter's box print these same sentences."""
    root = Path(root) if root is not None else repo_root()
    report = reproduction_report(root=root) if report is None else report
    table = claims(report)
    out: dict[str, list[str]] = {}
    for paper in load_papers(root=root):
        mine = table[table["paper"] == paper]
        if mine.empty:
            continue
        named = {c: as_markdown(n or c) for c, n in zip(mine["claim"], mine["name"])}
        sentences = []
        holds = mine[mine["outcome"] == HOLDS].sort_values("nature", ascending=False, kind="stable")
        if len(holds):
            sentences.append("**Holds** on the paper's own set-up: " + _list(
                [named[c] + (" (maths)" if n == "mathematical" else "") for c, n in zip(holds["claim"], holds["nature"])]) + ".")
        for claim in mine[mine["outcome"] == FAILS].to_dict("records"):
            sentences.append(f"**Fails**: {named[claim['claim']]}; {share(claim)}"
                             + (f" — {why_not(claim)}" if why_not(claim) else "") + ".")
        for outcome, lead in ((SUBSTITUTE, "**Consistent on a substitute**, since"),
                              (INCONSISTENT, "**Inconsistent on a substitute**, since"),
                              (UNTESTED, "**Could not be tested**, with no evidence at all, since")):
            group = mine[mine["outcome"] == outcome]
            for reason in dict.fromkeys(group["reasons"]):
                these = group[group["reasons"] == reason]
                said = [named[c] + (f": {a} of {n} agree on the substitute" if outcome == INCONSISTENT and n > 1 else
                                    ": it does not hold on the substitute" if outcome == INCONSISTENT else "")
                        for c, a, n in zip(these["claim"], these["substitute agree"], these["substitute numbers"])]
                why = "; ".join(REASONS[r] for r in _split(reason))
                sentences.append(f"{lead} {why}: " + ("; ".join(said) if outcome == INCONSISTENT else _list(said)) + ".")
        out[paper] = sentences
    return out

