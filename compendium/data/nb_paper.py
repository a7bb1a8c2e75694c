"""The ten data sets of Lemaire et al.'s naive Bayes paper, read as the paper's Khiops dictionaries type them.

Each file is tab-separated with a header and comes with its Khiops dictionary (``.kdic``), which
gives every column's type (:func:`load_khiops`); Adult is UCI's two files typed by the paper's
``Adult.kdic`` (:func:`load_adult`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from compendium.data.cache import data_dir, dataset_entry, file_path
from compendium.data.fetching import verify
from compendium.data.parsing import read_kdic, target_series, typed_frame

__all__ = [
    "load_adult",
    "load_breast_wisconsin",
    "load_cervical",
    "load_crx",
    "load_german_numeric",
    "load_ionosphere",
    "load_khiops",
    "load_spambase",
    "load_telco",
    "load_tic_tac_toe",
    "load_twonorm",
]


def load_khiops(
    name: str, na_values: Sequence[str], drop: Sequence[str] = ()
) -> tuple[pd.DataFrame, pd.Series]:
    """Data set ``name``: its tab-separated file with header, typed by its ``.kdic`` (files verified first)."""
    verify(name)
    entry = dataset_entry(name)
    kdic = read_kdic(file_path(name, "dictionary"))
    raw = pd.read_csv(
        file_path(name, "data"),
        sep="\t",
        dtype=object,
        keep_default_na=False,
        na_values=list(na_values),
    )
    declared = [v for v, _ in kdic]
    if list(raw.columns) != declared:
        raise ValueError(f"data set {name!r}: header {list(raw.columns)} != dictionary {declared}")
    target = entry["target"]
    kinds = dict(kdic)
    inputs = [c for c in raw.columns if c != target and c not in drop]
    X = typed_frame(raw[inputs], kinds)
    y = target_series(raw[target]).rename(target)
    return X, y



def load_twonorm() -> tuple[pd.DataFrame, pd.Series]:
    """Breiman's twonorm, Delve copy as used by Lemaire et al. (7400 x 20).

    Returns
    -------
    X : pandas.DataFrame
        ``Var1`` ... ``Var20``, float64.
    y : pandas.Series
        ``Class``, int64 in {0, 1}; class 0 has mean +2/sqrt(20).
    """
    return load_khiops("twonorm", na_values=[])


def load_crx() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Credit Approval (crx), 690 rows, 6 numerical and 9 categorical inputs.

    ``?`` is read as missing (37 rows have one). Types follow ``Crx.kdic``;
    A11 and A14 are zero-padded integers in the file (``01``, ``00202``) and
    are read as numbers.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Class``, category ``+`` / ``-``.
    """
    return load_khiops("crx", na_values=["?", ""])


def load_ionosphere() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Ionosphere, 351 rows, 34 numerical inputs (A2 is constant 0).

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Class``, category ``g`` / ``b``.
    """
    return load_khiops("ionosphere", na_values=[])


def load_spambase() -> tuple[pd.DataFrame, pd.Series]:
    """Spambase as trimmed by Lemaire et al.: 4307 rows, 57 numerical inputs.

    The file is UCI ``spambase.data`` without its first 294 rows (all spam);
    see ``data/README.md``.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``spam``, int64 in {0, 1}.
    """
    return load_khiops("spambase", na_values=[])


def load_tic_tac_toe() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Tic-Tac-Toe Endgame, 958 rows, 9 categorical inputs (x / o / b).

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Class``, category ``positive`` / ``negative``.
    """
    return load_khiops("tic-tac-toe", na_values=[])


def load_german_numeric() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Statlog German credit, numeric version: 1000 rows, 24 numerical inputs.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Class``, int64 in {1 (good), 2 (bad)}.
    """
    return load_khiops("german-numeric", na_values=[])


def load_telco(drop_ids: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """IBM Telco Customer Churn, 7043 rows.

    Parameters
    ----------
    drop_ids : bool, default True
        Drop the identifier ``customerID`` (16 categorical + 3 numerical
        inputs). With ``False`` the paper's Khiops view is kept: ``customerID``
        is a categorical input (17 categorical + 3 numerical).

    Returns
    -------
    X : pandas.DataFrame
        ``TotalCharges`` is NaN in the 11 rows where the file has a single space.
        ``SeniorCitizen`` is categorical (``"0"``/``"1"``) as in the dictionary.
    y : pandas.Series
        ``Churn``, category ``Yes`` / ``No``.
    """
    return load_khiops(
        "telco", na_values=[" ", ""], drop=dataset_entry("telco")["id_columns"] if drop_ids else ()
    )


def load_cervical() -> tuple[pd.DataFrame, pd.Series]:
    """Cervical cancer (Risk Factors), Kaggle copy: 858 rows, 28 numerical, 7 categorical.

    Empty fields are missing values (the UCI original uses ``?``).

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Biopsy``, int64 in {0, 1}.
    """
    return load_khiops("cervical", na_values=["", "?"])


def load_breast_wisconsin(drop_ids: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """UCI Breast Cancer Wisconsin (Original), 699 rows.

    Parameters
    ----------
    drop_ids : bool, default True
        Drop the identifier ``SampleCodeNumber`` (9 numerical inputs). With
        ``False`` the paper's view is kept: its Khiops dictionary declares the
        id Numerical, so it is an input (10 numerical inputs, as in Table 1).

    Returns
    -------
    X : pandas.DataFrame
        ``BareNuclei`` is float64 with 16 NaN (``?`` in the file).
    y : pandas.Series
        ``Class``, int64 in {2 (benign), 4 (malignant)}.
    """
    return load_khiops(
        "breast-wisconsin",
        na_values=["?", ""],
        drop=dataset_entry("breast-wisconsin")["id_columns"] if drop_ids else (),
    )


def load_adult() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Adult, ``adult.data`` followed by ``adult.test``: 48842 rows.

    The test file's first line (``|1x3 Cross validator``) is skipped, fields are
    stripped of surrounding spaces, ``?`` is missing, and the trailing ``.`` of
    the test labels is removed. Column names and types are those of the paper's
    ``Adult.kdic`` without its ``Label`` column (a row number that the UCI files
    do not have): 6 numerical and 8 categorical inputs.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``class``, category ``<=50K`` / ``>50K``.
    """
    verify("adult")
    entry = dataset_entry("adult")
    kdic = [(v, k) for v, k in read_kdic(file_path("adult", "dictionary")) if v != "Label"]
    cols = [v for v, _ in kdic]
    parts = []
    for f in entry["files"]:
        if f["role"] != "data":
            continue
        parts.append(
            pd.read_csv(
                data_dir() / f["path"],
                sep=",",
                header=None,
                names=cols,
                dtype=object,
                skipinitialspace=True,
                skiprows=1 if f["path"].endswith(".test") else 0,
                keep_default_na=False,
                na_values=["?"],
                skip_blank_lines=True,
            )
        )
    raw = pd.concat(parts, ignore_index=True)
    raw = raw.apply(lambda s: s.str.strip())
    target = entry["target"]
    raw[target] = raw[target].str.rstrip(".")
    X = typed_frame(raw[[c for c in cols if c != target]], dict(kdic))
    y = target_series(raw[target]).rename(target)
    return X, y

