"""Any data set by name: :func:`load` dispatches to the loader of its source, :func:`profile` summarises it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from compendium.data.bundled import load_digits, load_iris, load_twonorm_generated
from compendium.data.cache import dataset_entry
from compendium.data.keel import load_keel
from compendium.data.lucas import load_lucas0
from compendium.data.nb_paper import (
    load_adult,
    load_breast_wisconsin,
    load_cervical,
    load_crx,
    load_german_numeric,
    load_ionosphere,
    load_spambase,
    load_telco,
    load_tic_tac_toe,
    load_twonorm,
)

__all__ = ["load", "profile"]

# --------------------------------------------------------------------------- dispatcher
_LOADERS: dict[str, Callable[..., tuple[pd.DataFrame, pd.Series]]] = {
    "twonorm": load_twonorm,
    "crx": load_crx,
    "ionosphere": load_ionosphere,
    "spambase": load_spambase,
    "tic-tac-toe": load_tic_tac_toe,
    "german-numeric": load_german_numeric,
    "telco": load_telco,
    "cervical": load_cervical,
    "breast-wisconsin": load_breast_wisconsin,
    "adult": load_adult,
    "lucas0": load_lucas0,
    "iris": load_iris,
    "digits": load_digits,
    "twonorm-generated": load_twonorm_generated,
}


def load(name: str, **kwargs: Any) -> tuple[pd.DataFrame, pd.Series]:
    """Load any data set of the manifest by name (files are sha256-verified).

    Parameters
    ----------
    name : str
        A name from :func:`names`.
    **kwargs
        Passed to the specific loader (e.g. ``drop_ids=False`` for ``telco``
        and ``breast-wisconsin``, ``seed=`` for ``twonorm-generated``).

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series

    Raises
    ------
    UnknownDatasetError
        Unknown name (a ``KeyError`` and a ``ValueError``).
    DataFileNotFoundError, ChecksumError
        See :func:`verify`.
    """
    entry = dataset_entry(name)
    if entry["group"] == "keel":
        return load_keel(name, **kwargs)
    return _LOADERS[name](**kwargs)


def profile(X: pd.DataFrame, y: pd.Series) -> dict[str, Any]:
    """Summarise a loaded data set the way the naive Bayes paper's Table 1 does.

    Parameters
    ----------
    X : pandas.DataFrame
    y : pandas.Series

    Returns
    -------
    dict
        ``rows``, ``n_numeric`` (numeric dtypes), ``n_categorical``
        (``category`` dtype), ``n_classes``, ``majority_count``,
        ``majority_share`` (unrounded) and ``n_missing`` (NaN cells in ``X``).
    """
    counts = y.value_counts()
    n_cat = sum(isinstance(X[c].dtype, pd.CategoricalDtype) for c in X.columns)
    n_num = sum(pd.api.types.is_numeric_dtype(X[c].dtype) for c in X.columns)
    return {
        "rows": len(X),
        "n_numeric": int(n_num),
        "n_categorical": int(n_cat),
        "n_classes": int(len(counts)),
        "majority_count": int(counts.max()),
        "majority_share": float(counts.max() / len(y)),
        "n_missing": int(X.isna().sum().sum()),
    }

