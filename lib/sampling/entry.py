"""The entry of :mod:`lib.sampling`: :func:`~lib.sampling.entry.sample_shapley`, which checks the
inputs into one game and runs a registered estimator on it, and the efficiency adjustment it can
apply afterwards."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from lib.entry_points import entry_point
from lib.games import Game, as_game
from lib.result import ShapleyResult
from lib.sampling.base import Options
from lib.sampling.registry import DEFAULT, check_tol, estimator, run

__all__ = ["adjust_efficiency", "sample_shapley"]

Model = Callable[[Any], Any]
ArrayOrFrame = np.ndarray | pd.DataFrame


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
    method: str = DEFAULT,
    options: Options | None = None,
    output: Any = None,
    tol: float | None = None,
    **deprecated: Any,
) -> ShapleyResult:
    """Sampled interventional Shapley values, for more features than :func:`lib.shapley.exact_shapley` takes.

    Book: :ref:`eq-found-shapley-perm`, :ref:`eq-found-sampling`
        (notebooks/00-foundations/01-shapley-values.ipynb).

    Estimates the values :func:`lib.shapley.exact_shapley` computes with the same background (the
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
        A name registered in :mod:`lib.sampling` (``lib.sampling.estimators()``, the default
        first); not given, the default estimator, :data:`lib.sampling.registry.DEFAULT`, the book's
        recommended one.  ``"strata"`` (:mod:`lib.sampling.strata`: each background row's
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
    tol
        Stop sampling an explained row once every standard error of its values (every feature, every
        output) is at most ``tol``, or once ``max_rows`` is spent, whichever comes first: ``max_rows``
        stays a hard cap.  A finite number ``> 0``; default ``None``, every row given the whole budget
        (the results are then those of the call without ``tol``, bit for bit).  The method runs in
        rounds on each row, the rows spent doubling each round (:func:`lib.sampling.registry.sequential`
        says how and why); a ``nan`` standard error (too few draws to measure a spread) never meets
        ``tol``, an exact value (standard error 0) stops after the first round.  Where ``max_rows`` pays
        for the method's exact value of a row (the strata estimator: every stratum enumerated), the row
        is computed exactly, at that cost: give a smaller ``max_rows`` to let ``tol`` save rows.  Where
        ``max_rows`` ran out first, one ``UserWarning`` says on how many rows, the largest standard
        error reached and the ``max_rows`` that would meet ``tol`` (estimated at the ``1/sqrt(rows)``
        rate).  The result's ``rows_per_row`` records each row's rows.

    Returns
    -------
    ShapleyResult
        With ``variances`` (the variance of each estimate), ``standard_errors`` (each value's, from
        the method's own draws; with ``adjust=True``, those of the estimates before the adjustment),
        ``degrees_of_freedom`` (theirs), whose nominal 95 % intervals ``result.interval()`` gives (``values
        ± t standard_errors``, Student's ``t`` at those degrees of freedom), ``n_samples`` (``(n, d)``,
        samples per feature) and ``model_rows``, the model rows spent; with ``tol``, also
        ``rows_per_row`` (``(n,)``, each row's rows, at most ``max_rows``).  Base values are exact: the
        mean of ``f`` over the whole background.

    Raises
    ------
    ValueError
        A budget too small for one estimate (the message gives the smallest ``max_rows``),
        options of another method, an unknown method, a ``tol`` that is not a finite number
        ``> 0``, or bad input (:mod:`lib.validation`).
    """
    given, options = _deprecated_keywords(deprecated, method, options)
    tol = check_tol(tol)
    game = as_game(model, X, background, "sample_shapley", output=output, nan_remedy=_NAN_REMEDY, **given)
    if game.d == 0:
        raise ValueError("X has no features: give at least one column to explain")
    before = game.model_rows
    res = run(game, method, max_rows, rng, options, tol=tol)
    res = replace(res, model_rows=game.model_rows - before)
    opts = options if options is not None else estimator(method).options()
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


def _deprecated_keywords(given: dict[str, Any], method: str, options: Options | None
                         ) -> tuple[dict[str, Any], Options | None]:
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
        opts = options if options is not None else estimator(method).options()
        fields = set(getattr(opts, "__dataclass_fields__", {}))
        missing = sorted(set(moved) - fields)
        if missing:
            raise ValueError(f"method={method!r} has no option {missing}: its options are {sorted(fields)}")
        options = replace(opts, **moved)
    return game, options
