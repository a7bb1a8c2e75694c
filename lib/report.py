"""The reproduction report: every published number the book reproduces, with its status.

The chapters write their comparison tables (paper beside ours) as CSV files under
``data/derived/``. The registry ``data/derived/reproduction.yaml`` says, for each table,
which paper it belongs to, which columns hold the paper's value and ours, the tolerance
within which a number counts as reproduced, and which deviations a chapter explains
(an erratum, or a stated difference of set-up). This module reads the registry and the
CSV files and classifies every number; the book's report page and the tests call it, so
the report is always computed from the stored results, never typed.

Status of one number (:func:`classify`):

``reproduced``
    ``|ours - paper| <= tolerance`` (numeric), or the claim holds (claims tables);
``explained deviation``
    outside the tolerance, and the registry names the cause the chapter demonstrates;
``not reproduced``
    outside the tolerance with no explanation, or ``ours`` missing.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

__all__ = [
    "REGISTRY",
    "STATUSES",
    "TableSpec",
    "classify",
    "load_papers",
    "load_registry",
    "reproduction_report",
    "summary",
    "table_rows",
]

REGISTRY = Path("data") / "derived" / "reproduction.yaml"
STATUSES = ("reproduced", "explained deviation", "not reproduced")
#: Paper cells of a claims table meaning the paper states nothing there (the row is skipped).
NOT_PUBLISHED = ("", "not claimed")
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
]


@dataclass(frozen=True)
class TableSpec:
    """How to read one comparison table (one entry of the registry).

    ``key`` names the columns that identify a number (joined with " / " into its item
    name); ``tolerance`` is absolute, either one number or a mapping from the value of
    the ``tolerance_by`` column to a number; ``explained`` maps an item name (or a
    shell-style pattern, e.g. ``"PC1 / *"``) to the cause of its deviation; items matching
    a pattern of ``exclude`` are shown by the chapter but are not results of the paper (a
    protocol setting, or a number another table already counts) and are left out.
    """

    csv: str
    paper: str
    table: str
    shown_in: str
    key: tuple[str, ...]
    kind: str = "numeric"
    paper_column: str = "paper"
    ours_column: str = "ours"
    holds_column: str = "holds"
    tolerance: float | Mapping[str, float] = 0.0
    tolerance_by: str | None = None
    explained: Mapping[str, str] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    index_column: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("numeric", "claims"):
            raise ValueError(f"{self.csv}: kind must be 'numeric' or 'claims', got {self.kind!r}")
        if not self.key:
            raise ValueError(f"{self.csv}: 'key' must name at least one column")
        if isinstance(self.tolerance, Mapping):
            if self.tolerance_by is None:
                raise ValueError(f"{self.csv}: a tolerance per value needs 'tolerance_by'")
            bad = {k: v for k, v in self.tolerance.items() if not float(v) >= 0}
        else:
            bad = {} if float(self.tolerance) >= 0 else {"tolerance": self.tolerance}
        if bad:
            raise ValueError(f"{self.csv}: tolerances must be >= 0, got {bad}")

    def tolerance_for(self, row: pd.Series) -> float:
        if not isinstance(self.tolerance, Mapping):
            return float(self.tolerance)
        value = str(row[self.tolerance_by])
        if value not in self.tolerance:
            raise ValueError(
                f"{self.csv}: no tolerance for {self.tolerance_by} = {value!r} "
                f"(registry has {sorted(self.tolerance)})"
            )
        return float(self.tolerance[value])

    def explanation(self, item: str) -> str | None:
        for pattern, note in self.explained.items():
            if _matches(item, pattern):
                return str(note)
        return None

    def excluded(self, item: str) -> bool:
        return any(_matches(item, pattern) for pattern in self.exclude)


def _matches(item: str, pattern: str) -> bool:
    return item == pattern or fnmatch.fnmatchcase(item, pattern)


def _read_registry(path: str | Path | None, root: str | Path | None) -> tuple[Path, dict[str, Any]]:
    root = Path(root) if root is not None else _repo_root()
    path = Path(path) if path is not None else root / REGISTRY
    with open(path, encoding="utf-8") as handle:
        raw = yaml.safe_load(handle)
    if not isinstance(raw, dict) or not isinstance(raw.get("tables"), list):
        raise ValueError(f"{path}: expected a mapping with a list under 'tables'")
    if not isinstance(raw.get("papers"), dict):
        raise ValueError(f"{path}: expected a mapping 'papers' from BibTeX key to a short name")
    return path, raw


def load_papers(path: str | Path | None = None, root: str | Path | None = None) -> dict[str, str]:
    """The registry's papers: BibTeX key -> short name, in the book's order."""
    return {str(k): str(v) for k, v in _read_registry(path, root)[1]["papers"].items()}


def load_registry(path: str | Path | None = None, root: str | Path | None = None) -> list[TableSpec]:
    """Read the registry (``data/derived/reproduction.yaml`` under ``root`` by default)."""
    path, raw = _read_registry(path, root)
    specs = []
    for entry in raw["tables"]:
        entry = dict(entry)
        entry["key"] = tuple(entry.get("key", ()))
        entry["exclude"] = tuple(entry.get("exclude", ()))
        unknown = set(entry) - set(TableSpec.__dataclass_fields__)
        if unknown:
            raise ValueError(f"{path}: unknown field(s) {sorted(unknown)} in entry {entry.get('csv')!r}")
        specs.append(TableSpec(**entry))
    names = [s.csv for s in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: a CSV is registered twice")
    unnamed = sorted({s.paper for s in specs} - set(raw["papers"]))
    if unnamed:
        raise ValueError(f"{path}: paper(s) {unnamed} used by a table but missing under 'papers'")
    return specs


def _repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def _truthy(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0"):
        return False
    raise ValueError(f"cannot read {value!r} as true or false")


def classify(
    paper: float, ours: float, tolerance: float, explanation: str | None = None
) -> str:
    """Status of one published number (see the module docstring)."""
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    if paper is None or (isinstance(paper, float) and math.isnan(paper)):
        raise ValueError("the paper's value is missing: such a row is not a published number")
    if ours is not None and not (isinstance(ours, float) and math.isnan(ours)):
        if abs(float(ours) - float(paper)) <= tolerance * (1 + 1e-9):
            return "reproduced"
    return "explained deviation" if explanation else "not reproduced"


def table_rows(spec: TableSpec, root: str | Path | None = None) -> pd.DataFrame:
    """One registered table in the report's long form (one row per published number).

    Rows whose paper value is empty (or, in a claims table, "not claimed") are skipped:
    the paper did not publish that number.
    """
    root = Path(root) if root is not None else _repo_root()
    path = root / "data" / "derived" / spec.csv
    if not path.is_file():
        raise FileNotFoundError(
            f"{spec.csv} is registered in the reproduction report but {path.name} does not exist; "
            f"run {spec.shown_in} to write it"
        )
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if spec.index_column:
        frame = frame.rename(columns={frame.columns[0]: spec.key[0]})
    needed = list(spec.key) + [spec.paper_column, spec.ours_column]
    needed += [spec.holds_column] if spec.kind == "claims" else []
    needed += [spec.tolerance_by] if spec.tolerance_by else []
    missing = [c for c in dict.fromkeys(needed) if c not in frame.columns]
    if missing:
        raise ValueError(f"{spec.csv}: missing column(s) {missing}; it has {list(frame.columns)}")
    records = []
    for _, row in frame.iterrows():
        item = " / ".join(str(row[k]) for k in spec.key if str(row[k]) != "")
        if spec.excluded(item):
            continue
        note = spec.explanation(item)
        if spec.kind == "claims":
            if row[spec.paper_column].strip().lower() in NOT_PUBLISHED:
                continue  # a finding of ours that the paper does not state
            holds = _truthy(row[spec.holds_column])
            status = "reproduced" if holds else ("explained deviation" if note else "not reproduced")
            records.append(
                dict(item=item, **{"paper value": row[spec.paper_column]}, ours=row[spec.ours_column],
                     difference="", tolerance="", status=status, note=note or "")
            )
            continue
        paper_text = row[spec.paper_column].strip()
        if paper_text == "":
            continue
        paper = float(paper_text)
        ours_text = row[spec.ours_column].strip()
        ours = float(ours_text) if ours_text != "" else float("nan")
        tol = spec.tolerance_for(row)
        status = classify(paper, ours, tol, note)
        records.append(
            dict(item=item, **{"paper value": paper}, ours=ours, difference=ours - paper,
                 tolerance=tol, status=status, note=note or "")
        )
    if not records:
        raise ValueError(f"{spec.csv}: no published number found (every paper value is empty)")
    out = pd.DataFrame.from_records(records)
    out.insert(0, "table", spec.table)
    out.insert(0, "paper", spec.paper)
    return out[REPORT_COLUMNS]


def reproduction_report(
    specs: Sequence[TableSpec] | None = None, root: str | Path | None = None
) -> pd.DataFrame:
    """Every registered published number, classified; columns :data:`REPORT_COLUMNS`."""
    specs = load_registry(root=root) if specs is None else specs
    return pd.concat([table_rows(s, root) for s in specs], ignore_index=True)


def summary(report: pd.DataFrame) -> pd.DataFrame:
    """Counts of each status per paper (and a total row), from :func:`reproduction_report`."""
    unknown = set(report["status"]) - set(STATUSES)
    if unknown:
        raise ValueError(f"unknown status value(s): {sorted(unknown)}")
    counts = (
        pd.crosstab(report["paper"], pd.Categorical(report["status"], categories=STATUSES), dropna=False)
        .reindex(columns=list(STATUSES), fill_value=0)
        .rename_axis(index="paper", columns=None)
    )
    counts = counts.reindex(list(dict.fromkeys(report["paper"])))
    counts["published numbers"] = counts[list(STATUSES)].sum(axis=1)
    counts.loc["all papers"] = counts.sum(axis=0)
    return counts.astype(int)
