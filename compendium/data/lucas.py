"""LUCAS0, the causality workbench's lung-cancer data drawn from the LUCAS network (chapter 3)."""

from __future__ import annotations

import pandas as pd

from compendium.data.cache import dataset_entry, file_path
from compendium.data.fetching import verify

__all__ = ["load_lucas0"]


def load_lucas0() -> tuple[pd.DataFrame, pd.Series]:
    """LUCAS0 (causality workbench), 2000 rows of 12 binary variables.

    Returns
    -------
    X : pandas.DataFrame
        11 int64 columns in {0, 1}.
    y : pandas.Series
        ``Lung_cancer``, int64 in {0, 1}.
    """
    verify("lucas0")
    entry = dataset_entry("lucas0")
    raw = pd.read_csv(file_path("lucas0"), sep=",", dtype="int64")
    target = entry["target"]
    return raw.drop(columns=target), raw[target].rename(target)

