"""The interventional game of a model: hybrid rows, the checked model call, the game's values.

Book: :ref:`eq-found-interventional` (book/foundations.md).

The interventional game of a row ``x`` (Štrumbelj & Kononenko, 2014; Lundberg & Lee, 2017)
is ``v_x(S) = (1/m) Σ_b f(x_S, b_{-S})``: the mean of the model's outputs on the *hybrid
rows* ``(x_S, b_{-S})``, ``x`` on the features of the coalition ``S`` and a background row
``b`` elsewhere (book eq. ``eq-found-interventional``).  This module builds those rows and
asks the model for them:

* :func:`bitmask_rows`, :func:`hybrid_rows`, :func:`mix_rows` — coalitions as membership rows,
  and the hybrid rows of arrays and DataFrames (the pieces every explainer of the book shares);
* :func:`evaluate` — the model called on rows, its outputs checked (shape, finiteness);
* :func:`interventional_game` (all ``2**d`` coalitions, or chosen ones) and
  :func:`coalition_values` (any list of coalitions, any number of features) — the game's values,
  every hybrid row evaluated, each coalition's value numpy's mean over the background; on
  checked inputs, :func:`game_values`.  With :func:`lib.shapley.shapley_from_game`, this is the
  exact engine's reference path (:func:`lib.shapley.exact_shapley`).

Used by :mod:`lib.shapley`, :mod:`lib.coalitional`, :mod:`lib.permutation_sampling`,
:mod:`lib.typical_value`, :mod:`lib.sdp_estimation` and :mod:`lib.bayesnet`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from lib.validation import check_enumerable, check_inputs

__all__ = [
    "MAX_EXACT_FEATURES",
    "as_coalition_masks",
    "bitmask_rows",
    "coalition_values",
    "evaluate",
    "game_values",
    "hybrid_rows",
    "interventional_game",
    "mix_rows",
]

Model = Callable[[Any], Any]
ArrayOrFrame = np.ndarray | pd.DataFrame

#: The largest number of features an enumeration of all coalitions accepts by default
#: (:func:`interventional_game`, :func:`lib.shapley.exact_shapley`): 2**20 coalitions, each
#: evaluated against every background row, is already ~1e6 model calls per row.
MAX_EXACT_FEATURES = 20

#: Target size in bytes of one model call's hybrid rows in :func:`game_values`: 1 MiB, so that
#: a block and the model's work on it stay in a core's L2 cache (2 MiB on the book's machines,
#: 1 MiB or more on most).  With 4 MiB blocks a near-free linear model at d = 10 took 2-3 times
#: as long; a model with a per-call cost (scikit-learn's gradient boosting, ~0.5 ms a call)
#: pays about 10 % more calls at d = 12 (``benchmarks/exact_engine.py`` measures both).
BLOCK_BYTES = 2**20


def bitmask_rows(bitmasks: np.typing.ArrayLike, d: int) -> np.ndarray:
    """Boolean membership rows of coalitions given by their bitmasks.

    ``bitmask_rows(S, d)[j, i]`` is ``True`` iff bit ``i`` of ``S[j]`` is set (player ``i``
    is in the coalition ``S[j]``); shape ``S.shape + (d,)``.  Bitmasks are read as int64,
    so ``d <= 62``.
    """
    if not 0 <= d <= 62:
        raise ValueError(f"bitmasks as int64 hold 0 to 62 players, got d={d}")
    s = np.asarray(bitmasks, dtype=np.int64)
    return ((s[..., None] >> np.arange(d, dtype=np.int64)) & 1).astype(bool)


def mix_rows(xs: pd.DataFrame, donor: pd.DataFrame, keep: np.ndarray) -> pd.DataFrame:
    """Row ``r`` takes ``xs`` where ``keep[r, j]`` is True and ``donor`` elsewhere (aligned rows).

    The one place where the book builds hybrid rows of DataFrames (the interventional
    game, permutation sampling, typical-value replacements).  Column dtypes are kept:
    categorical columns are mixed through their codes; a numerical column that receives
    NaN (e.g. a "missing" replacement) in an integer column becomes float.
    """
    if keep.shape != (len(xs), xs.shape[1]) or len(donor) != len(xs):
        raise ValueError("mix_rows needs aligned frames and a (rows, columns) mask")
    cols = {}
    for j, c in enumerate(xs.columns):
        a, b = xs[c], donor[c]
        if isinstance(a.dtype, pd.CategoricalDtype):
            codes = np.where(keep[:, j], a.cat.codes.to_numpy(), b.cat.codes.to_numpy())
            cols[c] = pd.Categorical.from_codes(codes, dtype=a.dtype)
            continue
        vals = np.where(keep[:, j], a.to_numpy(), b.to_numpy())
        if pd.api.types.is_numeric_dtype(a.dtype) and not pd.api.types.is_bool_dtype(a.dtype):
            try:
                out = vals.astype(a.dtype)
            except (TypeError, ValueError):  # NaN into an integer column
                out = vals.astype(float)
            if out.dtype.kind in "iu" and np.isnan(vals.astype(float)).any():
                out = vals.astype(float)
            cols[c] = out
        else:
            try:
                cols[c] = pd.array(vals, dtype=a.dtype)
            except (TypeError, ValueError):
                cols[c] = vals
    return pd.DataFrame(cols, columns=xs.columns)


def hybrid_rows(X: ArrayOrFrame, background: ArrayOrFrame, inst: np.ndarray, member: np.ndarray) -> ArrayOrFrame:
    """Rows taking ``x`` on the features of a coalition and ``b`` elsewhere, block by block.

    ``inst`` (shape ``(r,)``) gives the explained row of each of ``r`` blocks, ``member``
    (shape ``(r, d)``) the coalition of each block.  Every block is repeated over all
    background rows: the result has ``r * m`` rows, block-major (background order within
    a block).
    """
    m = background.shape[0]
    if isinstance(X, pd.DataFrame):
        inst_rows = np.repeat(inst, m)
        bg_rows = np.tile(np.arange(m), len(inst))
        return mix_rows(X.iloc[inst_rows], background.iloc[bg_rows], np.repeat(member, m, axis=0))
    rows = np.where(member[:, None, :], X[inst][:, None, :], background[None, :, :])
    return rows.reshape(len(inst) * m, X.shape[1])


def evaluate(f: Model, rows: ArrayOrFrame, n_rows: int) -> np.ndarray:
    """``f(rows)`` as floats, checked: one output (or one row of ``k``) per row, all finite."""
    out = np.asarray(f(rows), dtype=float)
    if out.ndim == 0 or out.shape[0] != n_rows or out.ndim > 2:
        raise ValueError(
            f"the model must map {n_rows} rows to an array of shape ({n_rows},) or "
            f"({n_rows}, k); it returned shape {out.shape}"
        )
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"the model returned NaN or infinite outputs for {int((~np.isfinite(out)).sum())} "
            "of the evaluated rows (e.g. log of a zero probability); explain a finite output"
        )
    return out


# ---------------------------------------------------------------------------
# The game's values: every hybrid row evaluated
# ---------------------------------------------------------------------------


def as_coalition_masks(coalitions: Any, d: int) -> np.ndarray:
    """Coalitions as a boolean ``(c, d)`` array (row ``r``, column ``j``: feature ``j`` present).

    Accepts that array itself, or bitmasks (bit ``j`` = feature ``j``) as integers of any
    size: numpy integers while ``d <= 62``, Python ints beyond (no ``2**d`` array is
    ever built, so ``d`` can be in the hundreds).
    """
    if d < 1:
        raise ValueError(f"need at least one feature, got d={d}")
    if isinstance(coalitions, np.ndarray) and coalitions.dtype == bool:
        if coalitions.ndim != 2 or coalitions.shape[1] != d or coalitions.shape[0] == 0:
            raise ValueError(f"boolean coalitions must have shape (c, {d}) with c >= 1, got {coalitions.shape}")
        return coalitions
    ints = [int(s) for s in np.asarray(coalitions, dtype=object).reshape(-1)]
    if not ints:
        raise ValueError("coalitions must not be empty")
    if min(ints) < 0 or max(ints) >= 1 << d:
        raise ValueError(f"coalitions must be bitmasks in [0, 2**{d})")
    if d <= 62:
        return bitmask_rows(ints, d)
    return np.array([[(s >> j) & 1 for j in range(d)] for s in ints], dtype=bool)


def coalition_values(
    f: Model,
    X: ArrayOrFrame | np.typing.ArrayLike,
    background: ArrayOrFrame | np.typing.ArrayLike,
    coalitions: Any,
    *,
    max_rows_per_call: int = 2**16,
    allow_nan: bool = False,
) -> np.ndarray:
    """The interventional game on an explicit list of coalitions, for any number of features.

    Book: :ref:`eq-found-interventional` (book/foundations.md); :ref:`eq-found-value-function`
        (notebooks/00-foundations/01-shapley-values.ipynb).

    ``v_x(S) = (1/m) sum_b f(x_S, b_{-S})`` (book eq. ``eq-found-interventional``;
    Štrumbelj & Kononenko, 2014) for each row of ``X`` and each coalition in
    ``coalitions`` (see :func:`as_coalition_masks`), without allocating the ``2**d``
    coalitions.  Each *distinct* coalition is evaluated once: the model sees
    ``n * (number of distinct coalitions) * m`` rows, in calls of at most about
    ``max_rows_per_call`` rows.

    Returns ``(n, c)`` for a single-output model, ``(n, c, k)`` otherwise, in the order of
    ``coalitions`` (repeated coalitions repeat their value).
    """
    X, background = check_inputs(X, background, allow_nan)
    if max_rows_per_call < 1:
        raise ValueError("max_rows_per_call must be >= 1")
    masks = as_coalition_masks(coalitions, X.shape[1])
    # distinct coalitions in increasing bitmask order (the columns reversed make the
    # lexicographic order of np.unique the numeric order of the bitmasks)
    unique_rev, inverse = np.unique(masks[:, ::-1], axis=0, return_inverse=True)
    values = _coalition_means(f, X, background, np.ascontiguousarray(unique_rev[:, ::-1]), max_rows_per_call)
    return values[:, np.asarray(inverse).reshape(-1)]


def _coalition_means(f: Model, X: ArrayOrFrame, background: ArrayOrFrame, masks: np.ndarray,
                     max_rows_per_call: int) -> np.ndarray:
    """``(n, c[, k])``: the mean over the background of the model's outputs on the hybrid rows of
    every explained row and every coalition of ``masks`` ``(c, d)``, in calls of at most about
    ``max_rows_per_call`` rows (whole coalitions: ``m`` rows each)."""
    n, m, n_coal = X.shape[0], background.shape[0], masks.shape[0]
    per_call = max(1, max_rows_per_call // m)
    result: np.ndarray | None = None
    for start in range(0, n * n_coal, per_call):
        stop = min(n * n_coal, start + per_call)
        inst, coal = np.divmod(np.arange(start, stop), n_coal)
        out = evaluate(f, hybrid_rows(X, background, inst, masks[coal]), (stop - start) * m)
        means = out.reshape((stop - start, m) + out.shape[1:]).mean(axis=1)
        if result is None:
            result = np.empty((n * n_coal,) + means.shape[1:])
        elif means.shape[1:] != result.shape[1:]:
            raise ValueError("the model returned a different number of outputs between calls")
        result[start:stop] = means
    assert result is not None
    return result.reshape((n, n_coal) + result.shape[1:])


def game_values(f: Model, X: ArrayOrFrame, background: ArrayOrFrame, max_rows_per_call: int) -> np.ndarray:
    """All ``2**d`` coalition values of every row of ``X``, ``(n, 2**d[, k])``: the reference path.

    Book: :ref:`eq-found-interventional` (book/foundations.md).

    :func:`interventional_game` on inputs already checked (:func:`lib.validation.check_enumerable`),
    for the callers that checked them.  Every hybrid row ``(x_S, b_{-S})`` is evaluated, and ``v_x(S)`` is numpy's mean of the
    model's ``m`` outputs for ``S``, in background order.  For an array, in blocks of the
    ``2**k`` coalitions that share their high ``d - k`` features, about :data:`BLOCK_BYTES`
    of rows each (as many explained rows a call as fit when ``k = d``): the ``(2**k, m, d)``
    rows of a block are built once per explained row by doubling (copy the first half, put
    ``x`` in the new feature's column), and the blocks are visited in Gray-code order of their
    high features, so that the next block differs in one column, rewritten in place (the model
    must not modify its input).  A DataFrame (or ``d = 0``): :func:`_coalition_means` over all
    coalitions.
    """
    n, d = X.shape
    m = background.shape[0]
    if isinstance(X, pd.DataFrame) or d == 0:
        return _coalition_means(f, X, background, bitmask_rows(np.arange(2**d), d), max_rows_per_call)
    rows_per_call = min(max_rows_per_call, max(1, BLOCK_BYTES // (8 * d)))
    k = 0
    while k < d and 2 ** (k + 1) * m <= rows_per_call:
        k += 1
    n_low, n_high = 2**k, 2 ** (d - k)
    group = max(1, rows_per_call // (n_low * m)) if k == d else 1
    dtype = np.result_type(X.dtype, background.dtype)
    result: np.ndarray | None = None
    for start in range(0, n, group):
        stop = min(n, start + group)
        buf = np.empty((stop - start, n_low, m, d), dtype=dtype)   # [row, low coalition, b, feature]
        for g, x in enumerate(X[start:stop]):
            buf[g, 0] = background
            for j in range(k):
                h = 1 << j
                buf[g, h : 2 * h] = buf[g, :h]
                buf[g, h : 2 * h, :, j] = x[j]
        rows = buf.reshape(-1, d)
        x = X[start]                                   # group > 1 only when n_high == 1
        hi = 0
        for t in range(n_high):
            if t:
                j = k + ((t & -t).bit_length() - 1)   # the bit a Gray code flips at step t
                hi ^= 1 << (j - k)
                buf[0, :, :, j] = x[j] if (hi >> (j - k)) & 1 else background[:, j]
            out = evaluate(f, rows, len(rows))
            means = out.reshape((stop - start, n_low, m) + out.shape[1:]).mean(axis=2)
            if result is None:
                result = np.empty((n, 2**d) + means.shape[2:])
            elif means.shape[2:] != result.shape[2:]:
                raise ValueError("the model returned a different number of outputs between calls")
            result[start:stop, hi * n_low:(hi + 1) * n_low] = means
    assert result is not None
    return result


def interventional_game(
    f: Model,
    X: ArrayOrFrame | np.typing.ArrayLike,
    background: ArrayOrFrame | np.typing.ArrayLike,
    *,
    coalitions: np.typing.ArrayLike | None = None,
    max_rows_per_call: int = 2**16,
    allow_nan: bool = False,
    max_features: int = MAX_EXACT_FEATURES,
) -> np.ndarray:
    """All ``2**d`` coalition values of the interventional game of each row of ``X``.

    Book: :ref:`eq-found-interventional` (book/foundations.md); :ref:`eq-found-value-function`
        (notebooks/00-foundations/01-shapley-values.ipynb); :ref:`eq-nb-value-function`
        (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb); :ref:`eq-nb-ks-game`
        (notebooks/01-naive-bayes/03-kernelshap.ipynb).

    ``v_x(S) = (1/m) sum_b f(x_S, b_{-S})`` over the ``m`` background rows
    (Štrumbelj & Kononenko, 2014; Lundberg & Lee, 2017; book eq.
    ``eq-found-interventional``): the model on every hybrid row, each coalition's value the
    mean of its ``m`` outputs in background order (:func:`game_values`: cache-sized blocks).
    With :func:`lib.shapley.shapley_from_game`, the exact engine's reference path.

    Parameters
    ----------
    f
        Model output: maps an ``(r, d)`` array (or DataFrame, if ``X`` is one) to
        ``(r,)`` or ``(r, k)``.  It must not modify its input in place.
    X
        Instances to explain, ``(n, d)`` (a single 1-D row is accepted).
    background
        Background rows ``(m, d)`` replacing the absent features; same type and
        columns as ``X``.
    coalitions
        Evaluate only these coalitions (bitmasks); the others are NaN in the result.
        Default: all ``2**d``.  Cost: ``n * len(coalitions) * m`` model rows.
    max_rows_per_call
        Bound on the number of rows passed to ``f`` at once (memory stays bounded).
    allow_nan
        Let NaN through to the model (for models that handle missing values).
    max_features
        Refuse more features than this (default :data:`MAX_EXACT_FEATURES`).

    Returns
    -------
    numpy.ndarray
        ``(n, 2**d)`` for a single-output model, ``(n, 2**d, k)`` otherwise.
    """
    X, background = check_enumerable(X, background, allow_nan, max_features, max_rows_per_call)
    n, d = X.shape
    if coalitions is None:
        return game_values(f, X, background, max_rows_per_call)
    chosen = np.unique(np.asarray(coalitions, dtype=np.int64))
    if chosen.ndim != 1 or chosen.size == 0 or chosen[0] < 0 or chosen[-1] >= 2**d:
        raise ValueError(f"coalitions must be a non-empty list of bitmasks in [0, 2**{d})")
    values = _coalition_means(f, X, background, bitmask_rows(chosen, d), max_rows_per_call)
    game = np.full((n, 2**d) + values.shape[2:], np.nan)
    game[:, chosen] = values
    return game
