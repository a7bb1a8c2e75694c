"""The reproduction report: every published number and claim the book compares, with its verdict.

The chapters write their comparison tables (the paper's numbers beside ours, or the paper's
sentences beside our test of them) as CSV files under ``data/derived/``. Each chapter's registry,
``data/derived/reproduction/<chapter>.yaml``, says for each table which paper it belongs to, which
columns hold the paper's value and ours, whether the paper's set-up is identified (and if not,
why it could not be), the tolerance, and the causes of deviations that a cell demonstrates. This
module reads the registries and the CSV files and classifies everything; the book's pages, the
chapters' results boxes and the tests call it, so no verdict is ever typed. The registry itself is
read and validated by :mod:`lib.registry`, whose names this module re-exports.

Two levels (rules stated in ``CONTRIBUTING.md`` §1):

**Numbers and rows** take one of five classes (:data:`STATUSES`, :func:`classify`):
``reproduced`` (identified set-up, within a tolerance fixed before comparing; a claims row that
holds), ``consistent`` (the same on a set-up or model that is not the paper's), ``explained
deviation`` (outside, and a cell demonstrates the cause), ``not reproduced`` (outside, no
demonstrated cause), ``contradicted`` (a claims row that fails on the paper's own set-up).

**Claims** take one of three outcomes (:data:`OUTCOMES`, :func:`claims`). A claim is one sentence
of a paper, quoted exactly (every row and every table that tests it is its evidence), or one
published table; the rule :data:`CLAIM_RULE` turns its evidence into ``holds``, ``fails`` or
``could not be tested here`` (with the registry's ``reason``, never counted as a failure).
A paper's mathematical claims (a theorem, a closed form checked against an independent
computation) are counted apart from its empirical ones. :func:`claims_table` builds a claims
table from the paper's sentences, our numbers and the computed ``holds``; a verdict decided by a
threshold the paper did not give carries the range of thresholds over which it stands
(:class:`Threshold`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from lib.claims import THRESHOLD_COLUMNS as _THRESHOLD_COLUMNS
from lib.claims import Claim, Threshold, claims_table, show_claims
from lib.registry import (
    DERIVATION,
    ERRATUM,
    REASONS,
    REGISTRY,
    REGISTRY_DIR,
    SETUPS,
    Evidence,
    Explanation,
    TableSpec,
    Tolerance,
    check_evidence,
    last_digit_tolerance,
    load_papers,
    load_registry,
    matches,
    notebook_labels,
    read_table,
    repo_root,
    truthy,
)

__all__ = [
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
    "notebook_labels",
    "reproduction_report",
    "summary",
    "table_rows",
]

#: The five classes of a published number, or of one row of a claims table.
STATUSES = ("reproduced", "consistent", "explained deviation", "not reproduced", "contradicted")
HOLDS, FAILS, UNTESTED = "holds", "fails", "could not be tested here"
#: The three outcomes of a claim (:func:`claims`).
OUTCOMES = (HOLDS, FAILS, UNTESTED)
#: The rule, declared once, that turns a claim's evidence into its outcome (:func:`claims`).
CLAIM_RULE = (
    "A claim holds when none of its numbers or rows disagrees: each is reproduced, consistent, or an "
    "explained deviation (a cause a cell demonstrates accounts for the paper's number). When the paper's own set-up is among its "
    "evidence, that evidence alone decides: a number outside its tolerance with no demonstrated "
    "cause, or a row that fails, makes the claim fail. Evidence on a set-up that is not the paper's "
    "can agree with the paper but cannot refute it: a claim with only such evidence, and a "
    "disagreement in it, could not be tested here, for the reason its tables give. The share of "
    "its numbers or rows that agree is always shown beside the outcome."
)
#: ``mathematical``: a theorem or closed form of the paper, checked against an independent
#: computation (an enumeration of the game); counted apart from the ``empirical`` claims.
NATURES = ("empirical", "mathematical")
#: Paper cells of a claims table meaning the paper states no claim there (the row is skipped).
#: A cell equal to one of these, or beginning with one of them followed by a space, a colon or a
#: parenthesis ("not claimed: ..."), is not a claim of the paper.
SET_UP_CHECK = "set-up check"
NOT_A_CLAIM = ("", "not claimed", "assumption", SET_UP_CHECK)
#: Paper cells beginning with this word are the book's own inference from the paper ("implied
#: (§3): ..."), never a sentence of the paper: such a row is shown in its chapter but never scored
#: as the paper's claim (issue 20, §3).
BOOK_INFERENCE = "implied"
#: What a notebook shows for a row of its claims table that the report does not score.
NOT_SCORED = "not scored (not a claim of the paper)"
#: Statuses shown apart from the verdicts, never counted in them.
APART = (DERIVATION, ERRATUM)
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
    "threshold",
    "threshold value",
    "stands from",
    "stands to",
]


def is_paper_claim(paper_cell: str) -> bool:
    """Whether the paper cell of a claims-table row states a claim of the paper.

    False for an empty cell, for :data:`NOT_A_CLAIM` ("not claimed", "assumption", alone or
    followed by a reason) and for a book inference (:data:`BOOK_INFERENCE`, "implied ..."): the
    report scores the paper's own sentences only.
    """
    text = str(paper_cell).strip().lower()
    if text == "":
        return False
    for word in NOT_A_CLAIM[1:] + (BOOK_INFERENCE,):
        if text == word or (text.startswith(word) and text[len(word)] in " :;,(—-"):
            return False
    return True


# --------------------------------------------------------------------------- classification
def classify(
    paper: float,
    ours: float,
    tolerance: float,
    *,
    setup: str = "identified",
    recovered: float | None = None,
    erratum: bool | None = None,
) -> str:
    """Verdict on one published number (module docstring; ``CONTRIBUTING.md`` §1).

    ``recovered`` is our number with the named cause changed (it explains the deviation when
    it is within ``tolerance`` of ``paper``); ``erratum`` is true when the paper's own numbers
    prove it wrong. A row with a demonstrated cause (``erratum``, or ``recovered`` within the
    tolerance) is an explained deviation even if ours also falls within the tolerance: the cause
    accounts for the paper's number, and the match of ours is chance.
    """
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    if setup not in SETUPS:
        raise ValueError(f"setup must be one of {SETUPS}, got {setup!r}")
    if paper is None or (isinstance(paper, float) and math.isnan(paper)):
        raise ValueError("the paper's value is missing: such a row is not a published number")

    def close(value: float | None) -> bool:
        return value is not None and not math.isnan(float(value)) and abs(float(value) - float(paper)) <= tolerance * (1 + 1e-9) + 1e-12

    if erratum or close(recovered):
        # a demonstrated cause accounts for the paper's number (its own numbers prove it wrong, or
        # changing the named cause recovers it): a match of ours as well would be chance
        return "explained deviation"
    if close(ours):
        return "reproduced" if setup == "identified" else "consistent"
    return "not reproduced"


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
            f"range of thresholds over which it stands: build the table with lib.report.claims_table and give the "
            f"claim its lib.report.Threshold (columns {list(_THRESHOLD_COLUMNS)})")
    lists = [_split(given[c]) for c in _THRESHOLD_COLUMNS]
    if len({len(x) for x in lists}) != 1:
        raise ValueError(f"{spec.csv}, row {item!r}: the threshold columns list different numbers of thresholds")
    for low, value, high in zip(lists[2], lists[1], lists[3]):
        if not float(low) <= float(value) <= float(high):
            raise ValueError(f"{spec.csv}, row {item!r}: our threshold {value} lies outside its range [{low}, {high}]")
    return given


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
        note = spec.setup_note if spec.setup != "identified" else ""
        apart = spec.apart(item)
        if apart is not None:
            status, pattern, why = apart
            used.add(pattern)
            records.append(dict(item=item, **{"paper value": row[spec.paper_column]}, ours=row[spec.ours_column],
                                difference="", tolerance="", status=status, note=why, evidence="", cause="",
                                where=values.get("where", "")))
            continue
        if spec.kind == "claims":
            if not is_paper_claim(row[spec.paper_column]):
                continue
            holds = truthy(row[spec.holds_column])
            status = (("reproduced" if holds else "contradicted") if spec.setup == "identified"
                      else ("consistent" if holds else "not reproduced"))  # nor can a guessed set-up or another model
            records.append(dict(item=item, **{"paper value": row[spec.paper_column]}, ours=row[spec.ours_column],
                                difference="", tolerance="", status=status, note=note, evidence="", cause="",
                                where=values.get("where", ""), **_threshold_fields(spec, item, values, used)))
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
                            cause=explanation.cause if status == "explained deviation" and explanation else ""))
    unused = [p for p in [*spec.derivation, *spec.errata, *spec.thresholds] if p not in used]
    if unused:
        raise ValueError(f"{spec.csv}: derivation check, erratum or threshold pattern(s) {unused} match no row")
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
    out["setup"] = spec.setup
    out["setup note"] = spec.setup_note.strip() if spec.setup != "identified" else ""
    out["reason"] = spec.reason
    for column in _THRESHOLD_COLUMNS:
        out[column] = out[column].fillna("") if column in out else ""
    out.insert(0, "table", spec.table)
    out.insert(0, "paper", spec.paper)
    return out[REPORT_COLUMNS]


def reproduction_report(specs: Sequence[TableSpec] | None = None, root: str | Path | None = None) -> pd.DataFrame:
    """Every registered published number, classified; columns :data:`REPORT_COLUMNS`."""
    specs = load_registry(root=root) if specs is None else specs
    return pd.concat([table_rows(s, root) for s in specs], ignore_index=True)


def summary(report: pd.DataFrame, papers: Sequence[str] | None = None) -> pd.DataFrame:
    """Number-level counts of each status per paper (in ``papers`` order if given) and a total row.

    Derivation checks (:data:`DERIVATION`) and errata (:data:`ERRATUM`) are not published numbers
    the book tests: they are counted in their own columns, outside ``published numbers``.
    """
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
    counts = counts.rename(columns={DERIVATION: "derivation checks", ERRATUM: "errata"})
    counts = counts[list(STATUSES) + ["published numbers", "derivation checks", "errata"]]
    counts.loc["all papers"] = counts.sum(axis=0)
    return counts.astype(int)


# --------------------------------------------------------------------------- claims
def _outcome(statuses: Sequence[str], setups: Sequence[str]) -> str:
    """:data:`CLAIM_RULE` on one claim's evidence (the statuses of its rows, and their tables' set-ups)."""
    rows = [(s, u) for s, u in zip(statuses, setups) if s not in APART]
    own = [s for s, u in rows if u == "identified"]
    decisive = own or [s for s, _ in rows]
    if any(s in _DISAGREE for s in decisive) or not decisive:
        return FAILS if own else UNTESTED
    return HOLDS


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


def claims(report: pd.DataFrame) -> pd.DataFrame:
    """The report at the level of claims: one row per claim, its outcome and its evidence counted.

    A claim is one sentence of a paper (the quoted ``paper value`` of claims-table rows: every row
    quoting it, in any table, is its evidence) or one published table (its numbers); :func:`table_rows`
    writes it in the ``claim`` column. Its outcome follows :data:`CLAIM_RULE`. Derivation checks and
    errata are not evidence and are left out. Columns: ``paper``, ``claim``, ``where``, ``nature``
    (:data:`NATURES`), ``outcome`` (:data:`OUTCOMES`), ``reasons`` (why it could not be tested, from
    its tables' ``reason``), ``tables``, ``numbers`` (rows or numbers of evidence), ``agree``
    (reproduced or consistent), ``explained`` and ``thresholds`` (a list: for each threshold of ours
    that decides it, our ``value``, the range ``low``-``high`` over which the outcome stands, and
    ``flips_within_2``; ``a_row_flips_within_2`` when the verdict of one of its rows does).
    """
    rows = report[~report["status"].isin(APART)]
    records = []
    for (paper, claim), group in rows.groupby(["paper", "claim"], sort=False):
        natures = set(group["nature"])
        if len(natures) != 1:
            raise ValueError(f"{paper}: claim {claim[:60]!r} is registered both mathematical and empirical")
        outcome = _outcome(list(group["status"]), list(group["setup"]))
        against = group[group["status"].isin(_DISAGREE) | ~group["status"].isin(_AGREE)]
        reasons = list(dict.fromkeys(r for r in against["reason"] if r)) if outcome == UNTESTED else []
        records.append(dict(
            paper=paper, claim=claim, where=" / ".join(dict.fromkeys(w for w in group["where"] if w)),
            nature=natures.pop(), outcome=outcome, reasons="; ".join(reasons),
            tables=int(group["table"].nunique()), numbers=int(len(group)),
            agree=int(group["status"].isin(_AGREE).sum()),
            explained=int((group["status"] == "explained deviation").sum()),
            thresholds=_claim_thresholds(group) if (group["threshold"] != "").any() else []))
    columns = ["paper", "claim", "where", "nature", "outcome", "reasons", "tables", "numbers", "agree",
               "explained", "thresholds"]
    return pd.DataFrame.from_records(records, columns=columns)


def evidence(report: pd.DataFrame) -> pd.DataFrame:
    """The tables under each claim, with their own counts: one row per (paper, claim, table)."""
    rows = report[~report["status"].isin(APART)]
    grouped = rows.assign(agree=rows["status"].isin(_AGREE), explained=rows["status"] == "explained deviation")
    out = (grouped.groupby(["paper", "claim", "table", "setup"], sort=False)
           .agg(numbers=("status", "size"), agree=("agree", "sum"), explained=("explained", "sum")).reset_index())
    return out.astype({"numbers": int, "agree": int, "explained": int})


def claim_summary(report: pd.DataFrame, papers: Sequence[str] | None = None) -> pd.DataFrame:
    """Claims per paper and nature: how many were tested, hold, fail, could not be tested here.

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
    """:func:`claim_summary` with a one-line ``why`` per row: what fails (where in the paper, with the
    share of its numbers that agree) and why the rest could not be tested (the reasons' short names)."""
    table = claims(report)
    out = claim_summary(report, papers)
    whys = []
    for paper, nature in zip(out["paper"], out["nature"]):
        mine = table[table["nature"] == nature]
        mine = mine if paper == "all papers" else mine[mine["paper"] == paper]
        parts = []
        failed = mine[mine["outcome"] == FAILS]
        if paper == "all papers":  # the rows above say what fails; the total says why the rest was untested
            reasons = pd.Series([r for rs in mine.loc[mine["outcome"] == UNTESTED, "reasons"] for r in _split(rs)])
            whys.append("; ".join(f"{r} ({n})" for r, n in reasons.value_counts().items()) or "—")
            continue
        if len(failed):
            labels = [w or (c if len(c) <= 40 else c[:39] + "…") for w, c in zip(failed["where"], failed["claim"])]
            labels = [f"{w} ({a}/{n})" if n > 1 else w for w, a, n in zip(labels, failed["agree"], failed["numbers"])]
            parts.append("fails: " + ", ".join(f"{w} ×{labels.count(w)}" if labels.count(w) > 1 else w
                                               for w in dict.fromkeys(labels)))
        untested = [r for rs in mine.loc[mine["outcome"] == UNTESTED, "reasons"] for r in _split(rs)]
        if untested:
            parts.append("untested: " + ", ".join(dict.fromkeys(untested)))
        if not parts:
            parts.append("every claim holds" if len(mine) > 1 else "the claim holds")
        whys.append("; ".join(parts))
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
    rows = report[~report["status"].isin(APART)]
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


