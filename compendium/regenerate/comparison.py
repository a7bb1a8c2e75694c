"""How a regenerated file compares with the stored one: identical, within the declared tolerance, or which cells differ.

A CSV is compared cell by cell (read as text: ``1.50`` and ``1.5`` differ), a JSON object key by
key; a difference is allowed only in a column (key) whose name matches a pattern the result
declares variable (:data:`compendium.regenerate.result.Variable`), by at most the bound declared for it.
The same cells in other bytes (quoting, number format, line ends) differ: a stored file must
regenerate byte for byte.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from compendium.regenerate.result import Variable

__all__ = ["Comparison", "compare"]


@dataclass(frozen=True)
class Comparison:
    """How a regenerated file compares with the stored one."""

    status: str            # identical | within tolerance | differs | missing
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("identical", "within tolerance")


def _tolerance(column: str, variable: Variable) -> tuple[bool, float | None]:
    for pattern, tol in variable.items():
        if fnmatch.fnmatchcase(column, pattern):
            return True, tol
    return False, None


def _within(a: str, b: str, tol: float | None) -> bool:
    if tol is None or a == b:
        return True
    try:
        return abs(float(a) - float(b)) <= tol
    except ValueError:
        return False


def _cells(stored: Mapping[str, list[str]], new: Mapping[str, list[str]], variable: Variable,
           label: str) -> Comparison:
    if list(stored) != list(new):
        return Comparison("differs", f"{label}: columns {list(stored)} -> {list(new)}")
    diffs, varied = [], set()
    for column in stored:
        a, b = stored[column], new[column]
        if len(a) != len(b):
            return Comparison("differs", f"{label}: {len(a)} rows -> {len(b)}")
        declared, tol = _tolerance(column, variable)
        for i, (x, y) in enumerate(zip(a, b)):
            if x == y:
                continue
            if declared and _within(x, y, tol):
                varied.add(column)
            else:
                diffs.append(f"row {i} {column!r}: {x} -> {y}")
    if diffs:
        more = f" (and {len(diffs) - 3} more)" if len(diffs) > 3 else ""
        return Comparison("differs", f"{label}: {len(diffs)} cells: " + "; ".join(diffs[:3]) + more)
    if not varied:
        return Comparison("differs", f"{label}: the same cells in other bytes (quoting, number format, line ends)")
    return Comparison("within tolerance", f"{label}: only {', '.join(sorted(varied))} (declared variable)")


def compare(stored: Path, new: Path, variable: Variable = {}) -> Comparison:  # noqa: B006 - read only
    """Compare a regenerated file with the stored one (CSV cells and JSON keys by the declared ``variable``)."""
    label = stored.name
    if not new.is_file():
        return Comparison("missing", f"{label} was not written")
    a, b = stored.read_bytes(), new.read_bytes()
    if a == b:
        return Comparison("identical")
    if stored.suffix == ".csv":
        try:
            x = pd.read_csv(stored, dtype=str, keep_default_na=False)
            y = pd.read_csv(new, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, UnicodeDecodeError) as err:
            return Comparison("differs", f"{label}: not a readable CSV ({err})")
        return _cells({c: x[c].tolist() for c in x.columns}, {c: y[c].tolist() for c in y.columns}, variable, label)
    if stored.suffix == ".json":
        try:
            x, y = json.loads(a), json.loads(b)
        except json.JSONDecodeError as err:
            return Comparison("differs", f"{label}: not readable JSON ({err})")
        if isinstance(x, dict) and isinstance(y, dict):
            return _cells({k: [json.dumps(v)] for k, v in x.items()}, {k: [json.dumps(v)] for k, v in y.items()},
                          variable, label)
    return Comparison("differs", f"{label}: other bytes")

