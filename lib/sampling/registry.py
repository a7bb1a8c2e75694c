"""The registry of Shapley-value estimators: every estimator of :mod:`lib.sampling` by name, and the one way to run one.

An estimator (:mod:`lib.sampling.base`: ``estimate(game, budget, rng, options)``) registers itself
in its own module of the package; :func:`estimators` imports those modules (every public module of
the package but this one, :mod:`lib.sampling.base`, :mod:`lib.sampling.entry` and
:mod:`lib.sampling.walk`: :func:`estimator_modules`) and lists what they registered.  :func:`run` is the one way in: it
refuses an unknown method, options of another method, and a budget below the minimum (naming the
minimum), runs the estimator, and checks that it spent at most ``budget`` model rows per explained
row (the game's count), so that no method spends more than it was given.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from lib.games import Game
from lib.result import ShapleyResult
from lib.sampling.base import REGISTERED, Estimator
from lib.validation import check_budget, check_random

__all__ = ["DEFAULT", "FIRST_ROUND", "NOT_ESTIMATORS", "check_tol", "estimator", "estimator_modules", "estimators",
           "run", "sequential"]

#: The estimator :func:`lib.sampling.sample_shapley` uses when no ``method`` is given: the best one
#: measured against the newest peers (``benchmarks/estimators.py``).
DEFAULT = "strata"

#: The modules of :mod:`lib.sampling` that hold no estimator: the seam itself, and the walk the
#: estimators share.
NOT_ESTIMATORS = frozenset({"base", "registry", "entry", "walk"})

#: The first round of :func:`lib.sampling.registry.sequential` (``tol``), in multiples of the least draws
#: of the estimator.
FIRST_ROUND = 32


def estimator_modules() -> list[str]:
    """The modules :func:`estimators` imports to find the estimators (the registry's dynamic loads,
    which the import test of ``lib`` follows): every public module of the package but
    :data:`NOT_ESTIMATORS`."""
    folder = Path(__file__).resolve().parent
    return [f"lib.sampling.{info.name}" for info in sorted(pkgutil.iter_modules([str(folder)]), key=lambda i: i.name)
            if info.name not in NOT_ESTIMATORS and not info.name.startswith("_")]


def estimators() -> dict[str, Estimator]:
    """Every registered estimator by name, :data:`DEFAULT` first, then by name."""
    for module in estimator_modules():
        importlib.import_module(module)
    names = sorted(REGISTERED, key=lambda n: (n != DEFAULT, n))
    return {n: REGISTERED[n] for n in names}


def estimator(name: str) -> Estimator:
    """The estimator registered as ``name``, else a ``ValueError`` listing the names."""
    found = estimators()
    if name not in found:
        raise ValueError(f"method must be one of {list(found)}, got {name!r}")
    return found[name]


def run(game: Game, method: str, budget: int, rng: np.random.Generator, options: Any = None, *,
        tol: float | None = None) -> ShapleyResult:
    """The estimate of ``method`` on ``game`` with at most ``budget`` model rows per explained row.

    ``options=None``: the method's defaults.  Refuses a ``budget`` below the method's minimum for
    this game or not an integer (the message names the budget to give), options of another method,
    and an ``rng`` that is neither an int seed nor a ``numpy.random.Generator``
    (:func:`lib.validation.check_random`: an int ``s`` is ``numpy.random.default_rng(s)``, as
    scikit-learn takes seeds); after the run, checks the model rows the game counted (at most
    ``budget`` per explained row).  ``tol``: stop each row's sampling once its standard errors are
    at most ``tol`` (:func:`lib.sampling.registry.sequential`); ``None``, the estimator run once with
    the whole budget, as before ``tol`` existed (nothing of that path reads ``tol``).
    """
    tol = check_tol(tol)
    est = estimator(method)
    if options is None:
        options = est.options()
    if not isinstance(options, est.options):
        raise ValueError(f"options of method={method!r} are a {est.options.__name__} "
                         f"(lib.sampling.{est.module.rsplit('.', 1)[-1]}), got {type(options).__name__}")
    rng = check_random(rng)
    least = int(est.minimum_rows(game, options))
    if isinstance(budget, (int, np.integer)) and not isinstance(budget, (bool, np.bool_)) and budget < least:
        raise ValueError(
            f"max_rows={budget} is less than method={method!r} needs for one estimate here: at least {least} "
            f"model rows per explained row (f(x) once, the {game.m} background rows once, and {est.needs}); "
            f"give max_rows >= {least}"
        )
    budget = check_budget(budget, "max_rows", least)
    before = game.model_rows
    if tol is not None:
        return sequential(game, est, int(budget), rng, options, tol)
    result = est.function(game, int(budget), rng, options)
    spent = game.model_rows - before
    if spent > int(budget) * game.n:
        raise RuntimeError(f"method={method!r} spent {spent} model rows on {game.n} explained rows, more than "
                           f"max_rows={budget} each: a bug of the estimator ({est.module})")
    return result


def check_tol(tol: Any) -> float | None:
    """``tol`` checked: ``None``, or a finite number ``> 0`` (a clear ``ValueError`` otherwise)."""
    if tol is None:
        return None
    if isinstance(tol, (bool, np.bool_)) or not isinstance(tol, (int, float, np.integer, np.floating)):
        raise ValueError(f"tol must be a number > 0 (the largest standard error to stop at), or None, got {tol!r}")
    if not (math.isfinite(float(tol)) and float(tol) > 0):
        raise ValueError(f"tol must be a finite number > 0 (the largest standard error to stop at), got {tol!r}")
    return float(tol)


def sequential(game: Game, est: Estimator, budget: int, rng: np.random.Generator, options: Any,
               tol: float) -> ShapleyResult:
    """``est`` run in rounds on each explained row until every standard error of the row's values (every
    feature, every output) is at most ``tol``, or ``budget`` rows are spent: the stopping rule of
    :func:`lib.sampling.sample_shapley`'s ``tol``.

    **Design.**  One wrapper for every registered estimator, not a stop inside each one's loop: an
    estimator is a function of a budget (:mod:`lib.sampling.base`), so rounds of it on the row's own
    game (:meth:`lib.games.Game.of_rows`, which knows ``f(x)`` and the background's outputs already) add
    only the rows of their draws, and each round is an independent estimate with its own standard
    error.  No estimator changes, so without ``tol`` every estimator gives what it gave before, bit for
    bit, and a new estimator gets the rule by registering.  Its price, against a stop inside the walk
    loops of :mod:`lib.sampling.strata` and :mod:`lib.sampling.antithetic` (pairs dealt in rounds into one
    mean): a round's pairs of walks are not pooled with the next round's into one post-stratified mean
    (each round is post-stratified on its own, and its standard error measured on its own), and the
    strata estimator plans its strata anew in each round, so a stratum it enumerates is enumerated, and
    paid for, again in every round whose budget makes it enumerate it (exact each time: it adds nothing
    to the standard error, only to the rows).  On continuous data, where no stratum is enumerated, only
    the first price is paid.

    **Rounds.**  The first round gets :data:`FIRST_ROUND` times the least draws the estimator needs (its
    minimum budget less ``f(x)`` and the background rows: one pair of walks, one draw per feature, or
    ``min_samples`` per feature), or the whole budget if that is less: a single pair or draw measures no
    spread (``nan``), and a standard error from a few is so uncertain that a run would stop, often, where
    its draws happened to agree (a standard error from ``k`` degrees of freedom is itself off by about
    ``1 / sqrt(2 k)``); thirty-two give Štrumbelj & Kononenko's standard errors thirty-one degrees of
    freedom (a 95 % t quantile of 2.04 against the normal's 1.96), the walks' post-stratified ones
    thirty-two less the background rows met, and on a game with up to thirty-two background rows let the
    walks meet every one (post-stratified: exact on an additive game, which then stops after this round
    with standard error 0).  Eight, tried first, stopped too early: coverage at the stop 0.858 on the
    test's game at ``tol = 0.05``, against 0.921 with thirty-two (0.941 since the rule of three's floor, 0.954 with the result's own ``t`` intervals, ``lib/tests/test_tolerance.py``).  Each further round gets as
    many draw rows as all before it (the rows spent double each round, so about ``log2`` of the budget
    rounds), the last one what is left of the budget, if that still pays for the least draws.  The rows
    are the planned ones; on discrete data a round spends fewer (walks that switch nothing are free), and
    the row's record says what it did spend.

    **Exact where the budget pays for it.**  An estimator that registers ``exact_rows`` (the strata
    estimator: every stratum enumerated) says from which budget its estimate of a row is exact; where
    ``budget`` reaches it, the row is computed so, in one run of the whole budget (standard error 0, which
    meets any ``tol``), at that cost.  Rounds of smaller budgets would not enumerate every stratum, so a
    tolerance would otherwise make such a row less accurate than the same budget without it.

    **Pooling.**  The rounds' values are averaged with weights proportional to their planned draw rows
    (set by the rounds' sizes, not by what they drew, so the mean of unbiased rounds stays efficient
    where each round is, and unbiased but for the stopping time, which the draws decide), their standard errors combined as those of independent estimates,
    ``sqrt(Σ w_t² se_t²)``; the variances likewise.  A ``nan`` standard error (too few draws to measure
    a spread) is never at most ``tol``; an exact value (standard error 0, e.g. an additive game) stops
    after the first round.

    **Cost.**  ``rows_per_row`` of the result: each row's ``f(x)``, the ``m`` background rows and its
    draws' rows, at most ``budget``; ``model_rows`` (set by the caller) the total.  Rows whose budget ran
    out first are named in one ``UserWarning``: how many, the largest standard error they reached, and
    the ``max_rows`` that would meet ``tol`` at the ``1/sqrt(rows)`` rate of a mean of independent draws.

    Sequential stopping chooses the stopping time by the estimated standard error, so a run tends to stop
    where that estimate happens to be low: nominal 95 % intervals at the stop can cover somewhat less
    than the same intervals at a fixed budget, most where a run stops after a round or two, its standard
    errors resting on few draws (``lib/tests/test_tolerance.py`` measures it, against the coverage at a fixed
    budget).
    """
    overhead = 1 + game.m
    cap = budget - overhead                                   # draw rows a row may spend
    parts: list[ShapleyResult] = []
    spent = np.zeros(game.n, dtype=np.int64)
    missed: list[tuple[int, float, int]] = []                 # (row, largest standard error, planned draw rows)
    exact_cost = est.exact_rows(game, options) if est.exact_rows is not None else None
    for i in range(game.n):
        sub = game.of_rows([i])
        least = max(int(est.minimum_rows(sub, options)) - overhead, 1)
        rounds: list[tuple[int, ShapleyResult]] = []
        planned = 0
        if exact_cost is not None and exact_cost[i] <= budget:
            # the budget pays for the exact value of this row: computed so, in one run (standard error 0)
            rounds.append((cap, est.function(sub, budget, rng, options)))
            planned = cap
        while not rounds or not bool(np.all(_pooled(rounds)[2] <= tol)):
            size = min(FIRST_ROUND * least, cap) if not rounds else min(planned, cap - planned)
            if size < least or (rounds and size <= 0):
                break
            rounds.append((size, est.function(sub, overhead + size, rng, options)))
            planned += size
        values, variances, se, dof = _pooled(rounds)
        spent[i] = overhead + sub.model_rows
        game.model_rows += sub.model_rows
        if spent[i] > budget:
            raise RuntimeError(f"method={est.name!r} spent {spent[i]} model rows on explained row {i}, more than "
                               f"max_rows={budget}: a bug of the sequential rounds (lib.sampling.registry)")
        if not bool(np.all(se <= tol)):
            missed.append((i, float(np.nanmax(se)) if np.isfinite(se).any() else math.nan, planned))
        first = rounds[0][1]
        n_samples = np.sum([r.n_samples for _, r in rounds], axis=0) if first.n_samples is not None else None
        # a single round keeps its resampled intervals; pooled rounds take Student's t at the pooled dof
        parts.append(replace(first, values=values, variances=variances, standard_errors=se, n_samples=n_samples,
                             method=_names(r.method for _, r in rounds), degrees_of_freedom=dof,
                             bootstrap_quantiles=first.bootstrap_quantiles if len(rounds) == 1 else None))
    if missed:
        warnings.warn(_missed_message(missed, len(spent), tol, budget, overhead), UserWarning, stacklevel=4)
    return ShapleyResult(
        values=np.concatenate([p.values for p in parts]),
        base_values=game.base_values, outputs=game.outputs, data=game.X,
        feature_names=game.feature_names, output_names=game.output_names,
        variances=np.concatenate([p.variances for p in parts]) if all(p.variances is not None for p in parts)
        else None,
        standard_errors=np.concatenate([p.standard_errors for p in parts]),
        n_samples=np.concatenate([p.n_samples for p in parts]) if all(p.n_samples is not None for p in parts)
        else None,
        method=_names(p.method for p in parts),
        rows_per_row=spent,
        degrees_of_freedom=np.concatenate([p.degrees_of_freedom for p in parts])
        if all(p.degrees_of_freedom is not None for p in parts) else None,
        bootstrap_quantiles=_quantiles(parts),
    )


def _quantiles(parts: list[ShapleyResult]) -> np.ndarray | None:
    """The rows' bootstrap-t quantiles in one array, ``nan`` for a row without (``None`` where none has)."""
    kept = [p.bootstrap_quantiles for p in parts if p.bootstrap_quantiles is not None]
    if not kept:
        return None
    shape = kept[0].shape[1:]
    return np.concatenate([p.bootstrap_quantiles if p.bootstrap_quantiles is not None
                           else np.full((len(p.values),) + shape, np.nan) for p in parts])


def _pooled(rounds: list[tuple[int, ShapleyResult]]
            ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray | None]:
    """The rounds' values averaged with weights ∝ their planned draw rows, the variances and standard
    errors of that mean (independent rounds; ``nan`` where a round's standard error is), and the
    degrees of freedom of those (Welch-Satterthwaite: ``(Σ_t u_t)² / Σ_t (u_t² / ν_t)``, ``u_t = w_t² se_t²``,
    ``ν_t`` a round's; ``inf`` where every round is exact or a bound; ``None`` where a round gives none)."""
    w = np.array([size for size, _ in rounds], dtype=float)
    w /= w.sum()
    values = sum(wt * r.values for wt, (_, r) in zip(w, rounds))
    parts = [wt**2 * _standard_errors(r) ** 2 for wt, (_, r) in zip(w, rounds)]
    se = np.sqrt(sum(parts))
    variances = (sum(wt**2 * r.variances for wt, (_, r) in zip(w, rounds))
                 if all(r.variances is not None for _, r in rounds) else None)
    dof = None
    if all(r.degrees_of_freedom is not None for _, r in rounds):
        shares = sum(np.where(u > 0, u**2 / np.asarray(r.degrees_of_freedom, dtype=float), 0.0)
                     for u, (_, r) in zip(parts, rounds))
        total = np.asarray(sum(parts), dtype=float)
        # inf where every round is exact or a rule-of-three bound (no measured spread to count)
        dof = np.where(shares > 0, total**2 / np.where(shares > 0, shares, 1.0), np.inf)
        dof = np.where(np.isnan(se), np.nan, dof)
    return np.asarray(values), variances, np.asarray(se), dof


def _standard_errors(result: ShapleyResult) -> np.ndarray:
    """A round's standard errors (``nan`` for an estimator that gives none: never at most ``tol``)."""
    return (np.asarray(result.standard_errors, dtype=float) if result.standard_errors is not None
            else np.full(np.shape(result.values), np.nan))


def _names(methods: Any) -> str:
    """The distinct ``method`` names of rounds or rows, in their order, joined by ``+``."""
    return "+".join(dict.fromkeys(part for name in methods for part in name.split("+")))


def _missed_message(missed: list[tuple[int, float, int]], n: int, tol: float, budget: int, overhead: int) -> str:
    """The warning for the rows whose budget ran out before ``tol``: how many, the largest standard error,
    and the ``max_rows`` the ``1/sqrt(rows)`` rate asks for (``draws (se / tol)^2`` draw rows)."""
    measured = [(se, rows) for _, se, rows in missed if math.isfinite(se)]
    largest = max((se for se, _ in measured), default=math.nan)
    text = (f"tol={tol:g} was not met on {len(missed)} of {n} explained rows within max_rows={budget}: "
            f"the largest standard error reached is {largest:.3g}")
    if measured:
        need = max(overhead + math.ceil(max(rows, 1) * (se / tol) ** 2) for se, rows in measured)
        text += f"; at the 1/sqrt(rows) rate, max_rows={need} would meet it"
    unmeasured = len(missed) - len(measured)
    if unmeasured:
        text += (f"; {unmeasured} of them had too few draws to measure a spread (standard error nan): "
                 f"raise max_rows to at least {2 * budget}")
    return text
