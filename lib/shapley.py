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

* the *reference path* for float arrays: the game's ``2**d`` values (the model on every hybrid
  row, each coalition's value the mean over the background, built in cache-sized blocks by the
  private :mod:`lib._shapley_blocks`), then the formula (:func:`shapley_from_game`);
* the *fast path*, for discretised data (arrays of integers or booleans, DataFrames): the
  private :mod:`lib._shapley_fast` asks the model for each distinct hybrid row once and sums
  the Shapley values background row by background row.

The input's type chooses the path (:func:`exact_path`), never its size; the two agree to
``1e-12`` (``lib/tests/test_shapley_paths.py``) and with the game's plain value function
(:meth:`lib.games.Game.coalition_values`, the equation in numpy).  Every public function here
builds one checked game (:class:`lib.games.Game`) from its inputs and hands it down; the
estimators past exact enumeration are :mod:`lib.sampling`'s plug-ins, run by
:func:`sample_shapley`.  The result type is :class:`lib.result.ShapleyResult`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import pandas as pd

from lib import sampling
from lib.counting import ANNOUNCE_FEATURES, cost_bar
from lib.games import MAX_EXACT_FEATURES, Game, bitmask_rows, game_of
from lib.result import ShapleyResult
from lib.sampling.strumbelj_kononenko import sampling_rows
from lib.validation import as_rows, check_enumerable, check_random
from lib.entry_points import entry_point

__all__ = [
    "ShapleyResult",
    "adjust_efficiency",
    "coalition_masks",
    "exact_path",
    "exact_shapley",
    "game_size",
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


@entry_point(model="f", rows=("X", "background"), allow_nan=True)
def exact_shapley(
    f: Model | Game,
    X: ArrayOrFrame | np.typing.ArrayLike | None = None,
    background: ArrayOrFrame | np.typing.ArrayLike | None = None,
    *,
    output: Any = None,
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

    ``f`` is a fitted classifier (its ``predict_proba``) or a function of the rows, checked with
    ``X`` and ``background`` once into a :class:`lib.games.Game` (columns matched by name, NaN and
    ±inf refused), or such a game itself.  ``output`` picks the explained class
    (:func:`lib.models.output_index`: a label of ``classes_`` or a column index); by default every
    output.  ``feature_names``, ``output_names`` label arrays and callables.

    Two paths, chosen by the inputs' types (:func:`exact_path`), agree to ``1e-12``: floats take
    the reference path, the game's ``2**d`` values (``n * 2**d * m`` model rows, in batches of at
    most ``max_rows_per_call``) then :func:`shapley_from_game`; discretised data (integers,
    booleans, DataFrames) the fast path, which evaluates each *distinct* hybrid row once and
    sums the values background row by background row (where ``b`` equals ``x`` on features
    ``E``, those are null players of ``f(x_S, b_{-S})``).  The model must not modify its input
    in place.  Refuses ``d > max_features`` with a ``ValueError`` that names the book's
    estimator beyond it; past 16 features it says its cost in model rows first and shows a
    progress bar.

    Returns
    -------
    ShapleyResult
        ``values`` of shape ``(n, d)`` or ``(n, d, k)``.
    """
    game = game_of(f, X, background, "exact_shapley", output=output, feature_names=feature_names,
                   output_names=output_names, allow_nan=allow_nan, max_rows_per_call=max_rows_per_call)
    check_enumerable(game.d, max_features)
    n, d, m = game.n, game.d, game.m
    before = game.model_rows
    fast = exact_path(game.X, game.background) == "fast"
    bar = None
    if d > ANNOUNCE_FEATURES:
        what = f"exact_shapley: {n} rows x 2**{d} coalitions x {m} background rows"
        if fast:  # each distinct hybrid row once: at most 2**D rows per pair that differs on D features
            sizes = 2.0 ** game.differ.sum(axis=2)      # the rows of each pair (x, b), all distinct
            bar = cost_bar(what, int(sizes.sum()), n * 2**d, "coalition", least=int(sizes.max()))
        else:
            bar = cost_bar(what, n * 2**d * m, n * 2**d, "coalition")
    progress = bar.update if bar is not None else None
    if fast:
        from lib import _shapley_fast  # numba: imported on the first call that needs it

        values, base, outputs = _shapley_fast.shapley_values(game, progress)
    else:
        if game.d == 0:
            game_v = game.coalition_values(bitmask_rows(np.arange(1), 0))
        else:
            from lib import _shapley_blocks

            game_v = _shapley_blocks.game_values(game.f, game.X, game.background, game.max_rows_per_call, progress)
        if game_v.ndim == 3:  # (n, 2**d, k) -> (n, k, 2**d) -> (n, k, d) -> (n, d, k)
            values = np.moveaxis(shapley_from_game(np.moveaxis(game_v, 1, 2)), 1, 2)
        else:
            values = shapley_from_game(game_v)
        base, outputs = game_v[:, 0], game_v[:, -1]
    if bar is not None:
        bar.close()
    return ShapleyResult(
        values=values,
        base_values=base,
        outputs=outputs,
        data=game.X,
        feature_names=game.feature_names,
        output_names=game.output_names,
        method="exact",
        model_rows=game.model_rows - before,
    )


# ---------------------------------------------------------------------------
# Sampling: the estimators of lib.sampling, run on one game
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


@entry_point(model="model", rows=("X", "background"), budget=("max_rows", 60), seed="rng")
def sample_shapley(
    model: Model | Game,
    X: ArrayOrFrame | np.typing.ArrayLike | None = None,
    background: ArrayOrFrame | np.typing.ArrayLike | None = None,
    *,
    max_rows: int,
    rng: np.random.Generator,
    method: str = sampling.DEFAULT,
    options: sampling.Options | None = None,
    output: Any = None,
    **deprecated: Any,
) -> ShapleyResult:
    """Sampled interventional Shapley values, for more features than :func:`exact_shapley` takes.

    Book: :ref:`eq-found-shapley-perm`, :ref:`eq-found-sampling`
        (notebooks/00-foundations/01-shapley-values.ipynb).

    Estimates the values :func:`exact_shapley` computes with the same background (the
    interventional game), spending at most ``max_rows`` model rows per explained row.

    Parameters
    ----------
    model
        A fitted classifier (its ``predict_proba``) or a function of the rows
        (:func:`lib.models.as_model`), checked with ``X`` and ``background`` once into a
        :class:`lib.games.Game`; or such a game itself (to give ``feature_names``,
        ``output_names``, ``allow_nan`` or ``max_rows_per_call``: ``Game(model, X, background,
        ...)``), with ``X`` and ``background`` left out.  Those four keywords, and the estimators'
        options this function took before ``options=`` (``adjust``, ``eps``, ``min_samples``,
        ``batch_size``, ``prior_samples``, ``background_per_pair``), are still accepted for one
        release, with a ``DeprecationWarning`` that names their new place.
    X, background
        Rows to explain and background rows (arrays or DataFrames; columns matched by name).
    max_rows
        The budget: model rows per explained row, counted as if the row were explained alone —
        ``f(x)`` once, the ``m`` background rows once (the base value is exact), and the rows of
        the draws.  A budget below what the method needs for one estimate is refused, with that
        minimum in the message; no method spends more (:class:`lib.counting.CountingModel`, or the
        game's ``model_rows``, counts it).
    rng
        A ``numpy.random.Generator``, e.g. ``np.random.default_rng(0)``, or an int seed ``s``, the
        same as ``np.random.default_rng(s)`` (scikit-learn's convention).
    method
        A name registered in :mod:`lib.sampling` (``lib.sampling.estimators()``): ``"strata"`` (the
        default, the book's recommended estimator, :mod:`lib.sampling.strata`: each background row's
        game enumerated where that costs no more than walking it, else walked as by
        ``"antithetic"``), ``"antithetic"`` (:mod:`lib.sampling.antithetic`, orderings walked
        forwards and backwards, Mitchell et al., 2022), ``"uniform"`` and ``"variance"``
        (Štrumbelj & Kononenko's Algorithms 1 and 2, :mod:`lib.sampling.strumbelj_kononenko`: the
        estimators chapter 0 and chapter 2 study).
    options
        That method's options object (``lib.sampling.antithetic.AntitheticOptions``,
        ``lib.sampling.strumbelj_kononenko.VarianceOptions``, ...); default its defaults.  Every
        options object has ``adjust`` and ``eps``: ``adjust=True`` applies
        :func:`adjust_efficiency` (Appendix E, Eq. (C18)-(C19) of the Shapley-composition paper;
        shap's ``SamplingExplainer``) so the estimates add up to ``f(x) - E_b f(b)``; the antithetic
        estimate already does once every background row has served.
    output
        The explained class (:func:`lib.models.output_index`: a label of ``classes_`` or a column
        index); default every output.

    Returns
    -------
    ShapleyResult
        With ``variances`` (the variance of each estimate) and ``n_samples`` (``(n, d)``,
        samples per feature), and ``model_rows``, the model rows spent.  Base values are exact: the
        mean of ``f`` over the whole background.

    Raises
    ------
    ValueError
        A budget too small for one estimate (the message gives the smallest ``max_rows``),
        options of another method, an unknown method, or bad input (:mod:`lib.validation`).
    """
    given, options = _deprecated_keywords(deprecated, method, options)
    game = game_of(model, X, background, "sample_shapley", output=output, nan_remedy=_NAN_REMEDY, **given)
    if game.d == 0:
        raise ValueError("X has no features: give at least one column to explain")
    before = game.model_rows
    res = sampling.run(game, method, max_rows, rng, options)
    res = replace(res, model_rows=game.model_rows - before)
    opts = options if options is not None else sampling.estimator(method).options()
    if not opts.adjust:
        return res
    assert res.variances is not None
    values = adjust_efficiency(res.values, res.variances, res.outputs - res.base_values, eps=opts.eps)
    return replace(res, values=values, method=res.method + "-adjusted")


#: sample_shapley's NaN remedy: it takes allow_nan through the game it is given
_NAN_REMEDY = ("impute it, or, if the model handles missing values itself, explain the game that lets them through: "
               "sample_shapley(lib.games.Game(model, X, background, allow_nan=True), max_rows=..., rng=...)")

#: sample_shapley's keywords before the seam (issue 36): the game's, and the estimators' options
_GAME_KEYWORDS = ("feature_names", "output_names", "allow_nan", "max_rows_per_call")
_OPTION_KEYWORDS = ("adjust", "eps", "min_samples", "batch_size", "prior_samples", "background_per_pair")


def _deprecated_keywords(given: dict[str, Any], method: str, options: sampling.Options | None
                         ) -> tuple[dict[str, Any], sampling.Options | None]:
    """sample_shapley's removed keywords, accepted for one release with a ``DeprecationWarning``: the
    game's (``feature_names``, ``output_names``, ``allow_nan``, ``max_rows_per_call``) passed to the
    game it builds, the estimators' (``adjust``, ``eps``, ``min_samples``, ...) into ``options``."""
    unknown = sorted(set(given) - set(_GAME_KEYWORDS) - set(_OPTION_KEYWORDS))
    if unknown:
        raise TypeError(f"sample_shapley() got unexpected keyword arguments {unknown}")
    game = {k: v for k, v in given.items() if k in _GAME_KEYWORDS}
    moved = {k: v for k, v in given.items() if k in _OPTION_KEYWORDS and v is not None}
    for k in given:
        where = ("lib.games.Game(model, X, background, " + k + "=...), passed as the model" if k in _GAME_KEYWORDS
                 else f"options=lib.sampling.estimator({method!r}).options({k}=...)")
        warnings.warn(f"sample_shapley({k}=...) is deprecated and will be removed in the next release: use {where}",
                      DeprecationWarning, stacklevel=3)
    if moved:
        opts = options if options is not None else sampling.estimator(method).options()
        fields = set(getattr(opts, "__dataclass_fields__", {}))
        missing = sorted(set(moved) - fields)
        if missing:
            raise ValueError(f"method={method!r} has no option {missing}: its options are {sorted(fields)}")
        options = replace(opts, **moved)
    return game, options
