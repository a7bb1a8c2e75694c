"""Exact and sampled Shapley values: the ground-truth engine of the book.

Conventions
-----------
Players are the features ``0 .. d-1``.  A coalition ``S`` is an integer *bitmask*:
feature ``i`` belongs to ``S`` if and only if bit ``i`` of ``S`` is set
(``(S >> i) & 1 == 1``).  A game on ``d`` players is therefore an array of
``2**d`` coalition values indexed by bitmask, ``values[..., S] = v(S)``; the empty
coalition is index ``0`` and the grand coalition is index ``2**d - 1``.

The Shapley value of player ``i`` (Shapley, 1953; book eq. ``eq-found-shapley``) is

.. math::

    \\phi_i(v) = \\sum_{S \\subseteq N \\setminus \\{i\\}}
        \\frac{|S|!\\,(d-|S|-1)!}{d!}\\,\\bigl(v(S \\cup \\{i\\}) - v(S)\\bigr).

For a model output ``f`` and an instance ``x`` the *interventional* game of
Lundberg & Lee (2017) and Štrumbelj & Kononenko (2014) replaces the absent
features by background rows ``b``:
``v_x(S) = mean_b f(x_S, b_{-S})`` (book eq. ``eq-found-interventional``).

Shapes follow shap's conventions: values are ``(n, d)`` for a single-output model
and ``(n, d, k)`` for ``k`` outputs; base values are ``(n,)`` or ``(n, k)``.

This module holds the formula, :class:`ShapleyResult` and the public estimators; how the
model is asked for the game (hybrid rows, each distinct row once, cache-sized blocks) is the
private :mod:`lib._shapley_games`, and the input checks are :mod:`lib.validation`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import pandas as pd

from lib import _shapley_games as games
from lib._shapley_games import bitmask_rows, evaluate, mix_rows
from lib.models import model_and_output_names
from lib.validation import as_rows, check_inputs

__all__ = [
    "MAX_EXACT_FEATURES",
    "SamplingOptions",
    "ShapleyResult",
    "CountingModel",
    "adjust_efficiency",
    "as_coalition_masks",
    "bitmask_rows",
    "check_inputs",
    "coalition_masks",
    "coalition_values",
    "evaluate",
    "exact_shapley",
    "game_size",
    "interventional_game",
    "mix_rows",
    "SAMPLING_METHODS",
    "sample_shapley",
    "sampling_rows",
    "shapley_from_game",
    "shapley_weights",
]

#: The largest number of features :func:`exact_shapley` accepts: 2**20 coalitions,
#: each evaluated against every background row, is already ~1e6 model calls per row.
MAX_EXACT_FEATURES = 20

#: :func:`interventional_game` evaluates only the distinct hybrid rows when the rows it
#: would consider (see :func:`lib._shapley_games.full_game`) are at most this fraction of
#: all ``n 2**d m``.
DEDUP_MAX_DISTINCT_FRACTION = 0.5

#: Below this number of players :func:`shapley_from_game` uses a dense
#: ``(2**d, d)`` weight matrix and one matrix product; above it, a loop over players.
_DENSE_MAX_PLAYERS = 14

Model = Callable[[Any], Any]
ArrayOrFrame = np.ndarray | pd.DataFrame


# ---------------------------------------------------------------------------
# Games given by their 2**d coalition values
# ---------------------------------------------------------------------------


def coalition_masks(d: int) -> np.ndarray:
    """Boolean membership matrix of all ``2**d`` coalitions.

    Returns ``M`` of shape ``(2**d, d)`` with ``M[S, i] = True`` iff feature ``i``
    is in the coalition whose bitmask is ``S``.
    """
    if d < 0:
        raise ValueError(f"the number of players must be >= 0, got {d}")
    return bitmask_rows(np.arange(2**d, dtype=np.int64), d)


def _popcount(d: int) -> np.ndarray:
    return coalition_masks(d).sum(axis=1)


def shapley_weights(d: int) -> np.ndarray:
    """Shapley weights ``w(s) = s! (d-s-1)! / d!`` for coalition sizes ``s = 0 .. d-1``.

    Book: :ref:`eq-found-shapley` (book/foundations.md); :ref:`eq-coal-weights`
        (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    Shapley (1953); book eq. ``eq-found-shapley``.  Computed as
    ``1 / (d * C(d-1, s))``, which is exact in floating point for the sizes used here.
    """
    if d < 1:
        raise ValueError(f"Shapley weights need at least one player, got d={d}")
    return np.array([1.0 / (d * math.comb(d - 1, s)) for s in range(d)])


@lru_cache(maxsize=32)
def _dense_operator(d: int) -> np.ndarray:
    """``W`` with ``phi = v @ W``: ``W[S, i] = w(|S|-1)`` if ``i in S`` else ``-w(|S|)``."""
    masks = coalition_masks(d)
    size = masks.sum(axis=1)
    w = shapley_weights(d)
    w_in = np.where(size > 0, w[np.clip(size - 1, 0, d - 1)], 0.0)
    w_out = np.where(size < d, w[np.clip(size, 0, d - 1)], 0.0)
    op = np.where(masks, w_in[:, None], -w_out[:, None])
    op.setflags(write=False)
    return op


def game_size(n_coalitions: int) -> int:
    """The number of players ``d`` of a game given by its ``2**d`` coalition values.

    Raises ``ValueError`` unless ``n_coalitions`` is a power of two.
    """
    d = int(n_coalitions).bit_length() - 1
    if n_coalitions < 1 or 2**d != n_coalitions:
        raise ValueError(
            "a game must give one value per coalition: the last axis must have length "
            f"2**d, got {n_coalitions}"
        )
    return d


def shapley_from_game(values: np.typing.ArrayLike) -> np.ndarray:
    """Exact Shapley values of games given by all their coalition values.

    Book: :ref:`eq-found-shapley` (book/foundations.md); :ref:`eq-found-shapley-sum`
        (notebooks/00-foundations/01-shapley-values.ipynb); :ref:`eq-nb-shapley-def`
        (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).

    Shapley (1953), book eq. ``eq-found-shapley``.

    Parameters
    ----------
    values
        Array of shape ``(..., 2**d)``; ``values[..., S]`` is ``v(S)`` for the
        coalition with bitmask ``S`` (bit ``i`` set iff player ``i`` is in ``S``).
        Any leading axes index independent games, all computed at once.

    Returns
    -------
    numpy.ndarray
        Shape ``(..., d)``: the Shapley value of each player in each game.

    Raises
    ------
    ValueError
        If the last axis is not a power of two or a value is NaN or infinite.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim == 0:
        raise ValueError("a game needs an array of coalition values, got a scalar")
    d = game_size(v.shape[-1])
    if not np.all(np.isfinite(v)):
        raise ValueError("the game has NaN or infinite coalition values")
    if d == 0:
        return np.zeros(v.shape[:-1] + (0,))
    if d <= _DENSE_MAX_PLAYERS:
        return v @ _dense_operator(d)
    return _shapley_from_game_loop(v, d)


def _shapley_from_game_loop(v: np.ndarray, d: int) -> np.ndarray:
    """Same as :func:`shapley_from_game`, one player at a time (bounded memory)."""
    w = shapley_weights(d)
    size = _popcount(d)
    s = np.arange(2**d, dtype=np.int64)
    out = np.empty(v.shape[:-1] + (d,))
    for i in range(d):
        without = s[((s >> i) & 1) == 0]
        out[..., i] = (v[..., without | (1 << i)] - v[..., without]) @ w[size[without]]
    return out


# ---------------------------------------------------------------------------
# Interventional games of a model
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
    n, d = X.shape
    if max_rows_per_call < 1:
        raise ValueError("max_rows_per_call must be >= 1")
    masks = as_coalition_masks(coalitions, d)
    # distinct coalitions in increasing bitmask order (the columns reversed make the
    # lexicographic order of np.unique the numeric order of the bitmasks)
    unique_rev, inverse = np.unique(masks[:, ::-1], axis=0, return_inverse=True)
    unique = np.ascontiguousarray(unique_rev[:, ::-1])
    inverse = np.asarray(inverse).reshape(-1)
    m = background.shape[0]
    n_coal = unique.shape[0]
    blocks_per_call = max(1, max_rows_per_call // m)
    total_blocks = n * n_coal
    result: np.ndarray | None = None
    for start in range(0, total_blocks, blocks_per_call):
        stop = min(total_blocks, start + blocks_per_call)
        idx = np.arange(start, stop)
        inst, coal = np.divmod(idx, n_coal)
        rows = games.hybrid_rows(X, background, inst, unique[coal])
        out = games.evaluate(f, rows, len(idx) * m)
        means = out.reshape((len(idx), m) + out.shape[1:]).mean(axis=1)
        if result is None:
            result = np.empty((total_blocks,) + means.shape[1:])
        elif means.shape[1:] != result.shape[1:]:
            raise ValueError("the model returned a different number of outputs between calls")
        result[start:stop] = means
    assert result is not None
    values = result.reshape((n, n_coal) + result.shape[1:])
    return values[:, inverse]


def _checked_inputs(X: Any, background: Any, allow_nan: bool, max_features: int,
                    max_rows_per_call: int) -> tuple[ArrayOrFrame, ArrayOrFrame]:
    """:func:`lib.validation.check_inputs`, and the limits of an enumeration of all coalitions."""
    X, background = check_inputs(X, background, allow_nan)
    d = X.shape[1]
    if d > max_features:
        raise ValueError(
            f"exact Shapley values enumerate all 2**d coalitions: d={d} features exceeds the "
            f"limit of {max_features} (2**{max_features} = {2**max_features} coalitions per row). "
            "Use lib.shapley.sample_shapley (antithetic permutation sampling, the book's default), or group features."
        )
    if max_rows_per_call < 1:
        raise ValueError("max_rows_per_call must be >= 1")
    return X, background


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
    ``eq-found-interventional``).

    Parameters
    ----------
    f
        Model output: maps an ``(r, d)`` array (or DataFrame, if ``X`` is one) to
        ``(r,)`` or ``(r, k)``.
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

    All ``2**d`` coalitions (the default): when many hybrid rows coincide (a background
    row that agrees with ``x`` on features ``E`` gives the same row for ``S`` and
    ``S ∪ E``), each distinct hybrid row is evaluated once — for an array of plain
    numbers, or a DataFrame (categorical columns included) compared through its columns'
    codes, without missing values; otherwise every row, in cache-sized blocks for an
    array (see :func:`lib._shapley_games.full_game`).  The values are the same either way, to the last bit:
    the means over the background are taken over the same outputs in the same order.
    The model must not modify its input in place.
    allow_nan
        Let NaN through to the model (for models that handle missing values).
    max_features
        Refuse more features than this (default :data:`MAX_EXACT_FEATURES`).

    Returns
    -------
    numpy.ndarray
        ``(n, 2**d)`` for a single-output model, ``(n, 2**d, k)`` otherwise.
    """
    X, background = _checked_inputs(X, background, allow_nan, max_features, max_rows_per_call)
    n, d = X.shape
    if coalitions is None:
        if d > 0 and not isinstance(X, pd.DataFrame):
            return games.full_game(f, X, background, max_rows_per_call, DEDUP_MAX_DISTINCT_FRACTION)
        if d > 0:
            game = games.frame_game_distinct(f, X, background, max_rows_per_call, DEDUP_MAX_DISTINCT_FRACTION)
            if game is not None:
                return game
        chosen = np.arange(2**d, dtype=np.int64)
    else:
        chosen = np.unique(np.asarray(coalitions, dtype=np.int64))
        if chosen.ndim != 1 or chosen.size == 0 or chosen[0] < 0 or chosen[-1] >= 2**d:
            raise ValueError(f"coalitions must be a non-empty list of bitmasks in [0, 2**{d})")
    masks = bitmask_rows(chosen, d)
    values = coalition_values(f, X, background, masks, max_rows_per_call=max_rows_per_call, allow_nan=allow_nan)
    if coalitions is None:
        return values
    game = np.full((n, 2**d) + values.shape[2:], np.nan)
    game[:, chosen] = values
    return game


class CountingModel:
    """A model wrapper that counts what it is asked: calls, and rows evaluated.

    ``CountingModel(f)(Z)`` returns ``f(Z)`` and adds ``len(Z)`` to :attr:`rows` and 1 to
    :attr:`calls`.  Used to compare estimators at the same number of *model
    evaluations* (rows passed to the model), measured rather than assumed.
    """

    def __init__(self, f: Model) -> None:
        if not callable(f):
            raise ValueError("CountingModel needs a callable model")
        self.f = f
        self.rows = 0
        self.calls = 0

    def __call__(self, Z: Any) -> Any:
        n = len(Z) if hasattr(Z, "__len__") else np.asarray(Z).shape[0]
        self.rows += int(n)
        self.calls += 1
        return self.f(Z)


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ShapleyResult:
    """Shapley values of a model output for several rows.

    Attributes
    ----------
    values
        ``(n, d)`` or ``(n, d, k)``.
    base_values
        ``v(∅)``: the mean output over the background, ``(n,)`` or ``(n, k)``.
    outputs
        ``v(N) = f(x)``, ``(n,)`` or ``(n, k)``; efficiency reads
        ``values.sum(axis=1) + base_values == outputs``.
    data
        The explained rows, ``(n, d)`` (array or DataFrame).
    feature_names, output_names
        Optional labels.
    variances
        For sampled values: the estimated variance of each estimate (same shape as
        ``values``), else ``None``.
    n_samples
        For sampled values: the number of samples spent on each ``(row, feature)``.
    method
        ``"exact"`` or the sampling scheme used.
    """

    values: np.ndarray
    base_values: np.ndarray
    outputs: np.ndarray
    data: ArrayOrFrame
    feature_names: list[str] | None = None
    output_names: list[str] | None = None
    variances: np.ndarray | None = None
    n_samples: np.ndarray | None = None
    method: str = "exact"

    def efficiency_gap(self) -> np.ndarray:
        """``f(x) - base - sum_i phi_i`` per row (and output); zero for exact values.

        Book: :ref:`eq-found-efficiency` (book/foundations.md).
        """
        return self.outputs - self.base_values - self.values.sum(axis=1)

    def to_explanation(self, output: int | None = None) -> Any:
        """Convert to a :class:`shap.Explanation` so ``shap.plots`` work on it.

        ``output`` selects one output of a multi-output result (waterfall and
        beeswarm plots need a single output).
        """
        import shap  # imported lazily: importing shap is slow

        values, base = self.values, self.base_values
        if output is not None:
            if values.ndim != 3:
                raise ValueError("output= is only meaningful for a multi-output result")
            values, base = values[:, :, output], base[:, output]
        data = self.data.to_numpy() if isinstance(self.data, pd.DataFrame) else self.data
        names = self.feature_names
        if names is None and isinstance(self.data, pd.DataFrame):
            names = [str(c) for c in self.data.columns]
        return shap.Explanation(
            values=values,
            base_values=base,
            data=data,
            feature_names=names,
            output_names=(self.output_names if output is None else None),
        )

    def __post_init__(self) -> None:
        """Refuse names that do not fit the values: ``d`` feature names, one name per output."""
        shape = np.shape(self.values)
        if self.feature_names is not None and len(shape) >= 2 and len(self.feature_names) != shape[1]:
            raise ValueError(f"{len(self.feature_names)} feature names for {shape[1]} features")
        if self.output_names is not None and len(shape) >= 2:
            k = shape[2] if len(shape) == 3 else 1
            if len(self.output_names) != k:
                raise ValueError(
                    f"{len(self.output_names)} output names for {k} outputs ({list(self.output_names)}): "
                    "give one name per output (per column of the model's output)"
                )


def _feature_names(X: ArrayOrFrame, feature_names: Sequence[str] | None) -> list[str] | None:
    if feature_names is not None:
        names = [str(c) for c in feature_names]
        if len(names) != X.shape[1]:
            raise ValueError(f"{len(names)} feature names for {X.shape[1]} features")
        return names
    if isinstance(X, pd.DataFrame):
        return [str(c) for c in X.columns]
    return None


def exact_shapley(
    f: Model,
    X: ArrayOrFrame | np.typing.ArrayLike,
    background: ArrayOrFrame | np.typing.ArrayLike,
    *,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    max_rows_per_call: int = 2**16,
    allow_nan: bool = False,
    max_features: int = MAX_EXACT_FEATURES,
) -> ShapleyResult:
    """Exact interventional Shapley values of a model output, by enumeration.

    Book: :ref:`eq-found-interventional`, :ref:`eq-found-shapley` (book/foundations.md).

    Evaluates the interventional game (book eq. ``eq-found-interventional``) on all
    ``2**d`` coalitions against every background row, then applies the Shapley
    formula (Shapley, 1953; book eq. ``eq-found-shapley``) with
    :func:`shapley_from_game`.  This is what shap's ``ExactExplainer`` computes
    with an ``Independent`` masker holding the same background rows.

    Cost: at most ``n * 2**d * m`` model rows, evaluated in batches of at most
    ``max_rows_per_call``; where many hybrid rows coincide (discretised or categorical
    data: an array of plain numbers, or a DataFrame without missing values), each
    *distinct* hybrid row once (see :func:`interventional_game`).  On that path the values
    come from the outputs without the game's ``n 2**d m`` means
    (:func:`lib._shapley_games.distinct_shapley`: per background row, the features where it
    equals ``x`` are null players), equal to the game's values up to rounding (``1e-15``
    relative, a test checks ``1e-12``); ``base_values`` and ``outputs`` are the game's to the
    last bit.  The model must not modify its input in place.
    Refuses ``d > max_features`` with a ``ValueError``.

    Returns
    -------
    ShapleyResult
        ``values`` of shape ``(n, d)`` or ``(n, d, k)``.
    """
    f, output_names = model_and_output_names(f, output_names)  # a fitted classifier or a callable
    Xr, background = _checked_inputs(X, background, allow_nan, max_features, max_rows_per_call)
    direct = None
    if Xr.shape[1] > 0:
        direct = games.distinct_shapley(f, Xr, background, max_rows_per_call, DEDUP_MAX_DISTINCT_FRACTION)
    if direct is not None:
        values, base, outputs = direct
    else:
        game = interventional_game(f, Xr, background, max_rows_per_call=max_rows_per_call,
                                   allow_nan=allow_nan, max_features=max_features)
        if game.ndim == 3:  # (n, 2**d, k) -> (n, k, 2**d) -> (n, k, d) -> (n, d, k)
            values = np.moveaxis(shapley_from_game(np.moveaxis(game, 1, 2)), 1, 2)
        else:
            values = shapley_from_game(game)
        base, outputs = game[:, 0], game[:, -1]
    return ShapleyResult(
        values=values,
        base_values=base,
        outputs=outputs,
        data=Xr,
        feature_names=_feature_names(Xr, feature_names),
        output_names=list(output_names) if output_names is not None else None,
        method="exact",
    )


# ---------------------------------------------------------------------------
# Sampling (Štrumbelj & Kononenko, 2014)
# ---------------------------------------------------------------------------


def adjust_efficiency(
    values: np.ndarray,
    variances: np.ndarray,
    total: np.ndarray,
    *,
    eps: float = 1e-6,
) -> np.ndarray:
    """Spread the efficiency error of estimated Shapley values, more where less precise.

    Book: :ref:`eq-found-efficiency-adjustment` (notebooks/00-foundations/01-shapley-values.ipynb).

    With ``err = total - sum_i phi_i`` (``total = f(x) - f_0``), each estimate moves by
    ``w_i * err`` where ``w_i = v_i / (1 + sum_j v_j)`` and
    ``v_i = var_i / (eps * max_j var_j)``: Shapley-composition paper, Appendix E,
    Eq. (C18)-(C19) (there written with ⊕ and ⊙ in the simplex; here in R), the same
    Sherman-Morrison ridge correction as shap's ``SamplingExplainer``.  Afterwards
    ``|total - sum_i phi_i| = |err| / (1 + sum_j v_j) <= eps * |err|``.

    ``var_i`` is the variance *of the estimate* of ``phi_i`` (as in shap).  When all
    variances are zero the error is spread equally (``w_i = 1/d``).  With several
    outputs each output is adjusted with its own variances; Eq. (C18) instead uses one
    weight per feature from the *trace* of its covariance — pass that trace repeated
    across outputs to get it (``lib.compositions`` does).

    Parameters
    ----------
    values, variances
        ``(n, d)`` or ``(n, d, k)``.
    total
        ``(n,)`` or ``(n, k)``: the sum the values must reach.
    eps
        Ridge strength; the paper uses ``1e-6``.
    """
    values = np.asarray(values, dtype=float)
    variances = np.asarray(variances, dtype=float)
    total = np.asarray(total, dtype=float)
    if values.shape != variances.shape:
        raise ValueError(f"values {values.shape} and variances {variances.shape} differ in shape")
    if values.ndim not in (2, 3) or total.shape != values.shape[:1] + values.shape[2:]:
        raise ValueError(
            f"expected values (n, d[, k]) and total (n[, k]); got {values.shape} and {total.shape}"
        )
    if np.any(variances < 0) or not np.all(np.isfinite(variances)):
        raise ValueError("variances must be finite and non-negative")
    if not eps > 0:
        raise ValueError("eps must be > 0")
    err = total - values.sum(axis=1)
    vmax = variances.max(axis=1, keepdims=True)
    safe = np.where(vmax > 0, vmax, 1.0)
    v = variances / (eps * safe)
    w = v / (1.0 + v.sum(axis=1, keepdims=True))
    w = np.where(vmax > 0, w, 1.0 / values.shape[1])
    return values + w * np.expand_dims(err, 1)


def _one_sample_each(
    f: Model,
    X: ArrayOrFrame,
    background: ArrayOrFrame,
    inst: np.ndarray,
    feat: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """One draw of Štrumbelj & Kononenko's Algorithm 1 for each (instance, feature) pair.

    A random permutation is drawn as random priorities ``u``: the features placed
    before ``i`` are those with ``u_j < u_i``.  A random background row ``w`` is drawn;
    ``b1`` takes ``x`` on the features before ``i`` and on ``i``, ``w`` elsewhere;
    ``b2`` takes ``x`` on the features before ``i`` only.  Returns ``f(b1) - f(b2)``,
    shape ``(r,)`` or ``(r, k)``.
    """
    r = len(inst)
    d = X.shape[1]
    u = rng.random((r, d))
    before = u < u[np.arange(r), feat][:, None]
    with_i = before.copy()
    with_i[np.arange(r), feat] = True
    w = rng.integers(0, background.shape[0], size=r)
    # Build b1 and b2 against a one-row "background" per draw: hybrid rows of x and w.
    if isinstance(X, pd.DataFrame):
        xs, bg = X.iloc[inst], background.iloc[w]
        rows = pd.concat([mix_rows(xs, bg, with_i), mix_rows(xs, bg, before)], ignore_index=True)
    else:
        xs, bg = X[inst], background[w]
        rows = np.concatenate([np.where(with_i, xs, bg), np.where(before, xs, bg)])
    out = games.evaluate(f, rows, 2 * r)
    return out[:r] - out[r:]



@dataclass(frozen=True)
class SamplingOptions:
    """How Štrumbelj & Kononenko's sampler spends ``n_samples`` draws per explained row.

    The options of :func:`sample_shapley` with ``method="uniform"`` or ``"variance"`` (and so of
    :func:`lib.compositions.sample_shapley_compositions`; see :func:`sample_shapley` for what each
    means): ``allocation`` ``"uniform"`` (their Algorithm 1 with equal shares) or ``"variance"``
    (their Algorithm 2: ``min_samples`` each, then the greedy rule of :func:`_greedy_picks`,
    ``batch_size`` at a time, with the book's ``prior_samples`` shrinkage).  A draw costs two model
    rows: :func:`sampling_rows` converts draws to the budget in model rows.
    """

    n_samples: int
    allocation: Literal["variance", "uniform"] = "variance"
    min_samples: int = 2
    batch_size: int = 1
    prior_samples: float = 0.0

    def first_counts(self, d: int) -> np.ndarray:
        """The draws of the fixed first phase, per feature ``(d,)``; checks the options for ``d`` features."""
        if self.batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if not (np.isfinite(self.prior_samples) and self.prior_samples >= 0):
            raise ValueError(f"prior_samples must be a finite number >= 0, got {self.prior_samples}")
        if self.allocation == "uniform":
            if self.n_samples < d:
                raise ValueError(f"n_samples={self.n_samples} is less than one sample per feature (d={d})")
            counts = np.full(d, self.n_samples // d)
            counts[: self.n_samples % d] += 1
            return counts
        if self.allocation == "variance":
            if self.min_samples < 2:
                raise ValueError("min_samples must be >= 2 so that every feature has a variance estimate")
            if self.n_samples < d * self.min_samples:
                raise ValueError(
                    f"n_samples={self.n_samples} is less than min_samples * d = {self.min_samples} * {d}"
                )
            return np.full(d, self.min_samples)
        raise ValueError(f"allocation must be 'variance' or 'uniform', got {self.allocation!r}")

    def greedy_samples(self, d: int) -> int:
        """The draws per explained row left for the greedy phase (Algorithm 2) after the first."""
        if self.allocation != "variance":
            return 0
        return self.n_samples - int(self.first_counts(d).sum())


@dataclass
class _RunningMoments:
    """Count, mean and summed squared deviations of the draws of each ``(row, feature)`` cell.

    ``counts`` ``(n d,)``; ``mean`` and ``m2`` ``(n d, k)`` (``k = 1`` for one output), the
    cells numbered ``row * d + feature``.
    """

    counts: np.ndarray
    mean: np.ndarray
    m2: np.ndarray

    @classmethod
    def of_draws(cls, cell: np.ndarray, draws: np.ndarray, n_cells: int) -> _RunningMoments:
        """The moments of a first batch of draws, ``draws[r]`` a draw of cell ``cell[r]``."""
        counts = np.bincount(cell, minlength=n_cells).astype(float)
        sums = np.zeros((n_cells, draws.shape[1]))
        np.add.at(sums, cell, draws)
        mean = sums / counts[:, None]
        m2 = np.zeros_like(sums)
        np.add.at(m2, cell, (draws - mean[cell]) ** 2)
        return cls(counts, mean, m2)

    def add(self, cell: np.ndarray, draws: np.ndarray) -> None:
        """Welford's update by one draw in each of the distinct cells ``cell``."""
        self.counts[cell] += 1
        delta = draws - self.mean[cell]
        self.mean[cell] += delta / self.counts[cell][:, None]
        self.m2[cell] += delta * (draws - self.mean[cell])

    def sample_variances(self) -> np.ndarray:
        """The plain sample variance of each cell's draws, ``(n d, k)``."""
        return self.m2 / np.maximum(self.counts[:, None] - 1, 1)


def _greedy_picks(moments: _RunningMoments, n: int, d: int, batch: int, prior_samples: float) -> np.ndarray:
    """The features of the next ``batch`` draws of each row: Štrumbelj & Kononenko's Algorithm 2.

    Each draw goes to the feature maximising ``σ̃_i²/m_i − σ̃_i²/(m_i+1)`` (the trace over
    outputs, the variances frozen during the batch, the counts as planned so far), with
    ``σ̃_i²`` the sample variance shrunk by ``prior_samples`` (see :func:`sample_shapley`).
    Returns ``(n, batch)`` feature indices.
    """
    ss = moments.m2.sum(axis=1).reshape(n, d)                  # summed squared deviations
    dof = moments.counts.reshape(n, d) - 1.0
    if prior_samples > 0:
        pooled = (ss / dof).mean(axis=1, keepdims=True)      # the instance's mean variance
        trace = (ss + prior_samples * pooled) / (dof + prior_samples)
    else:
        trace = ss / dof
    planned = moments.counts.reshape(n, d).copy()
    rows_idx = np.arange(n)
    picks = np.empty((n, batch), dtype=np.int64)
    for t in range(batch):
        gain = trace / (planned * (planned + 1.0))
        j = np.argmax(gain, axis=1)
        picks[:, t] = j
        planned[rows_idx, j] += 1
    return picks


#: The sampled estimators of :func:`sample_shapley`: the book's default first.
SAMPLING_METHODS = ("antithetic", "uniform", "variance")


def sampling_rows(n_samples: int, *, m: int = 1) -> int:
    """Model rows of Štrumbelj & Kononenko's sampler for ``n_samples`` draws of one explained row.

    ``2 n_samples + 1 + m``: two rows per draw, ``f(x)`` once, and the ``m`` background rows once
    (the exact base value), counted as if the row were explained alone, as every budget of
    :func:`sample_shapley` is (``max_rows``).  Its inverse is how :func:`sample_shapley` turns
    ``max_rows`` into draws, so ``max_rows=sampling_rows(s, m=m)`` makes exactly ``s`` draws.
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"n_samples must be an integer >= 1, got {n_samples!r}")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m (background rows) must be an integer >= 1, got {m!r}")
    return 2 * int(n_samples) + 1 + int(m)


def _method_options(method: str, given: dict[str, Any]) -> None:
    """Refuse an option of one sampler given to another (it would be ignored silently)."""
    if method not in SAMPLING_METHODS:
        raise ValueError(f"method must be one of {list(SAMPLING_METHODS)}, got {method!r}")
    only = {"min_samples": ("variance",), "batch_size": ("variance",), "prior_samples": ("variance",),
            "background_per_pair": ("antithetic",)}
    wrong = [name for name, value in given.items() if value is not None and method not in only[name]]
    if wrong:
        owner = only[wrong[0]][0]
        raise ValueError(f"{wrong[0]} is an option of method={owner!r}, not of method={method!r}")


def sample_shapley(
    f: Model,
    X: ArrayOrFrame | np.typing.ArrayLike,
    background: ArrayOrFrame | np.typing.ArrayLike,
    *,
    max_rows: int,
    rng: np.random.Generator,
    method: Literal["antithetic", "uniform", "variance"] = "antithetic",
    adjust: bool = False,
    eps: float = 1e-6,
    min_samples: int | None = None,
    batch_size: int | None = None,
    prior_samples: float | None = None,
    background_per_pair: int | None = None,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    allow_nan: bool = False,
    max_rows_per_call: int = 2**16,
) -> ShapleyResult:
    """Sampled interventional Shapley values, for more features than :func:`exact_shapley` takes.

    Book: :ref:`eq-found-shapley-perm`, :ref:`eq-found-sampling`
        (notebooks/00-foundations/01-shapley-values.ipynb).

    Estimates the values :func:`exact_shapley` computes with the same background (the
    interventional game), unbiased, spending at most ``max_rows`` model rows per explained
    row.  ``f`` is a fitted classifier (its ``predict_proba``) or a function of the rows
    (:func:`lib.models.as_model`).

    ``method="antithetic"`` (the default, the book's recommended estimator):
    :func:`lib.permutation_sampling.antithetic_shapley`, orderings walked forwards and backwards
    (Mitchell et al., 2022), each walk giving every feature a sample, post-stratified by
    background row; its option ``background_per_pair``.  ``method="uniform"`` and
    ``"variance"``: Štrumbelj & Kononenko (2014), Algorithms 1 and 2, one random ordering and
    one background row per draw, for one feature: the estimators chapter 0 and chapter 2 study.
    Each draw for feature ``i`` records ``f(b1) - f(b2)``, where ``b1``/``b2`` take ``x`` on the
    features preceding ``i`` with/without ``i`` and ``w`` elsewhere; the estimate is the mean.

    * ``"uniform"``: Algorithm 1 for every feature with an equal share of the draws (the
      remainder goes to the first features).
    * ``"variance"``: Algorithm 2.  Every feature first gets ``min_samples`` draws (default 2);
      each further draw goes to the feature maximising ``σ_i²/m_i − σ_i²/(m_i+1)``, the
      expected drop in the summed squared error, with ``σ_i²`` the running sample variance
      (for ``k`` outputs, the trace: the sum of the ``k`` variances, as in the
      Shapley-composition paper's Appendix D, Eq. (C17)).  The draws are allocated ``batch_size``
      at a time (default 1, the algorithm as published) with the variances frozen during a
      batch.  ``prior_samples`` (book extension, default 0 = as published): the variance the
      greedy rule uses is shrunk towards the instance's mean over features, as if each feature
      had ``prior_samples`` extra squared deviations at that mean,
      ``σ̃_i² = (Σ(δ - δ̄)² + p σ̄²) / (m_i - 1 + p)``.  With a model whose differences take few
      values (trees), two draws are often equal, the published rule then sees ``σ_i² = 0`` and
      never samples that feature again (it is *starved* at ``min_samples``); the shrinkage fades
      as ``m_i`` grows, so the allocation still tends to ``m_i ∝ σ_i``.  The returned
      ``variances`` are always the plain sample variances.

    The budget ``max_rows`` counts model rows per explained row as if it were explained alone:
    ``f(x)`` once, the ``m`` background rows once (the base value is exact), and the rows of the
    draws or walks.  Štrumbelj & Kononenko's sampler makes ``(max_rows - 1 - m) // 2`` draws
    (two rows each; :func:`sampling_rows` is the inverse); the antithetic sampler takes pairs of
    walks while the rows they need fit (a walk skips the rows it leaves unchanged,
    :func:`lib.permutation_sampling.walk_rows`).  :class:`CountingModel` counts the rows.

    ``adjust=True`` applies :func:`adjust_efficiency` (Appendix E, Eq. (C18)-(C19) of the
    Shapley-composition paper; shap's ``SamplingExplainer``) so the estimates add up to
    ``f(x) - E_b f(b)``; the antithetic estimate already does once every background row has
    served (``max_rows`` large enough).

    Returns
    -------
    ShapleyResult
        With ``variances`` (the variance of each estimate) and ``n_samples`` (``(n, d)``,
        samples per feature).  Base values are exact: the mean of ``f`` over the whole
        background.

    Raises
    ------
    ValueError
        A budget too small for one draw per feature (the message gives the smallest
        ``max_rows``), an option of another method, or bad input (:mod:`lib.validation`).
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator, e.g. np.random.default_rng(0)")
    _method_options(method, {"min_samples": min_samples, "batch_size": batch_size,
                             "prior_samples": prior_samples, "background_per_pair": background_per_pair})
    if isinstance(max_rows, bool) or not isinstance(max_rows, (int, np.integer)) or max_rows < 1:
        raise ValueError(f"max_rows (model rows per explained row) must be an integer >= 1, got {max_rows!r}")
    f, output_names = model_and_output_names(f, output_names)
    if method == "antithetic":
        from lib.permutation_sampling import antithetic_shapley  # it builds on this module

        res = antithetic_shapley(
            f, X, background, max_rows=int(max_rows), rng=rng, background_per_pair=background_per_pair or 1,
            max_rows_per_call=max_rows_per_call, feature_names=feature_names, output_names=output_names,
            allow_nan=allow_nan,
        )
        if not adjust:
            return res
        assert res.variances is not None
        values = adjust_efficiency(res.values, res.variances, res.outputs - res.base_values, eps=eps)
        return replace(res, values=values, method=res.method + "-adjusted")
    X, background = check_inputs(X, background, allow_nan)
    n, d = X.shape
    if d == 0:
        raise ValueError("X has no features")
    m = background.shape[0]
    options = SamplingOptions(0, method, 2 if min_samples is None else min_samples,
                              1 if batch_size is None else batch_size,
                              0.0 if prior_samples is None else prior_samples)
    least = d if method == "uniform" else d * options.min_samples
    if max_rows < sampling_rows(least, m=m):
        what = "one draw per feature" if method == "uniform" else f"min_samples={options.min_samples} draws per feature"
        raise ValueError(
            f"max_rows={max_rows} is less than {what} needs: at least {sampling_rows(least, m=m)} model rows "
            f"per explained row (2 per draw, f(x) once and the {m} background rows once; "
            "lib.shapley.sampling_rows)"
        )
    return _strumbelj_kononenko(f, X, background, replace(options, n_samples=(int(max_rows) - 1 - m) // 2),
                                rng=rng, adjust=adjust, eps=eps, feature_names=feature_names,
                                output_names=output_names)


def _strumbelj_kononenko(
    f: Model,
    X: ArrayOrFrame,
    background: ArrayOrFrame,
    options: SamplingOptions,
    *,
    rng: np.random.Generator,
    adjust: bool,
    eps: float,
    feature_names: Sequence[str] | None,
    output_names: Sequence[str] | None,
) -> ShapleyResult:
    """Štrumbelj & Kononenko's Algorithms 1 and 2 on checked inputs (see :func:`sample_shapley`)."""
    n, d = X.shape
    allocation, batch_size, prior_samples = options.allocation, options.batch_size, options.prior_samples
    first = np.broadcast_to(options.first_counts(d), (n, d))

    # Phase 1: the fixed allocation, all at once.
    inst = np.repeat(np.repeat(np.arange(n), d), first.reshape(-1))
    feat = np.repeat(np.tile(np.arange(d), n), first.reshape(-1))
    diffs = _one_sample_each(f, X, background, inst, feat, rng)
    k_shape = diffs.shape[1:]
    moments = _RunningMoments.of_draws((inst * d + feat).astype(np.int64), diffs.reshape(len(diffs), -1), n * d)

    # Phase 2 (Algorithm 2): greedy allocation of the rest, batch_size at a time.
    remaining = options.greedy_samples(d)
    rows_idx = np.arange(n)
    while remaining > 0:
        b = min(batch_size, remaining)
        picks = _greedy_picks(moments, n, d, b, prior_samples)
        new = _one_sample_each(f, X, background, np.repeat(rows_idx, b), picks.reshape(-1), rng).reshape(n * b, -1)
        for t in range(b):  # one draw at a time per (instance, feature) cell
            moments.add(rows_idx * d + picks[:, t], new[rows_idx * b + t])
        remaining -= b

    values = moments.mean.reshape((n, d) + k_shape)
    sample_var = moments.sample_variances().reshape((n, d) + k_shape)
    cnt = moments.counts.reshape(n, d)
    variances = sample_var / cnt.reshape((n, d) + (1,) * len(k_shape))

    base_out = games.evaluate(f, background, background.shape[0]).mean(axis=0)
    outputs = games.evaluate(f, X, n)
    base = np.broadcast_to(base_out, outputs.shape).copy()
    if outputs.shape[1:] != k_shape:
        raise ValueError("the model returned a different number of outputs between calls")
    if adjust:
        values = adjust_efficiency(values, variances, outputs - base, eps=eps)
    return ShapleyResult(
        values=values,
        base_values=base,
        outputs=outputs,
        data=X,
        feature_names=_feature_names(X, feature_names),
        output_names=list(output_names) if output_names is not None else None,
        variances=variances,
        n_samples=cnt.astype(np.int64),
        method=f"sampling-{allocation}" + ("-adjusted" if adjust else ""),
    )
