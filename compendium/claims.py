"""The claims-table helper: a paper's sentence, our test of it, and whether it holds.

A notebook that tests a paper's statements builds its claims table here, one :class:`Claim` per
row (the paper's words quoted exactly, where they are, our numbers, the computed ``holds``), with
a :class:`Threshold` for every verdict decided by a threshold of ours, and writes it with
``compendium.stable.write_derived``; :mod:`compendium.report` reads it back and classifies it (``CONTRIBUTING.md``
§1). :mod:`compendium.report` re-exports them: ``compendium.report.claims_table``, ``compendium.report.show_claims``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["HOLDS_SHOWN", "THRESHOLD_COLUMNS", "Claim", "ClaimsView", "Threshold", "claims_table", "show_claims"]

#: How a shown claims table says whether a claim holds: a mark and a word, never a bare True or False.
HOLDS_SHOWN = {True: "✓\u00a0yes", False: "✗\u00a0no"}

#: The columns a claims table holds for its thresholds of ours (several thresholds: ``"; "``-separated).
THRESHOLD_COLUMNS = ("threshold", "threshold value", "stands from", "stands to")


@dataclass(frozen=True)
class Threshold:
    """A threshold of ours (one the paper did not give) that decides a verdict, with its weight.

    The claim holds when ``measure`` is at most (``holds_when="at most"``) or at least
    (``"at least"``) ``value``; :attr:`low`-:attr:`high` is the range of thresholds over which this
    verdict stands, and :attr:`flips_within_2` says whether it flips within a factor of two of ours.
    ``name`` says what is compared, in one line (no ``;``): ``"max |train - CV| <= t"``.
    """

    name: str
    value: float
    measure: float
    holds_when: str = "at most"

    def __post_init__(self) -> None:
        if self.holds_when not in ("at most", "at least"):
            raise ValueError(f"threshold {self.name!r}: holds_when must be 'at most' or 'at least', got {self.holds_when!r}")
        if not (math.isfinite(float(self.value)) and float(self.value) > 0) or math.isnan(float(self.measure)):
            raise ValueError(f"threshold {self.name!r}: needs a positive value and a measured number, "
                             f"got value {self.value!r}, measure {self.measure!r}")
        if ";" in self.name or not self.name.strip():
            raise ValueError(f"threshold name {self.name!r}: one line saying what is compared, without ';'")

    @property
    def holds(self) -> bool:
        m, t = float(self.measure), float(self.value)
        return bool(m <= t) if self.holds_when == "at most" else bool(m >= t)

    @property
    def low(self) -> float:
        at_most = self.holds_when == "at most"
        return float(self.measure) if self.holds == at_most else -math.inf

    @property
    def high(self) -> float:
        at_most = self.holds_when == "at most"
        return math.inf if self.holds == at_most else float(self.measure)

    @property
    def flips_within_2(self) -> bool:
        return bool(self.low > self.value / 2 or self.high < 2 * self.value)


@dataclass(frozen=True)
class Claim:
    """One row of a claims table: our test of a sentence of a paper, and whether it holds.

    ``claim`` says what our test checks; ``paper`` quotes the paper's sentence exactly (or a clause
    of it; several rows testing one sentence quote it alike), or says why the row is not the
    paper's claim (``"not claimed: ..."``, ``"implied ..."``, ``"assumption"``, ``"set-up check: ..."``);
    ``where`` locates it (``"§3.2"``, ``"footnote 5"``); ``ours`` gives our numbers; ``holds`` is
    computed from them; ``thresholds`` are the thresholds of ours that decide it.
    """

    claim: str
    paper: str
    where: str
    ours: str
    holds: bool
    thresholds: tuple[Threshold, ...] = ()


def _number(x: float) -> str:
    return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:.6g}"


def claims_table(rows: Sequence[Claim], keys: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """A claims table (``claim``, ``paper``, ``where``, ``ours``, ``holds`` and the threshold columns)
    from :class:`Claim` records, ready for ``compendium.stable.write_derived``; ``keys`` are leading columns
    (``{"data set": [...]}``), one value per row.

    Raises ``ValueError``, naming the row and the remedy, for a ``holds`` that is not a computed
    boolean, an empty quote, or a threshold that disagrees with ``holds``.
    """
    records = []
    for i, row in enumerate(rows):
        if not isinstance(row, Claim):
            raise ValueError(f"row {i}: expected a compendium.report.Claim, got {type(row).__name__}")
        if not isinstance(row.holds, (bool, np.bool_)):
            raise ValueError(f"row {i} ({row.claim!r}): holds must be a boolean computed from our numbers, "
                             f"got {row.holds!r}")
        if not row.paper.strip() or not row.claim.strip():
            raise ValueError(f"row {i} ({row.claim!r}): give the claim and the paper's words (or 'not claimed: why')")
        if len(row.thresholds) == 1 and row.thresholds[0].holds != bool(row.holds):
            raise ValueError(f"row {i} ({row.claim!r}): holds is {bool(row.holds)} but its only threshold says "
                             f"{row.thresholds[0].holds}: compute holds from the threshold (Threshold.holds)")
        t = row.thresholds
        records.append({"claim": row.claim, "paper": row.paper, "where": row.where, "ours": row.ours,
                        "holds": bool(row.holds), "threshold": "; ".join(x.name for x in t),
                        "threshold value": "; ".join(_number(x.value) for x in t),
                        "stands from": "; ".join(_number(x.low) for x in t),
                        "stands to": "; ".join(_number(x.high) for x in t)})
    out = pd.DataFrame.from_records(records, columns=["claim", "paper", "where", "ours", "holds",
                                                      *THRESHOLD_COLUMNS])
    if not (out["threshold"] != "").any():
        out = out.drop(columns=list(THRESHOLD_COLUMNS))
    for position, (column, values) in enumerate((keys or {}).items()):
        out.insert(position, column, _one_per_claim("key", column, values, len(out)))
    ids = [*(keys or {}), "claim"]
    twice = out[out.duplicated(ids, keep=False)]
    if len(twice):
        raise ValueError(f"rows {sorted(twice.index.tolist())} test the same thing ({', '.join(ids)}: "
                         f"{twice.iloc[0][ids].tolist()}): a row is found by its test, so give each its own words")
    return out


def _one_per_claim(kind: str, column: str, values: Sequence[Any], claims: int) -> list[Any]:
    """``values`` as a list, refused unless it holds one value per claim."""
    values = list(values)
    if len(values) != claims:
        raise ValueError(f"{kind} column {column!r}: {len(values)} values for {claims} claims; give one per claim")
    return values


class ClaimsView:
    """A claims table as a notebook shows it: every cell whole (no "..."), empty cells empty; a table of
    one claim as a list of its fields (``dl.claims-record``), which a phone reads down, not across."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def _repr_html_(self) -> str:
        if len(self.frame) == 1:
            import html

            items = "".join(f"<dt>{html.escape(str(c))}</dt><dd>{html.escape(str(v))}</dd>"
                            for c, v in self.frame.iloc[0].items() if str(v) != "")
            return f'<dl class="claims-table claims-record">{items}</dl>'
        with pd.option_context("display.max_colwidth", None):
            return self.frame.to_html(index=False, na_rep="", classes="claims-table", border=0)

    def __repr__(self) -> str:
        if len(self.frame) == 1:
            return "\n".join(f"{c}: {v}" for c, v in self.frame.iloc[0].items() if str(v) != "")
        with pd.option_context("display.max_colwidth", None, "display.width", 10_000):
            return self.frame.to_string(index=False, na_rep="")


def show_claims(table: pd.DataFrame, **extra: Sequence[Any]) -> ClaimsView:
    """A claims table (:func:`claims_table`) for display: what we test, any ``extra`` columns
    (``verdict=[...]``, ``**{"data set": [...]}``, one value per row), whether it holds, our numbers,
    the paper's words and where, and the range over which a threshold verdict stands.

    The verdict comes right after the test, so that on a phone, where a wide table scrolls sideways,
    the first screen shows what was tested and how it came out; the long quotes follow. Whether it
    holds is said in a mark and a word (:data:`compendium.claims.HOLDS_SHOWN`: "✓ yes", "✗ no"), next to our numbers.
    """
    shown = pd.DataFrame({"test": table["claim"]})
    for column, values in extra.items():
        shown[column] = _one_per_claim("extra", column, values, len(table))
    shown["holds"] = [HOLDS_SHOWN[bool(h)] for h in table["holds"]]
    shown["ours"] = table["ours"]
    shown["the paper's words"] = table["paper"] + table["where"].map(lambda w: f" ({w})" if w else "")
    if "threshold" in table:
        shown["threshold of ours"] = [_range_text(*r) for r in table[list(THRESHOLD_COLUMNS)].itertuples(index=False)]
    return ClaimsView(shown)


def _range_text(names: str, values: str, lows: str, highs: str) -> str:
    parts = []
    for name, value, low, high in zip(*(str(x).split("; ") for x in (names, values, lows, highs))):
        if not name:
            continue
        t, lo, hi = float(value), float(low), float(high)
        span = (f"from {lo:.3g} to {hi:.3g}" if math.isfinite(lo) and math.isfinite(hi) else
                f"at {lo:.3g} and above" if math.isfinite(lo) else f"below {hi:.3g}" if math.isfinite(hi) else "any")
        flips = " (flips within a factor of two)" if lo > t / 2 or hi < 2 * t else ""
        parts.append(f"{name}, t = {t:.3g}: the verdict stands for t {span}{flips}")
    return "; ".join(parts)
