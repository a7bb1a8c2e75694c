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
* :func:`common_dtypes` — one dtype per column for ``X`` and the background that holds the values
  of both (hybrid rows mix them: an integer ``X`` against a float background gives float columns;
  categorical and object columns stay what they are);
* :func:`check_budget`, :func:`check_random`, :func:`check_seed` — a budget in model rows (an integer, at
  least the method's minimum), and randomness as scikit-learn takes it (an int seed or a
  ``numpy.random.Generator``);
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
    "check_budget",
    "check_enumerable",
    "check_finite",
    "check_finite_inputs",
    "check_inputs",
    "check_random",
    "check_rows",
    "check_same_columns",
    "check_same_kind",
    "check_seed",
    "check_unique_columns",
    "common_dtypes",
    "is_categorical",
    "is_number",
    "match_columns",
    "model_columns",
    "replicate_seeds",
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
            elif col.dtype.kind == "O" or pd.api.types.is_string_dtype(col.dtype):
                values = col.to_numpy(dtype=object)
                inf[:, j] = _object_inf(values)
                nan[:, j] |= np.vectorize(_is_nan_text, otypes=[bool])(values) if len(values) else False
        return nan, inf
    arr = np.asarray(X)
    if arr.dtype.kind in "fc":
        return np.isnan(arr), np.isinf(arr)
    if arr.dtype.kind in "OSU":
        text_nan = np.vectorize(_is_nan_text, otypes=[bool])(arr) if arr.size else np.zeros(arr.shape, dtype=bool)
        return np.asarray(pd.isna(arr), dtype=bool) | text_nan, _object_inf(arr)
    return np.zeros(arr.shape, dtype=bool), np.zeros(arr.shape, dtype=bool)


def _object_inf(values: np.ndarray) -> np.ndarray:
    """Where an object array holds an infinite number: a float, or a string a model would read as one
    (``'inf'``, ``'-Infinity'``: scikit-learn's ``float('inf')``)."""
    return np.vectorize(_is_inf, otypes=[bool])(values) if values.size else np.zeros(values.shape, dtype=bool)


def _text_number(v: Any) -> float | None:
    """The number a model would read from a string (``float('inf')``, ``float('NaN')``), else ``None``."""
    if isinstance(v, (str, bytes, np.str_)):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def _is_inf(v: Any) -> bool:
    if isinstance(v, (float, np.floating)):
        return bool(np.isinf(v))
    x = _text_number(v)
    return x is not None and bool(np.isinf(x))


def _is_nan_text(v: Any) -> bool:
    """A string a model would read as a missing number (``'nan'``, ``'NaN'``)."""
    x = _text_number(v)
    return x is not None and bool(np.isnan(x))


def check_finite(X: Any, name: str = "X", allow_nan: bool | None = False, nan_remedy: str | None = None) -> None:
    """Refuse infinite values always, and missing ones (NaN, None, NA) unless ``allow_nan``, in any dtype.

    The message names the first bad cell (row, and column by its name on a DataFrame), how many
    others there are, and the remedy.  ``allow_nan=None``: the caller offers no ``allow_nan`` (its
    method cannot take missing values), and the remedy says to impute them.  Strings a model would
    read as numbers count as those numbers (``'inf'`` is infinite, ``'nan'`` missing).  ``nan_remedy``
    replaces the remedy for missing values (a caller that takes ``allow_nan`` another way says how).
    """
    nan, inf = _bad_cells(X)
    if nan_remedy is None:
        nan_remedy = ("impute it, or pass allow_nan=True if the model handles missing values itself"
                      if allow_nan is not None else "impute it (this method cannot take missing values)")
    for bad, what, remedy in (
        (inf, "an infinite value (inf or -inf)",
         "replace it by a finite number (a cap, or NaN and an imputation) before explaining"),
        (nan if not allow_nan else np.zeros_like(nan), "a missing value (NaN)", nan_remedy),
    ):
        if bad.any():
            rows, cols = np.nonzero(bad)
            more = int(bad.sum()) - 1
            others = f" (and {more} more cell{'s' if more > 1 else ''})" if more else ""
            raise ValueError(f"{name} has {what} at {_place(X, int(rows[0]), int(cols[0]))}{others}: {remedy}")


def as_rows(X: ArrayOrFrame | np.typing.ArrayLike, name: str = "X", like: pd.DataFrame | None = None) -> ArrayOrFrame:
    """``X`` as a 2-D table of rows: a DataFrame as it is, a 1-D array as one row, and a ``pd.Series``
    as one row **with names** (its index names the columns).

    A Series' values take their own dtypes (numbers become numeric columns), and, when ``like`` (the
    other table of the call) is given, its categorical dtypes: a value that is not one of the
    categories is refused, naming the column, the value and the categories.
    """
    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, pd.Series):
        row = X.to_frame().T.infer_objects()
        if isinstance(like, pd.DataFrame):
            for c in row.columns:
                if c in like.columns and not isinstance(like[c], pd.DataFrame) \
                        and isinstance(like[c].dtype, pd.CategoricalDtype):
                    value = row[c].iloc[0]
                    cats = like[c].cat.categories
                    if not pd.isna(value) and value not in cats:
                        raise ValueError(f"{name}[{c!r}] = {value!r} is not a category of column {c!r} "
                                         f"({list(cats)}): give one of them")
                    row[c] = pd.Categorical([value], dtype=like[c].dtype)
        return row
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


def check_same_kind(X: Any, background: Any, names: tuple[str, str] = ("X", "background")) -> None:
    """Both DataFrames or both arrays, else ``ValueError`` with the remedy (name the array's columns)."""
    if isinstance(X, pd.DataFrame) != isinstance(background, pd.DataFrame):
        frame, array = (names[0], names[1]) if isinstance(X, pd.DataFrame) else (names[1], names[0])
        columns = list((X if isinstance(X, pd.DataFrame) else background).columns)
        raise ValueError(
            f"{names[0]} and {names[1]} must both be DataFrames or both be arrays, got "
            f"{type(X).__name__} and {type(background).__name__}: give {array} as a DataFrame with the columns "
            f"of {frame} named ({columns}; pd.DataFrame(rows, columns=[...]) in the order of its values), or one "
            f"row as a pd.Series indexed by them"
        )


def check_same_columns(X: pd.DataFrame, background: pd.DataFrame) -> None:
    """The same column names in the same order, else ``ValueError`` (:func:`match_columns` reorders)."""
    if list(X.columns) != list(background.columns):
        raise ValueError(
            "X and background have different columns (or order): "
            f"{list(X.columns)} vs {list(background.columns)}"
        )


def check_unique_columns(frame: pd.DataFrame, name: str) -> None:
    """No column name given twice, else ``ValueError`` naming them and the remedy."""
    given = list(frame.columns)
    twice = sorted({str(c) for c in given if given.count(c) > 1})
    if twice:
        raise ValueError(f"{name} has the columns {twice} more than once: give each feature once "
                         f"({name}.loc[:, ~{name}.columns.duplicated()] keeps the first)")


def match_columns(frame: pd.DataFrame, columns: list[Any], name: str, reference: str) -> pd.DataFrame:
    """``frame``'s columns matched **by name** to ``columns``, in that order: the one feature-name rule.

    A column missing from ``frame``, one ``frame`` has beyond them (a renamed column is both), or a
    name given twice raises ``ValueError``: ``reference`` says whose columns they are ("the model
    was fitted on", "X has").  As scikit-learn refuses them, but in any order.  The message names
    the columns and the remedy (the columns to give, a rename when one column is missing and one
    is extra).
    """
    check_unique_columns(frame, name)
    given = list(frame.columns)
    if given == list(columns):
        return frame
    missing = [c for c in columns if c not in given]
    extra = [c for c in given if c not in columns]
    if missing or extra:
        parts = ([f"not among them: {extra}"] if extra else []) + ([f"missing: {missing}"] if missing else [])
        rename = (f"; is {extra[0]!r} the column {missing[0]!r} renamed? {name}.rename(columns={{{extra[0]!r}: "
                  f"{missing[0]!r}}})" if len(missing) == 1 and len(extra) == 1 else "")
        raise ValueError(
            f"{name}'s columns do not match the ones {reference} (" + "; ".join(parts) + f"). Give {name} the "
            f"columns {list(columns)} (in any order: they are matched by name)" + rename
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


def _column_dtype(x: pd.Series, b: pd.Series, c: Any, names: tuple[str, str]) -> Any:
    """The dtype of column ``c`` that holds the values of both ``x`` and ``b``, or ``None`` when theirs
    agree; two categorical dtypes must be the same, and a categorical column is not mixed with another."""
    xd, bd = x.dtype, b.dtype
    xc, bc = isinstance(xd, pd.CategoricalDtype), isinstance(bd, pd.CategoricalDtype)
    if xc or bc:
        if xc and bc and list(xd.categories) == list(bd.categories) and xd.ordered == bd.ordered:
            return None
        which = names[1] if xc else names[0]
        other = names[0] if xc else names[1]
        raise ValueError(
            f"column {c!r}: {names[0]} and {names[1]} must share one categorical dtype (the same categories in "
            f"the same order); build both with the same pd.CategoricalDtype, e.g. {which}[{c!r}] = "
            f"{which}[{c!r}].astype({other}[{c!r}].dtype)"
        )
    if xd == bd:
        return None
    numeric = "biuf"
    if isinstance(xd, np.dtype) and isinstance(bd, np.dtype) and xd.kind in numeric and bd.kind in numeric:
        common = np.result_type(xd, bd)
        if common.kind == "f":  # an integer beyond 2**53 has no float: keep the values as objects
            for s in (x, b):
                if s.dtype.kind in "iu" and len(s) and np.abs(s.to_numpy().astype(object)).max() > 2**53:
                    return np.dtype(object)
        return common
    return pd.concat([x, b], ignore_index=True).dtype


def common_dtypes(X: ArrayOrFrame, background: ArrayOrFrame,
                  names: tuple[str, str] = ("X", "background")) -> tuple[ArrayOrFrame, ArrayOrFrame]:
    """``X`` and ``background`` with one dtype per column that holds the values of both.

    Hybrid rows mix them, so each column takes a dtype that keeps every value of either: an integer
    ``X`` against a float background gives float columns (never the background cut to integers), a
    float32 one against float64 gives float64, a nullable ``Int64`` against floats ``Float64``, numbers
    against text ``object``; a categorical column stays categorical (both must have the same
    categories, in the same order) and an object column stays object.  Both tables, so that every
    row the model is given — ``x``, a background row, a hybrid row — has the same dtypes.  Arrays
    take numpy's common type (text and numbers together: ``object``).
    """
    if isinstance(X, pd.DataFrame):
        cast_x, cast_b = {}, {}
        for c in X.columns:
            dtype = _column_dtype(X[c], background[c], c, names)
            if dtype is None:
                continue
            if X[c].dtype != dtype:
                cast_x[c] = dtype
            if background[c].dtype != dtype:
                cast_b[c] = dtype
        return (X.astype(cast_x) if cast_x else X), (background.astype(cast_b) if cast_b else background)
    X, background = np.asarray(X), np.asarray(background)
    if X.dtype == background.dtype:
        return X, background
    kinds = {X.dtype.kind, background.dtype.kind}
    if "O" in kinds or (kinds & set("SU") and kinds - set("SU")):
        common = np.dtype(object)
    else:
        common = np.result_type(X.dtype, background.dtype)
    return X.astype(common, copy=False), background.astype(common, copy=False)


def check_inputs(
    X: ArrayOrFrame | np.typing.ArrayLike, background: ArrayOrFrame | np.typing.ArrayLike | None,
    allow_nan: bool | None = False, columns: list[Any] | None = None, *,
    names: tuple[str, str] = ("X", "background"), allow_nan_background: bool | None = None,
    nan_remedy: str | None = None,
) -> tuple[ArrayOrFrame, ArrayOrFrame | None]:
    """Rows to explain and background rows, checked against each other.

    The one validation every explainer of the book applies, once, at its public boundary (the
    game, :class:`lib.games.Game`, calls it): both 2-D (a 1-D ``X`` is one row, a ``pd.Series`` one
    row with names), both arrays or both DataFrames, at least one row each, the same number of
    features; DataFrame columns matched **by name** (the background's to ``X``'s, and both to
    ``columns`` — the model's ``feature_names_in_`` — when given: reordered, and a missing, extra,
    renamed or repeated column refused, :func:`match_columns`); one dtype per column that holds the
    values of both (:func:`common_dtypes`: categorical dtypes must agree); no infinite value in any
    dtype, and no missing value unless ``allow_nan`` (:func:`check_finite`: the row, the column by
    name, the remedy; ``allow_nan=None``: the caller does not offer it).  ``names`` are the two
    tables' names in the messages (``("X", "data")``); ``allow_nan_background`` lets missing values
    through in the background alone (default: as ``X``); ``nan_remedy`` is the remedy a missing value's
    message gives (:func:`check_finite`).  ``background=None``: ``X`` alone, checked
    the same way.  Returns ``(X, background)`` with the columns in one order.
    """
    xn, bn = names
    if isinstance(X, pd.Series) and isinstance(background, pd.Series):
        X, background = as_rows(X, xn), as_rows(background, bn)
    elif isinstance(X, pd.Series):
        background = None if background is None else as_rows(background, bn)
        X = as_rows(X, xn, like=background if isinstance(background, pd.DataFrame) else None)
    else:
        X = as_rows(X, xn)
        background = None if background is None else as_rows(background, bn, like=X if isinstance(X, pd.DataFrame) else None)
    allow_b = allow_nan if allow_nan_background is None else allow_nan_background
    if background is not None:
        check_same_kind(X, background, names)
    if X.shape[0] == 0:
        raise ValueError(f"{xn} has no rows: give at least one row to explain")
    if background is not None and background.shape[0] == 0:
        raise ValueError(f"{bn} has no rows: the absent features need values to average over; give at least one "
                         f"row (e.g. a sample of the training rows)")
    if isinstance(X, pd.DataFrame):
        check_unique_columns(X, xn)
        if columns is not None:
            X = match_columns(X, list(columns), xn, "the model was fitted on")
        if background is not None:
            background = match_columns(background, list(X.columns), bn, f"{xn} has")
            X, background = common_dtypes(X, background, names)
    elif background is not None:
        if X.shape[1] != background.shape[1]:
            raise ValueError(
                f"{xn} has {X.shape[1]} features but {bn} has {background.shape[1]}: "
                f"the {bn} must describe the same features"
            )
        X, background = common_dtypes(X, background, names)
    check_finite(X, xn, allow_nan, nan_remedy)
    if background is not None:
        check_finite(background, bn, allow_b, nan_remedy)
    return X, background


def check_enumerable(d: int, max_features: int) -> None:
    """The limits of an enumeration of all ``2**d`` coalitions: at most ``max_features`` features
    (and 62: coalitions are int64 bitmasks), else a ``ValueError`` that points to the book's sampler
    beyond exact enumeration and its default estimator (``lib.sampling.DEFAULT``, not named here:
    :mod:`lib.sampling` imports this module)."""
    limit = min(max_features, 62)
    if d > limit:
        raise ValueError(
            f"exact Shapley values enumerate all 2**d coalitions: d={d} features exceeds the limit of "
            f"{limit} (2**{limit} coalitions per row). Estimate them with lib.sampling.sample_shapley, which runs "
            "the default estimator, lib.sampling.DEFAULT, unless method= names another of "
            "lib.sampling.estimators(): sample_shapley(f, X, background, max_rows=..., "
            "rng=np.random.default_rng(0)), max_rows the model rows to spend per explained row; or group "
            "the features (lib.coalitional)."
        )


def check_finite_inputs(X: Any, background: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`check_inputs` for arrays of finite numbers: both as float arrays, no NaN or inf."""
    Xa, bg = check_inputs(np.asarray(X, dtype=float), np.asarray(background, dtype=float))
    return Xa, bg


def check_budget(value: Any, name: str, least: int = 1, needs: str = "") -> int:
    """A budget (model rows, draws, evaluations): an integer at least ``least``, else ``ValueError``
    naming the value, the least budget (and what it buys, ``needs``) and the remedy."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and np.isfinite(value):
            suggestion = max(int(value), least)
            raise ValueError(f"{name} must be an integer, got {value!r}: give {name}={suggestion}")
        raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    if value < least:
        why = f" ({needs})" if needs else ""
        raise ValueError(f"{name}={int(value)} is less than the least this call needs, {least}{why}: give "
                         f"{name} >= {least}")
    return int(value)


def check_random(rng: Any, name: str = "rng") -> np.random.Generator:
    """Randomness as scikit-learn takes it: an int seed (``numpy.random.default_rng(seed)``) or a
    ``numpy.random.Generator`` (used as it is); anything else raises ``TypeError``, a negative seed
    ``ValueError``, naming the remedy."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"{name}={int(rng)}: a seed is an integer >= 0 (or a numpy.random.Generator)")
        return np.random.default_rng(int(rng))
    raise TypeError(f"{name} must be an int seed or a numpy.random.Generator, e.g. {name}=0 or "
                    f"{name}=np.random.default_rng(0); got {type(rng).__name__}")


def check_seed(seed: Any, name: str = "seed") -> int:
    """A seed for a tool that takes an integer (shap seeds numpy's global generator): an int in
    ``[0, 2**32)`` as it is, or a ``numpy.random.Generator``, which gives one (``seed.integers(2**32)``)."""
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(2**32))
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if not 0 <= seed < 2**32:
            raise ValueError(f"{name}={int(seed)}: a seed is an integer in [0, 2**32) (or a numpy.random.Generator)")
        return int(seed)
    raise TypeError(f"{name} must be an int seed or a numpy.random.Generator, e.g. {name}=0; got {type(seed).__name__}")


def replicate_seeds(seed: int, replicates: Any) -> list[int]:
    """The seeds of ``replicates`` independent runs of a tool seeded with an int (shap's explainers): the
    first is ``seed`` itself, so one replicate is the plain call; the others are drawn from
    ``numpy.random.SeedSequence(seed)``, each in ``[0, 2**32)``.  ``replicates`` is an integer at least 1,
    else ``ValueError`` naming the remedy (:meth:`lib.result.ShapleyResult.from_replicates` pools the runs)."""
    count = check_budget(replicates, "replicates", 1, "one run; two or more give standard errors")
    return [int(seed)] + [int(s) for s in np.random.SeedSequence(int(seed)).generate_state(count - 1)]


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

