"""The 25 small KEEL classification data sets of the coalitional paper (chapter 5), from their raw ``.dat`` files."""

from __future__ import annotations

import pandas as pd

from compendium.data.cache import UnknownDatasetError, dataset_entry, file_path, names
from compendium.data.fetching import verify
from compendium.data.parsing import target_series, typed_frame

__all__ = ["load_keel"]


def load_keel(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """Load one of the 25 small KEEL classification data sets.

    The raw KEEL ``.dat`` files have no header: values are separated by ``,``
    (sometimes ``", "``), the class is last, nothing is missing. Column names
    come from the manifest. A column is categorical when any of its values is
    not a number (e.g. ``40-49`` in ``breast``), numerical otherwise.

    Parameters
    ----------
    name : str
        ``"keel-pima"`` or just ``"pima"``; see ``names("keel")``.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        int64 when every class label is an integer (``-1.0`` counts), else category.
    """
    full = name if name.startswith("keel-") else f"keel-{name}"
    entry = dataset_entry(full)
    if entry["group"] != "keel":
        raise UnknownDatasetError(
            f"{name!r} is not a KEEL data set; KEEL data sets: {', '.join(names('keel'))}"
        )
    verify(full)
    cols = entry["column_names"]
    raw = pd.read_csv(
        file_path(full),
        sep=",",
        header=None,
        names=cols,
        dtype=object,
        skipinitialspace=True,
        keep_default_na=False,
        na_values=[],
        skip_blank_lines=True,
    )
    raw = raw.apply(lambda s: s.str.strip())
    target = entry["target"]
    kinds = {
        c: "Numerical" if pd.to_numeric(raw[c], errors="coerce").notna().all() else "Categorical"
        for c in cols
    }
    X = typed_frame(raw[[c for c in cols if c != target]], kinds)
    y = target_series(raw[target]).rename(target)
    return X, y

