"""Reading the files of the cache into typed frames: Khiops dictionaries, numbers, categories, targets.

Categorical inputs get the pandas ``category`` dtype (categories are the raw strings of the
file), numerical inputs ``int64`` (integer values, nothing missing) or ``float64``; a target is
``int64`` when every label is an integer, ``category`` otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["read_kdic", "target_series", "typed_frame"]


def read_kdic(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """Read the variable declarations of a Khiops dictionary (``.kdic``).

    Parameters
    ----------
    path : path-like

    Returns
    -------
    list of (str, str)
        ``(variable name, "Numerical" | "Categorical")`` in file order;
        back-quoted names are unquoted.
    """
    out: list[tuple[str, str]] = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and parts[0] in ("Numerical", "Categorical"):
            var = parts[1].rsplit(";", 1)[0].strip()
            if var.startswith("`") and var.endswith("`"):
                var = var[1:-1]
            out.append((var, parts[0]))
    return out


def _is_integer_series(s: pd.Series) -> bool:
    num = pd.to_numeric(s, errors="coerce")
    return bool(num.notna().all() and (num == np.round(num)).all())


def target_series(s: pd.Series) -> pd.Series:
    """int64 if every label is an integer, else category."""
    s = s.astype(object).where(s.notna(), None)
    if s.notna().all() and _is_integer_series(s):
        return pd.to_numeric(s).astype("int64")
    return s.astype("category")


def _numeric(s: pd.Series) -> pd.Series:
    """int64 if every value is written as an integer and none is missing, else float64."""
    return pd.to_numeric(s, errors="raise")


def typed_frame(raw: pd.DataFrame, kinds: dict[str, str]) -> pd.DataFrame:
    cols = {}
    for col in raw.columns:
        if kinds[col] == "Numerical":
            cols[col] = _numeric(raw[col])
        else:
            cols[col] = raw[col].astype("category")
    return pd.DataFrame(cols, index=raw.index)

