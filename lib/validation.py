"""Input checks at the public boundary, in the manner of scikit-learn's ``check_array``.

Every explainer of the book takes rows to explain ``X`` and, for the interventional game,
background rows; they are checked here, once, with the same messages everywhere:

* :func:`check_inputs` — ``(X, background)`` for the Shapley engine and the estimators
  built on it (:mod:`lib.shapley`, :mod:`lib.coalitional`, :mod:`lib.kernel_comparison`,
  :mod:`lib.compositions`, :mod:`lib.typical_value`);
* :func:`check_rows` — one table of rows as a DataFrame (the typical-value method works
  on columns by name), and whether it was one;
* :func:`check_enumerable` — :func:`check_inputs`, and the limits of an enumeration of all
  ``2**d`` coalitions (the exact engine, :mod:`lib.shapley` and :mod:`lib.games`);
* :func:`check_finite_inputs` — :func:`check_inputs` for arrays of finite numbers only;
* :func:`is_categorical`, :func:`is_number` — the two type tests the checks above and the
  experiments use.

A bad input raises a ``ValueError`` that names what is wrong.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "as_frame",
    "as_rows",
    "check_enumerable",
    "check_finite_inputs",
    "check_inputs",
    "check_rows",
    "check_same_columns",
    "check_same_kind",
    "is_categorical",
    "is_number",
]

ArrayOrFrame = np.ndarray | pd.DataFrame


def is_number(value: object) -> bool:
    """A real number given as a Python or numpy scalar (a ``bool`` is not one)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def is_categorical(s: pd.Series) -> bool:
    """Whether a column holds categories (categorical, object, string or boolean dtype)."""
    return isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind in "OSUb" or pd.api.types.is_string_dtype(s.dtype)


def _missing_values_error(name: str, bad: list[Any]) -> ValueError:
    return ValueError(
        f"{name} has missing values in columns {bad}; impute them, or pass "
        "allow_nan=True if the model handles missing values itself"
    )


def as_rows(X: ArrayOrFrame | np.typing.ArrayLike, name: str = "X") -> ArrayOrFrame:
    """``X`` as a 2-D table of rows: a DataFrame as it is, a Series or a 1-D array as one row."""
    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, pd.Series):
        return X.to_frame().T
    arr = np.asarray(X)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (rows, features), got shape {arr.shape}")
    return arr


def as_frame(X: Any, name: str = "X") -> tuple[pd.DataFrame, bool]:
    """``X`` as a DataFrame (an array's columns named ``x0, x1, …``), and whether it was one.

    Unlike :func:`as_rows`, a 1-D array is refused: a table is asked for.
    """
    if isinstance(X, pd.DataFrame):
        return X, True
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (rows, features), got shape {arr.shape}")
    frame = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])
    if arr.dtype.kind in "biuf":
        frame = frame.astype(arr.dtype)
    return frame, False


def check_same_kind(X: Any, background: Any) -> None:
    """Both DataFrames or both arrays, else ``ValueError``."""
    if isinstance(X, pd.DataFrame) != isinstance(background, pd.DataFrame):
        raise ValueError(
            "X and background must both be DataFrames or both be arrays, got "
            f"{type(X).__name__} and {type(background).__name__}"
        )


def check_same_columns(X: pd.DataFrame, background: pd.DataFrame) -> None:
    """The same columns in the same order, else ``ValueError``."""
    if list(X.columns) != list(background.columns):
        raise ValueError(
            "X and background have different columns (or order): "
            f"{list(X.columns)} vs {list(background.columns)}"
        )


def check_inputs(
    X: ArrayOrFrame | np.typing.ArrayLike, background: ArrayOrFrame | np.typing.ArrayLike, allow_nan: bool = False
) -> tuple[ArrayOrFrame, ArrayOrFrame]:
    """Rows to explain and background rows, checked against each other.

    The one validation every explainer of the book applies: both 2-D (a 1-D ``X`` is one
    row), both arrays or both DataFrames with the same columns and categorical dtypes, at
    least one row each, the same number of features, and no NaN unless ``allow_nan``.
    Raises ``ValueError`` naming what is wrong.
    """
    X = as_rows(X, "X")
    background = as_rows(background, "background")
    check_same_kind(X, background)
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    if background.shape[0] == 0:
        raise ValueError("background has no rows: the absent features need values to average over")
    if X.shape[1] != background.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but background has {background.shape[1]}: "
            "the background must describe the same features"
        )
    if isinstance(X, pd.DataFrame):
        check_same_columns(X, background)
        for c in X.columns:
            xd, bd = X[c].dtype, background[c].dtype
            if isinstance(xd, pd.CategoricalDtype) or isinstance(bd, pd.CategoricalDtype):
                if not (
                    isinstance(xd, pd.CategoricalDtype)
                    and isinstance(bd, pd.CategoricalDtype)
                    and list(xd.categories) == list(bd.categories)
                ):
                    raise ValueError(
                        f"column {c!r}: X and background must share one categorical dtype "
                        "(same categories in the same order)"
                    )
        if not allow_nan:
            for name, frame in (("X", X), ("background", background)):
                bad = [c for c in frame.columns if frame[c].isna().any()]
                if bad:
                    raise _missing_values_error(name, bad)
    else:
        for name, arr in (("X", X), ("background", background)):
            if arr.dtype.kind in "fc" and not allow_nan and np.isnan(arr).any():
                cols = np.flatnonzero(np.isnan(arr).any(axis=0)).tolist()
                raise ValueError(
                    f"{name} has NaN in feature columns {cols}; impute them, or pass "
                    "allow_nan=True if the model handles missing values itself"
                )
            if arr.dtype.kind == "O" and not allow_nan:
                _check_object_values(arr, name)
    return X, background


def check_enumerable(X: Any, background: Any, allow_nan: bool, max_features: int,
                     max_rows_per_call: int) -> tuple[ArrayOrFrame, ArrayOrFrame]:
    """:func:`check_inputs`, and the limits of an enumeration of all ``2**d`` coalitions.

    At most ``max_features`` features (and 62: coalitions are int64 bitmasks), else a
    ``ValueError`` that names the book's estimator beyond exact enumeration; and
    ``max_rows_per_call >= 1``.
    """
    X, background = check_inputs(X, background, allow_nan)
    d, limit = X.shape[1], min(max_features, 62)
    if d > limit:
        raise ValueError(
            f"exact Shapley values enumerate all 2**d coalitions: d={d} features exceeds the limit of "
            f"{limit} (2**{limit} coalitions per row). Estimate them with lib.shapley.sample_shapley (antithetic "
            "permutation sampling, the book's default): sample_shapley(f, X, background, max_rows=..., "
            "rng=np.random.default_rng(0)), max_rows the model rows to spend per explained row; or group "
            "the features (lib.coalitional)."
        )
    if max_rows_per_call < 1:
        raise ValueError("max_rows_per_call must be >= 1")
    return X, background


def _check_object_values(arr: np.ndarray, name: str) -> None:
    """An object array (numbers mixed with labels) without missing or infinite numbers."""
    bad = pd.isna(arr) | np.vectorize(
        lambda v: isinstance(v, (float, np.floating)) and not np.isfinite(v), otypes=[bool]
    )(arr)
    if bad.any():
        cols = np.flatnonzero(bad.any(axis=0)).tolist()
        rows = np.flatnonzero(bad.any(axis=1))
        more = " and others" if len(rows) > 1 else ""
        raise ValueError(
            f"{name} has NaN or infinite values in feature columns {cols} (row {int(rows[0])}{more}); "
            "impute them, or pass allow_nan=True if the model handles them itself"
        )


def check_finite_inputs(X: Any, background: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`check_inputs` for arrays of finite numbers: both as float arrays, no NaN or inf."""
    Xa, bg = check_inputs(np.asarray(X, dtype=float), np.asarray(background, dtype=float))
    if not (np.all(np.isfinite(Xa)) and np.all(np.isfinite(bg))):
        raise ValueError("X and background must be finite (no NaN)")
    return Xa, bg


def check_rows(
    X: Any, n_features: int | None = None, allow_nan: bool = False, name: str = "X"
) -> tuple[pd.DataFrame, bool]:
    """One table of rows as a DataFrame (see :func:`as_frame`), and whether it was one.

    At least one row and one feature, ``n_features`` features if given, and no missing
    value unless ``allow_nan``; raises ``ValueError`` naming what is wrong.
    """
    frame, was_frame = as_frame(X, name)
    if frame.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if frame.shape[1] == 0:
        raise ValueError(f"{name} has no features")
    if n_features is not None and frame.shape[1] != n_features:
        raise ValueError(f"{name} has {frame.shape[1]} features, expected {n_features}")
    if not allow_nan:
        bad = [str(c) for c in frame.columns if frame[c].isna().any()]
        if bad:
            raise _missing_values_error(name, bad)
    return frame, was_frame

