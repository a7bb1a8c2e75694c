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

The exact engine (:func:`exact_shapley`) has two paths to the same numbers
(CONTRIBUTING.md, "The exact engine"):

* the *reference path*, the book's derivation as code: the game's ``2**d`` values
  (:func:`lib.games.interventional_game`: the model on every hybrid row, each coalition's value
  the mean over the background), then the formula (:func:`shapley_from_game`);
* the *fast path*, for discretised data (arrays of integers or booleans, DataFrames): the
  private :mod:`lib._shapley_fast` asks the model for each distinct hybrid row once and sums
  the Shapley values background row by background row.

The input's type chooses the path (:func:`exact_path`), never its size; the two agree to
``1e-12`` (``lib/tests/test_shapley_paths.py``).  The interventional game, its hybrid rows
and the checked model call are :mod:`lib.games`'s (:func:`interventional_game`,
:func:`coalition_values` and :data:`MAX_EXACT_FEATURES` are re-exported here), the input checks
:mod:`lib.validation`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import pandas as pd

from lib.games import (
    MAX_EXACT_FEATURES,
    as_coalition_masks,
    bitmask_rows,
    coalition_values,
    evaluate,
    game_values,
    interventional_game,
    mix_rows,
)
from lib.models import model_and_output_names
from lib.validation import as_rows, check_enumerable, check_inputs

__all__ = [
    "MAX_EXACT_FEATURES",
    "SamplingOptions",
    "ShapleyResult",
    "adjust_efficiency",
    "as_coalition_masks",
    "coalition_masks",
    "coalition_values",
    "exact_path",
    "exact_shapley",
    "game_size",
    "interventional_game",
    "SAMPLING_METHODS",
    "sample_shapley",
    "sampling_rows",
    "shapley_from_game",
    "shapley_weights",
]

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

    Shapley (1953), book eq. ``eq-found-shapley``: for each player ``i``, the weighted sum over
    the coalitions ``S`` without ``i`` of ``w(|S|) (v(S ∪ {i}) - v(S))``, all games at once
    (one vectorised pass per player; memory ``O(2**d)`` per game).  Each sum is numpy's, in a
    fixed order, and each game's values depend on that game alone: the same bits on any CPU
    and whatever other games are computed with it (no matrix product, whose rounding depends
    on the BLAS kernel and on the batch).

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
    v = np.ascontiguousarray(v)
    phi = np.empty(v.shape[:-1] + (d,))
    for i, weights in enumerate(_weights_without(d) if d <= 16 else _weights_without.__wrapped__(d)):
        pairs = v.reshape(v.shape[:-1] + (2 ** (d - 1 - i), 2, 2**i))  # [..., bits above i, bit i, bits below i]
        gain = (pairs[..., 1, :] - pairs[..., 0, :]) * weights          # w(|S|) (v(S ∪ {i}) - v(S)), S without i
        phi[..., i] = gain.sum(axis=(-2, -1))
    return phi


@lru_cache(maxsize=32)
def _weights_without(d: int) -> tuple[np.ndarray, ...]:
    """For each player ``i``, the Shapley weights ``w(|S|)`` of the coalitions ``S`` without ``i``,
    shaped ``(2**(d-1-i), 2**i)`` as they sit in a game (the bits above ``i``, the bits below)."""
    w = shapley_weights(d) if d else np.zeros(0)
    size = bitmask_rows(np.arange(2**d), d).sum(axis=1)
    return tuple(w[size.reshape(2 ** (d - 1 - i), 2, 2**i)[:, 0, :]] for i in range(d))


# ---------------------------------------------------------------------------
# Results, and the exact engine
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


def exact_path(X: ArrayOrFrame | np.typing.ArrayLike,
               background: ArrayOrFrame | np.typing.ArrayLike) -> Literal["fast", "reference"]:
    """The path :func:`exact_shapley` takes for these inputs, decided by their types alone.

    ``"fast"`` for discretised data — DataFrames (columns compared through their values, or
    their codes if categorical) and arrays of integers or booleans — where hybrid rows
    coincide whenever a background row agrees with ``x`` on some features: each distinct row is
    evaluated once (:mod:`lib._shapley_fast`).  ``"reference"`` for every other array (floats):
    the game's ``2**d`` values, then :func:`shapley_from_game`.  Never the inputs' sizes: a row
    gets the same values whatever rows are explained with it.  Discretised data stored as
    floats (part indices, category codes) take the fast path once given as integers
    (``X.astype(np.int64)``), if the model accepts them.
    """
    X, background = as_rows(X), as_rows(background, "background")
    if isinstance(X, pd.DataFrame):
        return "fast"
    return "fast" if X.dtype.kind in "biu" and background.dtype.kind in "biu" else "reference"


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

    The Shapley formula (Shapley, 1953; book eq. ``eq-found-shapley``) applied to the
    interventional game (book eq. ``eq-found-interventional``) on all ``2**d`` coalitions
    against every background row.  This is what shap's ``ExactExplainer`` computes with an
    ``Independent`` masker holding the same background rows.

    Two paths, chosen by the inputs' types (:func:`exact_path`), agree to ``1e-12``: floats take
    the reference path, :func:`lib.games.interventional_game` (``n * 2**d * m`` model rows, in batches of
    at most ``max_rows_per_call``) then :func:`shapley_from_game`; discretised data (integers,
    booleans, DataFrames) the fast path, which evaluates each *distinct* hybrid row once and
    sums the values background row by background row (where ``b`` equals ``x`` on features
    ``E``, those are null players of ``f(x_S, b_{-S})``).  The model must not modify its input
    in place.  Refuses ``d > max_features`` with a ``ValueError`` that names the book's
    estimator beyond it.

    Returns
    -------
    ShapleyResult
        ``values`` of shape ``(n, d)`` or ``(n, d, k)``.
    """
    f, output_names = model_and_output_names(f, output_names)  # a fitted classifier or a callable
    X, background = check_enumerable(X, background, allow_nan, max_features, max_rows_per_call)
    if exact_path(X, background) == "fast":
        from lib import _shapley_fast  # numba: imported on the first call that needs it

        values, base, outputs = _shapley_fast.shapley_values(f, X, background, max_rows_per_call)
    else:
        game = game_values(f, X, background, max_rows_per_call)
        if game.ndim == 3:  # (n, 2**d, k) -> (n, k, 2**d) -> (n, k, d) -> (n, d, k)
            values = np.moveaxis(shapley_from_game(np.moveaxis(game, 1, 2)), 1, 2)
        else:
            values = shapley_from_game(game)
        base, outputs = game[:, 0], game[:, -1]
    return ShapleyResult(
        values=values,
        base_values=base,
        outputs=outputs,
        data=X,
        feature_names=_feature_names(X, feature_names),
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
    out = evaluate(f, rows, 2 * r)
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
    :func:`lib.permutation_sampling.walk_rows`).  :class:`lib.counting.CountingModel` counts the rows.

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

    base_out = evaluate(f, background, background.shape[0]).mean(axis=0)
    outputs = evaluate(f, X, n)
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
