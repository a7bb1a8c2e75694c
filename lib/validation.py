"""Input checks at the public boundary, in the manner of scikit-learn's ``check_array``.

Every explainer of the book takes rows to explain ``X`` and, for the interventional game,
background rows; they are checked here, once, with the same messages everywhere:

* :func:`check_inputs` — ``(X, background)``, once per public call, by the game every explainer
  builds (:class:`lib.games.Game`);
* :func:`check_rows` — one table of rows as a DataFrame (the typical-value method works
  on columns by name), and whether it was one;
* :func:`check_finite` — infinite values refused in any dtype, missing ones unless allowed (row,
  column by name, remedy);
* :func:`match_columns`, :func:`model_columns` — DataFrame columns matched by name (to the model's
  ``feature_names_in_``, the background's to ``X``'s);
* :func:`check_enumerable` — the limits of an enumeration of all ``2**d`` coalitions (the exact
  engine, :mod:`lib.shapley` and :mod:`lib.games`);
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
    "check_finite",
    "check_finite_inputs",
    "check_inputs",
    "check_rows",
    "check_same_columns",
    "check_same_kind",
    "is_categorical",
    "is_number",
    "match_columns",
    "model_columns",
]

ArrayOrFrame = np.ndarray | pd.DataFrame


def is_number(value: object) -> bool:
    """A real number given as a Python or numpy scalar (a ``bool`` is not one)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def is_categorical(s: pd.Series) -> bool:
    """Whether a column holds categories (categorical, object, string or boolean dtype)."""
    return isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind in "OSUb" or pd.api.types.is_string_dtype(s.dtype)


def _place(frame_or_array: Any, row: int, col: int) -> str:
    """``row 3, column 'age'``: a cell named as the user knows it (a DataFrame's column by its name,
    and its index label when it is not the position)."""
    if isinstance(frame_or_array, pd.DataFrame):
        label = frame_or_array.index[row]
        label = label.item() if isinstance(label, np.generic) else label
        at = f"row {row}" + (f" (index {label!r})" if not (isinstance(label, int) and label == row) else "")
        return f"{at}, column {str(frame_or_array.columns[col])!r}"
    return f"row {row}, column {col}"


def _bad_cells(X: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(nan, inf)``: boolean ``(n, d)`` masks of the missing and of the infinite cells, in any dtype
    (floats, integers, booleans, objects mixing numbers and labels, categorical and string columns)."""
    if isinstance(X, pd.DataFrame):
        nan = np.zeros(X.shape, dtype=bool)
        inf = np.zeros(X.shape, dtype=bool)
        for j, c in enumerate(X.columns):
            col = X.iloc[:, j]
            nan[:, j] = col.isna().to_numpy()
            if isinstance(col.dtype, pd.CategoricalDtype):
                cats = col.cat.categories
                if cats.dtype.kind in "fc":
                    inf[:, j] = np.isin(col.cat.codes.to_numpy(), np.flatnonzero(np.isinf(cats.to_numpy())))
            elif col.dtype.kind in "fc":
                inf[:, j] = np.isinf(col.to_numpy(dtype=float, na_value=np.nan))
            elif col.dtype.kind == "O":
                inf[:, j] = _object_inf(col.to_numpy())
        return nan, inf
    arr = np.asarray(X)
    if arr.dtype.kind in "fc":
        return np.isnan(arr), np.isinf(arr)
    if arr.dtype.kind == "O":
        return np.asarray(pd.isna(arr), dtype=bool), _object_inf(arr)
    return np.zeros(arr.shape, dtype=bool), np.zeros(arr.shape, dtype=bool)


def _object_inf(values: np.ndarray) -> np.ndarray:
    return np.vectorize(lambda v: isinstance(v, (float, np.floating)) and bool(np.isinf(v)), otypes=[bool])(values) \
        if values.size else np.zeros(values.shape, dtype=bool)


def check_finite(X: Any, name: str = "X", allow_nan: bool = False) -> None:
    """Refuse infinite values always, and missing ones (NaN, None, NA) unless ``allow_nan``, in any dtype.

    The message names the first bad cell (row, and column by its name on a DataFrame), how many
    others there are, and the remedy.
    """
    nan, inf = _bad_cells(X)
    for bad, what, remedy in (
        (inf, "an infinite value (inf or -inf)",
         "replace it by a finite number (a cap, or NaN and an imputation) before explaining"),
        (nan if not allow_nan else np.zeros_like(nan), "a missing value (NaN)",
         "impute it, or pass allow_nan=True if the model handles missing values itself"),
    ):
        if bad.any():
            rows, cols = np.nonzero(bad)
            more = int(bad.sum()) - 1
            others = f" (and {more} more cell{'s' if more > 1 else ''})" if more else ""
            raise ValueError(f"{name} has {what} at {_place(X, int(rows[0]), int(cols[0]))}{others}: {remedy}")


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
    """The same column names in the same order, else ``ValueError`` (:func:`match_columns` reorders)."""
    if list(X.columns) != list(background.columns):
        raise ValueError(
            "X and background have different columns (or order): "
            f"{list(X.columns)} vs {list(background.columns)}"
        )


def match_columns(frame: pd.DataFrame, columns: list[Any], name: str, reference: str) -> pd.DataFrame:
    """``frame``'s columns matched **by name** to ``columns``, in that order.

    A column missing from ``frame``, one ``frame`` has beyond them (a renamed column is both), or a
    name given twice raises ``ValueError``: ``reference`` says whose columns they are ("the model
    was fitted on", "X has").  As scikit-learn refuses them, but in any order.
    """
    given = list(frame.columns)
    if given == list(columns):
        return frame
    twice = sorted({str(c) for c in given if given.count(c) > 1})
    if twice:
        raise ValueError(f"{name} has the columns {twice} more than once: give each feature once")
    missing = [c for c in columns if c not in given]
    extra = [c for c in given if c not in columns]
    if missing or extra:
        parts = ([f"not among them: {extra}"] if extra else []) + ([f"missing: {missing}"] if missing else [])
        raise ValueError(
            f"{name}'s columns do not match the ones {reference} (" + "; ".join(parts) + f"). Give {name} the "
            f"columns {list(columns)} (in any order: they are matched by name)"
        )
    return frame[list(columns)]


def model_columns(model: Any) -> list[Any] | None:
    """The column names a fitted scikit-learn model was fitted on (``feature_names_in_``), if any:
    of a classifier, its bound ``predict_proba``, a :class:`lib.models.ClassifierFunction`, or a
    function that wraps one (``__wrapped__``, as :func:`lib.compositions.ilr_model` sets it)."""
    seen = 0
    while model is not None and seen < 5:  # a wrapper's model: a bound method's owner, a wrapped function
        names = getattr(model, "feature_names_in_", None)
        if names is not None:
            return list(names)
        model = next((getattr(model, a) for a in ("__self__", "estimator", "__wrapped__") if hasattr(model, a)), None)
        seen += 1
    return None


def check_inputs(
    X: ArrayOrFrame | np.typing.ArrayLike, background: ArrayOrFrame | np.typing.ArrayLike, allow_nan: bool = False,
    columns: list[Any] | None = None,
) -> tuple[ArrayOrFrame, ArrayOrFrame]:
    """Rows to explain and background rows, checked against each other.

    The one validation every explainer of the book applies, once, at its public boundary (the
    game, :class:`lib.games.Game`, calls it): both 2-D (a 1-D ``X`` is one row), both arrays or both
    DataFrames, at least one row each, the same number of features; DataFrame columns matched **by
    name** (the background's to ``X``'s, and both to ``columns`` — the model's
    ``feature_names_in_`` — when given: reordered, and a missing, extra or renamed column refused)
    with one categorical dtype per column; no infinite value in any dtype, and no missing value
    unless ``allow_nan`` (:func:`check_finite`: the row, the column by name, the remedy).
    Returns ``(X, background)`` with the columns in one order.
    """
    X = as_rows(X, "X")
    background = as_rows(background, "background")
    check_same_kind(X, background)
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    if background.shape[0] == 0:
        raise ValueError("background has no rows: the absent features need values to average over")
    if isinstance(X, pd.DataFrame):
        if columns is not None:
            X = match_columns(X, list(columns), "X", "the model was fitted on")
        background = match_columns(background, list(X.columns), "background", "X has")
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
                        "(same categories in the same order); build both with the same pd.CategoricalDtype"
                    )
    elif X.shape[1] != background.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but background has {background.shape[1]}: "
            "the background must describe the same features"
        )
    check_finite(X, "X", allow_nan)
    check_finite(background, "background", allow_nan)
    return X, background


def check_enumerable(d: int, max_features: int) -> None:
    """The limits of an enumeration of all ``2**d`` coalitions: at most ``max_features`` features
    (and 62: coalitions are int64 bitmasks), else a ``ValueError`` that names the book's estimator
    beyond exact enumeration."""
    limit = min(max_features, 62)
    if d > limit:
        raise ValueError(
            f"exact Shapley values enumerate all 2**d coalitions: d={d} features exceeds the limit of "
            f"{limit} (2**{limit} coalitions per row). Estimate them with lib.sampling.sample_shapley (antithetic "
            "permutation sampling, the book's default): sample_shapley(f, X, background, max_rows=..., "
            "rng=np.random.default_rng(0)), max_rows the model rows to spend per explained row; or group "
            "the features (lib.coalitional)."
        )


def check_finite_inputs(X: Any, background: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`check_inputs` for arrays of finite numbers: both as float arrays, no NaN or inf."""
    Xa, bg = check_inputs(np.asarray(X, dtype=float), np.asarray(background, dtype=float))
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
    check_finite(frame, name, allow_nan)
    return frame, was_frame

