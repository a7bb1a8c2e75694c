"""Background strata, each enumerated or walked: ``method="strata"``.

Book: :ref:`eq-found-strata` (notebooks/00-foundations/03-estimators.ipynb).

The interventional Shapley value is the mean over the background rows of the Shapley values of the
*per-row games* ``u_b(S) = f(x_S, b_{-S})``: ``φ_i = (1/m) Σ_b φ_i(u_b)`` (the value is linear in
the game, and ``v = (1/m) Σ_b u_b``).  The antithetic sampler (:mod:`lib.sampling.antithetic`)
already estimates it stratum by stratum: its walks are averaged per background row, then over the
rows.  This estimator chooses, for each stratum, the cheaper of two ways to its value:

* **enumerate** ``u_b``: where ``x`` and ``b`` agree, a feature is a null player of ``u_b`` (switching
  it changes no row), so ``u_b`` is a game of the ``D_b`` features on which they differ, with
  ``2^{D_b}`` distinct rows, two of which (``b`` and ``x``) are known: ``φ(u_b)`` exactly for
  ``2^{D_b} - 2`` model rows;
* **walk** it: antithetic pairs of walks against ``b`` (Mitchell et al., 2022), ``2 (D_b - 1)`` rows a
  pair, an unbiased estimate whose variance falls as ``1 / pairs``.

The rule (:func:`plan_strata`): with ``R`` rows for the strata (the budget less ``f(x)`` and the ``m``
background rows), pairs of walks are dealt to the walked strata in turn (each round a fresh shuffle
of them), so each gets about ``n = (R - Σ_E c_b) / Σ_W w_b`` pairs, ``E`` the enumerated strata and
``W`` the others; a stratum is enumerated when that costs no more than the walks it would get,
``c_b <= n w_b``, until none qualifies.  An enumeration so chosen leaves the other strata at least
the pairs they had, so every walked stratum gets at least the antithetic sampler's pairs and every
enumerated one is exact: stratum by stratum, the variance is no larger than the antithetic
sampler's (the book's variance argument, ``notebooks/00-foundations/03-estimators``).  The rule
reads only the costs, which the data fix (no threshold, no pilot run).  On continuous data every ``D_b = d``: no stratum is enumerated
below the exact cost, and the estimate is the antithetic sampler's.  On discretised or categorical
data, where rows agree on many features, the cheap strata are exact from small budgets on, and the
whole estimate is exact once the budget pays for every stratum's enumeration
(:func:`enumeration_rows`), which is far below ``2^d m`` when the rows agree.

The estimate is unbiased (each walked stratum's estimate is; the enumerated ones are exact) once
every walked stratum has a pair; below that budget the walked strata's values are estimated by the
mean over the pairs taken (their background rows a uniform draw without replacement), and, as for
the antithetic sampler, the pairs taken then depend on their cost.  It is efficient (the values
add up to ``f(x) - E_b f(b)``) once every stratum is enumerated or walked, and exact on an additive
game from then on (a walk is exact on an additive game).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.formula import shapley_from_game
from lib.games import Game
from lib.result import ShapleyResult
from lib.sampling.base import Options, register
from lib.sampling.walk import (
    BOOTSTRAP_LEVELS,
    agreement_floor,
    bootstrap_t,
    pair_walks,
    pooled_dof,
)

__all__ = ["StrataOptions", "deal_pairs", "enumerate_stratum", "enumeration_rows", "plan_strata", "strata"]


@dataclass(frozen=True)
class StrataOptions(Options):
    """Options of ``method="strata"`` (none of its own beyond ``adjust`` and ``eps``)."""


def enumeration_rows(differing: np.typing.ArrayLike) -> np.ndarray:
    """Model rows that enumerate the per-row game of a background row differing from ``x`` on ``D``
    features: ``2^D - 2`` (its ``2^D`` distinct rows less ``b`` and ``x``, whose values are known), and
    none when ``D <= 1``."""
    D = np.asarray(differing, dtype=np.int64)
    if np.any(D < 0):
        raise ValueError("the number of differing features must be >= 0")
    return np.where(D <= 1, 0, (2 ** np.minimum(D, 62)) - 2)


def plan_strata(differing: np.typing.ArrayLike, rows: int) -> np.ndarray:
    """Which strata (background rows, given their numbers ``D_b`` of differing features) to enumerate
    with ``rows`` model rows for all the strata: a boolean per stratum.

    With ``w_b = 2 (D_b - 1)`` rows a pair of walks and ``c_b`` rows an enumeration
    (:func:`enumeration_rows`), the walked strata ``W`` get ``n = (rows - Σ_E c_b) / Σ_W w_b`` pairs
    each (pairs are dealt in turn); a stratum is enumerated when its enumeration costs no more than
    those pairs, ``c_b <= n w_b``, which raises ``n`` for the others; repeated until no stratum
    qualifies (strata with ``D_b <= 1`` cost nothing to enumerate).  So every walked stratum gets at
    least the pairs the antithetic sampler would give it with the same rows (up to whole pairs).
    """
    D = np.asarray(differing, dtype=np.int64).reshape(-1)
    cost = enumeration_rows(D).astype(float)
    pair = 2.0 * np.maximum(D - 1, 0)
    chosen = cost == 0
    while not chosen.all():
        pairs_each = (float(rows) - cost[chosen].sum()) / pair[~chosen].sum()
        new = ~chosen & (cost <= pairs_each * pair)
        if not new.any():
            break
        chosen |= new
    return chosen


def _least_rows(game: Game, options: StrataOptions) -> int:
    """``f(x)``, the background rows and one pair of walks where ``x`` and ``b`` differ everywhere."""
    return 1 + game.m + 2 * max(game.d - 1, 0)


def _exact_rows(game: Game, options: StrataOptions) -> np.ndarray:
    """The budget from which the estimate of each explained row is exact, ``(n,)``: ``f(x)``, the
    background rows and every stratum's enumeration (:func:`enumeration_rows`); at that budget
    :func:`plan_strata` enumerates every stratum (the mean cost per pair row of the strata not yet
    enumerated is at most the rows per pair row left for them, so one of them qualifies, again and
    again)."""
    return 1 + game.m + enumeration_rows(game.differ.sum(axis=2)).sum(axis=1)


def enumerate_stratum(game: Game, i: int, b: int) -> np.ndarray:
    """``φ(u_b)`` ``(d[, k])`` exactly: the per-row game of explained row ``i`` and background row ``b`` on
    the subsets of the features where they differ (``2^{D_b} - 2`` model rows, :func:`enumeration_rows`)."""
    feats = np.flatnonzero(game.differ[i, b])
    k_shape = game.outputs.shape[1:]
    D = len(feats)
    out = np.zeros((game.d,) + k_shape)
    if D == 0:
        return out
    fx, fb = game.outputs[i], game.background_outputs[b]
    if D == 1:
        out[feats[0]] = fx - fb
        return out
    codes = np.arange(1, 2**D - 1)
    sub = ((codes[:, None] >> np.arange(D)[None, :]) & 1).astype(bool)        # (2^D - 2, D)
    masks = np.zeros((len(codes), game.d), dtype=bool)
    masks[:, feats] = sub
    inner = game.evaluate(np.full(len(codes), i), masks, np.full(len(codes), b))
    values = np.empty((2**D,) + k_shape)
    values[0], values[-1], values[1:-1] = fb, fx, inner.reshape((len(codes),) + k_shape)
    phi = shapley_from_game(np.moveaxis(values, 0, -1))                      # (k..., D)
    out[feats] = np.moveaxis(phi, -1, 0)
    return out


def deal_pairs(pair_cost: np.ndarray, walked: np.ndarray, rows: int, rng: np.random.Generator) -> np.ndarray:
    """The background rows of the pairs of walks, dealt to the ``walked`` strata in turn (each round a
    fresh shuffle of them) while their rows (``pair_cost[b]`` each) fit in ``rows``: ``(N,)`` indices."""
    most = max(rows, 0) // int(pair_cost[walked].min())
    deal = np.concatenate([rng.permutation(walked) for _ in range(most // len(walked) + 1)])
    fits = np.cumsum(pair_cost[deal]) <= rows
    return deal[: len(deal) if fits.all() else int(np.argmin(fits))]


@register("strata", options=StrataOptions, minimum_rows=_least_rows, exact_rows=_exact_rows,
          needs="one pair of walks, 2 (d - 1) rows")
def strata(game: Game, budget: int, rng: np.random.Generator, options: StrataOptions) -> ShapleyResult:
    """Background strata, each enumerated where that is no dearer than its walks, else walked.

    Book: :ref:`eq-found-strata` (notebooks/00-foundations/03-estimators.ipynb).

    Per explained row: the strata (background rows) are planned by :func:`plan_strata` with the
    budget less ``f(x)`` and the background rows; the enumerated strata give ``φ(u_b)`` exactly, the
    others antithetic pairs of walks dealt in turn (a fresh shuffle of the walked strata per round)
    while their rows fit; the estimate is the mean over the strata of their values (the walked ones:
    the mean of their pairs), or, when some walked stratum got no pair, the enumerated strata's
    values and the mean over the pairs for the others, weighted by their numbers.  See the module
    docstring for the rule and why it does at least as well as the antithetic sampler.

    Returns
    -------
    ShapleyResult
        ``variances``: the pooled within-stratum variance of the pair means times
        ``Σ_{walked b} 1 / (m^2 n_b)`` (zero when every stratum is enumerated; with under two pairs in
        every stratum, the variance of the pair means over the pairs); ``standard_errors``: their square
        roots, raised, for a value whose draws all agreed, to the rule of three's bound
        (:func:`lib.sampling.walk.agreement_floor`; 0 where every stratum is enumerated; ``nan`` for a row whose walked strata got under two
        pairs: no spread to measure; on continuous data, where no stratum is enumerated, the antithetic
        sampler's); ``degrees_of_freedom``: theirs (:func:`lib.sampling.walk.pooled_dof`: the pooled
        within-stratum variance's effective ones; ``inf`` for the rule of three's bound, whose ``± 1.96``
        standard errors are that bound), which :meth:`lib.result.ShapleyResult.interval` reads;
        ``bootstrap_quantiles``: where every walked stratum of a row has at least
        :data:`lib.sampling.walk.BOOTSTRAP_MIN_DRAWS` pairs, the bootstrap-t's
        (:func:`lib.sampling.walk.bootstrap_t`, resampling the pairs within their strata), so that
        ``interval()`` is the bootstrap-t interval there, which holds where the pairs are skewed and the
        symmetric ``± t`` interval misses from one side (``None`` where no row has them);
        ``n_samples``: walks per feature
        (twice the pairs) plus, for each enumerated stratum, one; base values exact.
    """
    n, d, m = game.n, game.d, game.m
    outputs = game.outputs
    game.background_outputs  # noqa: B018  (the m background rows, counted once)
    k_shape = outputs.shape[1:]
    values = np.zeros((n, d) + k_shape)
    variances = np.zeros((n, d) + k_shape)
    floors = np.zeros((n, d) + k_shape)
    dofs = np.full((n, d) + k_shape, np.inf)                                 # exact where nothing is walked
    boots = np.full((n, d) + k_shape + (len(BOOTSTRAP_LEVELS), 2), np.nan)   # bootstrap-t quantiles, where taken
    n_samples = np.zeros((n, d), dtype=np.int64)
    unknown = np.zeros(n, dtype=bool)                                         # walked, with under two pairs
    rows_for_strata = int(budget) - 1 - m
    differing = game.differ.sum(axis=2)                                       # (n, m)
    plans = np.array([plan_strata(differing[i], rows_for_strata) for i in range(n)]).reshape(n, m)
    if not plans.any():
        # no stratum is enumerated: the estimate is the antithetic sampler's, with its random stream
        # (and its name in ``method``: it is what was computed)
        from lib.sampling.antithetic import AntitheticOptions, antithetic

        return antithetic(game, budget, rng, AntitheticOptions())
    for i in range(n):
        D = differing[i]
        enumerate_b = plans[i]
        left = rows_for_strata - int(enumeration_rows(D)[enumerate_b].sum())
        per_b = np.zeros((m, d) + k_shape)
        for b in np.flatnonzero(enumerate_b):
            per_b[b] = enumerate_stratum(game, i, int(b))
        walked = np.flatnonzero(~enumerate_b)
        if len(walked) == 0:
            values[i] = per_b.mean(axis=0)
            n_samples[i] = len(enumerate_b)
            continue
        # pairs dealt to the walked strata in turn, each round a fresh shuffle, while they fit (a
        # walked stratum has D_b >= 2: those with D_b <= 1 cost nothing to enumerate)
        donors = deal_pairs(2 * np.maximum(D - 1, 0), walked, left, rng)
        contrib = (pair_walks(game, np.full(len(donors), i), donors, np.argsort(rng.random((len(donors), d)), axis=1))
                   if len(donors) else np.zeros((0, d) + k_shape))
        counts = np.bincount(donors, minlength=m)
        moves = game.differ[i, walked].any(axis=0)               # not a null player of every walked u_b
        n_samples[i] = 2 * len(donors) + int(enumerate_b.sum())
        unknown[i] = len(donors) < 2
        if (counts[walked] > 0).all():
            sums = np.zeros((m, d) + k_shape)
            np.add.at(sums, donors, contrib)
            per_b[walked] = sums[walked] / counts[walked][(...,) + (None,) * (1 + len(k_shape))]
            values[i] = per_b.mean(axis=0)
            dev = contrib - per_b[donors]
            dof = len(donors) - len(walked)
            if dof > 0:
                pooled = (dev**2).sum(axis=0) / dof
                variances[i] = pooled * (1.0 / counts[walked]).sum() / m**2
                floors[i] = agreement_floor(dev, dof, len(walked) / m, moves)
                dofs[i] = pooled_dof(dev, donors)
                boots[i] = bootstrap_t(contrib, donors)                  # nan below 5 pairs in a stratum
            elif len(donors) > 1:
                variances[i] = contrib.var(axis=0, ddof=1) * (1.0 / counts[walked]).sum() / m**2
                floors[i] = agreement_floor(contrib - contrib.mean(axis=0), len(donors) - 1,
                                            len(walked) / m, moves)
                dofs[i] = len(donors) - 1
        else:
            # some walked strata have no pair: their mean estimated by the mean over the pairs taken
            walked_mean = contrib.mean(axis=0) if len(donors) else np.zeros((d,) + k_shape)
            values[i] = (per_b[enumerate_b].sum(axis=0) + len(walked) * walked_mean) / m
            if len(donors) > 1:
                variances[i] = contrib.var(axis=0, ddof=1) / len(donors) * (len(walked) / m) ** 2
                floors[i] = agreement_floor(contrib - walked_mean, len(donors) - 1, len(walked) / m, moves)
                dofs[i] = len(donors) - 1
    # values whose draws all agreed: not a measured 0 but the rule of three's bound (walk.agreement_floor)
    standard_errors = np.maximum(np.sqrt(variances), floors)
    standard_errors[unknown] = np.nan
    dofs[(standard_errors == 0.0) | (floors > np.sqrt(variances))] = np.inf   # exact, or the rule of three's bound
    dofs[np.isnan(standard_errors)] = np.nan                                  # last: no spread measured at all
    boots[~np.isfinite(dofs)] = np.nan                  # exact, a bound or unknown: no resampled interval
    return ShapleyResult(values=values, base_values=game.base_values, outputs=outputs, data=game.X,
                         feature_names=game.feature_names, output_names=game.output_names,
                         variances=variances, standard_errors=standard_errors, n_samples=n_samples,
                         method="strata", degrees_of_freedom=dofs,
                         bootstrap_quantiles=boots if np.isfinite(boots).any() else None)
